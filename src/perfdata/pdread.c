/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdread: a perf.data file opened (mapped whole) or a pipe read as it
 * comes; the header, the attrs and their ids, the features; then the data
 * section's records, decompressed where perf record -z packed them, queued
 * per round (pdorder) and decoded as they are handed on (pdsample). Every
 * length read from the file is checked before it is used: a bad one ends
 * the read with its offset. */
#include "pdread_int.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* --- copies that outlive their read --------------------------------------- */

static void blk_free_all(struct blk *b)
{
	while (b) {
		struct blk *n = b->next;

		free(b);
		b = n;
	}
}

/* h may lie at any address (after perf record -z's records, which are not
 * padded): its size is read by memcpy, and the copy is aligned. */
static const struct perf_event_header *copy_record(struct pdread *r, const struct perf_event_header *h)
{
	struct perf_event_header hh;
	size_t need;

	memcpy(&hh, h, sizeof(hh));
	need = (hh.size + 7u) & ~(size_t)7;
	struct blk *b = r->cur;

	if (b == NULL || b->cap - b->used < need) {
		/* 64 KiB first, doubling to 1 MiB: a small file stays small. */
		size_t cap = b ? (b->cap < ((size_t)1 << 20) ? b->cap * 2 : b->cap) : (size_t)65536;

		if (cap < need)
			cap = need;

		if ((b = malloc(sizeof(*b) + cap)) == NULL)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = r->cur;
		r->cur = b;
	}
	memcpy(b->data + b->used, h, hh.size);
	b->used += need;
	return (const struct perf_event_header *)(b->data + b->used - need);
}

#define DROP_EVERY ((uint64_t)8 << 20)

/* A new round is read: what the round before the last copied is handed on. */
static void next_round(struct pdread *r)
{
	uint64_t drop = r->round_pos[0] & ~(uint64_t)4095;

	blk_free_all(r->old);
	r->old = r->cur;
	r->cur = NULL;
	/* The same for the mapped file: what lies before the round before the
	 * last was handed on, and its pages leave our RSS (the page cache
	 * keeps them). Every DROP_EVERY bytes, not every round: each drop is
	 * a syscall and a TLB flush (a tenth of a -b replay, a round at a time). */
	if (r->map && drop > r->dropped + DROP_EVERY) {
		madvise((void *)(uintptr_t)(r->map + r->dropped), drop - r->dropped, MADV_DONTNEED);
		r->dropped = drop;
	}
	r->round_pos[0] = r->round_pos[1];
	r->round_pos[1] = r->pos;
}

#define NO_ATTR UINT32_MAX

/* The record's attr, NO_ATTR when its id is none of the file's. */
static uint32_t attr_of(const struct pdread *r, const struct perf_event_header *h)
{
	uint64_t id;
	uintptr_t v;

	if (r->nattrs == 1)
		return 0;
	if (!pdsample_id(&r->attrs[0].lay, h, &id))
		return h->type == PERF_RECORD_SAMPLE ? NO_ATTR : 0;
	v = htab_get(&r->ids, id);
	return v ? (uint32_t)(v - 1) : NO_ATTR;
}

/* --- records in --------------------------------------------------------------- */

/* A kernel record queued in time order (copied first when it will not stay
 * where it is). */
static inline int queue(struct pdread *r, const struct perf_event_header *h, bool copy, uint64_t off,
			char *err, size_t errlen)
{
	uint32_t ai = attr_of(r, h);
	const struct pdsample_layout *l = &r->attrs[ai == NO_ATTR ? 0 : ai].lay;
	uint64_t t;

	r->nrecords++;
	if (h->type == PERF_RECORD_SAMPLE) {
		r->nsamples++;
		if (ai == NO_ATTR || r->attrs[ai].ev < 0)
			return 0; /* a tracking event's samples count for nothing */
	}
	/* A sample's time, inline: this is every record's path. */
	if (h->type == PERF_RECORD_SAMPLE && l->time_at >= 0 && h->size >= sizeof(*h) + (size_t)l->time_at + 8)
		memcpy(&t, (const unsigned char *)(h + 1) + l->time_at, 8);
	else if (!pdsample_time(l, h, &t))
		t = r->last_time;
	r->last_time = t;
	if (copy && (h = copy_record(r, h)) == NULL)
		return pdread_fail(r, err, errlen, off, "out of memory");
	if (pdorder_push(&r->ord, h, t, ai) != 0)
		return pdread_fail(r, err, errlen, off, "out of memory");
	return 0;
}

