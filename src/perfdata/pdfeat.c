/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdfeat: feature section bodies, as perf's header.c reads them: strings
 * padded to 64 bytes, NRCPUS as (present, online), TOTAL_MEM in kB,
 * CLOCKID as the clock's resolution in ns. */
#include "pdfeat.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

void pdfeat_put(struct pdfeat_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *q;

		while (cap < b->len + n)
			cap *= 2;
		if ((q = realloc(b->p, cap)) == NULL) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

void pdfeat_u32(struct pdfeat_buf *b, uint32_t v) { pdfeat_put(b, &v, sizeof(v)); }
void pdfeat_u64(struct pdfeat_buf *b, uint64_t v) { pdfeat_put(b, &v, sizeof(v)); }

void pdfeat_str(struct pdfeat_buf *b, const char *s)
{
	static const char zero[PDF_NAME_ALIGN];
	size_t n = strlen(s);
	uint32_t len = pdformat_str_len(n);

	pdfeat_u32(b, len);
	pdfeat_put(b, s, n);
	pdfeat_put(b, zero, len - n);
}

void pdfeat_free(struct pdfeat_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* A whole small file (/proc's), NUL-terminated; 0 or -errno. */
static int slurp(const struct pdfeat_ctx *c, const char *name, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	if (util_pathf(path, sizeof(path), "%s/%s", c->info && c->info->proc_root ? c->info->proc_root : "/proc",
		       name))
		return -ENAMETOOLONG;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = util_read_full(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

/* The value of "key : value" in /proc/cpuinfo's first block, runs of
 * blanks squashed as perf does; false when absent. */
static bool cpuinfo_field(const char *info, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key), o = 0;

	for (const char *l = info; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *v;

		if (*l == '\n')
			return false; /* the first CPU's block ends */
		if (strncmp(l, key, kl) != 0 || (l[kl] != ' ' && l[kl] != '\t' && l[kl] != ':'))
			continue;
		if ((v = strchr(l, ':')) == NULL)
			continue;
		for (v++; *v == ' '; v++)
			;
		for (; *v && *v != '\n' && o + 1 < len; v++) {
			if (isspace((unsigned char)*v) && o && out[o - 1] == ' ')
				continue;
			out[o++] = isspace((unsigned char)*v) ? ' ' : *v;
		}
		out[o] = '\0';
		return true;
	}
	return false;
}

static int cpu_feature(struct pdfeat_buf *b, int feat, const struct pdfeat_ctx *c)
{
	static char info[65536];
	char desc[256], vendor[64], fam[16], model[16], step[16];

	if (slurp(c, "cpuinfo", info, sizeof(info)))
		return -ENOENT;
	if (feat == PDF_FEAT_CPUDESC) {
		if (!cpuinfo_field(info, "model name", desc, sizeof(desc)) &&
		    !cpuinfo_field(info, "Processor", desc, sizeof(desc)) &&
		    !cpuinfo_field(info, "cpu", desc, sizeof(desc)))
			return -ENOENT;
		pdfeat_str(b, desc);
		return 0;
	}
	/* perf's x86 form: vendor,family,model,stepping. */
	if (!cpuinfo_field(info, "vendor_id", vendor, sizeof(vendor)) ||
	    !cpuinfo_field(info, "cpu family", fam, sizeof(fam)) || !cpuinfo_field(info, "model", model, sizeof(model)))
		return -ENOENT;
	if (!cpuinfo_field(info, "stepping", step, sizeof(step)))
		strcpy(step, "0");
	snprintf(desc, sizeof(desc), "%s,%s,%s,%s", vendor, fam, model, step);
	pdfeat_str(b, desc);
	return 0;
}

/* The highest CPU in a list like "0-3,8" plus one. */
static uint32_t cpulist_count(const char *s)
{
	uint32_t hi = 0;

	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s)
			break;
		if (v + 1 > hi)
			hi = (uint32_t)(v + 1);
		s = *end ? end + 1 : end;
	}
	return hi;
}

static int nrcpus(struct pdfeat_buf *b)
{
	char buf[4096];
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct pdformat_nrcpus n = { 0, 0 };
	int fd = open("/sys/devices/system/cpu/present", O_RDONLY | O_CLOEXEC);
	ssize_t r = fd >= 0 ? util_read_full(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (online <= 0)
		return -ENOENT;
	n.online = (uint32_t)online;
	if (r > 0) {
		buf[r] = '\0';
		n.avail = cpulist_count(buf);
	}
	if (n.avail < n.online)
		n.avail = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	pdfeat_put(b, &n, sizeof(n));
	return 0;
}

static int total_mem(struct pdfeat_buf *b, const struct pdfeat_ctx *c)
{
	char info[8192];
	const char *p;

	if (slurp(c, "meminfo", info, sizeof(info)) || (p = strstr(info, "MemTotal:")) == NULL)
		return -ENOENT;
	pdfeat_u64(b, strtoull(p + strlen("MemTotal:"), NULL, 10));
	return 0;
}

static int event_desc(struct pdfeat_buf *b, const struct pdfeat_ctx *c)
{
	uint32_t sz = c->nev ? c->ev[0].attr.size : 0;

	for (size_t i = 0; i < c->nev; i++)
		if (c->ev[i].attr.size != sz)
			return -ENOENT;
	pdfeat_u32(b, (uint32_t)c->nev);
	pdfeat_u32(b, sz);
	for (size_t i = 0; i < c->nev; i++) {
		pdfeat_put(b, &c->ev[i].attr, sz);
		pdfeat_u32(b, (uint32_t)c->ev[i].nids);
		pdfeat_str(b, c->ev[i].name);
		pdfeat_put(b, c->ev[i].ids, c->ev[i].nids * sizeof(uint64_t));
	}
	return 0;
}

void pdfeat_build_id(struct pdfeat_buf *b, const struct pdfeat_bid *e, uint16_t type)
{
	static const char zero[PDF_NAME_ALIGN];
	struct pdformat_build_id r;
	size_t n = strlen(e->path), plen = pdformat_str_len(n);

	memset(&r, 0, sizeof(r));
	r.header.type = type;
	r.header.misc = (uint16_t)((e->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
				   PDF_MISC_BUILD_ID_SIZE);
	r.header.size = (uint16_t)(sizeof(r) + plen);
	r.pid = -1;
	memcpy(r.build_id, e->id, e->len);
	r.size = e->len;
	pdfeat_put(b, &r, sizeof(r));
	pdfeat_put(b, e->path, n);
	pdfeat_put(b, zero, plen - n);
}

int pdfeat_build(struct pdfeat_buf *b, int feat, const struct pdfeat_ctx *c)
{
	struct utsname u;
	struct timespec res;
	int rc = 0;

	switch (feat) {
	case PDF_FEAT_HOSTNAME:
	case PDF_FEAT_OSRELEASE:
	case PDF_FEAT_ARCH:
		if (uname(&u))
			return -ENOENT;
		pdfeat_str(b, feat == PDF_FEAT_HOSTNAME ? u.nodename : feat == PDF_FEAT_OSRELEASE ? u.release : u.machine);
		break;
	case PDF_FEAT_VERSION:
		pdfeat_str(b, c->info && c->info->version ? c->info->version : "perftop");
		break;
	case PDF_FEAT_NRCPUS:
		rc = nrcpus(b);
		break;
	case PDF_FEAT_CPUDESC:
	case PDF_FEAT_CPUID:
		rc = cpu_feature(b, feat, c);
		break;
	case PDF_FEAT_TOTAL_MEM:
		rc = total_mem(b, c);
		break;
	case PDF_FEAT_CMDLINE:
		if (c->info == NULL || c->info->argv == NULL)
			return -ENOENT;
		pdfeat_u32(b, (uint32_t)c->info->argc);
		for (int i = 0; i < c->info->argc; i++)
			pdfeat_str(b, c->info->argv[i]);
		break;
	case PDF_FEAT_EVENT_DESC:
		rc = event_desc(b, c);
		break;
	case PDF_FEAT_CLOCKID:
		if (clock_getres(c->info ? c->info->clockid : CLOCK_MONOTONIC, &res))
			return -ENOENT;
		pdfeat_u64(b, (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec);
		break;
	case PDF_FEAT_SAMPLE_TIME:
		if (c->first == 0)
			return -ENOENT;
		pdfeat_u64(b, c->first);
		pdfeat_u64(b, c->last);
		break;
	case PDF_FEAT_BUILD_ID:
		if (c->nbid == 0)
			return -ENOENT;
		for (size_t i = 0; i < c->nbid; i++)
			pdfeat_build_id(b, &c->bid[i], PDF_RECORD_HEADER_BUILD_ID);
		break;
	default:
		return -ENOENT;
	}
	if (rc == 0 && b->oom)
		return -ENOMEM;
	return rc;
}
