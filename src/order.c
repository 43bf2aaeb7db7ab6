#include "internal/order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int order_init(struct order *o, struct ring *rings, size_t n)
{
	memset(o, 0, sizeof(*o));
	o->head = calloc(n ? n : 1, sizeof(*o->head));
	o->heap = calloc(n ? n : 1, sizeof(*o->heap));
	if (o->head == NULL || o->heap == NULL) {
		order_free(o);
		return -ENOMEM;
	}
	o->rings = rings;
	o->n = n;
	o->cur = n;
	return 0;
}

void order_free(struct order *o)
{
	free(o->head);
	free(o->heap);
	o->head = NULL;
	o->heap = NULL;
}

static inline uint64_t key_of(const struct order *o, size_t i)
{
	return o->head[o->heap[i]].key;
}

static void heap_swap(struct order *o, size_t a, size_t b)
{
	size_t t = o->heap[a];

	o->heap[a] = o->heap[b];
	o->heap[b] = t;
}

static void heap_push(struct order *o, size_t c)
{
	size_t i = o->nheap++;

	o->heap[i] = c;
	while (i > 0 && key_of(o, (i - 1) / 2) > key_of(o, i)) {
		heap_swap(o, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct order *o)
{
	size_t i = 0;

	o->heap[0] = o->heap[--o->nheap];
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < o->nheap && key_of(o, l) < key_of(o, m))
			m = l;
		if (l + 1 < o->nheap && key_of(o, l + 1) < key_of(o, m))
			m = l + 1;
		if (m == i)
			return;
		heap_swap(o, i, m);
		i = m;
	}
}

/* Takes ring c's next record into its head; false when the ring's batch is
 * done. Decoding here, once, gives the key and the caller's record. */
static bool take(struct order *o, size_t c)
{
	struct order_head *h = &o->head[c];
	const struct perf_event_header *hdr;

	h->held = ring_next(&o->rings[c], &hdr);
	if (!h->held)
		return false;
	h->st = record_decode(hdr, &h->rec);
	h->key = h->st == RECORD_OK ? h->rec.sid.time : 0;
	return true;
}

void order_begin(struct order *o, uint64_t limit)
{
	o->limit = limit;
	o->nheap = 0;
	o->cur = o->n;
	for (size_t c = 0; c < o->n; c++) {
		o->head[c].held = false;
		if (ring_read_begin(&o->rings[c]) == 0 && take(o, c))
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

			/* A run from one ring (the usual case: each ring's own
			 * records are in order) skips the heap. */
			if (k <= o->limit && (o->nheap == 0 || k <= key_of(o, 0))) {
				*rec = deliver(o, c, st);
				return true;
			}
			heap_push(o, c);
		}
	}
	if (o->nheap == 0 || key_of(o, 0) > o->limit)
		return false;
	c = o->heap[0];
	heap_pop(o);
	*rec = deliver(o, c, st);
	return true;
}

void order_done(struct order *o)
{
	for (size_t c = 0; c < o->n; c++) {
		if (o->head[c].held) {
			ring_unread(&o->rings[c]);
			o->head[c].held = false;
		}
		ring_read_done(&o->rings[c]);
	}
	o->nheap = 0;
	o->cur = o->n;
}

uint64_t order_newest(struct order *o)
{
	uint64_t newest = 0;

	for (size_t c = 0; c < o->n; c++) {
		struct ring *r = &o->rings[c];
		const struct perf_event_header *hdr;
		struct record rec;

		if (ring_read_begin(r) != 0)
			continue;
		while (ring_next(r, &hdr))
			if (record_decode(hdr, &rec) == RECORD_OK && rec.sid.time > newest)
				newest = rec.sid.time;
		/* No ring_read_done: the tail stays, the next begin starts over. */
	}
	return newest;
}