/* HEADER_ATTR (a pipe's): the attr, then its ids to the record's end. */
static int header_attr(struct pdread *r, const struct perf_event_header *h, uint64_t off, char *err, size_t errlen)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t body = h->size - sizeof(*h);
	uint32_t size;

	if (body < PERF_ATTR_SIZE_VER0)
		return pdread_fail(r, err, errlen, off, "an attr record is cut short");
	memcpy(&size, p + offsetof(struct perf_event_attr, size), 4);
	if (size < PERF_ATTR_SIZE_VER0 || size > body || (body - size) % 8)
		return pdread_fail(r, err, errlen, off, "an attr record's size (%u) is wrong", size);
	return pdread_add_attr(r, p, size, (const uint64_t *)(const void *)(p + size), (body - size) / 8, off, err, errlen);
}

static int header_feature(struct pdread *r, const struct perf_event_header *h, uint64_t off, char *err, size_t errlen)
{
	uint64_t bit;
	char why[160];

	if (h->size < sizeof(*h) + 8)
		return pdread_fail(r, err, errlen, off, "a feature record is cut short");
	memcpy(&bit, h + 1, 8);
	if (bit >= PDF_FEAT_BITS)
		return pdread_fail(r, err, errlen, off, "a feature record names feature %" PRIu64, bit);
	if (pdfeat_read_parse(&r->feat, (unsigned)bit, (const unsigned char *)(h + 1) + 8, h->size - sizeof(*h) - 8,
			 why, sizeof(why)) != 0)
		return pdread_fail(r, err, errlen, off, "feature %" PRIu64 ": %s", bit, why);
	pdfeat_read_finish(&r->feat);
	if (bit == PDF_FEAT_EVENT_DESC)
		pdread_name_events(r);
	return 0;
}

/* EVENT_UPDATE of type NAME (2): an event's name by one of its ids. */
static void event_update(struct pdread *r, const struct perf_event_header *h)
{
	uint64_t v[2];
	uintptr_t a;
	const char *name = (const char *)(h + 1) + 16;
	size_t max;

	if (h->size <= sizeof(*h) + 16)
		return;
	memcpy(v, h + 1, 16);
	max = h->size - sizeof(*h) - 16;
	if (v[0] != 2 || (a = htab_get(&r->ids, v[1])) == 0 || r->attrs[a - 1].ev < 0 || strnlen(name, max) == max)
		return;
	snprintf(r->events[r->attrs[a - 1].ev].name, PDREAD_NAME_MAX, "%s", name);
}

/* A pipe's HEADER_BUILD_ID: one entry, as in the feature section. */
static int header_build_id(struct pdread *r, const struct perf_event_header *h, uint64_t off, char *err, size_t errlen)
{
	char why[160];

	if (pdfeat_read_parse(&r->feat, PDF_FEAT_BUILD_ID, (const unsigned char *)h, h->size, why, sizeof(why)) != 0)
		return pdread_fail(r, err, errlen, off, "%s", why);
	pdfeat_read_finish(&r->feat);
	return 0;
}

static int decompress(struct pdread *r, const struct perf_event_header *h, uint64_t off, char *err, size_t errlen)
{
	const unsigned char *src = (const unsigned char *)(h + 1);
	size_t len = h->size - sizeof(*h);
	char why[160];

	if (h->type == PDF_RECORD_COMPRESSED + 2) { /* COMPRESSED2: u64 data_size first */
		uint64_t ds;

		if (len < 8)
			return pdread_fail(r, err, errlen, off, "a compressed record is cut short");
		memcpy(&ds, src, 8);
		if (ds > len - 8)
			return pdread_fail(r, err, errlen, off, "a compressed record's size is wrong");
		src += 8;
		len = (size_t)ds;
	}
	if (!r->zstd_tried) {
		r->zstd_tried = true;
		r->z = pdzstd_new(&r->have_zstd);
	}
	if (r->z == NULL)
		return pdread_fail(r, err, errlen, off, r->have_zstd ? "out of memory" :
			    "zstd-compressed records (perf record -z), and this perftop was built without libzstd");
	/* A record cut at the previous body's end goes first. */
	if (r->dpos) {
		memmove(r->dbuf, r->dbuf + r->dpos, r->dlen - r->dpos);
		r->dlen -= r->dpos;
		r->dpos = 0;
	}
	r->doff = off;
	if (pdzstd_run(r->z, src, len, &r->dbuf, &r->dlen, &r->dcap, why, sizeof(why)) != 0)
		return pdread_fail(r, err, errlen, off, "%s", why);
	return 0;
}

