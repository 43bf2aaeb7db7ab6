/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdread's parts, private to the perfdata layer: the sample decoder
 * (pdsample), the features (pdfeat_read), the round queue (pdorder) and
 * zstd (pdzstd). */
#ifndef PERFTOP_PDREAD_INT_H
#define PERFTOP_PDREAD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "htab.h"
#include "pdformat.h"
#include "pdread.h"
#include "record.h"

/* --- pdsample: records of one attr's layout ------------------------------ */

struct pdsample_layout {
	uint64_t sample_type, read_format, regs_user_mask;
	bool sample_id_all, branch_hw_idx;
	bool build_id;               /* attr.build_id: MMAP2s may carry build-ids */
	/* Offsets of the fields ordering needs, -1 when absent: time and id
	 * from a sample's start (after the header), and from the end of
	 * another record's sample_id trailer. */
	int time_at, id_at, trailer_time_from_end, trailer_id_from_end;
	unsigned trailer;            /* bytes of the sample_id trailer */
	/* A sample's fields before the first of variable size, at fixed
	 * offsets from its body (-1: absent), and their bytes. */
	int ip_at, tid_at, cpu_at, period_at;
	unsigned fixed;
	bool tail;                   /* READ, CALLCHAIN, RAW, ... follow them */
	bool ours;                   /* perftop's own layout: record_decode_with */
	struct record_layout lay;    /* for that, and the call-graph bits */
};

void pdsample_layout_init(struct pdsample_layout *l, const struct perf_event_attr *a);
/* A record's time for ordering (false: it has none). */
bool pdsample_time(const struct pdsample_layout *l, const struct perf_event_header *h, uint64_t *t);
/* Its event id (false: none, or the record is too short to hold it). */
bool pdsample_id(const struct pdsample_layout *l, const struct perf_event_header *h, uint64_t *id);
/* Decodes h into out (RECORD_OK, RECORD_IGNORED, RECORD_BAD); scratch (h's
 * size plus 64 bytes) may hold a normalised copy that out points into. */
enum record_status pdsample_decode(const struct pdsample_layout *l, const struct perf_event_header *h,
				   struct record *out, unsigned char *scratch);

/* --- pdfeat_read: the feature sections -------------------------------------- */

struct pdfeat_read_desc {          /* one EVENT_DESC entry */
	char name[PDREAD_NAME_MAX];
	uint64_t first_id;        /* 0: none */
};

struct pdfeat_read {
	struct pdread_info info;
	struct pdread_buildid *bids;
	uint32_t *bid_off;        /* each one's path in the pool */
	size_t nbids, bids_cap;
	char *pool;               /* the build-ids' paths */
	size_t pool_used, pool_cap;
	struct pdfeat_read_desc *descs;
	size_t ndescs;
};

/* Feature bit's body of len bytes; 0 or -1 with err (what was wrong, the
 * caller adds where). Unknown features are skipped. */
int pdfeat_read_parse(struct pdfeat_read *f, unsigned bit, const unsigned char *p, size_t len, char *err, size_t errlen);
void pdfeat_read_free(struct pdfeat_read *f);
/* The build-id entries' paths set from their offsets in the pool (which
 * moves as it grows): after each parse that may have added some. */
void pdfeat_read_finish(struct pdfeat_read *f);

/* --- pdorder: records queued per round, handed on in time order ---------- */

struct pdorder_entry {
	uint64_t time;
	const struct perf_event_header *h;
	uint32_t seq;
	uint32_t attr;
};

struct pdorder {
	struct pdorder_entry *q, *tmp;
	size_t n, cap, next;          /* q[next .. ready) are ready */
	size_t ready;
	uint64_t limit;               /* the previous round's newest time */
	uint64_t newest;              /* newest time queued */
	uint32_t seq;
	bool sorted;                  /* q[next..n) appended in order */
};

int pdorder_grow(struct pdorder *o);

static inline int pdorder_push(struct pdorder *o, const struct perf_event_header *h, uint64_t time, uint32_t attr)
{
	if (o->n == o->cap && pdorder_grow(o) != 0)
		return -1;
	if (o->n > o->ready && time < o->q[o->n - 1].time)
		o->sorted = false;
	o->q[o->n++] = (struct pdorder_entry){ .time = time, .h = h, .seq = o->seq++, .attr = attr };
	if (time > o->newest)
		o->newest = time;
	return 0;
}
/* A round ended (FINISHED_ROUND): what is older than the previous round's
 * newest record becomes ready. At the end (all true): everything. */
