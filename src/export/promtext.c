/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "promtext.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"

void promtext_init(struct promtext *p, enum promtext_fmt fmt)
{
	memset(p, 0, sizeof(*p));
	p->fmt = fmt;
}

static bool reserve(struct promtext *p, size_t more);

void promtext_free(struct promtext *p)
{
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
}

void promtext_reserve(struct promtext *p, size_t n)
{
	reserve(p, n);
}

char *promtext_take(struct promtext *p, size_t *len)
{
	char *b;

	if (p->oom || p->buf == NULL) {
		promtext_free(p);
		return NULL;
	}
	b = p->buf;
	if (len)
		*len = p->len;
	p->buf = NULL;
	p->len = p->cap = 0;
	return b;
}

static bool reserve(struct promtext *p, size_t more)
{
	size_t cap;
	char *nb;

	if (p->oom)
		return false;
	if (p->len + more + 1 <= p->cap)
		return true;
	cap = p->cap ? p->cap : 4096;
	while (cap < p->len + more + 1)
		cap *= 2;
	nb = realloc(p->buf, cap);
	if (nb == NULL) {
		p->oom = true;
		return false;
	}
	p->buf = nb;
	p->cap = cap;
	return true;
}

static void put(struct promtext *p, const char *s, size_t n)
{
	if (!reserve(p, n))
		return;
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

static void puts_(struct promtext *p, const char *s)
{
	put(p, s, strlen(s));
}

static void printf_(struct promtext *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(struct promtext *p, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(p, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Bytes copied as they are, in runs: most label values are plain ASCII. */
static bool plain_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\' && c != '"';
}

void promtext_escape(struct promtext *p, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		size_t n = 0;

		while (plain_byte(u[n]))
			n++;
		if (n) {
			put(p, (const char *)u, n);
			u += n;
		} else if (*u == '\\') {
			puts_(p, "\\\\");
			u++;
		} else if (*u == '"') {
			puts_(p, "\\\"");
			u++;
		} else if (*u == '\n') {
			puts_(p, "\\n");
			u++;
		} else if ((n = sanitize_utf8_len(u)) > 1) {
			put(p, (const char *)u, n);
			u += n;
		} else {
			/* Invalid UTF-8 and control bytes: U+FFFD, so the scraper
			 * never rejects the whole page for one comm. */
			puts_(p, "\xef\xbf\xbd");
			u++;
		}
	}
}

/* HELP text is ours, but escape it by the same rules anyway; copied in runs. */
static void help_escape(struct promtext *p, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "\\\n\"");

		if (n) {
			put(p, s, n);
			s += n;
		} else {
			if (*s == '\\')
				puts_(p, "\\\\");
			else if (*s == '\n')
				puts_(p, "\\n");
			else if (p->fmt == PROMTEXT_OPENMETRICS)
				puts_(p, "\\\"");
			else
				put(p, s, 1);
			s++;
		}
	}
}

void promtext_family(struct promtext *p, const char *name, enum promtext_type type, const char *help)
{
	size_t n = strlen(name);

	/* OpenMetrics: a counter family is named without its _total suffix. */
	if (p->fmt == PROMTEXT_OPENMETRICS && type == PROMTEXT_COUNTER && n > 6 &&
	    strcmp(name + n - 6, "_total") == 0)
		n -= 6;
	puts_(p, "# HELP ");
	put(p, name, n);
	puts_(p, " ");
	help_escape(p, help);
	puts_(p, "\n# TYPE ");
	put(p, name, n);
	puts_(p, type == PROMTEXT_COUNTER ? " counter\n" : " gauge\n");
}

static void labels_(struct promtext *p, const struct promtext_label *labels, size_t n)
{
	if (n == 0)
		return;
	puts_(p, "{");
	for (size_t i = 0; i < n; i++) {
		if (i)
			puts_(p, ",");
		puts_(p, labels[i].name);
		puts_(p, "=\"");
		promtext_escape(p, labels[i].value ? labels[i].value : "");
		puts_(p, "\"");
	}
	puts_(p, "}");
}

void promtext_sample(struct promtext *p, const char *name, const struct promtext_label *labels,
		     size_t nlabels, double value)
{
	puts_(p, name);
	labels_(p, labels, nlabels);
	if (isnan(value))
		puts_(p, " NaN\n");
	else if (isinf(value))
		puts_(p, value > 0 ? " +Inf\n" : " -Inf\n");
	else
		printf_(p, " %.17g\n", value);
}

void promtext_sample_u64(struct promtext *p, const char *name, const struct promtext_label *labels,
			 size_t nlabels, uint64_t value)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	/* By hand: vsnprintf was most of a page's rendering. */
	tmp[--i] = '\n';
	do {
		tmp[--i] = (char)('0' + value % 10);
		value /= 10;
	} while (value);
	tmp[--i] = ' ';
	puts_(p, name);
	labels_(p, labels, nlabels);
	put(p, tmp + i, sizeof(tmp) - i);
}

void promtext_end(struct promtext *p)
{
	if (p->fmt == PROMTEXT_OPENMETRICS)
		puts_(p, "# EOF\n");
}

bool promtext_wants_openmetrics(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text") != NULL;
}
