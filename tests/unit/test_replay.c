/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_replay on a hand-made perf.data naming this test's own binary:
 * a file is used for symbols only when its build-id is the recording's
 * (its path, else perf's build-id cache in $HOME/.debug); one that does
 * not match leaves its samples [unknown] with a notice; a pid of the file
 * is never looked up in this machine's /proc (it is this process's pid
 * here, and still the file's tasks are named from its records). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "check.h"
#include "dump.h"
#include "pdformat.h"
#include "session.h"

__attribute__((noinline)) int replay_target_fn(int x);
__attribute__((noinline)) int replay_target_fn(int x)
{
	return x * 3 + 1;
}

struct fb {
	unsigned char *b;
	size_t len, cap;
};

static void put(struct fb *f, const void *p, size_t n)
{
	if (f->len + n > f->cap) {
		f->cap = (f->len + n) * 2 + 4096;
		if ((f->b = realloc(f->b, f->cap)) == NULL)
			abort();
	}
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void u64(struct fb *f, uint64_t v) { put(f, &v, 8); }
static void u32(struct fb *f, uint32_t v) { put(f, &v, 4); }

static void hdr(struct fb *f, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { type, misc, size };

	put(f, &h, sizeof(h));
}

static void trailer(struct fb *f, uint32_t pid, uint64_t t)
{
	u32(f, pid);
	u32(f, pid);
	u64(f, t);
}

/* This binary's executable mapping holding replay_target_fn. */
static int own_map(char *path, uint64_t *start, uint64_t *len, uint64_t *pgoff)
{
	FILE *m = fopen("/proc/self/maps", "re");
	char line[4096], perm[8], p[PATH_MAX];
	unsigned long long s, e, off;
	uint64_t ip = (uint64_t)(uintptr_t)replay_target_fn;

	while (m && fgets(line, sizeof(line), m))
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perm, &off, p) == 5 && perm[2] == 'x' &&
		    ip >= s && ip < e) {
			strcpy(path, p);
			*start = s;
			*len = e - s;
			*pgoff = off;
			fclose(m);
			return 0;
		}
	if (m)
		fclose(m);
	return -1;
}

/* A file: COMM and MMAP2 of pid (filename fname), 50 samples in
 * replay_target_fn, and a build-id entry for fname of bid. */
static void flat_sample(struct fb *f, uint64_t ip, pid_t pid, uint64_t t)
{
	hdr(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 32);
	u64(f, ip);
	u32(f, (uint32_t)pid);
	u32(f, (uint32_t)pid);
	u64(f, t);
	u64(f, 1000);
}

/* before: samples at the same IP between the COMM and the MMAP2 (unmapped
 * then), besides the 50 after. */
