/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdread on hand-made perf.data files: the header, attrs and ids, the
 * features, records of perf record's layout and of ours, the round order,
 * the pipe format, zstd, and files cut or damaged anywhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "pdformat.h"
#include "pdread.h"

#ifdef PERFTOP_HAVE_ZSTD
#include <zstd.h>
#endif

/* --- building files ---------------------------------------------------------- */

struct fb {
	unsigned char *b;
	size_t len, cap;
};

static void put(struct fb *f, const void *p, size_t n)
{
	if (f->len + n > f->cap) {
		f->cap = (f->len + n) * 2 + 4096;
		f->b = realloc(f->b, f->cap);
		if (f->b == NULL)
			abort();
	}
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void u64(struct fb *f, uint64_t v) { put(f, &v, 8); }
static void u32(struct fb *f, uint32_t v) { put(f, &v, 4); }

static void str(struct fb *f, const char *s)
{
	uint32_t n = pdformat_str_len(strlen(s));
	char pad[PDF_NAME_ALIGN * 4] = { 0 };

	u32(f, n);
	memcpy(pad, s, strlen(s));
	put(f, pad, n);
}

/* perf record's layout: IP|TID|TIME|PERIOD (+ IDENTIFIER with more events). */
#define PERF_ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

struct rec_opts {
	uint64_t st;      /* the attr's sample_type */
	uint64_t id;      /* with IDENTIFIER */
};

static void header(struct fb *f, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	put(f, &h, sizeof(h));
}

static void trailer(struct fb *f, const struct rec_opts *o, uint32_t pid, uint64_t time)
{
	u32(f, pid);
	u32(f, pid);
	u64(f, time);
	if (o->st & PERF_SAMPLE_CPU)
		u64(f, 1);
	if (o->st & PERF_SAMPLE_IDENTIFIER)
		u64(f, o->id);
}

static unsigned trailer_len(const struct rec_opts *o)
{
	return 16 + (o->st & PERF_SAMPLE_CPU ? 8 : 0) + (o->st & PERF_SAMPLE_IDENTIFIER ? 8 : 0);
}

static void sample(struct fb *f, const struct rec_opts *o, uint32_t pid, uint64_t ip, uint64_t time)
{
	unsigned n = 8 + (o->st & PERF_SAMPLE_IDENTIFIER ? 8 : 0) + 8 + 8 + 8 + (o->st & PERF_SAMPLE_CPU ? 8 : 0) + 8;

	header(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)n);
	if (o->st & PERF_SAMPLE_IDENTIFIER)
		u64(f, o->id);
	u64(f, ip);
	u32(f, pid);
	u32(f, pid + 1);
	u64(f, time);
	if (o->st & PERF_SAMPLE_CPU) {
		u32(f, 1);
		u32(f, 0);
	}
	u64(f, 1000);
}

static void comm(struct fb *f, const struct rec_opts *o, uint32_t pid, const char *name, uint64_t time)
{
	char c[16] = { 0 };

	strlcpy(c, name, sizeof(c));
	header(f, PERF_RECORD_COMM, 0, (uint16_t)(8 + 8 + 16 + trailer_len(o)));
	u32(f, pid);
	u32(f, pid);
	put(f, c, 16);
	trailer(f, o, pid, time);
}

static void round_end(struct fb *f)
{
	header(f, PDF_RECORD_FINISHED_ROUND, 0, 8);
}

static void attr_of(struct perf_event_attr *a, const struct rec_opts *o, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->config = config;
	a->size = sizeof(*a);
	a->sample_type = o->st;
	a->sample_id_all = 1;
	a->freq = 1;
	a->sample_freq = 999;
}

/* The data: COMM, then two rounds whose samples come per "CPU" (not in
 * time order), the second round holding one older than the first's newest. */
static void data(struct fb *f, const struct rec_opts *o)
{
	comm(f, o, 100, "worker", 5);
	sample(f, o, 100, 0x401000, 30);
	sample(f, o, 100, 0x401010, 40);
	sample(f, o, 100, 0x401020, 10);  /* another CPU's, older */
	sample(f, o, 100, 0x401030, 20);
	round_end(f);
	sample(f, o, 100, 0x401040, 35);  /* older than the first round's newest */
	sample(f, o, 100, 0x401050, 50);
	round_end(f);
}

static const uint64_t want_times[] = { 5, 10, 20, 30, 35, 40, 50 };

