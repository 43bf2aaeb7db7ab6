/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "ring.h"
#include "synth.h"

#define PAGE 4096
#define DATA 256 /* a small data area so records wrap often */

struct seen {
	uint64_t ids[256];
	size_t n;
	int stop_after;
};

/* One batch through the pull iterator; the caller's loop stops it
 * (stop_after), as the engine's drain budget does. Returns records read. */
static size_t collect(struct ring *ring, struct seen *s)
{
	const struct perf_event_header *h;
	size_t n = 0;

	if (ring_read_begin(ring) != 0)
		return 0;
	while (ring_next(ring, &h)) {
		struct record r;

		n++;
		if (record_decode(h, &r) == RECORD_OK && s->n < 256)
			s->ids[s->n++] = r.sid.id;
		if (s->stop_after && (int)s->n >= s->stop_after)
			break;
	}
	ring_read_done(ring);
	return n;
}

/* Reads what the spill holds; false unless the ids go on from *got, one by
 * one (records whole, in order, none twice). */
static bool read_up_to(struct ring *ring, int stop_after, uint64_t *got)
{
	struct seen seen = { .stop_after = stop_after };
	bool order = true;

	collect(ring, &seen);
	for (size_t i = 0; i < seen.n; i++)
		order &= seen.ids[i] == *got + i + 1;
	*got += seen.n;
	return order;
}

static bool read_in_order(struct ring *ring, uint64_t *got)
{
	return read_up_to(ring, 0, got);
}

/* A kernel-like ring of DATA bytes in a zeroed *map, and a spill u of
 * spill bytes (huge: ring_alloc's); false, reported, when either fails. */
static bool rings_open(unsigned char **map, struct ring *k, struct ring *u, size_t spill, size_t huge,
		       const char *test)
{
	*map = aligned_alloc(PAGE, 2 * PAGE);
	if (*map == NULL || (memset(*map, 0, PAGE + DATA), ring_init(k, *map, PAGE, DATA)) != 0 ||
	    ring_alloc(u, spill, huge) != 0) {
		CHECK(0, "cannot set up the %s test", test);
		free(*map);
		return false;
	}
	return true;
}

static void rings_close(unsigned char *map, struct ring *k, struct ring *u)
{
	ring_unmap(u);
	ring_unmap(k);
	free(map);
}

/* Pages [from, to) of u's data resident (mincore); 0 when it cannot tell. */
static size_t resident_pages(const struct ring *u, size_t from, size_t to)
{
	unsigned char vec[64];
	size_t n = 0;

	if (to > 64 || mincore(u->data, to * PAGE, vec) != 0)
		return 0;
	for (size_t i = from; i < to; i++)
		n += vec[i] & 1;
	return n;
}

/* Writes bytes into the data area at a running head, as the kernel does. */
static void put(unsigned char *data, uint64_t *head, const void *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		data[(*head + i) % DATA] = ((const unsigned char *)src)[i];
	*head += len;
}

/* Four 56-byte samples into the kernel-like ring k (ids from *id on), its
 * head published, then moved into u. */
static void feed4(struct ring *k, struct ring *u, uint64_t *head, uint64_t *id)
{
	struct synth s;

	for (int i = 0; i < 4; i++, (*id)++) {
		synth_sample(&s, *id, 0x1000, 1, 1, *id, 0, 1, PERF_RECORD_MISC_USER);
		put(k->data, head, s.buf, s.len);
	}
	__atomic_store_n(&k->meta->data_head, *head, __ATOMIC_RELEASE);
	ring_transfer(k, u, UINT64_MAX);
}

