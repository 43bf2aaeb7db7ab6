/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bidfind.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"

#include "util.h"

static void hex(const uint8_t *bid, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[bid[i] >> 4];
		out[2 * i + 1] = digits[bid[i] & 15];
	}
	out[2 * len] = '\0';
}

size_t bidfind_paths(const char *cache_dir, const char *debug_root, const char *path, const uint8_t *bid,
		     size_t len, char out[][PATH_MAX])
{
	char h[2 * 20 + 1];
	size_t n = 0;

	if (len == 0 || len > 20)
		return 0;
	hex(bid, len, h);
	if (path && path[0] == '/')
		n += util_pathf(out[n], PATH_MAX, "%s", path) == 0;
	if (cache_dir && cache_dir[0]) {
		n += util_pathf(out[n], PATH_MAX, "%s/.build-id/%.2s/%s/elf", cache_dir, h, h + 2) == 0;
		if (path && path[0] == '/')
			n += util_pathf(out[n], PATH_MAX, "%s%s/%s/elf", cache_dir, path, h) == 0;
	}
	if (debug_root)
		n += util_pathf(out[n], PATH_MAX, "%s/.build-id/%.2s/%s.debug", debug_root, h, h + 2) == 0;
	return n;
}

int bidfind_kallsyms(const char *cache_dir, const uint8_t *bid, size_t len, char *out, size_t outlen)
{
	char h[2 * 20 + 1];

	if (cache_dir == NULL || cache_dir[0] == '\0' || len == 0 || len > 20)
		return -ENOENT;
	hex(bid, len, h);
	if (util_pathf(out, outlen, "%s/[kernel.kallsyms]/%s/kallsyms", cache_dir, h) != 0 || access(out, R_OK) != 0)
		return -ENOENT;
	return 0;
}

static bool is(const struct elfsym *t, const uint8_t *bid, size_t len)
{
	return t && (len == 0 || (t->build_id_len == len && memcmp(t->build_id, bid, len) == 0));
}

int bidfind_vdso(const char *cache_dir, const uint8_t *bid, size_t len, struct elfsym **out)
{
	char h[2 * 20 + 1], path[PATH_MAX];
	int fd;

	/* Ours, read from memory: a recording of this kernel's vDSO needs no copy. */
	if (elfsym_load_vdso(out) == 0 && is(*out, bid, len))
		return 0;
	elfsym_free(*out);
	*out = NULL;
	if (cache_dir == NULL || cache_dir[0] == '\0' || len == 0 || len > 20)
		return -ENOENT;
	hex(bid, len, h);
	if (util_pathf(path, sizeof(path), "%s/[vdso]/%s/vdso", cache_dir, h) != 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -ENOENT;
	/* Labelled as ours is: its unnamed helpers are [vdso]+0xVADDR. */
	elfsym_load_fd_label(out, fd, "[vdso]");
	close(fd);
	if (is(*out, bid, len))
		return 0;
	elfsym_free(*out);
	*out = NULL;
	return -ENOENT;
}
