#include "internal/order.h"

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
	if (o->head == NULL || o->heap == NULL || o->src == NULL || o->then == NULL) {
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
	o->copy = NULL;
	o->head = NULL;
	o->heap = NULL;
	o->src = NULL;
	o->then = NULL;
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

/* Takes ring c's next record into its head; false when the ring's batch is
 * done. Decoding here, once, gives the key and the caller's record. */
static bool take(struct order *o, size_t c)
{
	struct order_head *h = &o->head[c];
	const struct perf_event_header *hdr;

	/* The first ring's records are all older than the second's; once it
	 * is read out (the spill, mostly empty) it is not tried again. */
	h->from = h->on_then ? o->then[c] : o->src[c];
	h->held = ring_next(h->from, &hdr);
	if (!h->held && !h->on_then && o->then[c]) {
		h->on_then = true;
		h->from = o->then[c];
		h->held = ring_next(h->from, &hdr);
	}
	if (!h->held)
		return false;
	h->st = record_decode_with(hdr, o->layout, &h->rec);
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
	for (size_t c = 0; c < o->n; c++) {
		/* Both begun: an empty one is read to nothing. */
		int none = ring_read_begin(o->src[c]);

		o->head[c].held = false;
		o->head[c].on_then = false;
		if (o->then[c] && ring_read_begin(o->then[c]) == 0)
			none = 0;
		if (none == 0 && take(o, c))
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
		(void)record_decode_with((const struct perf_event_header *)(void *)o->copy, o->layout, &h->rec);
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
