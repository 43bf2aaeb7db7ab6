/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal TAP helpers for unit tests (meson runs them with protocol: 'tap'). */
#ifndef PERFTOP_CHECK_H
#define PERFTOP_CHECK_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_n, check_failed;

/* xorshift64: the same stream at every run, so a randomised test's
 * failure can be replayed. */
static inline uint64_t check_rng(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* A TAP line is one line: newlines in a message (strings compared, say)
 * are printed as \n, else the harness reads them as unknown lines. */
__attribute__((format(printf, 1, 2))) static inline void check_msg(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (const char *c = buf; *c; c++)
		if (*c == '\n')
			fputs("\\n", stdout);
		else
			putchar(*c);
	putchar('\n');
}

#define CHECK(cond, ...) do {                                                   \
	check_n++;                                                              \
	if (cond) {                                                             \
		printf("ok %d - ", check_n);                                    \
	} else {                                                                \
		check_failed++;                                                 \
		printf("not ok %d - %s:%d: ", check_n, __FILE__, __LINE__);     \
	}                                                                       \
	check_msg(__VA_ARGS__);                                                 \
} while (0)

#define CHECK_STR(a, b, what) do {                                             \
	const char *check_a_ = (a), *check_b_ = (b);                            \
	CHECK(check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0,          \
	      "%s: got \"%s\" want \"%s\"", what, check_a_ ? check_a_ : "(null)", \
	      check_b_ ? check_b_ : "(null)");                                  \
} while (0)

#define CHECK_SKIP(reason) do {                                                 \
	check_n++;                                                              \
	printf("ok %d # SKIP %s\n", check_n, reason);                           \
} while (0)

static inline int check_done(void)
{
	printf("1..%d\n", check_n);
	return check_failed ? 1 : 0;
}

#endif
