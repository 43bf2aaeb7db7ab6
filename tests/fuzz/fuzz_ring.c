/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as ring contents, with an arbitrary
 * starting tail (so records wrap anywhere), through the pull iterator and
 * record_decode, and again with every call-graph layout (callchain, branch
 * stack, user registers, stack copy) the start bytes choose. Everything
 * decoded is touched so ASan sees every read. Flat, the same bytes in two
 * rings go through both merges (order_next, and order_step's windows
 * into a tally): each must hand on every record once, samples and others
 * alike. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "order.h"
#include "record.h"
#include "ring.h"

#define PAGE 4096
#define DATA 4096

/* The spill's cut of a sample's stack copy (to its valid bytes, and to a
 * limit the input picks): the pieces joined must decode to the same
 * sample, the copy's kept bytes the same. */
static void cut(const struct perf_event_header *h, const struct record_layout *lay, const struct record *r)
{
	static unsigned char buf[RING_RECORD_MAX];
	struct record_piece pc[5];
	uint64_t fix[3];
	size_t n = record_cut_stack(h, r, r->sample.ip & 0x1ff8, pc, fix), len = 0;
	struct record c;

	for (size_t i = 0; i < n; i++) {
		memcpy(buf + len, pc[i].p, pc[i].len);
		len += pc[i].len;
	}
	if (((const struct perf_event_header *)buf)->size != len ||
	    record_decode_with((const struct perf_event_header *)buf, lay, &c) != RECORD_OK ||
	    c.sample.nr != r->sample.nr || c.sample.nregs != r->sample.nregs || c.sid.tid != r->sid.tid ||
	    c.sample.stack_dyn_size > r->sample.stack_dyn_size ||
	    (c.sample.stack_dyn_size && memcmp(c.sample.stack, r->sample.stack, c.sample.stack_dyn_size) != 0))
		abort();
}

static void touch(const struct perf_event_header *h, const struct record_layout *lay, size_t *sum)
{
	struct record r;

	if (record_decode_with(h, lay, &r) != RECORD_OK)
		return;
	if (r.type != PERF_RECORD_SAMPLE)
		goto side_band;
	cut(h, lay, &r);
	for (uint64_t i = 0; i < r.sample.nr; i++)
		*sum += record_u64(r.sample.ips, i);
	for (uint64_t i = 0; i < 3 * r.sample.nbranch; i++)
		*sum += record_u64(r.sample.branches, i);
	for (uint64_t i = 0; i < r.sample.nregs; i++)
		*sum += record_u64(r.sample.regs, i);
	if (r.sample.stack_size)
		*sum += r.sample.stack[r.sample.stack_size - 1] + r.sample.stack_dyn_size;
	return;
side_band:
	*sum += r.sid.id + r.sid.pid;
	if (r.type == PERF_RECORD_MMAP2 || r.type == PERF_RECORD_MMAP)
		*sum += strlen(r.mmap.filename) + (r.mmap.build_id ? r.mmap.build_id[0] : 0);
	if (r.type == PERF_RECORD_COMM)
		*sum += strlen(r.comm.comm);
}

static void count_slot(void *arg, const struct tally_slot *s)
{
	*(uint64_t *)arg += s->n;
}

/* Records (samples counted apart) out of both rings, by either merge. */
static void merged(struct ring *rs, const uint64_t *tails, bool step, uint64_t *samples, uint64_t *others)
{
	static struct tally *tl;
	struct order o;
	const struct record *rec;
	enum record_status st;
	enum order_out out;

	*samples = *others = 0;
	if ((tl == NULL && (tl = tally_new(ORDER_TALLY_BITS, ORDER_TALLY_PROBE)) == NULL) || order_init(&o, rs, 2) != 0)
		abort();
	for (int i = 0; i < 2; i++)
		rs[i].meta->data_tail = tails[i];
	o.tally = step ? tl : NULL;
	order_begin(&o, UINT64_MAX);
	for (;;) {
		out = step ? order_step(&o, &rec, &st) : order_next(&o, &rec, &st) ? ORDER_RECORD : ORDER_END;
		if (out == ORDER_END)
			break;
		if (out != ORDER_TALLIED)
			tally_take(tl, count_slot, samples);
		if (out == ORDER_RECORD)
			*(rec->type == PERF_RECORD_SAMPLE && st == RECORD_OK ? samples : others) += 1;
	}
	order_done(&o);
	tally_take(tl, count_slot, samples);
	order_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *map, *map2;
	struct ring r, two[2];
	struct record_layout lay = { 0 };
	uint16_t start;
	size_t sum = 0, len;

	if (size < 2)
		return 0;
	if (map == NULL && (map = aligned_alloc(PAGE, PAGE + DATA)) == NULL)
		return 0;
	memcpy(&start, data, 2);
	/* The low 3 bits (tail alignment, unused) pick the layout. */
	lay.extra = (start & 1 ? PERF_SAMPLE_CALLCHAIN : 0) | (start & 2 ? PERF_SAMPLE_BRANCH_STACK : 0) |
		    (start & 4 ? PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER : 0);
	lay.regs_user_mask = start & 4 ? 0xff0001ffull : 0;
	lay.branch_hw_idx = (start >> 12) & 1;
	start &= (DATA - 1) & ~7; /* records are 8-aligned: we only ever set tail so */
	data += 2;
	size -= 2;
	len = size > DATA ? DATA : size;
	memset(map, 0, PAGE + DATA);
	if (ring_init(&r, map, PAGE, DATA))
		return 0;
	/* Lay the input out from an arbitrary offset so it wraps. */
	for (size_t i = 0; i < len; i++)
		r.data[(start + i) & (DATA - 1)] = data[i];
	r.meta->data_tail = start;
	r.meta->data_head = start + len;
	if (ring_read_begin(&r) == 0) {
		const struct perf_event_header *h;

		while (ring_next(&r, &h))
			touch(h, &lay, &sum);
		ring_read_done(&r);
	}
	ring_unmap(&r);
	if (lay.extra == 0 && (map2 != NULL || (map2 = aligned_alloc(PAGE, 2 * (PAGE + DATA))) != NULL)) {
		uint64_t tails[2] = { start, (start + 8 * (size & 63)) & (DATA - 1) }, s1, o1, s2, o2;

		memset(map2, 0, 2 * (PAGE + DATA));
		for (int k = 0; k < 2; k++) {
			if (ring_init(&two[k], map2 + k * (PAGE + DATA), PAGE, DATA))
				return 0;
			for (size_t i = 0; i < len; i++)
				two[k].data[(tails[k] + i) & (DATA - 1)] = data[i];
			two[k].meta->data_head = tails[k] + len;
		}
		merged(two, tails, false, &s1, &o1);
		merged(two, tails, true, &s2, &o2);
		if (s1 != s2 || o1 != o2)
			abort();
		for (int k = 0; k < 2; k++)
			ring_unmap(&two[k]);
	}
	return sum == 42 ? 0 : 0;
}
