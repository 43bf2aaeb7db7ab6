/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ring_init(struct ring *r, void *mapping, size_t page_size, size_t data_size)
{
	if (data_size == 0 || (data_size & (data_size - 1)) != 0)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->bad_at = UINT64_MAX;
	r->scratch = malloc(RING_RECORD_MAX);
	if (r->scratch == NULL)
		return -ENOMEM;
	r->meta = mapping;
	r->data = (unsigned char *)mapping + page_size;
	r->mask = data_size - 1;
	return 0;
}

/* Maps the metadata page and data_size bytes, and wraps them. */
static int map_ring(struct ring *r, int fd, int flags, size_t data_size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	void *map;
	int err;

	if (page <= 0)
		return -EINVAL;
	len = (size_t)page + data_size;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	err = ring_init(r, map, (size_t)page, data_size);
	if (err) {
		munmap(map, len);
		return err;
	}
	r->map_len = len;
	return 0;
}

int ring_mmap(struct ring *r, int fd, size_t data_pages)
{
	long page = sysconf(_SC_PAGESIZE);

	return page <= 0 ? -EINVAL : map_ring(r, fd, MAP_SHARED, data_pages * (size_t)page);
}

/* The metadata page, then data aligned to `align` (a power of two above
 * the page size): mapped with room to spare, the rest unmapped. */
static int map_aligned(struct ring *r, size_t page, size_t data_size, size_t align)
{
	size_t len = page + data_size + align;
	unsigned char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	unsigned char *data, *end;
	int err;

	if (map == MAP_FAILED)
		return -errno;
	data = (unsigned char *)(((uintptr_t)map + page + align - 1) & ~(uintptr_t)(align - 1));
	end = map + len;
	if (data - page > map)
		munmap(map, (size_t)(data - page - map));
	if (data + data_size < end)
		munmap(data + data_size, (size_t)(end - data - data_size));
	err = ring_init(r, data - page, page, data_size);
	if (err) {
		munmap(data - page, page + data_size);
		return err;
	}
	r->map_len = page + data_size;
	return 0;
}

int ring_alloc(struct ring *r, size_t data_size, size_t huge)
{
	long page = sysconf(_SC_PAGESIZE);
	int err;

	if (page <= 0)
		return -EINVAL;
	if (huge <= (size_t)page || (huge & (huge - 1)) || data_size < huge)
		huge = 0;
	err = huge ? map_aligned(r, (size_t)page, data_size, huge)
		   : map_ring(r, -1, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, data_size);
	if (err == 0 && data_size >= (size_t)page) {
		r->page = (size_t)page;
		r->huge = huge;
	}
	return err;
}

/* A backlog: huge pages from now on, given back whole (ring_alloc). */
static void go_huge(struct ring *r)
{
	/* Refused (no THP after all): 4 KiB pages, as before. */
	if (madvise(r->data, r->mask + 1, MADV_HUGEPAGE) == 0)
		r->page = r->huge;
	r->huge = 0; /* asked once */
}

/* madvise(DONTNEED) of len bytes at offset off of the data, less the first
 * `keep` bytes: those are written again and again (ring_rewind), and a page
 * given back there only faults in again at the next write. */
static void give_back(struct ring *r, uint64_t off, uint64_t len)
{
	if (off < r->keep) {
		if (off + len <= r->keep)
			return;
		len -= r->keep - off;
		off = r->keep;
	}
	(void)madvise(r->data + off, len, MADV_DONTNEED); /* advice: failing costs memory only */
}

/* Gives back the pages wholly read between from and to (ring positions),
 * before the tail that frees them for the writer is published: a ring
 * cycling through its whole size would otherwise keep every page it ever
 * touched, however little it holds. */
static void release_pages(struct ring *r, uint64_t to)
{
	uint64_t size = r->mask + 1, pg = r->page;
	/* From where the last call stopped: reads smaller than a page add up. */
	uint64_t start = r->given_back, end = to & ~(pg - 1);
	uint64_t off, len;

	if (end <= start)
		return;
	r->given_back = end;
	if (end - start >= size) {
		give_back(r, 0, size);
		return;
	}
	off = start & r->mask;
	len = end - start;
	if (off + len > size) {
		give_back(r, 0, off + len - size);
		len = size - off;
	}
	give_back(r, off, len);
}

