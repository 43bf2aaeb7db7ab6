/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdsample: one record of a perf.data file decoded by its attr's layout.
 * perftop's own layout goes straight to record.c; perf record's (any
 * sample_type) is read field by field here, and its other records are
 * given our sample_id trailer so that record.c decodes their bodies. */
#include "pdread_int.h"

#include <string.h>

#define TRAILER_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		      PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
/* record.c's trailer: {pid,tid} {time} {cpu,res} {identifier}. */
#define OUR_TRAILER (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define OUR_TRAILER_SIZE 32

void pdsample_layout_init(struct pdsample_layout *l, const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type, flat = st & ~(uint64_t)RECORD_CALLGRAPH_BITS;
	int at = 0, pos = 0;

	memset(l, 0, sizeof(*l));
	l->sample_type = st;
	l->read_format = a->read_format;
	l->regs_user_mask = a->sample_regs_user;
	l->sample_id_all = a->sample_id_all;
	l->build_id = a->build_id;
	l->branch_hw_idx = (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0;
	l->lay.extra = st & RECORD_CALLGRAPH_BITS;
	l->lay.regs_user_mask = a->sample_regs_user;
	l->lay.branch_hw_idx = l->branch_hw_idx;
	/* Without PERIOD every sample weighs the attr's period (perf report's
	 * rule); a frequency without PERIOD cannot be weighed: 1 each. */
	if (!(st & PERF_SAMPLE_PERIOD))
		l->lay.period = a->freq || a->sample_period == 0 ? 1 : a->sample_period;
	l->ours = flat == RECORD_SAMPLE_TYPE || flat == (RECORD_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_PERIOD);

	/* A sample: IDENTIFIER, IP, TID, TIME, ADDR, ID, ... */
	l->time_at = l->id_at = -1;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		l->id_at = 0;
		at += 8;
	}
	at += st & PERF_SAMPLE_IP ? 8 : 0;
	at += st & PERF_SAMPLE_TID ? 8 : 0;
	if (st & PERF_SAMPLE_TIME) {
		l->time_at = at;
		at += 8;
	}
	at += st & PERF_SAMPLE_ADDR ? 8 : 0;
	if ((st & PERF_SAMPLE_ID) && l->id_at < 0)
		l->id_at = at;

	at = 0;
	l->ip_at = l->tid_at = l->cpu_at = l->period_at = -1;
	at += st & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
	if (st & PERF_SAMPLE_IP) {
		l->ip_at = at;
		at += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		l->tid_at = at;
		at += 8;
	}
	at += st & PERF_SAMPLE_TIME ? 8 : 0;
	at += st & PERF_SAMPLE_ADDR ? 8 : 0;
	at += st & PERF_SAMPLE_ID ? 8 : 0;
	at += st & PERF_SAMPLE_STREAM_ID ? 8 : 0;
	if (st & PERF_SAMPLE_CPU) {
		l->cpu_at = at;
		at += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		l->period_at = at;
		at += 8;
	}
	l->fixed = (unsigned)at;
	l->tail = (st & (PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) != 0;

	/* The trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
	l->trailer_time_from_end = l->trailer_id_from_end = -1;
	if (!l->sample_id_all)
		return;
	l->trailer = 8 * util_popcount64(st & TRAILER_BITS);
	pos += st & PERF_SAMPLE_TID ? 8 : 0;
	if (st & PERF_SAMPLE_TIME) {
		l->trailer_time_from_end = (int)l->trailer - pos;
		pos += 8;
	}
	if (st & PERF_SAMPLE_ID)
		l->trailer_id_from_end = (int)l->trailer - pos;
	if (st & PERF_SAMPLE_IDENTIFIER)
		l->trailer_id_from_end = 8;
}

static inline bool u64_at(const struct perf_event_header *h, size_t off, uint64_t *v)
{
	if (off + 8 > h->size)
		return false;
	memcpy(v, (const unsigned char *)h + off, 8);
	return true;
}

bool pdsample_time(const struct pdsample_layout *l, const struct perf_event_header *h, uint64_t *t)
{
	if (h->type == PERF_RECORD_SAMPLE)
		return l->time_at >= 0 && u64_at(h, sizeof(*h) + (size_t)l->time_at, t);
	if (h->type >= PDF_RECORD_USER_TYPE_START || l->trailer_time_from_end < 0 ||
	    h->size < sizeof(*h) + l->trailer)
		return false;
	return u64_at(h, h->size - (size_t)l->trailer_time_from_end, t);
}

bool pdsample_id(const struct pdsample_layout *l, const struct perf_event_header *h, uint64_t *id)
{
	if (h->type == PERF_RECORD_SAMPLE)
		return l->id_at >= 0 && u64_at(h, sizeof(*h) + (size_t)l->id_at, id);
	if (h->type >= PDF_RECORD_USER_TYPE_START || l->trailer_id_from_end < 0 ||
	    h->size < sizeof(*h) + l->trailer)
		return false;
	return u64_at(h, h->size - (size_t)l->trailer_id_from_end, id);
}

struct cur {
	const unsigned char *p, *end;
};

static inline bool take(struct cur *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(dst, c->p, n);
	c->p += n;
	return true;
}

static inline bool skip(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return false;
	c->p += n;
	return true;
}

/* n u64s in place (read with record_u64), or NULL when short. */
static const unsigned char *array(struct cur *c, uint64_t n)
{
	const unsigned char *p = c->p;

	if (n > (uint64_t)(c->end - c->p) / 8)
		return NULL;
	c->p += 8 * n;
	return p;
}

static uint64_t read_size(const struct pdsample_layout *l, struct cur *c, bool *ok)
{
	uint64_t rf = l->read_format, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST), nr = 1;
	uint64_t head = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	*ok = true;
	if (rf & PERF_FORMAT_GROUP) {
		if (!take(c, &nr, 8) || nr > 4096) {
			*ok = false;
			return 0;
		}
	}
	return 8 * (head + nr * per);
}

static bool decode_tail(const struct pdsample_layout *l, struct cur *c, struct record *out)
{
	uint64_t st = l->sample_type, v;
	bool ok;

	if ((st & PERF_SAMPLE_READ) && (!(v = read_size(l, c, &ok), ok) || !skip(c, v)))
		return false;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!take(c, &out->sample.nr, 8) || (out->sample.ips = array(c, out->sample.nr)) == NULL)
			return false;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t sz;

		if (!take(c, &sz, 4) || !skip(c, sz))
			return false;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (!take(c, &out->sample.nbranch, 8) || (l->branch_hw_idx && !skip(c, 8)) ||
		    out->sample.nbranch > UINT64_MAX / 3 ||
		    (out->sample.branches = array(c, 3 * out->sample.nbranch)) == NULL)
			return false;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (!take(c, &out->sample.regs_abi, 8))
			return false;
		if (out->sample.regs_abi) {
			out->sample.nregs = util_popcount64(l->regs_user_mask);
			if ((out->sample.regs = array(c, out->sample.nregs)) == NULL)
				return false;
		}
	}
	if ((st & PERF_SAMPLE_STACK_USER) && take(c, &out->sample.stack_size, 8) && out->sample.stack_size) {
		if (out->sample.stack_size % 8 || (out->sample.stack = array(c, out->sample.stack_size / 8)) == NULL ||
		    !take(c, &out->sample.stack_dyn_size, 8) || out->sample.stack_dyn_size > out->sample.stack_size)
			return false;
	}
	return true;
}

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Any sample_type: the fixed fields by their offsets after one bounds
 * check, then those of variable size in the kernel's order. */
