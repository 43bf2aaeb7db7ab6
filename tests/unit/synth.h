/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Builders of synthetic ring records, laid out as the kernel writes them for
 * RECORD_SAMPLE_TYPE with sample_id_all. */
#ifndef PERFTOP_SYNTH_H
#define PERFTOP_SYNTH_H

#include <stdint.h>
#include <string.h>

#include "record.h"

struct synth {
	unsigned char buf[4096];
	size_t len;
};

static inline void synth_u64(struct synth *s, uint64_t v) { memcpy(s->buf + s->len, &v, 8); s->len += 8; }
static inline void synth_u32x2(struct synth *s, uint32_t a, uint32_t b)
{
	memcpy(s->buf + s->len, &a, 4);
	memcpy(s->buf + s->len + 4, &b, 4);
	s->len += 8;
}

static inline void synth_header(struct synth *s, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	s->len = 0;
	memcpy(s->buf, &h, sizeof(h));
	s->len = sizeof(h);
}

static inline void synth_string(struct synth *s, const char *str)
{
	size_t n = strlen(str) + 1, padded = (n + 7) & ~(size_t)7;

	memset(s->buf + s->len, 0, padded);
	memcpy(s->buf + s->len, str, n);
	s->len += padded;
}

static inline void synth_trailer(struct synth *s, uint32_t pid, uint32_t tid, uint64_t time,
				 uint32_t cpu, uint64_t id)
{
	synth_u32x2(s, pid, tid);
	synth_u64(s, time);
	synth_u32x2(s, cpu, 0);
	synth_u64(s, id);
}

static inline const struct perf_event_header *synth_done(struct synth *s)
{
	struct perf_event_header *h = (void *)s->buf;

	h->size = (uint16_t)s->len;
	return h;
}

static inline const struct perf_event_header *synth_sample(struct synth *s, uint64_t id, uint64_t ip,
							   uint32_t pid, uint32_t tid, uint64_t time,
							   uint32_t cpu, uint64_t period, uint16_t misc)
{
	synth_header(s, PERF_RECORD_SAMPLE, misc);
	synth_u64(s, id);
	synth_u64(s, ip);
	synth_u32x2(s, pid, tid);
	synth_u64(s, time);
	synth_u32x2(s, cpu, 0);
	synth_u64(s, period);
	return synth_done(s);
}

#endif
