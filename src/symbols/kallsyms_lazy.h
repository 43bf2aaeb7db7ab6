/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kallsyms_lazy: the parts of a lazy kallsyms table (kallsyms_lazy_open)
 * that kallsyms.c calls: a stride of records read when a lookup reaches
 * it, and the table looked at for a reload without reading it into memory.
 * Calls go one way, kallsyms.c to here: this file uses only the table's
 * layout (kallsyms.h). One thread at a time, as every kallsyms table. */
#ifndef PERFTOP_KALLSYMS_LAZY_H
#define PERFTOP_KALLSYMS_LAZY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kallsyms.h"

/* Whether stride k of ks->syms holds its records: read now if not yet. A
 * stride the file cannot give whole and consistent stays empty (false). */
bool kallsyms_lazy_load(const struct kallsyms *ks, size_t k);

/* Its reads so far that found their bytes out of the page cache (they
 * would wait for the disk), and the whole-file read-aheads they asked for.
 * A read the disk served at once (RWF_NOWAIT raced the kernel's own
 * read-ahead and won) is neither. */
void kallsyms_lazy_reads(const struct kallsyms *ks, unsigned long *missed, unsigned long *asked);

void kallsyms_lazy_free(struct kallsyms *ks);
size_t kallsyms_lazy_bytes(const struct kallsyms *ks);

/* A reload compares every symbol with the table it has: these look at a
 * lazy table's file through one stride and one name of their own, so that
 * the comparison leaves nothing resident. */
struct kallsyms_peek;
struct kallsyms_peek *kallsyms_peek_new(void);
void kallsyms_peek_free(struct kallsyms_peek *p);
/* The symbol of lazy table ks at exactly addr, and its index, or NULL.
 * Valid until the next call. */
const struct kallsyms_sym *kallsyms_peek_at(struct kallsyms_peek *p, const struct kallsyms *ks, uint64_t addr,
					    size_t *idx);
/* Its name, or NULL when the file cannot give it. Valid until the next call. */
const char *kallsyms_peek_name(struct kallsyms_peek *p, const struct kallsyms *ks, const struct kallsyms_sym *s);

#endif