static int record_in(struct pdread *r, const struct perf_event_header *h, bool copy, uint64_t off,
		     bool *round, char *err, size_t errlen);

/* The decompressed records taken, up to a round's end; a record cut at
 * the end waits for the next body. */
static int take_decompressed(struct pdread *r, bool *round, char *err, size_t errlen)
{
	while (!*round && r->dlen - r->dpos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, r->dbuf + r->dpos, sizeof(h));
		if (h.size < sizeof(h))
			return pdread_fail(r, err, errlen, r->doff, "a compressed record holds a record of size %u", h.size);
		if (h.size > r->dlen - r->dpos)
			break;
		if (h.type == PDF_RECORD_COMPRESSED || h.type == PDF_RECORD_COMPRESSED + 2)
			return pdread_fail(r, err, errlen, r->doff, "a compressed record holds another");
		if (record_in(r, (const struct perf_event_header *)(r->dbuf + r->dpos), true, r->doff, round,
			      err, errlen) != 0)
			return -1;
		r->dpos += h.size;
	}
	return 0;
}

/* One record of the stream, in file order. */
static int record_in(struct pdread *r, const struct perf_event_header *h, bool copy, uint64_t off,
		     bool *round, char *err, size_t errlen)
{
	/* A record at an odd address (after an unpadded COMPRESSED) is read
	 * from an aligned copy. */
	if ((uintptr_t)h & 7) {
		if ((h = copy_record(r, h)) == NULL)
			return pdread_fail(r, err, errlen, off, "out of memory");
		copy = false;
	}
	if (h->type < PDF_RECORD_USER_TYPE_START) {
		if (r->nattrs == 0)
			return pdread_fail(r, err, errlen, off, "a record before any event's attr");
		return queue(r, h, copy, off, err, errlen);
	}
	switch (h->type) {
	case PDF_RECORD_FINISHED_ROUND:
		*round = true;
		return 0;
	case PDF_RECORD_COMPRESSED:
	case PDF_RECORD_COMPRESSED + 2:
		return decompress(r, h, off, err, errlen) || take_decompressed(r, round, err, errlen);
	case PDF_RECORD_HEADER_ATTR:
		if (r->ord.n || r->nrecords)
			return pdread_fail(r, err, errlen, off, "an attr record after the data began");
		return header_attr(r, h, off, err, errlen);
	case PDF_RECORD_HEADER_FEATURE:
		return header_feature(r, h, off, err, errlen);
	case PDF_RECORD_HEADER_BUILD_ID:
		return header_build_id(r, h, off, err, errlen);
	case PDF_RECORD_EVENT_UPDATE:
		event_update(r, h);
		return 0;
	default:
		return 0; /* perf's own (ID_INDEX, THREAD_MAP, ...): nothing perftop uses */
	}
}

