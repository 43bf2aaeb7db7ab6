/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record.h"

#include <string.h>
#include <sys/mman.h>

/* Non-sample trailer for RECORD_SAMPLE_TYPE: {pid,tid} {time} {cpu,res} {identifier}. */
#define TRAILER_SIZE 32

struct cursor {
	const unsigned char *p, *end;
};

static inline int take(struct cursor *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -1;
	memcpy(dst, c->p, n);
	c->p += n;
	return 0;
}

static int take_u64(struct cursor *c, uint64_t *v) { return take(c, v, 8); }

static int take_u32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint32_t v[2];

	if (take(c, v, 8))
		return -1;
	*a = v[0];
	*b = v[1];
	return 0;
}

/* A string field runs to the trailer; it must be NUL-terminated within it. */
static const char *take_string(struct cursor *c)
{
	const char *s = (const char *)c->p;

	if (c->p >= c->end || memchr(c->p, '\0', (size_t)(c->end - c->p)) == NULL)
		return NULL;
	c->p = c->end;
	return s;
}

static int decode_trailer(const struct perf_event_header *hdr, struct record *out,
			  struct cursor *body)
{
	struct cursor t;
	uint32_t res;

	if (hdr->size < sizeof(*hdr) + TRAILER_SIZE)
		return -1;
	t.p = (const unsigned char *)hdr + hdr->size - TRAILER_SIZE;
	t.end = (const unsigned char *)hdr + hdr->size;
	body->end = t.p;
	if (take_u32x2(&t, &out->sid.pid, &out->sid.tid) || take_u64(&t, &out->sid.time) ||
	    take_u32x2(&t, &out->sid.cpu, &res) || take_u64(&t, &out->sid.id))
		return -1;
	return 0;
}

/* n u64s at the cursor, bounds-checked without overflow; NULL if short. */
static const unsigned char *take_array(struct cursor *c, uint64_t n)
{
	const unsigned char *p = c->p;

	if (n > (uint64_t)(c->end - c->p) / 8)
		return NULL;
	c->p += 8 * n;
	return p;
}

static int decode_callgraph(struct cursor *c, const struct record_layout *lay, struct record *out)
{
	if (lay->extra & PERF_SAMPLE_CALLCHAIN) {
		if (take_u64(c, &out->sample.nr) || (out->sample.ips = take_array(c, out->sample.nr)) == NULL)
			return -1;
	}
	if (lay->extra & PERF_SAMPLE_RAW) {
		uint32_t size;

		/* u32 size, then the data; the kernel pads the two to 8 bytes. */
		if (take(c, &size, 4) || size > (size_t)(c->end - c->p))
			return -1;
		out->sample.raw_size = size;
		out->sample.raw = c->p;
		c->p += size;
	}
	if (lay->extra & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t hw_idx;

		if (take_u64(c, &out->sample.nbranch) || (lay->branch_hw_idx && take_u64(c, &hw_idx)) ||
		    out->sample.nbranch > UINT64_MAX / 3 ||
		    (out->sample.branches = take_array(c, 3 * out->sample.nbranch)) == NULL)
			return -1;
	}
	if (lay->extra & PERF_SAMPLE_REGS_USER) {
		if (take_u64(c, &out->sample.regs_abi))
			return -1;
		/* No user registers (a kernel thread): the ABI word alone. */
		if (out->sample.regs_abi) {
			out->sample.nregs = util_popcount64(lay->regs_user_mask);
			if ((out->sample.regs = take_array(c, out->sample.nregs)) == NULL)
				return -1;
		}
	}
	if (lay->extra & PERF_SAMPLE_STACK_USER) {
		if (take_u64(c, &out->sample.stack_size))
			return -1;
		if (out->sample.stack_size) {
			if (out->sample.stack_size % 8 ||
			    (out->sample.stack = take_array(c, out->sample.stack_size / 8)) == NULL ||
			    take_u64(c, &out->sample.stack_dyn_size) ||
			    out->sample.stack_dyn_size > out->sample.stack_size)
				return -1;
		}
	}
	return 0;
}

_Static_assert(sizeof(struct record_flat) == 48, "sample fields layout");

static int decode_sample(struct cursor *c, const struct record_layout *lay, struct record *out)
{
	struct record_flat h;

	/* One bounds check for the fixed fields (they were six): most samples
	 * are just these. */
	if (lay && lay->period) {
		if (take(c, &h, offsetof(struct record_flat, period)))
			return -1;
		h.period = lay->period;
	} else if (take(c, &h, sizeof(h))) {
		return -1;
	}
	out->sid.id = h.id;
	out->sample.ip = h.ip;
	out->sid.pid = h.pid;
	out->sid.tid = h.tid;
	out->sid.time = h.time;
	out->sid.cpu = h.cpu;
	out->sample.period = h.period;
	return lay && lay->extra ? decode_callgraph(c, lay, out) : 0;
}

static int decode_mmap(struct cursor *c, struct record *out, int v2)
{
	if (take_u32x2(c, &out->mmap.pid, &out->mmap.tid) || take_u64(c, &out->mmap.start) ||
	    take_u64(c, &out->mmap.len) || take_u64(c, &out->mmap.pgoff))
		return -1;
	/* Plain MMAP carries no prot; the kernel only sends it for exec maps. */
	out->mmap.prot = PROT_EXEC;
	if (v2) {
		if (out->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t sz[4];

			if ((size_t)(c->end - c->p) < 24)
				return -1;
			memcpy(sz, c->p, 4);
			out->mmap.build_id_size = sz[0] > 20 ? 20 : sz[0];
			/* No build-id found: the kernel sends the inode form then,
			 * but a zero size must not look like an empty build-id. */
			out->mmap.build_id = out->mmap.build_id_size ? c->p + 4 : NULL;
			c->p += 24;
		} else {
			if (take_u32x2(c, &out->mmap.maj, &out->mmap.min) ||
			    take_u64(c, &out->mmap.ino) || take_u64(c, &out->mmap.ino_generation))
				return -1;
		}
		if (take_u32x2(c, &out->mmap.prot, &out->mmap.flags))
			return -1;
	}
	out->mmap.filename = take_string(c);
	return out->mmap.filename ? 0 : -1;
}

