/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The time-ordered merge of per-CPU rings (engine drain passes): records
 * interleaved in time across CPUs come out in time order, records past the
 * limit stay for the next pass, a pass cut short resumes in order, a late
 * record is delivered and counted, records without a time pass through. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order.h"
#include "synth.h"

#define PAGE 4096
#define DATA 512 /* small: records wrap */
#define NCPU 3

struct rings {
	unsigned char *map[NCPU];
	struct ring r[NCPU];
	uint64_t head[NCPU];
};

static void put_in(struct ring *r, uint64_t *head, const struct perf_event_header *h)
{
	for (size_t i = 0; i < h->size; i++)
		r->data[(*head + i) % DATA] = ((const unsigned char *)h)[i];
	*head += h->size;
	__atomic_store_n(&r->meta->data_head, *head, __ATOMIC_RELEASE);
}

static void put(struct rings *rs, int c, const struct perf_event_header *h)
{
	put_in(&rs->r[c], &rs->head[c], h);
}

/* A sample whose id is its time, so the order is visible in ids. */
static void sample_in(struct ring *r, uint64_t *head, int c, uint64_t time)
{
	struct synth s;

	put_in(r, head, synth_sample(&s, time, 0x1000, 1, 1, time, (uint32_t)c, 1, PERF_RECORD_MISC_USER));
}

static void sample(struct rings *rs, int c, uint64_t time)
{
	sample_in(&rs->r[c], &rs->head[c], c, time);
}

static void fork_rec(struct rings *rs, int c, uint64_t time, uint32_t child)
{
	struct synth s;

	synth_header(&s, PERF_RECORD_FORK, 0);
	synth_u32x2(&s, child, 1);
	synth_u32x2(&s, child, 1);
	synth_u64(&s, time);
	synth_trailer(&s, child, child, time, (uint32_t)c, time);
	put(rs, c, synth_done(&s));
}

/* One pass; ids (times) of what came out, in order; stop_after > 0 ends it early. */
static size_t pass(struct order *o, uint64_t limit, size_t stop_after, uint64_t *out, size_t max,
		   uint32_t *types)
{
	const struct record *rec;
	enum record_status st;
	size_t n = 0;

	order_begin(o, limit);
	while (n < max && order_next(o, &rec, &st)) {
		if (types)
			types[n] = rec->type;
		out[n++] = st == RECORD_OK ? rec->sid.time : UINT64_MAX;
		if (stop_after && n == stop_after)
			break;
	}
	order_done(o);
	return n;
}

static int sorted(const uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i] < v[i - 1])
			return 0;
	return 1;
}

