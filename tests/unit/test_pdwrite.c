/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdwrite, pdfeat, pdsynth: a file and a pipe written and read back by
 * the layout perf reads (perf.data-file-format.txt): the header, the attrs
 * and their ids, the data, the feature table right after the data, the
 * feature bodies' encodings, the pipe's records; --max-size; the file's
 * creation (0600, no symlink, the old one kept); the synthesized records. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "pdfeat.h"
#include "pdformat.h"
#include "pdsynth.h"
#include "pdwrite.h"

static char dir[] = "/tmp/test_pdwrite.XXXXXX";

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || (p = malloc((size_t)st.st_size + 1)) == NULL) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*len = (size_t)read(fd, p, (size_t)st.st_size);
	close(fd);
	return p;
}

/* A flat sample of RECORD_SAMPLE_TYPE's layout. */
struct sample {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t period;
};

static void sample_at(struct sample *s, uint64_t id, uint64_t time)
{
	memset(s, 0, sizeof(*s));
	s->h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
					   .size = sizeof(*s) };
	s->id = id;
	s->ip = 0x401000;
	s->pid = s->tid = 42;
	s->time = time;
	s->period = 1000;
}

static void attr_of(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	a->sample_id_all = 1;
}

static const char *const argv_[] = { "perftop", "-b", "--record", "x.data" };

/* The features as a reader walks them: section i of the table after the data. */
static const struct pdformat_section *feature(const unsigned char *f, const struct pdformat_header *h, int feat)
{
	const struct pdformat_section *tab = (const void *)(f + h->data.offset + h->data.size);
	size_t k = 0;

	for (int b = 0; b < PDF_FEAT_BITS; b++) {
		if (!(h->features[b / 64] >> (b % 64) & 1))
			continue;
		if (b == feat)
			return &tab[k];
		k++;
	}
	return NULL;
}

