/* libFuzzer harness: arbitrary bytes as ring contents, with an arbitrary
 * starting tail (so records wrap anywhere), through the pull iterator and
 * record_decode, and again with every call-graph layout (callchain, branch
 * stack, user registers, stack copy) the start bytes choose. Everything
 * decoded is touched so ASan sees every read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *map;
	struct ring r;
	struct record_layout lay;
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
	return sum == 42 ? 0 : 0;
}
