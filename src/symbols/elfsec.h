/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsec: what elfsym reads of an ELF file besides its symbols, each part
 * checked to lie inside the file: the loadable segments, the build-id
 * note, sections by name, .gnu_debuglink, the symbol tables' sections and
 * .gnu_debugdata decompressed. Internal to symbols. */
#ifndef PERFTOP_ELFSEC_H
#define PERFTOP_ELFSEC_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym;

/* Whether libelf can be used (elf_version, once). */
bool elfsec_libelf_ready(void);
/* off + len within a file of size, without overflow. */
bool elfsec_in_file(uint64_t off, uint64_t len, uint64_t size);
/* t's loads from the PT_LOAD headers: 0 or -ENOEXEC (a lying header, or a
 * segment the file does not hold unless debug: a separate debug file). */
int elfsec_segments(struct elfsym *t, Elf *e, const GElf_Ehdr *eh, uint64_t fsize, bool debug);
/* t's build-id from the GNU note, when there is one. */
void elfsec_build_id(struct elfsym *t, Elf *e, uint64_t fsize);
/* The section called name, its header in *sh, when the file holds it. */
Elf_Scn *elfsec_find(Elf *e, const char *name, uint64_t fsize, GElf_Shdr *sh);
/* t's debuglink from .gnu_debuglink: 0, or -ENOMEM. */
int elfsec_debuglink(struct elfsym *t, Elf *e, uint64_t fsize);
/* The symbol table of type (SHT_SYMTAB, SHT_DYNSYM) when the file holds it
 * and its string table (whose index goes to *strndx), else NULL. */
Elf_Scn *elfsec_symtab(Elf *e, uint32_t type, uint64_t fsize, size_t *strndx);
/* Whether section shndx holds code (SHF_EXECINSTR; its bytes may be in
 * another file: a debug file's sections are NOBITS). */
bool elfsec_is_code(Elf *e, size_t shndx);
/* .gnu_debugdata (MiniDebugInfo) decompressed, bounded, into *buf (the
 * caller frees it) of *len bytes: 0 with *buf NULL when there is none or
 * it is damaged, -ENOMEM. */
int elfsec_minidebug(Elf *e, uint64_t fsize, unsigned char **buf, size_t *len);

#endif
