/* SPDX-License-Identifier: GPL-2.0-or-later */
/* addrsearch: the binary search the symbol tables (elfsym, kallsyms)
 * share. Inline: it is on the sample path, where the record size is a
 * constant. Internal to symbols. */
#ifndef PERFTOP_ADDRSEARCH_H
#define PERFTOP_ADDRSEARCH_H

#include <stddef.h>
#include <stdint.h>

/* The last of n records (n >= 1) at or below addr: records of size bytes
 * from base, each starting with its uint64_t address, ascending, the first
 * at or below addr. Branch-free: the compiler turns the choice into a
 * cmov, and both possible next probes are prefetched, so that the misses
 * of a big table overlap. */
static inline const void *addrsearch_floor(const void *base, size_t n, size_t size, uint64_t addr)
{
	const char *b = base;

	while (n > 1) {
		size_t half = n / 2;

		__builtin_prefetch(b + half / 2 * size);
		__builtin_prefetch(b + (half + half / 2) * size);
		b = *(const uint64_t *)(const void *)(b + half * size) <= addr ? b + half * size : b;
		n -= half;
	}
	return b;
}

#endif