int pdorder_round(struct pdorder *o, bool all);
/* The next ready entry, or NULL. */
static inline const struct pdorder_entry *pdorder_pop(struct pdorder *o)
{
	return o->next < o->ready ? &o->q[o->next++] : NULL;
}
/* Queued, not yet ready (what still points into the round's memory). */
static inline size_t pdorder_pending(const struct pdorder *o)
{
	return o->n - o->ready;
}
void pdorder_free(struct pdorder *o);

/* --- pdzstd: PERF_RECORD_COMPRESSED ---------------------------------------- */

struct pdzstd;
/* NULL when this build has no libzstd (*have false) or out of memory. */
struct pdzstd *pdzstd_new(bool *have);
void pdzstd_free(struct pdzstd *z);
/* Decompresses src into *buf (grown as needed, from *len on): 0, or -1
 * with err. */
int pdzstd_run(struct pdzstd *z, const void *src, size_t srclen, unsigned char **buf, size_t *len,
	       size_t *cap, char *err, size_t errlen);

/* --- pdread: the reader's state, shared by its files ------------------------ */

struct pdread_attr {
	struct perf_event_attr attr;
	struct pdsample_layout lay;
	int ev;                 /* sampling index, or -1 */
	uint64_t first_id;
};

/* Memory for records that do not stay where they were read (a pipe's,
 * decompressed ones) until they are handed on: blocks, freed a round later
 * (pdorder: after a round is handed on only its own records wait). */
struct blk {
	struct blk *next;
	size_t used, cap;
	unsigned char data[];
};

struct pdread {
	char name[256];                 /* for messages */
	int fd;
	bool pipe, own_fd;
	const unsigned char *map;       /* the whole file */
	size_t map_len;
	uint64_t pos, data_end;         /* a file's data section, read up to pos */
	uint64_t round_pos[2], dropped; /* where the last two rounds began; pages unmapped below */
	/* A pipe: bytes [ppos, plen) of pbuf are read, not yet taken; pbase
	 * is the stream offset of pbuf[0]. */
	unsigned char *pbuf;
	size_t plen, pcap, ppos;
	uint64_t pbase;
	bool eof;
	struct pdread_attr *attrs;
	size_t nattrs;
	struct pdread_event events[PDREAD_MAX_EVENTS];
	size_t nevents;
	struct htab ids;                /* event id -> attr index + 1 */
	struct pdfeat_read feat;
	struct pdorder ord;
	struct blk *cur, *old;          /* this round's copies, the round before's */
	struct pdzstd *z;
	bool have_zstd, zstd_tried;
	unsigned char *dbuf;            /* decompressed, not yet taken: [dpos, dlen) */
	size_t dlen, dcap, dpos;
	uint64_t doff;                  /* the COMPRESSED record's offset, for messages */
	unsigned char *scratch;
	uint64_t last_time;
	uint64_t nrecords, nsamples;
	bool done, callchains;
};

/* pdread_stream.c: "NAME: at offset OFF: what" into err; returns -1. */
int pdread_fail(struct pdread *r, char *err, size_t errlen, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A pipe's next n bytes at ppos, reading as needed: 1, 0 at the end, -1. */
int pdread_pipe_fill(struct pdread *r, size_t n, char *err, size_t errlen);
/* The next record of the stream and its offset: 1, 0 at the end, -1. */
int pdread_raw_next(struct pdread *r, const struct perf_event_header **out, uint64_t *off, char *err, size_t errlen);

/* pdread_attrs.c: an attr (bytes long, as recorded) and its ids; the id's
 * place checked alike in all; names from EVENT_DESC. */
int pdread_add_attr(struct pdread *r, const void *attr, size_t bytes, const uint64_t *ids, size_t nids,
		    uint64_t off, char *err, size_t errlen);
int pdread_check_attrs(struct pdread *r, char *err, size_t errlen);
void pdread_name_events(struct pdread *r);

#endif