/* Reads on to a round's end (or the stream's) and queues what it held. */
static int fill_round(struct pdread *r, char *err, size_t errlen)
{
	bool round = false;
	int rc;

	next_round(r);
	while (!round) {
		const struct perf_event_header *h;
		uint64_t off;

		/* A file's kernel records, read in place: most of a file, kept
		 * tight; anything else (or anything wrong) takes the way below. */
		while (!r->pipe && r->dpos == r->dlen && r->data_end - r->pos >= sizeof(*h)) {
			struct perf_event_header hh;

			h = (const struct perf_event_header *)(const void *)(r->map + r->pos);
			memcpy(&hh, h, sizeof(hh));
			if (hh.type >= PDF_RECORD_USER_TYPE_START || hh.size < sizeof(hh) || hh.size > r->data_end - r->pos ||
			    r->nattrs == 0 || ((uintptr_t)h & 7))
				break;
			r->pos += hh.size;
			if (queue(r, h, false, r->pos - hh.size, err, errlen) != 0)
				return -1;
		}

		if (r->dlen > r->dpos) {
			size_t before = r->dpos;

			if (take_decompressed(r, &round, err, errlen) != 0)
				return -1;
			if (round || r->dpos != before)
				continue;
		}
		if ((rc = pdread_raw_next(r, &h, &off, err, errlen)) < 0)
			return -1;
		if (rc == 0) {
			if (r->dlen > r->dpos)
				return pdread_fail(r, err, errlen, r->doff, "the compressed data ends inside a record");
			r->done = true;
			break;
		}
		if (record_in(r, h, r->pipe, off, &round, err, errlen) != 0)
			return -1;
	}
	if (pdorder_round(&r->ord, r->done) != 0)
		return pdread_fail(r, err, errlen, r->pipe ? r->pbase + r->ppos : r->pos, "out of memory");
	return 0;
}

/* Where a queued record was: exact when it lies in the mapped file, else
 * (a copy) where the reading is. */
static uint64_t offset_of(const struct pdread *r, const struct perf_event_header *h)
{
	const unsigned char *p = (const unsigned char *)h;

	if (r->map && p >= r->map && p < r->map + r->map_len)
		return (uint64_t)(p - r->map);
	return r->pipe ? r->pbase + r->ppos : r->pos;
}

int pdread_next(struct pdread *r, struct record *rec, int *ev, char *err, size_t errlen)
{
	for (;;) {
		const struct pdorder_entry *e = pdorder_pop(&r->ord);

		if (e) {
			const struct pdread_attr *a = &r->attrs[e->attr == NO_ATTR ? 0 : e->attr];
			enum record_status st = pdsample_decode(&a->lay, e->h, rec, r->scratch);

			if (st == RECORD_IGNORED)
				continue;
			if (st == RECORD_BAD)
				return pdread_fail(r, err, errlen, offset_of(r, e->h),
					    "a record of type %u is malformed (its fields run past its %u bytes)",
					    e->h->type, e->h->size);
			*ev = e->attr == NO_ATTR ? -1 : a->ev;
			return 1;
		}
		if (r->done)
			return 0;
		if (fill_round(r, err, errlen) != 0)
			return -1;
	}
}

/* --- opening ------------------------------------------------------------------- */

static bool section_ok(const struct pdread *r, const struct pdformat_section *s)
{
	return s->offset <= r->map_len && s->size <= r->map_len - s->offset;
}

static int read_attrs(struct pdread *r, const struct pdformat_header *fh, char *err, size_t errlen)
{
	uint64_t n, entry = fh->attr_size;

	if (!section_ok(r, &fh->attrs))
		return pdread_fail(r, err, errlen, offsetof(struct pdformat_header, attrs),
			    "the attrs (%" PRIu64 " bytes at %" PRIu64 ") lie past the file's end (%zu bytes: cut short?)",
			    fh->attrs.size, fh->attrs.offset, r->map_len);
	if (entry < PERF_ATTR_SIZE_VER0 + sizeof(struct pdformat_section) || entry > 4096 || fh->attrs.size % entry)
		return pdread_fail(r, err, errlen, offsetof(struct pdformat_header, attr_size),
			    "an attr entry of %" PRIu64 " bytes: not a perf.data file perftop knows", entry);
	n = fh->attrs.size / entry;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t at = fh->attrs.offset + i * entry;
		const unsigned char *p = r->map + at;
		struct pdformat_section ids;
		size_t bytes = (size_t)entry - sizeof(ids);
		uint32_t size;

		memcpy(&ids, p + bytes, sizeof(ids));
		memcpy(&size, p + offsetof(struct perf_event_attr, size), 4);
		if (size && size < bytes)
			bytes = size;
		if (!section_ok(r, &ids) || ids.size % 8)
			return pdread_fail(r, err, errlen, at + bytes, "the ids of attr %" PRIu64 " lie past the file's end "
				    "(cut short?)", i);
		if (pdread_add_attr(r, p, bytes, (const uint64_t *)(const void *)(r->map + ids.offset), ids.size / 8, at,
			     err, errlen) != 0)
			return -1;
	}
	return pdread_check_attrs(r, err, errlen);
}

