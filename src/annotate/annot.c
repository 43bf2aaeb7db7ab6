/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot: the cache of annotations (stub: bodies follow). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "annotate.h"

struct annot_cache {
	struct annot_opts o;
};

struct annot_cache *annot_cache_new(const struct annot_opts *o)
{
	struct annot_cache *c = calloc(1, sizeof(*c));

	if (c && o)
		c->o = *o;
	return c;
}

void annot_cache_free(struct annot_cache *c)
{
	free(c);
}

const struct annot_func *annot_get(struct annot_cache *c, const struct annot_target *t, char *why,
				   size_t whylen)
{
	(void)c;
	(void)t;
	snprintf(why, whylen, "annotation not implemented yet");
	return NULL;
}

const struct annot_insn *annot_insn_at(const struct annot_func *f, uint64_t off)
{
	(void)f;
	(void)off;
	return NULL;
}

const char *annot_source_text(struct annot_cache *c, const char *file, unsigned line)
{
	(void)c;
	(void)file;
	(void)line;
	return NULL;
}

bool annot_source_on(const struct annot_cache *c)
{
	return c->o.source;
}
