/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdfeat_read: the feature sections perftop uses (build-ids, event names,
 * the machine's description, CPUs, times, compression), each checked
 * against its length: a section is foreign input. */
#include "pdread_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct fcur {
	const unsigned char *p, *end;
};

static bool take(struct fcur *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(dst, c->p, n);
	c->p += n;
	return true;
}

/* u32 len, then len bytes holding a NUL-terminated string. */
static bool take_str(struct fcur *c, char *dst, size_t dstlen)
{
	uint32_t len;
	const char *s;
	size_t n;

	if (!take(c, &len, 4) || len > (size_t)(c->end - c->p))
		return false;
	s = (const char *)c->p;
	n = strnlen(s, len);
	c->p += len;
	if (dst && dstlen) {
		if (n >= dstlen)
			n = dstlen - 1;
		memcpy(dst, s, n);
		dst[n] = '\0';
	}
	return true;
}

static int bad(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -1;
}

static int build_ids(struct pdfeat_read *f, struct fcur *c, char *err, size_t errlen)
{
	while (c->p < c->end) {
		struct pdformat_build_id b;
		struct pdread_buildid *e;
		const char *name;
		size_t namelen;
		uint32_t off;

		if ((size_t)(c->end - c->p) < sizeof(b))
			return bad(err, errlen, "a build-id entry is cut short");
		memcpy(&b, c->p, sizeof(b));
		if (b.header.size < sizeof(b) || b.header.size > (size_t)(c->end - c->p))
			return bad(err, errlen, "a build-id entry's size is wrong");
		name = (const char *)c->p + sizeof(b);
		namelen = strnlen(name, b.header.size - sizeof(b));
		c->p += b.header.size;
		if (f->nbids == f->bids_cap) {
			size_t cap = f->bids_cap ? f->bids_cap * 2 : 32;
			struct pdread_buildid *nb = reallocarray(f->bids, cap, sizeof(*nb));
			uint32_t *no;

			if (nb == NULL)
				return bad(err, errlen, "out of memory");
			f->bids = nb;
			if ((no = reallocarray(f->bid_off, cap, sizeof(*no))) == NULL)
				return bad(err, errlen, "out of memory");
			f->bid_off = no;
			f->bids_cap = cap;
		}
		if (util_pool_put(&f->pool, &f->pool_used, &f->pool_cap, 4096, name, namelen, &off) != 0)
			return bad(err, errlen, "out of memory");
		e = &f->bids[f->nbids++];
		memset(e, 0, sizeof(*e));
		f->bid_off[f->nbids - 1] = off; /* the pool may move: pdfeat_read_finish sets path */
		memcpy(e->id, b.build_id, PDF_BUILD_ID_MAX);
		e->len = b.header.misc & PDF_MISC_BUILD_ID_SIZE ? b.size : PDF_BUILD_ID_MAX;
		if (e->len > PDF_BUILD_ID_MAX)
			e->len = PDF_BUILD_ID_MAX;
		/* Without the size, an id shorter than 20 bytes is zero-padded. */
		if (!(b.header.misc & PDF_MISC_BUILD_ID_SIZE))
			while (e->len > 0 && e->id[e->len - 1] == 0)
				e->len--;
		e->kernel = (b.header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
			    (b.header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
		e->pid = b.pid;
	}
	return 0;
}

static int event_desc(struct pdfeat_read *f, struct fcur *c, char *err, size_t errlen)
{
	uint32_t nr, attr_size;

	if (!take(c, &nr, 4) || !take(c, &attr_size, 4))
		return bad(err, errlen, "the event descriptions are cut short");
	if (nr > 4096 || attr_size < PERF_ATTR_SIZE_VER0 || attr_size > 4096)
		return bad(err, errlen, "the event descriptions' sizes are wrong");
	free(f->descs);
	f->ndescs = 0;
	if ((f->descs = calloc(nr ? nr : 1, sizeof(*f->descs))) == NULL)
		return bad(err, errlen, "out of memory");
	for (uint32_t i = 0; i < nr; i++) {
		struct pdfeat_read_desc *d = &f->descs[i];
		uint32_t nids;

		if ((size_t)(c->end - c->p) < attr_size)
			return bad(err, errlen, "an event description is cut short");
		c->p += attr_size;
		if (!take(c, &nids, 4) || !take_str(c, d->name, sizeof(d->name)) ||
		    nids > (size_t)(c->end - c->p) / 8)
			return bad(err, errlen, "an event description is cut short");
		if (nids)
			memcpy(&d->first_id, c->p, 8);
		c->p += 8 * (size_t)nids;
		f->ndescs++;
	}
	return 0;
}

static int cmdline(struct pdfeat_read *f, struct fcur *c, char *err, size_t errlen)
{
	uint32_t nr;
	size_t used = 0;

	if (!take(c, &nr, 4))
		return bad(err, errlen, "the command line is cut short");
	f->info.cmdline[0] = '\0';
	for (uint32_t i = 0; i < nr; i++) {
		char arg[256];

		if (!take_str(c, arg, sizeof(arg)))
			return bad(err, errlen, "the command line is cut short");
		if (used < sizeof(f->info.cmdline))
			used += (size_t)snprintf(f->info.cmdline + used, sizeof(f->info.cmdline) - used, "%s%s",
						 i ? " " : "", arg);
	}
	return 0;
}

int pdfeat_read_parse(struct pdfeat_read *f, unsigned bit, const unsigned char *p, size_t len, char *err, size_t errlen)
{
	struct fcur c = { p, p + len };
	struct pdread_info *in = &f->info;
	uint32_t u[5];
	uint64_t v[2];
	char *str = NULL;
	size_t slen = 0;

	switch (bit) {
	case PDF_FEAT_BUILD_ID:
		return build_ids(f, &c, err, errlen);
	case PDF_FEAT_EVENT_DESC:
		return event_desc(f, &c, err, errlen);
	case PDF_FEAT_CMDLINE:
		return cmdline(f, &c, err, errlen);
	case PDF_FEAT_HOSTNAME:
		str = in->hostname, slen = sizeof(in->hostname);
		break;
	case PDF_FEAT_OSRELEASE:
		str = in->osrelease, slen = sizeof(in->osrelease);
		break;
	case PDF_FEAT_VERSION:
		str = in->version, slen = sizeof(in->version);
		break;
	case PDF_FEAT_ARCH:
		str = in->arch, slen = sizeof(in->arch);
		break;
	case PDF_FEAT_CPUDESC:
		str = in->cpudesc, slen = sizeof(in->cpudesc);
		break;
	case PDF_FEAT_CPUID:
		str = in->cpuid, slen = sizeof(in->cpuid);
		break;
	case PDF_FEAT_NRCPUS:
		if (!take(&c, u, 8))
			return bad(err, errlen, "the CPU count is cut short");
		in->nr_cpus_avail = u[0];
		in->nr_cpus_online = u[1];
		return 0;
	case PDF_FEAT_TOTAL_MEM:
		return take(&c, &in->total_mem_kb, 8) ? 0 : bad(err, errlen, "the memory size is cut short");
	case PDF_FEAT_CLOCKID:
		return take(&c, &in->clock_res_ns, 8) ? 0 : bad(err, errlen, "the clock's resolution is cut short");
	case PDF_FEAT_SAMPLE_TIME:
		if (!take(&c, v, 16))
			return bad(err, errlen, "the sample times are cut short");
		in->first_sample = v[0];
		in->last_sample = v[1];
		return 0;
	case PDF_FEAT_COMPRESSED:
		if (!take(&c, u, 20))
			return bad(err, errlen, "the compression header is cut short");
		in->comp_type = u[1];
		in->comp_level = u[2];
		return 0;
	default:
		return 0;
	}
	return take_str(&c, str, slen) ? 0 : bad(err, errlen, "a string is cut short");
}

void pdfeat_read_finish(struct pdfeat_read *f)
{
	for (size_t i = 0; i < f->nbids; i++)
		f->bids[i].path = f->pool + f->bid_off[i];
}

void pdfeat_read_free(struct pdfeat_read *f)
{
	free(f->bids);
	free(f->bid_off);
	free(f->pool);
	free(f->descs);
	memset(f, 0, sizeof(*f));
}
