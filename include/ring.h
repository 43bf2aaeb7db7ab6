/* ring: reading one perf mmap ring buffer (metadata page + 2^n data pages)
 * with the kernel's ordering rules. Knows record framing, not record contents. */
#ifndef PERFTOP_RING_H
#define PERFTOP_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* Largest record the kernel can write (header.size is u16). */
#define RING_RECORD_MAX 65536

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t mask;         /* data size - 1 */
	size_t map_len;        /* meta page + data, for munmap */
	uint64_t malformed;    /* records with an impossible size, skipped */
	unsigned char *scratch; /* a record that wraps is copied here, whole */
	size_t page;           /* ring_alloc's: pages read are given back (0: no) */
	uint64_t given_back;   /* position up to which they were */
};

/* Called once per record; the header and its body are contiguous and valid
 * only during the call. Returning non-zero stops the batch after this record. */
typedef int (*ring_record_fn)(const struct perf_event_header *hdr, void *arg);

/* Wraps an existing mapping (from mmap of a perf fd, or test memory):
 * page_size bytes of metadata then data_size bytes (a power of two). */
int ring_init(struct ring *r, void *mapping, size_t page_size, size_t data_size);

/* mmap()s fd with 1 + data_pages pages (data_pages a power of two). -errno. */
int ring_mmap(struct ring *r, int fd, size_t data_pages);
void ring_unmap(struct ring *r);

/* An anonymous ring of data_size bytes (a power of two) that this process
 * writes with ring_transfer, for the spill buffer; its memory follows what
 * it holds: pages are touched as it fills and given back once read. */
int ring_alloc(struct ring *r, size_t data_size);

/* Moves whole records from a ring the kernel writes into one we write, as
 * far as they fit, then publishes both ends. What does not fit stays where
 * it is: the kernel then counts what it drops, in LOST records. Writers of
 * `to` must be serialised by the caller; its reader may run meanwhile.
 * Returns the bytes moved. */
uint64_t ring_transfer(struct ring *from, struct ring *to);

/* Bytes written but not yet consumed. */
uint64_t ring_pending(const struct ring *r);

/* Delivers every complete record between tail and head, then publishes the
 * new tail once. Returns the number of records delivered. */
size_t ring_read(struct ring *r, ring_record_fn fn, void *arg);

#endif