/* The spill path: kernel ring -> our ring -> reader, across both wraps. */
static void test_transfer(void)
{
	unsigned char *map = aligned_alloc(PAGE, 2 * PAGE);
	struct perf_event_mmap_page *meta = (void *)map;
	struct ring k, u;
	struct synth s;
	uint64_t head = 0, id = 1, moved = 0, got = 0;
	int order = 1, partial = 0;

	memset(map, 0, PAGE + DATA);
	CHECK(ring_init(&k, map, PAGE, DATA) == 0 && ring_alloc(&u, 512, 0) == 0,
	      "a kernel-like ring and an anonymous spill ring");
	CHECK(ring_transfer(&k, &u, UINT64_MAX) == 0, "nothing to move from an empty ring");
	/* 4 records at a time (224 bytes) into a 512-byte spill read every
	 * third round: the spill fills, and only whole records move. */
	for (int round = 0; round < 30; round++) {
		for (int i = 0; i < 4 && head - meta->data_tail + 56 <= DATA; i++, id++) {
			synth_sample(&s, id, 0x1000, 1, 1, id, 0, 1, PERF_RECORD_MISC_USER);
			put(k.data, &head, s.buf, s.len);
		}
		__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
		moved = ring_transfer(&k, &u, UINT64_MAX);
		partial += head != meta->data_tail;
		if (moved % 56 || ring_pending(&u) % 56 || ring_pending(&u) > 512)
			order = 0;
		if (round % 3 == 2) {
			order &= read_in_order(&u, &got);
		}
	}
	CHECK(order, "whole records only, in order, never more than the spill holds");
	CHECK(partial > 0, "the spill filled up %d times, leaving records in the kernel ring", partial);
	/* Drain both ends: everything written arrives exactly once. */
	for (int i = 0; i < 8; i++) {
		ring_transfer(&k, &u, UINT64_MAX);
		order &= read_in_order(&u, &got);
	}
	CHECK(order && got == id - 1, "every record arrives once (%" PRIu64 " of %" PRIu64 ")", got, id - 1);
	CHECK(meta->data_tail == head && ring_pending(&u) == 0, "both tails published at their heads");

	/* A full spill leaves records in the kernel ring (which then counts
	 * its own losses) instead of dropping them here. */
	for (int i = 0; i < 4; i++, id++) {
		synth_sample(&s, id, 0, 1, 1, 0, 0, 1, 0);
		put(k.data, &head, s.buf, s.len);
	}
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	__atomic_store_n(&u.meta->data_tail, u.meta->data_head - 512 + 120, __ATOMIC_RELEASE);
	CHECK(ring_transfer(&k, &u, UINT64_MAX) == 112 && head - meta->data_tail == 2 * 56,
	      "with 120 bytes free two records move, two stay in the kernel ring");
	ring_unmap(&u);
	ring_unmap(&k); /* map_len 0: frees the scratch buffer only */
	free(map);
}

/* The fit: each 80-byte record goes as its first 56 bytes (a header patched
 * to say so, then the rest of those bytes), as a cut stack copy would. */
static size_t cut_to_56(void *arg, const struct perf_event_header *rec, struct ring_part *parts)
{
	struct perf_event_header *h = arg;

	*h = *rec;
	if (rec->size != 80) {
		parts[0] = (struct ring_part){ rec, rec->size };
		return 1;
	}
	h->size = 56;
	parts[0] = (struct ring_part){ h, 8 };
	parts[1] = (struct ring_part){ (const unsigned char *)rec + 8, 48 };
	return 2;
}

/* ring_transfer_fit: records shortened on the way, across both rings'
 * wraps; one that does not fit whole stays in the kernel ring. */
