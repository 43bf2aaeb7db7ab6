/* libFuzzer harness: arbitrary bytes as ring contents, with an arbitrary
 * starting tail (so records wrap anywhere), through the pull iterator and
 * record_decode. Everything decoded is touched so ASan sees every read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "ring.h"

#define PAGE 4096
#define DATA 4096

static void touch(const struct perf_event_header *h, size_t *sum)
{
	struct record r;

	if (record_decode(h, &r) != RECORD_OK)
		return;
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
	uint16_t start;
	size_t sum = 0, len;

	if (size < 2)
		return 0;
	if (map == NULL && (map = aligned_alloc(PAGE, PAGE + DATA)) == NULL)
		return 0;
	memcpy(&start, data, 2);
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
			touch(h, &sum);
		ring_read_done(&r);
	}
	ring_unmap(&r);
	return sum == 42 ? 0 : 0;
}
