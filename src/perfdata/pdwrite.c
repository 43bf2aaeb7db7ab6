/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdwrite: perf.data out. A file is laid out as
 *	header | ids | attrs | data ... | feature table | feature bodies [| ids | attrs]
 * the attrs first (known when recording starts, so a disk that fills up
 * later still leaves them whole), the data as it comes, the features at
 * the end (perf reads their table right after the data), and the header
 * rewritten last with the sizes. Attrs that got ids after the start (a
 * re-open) are written again after the features. A pipe gets perf's pipe
 * header, HEADER_ATTR and HEADER_FEATURE records, then the data. */
#include "pdwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pdfeat.h"
#include "pdformat.h"
#include "util.h"

#define PDW_BUF ((size_t)1 << 20)
#define PDW_MAX_EVENTS 64

struct pdwrite {
	int fd;
	bool pipe, begun, stopped, late_ids;
	int err;
	uint64_t max_size;
	struct pdwrite_info info;
	unsigned char *buf;
	size_t blen;
	uint64_t off;           /* bytes of the file (or pipe) written before buf */
	uint64_t data_off;      /* a file: where the data begins */
	struct pdformat_section attrs; /* a file: where the attrs lie */
	struct pdfeat_event ev[PDW_MAX_EVENTS];
	size_t nev;
	struct pdfeat_bid *bid;
	size_t nbid, bidcap;
	uint64_t first, last;
	size_t time_off;        /* of a sample's time; 0: none */
	uint64_t records, samples;
	uint64_t written;       /* samples in the file (or pipe) */
	uint64_t buf_samples;   /* samples in buf */
};

int pdwrite_create(const char *path)
{
	struct stat st;
	char old[4096];
	int fd;

	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
		/* perf record's way: the last recording becomes FILE.old. */
		if (util_pathf(old, sizeof(old), "%s.old", path))
			return -ENAMETOOLONG;
		if (rename(path, old))
			return -errno;
	} else if (errno != ENOENT) {
		return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

int pdwrite_open(struct pdwrite **out, int fd, bool pipe, uint64_t max_size, const struct pdwrite_info *info)
{
	struct pdwrite *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (w == NULL || (w->buf = malloc(PDW_BUF)) == NULL) {
		free(w);
		return -ENOMEM;
	}
	w->fd = fd;
	w->pipe = pipe;
	w->max_size = max_size;
	if (info)
		w->info = *info;
	*out = w;
	return 0;
}

static void stop(struct pdwrite *w, int err)
{
	w->stopped = true;
	if (w->err == 0)
		w->err = err;
}

/* The records of buf[0..len) that lie whole within its first n bytes:
 * their length, and how many samples they hold. */
static size_t whole_records(const unsigned char *buf, size_t len, size_t n, uint64_t *samples)
{
	size_t at = 0;

	*samples = 0;
	while (at + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)(buf + at);

		if (h->size < sizeof(*h) || at + h->size > n)
			break;
		*samples += h->type == PERF_RECORD_SAMPLE;
		at += h->size;
	}
	return at;
}

/* The buffer out: a file's at its offset, a pipe's in order. The buffer
 * holds whole records: a write that fails part way (a full disk) leaves
 * the file cut at the last record it wrote whole. */
