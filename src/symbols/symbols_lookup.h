/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols_lookup: what the kernel's side (symbols_kernel.c) and the
 * processes' side (symbols_user.c) hand the resolver (symbols.c) for one
 * address. Internal to symbols. */
#ifndef PERFTOP_SYMBOLS_LOOKUP_H
#define PERFTOP_SYMBOLS_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

struct dso;

#define SYMBOLS_UNKNOWN "[unknown]"

/* What one resolution found, and whether it may be cached. */
struct symbols_lookup {
	const char *sym, *dso;
	uint64_t key;
	struct dso *d;      /* the DSO whose table (or lack of one) named it */
	bool nocache;       /* code of no file: a JIT map may name it by the next interval */
	/* sym_result's: the symbol's start in its file's (or the kernel's, a
	 * JIT's) address space, its size (0 unknown), the address's offset. */
	uint64_t start;
	uint32_t size, off;
};

#endif
