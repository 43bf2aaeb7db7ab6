/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int order_init(struct order *o, struct ring *rings, size_t n)
{
	memset(o, 0, sizeof(*o));
	o->head = calloc(n ? n : 1, sizeof(*o->head));
	o->heap = calloc(n ? n : 1, sizeof(*o->heap));
	o->src = calloc(n ? n : 1, sizeof(*o->src));
	o->then = calloc(n ? n : 1, sizeof(*o->then));
	o->win = calloc((n ? n : 1) * ORDER_WINDOW, sizeof(*o->win));
	o->nwin = calloc(n ? n : 1, sizeof(*o->nwin));
	o->mark = calloc(n ? n : 1, sizeof(*o->mark));
	if (o->head == NULL || o->heap == NULL || o->src == NULL || o->then == NULL || o->win == NULL ||
	    o->nwin == NULL || o->mark == NULL) {
		order_free(o);
		return -ENOMEM;
	}
	for (size_t c = 0; c < n; c++)
		o->src[c] = &rings[c];
	o->n = n;
	o->cur = n;
	return 0;
}

void order_free(struct order *o)
{
	free(o->head);
	free(o->heap);
	free(o->src);
	free(o->then);
	free(o->copy);
	free(o->win);
	free(o->nwin);
	free(o->mark);
	*o = (struct order){ 0 };
}

void order_source(struct order *o, size_t c, struct ring *r, struct ring *then)
{
	o->src[c] = r;
	o->then[c] = then;
}