static void features(struct fb *f, size_t at_table, const struct perf_event_attr *a, size_t nattr,
		     const char *const *names, uint64_t *feat_bits)
{
	struct pdformat_section secs[3];
	size_t body;
	struct fb b = { 0 };
	size_t s0, s1, s2;

	/* bodies first, into b, then the table before them */
	s0 = b.len;
	{ /* build-id */
		struct pdformat_build_id e = { 0 };
		char name[64] = "/usr/bin/worker";

		e.header.type = PDF_RECORD_HEADER_BUILD_ID;
		e.header.misc = PERF_RECORD_MISC_USER | PDF_MISC_BUILD_ID_SIZE;
		e.header.size = sizeof(e) + sizeof(name);
		e.pid = -1;
		e.size = 20;
		for (int i = 0; i < 20; i++)
			e.build_id[i] = (uint8_t)(i + 1);
		put(&b, &e, sizeof(e));
		put(&b, name, sizeof(name));
	}
	s1 = b.len;
	{ /* nrcpus */
		u32(&b, 4);
		u32(&b, 2);
	}
	s2 = b.len;
	{ /* event_desc */
		u32(&b, (uint32_t)nattr);
		u32(&b, sizeof(*a));
		for (size_t i = 0; i < nattr; i++) {
			put(&b, &a[i], sizeof(*a));
			u32(&b, 1);
			str(&b, names[i]);
			u64(&b, 1000 + i);
		}
	}
	body = at_table + 3 * sizeof(struct pdformat_section);
	secs[0] = (struct pdformat_section){ body + s0, s1 - s0 };
	secs[1] = (struct pdformat_section){ body + s1, s2 - s1 };
	secs[2] = (struct pdformat_section){ body + s2, b.len - s2 };
	put(f, secs, sizeof(secs));
	put(f, b.b, b.len);
	free(b.b);
	feat_bits[0] = (1ull << PDF_FEAT_BUILD_ID) | (1ull << PDF_FEAT_NRCPUS) | (1ull << PDF_FEAT_EVENT_DESC);
}

/* A whole file: header, attrs (ids 1000+i), ids, data, features. */
static struct fb make_file(const struct rec_opts *o, const struct perf_event_attr *attrs, size_t nattr,
			   const char *const *names, void (*fill)(struct fb *, const struct rec_opts *))
{
	struct fb f = { 0 };
	struct pdformat_header h = { 0 };
	size_t attrs_at = sizeof(h), ids_at = attrs_at + nattr * (sizeof(struct perf_event_attr) + 16), data_at;

	put(&f, &h, sizeof(h));
	for (size_t i = 0; i < nattr; i++) {
		struct pdformat_section ids = { ids_at + 8 * i, 8 };

		put(&f, &attrs[i], sizeof(attrs[i]));
		put(&f, &ids, sizeof(ids));
	}
	for (size_t i = 0; i < nattr; i++)
		u64(&f, 1000 + i);
	data_at = f.len;
	fill(&f, o);
	h.magic = PDF_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = sizeof(struct perf_event_attr) + 16;
	h.attrs = (struct pdformat_section){ attrs_at, nattr * h.attr_size };
	h.data = (struct pdformat_section){ data_at, f.len - data_at };
	features(&f, f.len, attrs, nattr, names, h.features);
	memcpy(f.b, &h, sizeof(h));
	return f;
}

