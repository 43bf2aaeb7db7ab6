/* kallsyms: the kernel's text symbols (core and modules) from a kallsyms
 * text, sorted by address for binary search. Names live in one arena. */
#ifndef PERFTOP_KALLSYMS_H
#define PERFTOP_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	uint32_t name;   /* offset into strings */
	uint32_t module; /* offset of "[modname]" into strings, 0 = core kernel */
};

struct kallsyms {
	struct ksym *syms;
	size_t n;
	char *strings;   /* arena; offset 0 is the empty string */
	size_t strings_len;
	bool restricted; /* every address read as 0: kptr_restrict or not root */
};

/* 0 or -errno. A restricted text loads with restricted set and n == 0. */
int kallsyms_load_path(struct kallsyms *k, const char *path);
int kallsyms_load_buf(struct kallsyms *k, const char *buf, size_t len);
void kallsyms_free(struct kallsyms *k);

/* The symbol containing addr, or NULL. */
const struct ksym *kallsyms_find(const struct kallsyms *k, uint64_t addr);

static inline const char *kallsyms_str(const struct kallsyms *k, uint32_t off)
{
	return k->strings + off;
}

#endif