static void heap_up(struct order *o, size_t i)
{
	struct order_slot x = o->heap[i];

	while (i > 0 && o->heap[(i - 1) / 2].key > x.key) {
		o->heap[i] = o->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	o->heap[i] = x;
}

static void heap_down(struct order *o, size_t i)
{
	struct order_slot x = o->heap[i];

	for (;;) {
		size_t l = 2 * i + 1, m;

		if (l >= o->nheap)
			break;
		m = l + 1 < o->nheap && o->heap[l + 1].key < o->heap[l].key ? l + 1 : l;
		if (o->heap[m].key >= x.key)
			break;
		o->heap[i] = o->heap[m];
		i = m;
	}
	o->heap[i] = x;
}

static void heap_push(struct order *o, size_t c)
{
	o->heap[o->nheap] = (struct order_slot){ o->head[c].key, c };
	heap_up(o, o->nheap++);
}

static void heap_pop(struct order *o)
{
	o->heap[0] = o->heap[--o->nheap];
	if (o->nheap)
		heap_down(o, 0);
}

/* Ring c's next record (h->from: the ring it lies in); false when the
 * ring's batch is done. */
static inline bool stream_next(struct order *o, size_t c, const struct perf_event_header **hdr)
{
	struct order_head *h = &o->head[c];

	/* The first ring's records are all older than the second's; once it
	 * is read out (the spill, mostly empty) it is not tried again. */
	h->from = h->on_then ? o->then[c] : o->src[c];
	if (ring_next(h->from, hdr))
		return true;
	if (h->on_then || o->then[c] == NULL)
		return false;
	h->on_then = true;
	h->from = o->then[c];
	return ring_next(h->from, hdr);
}

/* Takes ring c's next record into its head; false when the ring's batch is
 * done. Decoding here, once, gives the key and the caller's record. */
static bool take(struct order *o, size_t c)
{
	struct order_head *h = &o->head[c];
	const struct perf_event_header *hdr;

	h->held = stream_next(o, c, &hdr);
	if (!h->held)
		return false;
	h->st = record_decode_with(hdr, o->layout, &h->rec);
	h->hdr = hdr;
	h->key = h->st == RECORD_OK ? h->rec.sid.time : 0;
	/* A sample with a stack copy is a cold kilobyte or more, read in full by
	 * nobody: the next record's first lines and the few stack words a walk
	 * reads are fetched while this one is aggregated (40 % of the main
	 * thread's time at 1 kHz dwarf went waiting for them). */
	if (h->rec.type == PERF_RECORD_SAMPLE && h->rec.sample.stack) {
		struct ring *r = h->from;

		for (unsigned i = 0; i < 16; i++)
			__builtin_prefetch(r->data + ((r->rd_pos + 64 * i) & r->mask));
		for (unsigned i = 0; i < 8 && 64 * i < h->rec.sample.stack_dyn_size; i++)
			__builtin_prefetch(h->rec.sample.stack + 64 * i);
	}
	return true;
}

void order_begin(struct order *o, uint64_t limit)
{
	o->limit = limit;
	o->nheap = 0;
	o->cur = o->n;
	o->sparse = 0;
	o->heaped = false;
	for (size_t c = 0; c < o->n; c++) {
		/* Both begun: an empty one is read to nothing. */
		int none = ring_read_begin(o->src[c]);

		o->head[c].held = false;
		o->head[c].on_then = false;
		if (o->then[c] && ring_read_begin(o->then[c]) == 0)
			none = 0;
		if (none == 0 && o->tally == NULL && take(o, c))
			heap_push(o, c);
	}
}

static const struct record *deliver(struct order *o, size_t c, enum record_status *st)
{
	struct order_head *h = &o->head[c];

	h->held = false;
	o->cur = c;
	if (h->key) {
		if (h->key < o->last)
			o->late++;
		else
			o->last = h->key;
	}
	*st = h->st;
	return &h->rec;
}

bool order_next(struct order *o, const struct record **rec, enum record_status *st)
{
	size_t c = o->cur;

	if (c < o->n) {
		o->cur = o->n;
		if (take(o, c)) {
			uint64_t k = o->head[c].key;

			if (o->nheap == 0 || k <= o->heap[0].key) {
				/* A run from one ring (each ring's own records are
				 * in order): no heap work. */
				if (k <= o->limit) {
					*rec = deliver(o, c, st);
					return true;
				}
				heap_push(o, c);
				return false;
			}
			if (o->heap[0].key > o->limit) {
				heap_push(o, c);
				return false;
			}
			/* Another ring's record is older: it leaves the heap as
			 * this one enters, one sift instead of a push and a pop. */
			size_t t = o->heap[0].ring;

			o->heap[0] = (struct order_slot){ k, c };
			heap_down(o, 0);
			*rec = deliver(o, t, st);
			return true;
		}
	}
	if (o->nheap == 0 || o->heap[0].key > o->limit)
		return false;
	c = o->heap[0].ring;
	heap_pop(o);
	*rec = deliver(o, c, st);
	return true;
}

static void pos_get(const struct order *o, size_t c, struct order_pos *p)
{
	p->src = o->src[c]->rd_pos;
	p->then = o->then[c] ? o->then[c]->rd_pos : 0;
	p->on_then = o->head[c].on_then;
}

/* Back to p: what lies after it is read again (still in the batch). */
static void pos_set(struct order *o, size_t c, const struct order_pos *p)
{
	o->src[c]->rd_pos = o->src[c]->rd_prev = p->src;
	if (o->then[c])
		o->then[c]->rd_pos = o->then[c]->rd_prev = p->then;
	o->head[c].on_then = p->on_then;
}

/* Reads ring c's window: its flat samples up to ORDER_WINDOW timed at or
 * before *fence, and the record after them when it is not one and its
 * time (here: no older than the samples before it) is too, which then
 * becomes the fence (true). A full window's newest sample bounds the fence
 * too: what lies after it is not known yet. */
static bool window_read(struct order *o, size_t c, uint64_t *fence)
{
	struct order_head *h = &o->head[c];
	struct order_flat *w = &o->win[c * ORDER_WINDOW];
	const struct perf_event_header *hdr;
	uint64_t hi = 0;
	size_t k = 0;

	h->held = false;
	pos_get(o, c, &o->mark[c]);
	while (k < ORDER_WINDOW && stream_next(o, c, &hdr)) {
		if (record_flat(hdr, o->layout, &w[k].f)) {
			if (w[k].f.time > *fence) {
				ring_unread(h->from);
				break;
			}
			w[k].misc = hdr->misc;
			hi = w[k].f.time > hi ? w[k].f.time : hi;
			pos_get(o, c, &w[k++].after);
			continue;
		}
		h->st = record_decode_with(hdr, o->layout, &h->rec);
		h->hdr = hdr;
		h->key = h->st == RECORD_OK ? h->rec.sid.time : 0;
		/* One older than the samples before it in its own ring (or with
		 * no time) comes right after them, as the heap would have it. */
		if ((h->key > hi ? h->key : hi) > *fence) {
			ring_unread(h->from);
			break;
		}
		*fence = h->key > hi ? h->key : hi;
		h->held = true;
		break;
	}
	o->nwin[c] = k;
	if (k == ORDER_WINDOW && hi < *fence)
		*fence = hi;
	return h->held;
}

enum order_out order_step(struct order *o, const struct record **rec, enum record_status *st)
{
	uint64_t fence = o->limit, newest = o->last;
	size_t hard = o->n, lead = o->lead;
	bool full = false;

	if (o->heaped)
		return order_next(o, rec, st) ? ORDER_RECORD : ORDER_END;
	o->cur = o->n;
	o->tallied = 0;
	/* The ring that set the last fence first: the others' windows then
	 * stop at it instead of being read in full and cut. */
	for (size_t i = 0; i < o->n; i++) {
		size_t c = (o->lead + i) % o->n;
		uint64_t was = fence;

		if (window_read(o, c, &fence))
			hard = lead = c;
		else if (fence < was)
			hard = o->n, lead = c; /* a window's end: no record holds it */
	}
	o->lead = lead;
	for (size_t c = 0; c < o->n; c++) {
		struct order_head *h = &o->head[c];
		const struct order_flat *w = &o->win[c * ORDER_WINDOW];
		size_t k = 0;

		for (; !full && k < o->nwin[c] && w[k].f.time <= fence; k++) {
			if (!tally_add(o->tally, w[k].f.id, w[k].f.cpu, w[k].f.pid, w[k].f.tid, w[k].f.ip,
				       w[k].misc & PERF_RECORD_MISC_CPUMODE_MASK, w[k].f.period)) {
				full = true;
				break;
			}
			if (o->flat_raw)
				o->flat_raw(o->flat_arg, &w[k]);
			if (w[k].f.time < o->last)
				o->late++;
			else if (w[k].f.time > newest)
				newest = w[k].f.time;
		}
		o->tallied += k;
		if (k < o->nwin[c] || (h->held && (c != hard || full))) {
			pos_set(o, c, k ? &w[k - 1].after : &o->mark[c]);
			h->held = false;
		}
	}
	o->last = newest;
	if (o->tallied >= o->n)
		o->sparse = 0; /* a run of records thick among samples ends */
	if (hard < o->n && o->head[hard].held) {
		*rec = deliver(o, hard, st);
		/* Records dense among the samples (process churn, many CPUs):
		 * each step reads every ring's window again for a few samples.
		 * The heap takes the rest of the pass. */
		if (o->tallied < o->n && ++o->sparse >= ORDER_SPARSE) {
			o->heaped = true;
			for (size_t c = 0; c < o->n; c++)
				if (c != hard && take(o, c))
					heap_push(o, c);
		}
		return ORDER_RECORD;
	}
	return full ? ORDER_FULL : o->tallied ? ORDER_TALLIED : ORDER_END;
}

/* Takes heap entry i out. */
static void heap_remove(struct order *o, size_t i)
{
	o->heap[i] = o->heap[--o->nheap];
	if (i < o->nheap) {
		heap_up(o, i);
		heap_down(o, i);
	}
}

/* A record is at most 64 KiB: its size is a u16. */
#define RECORD_MAX 65536

int order_release(struct order *o, size_t c)
{
	struct ring *r = c < o->n ? o->then[c] : NULL;
	struct order_head *h;

	if (r == NULL)
		return 0;
	h = &o->head[c];
	if (o->cur == c && h->from == r) {
		size_t len;

		if (o->copy == NULL && (o->copy = malloc(RECORD_MAX)) == NULL)
			return -ENOMEM;
		len = ring_copy_last(r, o->copy, RECORD_MAX);
		if (len == 0)
			return -ENOMEM;
		/* The same bytes: the same status and fields. */
		h->hdr = (const struct perf_event_header *)(void *)o->copy;
		(void)record_decode_with(h->hdr, o->layout, &h->rec);
	} else if (h->held && h->from == r) {
		for (size_t i = 0; i < o->nheap; i++)
			if (o->heap[i].ring == c) {
				heap_remove(o, i);
				break;
			}
		ring_unread(r);
		h->held = false;
	}
	ring_read_done(r);
	o->then[c] = NULL;
	h->on_then = false; /* the first ring alone from now on */
	return 0;
}

void order_done(struct order *o)
{
	for (size_t c = 0; c < o->n; c++) {
		if (o->head[c].held) {
			ring_unread(o->head[c].from);
			o->head[c].held = false;
		}
		ring_read_done(o->src[c]);
		if (o->then[c])
			ring_read_done(o->then[c]);
	}
	o->nheap = 0;
	o->cur = o->n;
}

static uint64_t ring_newest(struct order *o, struct ring *r, uint64_t newest)
{
	const struct perf_event_header *hdr;
	struct record rec;

	if (r == NULL || ring_read_begin(r) != 0)
		return newest;
	while (ring_next(r, &hdr))
		if (record_decode_with(hdr, o->layout, &rec) == RECORD_OK && rec.sid.time > newest)
			newest = rec.sid.time;
	/* No ring_read_done: the tail stays, the next begin starts over. */
	return newest;
}

uint64_t order_newest(struct order *o)
{
	uint64_t newest = 0;

	for (size_t c = 0; c < o->n; c++)
		newest = ring_newest(o, o->then[c], ring_newest(o, o->src[c], newest));
	return newest;
}