static int memfile(const struct fb *f, char *path, size_t len)
{
	int fd = memfd_create("pdread-test", 0);

	if (fd < 0 || write(fd, f->b, f->len) != (ssize_t)f->len)
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* Opens f and reads it whole: the records' times into times, samples' events into evs. */
static int read_all(const struct fb *f, uint64_t *times, int *evs, size_t max, size_t *n, struct pdread **keep,
		    char *err, size_t errlen)
{
	char path[64];
	int fd = memfile(f, path, sizeof(path)), rc, ev;
	struct pdread *r = NULL;
	struct record rec;

	*n = 0;
	rc = pdread_open(&r, path, err, errlen);
	while (rc == 0 && (rc = pdread_next(r, &rec, &ev, err, errlen)) == 1) {
		if (*n < max) {
			times[*n] = rec.sid.time;
			evs[*n] = rec.type == PERF_RECORD_SAMPLE ? ev : -2;
		}
		(*n)++;
		rc = 0;
	}
	if (keep && rc >= 0)
		*keep = r;
	else
		pdread_close(r);
	close(fd);
	return rc < 0 ? -1 : 0;
}

/* --- the tests ------------------------------------------------------------------ */

static void test_perf_layout(void)
{
	struct rec_opts o = { .st = PERF_ST };
	struct perf_event_attr a;
	const char *names[] = { "cpu-clock" };
	struct fb f;
	uint64_t t[16];
	int ev[16];
	size_t n;
	char err[512];
	struct pdread *r = NULL;
	const struct pdread_buildid *b;
	bool order = true;

	attr_of(&a, &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	f = make_file(&o, &a, 1, names, data);
	CHECK(read_all(&f, t, ev, 16, &n, &r, err, sizeof(err)) == 0, "perf's layout reads (%s)", err);
	CHECK(n == 7, "seven records handed on (%zu)", n);
	for (size_t i = 0; i < n && i < 7; i++)
		order = order && t[i] == want_times[i];
	CHECK(order, "in time order across the rounds, as perf report applies them");
	CHECK(r && pdread_nevents(r) == 1 && strcmp(pdread_event(r, 0)->name, "cpu-clock") == 0,
	      "one event, named by event_desc");
	CHECK(r && pdread_info(r)->nr_cpus_avail == 4 && pdread_info(r)->nr_cpus_online == 2, "nrcpus read");
	CHECK(r && pdread_buildids(r, &b) == 1 && strcmp(b[0].path, "/usr/bin/worker") == 0 && b[0].len == 20 &&
	      b[0].id[0] == 1 && b[0].id[19] == 20 && !b[0].kernel, "the build-id entry: path, 20 bytes, user");
	pdread_close(r);
	free(f.b);
}

/* The round rule itself: what the second round holds older than the
 * first's newest is handed on before it, not after the first round. */
static void test_round_rule(void)
{
	struct rec_opts o = { .st = PERF_ST };
	struct perf_event_attr a;
	const char *names[] = { "cpu-clock" };
	struct fb f;
	uint64_t t[16];
	int ev[16];
	size_t n;
	char err[512];

	attr_of(&a, &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	f = make_file(&o, &a, 1, names, data);
	read_all(&f, t, ev, 16, &n, NULL, err, sizeof(err));
	CHECK(n == 7 && t[4] == 35 && t[5] == 40, "35 (round 2) before 40 (round 1): rounds overlap by one");
	free(f.b);
}

static void data_two(struct fb *f, const struct rec_opts *o0)
{
	struct rec_opts track = *o0, samp = *o0;

	track.id = 1000;
	samp.id = 1001;
	comm(f, &track, 7, "two", 1);
	sample(f, &samp, 7, 0x500000, 2);
	sample(f, &track, 7, 0x500010, 3);  /* the dummy's: not a sample to count */
	samp.id = 4242;                     /* no event has this id */
	sample(f, &samp, 7, 0x500020, 4);
}

static void test_identifier(void)
{
	struct rec_opts o = { .st = PERF_ST | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CPU };
	struct perf_event_attr a[2];
	const char *names[] = { "dummy:u", "task-clock" };
	struct fb f;
	uint64_t t[16];
	int ev[16];
	size_t n;
	char err[512];
	struct pdread *r = NULL;

	attr_of(&a[0], &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	attr_of(&a[1], &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	f = make_file(&o, a, 2, names, data_two);
	CHECK(read_all(&f, t, ev, 16, &n, &r, err, sizeof(err)) == 0, "two attrs with IDENTIFIER read (%s)", err);
	CHECK(r && pdread_nevents(r) == 1 && strcmp(pdread_event(r, 0)->name, "task-clock") == 0,
	      "the dummy is no sampling event; the other keeps its name");
	CHECK(n == 2 && ev[0] == -2 && ev[1] == 0 && t[1] == 2,
	      "the COMM and the sampling event's sample only (the dummy's and an unknown id's skipped)");
	pdread_close(r);
	free(f.b);
}

/* perftop's own layout goes through record.c. */
static void data_ours(struct fb *f, const struct rec_opts *o)
{
	header(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 8 + 48);
	u64(f, 1000);
	u64(f, 0xffffffff81000000ull);
	u32(f, 9);
	u32(f, 10);
	u64(f, 77);
	u32(f, 3);
	u32(f, 0);
	u64(f, 5555);
}

static void test_our_layout(void)
{
	struct rec_opts o = { .st = RECORD_SAMPLE_TYPE };
	struct perf_event_attr a;
	const char *names[] = { "cycles" };
	struct fb f;
	char path[64], err[512];
	int fd, ev = -5;
	struct pdread *r = NULL;
	struct record rec;

	attr_of(&a, &o, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	f = make_file(&o, &a, 1, names, data_ours);
	fd = memfile(&f, path, sizeof(path));
	CHECK(pdread_open(&r, path, err, sizeof(err)) == 0 && pdread_next(r, &rec, &ev, err, sizeof(err)) == 1,
	      "our layout reads (%s)", err);
	CHECK(rec.sample.ip == 0xffffffff81000000ull && rec.sid.pid == 9 && rec.sid.tid == 10 && rec.sid.time == 77 &&
	      rec.sid.cpu == 3 && rec.sample.period == 5555 && ev == 0, "every field as recorded");
	pdread_close(r);
	close(fd);
	free(f.b);
}

/* An MMAP2 flagged as of the build-id form by a kernel whose attr asked
 * for none (this machine's kernel does it): read as the inode form. */
static void data_mmap2(struct fb *f, const struct rec_opts *o)
{
	char name[16] = "/usr/bin/x";

	header(f, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID,
	       (uint16_t)(8 + 8 + 24 + 24 + 8 + 16 + trailer_len(o)));
	u32(f, 5);
	u32(f, 5);
	u64(f, 0x400000);
	u64(f, 0x1000);
	u64(f, 0);
	u32(f, 20);     /* maj, read as a build-id size 20 by the flag */
	u32(f, 0);      /* min */
	u64(f, 248139); /* ino */
	u64(f, 0);      /* generation */
	u32(f, PROT_EXEC);
	u32(f, MAP_PRIVATE);
	put(f, name, sizeof(name));
	trailer(f, o, 5, 9);
}

static void test_mmap2_flag(void)
{
	struct rec_opts o = { .st = PERF_ST };
	struct perf_event_attr a;
	const char *names[] = { "cpu-clock" };
	struct fb f;
	char path[64], err[512];
	int fd, ev;
	struct pdread *r = NULL;
	struct record rec;

	attr_of(&a, &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	f = make_file(&o, &a, 1, names, data_mmap2);
	fd = memfile(&f, path, sizeof(path));
	CHECK(pdread_open(&r, path, err, sizeof(err)) == 0 && pdread_next(r, &rec, &ev, err, sizeof(err)) == 1 &&
	      rec.type == PERF_RECORD_MMAP2, "the MMAP2 reads (%s)", err);
	CHECK(rec.mmap.build_id == NULL && rec.mmap.maj == 20 && rec.mmap.ino == 248139 &&
	      strcmp(rec.mmap.filename, "/usr/bin/x") == 0 && rec.sid.time == 9,
	      "the build-id flag of an attr without build_id is not believed: the inode form");
	pdread_close(r);
	close(fd);
	free(f.b);
}

/* Cut anywhere: never a crash, always an error naming an offset (or, cut
 * exactly between records of the data with the sizes fixed, fewer records). */
static void test_cut_everywhere(void)
{
	struct rec_opts o = { .st = PERF_ST };
	struct perf_event_attr a;
	const char *names[] = { "cpu-clock" };
	struct fb f, g;
	uint64_t t[16];
	int ev[16];
	size_t n, bad = 0, tried = 0;
	char err[512];

	attr_of(&a, &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	f = make_file(&o, &a, 1, names, data);
	for (size_t cut = 0; cut < f.len; cut++) {
		g = (struct fb){ f.b, cut, f.len };
		err[0] = '\0';
		tried++;
		if (read_all(&g, t, ev, 16, &n, NULL, err, sizeof(err)) == 0 || strstr(err, "offset") == NULL)
			bad++;
	}
	CHECK(bad == 0, "a file cut at any of %zu bytes is refused with an offset (%zu were not)", tried, bad);
	g = (struct fb){ f.b, f.len - 1, f.len };
	read_all(&g, t, ev, 16, &n, NULL, err, sizeof(err));
	CHECK(strstr(err, "cut short") != NULL, "and says it is cut short (%s)", err);
	free(f.b);
}

static void test_corrupt(void)
{
	struct rec_opts o = { .st = PERF_ST };
	struct perf_event_attr a;
	const char *names[] = { "cpu-clock" };
	struct fb f;
	struct pdformat_header h;
	uint64_t t[16];
	int ev[16];
	size_t n;
	char err[512], want[64];
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 4 };

	attr_of(&a, &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	f = make_file(&o, &a, 1, names, data);
	memcpy(&h, f.b, sizeof(h));
	/* the third record (the second sample) gets size 4 */
	memcpy(f.b + h.data.offset + 40 + 48, &bad, sizeof(bad));
	CHECK(read_all(&f, t, ev, 16, &n, NULL, err, sizeof(err)) != 0, "a record of size 4 is refused");
	snprintf(want, sizeof(want), "at offset %llu:", (unsigned long long)(h.data.offset + 40 + 48));
	CHECK(strstr(err, want) != NULL, "at its own offset (%s)", err);
	free(f.b);

	f = make_file(&o, &a, 1, names, data);
	h.magic = PDF_MAGIC2_SWAPPED;
	memcpy(f.b, &h.magic, 8);
	read_all(&f, t, ev, 16, &n, NULL, err, sizeof(err));
	CHECK(strstr(err, "byte order") != NULL, "the other byte order is said (%s)", err);
	memcpy(f.b, "PERFILE3", 8);
	read_all(&f, t, ev, 16, &n, NULL, err, sizeof(err));
	CHECK(strstr(err, "not a perf.data file") != NULL, "no magic: not a perf.data file (%s)", err);
	free(f.b);
}

/* The pipe format: attrs and features as records before the data. */
static void test_pipe(void)
{
	struct rec_opts o = { .st = PERF_ST };
	struct perf_event_attr a;
	struct pdformat_pipe_header ph = { PDF_MAGIC2, sizeof(ph) };
	struct fb f = { 0 }, desc = { 0 };
	uint64_t t[16];
	int ev[16];
	size_t n;
	char err[512];
	struct pdread *r = NULL;
	bool order = true;

	attr_of(&a, &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	put(&f, &ph, sizeof(ph));
	header(&f, PDF_RECORD_HEADER_ATTR, 0, (uint16_t)(8 + sizeof(a) + 8));
	put(&f, &a, sizeof(a));
	u64(&f, 1000);
	u32(&desc, 1);
	u32(&desc, sizeof(a));
	put(&desc, &a, sizeof(a));
	u32(&desc, 1);
	str(&desc, "cpu-clock:u");
	u64(&desc, 1000);
	header(&f, PDF_RECORD_HEADER_FEATURE, 0, (uint16_t)(8 + 8 + desc.len));
	u64(&f, PDF_FEAT_EVENT_DESC);
	put(&f, desc.b, desc.len);
	data(&f, &o);
	CHECK(read_all(&f, t, ev, 16, &n, &r, err, sizeof(err)) == 0, "the pipe format reads (%s)", err);
	for (size_t i = 0; i < n && i < 7; i++)
		order = order && t[i] == want_times[i];
	CHECK(n == 7 && order, "the same records in the same order as the file's");
	CHECK(r && strcmp(pdread_event(r, 0)->name, "cpu-clock:u") == 0 && pdread_info(r)->pipe,
	      "named by its HEADER_FEATURE event_desc");
	pdread_close(r);
	free(f.b);
	free(desc.b);
}

#ifdef PERFTOP_HAVE_ZSTD
/* perf record -z: the data's records as zstd in COMPRESSED records, one
 * record cut across two of them. */
static void data_zstd(struct fb *f, const struct rec_opts *o)
{
	struct fb raw = { 0 };
	size_t half, cap;
	unsigned char *z;

	data(&raw, o);
	half = 8 + 40 + 20; /* inside the first sample */
	cap = ZSTD_compressBound(raw.len);
	z = malloc(cap);
	for (int part = 0; part < 2; part++) {
		const unsigned char *p = raw.b + (part ? half : 0);
		size_t len = part ? raw.len - half : half;
		size_t zl = ZSTD_compress(z, cap, p, len, 3);

		/* perf pads nothing: the next record may start unaligned. */
		header(f, PDF_RECORD_COMPRESSED, 0, (uint16_t)(8 + zl));
		put(f, z, zl);
	}
	free(z);
	free(raw.b);
}
#endif

static void test_zstd(void)
{
#ifdef PERFTOP_HAVE_ZSTD
	struct rec_opts o = { .st = PERF_ST };
	struct perf_event_attr a;
	const char *names[] = { "cpu-clock" };
	struct fb f;
	uint64_t t[16];
	int ev[16];
	size_t n;
	char err[512];
	bool order = true;

	attr_of(&a, &o, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	f = make_file(&o, &a, 1, names, data_zstd);
	CHECK(read_all(&f, t, ev, 16, &n, NULL, err, sizeof(err)) == 0, "zstd records read (%s)", err);
	for (size_t i = 0; i < n && i < 7; i++)
		order = order && t[i] == want_times[i];
	CHECK(n == 7 && order, "the same records, a record cut across two bodies whole (%zu)", n);
	free(f.b);
#else
	CHECK_SKIP("built without libzstd");
#endif
}

int main(void)
{
	test_perf_layout();
	test_round_rule();
	test_identifier();
	test_our_layout();
	test_mmap2_flag();
	test_cut_everywhere();
	test_corrupt();
	test_pipe();
	test_zstd();
	return check_done();
}