static enum record_status decode_sample(const struct pdsample_layout *l, const struct perf_event_header *h,
					struct record *out)
{
	const unsigned char *b = (const unsigned char *)(h + 1);
	struct cur c = { b + l->fixed, (const unsigned char *)h + h->size };

	if (h->size < sizeof(*h) + l->fixed)
		return RECORD_BAD;
	/* Every field a sample has set, not the whole struct (a memset was a
	 * fifth of reading one). */
	out->type = h->type;
	out->misc = h->misc;
	out->sid.id = l->id_at >= 0 ? load64(b + l->id_at) : 0;
	out->sid.time = l->time_at >= 0 ? load64(b + l->time_at) : 0;
	out->sample.ip = l->ip_at >= 0 ? load64(b + l->ip_at) : 0;
	out->sample.period = l->period_at >= 0 ? load64(b + l->period_at) : l->lay.period;
	if (l->tid_at >= 0) {
		memcpy(&out->sid.pid, b + l->tid_at, 4);
		memcpy(&out->sid.tid, b + l->tid_at + 4, 4);
	} else {
		out->sid.pid = out->sid.tid = 0;
	}
	if (l->cpu_at >= 0)
		memcpy(&out->sid.cpu, b + l->cpu_at, 4);
	else
		out->sid.cpu = UINT32_MAX; /* not recorded: no CPU row */
	out->sample.nr = out->sample.nbranch = out->sample.regs_abi = out->sample.nregs = 0;
	out->sample.stack_size = out->sample.stack_dyn_size = 0;
	out->sample.ips = out->sample.branches = out->sample.regs = out->sample.stack = NULL;
	return !l->tail || decode_tail(l, &c, out) ? RECORD_OK : RECORD_BAD;
}

