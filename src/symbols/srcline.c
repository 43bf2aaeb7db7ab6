/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srcline: source lines from DWARF (stub: bodies follow). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "srcline.h"

struct srcline_cache {
	int unused;
};

struct srcline_cache *srcline_cache_new(const char *debug_root)
{
	(void)debug_root;
	return calloc(1, sizeof(struct srcline_cache));
}

void srcline_cache_free(struct srcline_cache *c)
{
	free(c);
}

struct srcline_file *srcline_open(struct srcline_cache *c, const char *path, const uint8_t *build_id,
				  size_t build_id_len, char *why, size_t whylen)
{
	(void)c;
	(void)build_id;
	(void)build_id_len;
	snprintf(why, whylen, "no debug info for %s: no source lines", path);
	return NULL;
}

long srcline_range(struct srcline_file *f, uint64_t start, uint64_t end, struct srcline_row **rows)
{
	(void)f;
	(void)start;
	(void)end;
	*rows = NULL;
	return 0;
}

bool srcline_find(struct srcline_file *f, uint64_t addr, const char **file, unsigned *line)
{
	(void)f;
	(void)addr;
	*file = NULL;
	*line = 0;
	return false;
}

bool srcline_addr(struct srcline_cache *c, const char *path, const uint8_t *build_id, size_t build_id_len,
		  uint64_t addr, bool full, char *out, size_t len)
{
	(void)c;
	(void)path;
	(void)build_id;
	(void)build_id_len;
	(void)addr;
	(void)full;
	if (len)
		out[0] = 0;
	return false;
}

bool srcline_addr_off(struct srcline_cache *c, const char *path, const uint8_t *build_id,
		      size_t build_id_len, uint64_t off, bool full, char *out, size_t len)
{
	return srcline_addr(c, path, build_id, build_id_len, off, full, out, len);
}
