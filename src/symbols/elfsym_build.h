/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsym_build: a table's symbols as they are read (from .symtab or
 * .dynsym, MiniDebugInfo's, .eh_frame_hdr's function starts), then sorted,
 * one name kept per address and the size-less sized. Internal to symbols. */
#ifndef PERFTOP_ELFSYM_BUILD_H
#define PERFTOP_ELFSYM_BUILD_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym;
struct elfsym_build_sym;

struct elfsym_build {
	struct elfsym *t;              /* whose syms and names are built */
	struct elfsym_build_sym *raw;  /* as read, before elfsym_build_finish */
	size_t nraw, raw_cap, names_cap;
};

/* Tests: true sorts every table with qsort, the order the radix sort
 * must match. */
extern bool elfsym_build_qsort;

/* The functions (and labels in code) of symbol table scn, its strings in
 * section strndx: 0 or -ENOMEM. */
int elfsym_build_symbols(struct elfsym_build *b, Elf *e, Elf_Scn *scn, size_t strndx);
/* The function starts .eh_frame_hdr lists, named LABEL+0xVADDR below any
 * symbol: 0 or -ENOMEM. */
int elfsym_build_eh_frame(struct elfsym_build *b, Elf *e, const GElf_Ehdr *eh, uint64_t fsize,
			  const char *label);
/* b->t's syms from what was read: 0 or -ENOMEM. */
int elfsym_build_finish(struct elfsym_build *b);
/* What was read; b->t stays. */
void elfsym_build_free(struct elfsym_build *b);

#endif