static void test_file(void)
{
	struct pdwrite_info info = { .version = "perftop test", .argv = argv_, .argc = 4, .clockid = CLOCK_MONOTONIC };
	char path[256];
	struct perf_event_attr a;
	struct pdwrite *w;
	struct sample s;
	uint64_t ids0[] = { 7, 8 }, ids1[] = { 9 };
	uint8_t bid[20] = { 0xab, 0xcd };
	unsigned char *f;
	size_t len = 0;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/a.data", dir);
	fd = pdwrite_create(path);
	CHECK(fd >= 0, "created");
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600: %o", st.st_mode & 0777);
	CHECK(pdwrite_open(&w, fd, false, 0, &info) == 0, "open");
	attr_of(&a);
	CHECK(pdwrite_attr(w, 0, &a, "cpu-clock", ids0, 2) == 0, "attr 0");
	a.config = PERF_COUNT_SW_DUMMY;
	CHECK(pdwrite_attr(w, 1, &a, "dummy:u", ids1, 1) == 0, "attr 1");
	CHECK(pdwrite_begin(w) == 0, "begin");
	sample_at(&s, 7, 1000);
	pdwrite_record(w, &s.h);
	pdwrite_round(w);
	sample_at(&s, 8, 3000);
	pdwrite_record(w, &s.h);
	CHECK(pdwrite_build_id(w, "/usr/bin/x", bid, 20, false) == 0, "build id");
	CHECK(pdwrite_close(w, NULL) == 0, "close");
	close(fd);

	f = slurp(path, &len);
	CHECK(f && len > sizeof(struct pdformat_header), "read back: %zu bytes", len);
	if (f == NULL)
		return;
	const struct pdformat_header *h = (const void *)f;
	CHECK(h->magic == PDF_MAGIC2 && memcmp(f, "PERFILE2", 8) == 0, "magic PERFILE2");
	CHECK(h->size == 104, "header size 104: %llu", (unsigned long long)h->size);
	CHECK(h->attr_size == sizeof(struct perf_event_attr) + 16, "attr_size: %llu", (unsigned long long)h->attr_size);
	CHECK(h->attrs.size == 2 * h->attr_size, "two attrs");
	CHECK(h->data.size == 2 * sizeof(s) + 8, "data: two samples and a round: %llu",
	      (unsigned long long)h->data.size);
	/* The attrs and their ids. */
	const struct pdformat_file_attr *fa = (const void *)(f + h->attrs.offset);
	CHECK(fa[0].attr.config == PERF_COUNT_SW_CPU_CLOCK && fa[1].attr.config == PERF_COUNT_SW_DUMMY, "attr order");
	CHECK(fa[0].ids.size == 16 && ((const uint64_t *)(const void *)(f + fa[0].ids.offset))[1] == 8, "ids of 0");
	CHECK(fa[1].ids.size == 8 && *(const uint64_t *)(const void *)(f + fa[1].ids.offset) == 9, "ids of 1");
	/* The data in order: sample, round, sample. */
	const struct perf_event_header *r = (const void *)(f + h->data.offset);
	CHECK(r->type == PERF_RECORD_SAMPLE, "first record a sample");
	r = (const void *)((const unsigned char *)r + r->size);
	CHECK(r->type == PDF_RECORD_FINISHED_ROUND && r->size == 8, "then FINISHED_ROUND");
	/* Features: which bits, and their bodies. */
	static const int want[] = { PDF_FEAT_BUILD_ID, PDF_FEAT_HOSTNAME, PDF_FEAT_OSRELEASE, PDF_FEAT_VERSION,
				    PDF_FEAT_ARCH, PDF_FEAT_NRCPUS, PDF_FEAT_CPUDESC, PDF_FEAT_TOTAL_MEM,
				    PDF_FEAT_CMDLINE, PDF_FEAT_EVENT_DESC, PDF_FEAT_SAMPLE_TIME, PDF_FEAT_CLOCKID };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(feature(f, h, want[i]) != NULL, "feature %d present", want[i]);
	CHECK(feature(f, h, PDF_FEAT_TRACING_DATA) == NULL, "no tracing data");
	const struct pdformat_section *sec = feature(f, h, PDF_FEAT_VERSION);
	if (sec) {
		uint32_t l;

		memcpy(&l, f + sec->offset, 4);
		CHECK(l == 64 && sec->size == 68 && strcmp((const char *)f + sec->offset + 4, "perftop test") == 0,
		      "version: a string padded to 64 (len %u, size %llu)", l, (unsigned long long)sec->size);
	}
	if ((sec = feature(f, h, PDF_FEAT_SAMPLE_TIME))) {
		const uint64_t *t = (const void *)(f + sec->offset);

		CHECK(sec->size == 16 && t[0] == 1000 && t[1] == 3000, "sample time: first and last");
	}
	if ((sec = feature(f, h, PDF_FEAT_CMDLINE))) {
		uint32_t nr;

		memcpy(&nr, f + sec->offset, 4);
		CHECK(nr == 4 && strcmp((const char *)f + sec->offset + 8, "perftop") == 0 &&
		      strcmp((const char *)f + sec->offset + 8 + 68, "-b") == 0, "cmdline: argv as a string list");
	}
	if ((sec = feature(f, h, PDF_FEAT_NRCPUS))) {
		const struct pdformat_nrcpus *n = (const void *)(f + sec->offset);

		CHECK(sec->size == 8 && n->online >= 1 && n->avail >= n->online &&
		      n->online == (uint32_t)sysconf(_SC_NPROCESSORS_ONLN), "nrcpus: present, then online");
	}
	if ((sec = feature(f, h, PDF_FEAT_EVENT_DESC))) {
		const unsigned char *p = f + sec->offset;
		uint32_t nr, sz, nids, slen;

		memcpy(&nr, p, 4);
		memcpy(&sz, p + 4, 4);
		p += 8 + sz;
		memcpy(&nids, p, 4);
		memcpy(&slen, p + 4, 4);
		CHECK(nr == 2 && sz == sizeof(struct perf_event_attr) && nids == 2 && slen == 64 &&
		      strcmp((const char *)p + 8, "cpu-clock") == 0 && *(const uint64_t *)(const void *)(p + 8 + 64) == 7,
		      "event_desc: attr, ids, name");
	}
	if ((sec = feature(f, h, PDF_FEAT_BUILD_ID))) {
		const struct pdformat_build_id *b = (const void *)(f + sec->offset);

		CHECK(b->header.size == sec->size && b->header.size == sizeof(*b) + 64 && b->pid == -1 &&
		      b->size == 20 && b->build_id[0] == 0xab && (b->header.misc & PDF_MISC_BUILD_ID_SIZE) &&
		      strcmp((const char *)(b + 1), "/usr/bin/x") == 0, "build-id entry");
	}
	CHECK(feature(f, h, PDF_FEAT_CLOCKID) != NULL && feature(f, h, PDF_FEAT_CLOCKID)->size == 8, "clockid: a u64");
	free(f);
}

