/* SPDX-License-Identifier: GPL-2.0-or-later */
/* promtext: the Prometheus text exposition format (0.0.4) and OpenMetrics
 * 1.0 text, written into a growing buffer. Pure: no I/O, unit-tested. */
#ifndef PERFTOP_PROMTEXT_H
#define PERFTOP_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum promtext_fmt { PROMTEXT_PROM, PROMTEXT_OPENMETRICS };
enum promtext_type { PROMTEXT_COUNTER, PROMTEXT_GAUGE };

#define PROMTEXT_CT_PROM "text/plain; version=0.0.4; charset=utf-8"
#define PROMTEXT_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct promtext {
	enum promtext_fmt fmt;
	char *buf;
	size_t len, cap;
	bool oom;               /* an allocation failed: the text is unusable */
};

struct promtext_label {
	const char *name, *value;
};

void promtext_init(struct promtext *p, enum promtext_fmt fmt);
void promtext_free(struct promtext *p);
/* Room for n more bytes at once (a page about the size of the last one). */
void promtext_reserve(struct promtext *p, size_t n);
/* Hands the text over (NUL-terminated); NULL after an allocation failure. */
char *promtext_take(struct promtext *p, size_t *len);

/* HELP and TYPE of a family. name is the sample name: counters end in
 * _total, which OpenMetrics leaves out of the family's own name. */
void promtext_family(struct promtext *p, const char *name, enum promtext_type type, const char *help);
void promtext_sample(struct promtext *p, const char *name, const struct promtext_label *labels,
		     size_t nlabels, double value);
void promtext_sample_u64(struct promtext *p, const char *name, const struct promtext_label *labels,
			 size_t nlabels, uint64_t value);
/* "# EOF" for OpenMetrics; nothing for 0.0.4. */
void promtext_end(struct promtext *p);

/* Label value escaping: backslash, double quote and newline escaped; invalid
 * UTF-8 (and NUL-free control bytes stay) replaced by U+FFFD. Exposed for tests. */
void promtext_escape(struct promtext *p, const char *s);

/* The Accept header asks for OpenMetrics. */
bool promtext_wants_openmetrics(const char *accept);

#endif
