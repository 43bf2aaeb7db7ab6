/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cfarule: where a frameless leaf keeps its return address, read from the
 * code's CFI once and cached by (DSO id, file offset of the IP), shared by
 * every process mapping that code. -g's leaf fix asks it per user sample: a
 * warm IP costs one lookup and one load from the sample's stack copy, with
 * no Dwfl and no libdw call. Negative answers (the CFA is frame-pointer
 * based, so the chain is already right; no CFI; unreadable file) are cached
 * too. The table is bounded: a colliding entry replaces the old one. */
#ifndef PERFTOP_CFARULE_H
#define PERFTOP_CFARULE_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"

enum cfarule_kind {
	CFARULE_NONE = 1, /* nothing to fix here (or nothing can be told) */
	CFARULE_SP,       /* the return address is at [SP + ra_off] */
};

struct cfarule {
	uint8_t kind;
	int32_t ra_off;
};

struct cfarule_stats {
	uint64_t hits, misses, derived, negative;
	uint64_t opens; /* files opened by cfarule_derive_dso */
	uint64_t slots; /* the table's size now */
};

/* Files cfarule_derive_dso keeps open (mapped, no descriptor), the least
 * recently used replaced. */
#define CFARULE_HANDLES 16

struct cfarule_cache;

/* At most 2^bits entries of 16 bytes; the table starts at 2^10 and
 * doubles as it fills. */
struct cfarule_cache *cfarule_new(unsigned bits);
void cfarule_free(struct cfarule_cache *c);

/* false on a miss. */
bool cfarule_get(struct cfarule_cache *c, uint32_t dso_id, uint64_t off, struct cfarule *out);
void cfarule_put(struct cfarule_cache *c, uint32_t dso_id, uint64_t off, struct cfarule rule);

/* The rule at file offset off of the ELF file at path, from its .eh_frame
 * (or .debug_frame); CFARULE_NONE when it cannot be told. x86-64 only:
 * false elsewhere (the caller unwinds with libdw instead). */
bool cfarule_derive(const char *path, uint64_t off, struct cfarule *out);

/* The same, through a handle kept per DSO (dso_id as for cfarule_get; path
 * is only opened when the DSO has none): a miss in a file seen before
 * costs a lookup in its CFI, not an open, a mapping and a parse. path
 * CFARULE_VDSO: our own vDSO's image, which is every 64-bit process's (the
 * caller sees to that: a 32-bit process's is other code). */
#define CFARULE_VDSO "[vdso]"

bool cfarule_derive_dso(struct cfarule_cache *c, uint32_t dso_id, const char *path, uint64_t off,
			struct cfarule *out);
/* Whether dso_id has a handle kept: a derivation opens nothing. */
bool cfarule_has_handle(const struct cfarule_cache *c, uint32_t dso_id);

/* Closes the handles no derivation used in the last CFARULE_IDLE_KEEP
 * calls: once a profile's leaves are known their files stay unmapped
 * (each kept one holds the pages of it that were read, 1.5 MiB for seven
 * here). Called once an interval. Two was too few: a program that runs
 * every few seconds (top, a shell prompt, tmux) had its file opened,
 * mapped, parsed and unmapped again each time. */
#define CFARULE_IDLE_KEEP 16
void cfarule_close_idle(struct cfarule_cache *c);

/* The leaf's return address under rule, from the sample's registers and
 * stack copy (leaf must be the registers' IP); 0 when none. */
uint64_t cfarule_apply(struct cfarule rule, const struct record *r, uint64_t regs_mask, uint64_t leaf);

void cfarule_get_stats(const struct cfarule_cache *c, struct cfarule_stats *st);

#endif