static void test_pipe(void)
{
	struct perf_event_attr a;
	struct pdwrite *w;
	struct sample s;
	uint64_t ids[] = { 5 };
	char path[256];
	unsigned char *f;
	size_t len = 0, off, nfeat = 0;
	bool attr_first = false, feat_sample_time = false;
	int fd;

	snprintf(path, sizeof(path), "%s/p.data", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && pdwrite_open(&w, fd, true, 0, NULL) == 0, "pipe open");
	attr_of(&a);
	pdwrite_attr(w, 0, &a, "cpu-clock", ids, 1);
	CHECK(pdwrite_begin(w) == 0, "pipe begin");
	sample_at(&s, 5, 10);
	pdwrite_record(w, &s.h);
	pdwrite_round(w);
	CHECK(pdwrite_close(w, NULL) == 0, "pipe close");
	close(fd);
	f = slurp(path, &len);
	if (f == NULL || len < 16)
		return;
	CHECK(memcmp(f, "PERFILE2", 8) == 0 && *(const uint64_t *)(const void *)(f + 8) == 16, "pipe header: magic, 16");
	for (off = 16; off + 8 <= len;) {
		const struct perf_event_header *r = (const void *)(f + off);

		if (r->size < 8)
			break;
		if (off == 16)
			attr_first = r->type == PDF_RECORD_HEADER_ATTR &&
				     r->size == 8 + sizeof(struct perf_event_attr) + 8 &&
				     *(const uint64_t *)(const void *)(f + off + 8 + sizeof(struct perf_event_attr)) == 5;
		if (r->type == PDF_RECORD_HEADER_FEATURE) {
			nfeat++;
			struct pdformat_feature_event fe;

			memcpy(&fe, r, sizeof(fe)); /* records of a pipe need not be aligned in our copy */
			feat_sample_time |= fe.feat_id == PDF_FEAT_SAMPLE_TIME;
		}
		off += r->size;
	}
	CHECK(off == len, "records tile the pipe");
	CHECK(attr_first, "HEADER_ATTR first, with its ids");
	CHECK(nfeat >= 10 && feat_sample_time, "HEADER_FEATURE records (%zu), sample time at the end", nfeat);
	free(f);
}

static void test_max_size(void)
{
	struct perf_event_attr a;
	struct pdwrite *w;
	struct pdwrite_stats st;
	struct sample s;
	uint64_t ids[] = { 5 };
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/m.data", dir);
	fd = pdwrite_create(path);
	pdwrite_open(&w, fd, false, 4096, NULL);
	attr_of(&a);
	pdwrite_attr(w, 0, &a, "cpu-clock", ids, 1);
	pdwrite_begin(w);
	for (int i = 0; i < 1000; i++) {
		sample_at(&s, 5, (uint64_t)i + 1);
		pdwrite_record(w, &s.h);
	}
	pdwrite_stats(w, &st);
	CHECK(st.stopped && st.error == -EFBIG && st.bytes <= 4096, "stops at --max-size: %llu bytes",
	      (unsigned long long)st.bytes);
	CHECK(pdwrite_close(w, NULL) == 0, "a stop at the bound is no error");
	close(fd);
}

/* A full disk: the writer says so and stops; nothing is written after. */
static void test_full(void)
{
	struct perf_event_attr a;
	struct pdwrite *w;
	struct pdwrite_stats st;
	uint64_t ids[] = { 5 };
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		CHECK_SKIP("no /dev/full");
		return;
	}
	pdwrite_open(&w, fd, true, 0, NULL);
	attr_of(&a);
	pdwrite_attr(w, 0, &a, "cpu-clock", ids, 1);
	CHECK(pdwrite_begin(w) == -ENOSPC, "ENOSPC from the first write");
	pdwrite_stats(w, &st);
	CHECK(st.stopped && st.error == -ENOSPC, "stopped, and why");
	pdwrite_close(w, &st);
	CHECK(st.stopped && st.error == -ENOSPC, "still so at the close");
	close(fd);
}

