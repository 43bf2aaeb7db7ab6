/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfmap: the symbols a JIT (Node --perf-basic-prof, JVM agents, .NET,
 * LuaJIT) writes for its code in /tmp/perf-PID.map, one "START SIZE name"
 * line (hex) per function. Read incrementally as the file grows; bounded,
 * whatever the file holds. */
#ifndef PERFTOP_PERFMAP_H
#define PERFTOP_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERFMAP_MAX_BYTES (64u << 20) /* read no further into a file */
#define PERFMAP_MAX_SYMS (1u << 20)
#define PERFMAP_MAX_LINE 4096         /* longer lines are skipped */

struct perfmap_sym {
	uint64_t addr, size;
	const char *name; /* stable until perfmap_free: also the symbol's key */
};

struct perfmap_chunk;

struct perfmap {
	struct perfmap_sym *syms; /* sorted by addr; of equal addrs, the latest last */
	size_t nsyms, cap;
	struct perfmap_chunk *chunks; /* names, never moved */
	size_t name_bytes;
	uint64_t dev, ino;
	off_t pos;        /* bytes consumed: complete lines, or a too-long line's head */
	bool skipping;    /* pos is inside a too-long line: skip to its end */
};

/* Reads what was appended to path since the last call (all of it the first
 * time, or when the file was replaced). The file must be a regular file,
 * not a symlink, owned by uid or root and not writable by others.
 * 1: new symbols; 0: nothing new; -errno (-EPERM for a file not to trust). */
int perfmap_refresh(struct perfmap *pm, const char *path, uid_t uid);

/* The latest entry covering addr, or NULL. */
const struct perfmap_sym *perfmap_find(const struct perfmap *pm, uint64_t addr);

void perfmap_free(struct perfmap *pm); /* what it holds; pm itself is the caller's */
size_t perfmap_bytes(const struct perfmap *pm);

#endif
