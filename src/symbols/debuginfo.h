/* SPDX-License-Identifier: GPL-2.0-or-later */
/* debuginfo: where the separate debug file of a stripped binary may be, as
 * gdb and perf look for it: by build-id under the debug root, then by its
 * .gnu_debuglink name next to the binary, in .debug/ beside it, and under
 * the debug root mirroring the binary's directory. */
#ifndef PERFTOP_DEBUGINFO_H
#define PERFTOP_DEBUGINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym;

#define DEBUGINFO_MAX_PATHS 4

/* Candidate paths for the binary at path of that build-id (len 0: none)
 * and .gnu_debuglink name (NULL: none), best first. Returns how many were
 * written to out (at most DEBUGINFO_MAX_PATHS). */
size_t debuginfo_paths(const uint8_t *build_id, size_t build_id_len, const char *debuglink,
		       const char *path, const char *debug_root, char out[][PATH_MAX]);

/* Whether dbg may stand for t: same build-id when t has one. */
bool debuginfo_matches(const struct elfsym *t, const struct elfsym *dbg);

#endif