static int read_features(struct pdread *r, const struct pdformat_header *fh, char *err, size_t errlen)
{
	uint64_t at = fh->data.offset + fh->data.size;

	for (unsigned bit = 0; bit < PDF_FEAT_BITS; bit++) {
		struct pdformat_section sec;
		char why[160];

		if (!(fh->features[bit / 64] & (1ull << (bit % 64))))
			continue;
		if (at > r->map_len || r->map_len - at < sizeof(sec))
			return pdread_fail(r, err, errlen, at, "the feature table runs past the file's end (%zu bytes: cut short?)",
				    r->map_len);
		memcpy(&sec, r->map + at, sizeof(sec));
		if (!section_ok(r, &sec))
			return pdread_fail(r, err, errlen, at, "feature %u (%" PRIu64 " bytes at %" PRIu64 ") lies past the "
				    "file's end (%zu bytes: cut short?)", bit, sec.size, sec.offset, r->map_len);
		if (pdfeat_read_parse(&r->feat, bit, r->map + sec.offset, (size_t)sec.size, why, sizeof(why)) != 0)
			return pdread_fail(r, err, errlen, sec.offset, "feature %u: %s", bit, why);
		at += sizeof(sec);
	}
	pdfeat_read_finish(&r->feat);
	pdread_name_events(r);
	return 0;
}

static int open_file(struct pdread *r, char *err, size_t errlen)
{
	struct pdformat_header fh;
	struct stat st;

	if (fstat(r->fd, &st) != 0)
		return pdread_fail(r, err, errlen, 0, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode)) {
		r->pipe = true; /* a fifo or a character device: read as a stream */
		return 0;
	}
	if (st.st_size < (off_t)sizeof(struct pdformat_pipe_header))
		return pdread_fail(r, err, errlen, 0, "the file has %lld bytes: too short for a perf.data header",
			    (long long)st.st_size);
	r->map_len = (size_t)st.st_size;
	r->map = mmap(NULL, r->map_len, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return pdread_fail(r, err, errlen, 0, "cannot map: %s", strerror(errno));
	}
	memset(&fh, 0, sizeof(fh));
	memcpy(&fh, r->map, r->map_len < sizeof(fh) ? r->map_len : sizeof(fh));
	if (fh.magic == PDF_MAGIC2 && fh.size == sizeof(struct pdformat_pipe_header)) {
		/* perf record -o - > FILE: the pipe format in a file. */
		r->pipe = true;
		munmap((void *)(uintptr_t)r->map, r->map_len);
		r->map = NULL;
		r->map_len = 0;
		return 0;
	}
	if (memcmp(r->map, "PERFFILE", 8) == 0)
		return pdread_fail(r, err, errlen, 0, "a perf.data of the first version (PERFFILE): perf 3.x and older, not read");
	if (fh.magic == PDF_MAGIC2_SWAPPED)
		return pdread_fail(r, err, errlen, 0, "written on a machine of the other byte order: not read");
	if (fh.magic != PDF_MAGIC2)
		return pdread_fail(r, err, errlen, 0, "no perf.data magic (PERFILE2): not a perf.data file");
	if (fh.size < sizeof(fh) || r->map_len < sizeof(fh))
		return pdread_fail(r, err, errlen, 8, "a header of %" PRIu64 " bytes in a file of %zu: cut short or corrupt",
			    fh.size, r->map_len);
	if (read_attrs(r, &fh, err, errlen) != 0)
		return -1;
	if (!section_ok(r, &fh.data))
		return pdread_fail(r, err, errlen, offsetof(struct pdformat_header, data),
			    "the data section (%" PRIu64 " bytes at %" PRIu64 ") runs past the file's end (%zu bytes): "
			    "the file is cut short", fh.data.size, fh.data.offset, r->map_len);
	if (read_features(r, &fh, err, errlen) != 0)
		return -1;
	r->pos = r->round_pos[0] = r->round_pos[1] = fh.data.offset;
	r->data_end = fh.data.offset + fh.data.size;
	madvise((void *)(uintptr_t)r->map, r->map_len, MADV_SEQUENTIAL);
	return 0;
}

