/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdread_stream: the records of a mapped file's data section or of a pipe,
 * one at a time with their offsets, every length checked; and the one
 * error line, offset first. */
#include "pdread_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pdread_fail(struct pdread *r, char *err, size_t errlen, uint64_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: at offset %" PRIu64 ": %s", r->name, off, what);
	return -1;
}

/* --- the stream: a mapped file's data section, or a pipe ------------------------ */

/* A pipe's next n bytes at ppos, reading as needed: 1, 0 at the end, -1. */
int pdread_pipe_fill(struct pdread *r, size_t n, char *err, size_t errlen)
{
	while (r->plen - r->ppos < n) {
		ssize_t got;

		if (r->eof)
			return 0;
		if (r->ppos) {
			memmove(r->pbuf, r->pbuf + r->ppos, r->plen - r->ppos);
			r->plen -= r->ppos;
			r->pbase += r->ppos;
			r->ppos = 0;
		}
		if (r->pcap - r->plen < 65536) {
			size_t cap = r->pcap ? r->pcap * 2 : (size_t)1 << 20;
			unsigned char *nb = realloc(r->pbuf, cap);

			if (nb == NULL)
				return pdread_fail(r, err, errlen, r->pbase + r->plen, "out of memory");
			r->pbuf = nb;
			r->pcap = cap;
		}
		got = read(r->fd, r->pbuf + r->plen, r->pcap - r->plen);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return pdread_fail(r, err, errlen, r->pbase + r->plen, "cannot read: %s", strerror(errno));
		if (got == 0)
			r->eof = true;
		r->plen += (size_t)got;
	}
	return 1;
}

/* The next record of the stream and its offset: 1, 0 at the end, -1. */
int pdread_raw_next(struct pdread *r, const struct perf_event_header **out, uint64_t *off, char *err, size_t errlen)
{
	struct perf_event_header h;
	int rc;

	if (!r->pipe) {
		if (r->pos >= r->data_end)
			return 0;
		*off = r->pos;
		if (r->data_end - r->pos < sizeof(h))
			return pdread_fail(r, err, errlen, r->pos, "a record header is cut short (the file ends inside it)");
		memcpy(&h, r->map + r->pos, sizeof(h));
		if (h.size < sizeof(h))
			return pdread_fail(r, err, errlen, r->pos, "a record of size %u (type %u): the file is corrupt", h.size, h.type);
		if (h.size > r->data_end - r->pos)
			return pdread_fail(r, err, errlen, r->pos, "a record of %u bytes runs past the data's end (the file is cut short)",
				    h.size);
		*out = (const struct perf_event_header *)(const void *)(r->map + r->pos);
		r->pos += h.size;
		return 1;
	}
	if ((rc = pdread_pipe_fill(r, sizeof(h), err, errlen)) <= 0) {
		if (rc == 0 && r->plen > r->ppos)
			return pdread_fail(r, err, errlen, r->pbase + r->ppos, "the stream ends inside a record header");
		return rc;
	}
	*off = r->pbase + r->ppos;
	memcpy(&h, r->pbuf + r->ppos, sizeof(h));
	if (h.size < sizeof(h))
		return pdread_fail(r, err, errlen, *off, "a record of size %u (type %u): the stream is corrupt", h.size, h.type);
	if ((rc = pdread_pipe_fill(r, h.size, err, errlen)) < 0)
		return rc;
	if (rc == 0)
		return pdread_fail(r, err, errlen, *off, "a record of %u bytes is cut short (the stream ends inside it)", h.size);
	/* pipe_fill may have moved the buffer: the offset is kept. */
	*out = (const struct perf_event_header *)(const void *)(r->pbuf + r->ppos);
	r->ppos += h.size;
	return 1;
}

