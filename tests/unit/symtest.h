/* Helpers of the symbol tests (test_symbols, test_identity). */
#ifndef PERFTOP_SYMTEST_H
#define PERFTOP_SYMTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "internal/elfsym.h"
#include "symbols.h"

static inline const struct elfsym_sym *sym_named(const struct elfsym *t, const char *name)
{
	for (size_t i = 0; t && i < t->nsyms; i++)
		if (strcmp(elfsym_name(t, &t->syms[i]), name) == 0)
			return &t->syms[i];
	return NULL;
}

/* Inverse of elfsym_offset_to_vaddr, for building mappings by hand. */
static inline bool vaddr_to_offset(const struct elfsym *t, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < t->nloads; i++)
		if (vaddr >= t->loads[i].vaddr && vaddr - t->loads[i].vaddr < t->loads[i].filesz) {
			*off = vaddr - t->loads[i].vaddr + t->loads[i].offset;
			return true;
		}
	return false;
}

/* An MMAP2 record of the inode form (all 0: a plain MMAP). */
static inline void map_ino(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
			   uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen, uint32_t prot,
			   const char *file)
{
	struct sym_map m = { .pid = pid, .start = start, .len = len, .pgoff = pgoff, .prot = prot,
			     .filename = file, .maj = maj, .min = min, .ino = ino, .ino_generation = gen };

	symbols_mmap(s, &m);
}

/* An MMAP2 record of the build-id form. */
static inline void map_bid(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
			   const uint8_t *bid, size_t bidlen, uint32_t prot, const char *file)
{
	struct sym_map m = { .pid = pid, .start = start, .len = len, .pgoff = pgoff, .prot = prot,
			     .filename = file, .build_id = bid, .build_id_len = bidlen };

	symbols_mmap(s, &m);
}

#endif
