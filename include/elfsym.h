/* elfsym: the function symbols of one ELF file (libelf), and its loadable
 * segments, so a runtime address can be turned into a symbol whatever the
 * load bias (PIE, shared object or fixed executable). */
#ifndef PERFTOP_ELFSYM_H
#define PERFTOP_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFSYM_MAX_SEGS 16

struct esym {
	uint64_t addr, size;
	uint32_t name;          /* offset into strings */
};

struct eseg {
	uint64_t vaddr, offset, filesz;
};

struct elfsym {
	struct esym *syms;
	size_t n;
	char *strings;
	size_t strings_len;
	struct eseg segs[ELFSYM_MAX_SEGS];
	size_t nsegs;
	bool from_dynsym;       /* no .symtab: exported functions only */
};

/* 0, or -errno (-ENOEXEC for what is not a usable ELF). A table with no
 * symbols is still a success: its addresses group as [unknown] by DSO. */
int elfsym_load_fd(struct elfsym *t, int fd);
int elfsym_load_mem(struct elfsym *t, const void *buf, size_t len);
void elfsym_free(struct elfsym *t);

/* The ELF virtual address of a file offset, via the PT_LOAD that maps it. */
bool elfsym_offset_to_vaddr(const struct elfsym *t, uint64_t off, uint64_t *vaddr);

/* The function containing vaddr, or NULL. */
const struct esym *elfsym_find(const struct elfsym *t, uint64_t vaddr);

static inline const char *elfsym_name(const struct elfsym *t, const struct esym *s)
{
	return t->strings + s->name;
}

size_t elfsym_bytes(const struct elfsym *t);

#endif
