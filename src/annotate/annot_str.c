/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_str: the strings annotations point to (names, files, what is
 * lacking), one copy of each, kept as long as the cache: an instruction's
 * file and callee stay valid while its annotation does. */
#include <stdlib.h>
#include <string.h>

#include "annot_int.h"
#include "util.h"

const char *annot_str_intern(struct annot_cache *c, const char *s)
{
	uint64_t key;
	char *d;

	if (s == NULL)
		return NULL;
	key = util_hash64(s, strlen(s), 1);
	for (size_t i = htab_first(&c->strs, key); i != SIZE_MAX; i = htab_next(&c->strs, key, i))
		if (strcmp((const char *)c->strs.tab[i].val, s) == 0)
			return (const char *)c->strs.tab[i].val;
	if ((d = strdup(s)) == NULL || htab_put(&c->strs, key, (uintptr_t)d)) {
		free(d);
		return NULL;
	}
	return d;
}

void annot_str_free(struct annot_cache *c)
{
	for (size_t i = 0; c->strs.tab && i <= c->strs.mask; i++)
		free((char *)c->strs.tab[i].val);
	htab_free(&c->strs);
}
