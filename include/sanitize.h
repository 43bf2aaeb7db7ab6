/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sanitize: make text from other processes safe to print. */
#ifndef PERFTOP_SANITIZE_H
#define PERFTOP_SANITIZE_H

#include <stddef.h>

/* Copies src into dst (always NUL-terminated, truncated to fit) keeping
 * printable ASCII and valid UTF-8, and writing everything else (control
 * bytes, ESC, C1 controls, invalid UTF-8, DEL) in C-style vis(3) escapes.
 * Returns the length written. */
size_t sanitize(char *dst, size_t dstlen, const char *src);

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if s does not start
 * one. C1 controls (U+0080..U+009F) count as invalid. */
size_t sanitize_utf8_len(const unsigned char *s);

#endif
