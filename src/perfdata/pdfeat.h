/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdfeat: the bodies of perf.data's feature sections (the same bytes in a
 * file's section and in a pipe's HEADER_FEATURE record), and the growable
 * buffer they are built in. Private to the perfdata layer. */
#ifndef PERFTOP_PDFEAT_H
#define PERFTOP_PDFEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdformat.h"
#include "pdwrite.h"

struct pdfeat_buf {
	unsigned char *p;
	size_t len, cap;
	bool oom;          /* a put failed: the buffer is not whole */
};

void pdfeat_put(struct pdfeat_buf *b, const void *p, size_t n);
void pdfeat_u32(struct pdfeat_buf *b, uint32_t v);
void pdfeat_u64(struct pdfeat_buf *b, uint64_t v);
/* A perf_header_string: u32 padded length, the string, NULs to it. */
void pdfeat_str(struct pdfeat_buf *b, const char *s);
void pdfeat_free(struct pdfeat_buf *b);

/* One event as the writer holds it. */
struct pdfeat_event {
	struct perf_event_attr attr; /* attr.size: the bytes written of it */
	char name[64];
	uint64_t *ids;
	size_t nids, cap;
	size_t nsent;      /* a pipe: ids already in a HEADER_ATTR */
	uint64_t ids_off;  /* a file: where its ids lie */
};

struct pdfeat_bid {
	char *path;
	uint8_t id[PDF_BUILD_ID_MAX];
	uint8_t len;
	bool kernel;
};

/* What the features are built from. */
struct pdfeat_ctx {
	const struct pdwrite_info *info;
	const struct pdfeat_event *ev;
	size_t nev;
	const struct pdfeat_bid *bid;
	size_t nbid;
	uint64_t first, last; /* sample times; first 0: none */
};

/* Appends feature feat's body to b: 0, -ENOENT when there is nothing to
 * say (a file unreadable here: the feature is left out), -ENOMEM. */
int pdfeat_build(struct pdfeat_buf *b, int feat, const struct pdfeat_ctx *c);

/* One HEADER_BUILD_ID body entry (also a pipe's HEADER_BUILD_ID record). */
void pdfeat_build_id(struct pdfeat_buf *b, const struct pdfeat_bid *e, uint16_t type);

#endif