static int flush(struct pdwrite *w)
{
	size_t done = 0;
	uint64_t kept;
	int rc = 0;

	if (w->blen == 0)
		return 0;
	while (done < w->blen) {
		ssize_t n = w->pipe ? write(w->fd, w->buf + done, w->blen - done)
				    : pwrite(w->fd, w->buf + done, w->blen - done, (off_t)(w->off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -ENOSPC;
			break;
		}
		done += (size_t)n;
	}
	if (rc == 0) {
		w->off += w->blen;
		w->written += w->buf_samples;
	} else if (!w->pipe) {
		done = whole_records(w->buf, w->blen, done, &kept);
		w->off += done;
		w->written += kept;
		if (ftruncate(w->fd, (off_t)w->off) != 0)
			rc = rc ? rc : -errno;
	} else {
		w->off += done;
	}
	w->blen = 0;
	w->buf_samples = 0;
	if (rc)
		stop(w, rc);
	return rc;
}

/* Appends to the buffer, out first if it would not fit: it holds whole
 * records (none is longer than a u16 size). */
static int put(struct pdwrite *w, const void *p, size_t n)
{
	if (w->blen + n > PDW_BUF && flush(w))
		return w->err;
	if (n > PDW_BUF)
		return -E2BIG;
	if (n == 0) /* an empty body: memcpy wants a pointer even for none */
		return 0;
	memcpy(w->buf + w->blen, p, n);
	w->blen += n;
	return 0;
}

int pdwrite_attr(struct pdwrite *w, size_t idx, const struct perf_event_attr *attr, const char *name,
		 const uint64_t *ids, size_t nids)
{
	struct pdfeat_event *e;

	if (idx >= PDW_MAX_EVENTS)
		return -E2BIG;
	e = &w->ev[idx];
	if (idx >= w->nev) {
		w->nev = idx + 1;
		e->attr = *attr;
		if (e->attr.size == 0 || e->attr.size > PDF_ATTR_SIZE_MAX)
			e->attr.size = PDF_ATTR_SIZE_MAX;
		snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
	}
	for (size_t i = 0; i < nids; i++) {
		bool known = false;

		for (size_t j = 0; j < e->nids && !known; j++)
			known = e->ids[j] == ids[i];
		if (known)
			continue;
		if (e->nids == e->cap) {
			size_t cap = e->cap ? 2 * e->cap : 16;
			uint64_t *p = reallocarray(e->ids, cap, sizeof(*p));

			if (p == NULL)
				return -ENOMEM;
			e->ids = p;
			e->cap = cap;
		}
		e->ids[e->nids++] = ids[i];
		if (w->begun)
			w->late_ids = true;
	}
	if (idx == 0 && (attr->sample_type & PERF_SAMPLE_TIME)) {
		uint64_t st = attr->sample_type;

		w->time_off = sizeof(struct perf_event_header) + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) +
								     !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID));
	}
	return w->begun && w->pipe ? pdwrite_begin(w) : 0;
}

/* A pipe's HEADER_ATTR records for the ids not yet sent (several when
 * they would not fit a record's u16 size). */
static int pipe_attrs(struct pdwrite *w)
{
	for (size_t i = 0; i < w->nev; i++) {
		struct pdfeat_event *e = &w->ev[i];
		size_t per = (UINT16_MAX - sizeof(struct perf_event_header) - e->attr.size) / 8;

		while (e->nsent < e->nids) {
			size_t n = e->nids - e->nsent < per ? e->nids - e->nsent : per;
			struct perf_event_header h = {
				.type = PDF_RECORD_HEADER_ATTR,
				.size = (uint16_t)(sizeof(h) + e->attr.size + 8 * n),
			};

			if (put(w, &h, sizeof(h)) || put(w, &e->attr, e->attr.size) ||
			    put(w, e->ids + e->nsent, 8 * n))
				return w->err;
			e->nsent += n;
		}
	}
	return 0;
}

static void ctx_of(const struct pdwrite *w, struct pdfeat_ctx *c)
{
	*c = (struct pdfeat_ctx){ .info = &w->info, .ev = w->ev, .nev = w->nev, .bid = w->bid, .nbid = w->nbid,
				  .first = w->first, .last = w->last };
}

/* One HEADER_FEATURE record; a feature with nothing to say is left out. */
static int pipe_feature(struct pdwrite *w, int feat)
{
	struct pdfeat_buf b = { 0 };
	struct pdfeat_ctx c;
	struct pdformat_feature_event fe = { .header = { .type = PDF_RECORD_HEADER_FEATURE } };
	int rc;

	ctx_of(w, &c);
	rc = pdfeat_build(&b, feat, &c);
	if (rc == 0 && sizeof(fe) + b.len <= UINT16_MAX) {
		fe.header.size = (uint16_t)(sizeof(fe) + b.len);
		fe.feat_id = (uint64_t)feat;
		if (put(w, &fe, sizeof(fe)) == 0)
			put(w, b.p, b.len);
	}
	pdfeat_free(&b);
	return rc == -ENOMEM ? rc : w->err;
}

/* The features known at the start; SAMPLE_TIME and BUILD_ID come at the end. */
static const int start_feats[] = {
	PDF_FEAT_HOSTNAME, PDF_FEAT_OSRELEASE, PDF_FEAT_VERSION, PDF_FEAT_ARCH, PDF_FEAT_NRCPUS,
	PDF_FEAT_CPUDESC, PDF_FEAT_CPUID, PDF_FEAT_TOTAL_MEM, PDF_FEAT_CMDLINE, PDF_FEAT_EVENT_DESC,
	PDF_FEAT_CLOCKID,
};

