/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "debuginfo.h"

#include <stdio.h>
#include <string.h>

#include "elfsym.h"

static bool put(char out[][PATH_MAX], size_t *n, int len)
{
	if (len <= 0 || len >= PATH_MAX)
		return false;
	(*n)++;
	return true;
}

size_t debuginfo_paths(const uint8_t *build_id, size_t build_id_len, const char *debuglink,
		       const char *path, const char *debug_root, char out[][PATH_MAX])
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;
	size_t n = 0;

	if (build_id_len >= 2 && build_id_len <= ELFSYM_BUILD_ID_MAX) {
		char hex[2 * ELFSYM_BUILD_ID_MAX + 1];

		for (size_t i = 0; i < build_id_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
		put(out, &n, snprintf(out[n], PATH_MAX, "%s/.build-id/%.2s/%s.debug", debug_root, hex, hex + 2));
	}
	if (debuglink == NULL || slash == NULL)
		return n;
	put(out, &n, snprintf(out[n], PATH_MAX, "%.*s/%s", dirlen, path, debuglink));
	put(out, &n, snprintf(out[n], PATH_MAX, "%.*s/.debug/%s", dirlen, path, debuglink));
	put(out, &n, snprintf(out[n], PATH_MAX, "%s%.*s/%s", debug_root, dirlen, path, debuglink));
	return n;
}

bool debuginfo_matches(const struct elfsym *t, const struct elfsym *dbg)
{
	/* Without a build-id to compare (the debuglink's CRC would mean
	 * reading the whole debug file), the name is all we have. */
	if (t->build_id_len == 0)
		return true;
	return dbg->build_id_len == t->build_id_len && memcmp(dbg->build_id, t->build_id, t->build_id_len) == 0;
}
