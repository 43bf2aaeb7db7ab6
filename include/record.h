/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record: decode one ring record into a flat struct. Only the sample layout
 * perftop asks for (RECORD_SAMPLE_TYPE, sample_id_all) is understood. */
#ifndef PERFTOP_RECORD_H
#define PERFTOP_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

#define RECORD_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* The fields every sample has, in the kernel's order (RECORD_SAMPLE_TYPE:
 * IDENTIFIER, IP, TID, TIME, CPU, PERIOD); a flat sample is these alone. */
struct record_flat {
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t period;
};

/* What a call-graph run adds after RECORD_SAMPLE_TYPE's fields, in the
 * kernel's order: CALLCHAIN, BRANCH_STACK (call-stack LBR), REGS_USER,
 * STACK_USER. Every sampling event of a run shares one layout. */
#define RECORD_CALLGRAPH_BITS (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK | \
	PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* extra may also hold PERF_SAMPLE_RAW (after CALLCHAIN, in the kernel's
 * order): the --off-cpu tracepoint's layout. */

struct record_layout {
	uint64_t extra;            /* RECORD_CALLGRAPH_BITS in use */
	uint64_t regs_user_mask;   /* attr.sample_regs_user */
	int branch_hw_idx;         /* attr.branch_sample_type has PERF_SAMPLE_BRANCH_HW_INDEX */
	/* 0: samples carry their PERF_SAMPLE_PERIOD. Else the fixed period
	 * (-c) every sample has, left out of the records: with the bit a
	 * software event or tracepoint of fixed period is sampled at every
	 * hit (the kernel's perf_swevent_event), as perf record -c leaves it
	 * out too. */
	uint64_t period;
	/* --off-cpu: samples whose id is one of alt_ids[0 .. *alt_n)
	 * (ascending: the kernel numbers events in the order they open, and
	 * the list is only appended to) are laid out as *alt, another event's
	 * in the same rings. *alt_n is read atomically. */
	const struct record_layout *alt;
	const uint64_t *alt_ids;
	const size_t *alt_n;
};


/* The sample_id trailer of non-sample records (and the same fields of a sample). */
struct record_id {
	uint64_t id, time;
	uint32_t pid, tid, cpu;
};

struct record {
	uint32_t type;
	uint16_t misc;
	struct record_id sid;
	union {
		struct {
			uint64_t ip, period;
			/* Call-graph parts (0/NULL when not asked for). The arrays
			 * point into the record and may be unaligned: read them
			 * with record_u64(). */
			uint64_t nr;                  /* callchain entries; from PERF_CONTEXT_MAX up: markers */
			const unsigned char *ips;
			uint64_t nbranch;             /* branch entries: from, to, flags */
			const unsigned char *branches;
			uint64_t regs_abi;            /* PERF_SAMPLE_REGS_ABI_*; 0: none */
			uint64_t nregs;
			const unsigned char *regs;
			uint64_t stack_size;          /* bytes copied; valid ones: dyn_size */
			const unsigned char *stack;
			uint64_t stack_dyn_size;
			uint32_t raw_size;            /* PERF_SAMPLE_RAW: a tracepoint's fields */
			const unsigned char *raw;
		} sample;
		struct {
			uint32_t pid, tid;
			uint64_t start, len, pgoff, ino, ino_generation;
			uint32_t maj, min, prot, flags;
			uint8_t build_id_size;
			const uint8_t *build_id;   /* misc & PERF_RECORD_MISC_MMAP_BUILD_ID */
			const char *filename;      /* NUL-terminated inside the record */
		} mmap;
		struct { uint32_t pid, tid; const char *comm; } comm;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } task; /* FORK, EXIT */
		struct { uint64_t id, lost; } lost;        /* LOST: id is the event's */
		struct { uint64_t lost; } lost_samples;    /* LOST_SAMPLES: id in sid */
		struct { uint64_t time, id; } throttle;    /* THROTTLE, UNTHROTTLE */
	};
};

enum record_status {
	RECORD_OK = 0,
	RECORD_IGNORED = 1,   /* a type perftop does not use */
	RECORD_BAD = -1,      /* shorter than its type needs, or an unterminated string */
};

/* hdr's fields when it is a flat sample (no call-graph layout, nothing
 * after the fixed fields): true. Else false: record_decode_with it. The
 * drain's shortcut for most samples; the same fields as decoding gives. */
static inline bool record_flat(const struct perf_event_header *hdr, const struct record_layout *lay,
			       struct record_flat *out)
{
	if (hdr->type != PERF_RECORD_SAMPLE || (lay && lay->extra))
		return false;
	if (lay && lay->period) {
		if (hdr->size != sizeof(*hdr) + offsetof(struct record_flat, period))
			return false;
		memcpy(out, hdr + 1, offsetof(struct record_flat, period));
		out->period = lay->period;
		return true;
	}
	if (hdr->size != sizeof(*hdr) + sizeof(*out))
		return false;
	memcpy(out, hdr + 1, sizeof(*out));
	return true;
}

/* Whether a sample of this id is laid out as lay->alt. */
bool record_is_alt(const struct record_layout *lay, uint64_t id);

/* Pointers in *out point into hdr's memory. */
enum record_status record_decode(const struct perf_event_header *hdr, struct record *out);
/* The same for samples with a call-graph layout (NULL: none). */
enum record_status record_decode_with(const struct perf_event_header *hdr, const struct record_layout *lay,
				      struct record *out);

/* A sample's stack copy holds stack_size bytes of which only dyn_size are
 * valid (the rest is what the ring held before), and an unwinder reads only
 * the first few hundred of them: the record's pieces with the copy cut to
 * dyn_size or max_keep bytes, whichever is less (rounded up to 8), the
 * header, size and dyn_size patched in fix[]. r is hdr decoded; a record
 * that is not a sample with a stack copy is one piece, itself. Returns the
 * number of pieces (at most 5). */
struct record_piece {
	const void *p;
	size_t len;
};
size_t record_cut_stack(const struct perf_event_header *hdr, const struct record *r, uint64_t max_keep,
			struct record_piece *pieces, uint64_t fix[3]);

/* Element i of one of the record's u64 arrays. */
static inline uint64_t record_u64(const unsigned char *arr, uint64_t i)
{
	uint64_t v;

	__builtin_memcpy(&v, arr + 8 * i, 8);
	return v;
}

/* A user register of the sample by perf number, the block being laid out
 * by mask (the attr's sample_regs_user): its index among the mask's bits. */
static inline bool record_user_reg(const struct record *r, uint64_t mask, int perf_reg, uint64_t *out)
{
	uint64_t idx;

	if (!(mask & (1ull << perf_reg)))
		return false;
	idx = util_popcount64(mask & ((1ull << perf_reg) - 1));
	if (idx >= r->sample.nregs)
		return false;
	*out = record_u64(r->sample.regs, idx);
	return true;
}

#endif