static void test_transfer_fit(void)
{
	unsigned char *map = aligned_alloc(PAGE, 2 * PAGE), pad[24] = { 0 };
	struct perf_event_mmap_page *meta = (void *)map;
	struct perf_event_header fixed;
	struct ring k, u;
	struct synth s;
	uint64_t head = 0, id = 1, got = 0;
	int order = 1;

	memset(map, 0, PAGE + DATA);
	CHECK(ring_init(&k, map, PAGE, DATA) == 0 && ring_alloc(&u, 512, 0) == 0, "rings for the fit");
	for (int round = 0; round < 40; round++) {
		for (int i = 0; i < 3 && head - meta->data_tail + 80 <= DATA; i++, id++) {
			synth_sample(&s, id, 0x1000, 1, 1, id, 0, 1, PERF_RECORD_MISC_USER);
			memcpy(s.buf + s.len, pad, sizeof(pad)); /* 24 bytes the fit drops */
			s.len += sizeof(pad);
			put(k.data, &head, synth_done(&s), s.len);
		}
		__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
		if (ring_transfer_fit(&k, &u, cut_to_56, &fixed, UINT64_MAX) % 56 || ring_pending(&u) % 56)
			order = 0;
		if (round % 3 == 2) {
			order &= read_in_order(&u, &got);
		}
	}
	ring_transfer_fit(&k, &u, cut_to_56, &fixed, UINT64_MAX);
	order &= read_in_order(&u, &got);
	CHECK(order && got == id - 1, "every record arrives once, cut to 56 bytes, in order (%" PRIu64 " of %" PRIu64 ")",
	      got, id - 1);
	/* 100 bytes free: one cut record (56) moves, the next stays. */
	for (int i = 0; i < 2; i++, id++) {
		synth_sample(&s, id, 0x1000, 1, 1, id, 0, 1, PERF_RECORD_MISC_USER);
		memcpy(s.buf + s.len, pad, sizeof(pad));
		s.len += sizeof(pad);
		put(k.data, &head, synth_done(&s), s.len);
	}
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	__atomic_store_n(&u.meta->data_tail, u.meta->data_head - 512 + 100, __ATOMIC_RELEASE);
	CHECK(ring_transfer_fit(&k, &u, cut_to_56, &fixed, UINT64_MAX) == 56 && head - meta->data_tail == 80,
	      "a record that does not fit whole stays in the kernel ring");
	ring_unmap(&u);
	ring_unmap(&k);
	free(map);
}

/* The bound a reader's chunk sets: whole records up to max bytes move, the
 * rest stays in the kernel ring; a record longer than max never moves by
 * halves. For both transfers. */
static void test_transfer_max(void)
{
	unsigned char *map = aligned_alloc(PAGE, 2 * PAGE);
	struct perf_event_mmap_page *meta = (void *)map;
	struct perf_event_header fixed;
	struct ring k, u;
	struct synth s;
	uint64_t head = 0, id = 1, got = 0;
	bool order = true;

	memset(map, 0, PAGE + DATA);
	CHECK(ring_init(&k, map, PAGE, DATA) == 0 && ring_alloc(&u, 512, 0) == 0, "rings for the bound");
	for (int i = 0; i < 4; i++, id++) {
		synth_sample(&s, id, 0x1000, 1, 1, id, 0, 1, PERF_RECORD_MISC_USER);
		put(k.data, &head, s.buf, s.len);
	}
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	CHECK(ring_transfer(&k, &u, 130) == 112 && head - meta->data_tail == 2 * 56,
	      "130 bytes at most: two whole records of 56 move, two stay");
	CHECK(ring_transfer(&k, &u, 55) == 0 && head - meta->data_tail == 2 * 56,
	      "a bound below one record moves nothing");
	CHECK(ring_transfer(&k, &u, 56) == 56 && ring_transfer(&k, &u, UINT64_MAX) == 56 && meta->data_tail == head,
	      "then one, then the rest");
	order &= read_in_order(&u, &got);

	/* The fit: the bound counts what the kernel ring gave (80 bytes a
	 * record), not what was written (56). */
	for (int i = 0; i < 3; i++, id++) {
		unsigned char pad[24] = { 0 };

		synth_sample(&s, id, 0x1000, 1, 1, id, 0, 1, PERF_RECORD_MISC_USER);
		memcpy(s.buf + s.len, pad, sizeof(pad));
		s.len += sizeof(pad);
		put(k.data, &head, synth_done(&s), s.len);
	}
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	CHECK(ring_transfer_fit(&k, &u, cut_to_56, &fixed, 160) == 2 * 56 && head - meta->data_tail == 80,
	      "the fit: 160 bytes of the kernel ring's at most, two records of 80, written as 56");
	CHECK(ring_transfer_fit(&k, &u, cut_to_56, &fixed, 79) == 0 && ring_transfer_fit(&k, &u, cut_to_56, &fixed, 80) == 56 &&
	      meta->data_tail == head, "the fit: a bound below one record moves nothing, one of 80 moves it");
	order &= read_in_order(&u, &got);
	CHECK(order && got == id - 1, "all %" PRIu64 " records arrive once, in order", got);

	/* Under a bound, a record the kernel cannot have written: after a
	 * whole one, the move stops before it; first, nothing moves, it is
	 * counted and the ring resyncs at head. */
	synth_sample(&s, id, 0x1000, 1, 1, id, 0, 1, PERF_RECORD_MISC_USER);
	put(k.data, &head, s.buf, s.len);
	{
		struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 60 };
		unsigned char junk[64] = { 0 };

		memcpy(junk, &bad, sizeof(bad));
		put(k.data, &head, junk, sizeof(junk));
		put(k.data, &head, s.buf, s.len); /* more than the bound behind it */
	}
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	CHECK(ring_transfer(&k, &u, 100) == 56 && head - meta->data_tail == 64 + 56 && k.malformed == 0,
	      "a bad record after a whole one: the whole one moves");
	CHECK(ring_transfer(&k, &u, 100) == 0 && meta->data_tail == head && k.malformed == 1,
	      "then the bad one: nothing moves, counted, tail at head");
	ring_unmap(&u);
	ring_unmap(&k);
	free(map);
}