bool ring_rewind(struct ring *r)
{
	uint64_t size = r->mask + 1, tail = r->meta->data_tail, head = r->meta->data_head;
	uint64_t rem = head - tail, off = tail & r->mask, to, used;

	/* Already at the start, nothing kept, or a backlog (it cycles then,
	 * and what it read is given back). The unread rest must neither wrap
	 * nor overlap where it goes. */
	if (r->page == 0 || off == 0 || off + rem > r->keep_max || off < rem || off + rem > size)
		return false;
	/* The high-water mark: what a pass between rewinds used. */
	used = (off + rem + r->page - 1) & ~(uint64_t)(r->page - 1);
	if (used > r->keep)
		r->keep = used;
	to = (head + r->mask) & ~r->mask;
	memcpy(r->data, r->data + off, rem);
	release_pages(r, to);
	r->given_back = to;
	__atomic_store_n(&r->meta->data_tail, to, __ATOMIC_RELEASE);
	__atomic_store_n(&r->meta->data_head, to + rem, __ATOMIC_RELEASE);
	return true;
}

void ring_unmap(struct ring *r)
{
	if (r->map_len)
		munmap(r->meta, r->map_len);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

/* The kernel writes records, then data_head (release); we read data_head with
 * acquire so the records are visible, and publish data_tail with release so
 * the kernel does not overwrite what we are still reading. */
static inline uint64_t ring_head(const struct ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

uint64_t ring_pending(const struct ring *r)
{
	/* The tail may be the other thread's (a spill read by the main loop,
	 * looked at by the reader). */
	return ring_head(r) - __atomic_load_n(&r->meta->data_tail, __ATOMIC_ACQUIRE);
}

uint64_t ring_written(const struct ring *r)
{
	return ring_head(r);
}

int ring_read_begin(struct ring *r)
{
	r->rd_end = ring_head(r);
	r->rd_pos = r->rd_prev = r->meta->data_tail;
	return r->rd_pos == r->rd_end ? -EAGAIN : 0;
}

int ring_next_slow(struct ring *r, const struct perf_event_header **hdr)
{
	uint64_t size = r->mask + 1, avail = r->rd_end - r->rd_pos;
	uint64_t off = r->rd_pos & r->mask;
	struct perf_event_header h;

	if (avail < sizeof(h))
		return 0;
	/* Even the header may straddle the end. */
	if (off + sizeof(h) <= size) {
		memcpy(&h, r->data + off, sizeof(h));
	} else {
		size_t first = size - off;
		memcpy(&h, r->data + off, first);
		memcpy((unsigned char *)&h + first, r->data, sizeof(h) - first);
	}
	if (h.size < sizeof(h) || (h.size & 7) || h.size > avail) {
		/* A record the kernel cannot have written: resync at head
		 * rather than decode garbage or spin. */
		if (r->rd_pos != r->bad_at) {
			__atomic_fetch_add(&r->malformed, 1, __ATOMIC_RELAXED);
			r->bad_at = r->rd_pos;
		}
		r->rd_prev = r->rd_pos = r->rd_end;
		return 0;
	}
	if (off + h.size <= size) {
		*hdr = (const void *)(r->data + off);
	} else {
		size_t first = size - off;
		memcpy(r->scratch, r->data + off, first);
		memcpy(r->scratch + first, r->data, h.size - first);
		*hdr = (const void *)r->scratch;
	}
	r->rd_prev = r->rd_pos;
	r->rd_pos += h.size;
	return 1;
}

void ring_unread(struct ring *r)
{
	r->rd_pos = r->rd_prev;
}

size_t ring_copy_last(const struct ring *r, void *dst, size_t cap)
{
	uint64_t len = r->rd_pos - r->rd_prev;
	size_t off = r->rd_prev & r->mask, first = r->mask + 1 - off;

	if (len == 0 || len > cap)
		return 0;
	if (len <= first) {
		memcpy(dst, r->data + off, len);
	} else {
		memcpy(dst, r->data + off, first);
		memcpy((unsigned char *)dst + first, r->data, len - first);
	}
	return (size_t)len;
}

void ring_consume(struct ring *r)
{
	if (r->huge && r->keep_max && ring_head(r) - r->rd_pos > r->keep_max)
		go_huge(r);
	if (r->page)
		release_pages(r, r->rd_pos);
	__atomic_store_n(&r->meta->data_tail, r->rd_pos, __ATOMIC_RELEASE);
}

void ring_read_done(struct ring *r)
{
	ring_consume(r);
}

static void copy_out(const struct ring *r, uint64_t pos, void *dst, size_t len)
{
	size_t off = pos & r->mask, first = r->mask + 1 - off;

	if (len <= first) {
		memcpy(dst, r->data + off, len);
	} else {
		memcpy(dst, r->data + off, first);
		memcpy((unsigned char *)dst + first, r->data, len - first);
	}
}

/* n bytes from `from` at pos to `to` at to_pos, either side wrapping. */
static void move_bytes(const struct ring *from, uint64_t pos, struct ring *to, uint64_t to_pos, uint64_t n)
{
	for (uint64_t done = 0; done < n;) {
		uint64_t f_off = (pos + done) & from->mask, t_off = (to_pos + done) & to->mask;
		uint64_t k = n - done;

		if (k > from->mask + 1 - f_off)
			k = from->mask + 1 - f_off;
		if (k > to->mask + 1 - t_off)
			k = to->mask + 1 - t_off;
		memcpy(to->data + t_off, from->data + f_off, k);
		done += k;
	}
}

uint64_t ring_transfer(struct ring *from, struct ring *to, uint64_t max)
{
	uint64_t head = ring_head(from), tail = from->meta->data_tail;
	uint64_t to_head = to->meta->data_head;
	/* Acquire: the reader of `to` is done with what it released. */
	uint64_t space = to->mask + 1 - (to_head - __atomic_load_n(&to->meta->data_tail, __ATOMIC_ACQUIRE));
	uint64_t len = head - tail;

	if (max < space)
		space = max;
	if (len > space) {
		/* Whole records only: the reader of `to` trusts its head. The
		 * bytes are copied first and their headers walked in the copy,
		 * where they are in cache, not in the kernel's ring. */
		uint64_t pos = 0;
		struct perf_event_header h;

		move_bytes(from, tail, to, to_head, space);
		while (space - pos >= sizeof(h)) {
			copy_out(to, to_head + pos, &h, sizeof(h));
			if (h.size < sizeof(h) || (h.size & 7) || h.size > head - tail - pos) {
				if (pos == 0) { /* corrupt: resync, as ring_next does */
					__atomic_fetch_add(&from->malformed, 1, __ATOMIC_RELAXED);
					__atomic_store_n(&from->meta->data_tail, head, __ATOMIC_RELEASE);
					return 0;
				}
				break;
			}
			if (pos + h.size > space)
				break;
			pos += h.size;
		}
		len = pos;
	} else {
		move_bytes(from, tail, to, to_head, len);
	}
	if (len) {
		__atomic_store_n(&to->meta->data_head, to_head + len, __ATOMIC_RELEASE);
		__atomic_store_n(&from->meta->data_tail, tail + len, __ATOMIC_RELEASE);
	}
	return len;
}

static void copy_in(struct ring *r, uint64_t pos, const void *src, size_t len)
{
	size_t off = pos & r->mask, first = r->mask + 1 - off;

	if (len <= first) {
		memcpy(r->data + off, src, len);
	} else {
		memcpy(r->data + off, src, first);
		memcpy(r->data, (const unsigned char *)src + first, len - first);
	}
}

uint64_t ring_transfer_fit(struct ring *from, struct ring *to, ring_fit_fn fit, void *arg, uint64_t max)
{
	const struct perf_event_header *h;
	uint64_t to_head = to->meta->data_head, done = 0, start;
	uint64_t space = to->mask + 1 - (to_head - __atomic_load_n(&to->meta->data_tail, __ATOMIC_ACQUIRE));

	if (ring_read_begin(from) != 0)
		return 0;
	start = from->rd_pos;
	while (ring_next(from, &h)) {
		struct ring_part parts[RING_PARTS_MAX];
		size_t n, len = 0;

		if (from->rd_pos - start > max) {
			ring_unread(from);
			break;
		}

		/* The next record's first lines while this one is looked at and
		 * copied: the kernel wrote them on another CPU. */
		for (unsigned i = 0; i < 24; i++)
			__builtin_prefetch(from->data + ((from->rd_pos + 64 * i) & from->mask));
		n = fit(arg, h, parts);

		for (size_t i = 0; i < n; i++)
			len += parts[i].len;
		if (len > space - done) {
			ring_unread(from);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			copy_in(to, to_head + done, parts[i].p, parts[i].len);
			done += parts[i].len;
		}
	}
	if (done)
		__atomic_store_n(&to->meta->data_head, to_head + done, __ATOMIC_RELEASE);
	ring_read_done(from);
	return done;
}