bool record_is_alt(const struct record_layout *lay, uint64_t id)
{
	size_t lo = 0, hi = lay->alt_n ? __atomic_load_n(lay->alt_n, __ATOMIC_ACQUIRE) : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lay->alt_ids[mid] == id)
			return true;
		if (lay->alt_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

enum record_status record_decode(const struct perf_event_header *hdr, struct record *out)
{
	return record_decode_with(hdr, NULL, out);
}

enum record_status record_decode_with(const struct perf_event_header *hdr, const struct record_layout *lay,
				      struct record *out)
{
	struct cursor c = {
		.p = (const unsigned char *)(hdr + 1),
		.end = (const unsigned char *)hdr + hdr->size,
	};
	int bad;

	if (hdr->type == PERF_RECORD_SAMPLE) {
		/* A sample sets every field it has; zeroing the whole struct
		 * (a rep stos) was half of decoding one. */
		out->type = hdr->type;
		out->misc = hdr->misc;
		out->sample.nr = out->sample.nbranch = out->sample.regs_abi = out->sample.nregs = 0;
		out->sample.stack_size = out->sample.stack_dyn_size = 0;
		out->sample.ips = out->sample.branches = out->sample.regs = out->sample.stack = NULL;
		out->sample.raw_size = 0;
		out->sample.raw = NULL;
		if (hdr->size < sizeof(*hdr))
			return RECORD_BAD;
		if (lay && lay->alt && hdr->size >= sizeof(*hdr) + 8) {
			uint64_t id;

			memcpy(&id, hdr + 1, 8);
			if (record_is_alt(lay, id))
				lay = lay->alt;
		}
		return decode_sample(&c, lay, out) ? RECORD_BAD : RECORD_OK;
	}
	memset(out, 0, sizeof(*out));
	out->type = hdr->type;
	out->misc = hdr->misc;
	if (hdr->size < sizeof(*hdr))
		return RECORD_BAD;

	switch (hdr->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_SWITCH:
		break;
	default:
		return RECORD_IGNORED;
	}
	if (decode_trailer(hdr, out, &c))
		return RECORD_BAD;

	switch (hdr->type) {
	case PERF_RECORD_MMAP:
		bad = decode_mmap(&c, out, 0);
		break;
	case PERF_RECORD_MMAP2:
		bad = decode_mmap(&c, out, 1);
		break;
	case PERF_RECORD_COMM:
		bad = take_u32x2(&c, &out->comm.pid, &out->comm.tid);
		if (!bad) {
			out->comm.comm = take_string(&c);
			bad = out->comm.comm == NULL;
		}
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		bad = take_u32x2(&c, &out->task.pid, &out->task.ppid) ||
		      take_u32x2(&c, &out->task.tid, &out->task.ptid) ||
		      take_u64(&c, &out->task.time);
		break;
	case PERF_RECORD_LOST:
		bad = take_u64(&c, &out->lost.id) || take_u64(&c, &out->lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		bad = take_u64(&c, &out->lost_samples.lost);
		break;
	case PERF_RECORD_SWITCH:
		bad = 0; /* the trailer is all: who, when, in or out (misc) */
		break;
	default: /* THROTTLE, UNTHROTTLE */
		bad = take_u64(&c, &out->throttle.time) || take_u64(&c, &out->throttle.id);
		break;
	}
	return bad ? RECORD_BAD : RECORD_OK;
}

size_t record_cut_stack(const struct perf_event_header *hdr, const struct record *r, uint64_t max_keep,
			struct record_piece *pieces, uint64_t fix[3])
{
	const unsigned char *base = (const unsigned char *)hdr;
	uint64_t dyn = r->sample.stack_dyn_size, keep;
	size_t size_at;
	struct perf_event_header nh = *hdr;

	pieces[0] = (struct record_piece){ hdr, hdr->size };
	if (r->type != PERF_RECORD_SAMPLE || r->sample.stack == NULL)
		return 1;
	if (dyn > max_keep)
		dyn = max_keep;
	keep = (dyn + 7) & ~7ull;
	if (keep >= r->sample.stack_size)
		return 1;
	/* The copy is the record's last field: size, data, dyn_size. */
	size_at = (size_t)(r->sample.stack - base) - 8;
	nh.size = (uint16_t)(size_at + 8 + (keep ? keep + 8 : 0));
	memcpy(&fix[0], &nh, 8);
	fix[1] = keep;
	fix[2] = dyn;
	pieces[0] = (struct record_piece){ &fix[0], 8 };
	pieces[1] = (struct record_piece){ base + 8, size_at - 8 };
	pieces[2] = (struct record_piece){ &fix[1], 8 };
	if (keep == 0) /* no data, and then no dyn_size either, as the kernel writes it */
		return 3;
	pieces[3] = (struct record_piece){ r->sample.stack, (size_t)keep };
	pieces[4] = (struct record_piece){ &fix[2], 8 };
	return 5;
}
