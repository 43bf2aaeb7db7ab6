/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ring: reading one perf mmap ring buffer (metadata page + 2^n data pages)
 * with the kernel's ordering rules. Knows record framing, not record contents. */
#ifndef PERFTOP_RING_H
#define PERFTOP_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Largest record the kernel can write (header.size is u16). */
#define RING_RECORD_MAX 65536

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t mask;         /* data size - 1 */
	size_t map_len;        /* meta page + data, for munmap */
	uint64_t malformed;    /* records with an impossible size, skipped (atomic: read by other threads) */
	uint64_t bad_at;       /* where the last one counted lay: read again (a reader gone back), not counted again */
	unsigned char *scratch; /* a record that wraps is copied here, whole */
	size_t page;           /* ring_alloc's: pages read are given back in these units (0: no) */
	size_t huge;           /* ring_alloc's: the huge page size its data is aligned to (0: none) */
	uint64_t given_back;   /* position up to which they were */
	uint64_t keep;         /* but never the first keep bytes (ring_rewind's high-water mark) */
	uint64_t keep_max;     /* set by the owner: rewound only while it used no more (0: never) */
	/* The reader's batch (ring_read_begin .. ring_read_done): */
	uint64_t rd_end;       /* head as seen at ring_read_begin */
	uint64_t rd_pos;       /* next record */
	uint64_t rd_prev;      /* the record ring_next returned last */
};

/* Wraps an existing mapping (from mmap of a perf fd, or test memory):
 * page_size bytes of metadata then data_size bytes (a power of two). */
int ring_init(struct ring *r, void *mapping, size_t page_size, size_t data_size);

/* mmap()s fd with 1 + data_pages pages (data_pages a power of two). -errno. */
int ring_mmap(struct ring *r, int fd, size_t data_pages);
void ring_unmap(struct ring *r);

/* An anonymous ring of data_size bytes (a power of two) that this process
 * writes with ring_transfer, for the spill buffer; its memory follows what
 * it holds: pages are touched as it fills and given back once read.
 * huge: the transparent huge page size (perfsys_thp_size), or 0. With one,
 * the data is aligned to it, and a reader that leaves more than keep_max
 * unread (a backlog: the writer goes on through pages given back) turns
 * the ring to huge pages, given back whole from then on: each fresh 4 KiB
 * page cost a fault (12-35 us in a VM), and a backlog's copies ran at
 * 8-20 ns a byte, too slow to ever catch up; a huge page is one fault. */
int ring_alloc(struct ring *r, size_t data_size, size_t huge);

/* For a ring of ring_alloc whose reader has caught up but for a little:
 * what is left moves to the start of the buffer and both ends follow, so
 * the next writes land again on the first pages instead of cycling through
 * the whole buffer and faulting in pages given back. Those pages stay
 * resident: r->keep grows to the most a rewound lap used, up to
 * r->keep_max (set by the owner; a lap that used more is a backlog, and
 * goes on cycling). Only between the reader's batches, with the writer
 * excluded by the caller. true when it moved. */
bool ring_rewind(struct ring *r);

/* Moves whole records from a ring the kernel writes into one we write, as
 * far as they fit and up to max bytes, then publishes both ends. What does
 * not fit stays where it is: the kernel then counts what it drops, in LOST
 * records. Writers of `to` must be serialised by the caller; its reader may
 * run meanwhile. Returns the bytes moved. */
uint64_t ring_transfer(struct ring *from, struct ring *to, uint64_t max);

/* ring_transfer, record by record, each as fit() has it: up to
 * RING_PARTS_MAX pieces written one after the other (a record shortened on
 * its way, e.g. a stack copy cut to its valid bytes). The pieces must add up
 * to a well-formed record (its header's size their sum). A record that does
 * not fit whole stays in `from`, as in ring_transfer; so does one that
 * would take more than max bytes of `from` in all. Returns the bytes
 * written. */
#define RING_PARTS_MAX 5
struct ring_part {
	const void *p;
	size_t len;
};
typedef size_t (*ring_fit_fn)(void *arg, const struct perf_event_header *rec, struct ring_part *parts);
uint64_t ring_transfer_fit(struct ring *from, struct ring *to, ring_fit_fn fit, void *arg, uint64_t max);

/* Bytes written but not yet consumed. */
uint64_t ring_pending(const struct ring *r);
/* Bytes the writer has put in the ring since it was set up (its head). */
uint64_t ring_written(const struct ring *r);

/* Pull reading, as libperf's perf_mmap__read_init / read_event / consume /
 * read_done, so that a caller's budget and state stay in its own loop:
 *
 *	if (ring_read_begin(r) == 0) {
 *		while (ring_next(r, &hdr))
 *			use(hdr);
 *		ring_read_done(r);
 *	}
 *
 * ring_read_begin takes the batch: the records written up to now. 0, or
 * -EAGAIN when there are none. */
int ring_read_begin(struct ring *r);

/* ring_next's every case: what the inline one leaves to it. */
int ring_next_slow(struct ring *r, const struct perf_event_header **hdr);

/* The batch's next record: 1 and *hdr, or 0 at its end. The header and body
 * are contiguous and stay valid until the next ring_next or ring_read_done
 * on this ring (one that wraps is copied into the ring's scratch). A record
 * with an impossible size ends the batch: counted in malformed, and the
 * reader resyncs at the batch's end rather than decode garbage.
 * Inline, called for every record: out of line it spent a third of its
 * instructions saving registers for the rare cases (a record across the
 * end, a bad size), which ring_next_slow takes. */
static inline int ring_next(struct ring *r, const struct perf_event_header **hdr)
{
	uint64_t avail = r->rd_end - r->rd_pos, off = r->rd_pos & r->mask;
	const struct perf_event_header *h = (const void *)(r->data + off);
	uint16_t size;

	if (avail < sizeof(*h))
		return 0; /* the batch's end (order's take tries an empty spill first) */
	if (off + sizeof(*h) > r->mask + 1)
		return ring_next_slow(r, hdr);
	memcpy(&size, (const unsigned char *)h + offsetof(struct perf_event_header, size), sizeof(size));
	if (size < sizeof(*h) || (size & 7) || size > avail || off + size > r->mask + 1)
		return ring_next_slow(r, hdr);
	*hdr = h;
	r->rd_prev = r->rd_pos;
	r->rd_pos += size;
	return 1;
}

/* Puts back the record ring_next returned last: it comes first in the next
 * batch (a merge that met a record newer than its limit). Once only. */
void ring_unread(struct ring *r);

/* Copies the record ring_next returned last into dst (cap bytes); its
 * size, or 0 if it does not fit. */
size_t ring_copy_last(const struct ring *r, void *dst, size_t cap);

/* Frees what was read so far for the writer (the tail, published with
 * release; pages of our own rings given back first). Once per batch is
 * enough; mid-batch it makes room sooner. */
void ring_consume(struct ring *r);

/* Ends the batch: ring_consume. */
void ring_read_done(struct ring *r);

#endif
