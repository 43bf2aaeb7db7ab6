/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sanitize.h"

#include <string.h>
/* The OpenBSD strnvis() argument order; we only use vis() itself. */
#define LIBBSD_OPENBSD_VIS 1
#include <vis.h>

size_t sanitize_utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF, and C1 controls (a
	 * terminal may act on U+009B as CSI). */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

size_t sanitize(char *dst, size_t dstlen, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;

	if (dstlen == 0)
		return 0;
	while (*s) {
		size_t n = sanitize_utf8_len(s);
		char buf[8];
		size_t blen;

		if (n == 1 && *s >= 0x20 && *s < 0x7f && *s != '\\') {
			buf[0] = (char)*s;
			blen = 1;
		} else if (n > 1) {
			memcpy(buf, s, n);
			blen = n;
		} else {
			char *end = vis(buf, *s, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL, 0);

			blen = (size_t)(end - buf);
			n = 1;
		}
		if (o + blen >= dstlen)
			break;
		memcpy(dst + o, buf, blen);
		o += blen;
		s += n;
	}
	dst[o] = '\0';
	return o;
}