static void make_before(const char *out, pid_t pid, const char *fname, uint64_t start, uint64_t len, uint64_t pgoff,
			const uint8_t *bid, size_t bidlen, bool tracked, int before)
{
	struct fb f = { 0 };
	struct pdformat_header h = { 0 };
	struct perf_event_attr a = { 0 };
	struct pdformat_section ids, sec;
	size_t nlen = (strlen(fname) + 8) & ~(size_t)7, data_at, feat_at;
	char name[PATH_MAX] = { 0 }, comm[16] = "replayed";
	uint64_t ip = (uint64_t)(uintptr_t)replay_target_fn;
	struct pdformat_build_id b = { 0 };
	FILE *o;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a.sample_id_all = 1;
	a.sample_period = 1000;
	put(&f, &h, sizeof(h));
	ids = (struct pdformat_section){ sizeof(h) + sizeof(a) + 16, 8 };
	put(&f, &a, sizeof(a));
	put(&f, &ids, sizeof(ids));
	u64(&f, 7);
	data_at = f.len;
	strcpy(name, fname);
	if (tracked) { /* the task's COMM and the binary's MMAP2 */
		hdr(&f, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 8 + 16 + 16);
		u32(&f, (uint32_t)pid);
		u32(&f, (uint32_t)pid);
		put(&f, comm, 16);
		trailer(&f, (uint32_t)pid, 10);
		for (int i = 0; i < before; i++)
			flat_sample(&f, ip + 2, pid, 11);
		hdr(&f, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, (uint16_t)(8 + 8 + 24 + 24 + 8 + nlen + 16));
		u32(&f, (uint32_t)pid);
		u32(&f, (uint32_t)pid);
		u64(&f, start);
		u64(&f, len);
		u64(&f, pgoff);
		u32(&f, 8);
		u32(&f, 1);
		u64(&f, 12345);
		u64(&f, 0);
		u32(&f, PROT_READ | PROT_EXEC);
		u32(&f, MAP_PRIVATE);
		put(&f, name, nlen);
		trailer(&f, (uint32_t)pid, 20);
	}
	for (int i = 0; i < 50; i++)
		flat_sample(&f, ip + 2, pid, 100 + (uint64_t)i);
	feat_at = f.len;
	b.header.type = PDF_RECORD_HEADER_BUILD_ID;
	b.header.misc = PERF_RECORD_MISC_USER | PDF_MISC_BUILD_ID_SIZE;
	b.header.size = (uint16_t)(sizeof(b) + nlen);
	b.pid = -1;
	b.size = (uint8_t)bidlen;
	memcpy(b.build_id, bid, bidlen);
	sec = (struct pdformat_section){ feat_at + sizeof(sec), sizeof(b) + nlen };
	put(&f, &sec, sizeof(sec));
	put(&f, &b, sizeof(b));
	put(&f, name, nlen);
	h.magic = PDF_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = sizeof(a) + 16;
	h.attrs = (struct pdformat_section){ sizeof(h), sizeof(a) + 16 };
	h.data = (struct pdformat_section){ data_at, feat_at - data_at };
	h.features[0] = 1ull << PDF_FEAT_BUILD_ID;
	memcpy(f.b, &h, sizeof(h));
	if ((o = fopen(out, "we")) == NULL || fwrite(f.b, 1, f.len, o) != f.len || fclose(o) != 0)
		abort();
	free(f.b);
}

static void make(const char *out, pid_t pid, const char *fname, uint64_t start, uint64_t len, uint64_t pgoff,
		 const uint8_t *bid, size_t bidlen, bool tracked)
{
	make_before(out, pid, fname, start, len, pgoff, bid, bidlen, tracked, 0);
}

/* The samples of a symbol's row in the replay's JSON; -1 when none. */
static long samples_of(const char *js, const char *sym)
{
	char key[160];
	const char *p;
	long n;

	snprintf(key, sizeof(key), "\"symbol\":\"%s\"", sym);
	if (js == NULL || (p = strstr(js, key)) == NULL || (p = strstr(p, "\"samples\":")) == NULL ||
	    sscanf(p + 10, "%ld", &n) != 1)
		return -1;
	return n;
}

struct run {
	struct session *s;
	char *buf;
	size_t len;
	FILE *out;
};

static void show(void *arg, double lap)
{
	struct run *r = arg;
	struct dump_meta m = { .interval = lap, .iteration = 1 };

	dump_interval(r->out, DUMP_JSON, r->s, &m, 20);
}

static void tick(void *arg)
{
	struct run *r = arg;

	session_interval_end(r->s, 0, show, r);
}

/* The replay's JSON (malloc'd), or NULL. */
static char *replay(const char *path)
{
	struct options o = { .input = path, .batch = true, .interval = 3600, .no_symbol_cache = true,
			     .no_kallsyms_cache = true };
	struct session s;
	struct run r = { .s = &s };
	struct engine_handlers h = { .tick = tick, .arg = &r };
	char err[512];

	if ((r.out = open_memstream(&r.buf, &r.len)) == NULL)
		return NULL;
	if (session_replay_open(&s, &o, err, sizeof(err)) != 0 || session_run(&s, &h) != 0) {
		fprintf(stderr, "# %s\n", err);
		session_close(&s);
		fclose(r.out);
		free(r.buf);
		return NULL;
	}
	session_close(&s);
	fclose(r.out);
	return r.buf;
}