static void test_create(void)
{
	char path[256], link_[256], old[300];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/c.data", dir);
	snprintf(link_, sizeof(link_), "%s/l.data", dir);
	snprintf(old, sizeof(old), "%s.old", path);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1, "an old file");
	close(fd);
	fd = pdwrite_create(path);
	CHECK(fd >= 0 && stat(old, &st) == 0 && st.st_size == 1, "the old one becomes .old");
	close(fd);
	CHECK(symlink(path, link_) == 0, "a symlink");
	CHECK(pdwrite_create(link_) == -ELOOP, "a symlink is refused");
	CHECK(stat(path, &st) == 0 && st.st_size == 0, "its target untouched");
	CHECK(pdwrite_create(dir) == -EEXIST, "a directory is refused");
}

static void emit(void *arg, const struct perf_event_header *h)
{
	unsigned char *buf = arg;
	size_t *used = (size_t *)(void *)buf;

	if (*used + h->size < 8192) {
		memcpy(buf + 8 + *used, h, h->size);
		*used += h->size;
	}
}

static void test_synth(void)
{
	_Alignas(8) unsigned char buf[8192] = { 0 };
	char root[256], p[300];
	size_t *used = (size_t *)(void *)buf;
	FILE *f;

	snprintf(root, sizeof(root), "%s/proc", dir);
	snprintf(p, sizeof(p), "%s/proc/42/task/42", dir);
	mkdir(root, 0700);
	snprintf(p, sizeof(p), "%s/proc/42", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/proc/42/task", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/proc/42/task/42", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/proc/42/task/42/comm", dir);
	if ((f = fopen(p, "w"))) {
		fputs("worker\n", f);
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/proc/42/maps", dir);
	if ((f = fopen(p, "w"))) {
		fputs("00400000-00401000 r--p 00000000 08:01 1234 /usr/bin/w\n"
		      "00401000-00402000 r-xp 00001000 08:01 1234 /usr/bin/w\n"
		      "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
		      "7f0000001000-7f0000002000 r-xp 00000000 00:00 0 \n", f);
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/proc/kallsyms", dir);
	if ((f = fopen(p, "w"))) {
		fputs("ffffffff81000000 T startup_64\nffffffff81000000 T _text\n", f);
		fclose(f);
	}
	CHECK(pdsynth_id_size(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD) == 32, "trailer: tid, time, cpu, identifier");
	CHECK(pdsynth_comm(root, 42, 42, 32, emit, buf) == 0, "comm");
	const struct perf_event_header *h = (const void *)(buf + 8);
	CHECK(h->type == PERF_RECORD_COMM && h->size == 8 + 8 + 8 + 32 && strcmp((const char *)h + 16, "worker") == 0,
	      "COMM: pid, tid, the name padded to 8, a zero trailer");
	*used = 0;
	CHECK(pdsynth_maps(root, 42, 32, emit, buf) == 0, "maps");
	size_t n = 0, off = 8;
	bool file_ok = false, anon_ok = false;
	while (off < 8 + *used) {
		const struct perf_event_header *r = (const void *)(buf + off);
		const unsigned char *b = (const unsigned char *)r;
		uint64_t start, pgoff;
		uint32_t prot;

		memcpy(&start, b + 16, 8);
		memcpy(&pgoff, b + 32, 8);
		memcpy(&prot, b + 64, 4);
		if (r->type == PERF_RECORD_MMAP2 && start == 0x401000 && pgoff == 0x1000 && (prot & PROT_EXEC) &&
		    strcmp((const char *)b + 72, "/usr/bin/w") == 0)
			file_ok = true;
		if (r->type == PERF_RECORD_MMAP2 && strcmp((const char *)b + 72, "//anon") == 0)
			anon_ok = true;
		n++;
		off += r->size;
	}
	CHECK(n == 2 && file_ok && anon_ok, "MMAP2 for the two executable maps only (%zu)", n);
	*used = 0;
	CHECK(pdsynth_kernel(root, 32, emit, buf) == 0, "kernel map");
	h = (const void *)(buf + 8);
	CHECK(h->type == PERF_RECORD_MMAP && (h->misc & PERF_RECORD_MISC_KERNEL) &&
	      *(const int32_t *)(const void *)(buf + 16) == -1 &&
	      *(const uint64_t *)(const void *)(buf + 8 + 16) == 0xffffffff81000000ull &&
	      *(const uint64_t *)(const void *)(buf + 8 + 32) == 0xffffffff81000000ull &&
	      strcmp((const char *)buf + 8 + 40, PDF_KERNEL_MMAP_NAME) == 0, "[kernel.kallsyms]_text, pid -1, pgoff _text");
}

int main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_file();
	test_pipe();
	test_max_size();
	test_full();
	test_create();
	test_synth();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	return check_done();
}