/* The trailer's fields, wherever the layout puts them. */
static bool read_trailer(const struct pdsample_layout *l, const struct perf_event_header *h, struct record_id *sid)
{
	struct cur c;
	uint64_t st = l->sample_type;
	uint32_t res;

	memset(sid, 0, sizeof(*sid));
	sid->cpu = UINT32_MAX;
	if (!l->sample_id_all)
		return true;
	if (h->size < sizeof(*h) + l->trailer)
		return false;
	c.p = (const unsigned char *)h + h->size - l->trailer;
	c.end = (const unsigned char *)h + h->size;
	return (!(st & PERF_SAMPLE_TID) || (take(&c, &sid->pid, 4) && take(&c, &sid->tid, 4))) &&
	       (!(st & PERF_SAMPLE_TIME) || take(&c, &sid->time, 8)) &&
	       (!(st & PERF_SAMPLE_ID) || take(&c, &sid->id, 8)) &&
	       (!(st & PERF_SAMPLE_STREAM_ID) || skip(&c, 8)) &&
	       (!(st & PERF_SAMPLE_CPU) || (take(&c, &sid->cpu, 4) && take(&c, &res, 4))) &&
	       (!(st & PERF_SAMPLE_IDENTIFIER) || take(&c, &sid->id, 8));
}

static bool body_type(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return true;
	default:
		return false;
	}
}

enum record_status pdsample_decode(const struct pdsample_layout *l, const struct perf_event_header *h,
				   struct record *out, unsigned char *scratch)
{
	struct perf_event_header nh;
	struct record_id sid;
	size_t body;
	uint32_t cpu_res[2];
	bool bogus_bid;

	if (h->type == PERF_RECORD_SAMPLE)
		return l->ours ? record_decode_with(h, &l->lay, out) : decode_sample(l, h, out);
	if (!body_type(h->type))
		return RECORD_IGNORED;
	/* The build-id flag of an MMAP2 whose attr asked for none is not
	 * believed: a kernel here sets that bit (1 << 14) on inode-form
	 * records, which even perf 6.1 trips over. */
	bogus_bid = h->type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && !l->build_id;
	if (l->sample_id_all && (l->sample_type & TRAILER_BITS) == OUR_TRAILER && !bogus_bid)
		return record_decode(h, out);
	/* Our trailer in place of the file's, then record.c reads the body. */
	if (!read_trailer(l, h, &sid))
		return RECORD_BAD;
	body = h->size - sizeof(*h) - l->trailer;
	nh = *h;
	nh.size = (uint16_t)(sizeof(nh) + body + OUR_TRAILER_SIZE);
	if (bogus_bid)
		nh.misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
	if (sizeof(nh) + body + OUR_TRAILER_SIZE > UINT16_MAX)
		return RECORD_BAD;
	memcpy(scratch, &nh, sizeof(nh));
	memcpy(scratch + sizeof(nh), h + 1, body);
	cpu_res[0] = sid.cpu;
	cpu_res[1] = 0;
	memcpy(scratch + sizeof(nh) + body, &sid.pid, 4);
	memcpy(scratch + sizeof(nh) + body + 4, &sid.tid, 4);
	memcpy(scratch + sizeof(nh) + body + 8, &sid.time, 8);
	memcpy(scratch + sizeof(nh) + body + 16, cpu_res, 8);
	memcpy(scratch + sizeof(nh) + body + 24, &sid.id, 8);
	return record_decode((const struct perf_event_header *)scratch, out);
}