/* A spill of 16 pages cycled through three times: what was read is given
 * back, so afterwards no more than the page holding the tail stays resident,
 * and every record still arrives intact, in order. */
static void test_release(void)
{
	unsigned char *map;
	struct ring k, u;
	uint64_t head = 0, id = 1, got = 0;
	size_t resident;
	int order = 1;

	if (!rings_open(&map, &k, &u, 16 * PAGE, 0, "release"))
		return;
	while (id * 56 < 3 * 16 * PAGE) {
		feed4(&k, &u, &head, &id);
		if (id % 64 == 1) { /* read now and then: the spill holds a few pages */
			order &= read_in_order(&u, &got);
		}
	}
	order &= read_in_order(&u, &got);
	CHECK(order && got == id - 1, "through three cycles every record arrives once, in order (%" PRIu64 ")",
	      got);
	resident = resident_pages(&u, 0, 16);
	CHECK(resident <= 1, "pages read are given back: %zu of 16 resident once all is read", resident);
	rings_close(map, &k, &u);
}

/* A spill offered huge pages (here "huge" is 4 pages, any power of two
 * above a page does): its data is aligned to them; a reader that keeps
 * up leaves it on 4 KiB pages; one that leaves more than keep_max unread
 * turns it to huge pages, given back whole from then on; every record
 * arrives once, in order, throughout. */
static void test_huge(void)
{
	unsigned char *map;
	struct ring k, u;
	uint64_t head = 0, id = 1, got = 0;
	size_t resident;
	int order = 1;

	if (!rings_open(&map, &k, &u, 32 * PAGE, 4 * PAGE, "huge page"))
		return;
	u.keep_max = 8 * PAGE;
	CHECK(((uintptr_t)u.data & (4 * PAGE - 1)) == 0 && u.huge == 4 * PAGE && u.page == PAGE,
	      "the data aligned to the huge page size, on 4 KiB pages to begin with");
	/* Kept up with: read after every transfer. */
	while (id * 56 < 16 * PAGE) {
		feed4(&k, &u, &head, &id);
		order &= read_in_order(&u, &got);
	}
	CHECK(u.page == PAGE && u.huge == 4 * PAGE, "a reader that keeps up leaves the pages as they are");
	/* A backlog: 12 pages written, half a page read. */
	while (ring_pending(&u) < 12 * PAGE)
		feed4(&k, &u, &head, &id);
	order &= read_up_to(&u, (int)(PAGE / 2 / 56), &got);
	if (u.huge == 0 && u.page == PAGE) {
		CHECK_SKIP("madvise(MADV_HUGEPAGE) refused: no transparent huge pages in this kernel");
	} else {
		CHECK(u.page == 4 * PAGE && u.huge == 0, "more than keep_max left unread: huge pages from now on");
	}
	/* The backlog read, up to 200 records a batch (what read_in_order
	 * holds), the huge pages given back behind it. */
	while (ring_pending(&u))
		order &= read_up_to(&u, 200, &got);
	/* Two more laps, read now and then, then all of it. */
	while (id * 56 < 16 * PAGE + 64 * PAGE) {
		feed4(&k, &u, &head, &id);
		if (id % 64 == 1) {
			order &= read_in_order(&u, &got);
		}
	}
	order &= read_in_order(&u, &got);
	CHECK(order && got == id - 1, "every record arrives once, in order (%" PRIu64 ")", got);
	resident = resident_pages(&u, 0, 32);
	CHECK(u.page != 4 * PAGE || resident <= 4, "given back whole: %zu of 32 pages resident once all is read",
	      resident);
	rings_close(map, &k, &u);
}