/* A file's ids, then its attrs, at off: where the attrs went. */
static int write_attrs(struct pdwrite *w, uint64_t off, struct pdformat_section *attrs, uint64_t *end)
{
	struct pdfeat_buf b = { 0 };
	uint64_t ids_at = off;
	int rc;

	for (size_t i = 0; i < w->nev; i++) {
		w->ev[i].ids_off = ids_at + b.len;
		pdfeat_put(&b, w->ev[i].ids, w->ev[i].nids * 8);
	}
	attrs->offset = off + b.len;
	for (size_t i = 0; i < w->nev; i++) {
		struct pdformat_section ids = { w->ev[i].ids_off, w->ev[i].nids * 8 };

		pdfeat_put(&b, &w->ev[i].attr, w->ev[i].attr.size);
		pdfeat_put(&b, &ids, sizeof(ids));
	}
	attrs->size = off + b.len - attrs->offset;
	rc = b.oom ? -ENOMEM : 0;
	if (rc == 0) {
		ssize_t n = pwrite(w->fd, b.p, b.len, (off_t)off);

		rc = n == (ssize_t)b.len ? 0 : n < 0 ? -errno : -ENOSPC;
	}
	*end = off + b.len;
	pdfeat_free(&b);
	return rc;
}

static uint64_t attr_size(const struct pdwrite *w)
{
	return (w->nev ? w->ev[0].attr.size : PDF_ATTR_SIZE_MAX) + sizeof(struct pdformat_section);
}

static int write_header(struct pdwrite *w, uint64_t data_size, const uint64_t feats[PDF_FEAT_BITS / 64])
{
	struct pdformat_header h = {
		.magic = PDF_MAGIC2,
		.size = sizeof(h),
		.attr_size = attr_size(w),
		.attrs = w->attrs,
		.data = { w->data_off, data_size },
	};
	ssize_t n;

	memcpy(h.features, feats, sizeof(h.features));
	n = pwrite(w->fd, &h, sizeof(h), 0);
	return n == (ssize_t)sizeof(h) ? 0 : n < 0 ? -errno : -ENOSPC;
}

int pdwrite_begin(struct pdwrite *w)
{
	static const uint64_t none[PDF_FEAT_BITS / 64];
	int rc;

	for (size_t i = 1; i < w->nev; i++)
		if (w->ev[i].attr.size != w->ev[0].attr.size)
			return -EINVAL; /* one attr_size for the file */
	if (w->pipe) {
		if (!w->begun) {
			struct pdformat_pipe_header ph = { PDF_MAGIC2, sizeof(ph) };

			w->begun = true;
			if (put(w, &ph, sizeof(ph)) || pipe_attrs(w))
				return w->err;
			for (size_t i = 0; i < sizeof(start_feats) / sizeof(start_feats[0]); i++)
				if ((rc = pipe_feature(w, start_feats[i])) != 0)
					return rc;
			return flush(w);
		}
		return pipe_attrs(w);
	}
	if (w->begun)
		return 0;
	w->begun = true;
	if ((rc = write_attrs(w, sizeof(struct pdformat_header), &w->attrs, &w->data_off)) != 0 ||
	    (rc = write_header(w, 0, none)) != 0) {
		stop(w, rc);
		return rc;
	}
	w->off = w->data_off;
	return 0;
}

int pdwrite_record(struct pdwrite *w, const struct perf_event_header *hdr)
{
	if (w->stopped)
		return 0;
	if (w->max_size && w->off + w->blen + hdr->size > w->max_size) {
		stop(w, -EFBIG);
		return 0;
	}
	if (hdr->type == PERF_RECORD_SAMPLE) {
		w->samples++;
		w->buf_samples++;
		if (w->time_off && hdr->size >= w->time_off + 8) {
			uint64_t t;

			memcpy(&t, (const unsigned char *)hdr + w->time_off, 8);
			if (w->first == 0 || t < w->first)
				w->first = t;
			if (t > w->last)
				w->last = t;
		}
	}
	w->records++;
	return put(w, hdr, hdr->size);
}

int pdwrite_round(struct pdwrite *w)
{
	struct perf_event_header h = { .type = PDF_RECORD_FINISHED_ROUND, .size = sizeof(h) };

	if (w->stopped)
		return 0;
	if (put(w, &h, sizeof(h)))
		return w->err;
	return flush(w);
}

