/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsym: the function symbols of one ELF file (libelf; labels without a
 * type in code count, as perf counts them) and its loadable segments, so
 * that a runtime address turns into a symbol whatever the load bias: PIE,
 * shared object or fixed-address executable. */
#ifndef PERFTOP_ELFSYM_H
#define PERFTOP_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFSYM_MAX_LOADS 16
#define ELFSYM_BUILD_ID_MAX 32

/* 16 bytes so that a binary search touches as few cache lines as it can. */
struct elfsym_sym {
	uint64_t addr;  /* ELF virtual address (st_value) */
	uint32_t size;  /* st_size, or up to the next symbol when that was 0 */
	uint32_t name;  /* offset into elfsym.names */
};

struct elfsym_load {
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags; /* PF_X | PF_W | PF_R */
};

struct elfsym {
	struct elfsym_sym *syms;
	size_t nsyms;
	char *names;    /* arena of NUL-terminated strings */
	size_t names_len;
	struct elfsym_load loads[ELFSYM_MAX_LOADS];
	size_t nloads;
	uint16_t type;  /* ET_EXEC or ET_DYN */
	bool from_dynsym; /* no .symtab: only exported functions are known */
	bool minidebug;   /* plus .gnu_debugdata's (MiniDebugInfo) symbols */
	bool searched_debug; /* no .symtab: a separate debug file was looked for */
	uint8_t build_id[ELFSYM_BUILD_ID_MAX];
	size_t build_id_len;
	char *debuglink;  /* .gnu_debuglink's file name (no '/'), or NULL */
	size_t nsynth;    /* of syms, named LABEL+0xVADDR from .eh_frame_hdr */
	char **dnames;    /* per symbol, demangled on first use; NULL until then */
	size_t dnames_bytes;
	void *map;        /* syms and names lie in this read-only mapping (a cache
			   * entry, symcache.h), unmapped with the table; else malloc'd */
	size_t map_len;
};

/* Load a new table. 0, or -errno: -ENOEXEC for what is not a usable ELF
 * executable or shared object (truncated, lying headers, relocatable...).
 * A file without symbols (stripped) succeeds with nsyms == 0. */
int elfsym_load(struct elfsym **out, const char *path);
int elfsym_load_fd(struct elfsym **out, int fd);
int elfsym_load_buf(struct elfsym **out, const void *buf, size_t len);
/* This process's own vDSO, the same code as every 64-bit process's. */
int elfsym_load_vdso(struct elfsym **out);
void elfsym_free(struct elfsym *t);

/* As elfsym_load_fd; when the file has no .symtab, the function starts its
 * .eh_frame_hdr lists that no .dynsym symbol covers become symbols named
 * "LABEL+0xVADDR" (label NULL: none), so that a stripped binary's samples
 * still split by function. */
int elfsym_load_fd_label(struct elfsym **out, int fd, const char *label);
/* Where a file's separate debug file is found: fn gets the table as far as
 * it is read (segments, build-id, debuglink: no symbols yet) and returns
 * that debug file's table, checked to match, or NULL. */
struct elfsym_debug_finder {
	struct elfsym *(*fn)(void *arg, const struct elfsym *t);
	void *arg;
};

/* As elfsym_load_fd_label; a file without .symtab asks find first, and
 * takes the debug file's symbols if it has one instead of building its own
 * (.dynsym, MiniDebugInfo, .eh_frame_hdr). */
int elfsym_load_fd_find(struct elfsym **out, int fd, const char *label, const struct elfsym_debug_finder *find);
/* A separate debug file (objcopy --only-keep-debug): its segments' bytes
 * are not in it, only its symbols and notes count. */
int elfsym_load_debug_fd(struct elfsym **out, int fd);
/* t takes dbg's symbols (dbg is freed); t keeps its segments. */
void elfsym_adopt_symbols(struct elfsym *t, struct elfsym *dbg);

/* The ELF virtual address of a file offset, through the PT_LOAD that maps
 * it. For a mapping [start, end) of pgoff, an ip is at file offset
 * ip - start + pgoff. */
bool elfsym_offset_to_vaddr(const struct elfsym *t, uint64_t off, uint64_t *vaddr);

/* The function containing vaddr, or NULL. */
const struct elfsym_sym *elfsym_find(const struct elfsym *t, uint64_t vaddr);

static inline const char *elfsym_name(const struct elfsym *t, const struct elfsym_sym *sym)
{
	return t->names + sym->name;
}

/* The readable name of sym (C++, Rust), demangled once on first use and
 * kept with the table; its raw name when it is not mangled. */
const char *elfsym_demangled(struct elfsym *t, const struct elfsym_sym *sym);

/* Bytes held, for statistics. */
size_t elfsym_bytes(const struct elfsym *t);

#endif