int main(void)
{
	char self[PATH_MAX], tmp[] = "/tmp/perftop-test-replay.XXXXXX", data[PATH_MAX + 32], cache[3 * PATH_MAX + 256];
	uint64_t start, len, pgoff;
	uint8_t bid[BUILDID_MAX], bad[BUILDID_MAX];
	int n, fd;
	char *js;

	if (own_map(self, &start, &len, &pgoff) != 0 || mkdtemp(tmp) == NULL ||
	    (fd = open(self, O_RDONLY | O_CLOEXEC)) < 0) {
		CHECK_SKIP("this binary's mapping or a temporary directory not found");
		return check_done();
	}
	n = buildid_read_fd(fd, bid);
	close(fd);
	if (n <= 0) {
		CHECK_SKIP("this test binary has no build-id");
		return check_done();
	}
	setenv("HOME", tmp, 1); /* an empty ~/.debug: no cache to find */
	snprintf(data, sizeof(data), "%s/f.data", tmp);

	/* The recording's pid is this process's: /proc/self would name
	 * "test_replay"; the file's COMM says "replayed". */
	make(data, getpid(), self, start, len, pgoff, bid, (size_t)n, true);
	js = replay(data);
	CHECK(js && strstr(js, "\"symbol\":\"replay_target_fn\"") != NULL,
	      "the file at its path, of the recording's build-id: named");
	CHECK(js && strstr(js, "\"comm\":\"replayed\"") != NULL && strstr(js, "\"comm\":\"test_replay\"") == NULL,
	      "the task named from the file's COMM, not from this machine's /proc (its pid is ours here)");
	free(js);
	/* No COMM, no MMAP2 of this pid in the file: /proc/self would name
	 * both; a replay must not look. */
	make(data, getpid(), self, start, len, pgoff, bid, (size_t)n, false);
	js = replay(data);
	CHECK(js && strstr(js, "replay_target_fn") == NULL && strstr(js, "\"comm\":\"test_replay\"") == NULL,
	      "a pid the file never described stays unnamed: this machine's /proc (here, ours) is not read");
	free(js);

	/* Alike samples are counted together (pdbatch), but never across a
	 * record between them: the 30 before the MMAP2 are [unknown], the 50
	 * after it named; none counted twice or dropped. */
	make_before(data, 4242, self, start, len, pgoff, bid, (size_t)n, true, 30);
	js = replay(data);
	CHECK(samples_of(js, "replay_target_fn") == 50 && samples_of(js, "[unknown]") == 30,
	      "alike samples before a map and after it: 30 [unknown] and 50 named (%ld, %ld)",
	      samples_of(js, "[unknown]"), samples_of(js, "replay_target_fn"));
	free(js);

	memcpy(bad, bid, sizeof(bad));
	bad[0] ^= 0xff;
	make(data, 4242, self, start, len, pgoff, bad, (size_t)n, true);
	js = replay(data);
	CHECK(js && strstr(js, "replay_target_fn") == NULL && strstr(js, "\"symbol\":\"[unknown]\"") != NULL,
	      "a file of another build-id is not used: its samples are [unknown]");
	CHECK(js && strstr(js, "1 file of the recording not found with its build-id") != NULL,
	      "and a notice says so");
	free(js);

	/* Not at its path, but in perf's build-id cache: found there. */
	{
		char hex[2 * BUILDID_MAX + 1], dir[PATH_MAX];

		for (int i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", bid[i]);
		snprintf(dir, sizeof(dir), "%.200s/.debug/.build-id/%.2s/%s", tmp, hex, hex + 2);
		snprintf(cache, sizeof(cache), "mkdir -p '%s' && cp '%s' '%s/elf'", dir, self, dir);
		if (system(cache) != 0) {
			CHECK_SKIP("cannot make a build-id cache");
		} else {
			make(data, 4242, "/nonexistent/bin/replayed", start, len, pgoff, bid, (size_t)n, true);
			js = replay(data);
			CHECK(js && strstr(js, "\"symbol\":\"replay_target_fn\"") != NULL,
			      "a file gone from its path, found in ~/.debug/.build-id/xx/yyyy/elf by its build-id");
			free(js);
		}
	}
	snprintf(cache, sizeof(cache), "rm -rf '%s'", tmp);
	if (system(cache) != 0)
		fprintf(stderr, "# %s left behind\n", tmp);
	return check_done();
}