/* A pipe: its header, then the header records up to the first of the data. */
static int open_pipe(struct pdread *r, char *err, size_t errlen)
{
	struct pdformat_pipe_header ph;
	int rc;

	if ((rc = pdread_pipe_fill(r, sizeof(ph), err, errlen)) < 0)
		return -1;
	if (rc == 0)
		return pdread_fail(r, err, errlen, 0, "the stream ends before a perf.data header");
	memcpy(&ph, r->pbuf, sizeof(ph));
	if (ph.magic == PDF_MAGIC2_SWAPPED)
		return pdread_fail(r, err, errlen, 0, "written on a machine of the other byte order: not read");
	if (ph.magic != PDF_MAGIC2)
		return pdread_fail(r, err, errlen, 0, "no perf.data magic (PERFILE2): not perf's pipe format");
	if (ph.size != sizeof(ph))
		return pdread_fail(r, err, errlen, 8, "a file's header (%" PRIu64 " bytes) where a pipe's was expected: "
			    "give the file by name", ph.size);
	r->ppos = sizeof(ph);
	for (;;) {
		struct perf_event_header h;
		const struct perf_event_header *hp;
		uint64_t off;
		bool round = false;

		if ((rc = pdread_pipe_fill(r, sizeof(h), err, errlen)) < 0)
			return -1;
		if (rc == 0)
			break;
		memcpy(&h, r->pbuf + r->ppos, sizeof(h));
		/* The data begins: the attrs are all known. */
		if (h.type < PDF_RECORD_USER_TYPE_START || h.type == PDF_RECORD_FINISHED_ROUND ||
		    h.type == PDF_RECORD_COMPRESSED || h.type == PDF_RECORD_COMPRESSED + 2)
			break;
		if ((rc = pdread_raw_next(r, &hp, &off, err, errlen)) <= 0)
			return rc < 0 ? -1 : pdread_fail(r, err, errlen, r->pbase + r->ppos, "the stream ends in its header");
		if (record_in(r, hp, true, off, &round, err, errlen) != 0)
			return -1;
	}
	return pdread_check_attrs(r, err, errlen);
}

int pdread_open(struct pdread **out, const char *path, char *err, size_t errlen)
{
	struct pdread *r = calloc(1, sizeof(*r));
	bool is_stdin = strcmp(path, "-") == 0;

	*out = r;
	if (r == NULL || htab_init(&r->ids, 64) != 0 || (r->scratch = malloc(65536 + 64)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	snprintf(r->name, sizeof(r->name), "%s", is_stdin ? "stdin" : path);
	r->fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	r->own_fd = !is_stdin;
	if (r->fd < 0) {
		int e = errno;

		r->own_fd = false;
		snprintf(err, errlen, "cannot open %s: %s%s", path, strerror(e),
			 e == ENOENT ? " (perf record writes perf.data: give its path)" : "");
		return -e;
	}
	if (open_file(r, err, errlen) != 0)
		return -EINVAL;
	if (r->pipe && open_pipe(r, err, errlen) != 0)
		return -EINVAL;
	r->feat.info.pipe = r->pipe;
	return 0;
}

void pdread_close(struct pdread *r)
{
	if (r == NULL)
		return;
	if (r->map)
		munmap((void *)(uintptr_t)r->map, r->map_len);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	free(r->pbuf);
	free(r->attrs);
	htab_free(&r->ids);
	pdfeat_read_free(&r->feat);
	pdorder_free(&r->ord);
	blk_free_all(r->cur);
	blk_free_all(r->old);
	pdzstd_free(r->z);
	free(r->dbuf);
	free(r->scratch);
	free(r);
}

size_t pdread_nevents(const struct pdread *r)
{
	return r->nevents;
}

const struct pdread_event *pdread_event(const struct pdread *r, size_t ev)
{
	return ev < r->nevents ? &r->events[ev] : NULL;
}

const struct pdread_info *pdread_info(const struct pdread *r)
{
	return &r->feat.info;
}

size_t pdread_buildids(const struct pdread *r, const struct pdread_buildid **out)
{
	*out = r->feat.bids;
	return r->feat.nbids;
}

bool pdread_callchains(const struct pdread *r)
{
	return r->callchains;
}

void pdread_counts(const struct pdread *r, uint64_t *records, uint64_t *samples)
{
	*records = r->nrecords;
	*samples = r->nsamples;
}
