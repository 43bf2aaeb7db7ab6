/* SPDX-License-Identifier: GPL-2.0-or-later */
/* order_step: flat samples into the tally, the other records out in time
 * order, and at each one the tally holds exactly the samples older than it.
 * Checked against order_next's heap merge on random interleavings (longer
 * than a window, more kinds than the tally holds), and on the cases that
 * move a ring's place back: a fence in the middle of a window, the second
 * ring (spill, then kernel ring), a late record, one without a time, the
 * limit, a full tally, a hand-back. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order.h"
#include "synth.h"

#define PAGE 4096
#define DATA 65536
#define NCPU 3
#define MAXREC 4096

struct rings {
	unsigned char *map[NCPU + 1];
	struct ring r[NCPU + 1]; /* r[NCPU]: CPU 1's second ring */
	uint64_t head[NCPU + 1];
};

static void put(struct rings *rs, int i, const struct perf_event_header *h)
{
	struct ring *r = &rs->r[i];

	for (size_t k = 0; k < h->size; k++)
		r->data[(rs->head[i] + k) % DATA] = ((const unsigned char *)h)[k];
	rs->head[i] += h->size;
	__atomic_store_n(&r->meta->data_head, rs->head[i], __ATOMIC_RELEASE);
}

/* A sample whose id is its time: every one its own kind in the tally. */
static void sample(struct rings *rs, int i, uint64_t time)
{
	struct synth s;

	put(rs, i, synth_sample(&s, time, 0x1000, 1, 1, time, (uint32_t)i, 1, PERF_RECORD_MISC_USER));
}

static void fork_rec(struct rings *rs, int i, uint64_t time)
{
	struct synth s;

	synth_header(&s, PERF_RECORD_FORK, 0);
	synth_u32x2(&s, 7, 1);
	synth_u32x2(&s, 7, 1);
	synth_u64(&s, time);
	synth_trailer(&s, 7, 7, time, (uint32_t)i, time);
	put(rs, i, synth_done(&s));
}

/* What came out: the other records' times (UINT64_MAX: none), and for
 * each sample the number of other records out before it was taken from
 * the tally (the heap merge: before it came out). */
struct trace {
	uint64_t rec[MAXREC];
	size_t nrec;
	uint64_t sample_at[MAXREC]; /* by time */
	unsigned seen[MAXREC];
	uint32_t cpu[MAXREC];       /* by time: the CPU a tally slot held */
	size_t fulls;
	size_t heaped; /* samples out of order_step as records */
};

static void take_one(void *arg, const struct tally_slot *s)
{
	struct trace *t = arg;

	if (s->key < MAXREC) {
		t->sample_at[s->key] = t->nrec;
		t->seen[s->key] += s->n;
		t->cpu[s->key] = s->cpu;
	}
}

/* One pass; max_steps > 0 cuts it short there (the engine's budget). */
static void step_pass_cut(struct order *o, struct tally *tl, uint64_t limit, struct trace *t, size_t max_steps)
{
	const struct record *rec;
	enum record_status st;
	enum order_out out;
	size_t steps = 0;

	o->tally = tl;
	order_begin(o, limit);
	while ((!max_steps || steps++ < max_steps) && (out = order_step(o, &rec, &st)) != ORDER_END) {
		if (out == ORDER_FULL)
			t->fulls++;
		if (out == ORDER_FULL || out == ORDER_RECORD)
			tally_take(tl, take_one, t);
		/* The rest of a pass through the heap: samples out too. */
		if (out == ORDER_RECORD && rec->type == PERF_RECORD_SAMPLE && rec->sid.id < MAXREC) {
			t->sample_at[rec->sid.id] = t->nrec;
			t->seen[rec->sid.id]++;
			t->heaped++;
		} else if (out == ORDER_RECORD && t->nrec < MAXREC) {
			t->rec[t->nrec++] = st == RECORD_OK ? rec->sid.time : UINT64_MAX;
		}
	}
	order_done(o);
	tally_take(tl, take_one, t);
	o->tally = NULL;
}

static void step_pass(struct order *o, struct tally *tl, uint64_t limit, struct trace *t)
{
	step_pass_cut(o, tl, limit, t, 0);
}