/* A spill of 16 pages that keeps up to 4: read after each transfer but
 * for the last record (as a drain pass leaves what is newer than its limit),
 * then rewound. Over three cycles' worth of records the writes stay on the
 * kept pages (nothing beyond them is resident, nothing there faults in
 * again), every record arrives once and in order, and a rest too large to
 * move is left where it is. */
static void test_rewind(void)
{
	unsigned char *map;
	struct perf_event_mmap_page *meta;
	struct ring k, u;
	struct synth s;
	uint64_t head = 0, id = 1, got = 0, rewinds = 0;
	size_t beyond, kept;
	int order = 1;

	if (!rings_open(&map, &k, &u, 16 * PAGE, 0, "rewind"))
		return;
	meta = (void *)map;
	u.keep_max = 4 * PAGE;
	while (id * 56 < 3 * 16 * PAGE) {
		for (int i = 0; i < 4; i++, id++) {
			synth_sample(&s, id, 0x1000, 1, 1, id, 0, 1, PERF_RECORD_MISC_USER);
			put(k.data, &head, s.buf, s.len);
		}
		__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
		ring_transfer(&k, &u, UINT64_MAX);
		if (id % 224 == 1) { /* about 3 pages a pass */
			order &= read_up_to(&u, (int)(ring_pending(&u) / 56) - 1, &got);
			rewinds += ring_rewind(&u);
		}
	}
	CHECK(rewinds > 10, "the rest of each pass moved to the start (%" PRIu64 " times)", rewinds);
	beyond = resident_pages(&u, 4, 16);
	kept = resident_pages(&u, 0, 4);
	CHECK(beyond == 0 && kept >= 3, "writes stay on the kept pages: %zu of 4 resident, %zu beyond", kept, beyond);
	order &= read_in_order(&u, &got);
	CHECK(order && got == id - 1, "rewound every pass: every record arrives once, in order (%" PRIu64 ")", got);

	/* A backlog (a lap beyond keep_max) cycles on: no rewind. */
	for (int i = 0; i < 40; i++, id++) {
		synth_sample(&s, id, 0x1000, 1, 1, id, 0, 1, PERF_RECORD_MISC_USER);
		put(k.data, &head, s.buf, s.len);
		if (i % 4 == 3) {
			__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
			ring_transfer(&k, &u, UINT64_MAX);
		}
	}
	{
		uint64_t kept_before = u.keep;

		u.keep_max = 20 * 56;
		CHECK(!ring_rewind(&u) && ring_pending(&u) == 40 * 56 && u.keep == kept_before,
		      "a lap longer than keep_max is not rewound, and keeps no more");
	}
	rings_close(map, &k, &u);
}

