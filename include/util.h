/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util: small helpers more than one module needs. */
#ifndef PERFTOP_UTIL_H
#define PERFTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/* snprintf that says whether it all fit: 0, or -ENAMETOOLONG (a cut path
 * must not name another file). */
__attribute__((format(printf, 3, 4)))
int util_pathf(char *buf, size_t len, const char *fmt, ...);

/* read(2) until len bytes or end of file, through EINTR: the bytes read,
 * or -errno. */
ssize_t util_read_full(int fd, void *buf, size_t len);
/* The same with pread(2) from offset off. */
ssize_t util_pread_full(int fd, void *buf, size_t len, off_t off);
/* write(2) until all len bytes are written, through EINTR: 0 or -errno. */
int util_write_full(int fd, const void *buf, size_t len);

/* Room for n elements of size bytes in *p, which holds *cap of them:
 * grown by doubling (from 64), never shrunk. false when out of memory,
 * *p and *cap unchanged. */
bool util_grow(void **p, size_t *cap, size_t n, size_t size);

/* Appends s[0..len) and a NUL to the string pool *pool (*used bytes of
 * *cap, grown from first_cap by doubling); *off gets its offset, kept to
 * 32 bits so that tables of offsets stay small. 0, -E2BIG or -ENOMEM. */
int util_pool_put(char **pool, size_t *used, size_t *cap, size_t first_cap, const char *s, size_t len,
		  uint32_t *off);

/* Not cryptographic: it tells a torn or damaged cache file from a whole
 * one (a foreign file is refused by its owner and mode before this). Four
 * lanes, so that a few megabytes cost a fraction of a millisecond; chained
 * through seed over a file's parts. */
uint64_t util_hash64(const void *p, size_t len, uint64_t seed);

/* Of n elements of size bytes sorted by the uint64_t at offset off, the
 * index of the first whose key is above v (n if none). */
static inline size_t util_upper_bound(const void *base, size_t n, size_t size, size_t off, uint64_t v)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * size + off, sizeof(k));
		if (k <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Bits set in v. __builtin_popcountll is a libgcc call on the x86-64
 * baseline (no POPCNT): the register index of every -g sample's leaf fix
 * paid it (2.7 % of a replay's instructions). */
static inline unsigned util_popcount64(uint64_t v)
{
	v -= (v >> 1) & 0x5555555555555555ull;
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((v * 0x0101010101010101ull) >> 56);
}

#endif