static void heap_pass(struct order *o, uint64_t limit, struct trace *t)
{
	const struct record *rec;
	enum record_status st;

	o->tally = NULL;
	order_begin(o, limit);
	while (order_next(o, &rec, &st)) {
		if (rec->type == PERF_RECORD_SAMPLE && rec->sid.id < MAXREC) {
			t->sample_at[rec->sid.id] = t->nrec;
			t->seen[rec->sid.id]++;
		} else if (rec->type != PERF_RECORD_SAMPLE && t->nrec < MAXREC) {
			t->rec[t->nrec++] = st == RECORD_OK ? rec->sid.time : UINT64_MAX;
		}
	}
	order_done(o);
}

static int rings_init(struct rings *rs)
{
	memset(rs, 0, sizeof(*rs));
	for (int i = 0; i <= NCPU; i++) {
		rs->map[i] = aligned_alloc(PAGE, PAGE + DATA);
		if (rs->map[i] == NULL)
			return -1;
		memset(rs->map[i], 0, PAGE + DATA);
		if (ring_init(&rs->r[i], rs->map[i], PAGE, DATA) != 0)
			return -1;
	}
	return 0;
}

static void rings_free(struct rings *rs)
{
	for (int i = 0; i <= NCPU; i++) {
		ring_unmap(&rs->r[i]);
		free(rs->map[i]);
	}
}

/* Times 1..n dealt at random to the CPUs (CPU 1 to its second ring from
 * `second` on, when set), one in every `every` a FORK: the same in two sets of rings. */
static void deal(struct rings *a, struct rings *b, uint64_t n, unsigned every, bool second, unsigned seed)
{
	srand(seed);
	for (uint64_t t = 1; t <= n; t++) {
		int c = rand() % NCPU, i = c == 1 && second && t > n / 3 ? NCPU : c;
		bool rec = every && rand() % every == 0;

		if (rec) {
			fork_rec(a, i, t);
			fork_rec(b, i, t);
		} else {
			sample(a, i, t);
			sample(b, i, t);
		}
	}
}

static bool same(const struct trace *x, const struct trace *y, uint64_t n)
{
	if (x->nrec != y->nrec || memcmp(x->rec, y->rec, x->nrec * sizeof(x->rec[0])) != 0)
		return false;
	for (uint64_t t = 1; t <= n && t < MAXREC; t++)
		if (x->seen[t] != y->seen[t] || (x->seen[t] && x->sample_at[t] != y->sample_at[t]))
			return false;
	return true;
}

static unsigned count_seen(const struct trace *t)
{
	unsigned k = 0;

	for (size_t i = 0; i < MAXREC; i++)
		k += t->seen[i];
	return k;
}