int main(void)
{
	unsigned char *map = aligned_alloc(PAGE, 2 * PAGE);
	struct perf_event_mmap_page *meta = (void *)map;
	struct ring r;
	struct seen seen;
	struct synth s;
	uint64_t head = 0;
	size_t total = 0, n;
	int ok = 1;

	memset(map, 0, PAGE + DATA);
	CHECK(ring_init(&r, map, PAGE, 100) < 0, "a data size that is not a power of two is refused");
	CHECK(ring_init(&r, map, PAGE, DATA) == 0, "ring over test memory");

	/* 40 samples of 56 bytes through a 256-byte ring, 3 at a time: the
	 * records wrap at every possible offset, headers included. */
	for (uint64_t id = 1; id <= 40; id += 3) {
		uint64_t k;

		for (k = id; k < id + 3 && k <= 40; k++) {
			synth_sample(&s, k, 0x1000 + k, 1, 1, k, 0, 1, PERF_RECORD_MISC_USER);
			put(r.data, &head, s.buf, s.len);
		}
		__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
		memset(&seen, 0, sizeof(seen));
		n = collect(&r, &seen);
		total += n;
		for (size_t i = 0; i < seen.n; i++)
			ok &= seen.ids[i] == id + i;
		ok &= meta->data_tail == head;
	}
	CHECK(total == 40, "every record delivered across wrap-arounds (%zu)", total);
	CHECK(ok, "records in order, tail published at head after each batch");
	CHECK(ring_pending(&r) == 0, "nothing pending");

	/* The kernel publishes head only past whole records, so a record
	 * longer than what head covers is corrupt: skipped, counted, and the
	 * reader resyncs at head instead of waiting forever. */
	synth_sample(&s, 99, 0, 1, 1, 0, 0, 1, 0);
	put(r.data, &head, s.buf, 24);
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	memset(&seen, 0, sizeof(seen));
	CHECK(collect(&r, &seen) == 0 && meta->data_tail == head && r.malformed == 1,
	      "a record cut short by head is counted as malformed, tail resyncs");
	synth_sample(&s, 100, 0, 1, 1, 0, 0, 1, 0);
	put(r.data, &head, s.buf, s.len);
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	CHECK(collect(&r, &seen) == 1 && seen.ids[0] == 100, "the next record reads fine");

	/* The callback can stop a batch; the rest stays for later. */
	for (uint64_t k = 200; k < 203; k++) {
		synth_sample(&s, k, 0, 1, 1, 0, 0, 1, 0);
		put(r.data, &head, s.buf, s.len);
	}
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	memset(&seen, 0, sizeof(seen));
	seen.stop_after = 1;
	CHECK(collect(&r, &seen) == 1, "callback stops the batch");
	seen.stop_after = 0;
	CHECK(collect(&r, &seen) == 2 && seen.ids[2] == 202, "the rest follows");

	/* A record put back (a merge met one newer than its limit) comes first
	 * in the next batch; the tail stops before it. */
	for (uint64_t k = 300; k < 302; k++) {
		synth_sample(&s, k, 0, 1, 1, 0, 0, 1, 0);
		put(r.data, &head, s.buf, s.len);
	}
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	{
		const struct perf_event_header *h1, *h2;
		int got = ring_read_begin(&r) == 0 && ring_next(&r, &h1) && ring_next(&r, &h2);

		ring_unread(&r);
		ring_read_done(&r);
		CHECK(got && meta->data_tail == head - s.len, "ring_unread: the tail stops before the record put back");
		memset(&seen, 0, sizeof(seen));
		CHECK(collect(&r, &seen) == 1 && seen.ids[0] == 301, "the record put back reads next");
		CHECK(ring_read_begin(&r) == -EAGAIN, "an empty batch: -EAGAIN");
	}

	/* A zero-sized header cannot loop forever: the reader resyncs. */
	{
		struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = 0 };

		put(r.data, &head, &bad, sizeof(bad));
		put(r.data, &head, &bad, sizeof(bad));
	}
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	CHECK(collect(&r, &seen) == 0 && r.malformed == 2 && meta->data_tail == head,
	      "a zero-sized record is counted as malformed and skipped");

	ring_unmap(&r);
	free(map);
	test_transfer();
	test_transfer_fit();
	test_transfer_max();
	test_rewind();
	test_release();
	test_huge();
	return check_done();
}
