/* SPDX-License-Identifier: GPL-2.0-or-later */
/* order: the records of several rings (one per CPU) in time order, as perf's
 * ordered events, but merged in place: a k-way merge over the rings' pull
 * iterators, each ring's next record held where it lies (or in its ring's
 * scratch when it wraps), nothing copied. A pull iterator itself, so the
 * caller's loop keeps its budget:
 *
 *	order_begin(o, limit);
 *	while (order_next(o, &rec, &st))
 *		use(rec, st);
 *	order_done(o);
 */
#ifndef PERFTOP_ORDER_H
#define PERFTOP_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "ring.h"
#include "tally.h"

/* The engine's tally: 512 slots of 48 bytes, a probe of 8 (the rings'
 * lines to spare; a drain pass's kinds are few). */
#define ORDER_TALLY_BITS 9
#define ORDER_TALLY_PROBE 8

struct order_head {        /* a ring's next record, decoded once */
	struct record rec;
	const struct perf_event_header *hdr; /* rec's bytes (the raw tap) */
	enum record_status st;
	uint64_t key;          /* its time; 0: none (goes straight through) */
	bool held;
	bool on_then;          /* this pass: the first ring is read out, the second one's turn */
	struct ring *from;     /* the ring it lies in */
};

/* A ring's place: its spill's and kernel ring's read positions. */
struct order_pos {
	uint64_t src, then;
	bool on_then;
};

#define ORDER_WINDOW 32     /* order_step: flat samples read ahead per ring */

struct order_flat {         /* one of them */
	struct record_flat f;
	uint16_t misc;          /* the header's, whole */
	struct order_pos after;
};

struct order_slot {        /* a heap entry: the key kept inline, no indirection */
	uint64_t key;
	size_t ring;
};

struct order {
	struct ring **src;      /* [n]: each one's ring for the next pass, not owned */
	struct ring **then;     /* [n]: read once src's are through (newer), or NULL */
	size_t n;
	struct order_head *head; /* [n] */
	struct order_slot *heap; /* rings with a held record, least key first */
	size_t nheap;
	size_t cur;             /* the ring whose record order_next returned last; n: none */
	uint64_t limit;
	uint64_t last;          /* newest time delivered so far */
	uint64_t late;          /* records delivered although older than last */
	const struct record_layout *layout; /* call-graph samples; NULL: none */
	unsigned char *copy;    /* order_release: the record in hand, copied out */
	/* order_step's: */
	struct tally *tally;    /* where flat samples go */
	struct order_flat *win; /* [n][ORDER_WINDOW] */
	size_t *nwin;           /* [n] */
	struct order_pos *mark; /* [n]: where each window began */
	size_t tallied;         /* flat samples the last step put in the tally */
	/* The raw tap (--record): each flat sample as it goes into the tally,
	 * in the tally's order; NULL: none (one untaken branch a sample). */
	void (*flat_raw)(void *arg, const struct order_flat *w);
	void *flat_arg;
	size_t lead;            /* the ring whose window set the last fence: read first */
	unsigned sparse;        /* steps that gave a record and fewer samples than rings, none of as
				 * many samples as rings between */
	bool heaped;            /* ORDER_SPARSE of them: the heap's for the rest of the pass */
};

#define ORDER_SPARSE 4

enum order_out {
	ORDER_END,       /* nothing more at or before the limit */
	ORDER_RECORD,    /* *rec: the next record that is not a flat sample */
	ORDER_TALLIED,   /* only flat samples, o->tallied of them */
	ORDER_FULL,      /* the tally has no room: empty it, then step on */
};

/* Reads rings[0..n) until order_source says otherwise. */
int order_init(struct order *o, struct ring *rings, size_t n);
void order_free(struct order *o);

/* Source c reads r from the next pass on (between passes only), and then,
 * if not NULL, `then`, whose records are all newer than r's (the engine: a
 * CPU's spill, then its kernel ring). Records held back stay in the ring
 * they lie in. */
void order_source(struct order *o, size_t c, struct ring *r, struct ring *then);

/* A pass over what the rings hold now, delivering records timed at or
 * before limit (UINT64_MAX: everything). */
void order_begin(struct order *o, uint64_t limit);

/* The oldest record left at or before the limit: true with *rec and *st
 * (RECORD_OK, or RECORD_IGNORED/RECORD_BAD for the caller to count); valid
 * until the next order_next or order_done. A record older than one already
 * delivered (written late) comes anyway, counted in o->late. */
bool order_next(struct order *o, const struct record **rec, enum record_status *st);

/* order_next for a pass whose flat samples go to o->tally (record_flat;
 * set before order_begin): each call reads up to ORDER_WINDOW records of
 * every ring ahead, and puts the flat samples among them into the tally as
 * far as their times go before any other ring's next record that is not
 * one, or the limit; that record comes out as order_next's would. So the
 * tally holds, at each record out, exactly the flat samples older than it
 * (less those taken since): the caller empties it first. Each ring's
 * records still go in the order they lie. No heap, no record decoded
 * whole, for the samples. Where other records come thick among them
 * (ORDER_SPARSE steps in a row with fewer samples than rings), the rest of
 * the pass is order_next's, every record out (samples too). */
enum order_out order_step(struct order *o, const struct record **rec, enum record_status *st);

/* The bytes of the record order_next/order_step returned last. */
static inline const struct perf_event_header *order_hdr(const struct order *o)
{
	return o->head[o->cur].hdr;
}

/* Gives up c's second ring for the rest of the pass (the engine hands a
 * kernel ring back to its reader before slow work): the record in hand,
 * if it lies there, is copied out and decoded again (its pointers move to
 * the copy, its fields stay), one read ahead goes back unread, and the
 * ring's tail moves past what was delivered. Nothing more of c's comes
 * this pass. -ENOMEM (nothing given up) if the copy cannot be had. */
int order_release(struct order *o, size_t c);

/* Ends the pass: records held back (newer than the limit, or not reached
 * in the caller's budget) stay in their rings for the next pass. */
void order_done(struct order *o);

/* The newest time in the rings now, read without consuming anything: for
 * perf's round rule when record times cannot be compared with a clock. */
uint64_t order_newest(struct order *o);

#endif