int pdwrite_build_id(struct pdwrite *w, const char *path, const uint8_t *id, size_t len, bool kernel)
{
	struct pdfeat_bid *e;

	if (len == 0 || len > PDF_BUILD_ID_MAX)
		return -EINVAL;
	for (size_t i = 0; i < w->nbid; i++)
		if (strcmp(w->bid[i].path, path) == 0 && w->bid[i].len == len && !memcmp(w->bid[i].id, id, len))
			return 0;
	if (w->nbid == w->bidcap) {
		size_t cap = w->bidcap ? 2 * w->bidcap : 32;
		struct pdfeat_bid *p = reallocarray(w->bid, cap, sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		w->bid = p;
		w->bidcap = cap;
	}
	e = &w->bid[w->nbid];
	memset(e, 0, sizeof(*e));
	if ((e->path = strdup(path)) == NULL)
		return -ENOMEM;
	memcpy(e->id, id, len);
	e->len = (uint8_t)len;
	e->kernel = kernel;
	w->nbid++;
	return 0;
}

/* A pipe's end: the sample times and the build-ids, as records. */
static int pipe_close(struct pdwrite *w)
{
	struct pdfeat_buf b = { 0 };

	if (!w->begun || (w->stopped && w->err != -EFBIG))
		return 0; /* a broken pipe: nothing more to say to it */
	w->stopped = false; /* past --max-size: the trailer still goes */
	pipe_feature(w, PDF_FEAT_SAMPLE_TIME);
	for (size_t i = 0; i < w->nbid; i++)
		pdfeat_build_id(&b, &w->bid[i], PDF_RECORD_HEADER_BUILD_ID);
	if (b.oom)
		stop(w, -ENOMEM);
	else
		put(w, b.p, b.len);
	pdfeat_free(&b);
	w->stopped = true;
	return flush(w);
}

/* A file's end: the feature table right after the data, the bodies. */
static int file_close(struct pdwrite *w)
{
	static const int feats[] = {
		PDF_FEAT_BUILD_ID, PDF_FEAT_HOSTNAME, PDF_FEAT_OSRELEASE, PDF_FEAT_VERSION, PDF_FEAT_ARCH,
		PDF_FEAT_NRCPUS, PDF_FEAT_CPUDESC, PDF_FEAT_CPUID, PDF_FEAT_TOTAL_MEM, PDF_FEAT_CMDLINE,
		PDF_FEAT_EVENT_DESC, PDF_FEAT_SAMPLE_TIME, PDF_FEAT_CLOCKID,
	};
	uint64_t bits[PDF_FEAT_BITS / 64] = { 0 }, data_end, end;
	struct pdfeat_buf body = { 0 }, table = { 0 };
	struct pdformat_section sec[sizeof(feats) / sizeof(feats[0])];
	struct pdformat_section attrs = w->attrs;
	struct pdfeat_ctx c;
	size_t n = 0;
	int rc = 0;

	if (!w->begun)
		return w->err;
	flush(w); /* what is buffered goes, even past a --max-size stop */
	data_end = w->off;
	ctx_of(w, &c);
	/* Which features have something to say: their table's size first. */
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		size_t at = body.len;

		if (pdfeat_build(&body, feats[i], &c) != 0) {
			body.len = at;
			continue;
		}
		sec[n].offset = at;
		sec[n++].size = body.len - at;
		bits[feats[i] / 64] |= 1ull << (feats[i] % 64);
	}
	for (size_t i = 0; i < n; i++) {
		sec[i].offset += data_end + n * sizeof(sec[0]);
		pdfeat_put(&table, &sec[i], sizeof(sec[i]));
	}
	pdfeat_put(&table, body.p, body.len);
	if (table.oom || body.oom) {
		rc = -ENOMEM;
	} else {
		ssize_t k = pwrite(w->fd, table.p, table.len, (off_t)data_end);

		rc = k == (ssize_t)table.len ? 0 : k < 0 ? -errno : -ENOSPC;
	}
	end = data_end + table.len;
	if (rc == 0 && w->late_ids && write_attrs(w, end, &attrs, &end) == 0)
		w->attrs = attrs;
	if (rc) {
		/* No room for the features: a file without them. */
		memset(bits, 0, sizeof(bits));
		end = data_end;
		if (w->err == 0)
			w->err = rc;
	}
	if (ftruncate(w->fd, (off_t)end) != 0 && w->err == 0)
		w->err = -errno;
	rc = write_header(w, data_end - w->data_off, bits);
	if (rc && w->err == 0)
		w->err = rc;
	pdfeat_free(&body);
	pdfeat_free(&table);
	return rc;
}

int pdwrite_close(struct pdwrite *w, struct pdwrite_stats *st)
{
	int rc;

	if (w == NULL)
		return 0;
	rc = w->pipe ? pipe_close(w) : file_close(w);
	if (st) {
		pdwrite_stats(w, st);
		st->stopped = w->err != 0;
	}
	for (size_t i = 0; i < w->nev; i++)
		free(w->ev[i].ids);
	for (size_t i = 0; i < w->nbid; i++)
		free(w->bid[i].path);
	free(w->bid);
	free(w->buf);
	free(w);
	return rc;
}

void pdwrite_stats(const struct pdwrite *w, struct pdwrite_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (w == NULL)
		return;
	st->bytes = w->off + w->blen;
	st->records = w->records;
	st->samples = w->samples;
	st->written = w->written + w->buf_samples;
	st->stopped = w->stopped;
	st->error = w->err;
}