int main(void)
{
	struct rings a, b;
	struct order oa, ob;
	struct tally *tl = tally_new(ORDER_TALLY_BITS, ORDER_TALLY_PROBE);
	static struct trace ta, tb;

	CHECK(tl && rings_init(&a) == 0 && rings_init(&b) == 0 && order_init(&oa, a.r, NCPU) == 0 &&
	      order_init(&ob, b.r, NCPU) == 0, "two sets of rings");

	/* A FORK on CPU 1 amid samples of all three: the tally holds 1-4 when it comes. */
	{
		memset(&ta, 0, sizeof(ta));
		sample(&a, 0, 1);
		sample(&a, 1, 2);
		sample(&a, 2, 3);
		sample(&a, 0, 4);
		fork_rec(&a, 1, 5);
		sample(&a, 2, 6);
		sample(&a, 0, 7);
		sample(&a, 1, 8);
		step_pass(&oa, tl, UINT64_MAX, &ta);
		CHECK(ta.nrec == 1 && ta.rec[0] == 5, "the FORK out alone (%zu records)", ta.nrec);
		CHECK(ta.sample_at[1] == 0 && ta.sample_at[2] == 0 && ta.sample_at[3] == 0 && ta.sample_at[4] == 0 &&
		      ta.sample_at[6] == 1 && ta.sample_at[7] == 1 && ta.sample_at[8] == 1 && count_seen(&ta) == 7,
		      "1-4 taken before it, 6-8 after, each once");
	}

	/* The limit: what is newer stays for the next pass, in its ring. */
	{
		memset(&ta, 0, sizeof(ta));
		sample(&a, 0, 10);
		fork_rec(&a, 1, 12);
		sample(&a, 2, 11);
		sample(&a, 0, 13);
		step_pass(&oa, tl, 11, &ta);
		CHECK(ta.nrec == 0 && ta.seen[10] == 1 && ta.seen[11] == 1 && count_seen(&ta) == 2,
		      "at limit 11: 10 and 11 only");
		CHECK(ring_pending(&a.r[1]) > 0 && ring_pending(&a.r[0]) > 0 && ring_pending(&a.r[2]) == 0,
		      "12 and 13 stay in their rings");
		step_pass(&oa, tl, UINT64_MAX, &ta);
		CHECK(ta.nrec == 1 && ta.rec[0] == 12 && ta.sample_at[13] == 1 && count_seen(&ta) == 3,
		      "the next pass: the FORK, then 13");
	}

	/* A late record (older than its ring's sample before it) and one without
	 * a time: each comes after the samples before it in its ring, no hang. */
	{
		struct synth s;

		memset(&ta, 0, sizeof(ta));
		oa.late = 0;
		sample(&a, 0, 20);
		sample(&a, 0, 24);
		fork_rec(&a, 0, 22);
		sample(&a, 1, 21);
		sample(&a, 1, 23);
		synth_header(&s, 0x7fff, 0); /* a type the decoder does not know: no time */
		synth_u64(&s, 0);
		put(&a, 2, synth_done(&s));
		sample(&a, 2, 25);
		step_pass(&oa, tl, UINT64_MAX, &ta);
		CHECK(ta.nrec == 2 && count_seen(&ta) == 5, "both out, all five samples (%zu records, %u samples)",
		      ta.nrec, count_seen(&ta));
		CHECK(oa.late >= 1, "the FORK at 22 after 24 counted late (%" PRIu64 ")", oa.late);
		{
			size_t fork = ta.rec[0] == 22 ? 0 : 1, unknown = 1 - fork;

			CHECK(ta.rec[fork] == 22 && ta.rec[unknown] == UINT64_MAX, "the FORK and the one without a time");
			CHECK(ta.sample_at[20] <= fork && ta.sample_at[24] <= fork,
			      "20 and 24 taken before the FORK behind them");
			CHECK(ta.sample_at[25] > unknown, "25 after the record before it");
		}
	}

	/* A FORK read first, then another ring's full window of older samples:
	 * the window's end is the fence now, the FORK waits for the rest. */
	{
		memset(&ta, 0, sizeof(ta));
		fork_rec(&a, 0, 100);
		for (uint64_t t = 60; t < 60 + ORDER_WINDOW + 8; t++)
			sample(&a, 1, t);
		step_pass(&oa, tl, UINT64_MAX, &ta);
		CHECK(ta.nrec == 1 && ta.rec[0] == 100 && ta.sample_at[60] == 0 &&
		      ta.sample_at[60 + ORDER_WINDOW + 7] == 0 && count_seen(&ta) == ORDER_WINDOW + 8,
		      "all %d samples before the FORK", ORDER_WINDOW + 8);
	}

	/* A full tally: the record waits until the samples before it are in. */
	{
		const struct record *rec;
		enum record_status st;

		memset(&ta, 0, sizeof(ta));
		for (uint64_t id = 100000; id < 110000; id++)
			(void)tally_add(tl, id, 0, 1, 1, 0x1000, 0, 1);
		sample(&a, 0, 101);
		fork_rec(&a, 1, 102);
		oa.tally = tl;
		order_begin(&oa, UINT64_MAX);
		CHECK(order_step(&oa, &rec, &st) == ORDER_FULL, "full: the step says so");
		tally_take(tl, take_one, &ta);
		CHECK(order_step(&oa, &rec, &st) == ORDER_RECORD && rec->sid.time == 102 && tl->nused == 1,
		      "then the FORK, with 101 in the tally");
		while (order_step(&oa, &rec, &st) != ORDER_END)
			;
		order_done(&oa);
		tally_take(tl, take_one, &ta);
		oa.tally = NULL;
	}

	/* A sample on a CPU no kernel numbers so (a corrupt record might): in
	 * the tally like any, its CPU whole, in its place, no hang. */
	{
		struct synth s;

		memset(&ta, 0, sizeof(ta));
		sample(&a, 0, 201);
		put(&a, 0, synth_sample(&s, 202, 0x1000, 1, 1, 202, 70000, 1, PERF_RECORD_MISC_USER));
		sample(&a, 0, 203);
		fork_rec(&a, 1, 204);
		step_pass(&oa, tl, UINT64_MAX, &ta);
		CHECK(ta.seen[201] == 1 && ta.seen[202] == 1 && ta.seen[203] == 1 && ta.heaped == 0 && ta.nrec == 1 &&
		      ta.sample_at[202] == 0 && ta.sample_at[203] == 0 && ta.cpu[202] == 70000,
		      "CPU 70000's sample tallied with its CPU, between 201 and 203 (%u)", ta.cpu[202]);
	}

	/* A bad header (an impossible size) read again after the ring went back
	 * before it: counted once. */
	{
		struct perf_event_header bad[2] = { { .type = PERF_RECORD_SAMPLE, .size = 16 } };
		uint64_t m0 = a.r[0].malformed;

		memset(&ta, 0, sizeof(ta));
		sample(&a, 0, 210);
		sample(&a, 0, 220);
		put(&a, 0, bad);
		/* 16 bytes written, its size 12: not a multiple of 8 */
		a.r[0].data[(a.head[0] - 16 + offsetof(struct perf_event_header, size)) % DATA] = 12;
		fork_rec(&a, 1, 215);
		oa.lead = 0; /* CPU 0's window read first: up to the bad header, then cut at the FORK */
		step_pass(&oa, tl, UINT64_MAX, &ta);
		CHECK(ta.seen[210] == 1 && ta.seen[220] == 1 && ta.nrec == 1 && ta.sample_at[220] == 1,
		      "210, the FORK, 220, then the bad header ends the ring's batch");
		CHECK(a.r[0].malformed == m0 + 1, "the bad header counted once (%" PRIu64 ")", a.r[0].malformed - m0);
	}

	/* Random interleavings against the heap merge: long runs between the
	 * FORKs (several windows), many between (every sample its own kind:
	 * the tally fills), CPU 1 in two rings, passes at a limit. */
	for (unsigned round = 0; round < 12; round++) {
		uint64_t n = round < 4 ? 300 : round < 8 ? 1100 : 600;
		unsigned every = round % 4 == 0 ? 0 : round % 4 == 1 ? 3 : round % 4 == 2 ? 40 : 400;
		bool second = round % 2 == 1;
		uint64_t limit = round % 3 == 2 ? n / 2 : UINT64_MAX;

		memset(&ta, 0, sizeof(ta));
		memset(&tb, 0, sizeof(tb));
		order_source(&oa, 1, &a.r[1], second ? &a.r[NCPU] : NULL);
		order_source(&ob, 1, &b.r[1], second ? &b.r[NCPU] : NULL);
		deal(&a, &b, n, every, second, round + 1);
		if (round % 5 == 4) { /* passes cut short after 3 steps, each resumed by the next */
			for (int guard = 0; guard < 10000 && (ring_pending(&a.r[0]) || ring_pending(&a.r[1]) ||
							      ring_pending(&a.r[2]) || ring_pending(&a.r[NCPU]));
			     guard++)
				step_pass_cut(&oa, tl, limit, &ta, 3);
		} else {
			step_pass(&oa, tl, limit, &ta);
		}
		heap_pass(&ob, limit, &tb);
		if (limit != UINT64_MAX) {
			step_pass(&oa, tl, UINT64_MAX, &ta);
			heap_pass(&ob, UINT64_MAX, &tb);
		}
		CHECK(same(&ta, &tb, n) && count_seen(&ta) == count_seen(&tb) && count_seen(&ta) + ta.nrec == n,
		      "round %u (%" PRIu64 " records, a FORK in %u%s%s): as the heap merge has it, %zu FORKs, "
		      "%u samples (%zu through the heap), %zu full tallies",
		      round, n, every, second ? ", CPU 1 in two rings" : "", limit != UINT64_MAX ? ", two passes" : "",
		      ta.nrec, count_seen(&ta), ta.heaped, ta.fulls);
		for (int i = 0; i <= NCPU; i++)
			CHECK(ring_pending(&a.r[i]) == 0, "round %u: ring %d read to its head", round, i);
	}

	/* The hand-back: CPU 1's second ring given up with its FORK in hand;
	 * nothing of it lost, none of it twice. */
	{
		const struct record *rec;
		enum record_status st;
		enum order_out out;

		memset(&ta, 0, sizeof(ta));
		order_source(&oa, 1, &a.r[1], &a.r[NCPU]);
		sample(&a, 0, 2001);
		sample(&a, NCPU, 2002);
		fork_rec(&a, NCPU, 2003);
		sample(&a, NCPU, 2004);
		sample(&a, 0, 2005);
		oa.tally = tl;
		order_begin(&oa, UINT64_MAX);
		while ((out = order_step(&oa, &rec, &st)) == ORDER_TALLIED)
			;
		CHECK(out == ORDER_RECORD && rec->type == PERF_RECORD_FORK && order_release(&oa, 1) == 0 &&
		      rec->sid.time == 2003, "released with the FORK in hand, its fields kept");
		tally_take(tl, take_one, &ta);
		ta.rec[ta.nrec++] = rec->sid.time;
		while ((out = order_step(&oa, &rec, &st)) != ORDER_END)
			;
		order_done(&oa);
		tally_take(tl, take_one, &ta);
		CHECK(ta.seen[2001] == 1 && ta.seen[2002] == 1 && ta.seen[2004] == 0 && ta.sample_at[2005] == 1,
		      "2001 and 2002 before it, 2005 after, 2004 left in the ring given up");
		order_source(&oa, 1, &a.r[1], &a.r[NCPU]);
		step_pass(&oa, tl, UINT64_MAX, &ta);
		CHECK(ta.seen[2004] == 1 && ring_pending(&a.r[NCPU]) == 0 && ta.nrec == 1,
		      "2004 the next pass, once; the FORK not again");
	}

	/* The hand-back while a full tally is handed on (no record in hand):
	 * CPU 1's second ring given up where the steps left it. */
	{
		const struct record *rec;
		enum record_status st;
		enum order_out out;

		memset(&ta, 0, sizeof(ta));
		order_source(&oa, 1, &a.r[1], &a.r[NCPU]);
		for (uint64_t id = 100000; id < 110000; id++)
			(void)tally_add(tl, id, 0, 1, 1, 0x1000, 0, 1);
		sample(&a, NCPU, 3001);
		sample(&a, 0, 3002);
		sample(&a, NCPU, 3003);
		fork_rec(&a, 0, 3004);
		oa.tally = tl;
		order_begin(&oa, UINT64_MAX);
		out = order_step(&oa, &rec, &st);
		CHECK(out == ORDER_FULL && order_release(&oa, 1) == 0, "released while a full tally is taken");
		tally_take(tl, take_one, &ta);
		while ((out = order_step(&oa, &rec, &st)) != ORDER_END)
			if (out != ORDER_TALLIED) {
				tally_take(tl, take_one, &ta);
				if (out == ORDER_RECORD)
					ta.rec[ta.nrec++] = rec->sid.time;
			}
		order_done(&oa);
		tally_take(tl, take_one, &ta);
		order_source(&oa, 1, &a.r[1], &a.r[NCPU]);
		step_pass(&oa, tl, UINT64_MAX, &ta);
		CHECK(ta.seen[3001] == 1 && ta.seen[3002] == 1 && ta.seen[3003] == 1 && ta.nrec == 1 &&
		      ring_pending(&a.r[NCPU]) == 0, "each sample once, this pass or the next; the FORK once");
	}

	order_free(&oa);
	order_free(&ob);
	tally_free(tl);
	rings_free(&a);
	rings_free(&b);
	return check_done();
}