int main(void)
{
	struct rings rs;
	struct order o;
	uint64_t got[256], all[256];
	uint32_t types[256];
	size_t n, total = 0;

	memset(&rs, 0, sizeof(rs));
	for (int c = 0; c < NCPU; c++) {
		rs.map[c] = aligned_alloc(PAGE, 2 * PAGE); /* a multiple of the alignment */
		memset(rs.map[c], 0, PAGE + DATA);
		if (ring_init(&rs.r[c], rs.map[c], PAGE, DATA) != 0)
			return 1;
	}
	CHECK(order_init(&o, rs.r, NCPU) == 0, "merge over three rings");

	/* Times interleaved across CPUs: CPU c has times c+1, c+4, c+7, ... */
	for (uint64_t t = 1; t <= 9; t++)
		sample(&rs, (int)((t - 1) % NCPU), t);
	n = pass(&o, UINT64_MAX, 0, got, 256, NULL);
	CHECK(n == 9 && sorted(got, n) && got[0] == 1 && got[8] == 9,
	      "interleaved times across CPUs come out in time order (%zu records)", n);

	/* The FORK on the parent's CPU comes before the child's COMM/samples on
	 * another CPU, though that CPU's ring is drained first. */
	sample(&rs, 0, 20);          /* CPU 0: the child runs at 20 */
	sample(&rs, 0, 21);
	fork_rec(&rs, 2, 15, 77);    /* CPU 2: the parent forked at 15 */
	n = pass(&o, UINT64_MAX, 0, got, 256, types);
	CHECK(n == 3 && types[0] == PERF_RECORD_FORK && got[0] == 15 && got[1] == 20,
	      "a FORK from another CPU is applied before the child's records");

	/* A limit holds newer records back for the next pass. */
	for (uint64_t t = 30; t < 40; t++)
		sample(&rs, (int)(t % NCPU), t);
	n = pass(&o, 34, 0, got, 256, NULL);
	CHECK(n == 5 && got[0] == 30 && got[4] == 34, "records past the limit stay (%zu delivered)", n);
	n = pass(&o, UINT64_MAX, 0, got, 256, NULL);
	CHECK(n == 5 && got[0] == 35 && got[4] == 39 && sorted(got, n), "the next pass delivers them, in order");

	/* A pass cut short by the caller's budget resumes where it stopped. */
	for (uint64_t t = 50; t < 62; t++)
		sample(&rs, (int)((t * 7) % NCPU), t);
	n = pass(&o, UINT64_MAX, 4, got, 256, NULL);
	memcpy(all, got, n * sizeof(*got));
	total = n;
	n = pass(&o, UINT64_MAX, 0, got, 256, NULL);
	memcpy(all + total, got, n * sizeof(*got));
	total += n;
	CHECK(total == 12 && sorted(all, total) && all[0] == 50 && all[11] == 61,
	      "a pass stopped after 4 records: the next one goes on, nothing lost or repeated");

	/* A record older than one already delivered: delivered, counted. */
	CHECK(o.late == 0, "nothing late so far");
	sample(&rs, 1, 70);
	n = pass(&o, UINT64_MAX, 0, got, 256, NULL);
	sample(&rs, 2, 65);
	n += pass(&o, UINT64_MAX, 0, got + 1, 256, NULL);
	CHECK(n == 2 && got[1] == 65 && o.late == 1, "a late record (65 after 70) is delivered and counted");

	/* No time (a record type we ignore): straight through. */
	{
		struct synth s;

		sample(&rs, 0, 80);
		synth_header(&s, 99, 0);
		synth_u64(&s, 0);
		put(&rs, 1, synth_done(&s));
		n = pass(&o, 10, 0, got, 256, NULL);
		CHECK(n == 1 && got[0] == UINT64_MAX, "a record without a time passes the limit at once");
		n = pass(&o, UINT64_MAX, 0, got, 256, NULL);
		CHECK(n == 1 && got[0] == 80 && o.late == 1, "the timed one waits for its pass, not late");
	}
	CHECK(order_newest(&o) == 0, "empty rings: no newest time");
	sample(&rs, 0, 90);
	sample(&rs, 2, 95);
	CHECK(order_newest(&o) == 95 && pass(&o, UINT64_MAX, 0, got, 256, NULL) == 2,
	      "order_newest reads without consuming");
	for (int c = 0; c < NCPU; c++)
		CHECK(ring_pending(&rs.r[c]) == 0, "ring %d read to its head", c);

	/* A second ring for CPU 1, read after the first (the engine: a CPU's
	 * spill, then its kernel ring, read in place): merged with the
	 * others in time order; what the limit holds back stays in the ring it
	 * lies in, whichever that is. */
	{
		unsigned char *amap = aligned_alloc(PAGE, 2 * PAGE);
		struct ring alt;
		uint64_t ahead = 0;

		if (amap == NULL)
			return 1;
		memset(amap, 0, PAGE + DATA);
		CHECK(ring_init(&alt, amap, PAGE, DATA) == 0, "a second ring for CPU 1");
		order_source(&o, 1, &rs.r[1], &alt);
		sample(&rs, 1, 100);
		sample(&rs, 1, 104);
		sample_in(&alt, &ahead, 1, 106);
		sample_in(&alt, &ahead, 1, 109);
		sample(&rs, 0, 101);
		sample(&rs, 0, 107);
		sample(&rs, 2, 102);
		CHECK(order_newest(&o) == 109, "order_newest reads both rings of CPU 1 (%" PRIu64 ")", order_newest(&o));
		n = pass(&o, 106, 0, got, 256, NULL);
		CHECK(n == 5 && got[0] == 100 && got[1] == 101 && got[2] == 102 && got[3] == 104 && got[4] == 106,
		      "CPU 1's first ring, then its second, merged in time order (%zu records)", n);
		CHECK(ring_pending(&rs.r[1]) == 0 && ring_pending(&alt) > 0, "109 held back in the second ring");
		n = pass(&o, UINT64_MAX, 0, got, 256, NULL);
		CHECK(n == 2 && got[0] == 107 && got[1] == 109 && ring_pending(&alt) == 0, "the next pass: 107, 109");

		sample(&rs, 1, 110);
		sample(&rs, 1, 112);
		sample_in(&alt, &ahead, 1, 113);
		n = pass(&o, 111, 0, got, 256, NULL);
		CHECK(n == 1 && got[0] == 110 && ring_pending(&rs.r[1]) > 0 && ring_pending(&alt) > 0,
		      "held back in the first ring: the second is not reached");
		n = pass(&o, UINT64_MAX, 3, got, 256, NULL);
		CHECK(n == 2 && got[0] == 112 && got[1] == 113 && ring_pending(&rs.r[1]) == 0 && ring_pending(&alt) == 0,
		      "then 112 from the first and 113 from the second");

		sample_in(&alt, &ahead, 1, 120);
		sample_in(&alt, &ahead, 1, 121);
		n = pass(&o, UINT64_MAX, 1, got, 256, NULL);
		n += pass(&o, UINT64_MAX, 0, got + n, 256, NULL);
		CHECK(n == 2 && got[0] == 120 && got[1] == 121, "a pass cut short in the second ring goes on there");
		CHECK(o.late == 1, "nothing late among them");

		/* order_release: the engine hands CPU 1's second ring back
		 * before slow work on the record in hand (a COMM here, for its
		 * pointer): the record stays whole, in a copy; the ring's tail
		 * moves past it; nothing more of CPU 1's comes this pass, the
		 * rest the next. */
		{
			const struct record *rec;
			enum record_status st;
			struct synth sy;
			uint64_t before, tail0 = alt.meta->data_tail;

			synth_header(&sy, PERF_RECORD_COMM, 0);
			synth_u32x2(&sy, 5, 6);
			synth_string(&sy, "worker");
			synth_trailer(&sy, 5, 6, 130, 1, 130);
			put_in(&alt, &ahead, synth_done(&sy));
			before = ring_pending(&alt);
			sample_in(&alt, &ahead, 1, 131);
			sample_in(&alt, &ahead, 1, 132);
			sample(&rs, 0, 133);
			order_begin(&o, UINT64_MAX);
			CHECK(order_next(&o, &rec, &st) && rec->type == PERF_RECORD_COMM && order_release(&o, 1) == 0,
			      "released with the COMM in hand");
			CHECK(rec->type == PERF_RECORD_COMM && rec->sid.time == 130 && rec->comm.pid == 5 &&
			      (const unsigned char *)rec->comm.comm >= o.copy &&
			      (const unsigned char *)rec->comm.comm < o.copy + 65536 && strcmp(rec->comm.comm, "worker") == 0,
			      "the record in hand: the same fields, its name now in the copy");
			CHECK(alt.meta->data_tail == tail0 + before, "the second ring's tail moved past the record in hand");
			n = 0;
			while (order_next(&o, &rec, &st))
				got[n++] = rec->sid.time;
			order_done(&o);
			CHECK(n == 1 && got[0] == 133, "the rest of the pass: CPU 0's 133, none of CPU 1's (%zu)", n);
			order_source(&o, 1, &rs.r[1], &alt);
			n = pass(&o, UINT64_MAX, 0, got, 256, NULL);
			CHECK(n == 2 && got[0] == 131 && got[1] == 132 && ring_pending(&alt) == 0,
			      "the next pass: 131, 132 from the second ring, nothing lost or twice");

			/* One read ahead (in the merge's heap) goes back unread. */
			sample(&rs, 0, 139);
			sample_in(&alt, &ahead, 1, 140);
			sample(&rs, 0, 141);
			order_begin(&o, UINT64_MAX);
			CHECK(order_next(&o, &rec, &st) && rec->sid.time == 139 && order_release(&o, 1) == 0,
			      "released with CPU 1's 140 read ahead");
			n = 0;
			while (order_next(&o, &rec, &st))
				got[n++] = rec->sid.time;
			order_done(&o);
			CHECK(n == 1 && got[0] == 141 && ring_pending(&alt) > 0, "140 left in the second ring, 141 delivered");
			order_source(&o, 1, &rs.r[1], &alt);
			n = pass(&o, UINT64_MAX, 0, got, 256, NULL);
			CHECK(n == 1 && got[0] == 140 && ring_pending(&alt) == 0, "140 in the next pass");
		}
		order_source(&o, 1, &rs.r[1], NULL);
		ring_unmap(&alt);
		free(amap);
	}

	order_free(&o);
	for (int c = 0; c < NCPU; c++) {
		ring_unmap(&rs.r[c]);
		free(rs.map[c]);
	}
	return check_done();
}
