/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kallsyms: the kernel's text symbols (core and modules) from a kallsyms
 * text, sorted by address for binary search. Names live in one arena. */
#ifndef PERFTOP_KALLSYMS_H
#define PERFTOP_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A symbol covers [addr, next symbol's addr) when the next one is at most
 * KALLSYMS_MAX_SPAN away. The last symbol, and one followed by a larger hole
 * (between the core kernel and modules, or a module's last function), covers
 * only KALLSYMS_TAIL_SPAN: better [unknown] than blaming a far-away function. */
#define KALLSYMS_MAX_SPAN (1u << 20)
#define KALLSYMS_TAIL_SPAN (1u << 16)

/* Longest name the kernel writes (KSYM_NAME_LEN) minus the NUL. */
#define KALLSYMS_NAME_MAX 511

struct kallsyms_sym {
	uint64_t addr;
	uint32_t name;   /* offset into kallsyms.names */
	uint16_t module; /* index into kallsyms.modules, 0 = core kernel */
	uint8_t type;    /* 't', 'T', 'w' or 'W' */
	uint8_t pad;
};

struct kallsyms {
	struct kallsyms_sym *syms;
	size_t nsyms, syms_cap;
	char *names;       /* arena of NUL-terminated strings */
	size_t names_len, names_cap;
	uint32_t *modules; /* arena offsets of "[modname]"; modules[0] unused */
	size_t nmodules, modules_cap;
	size_t lines;      /* well-formed lines seen, whatever their type */
	size_t skipped;    /* lines that did not parse */
	bool restricted;   /* every address read as 0: kptr_restrict or not root */
	/* The cache's bytes (kcache.c) that syms and names may lie in: never
	 * freed as such; unmapped with the table when it owns the mapping. */
	const void *backing;
	size_t backing_len;
	bool backing_mapped;
	/* The address of every KALLSYMS_INDEX_STRIDE-th symbol, or NULL: a
	 * lookup searches it, then one stride of syms, so a table used where
	 * it is mapped has a page or two resident per symbol looked up, not
	 * the ~10 a binary search over all of it spreads its probes over. */
	uint64_t *index;
	size_t nindex;
	/* Set: a table whose records and names stay in its file and are read
	 * as lookups reach them (kallsyms_lazy.c); names then holds only the
	 * module names. */
	struct kallsyms_lazy *lazy;
};

#define KALLSYMS_INDEX_STRIDE 256 /* symbols: one 4 KiB page */

/* Parse kallsyms text into a new table. 0 or -errno (-ENOMEM, or why the file
 * could not be read); a restricted text succeeds with restricted set and no
 * symbols. */
int kallsyms_load(struct kallsyms **out, const char *path);
int kallsyms_load_buf(struct kallsyms **out, const char *buf, size_t len);
void kallsyms_free(struct kallsyms *ks);

/* Builds ks->index (replacing any): 0 or -ENOMEM, and without it lookups
 * still work, only touching more of the table. */
int kallsyms_index(struct kallsyms *ks);

/* The stride whose first address is the last at or below addr (ks indexed,
 * addr at or above its first address). Inline: kallsyms_find's hot path
 * and the lazy table's reads share it. */
static inline size_t kallsyms_stride_of(const struct kallsyms *ks, uint64_t addr)
{
	size_t lo = 0, cnt = ks->nindex;

	while (cnt > 1) {
		size_t half = cnt / 2;

		lo = ks->index[lo + half] <= addr ? lo + half : lo;
		cnt -= half;
	}
	return lo;
}

/* The symbol containing addr, or NULL. */
const struct kallsyms_sym *kallsyms_find(const struct kallsyms *ks, uint64_t addr);

/* Up to the next symbol's address (kallsyms has no sizes), 0 unknown:
 * the last, or a gap over KALLSYMS_MAX_SPAN. sym is one kallsyms_find gave. */
uint64_t kallsyms_size(const struct kallsyms *ks, const struct kallsyms_sym *sym);

const char *kallsyms_lazy_name(const struct kallsyms *ks, const struct kallsyms_sym *sym);

/* Valid while ks is. */
static inline const char *kallsyms_name(const struct kallsyms *ks, const struct kallsyms_sym *sym)
{
	return ks->lazy ? kallsyms_lazy_name(ks, sym) : ks->names + sym->name;
}

/* "[modname]" for a module symbol, NULL for the core kernel. */
static inline const char *kallsyms_module(const struct kallsyms *ks, const struct kallsyms_sym *sym)
{
	return sym->module ? ks->names + ks->modules[sym->module] : NULL;
}

/* kallsyms_load keeping only the symbols base lacks (none at that address
 * with that name and module; an address whose base symbol is there as it is
 * keeps its aliases out too): what was loaded or JITed since base was read,
 * as a table of its own, without a second whole table in memory (base
 * NULL: every symbol, as kallsyms_load). */
int kallsyms_load_since(struct kallsyms **out, const char *path, const struct kallsyms *base);
/* Whether a and b hold the same symbols (addresses, names, modules). */
bool kallsyms_same(const struct kallsyms *a, const struct kallsyms *b);

#define KALLSYMS_NAMES_BLOCK 1024 /* the names' unit of checking in a cache file */

/* Where a table lies in its cache file (kcache.c) and what its parts hash
 * to (util_hash64, seed 0): each stride of KALLSYMS_INDEX_STRIDE records,
 * each KALLSYMS_NAMES_BLOCK bytes of the names arena. */
struct kallsyms_lazy_layout {
	size_t nsyms;
	uint64_t syms_off, names_off;
	size_t names_len;
	const uint64_t *index;       /* each stride's first address, ascending */
	const uint64_t *stride_hash;
	const uint64_t *block_hash;
	const char *const *modules;  /* "[name]" of each module; [0] unused */
	size_t nmodules;
};

/* A table read from fd as lookups reach it: a stride of records, a name at
 * a time, each checked against its hash when read (a stride or name that
 * fails stays unknown). Only what lookups touched is held, not the whole
 * table (2.3 MiB here). fd is duplicated; the file must not change in
 * place. 0, -EINVAL, -EBADMSG (an index out of order) or -ENOMEM. */
int kallsyms_lazy_open(struct kallsyms **out, int fd, const struct kallsyms_lazy_layout *lay);

/* Bytes held, for statistics. */
size_t kallsyms_bytes(const struct kallsyms *ks);

#endif
