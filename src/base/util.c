/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int util_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int util_pool_put(char **pool, size_t *used, size_t *cap, size_t first_cap, const char *s, size_t len,
		  uint32_t *off)
{
	size_t need = *used + len + 1;

	if (need > UINT32_MAX)
		return -E2BIG;
	if (need > *cap) {
		size_t c = *cap ? *cap : first_cap;
		char *p;

		while (c < need)
			c *= 2;
		p = realloc(*pool, c);
		if (p == NULL)
			return -ENOMEM;
		*pool = p;
		*cap = c;
	}
	memcpy(*pool + *used, s, len);
	(*pool)[*used + len] = '\0';
	*off = (uint32_t)*used;
	*used = need;
	return 0;
}

/* off < 0: read at the file's position. */
static ssize_t read_full(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = off < 0 ? read(fd, (char *)buf + got, len - got)
				    : pread(fd, (char *)buf + got, len - got, off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

ssize_t util_read_full(int fd, void *buf, size_t len)
{
	return read_full(fd, buf, len, -1);
}

ssize_t util_pread_full(int fd, void *buf, size_t len, off_t off)
{
	return off < 0 ? -EINVAL : read_full(fd, buf, len, off);
}

int util_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

uint64_t util_hash64(const void *p, size_t len, uint64_t seed)
{
	const uint64_t mul = 0xff51afd7ed558ccdull;
	uint64_t h[4] = { seed, seed ^ 0x9e3779b97f4a7c15ull, ~seed, seed + len }, w[4];
	const unsigned char *b = p;
	uint64_t r;

	for (; len >= sizeof(w); b += sizeof(w), len -= sizeof(w)) {
		memcpy(w, b, sizeof(w));
		for (int i = 0; i < 4; i++) {
			h[i] = (h[i] ^ w[i]) * mul;
			h[i] ^= h[i] >> 32;
		}
	}
	memset(w, 0, sizeof(w));
	memcpy(w, b, len);
	r = len;
	for (int i = 0; i < 4; i++) {
		r = (r ^ h[i] ^ w[i]) * 0xc4ceb9fe1a85ec53ull;
		r ^= r >> 29;
	}
	return r;
}

bool util_grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *np;

	if (n <= *cap)
		return true;
	while (ncap < n)
		ncap *= 2;
	if ((np = reallocarray(*p, ncap, size)) == NULL)
		return false;
	*p = np;
	*cap = ncap;
	return true;
}
