/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdzstd: perf record -z's PERF_RECORD_COMPRESSED bodies, zstd frames of
 * records, decompressed with one stream for the whole file (a record may
 * run on from one body into the next: the caller keeps the rest). */
#include "pdread_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef PERFTOP_HAVE_ZSTD
#include <zstd.h>

struct pdzstd {
	ZSTD_DStream *ds;
};

struct pdzstd *pdzstd_new(bool *have)
{
	struct pdzstd *z = calloc(1, sizeof(*z));

	*have = true;
	if (z == NULL || (z->ds = ZSTD_createDStream()) == NULL || ZSTD_isError(ZSTD_initDStream(z->ds))) {
		pdzstd_free(z);
		return NULL;
	}
	return z;
}

void pdzstd_free(struct pdzstd *z)
{
	if (z == NULL)
		return;
	if (z->ds)
		ZSTD_freeDStream(z->ds);
	free(z);
}

int pdzstd_run(struct pdzstd *z, const void *src, size_t srclen, unsigned char **buf, size_t *len,
	       size_t *cap, char *err, size_t errlen)
{
	ZSTD_inBuffer in = { src, srclen, 0 };

	for (;;) {
		ZSTD_outBuffer out;
		size_t rc, was = in.pos;

		if (*cap - *len < 65536) {
			size_t ncap = *cap ? *cap * 2 : 1 << 17;
			unsigned char *nb = realloc(*buf, ncap);

			if (nb == NULL) {
				snprintf(err, errlen, "out of memory decompressing");
				return -1;
			}
			*buf = nb;
			*cap = ncap;
		}
		out = (ZSTD_outBuffer){ *buf + *len, *cap - *len, 0 };
		rc = ZSTD_decompressStream(z->ds, &out, &in);
		if (ZSTD_isError(rc)) {
			snprintf(err, errlen, "bad zstd data: %s", ZSTD_getErrorName(rc));
			return -1;
		}
		*len += out.pos;
		/* All taken in, and the output had room left: nothing held back. */
		if (in.pos >= in.size && out.pos < out.size)
			break;
		if (out.pos == 0 && in.pos == was) {
			snprintf(err, errlen, "bad zstd data: it makes no progress");
			return -1;
		}
	}
	return 0;
}

#else

struct pdzstd *pdzstd_new(bool *have)
{
	*have = false;
	return NULL;
}

void pdzstd_free(struct pdzstd *z)
{
	(void)z;
}

int pdzstd_run(struct pdzstd *z, const void *src, size_t srclen, unsigned char **buf, size_t *len,
	       size_t *cap, char *err, size_t errlen)
{
	snprintf(err, errlen, "zstd-compressed records, and this perftop was built without libzstd");
	return -1;
}

#endif
