/* SPDX-License-Identifier: GPL-2.0-or-later */
/* -i's speed: a perf.data file as perf record writes it (IP|TID|TIME|PERIOD,
 * sample_id_all, rounds of two CPUs' runs each, FINISHED_ROUND after each)
 * holding N million samples of this process's own functions, read back
 * (pdread alone: read, order, decode) and replayed whole as -b does
 * (session_replay: records through session_record into agg, an interval
 * ended each recorded second). Prints ns and millions of samples per
 * second of CPU for each.
 *
 * usage: bench_pdread [SAMPLES_MILLIONS [REPS [KEEP]]]   (default 10, 3; KEEP: the
 *        file is kept there, for perf report -i KEEP and perftop -i KEEP -b side by side) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "pdformat.h"
#include "pdread.h"
#include "session.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct out {
	FILE *f;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (fwrite(p, 1, n, o->f) != n)
		exit(1);
}

static void put64(struct out *o, uint64_t v) { put(o, &v, 8); }

static void record_header(struct out *o, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { type, misc, size };

	put(o, &h, sizeof(h));
}

/* This process's executable maps as MMAP2 records (pid, the trailer's time 1). */
static void maps(struct out *o, pid_t pid)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096], path[4096];
	unsigned long long start, end, off;
	char perm[8];

	while (f && fgets(line, sizeof(line), f)) {
		size_t len, rec;
		char pad[8] = { 0 };

		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perm, &off, path) < 4 ||
		    perm[2] != 'x' || path[0] != '/')
			continue;
		len = strlen(path) + 1;
		rec = 8 + 8 + 24 + 24 + 8 + ((len + 7) & ~(size_t)7) + 16;
		record_header(o, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, (uint16_t)rec);
		put(o, &pid, 4);
		put(o, &pid, 4);
		put64(o, start);
		put64(o, end - start);
		put64(o, off);
		put64(o, 0);
		put64(o, 0);
		put64(o, 0);
		{
			uint32_t prot[2] = { PROT_READ | PROT_EXEC, MAP_PRIVATE };

			put(o, prot, 8);
		}
		put(o, path, len);
		put(o, pad, ((len + 7) & ~(size_t)7) - len);
		put(o, &pid, 4);
		put(o, &pid, 4);
		put64(o, 1);
	}
	if (f)
		fclose(f);
}

/* The file: nsamples samples at 10 kHz per CPU, two CPUs' runs per round. */
static int make(const char *path, uint64_t nsamples)
{
	static uint64_t ips[16];
	struct out o = { fopen(path, "we") };
	struct pdformat_header h = { 0 };
	struct perf_event_attr a = { 0 };
	struct pdformat_section ids;
	pid_t pid = getpid();
	uint64_t id = 1, rng = 42, t = 1000000, data_at;
	size_t nips = 0;

	if (o.f == NULL)
		return -1;
	ips[nips++] = (uint64_t)(uintptr_t)make;
	ips[nips++] = (uint64_t)(uintptr_t)maps;
	ips[nips++] = (uint64_t)(uintptr_t)put;
	ips[nips++] = (uint64_t)(uintptr_t)cpu_now;
	ips[nips++] = (uint64_t)(uintptr_t)memcpy;
	ips[nips++] = (uint64_t)(uintptr_t)memset;
	ips[nips++] = (uint64_t)(uintptr_t)qsort;
	ips[nips++] = (uint64_t)(uintptr_t)fopen;
	ips[nips++] = (uint64_t)(uintptr_t)strlen;
	ips[nips++] = (uint64_t)(uintptr_t)malloc;
	ips[nips++] = (uint64_t)(uintptr_t)free;
	ips[nips++] = (uint64_t)(uintptr_t)fwrite;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a.sample_id_all = 1;
	a.freq = 1;
	a.sample_freq = 10000;
	put(&o, &h, sizeof(h));
	ids = (struct pdformat_section){ sizeof(h) + sizeof(a) + 16, 8 };
	put(&o, &a, sizeof(a));
	put(&o, &ids, sizeof(ids));
	put64(&o, id);
	data_at = sizeof(h) + sizeof(a) + 16 + 8;
	maps(&o, pid);
	for (uint64_t i = 0; i < nsamples;) {
		/* A round: CPU 0's 4096 samples, then CPU 1's, times interleaved. */
		for (int cpu = 0; cpu < 2; cpu++)
			for (uint64_t k = 0; k < 4096 && i < nsamples; k++, i++) {
				uint64_t ip = ips[bench_rng(&rng) % nips] + bench_rng(&rng) % 64;
				uint32_t tid[2] = { (uint32_t)pid, (uint32_t)pid };

				record_header(&o, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 32);
				put64(&o, ip);
				put(&o, tid, 8);
				put64(&o, t + 100000 * k + 50000 * (uint64_t)cpu);
				put64(&o, 100000);
			}
		t += 100000 * 4096;
		record_header(&o, PDF_RECORD_FINISHED_ROUND, 0, 8);
	}
	fflush(o.f);
	h.magic = PDF_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = sizeof(a) + 16;
	h.attrs = (struct pdformat_section){ sizeof(h), sizeof(a) + 16 };
	h.data = (struct pdformat_section){ data_at, (uint64_t)ftell(o.f) - data_at };
	if (fseek(o.f, 0, SEEK_SET) != 0)
		return -1;
	put(&o, &h, sizeof(h));
	return fclose(o.f) == 0 ? 0 : -1;
}

static double read_only(const char *path, uint64_t *n)
{
	struct pdread *r;
	struct record rec;
	char err[512];
	double t0;
	int ev;

	t0 = cpu_now(); /* the open maps the file: its cost counts */
	if (pdread_open(&r, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	*n = 0;
	while (pdread_next(r, &rec, &ev, err, sizeof(err)) == 1)
		*n += rec.type == PERF_RECORD_SAMPLE;
	t0 = cpu_now() - t0;
	pdread_close(r);
	return t0;
}

static void nothing(void *arg, double lap) { }

static void tick(void *arg)
{
	session_interval_end(arg, 0, nothing, NULL);
}

static double replay(const char *path, uint64_t *n)
{
	struct options o = { .input = path, .batch = true, .interval = 1, .no_symbol_cache = false };
	struct session s;
	struct engine_handlers h = { .tick = tick };
	char err[512];
	double t0;

	if (session_replay_open(&s, &o, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	h.arg = &s;
	t0 = cpu_now();
	if (session_run(&s, &h) != 0)
		exit(1);
	t0 = cpu_now() - t0;
	*n = agg_event(s.agg, 0)->samples_total;
	session_close(&s);
	return t0;
}

int main(int argc, char **argv)
{
	double millions = argc > 1 ? atof(argv[1]) : 10;
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	char path[] = "/tmp/bench_pdread.XXXXXX";
	int fd = mkstemp(path);
	double tr[16], tf[16];
	uint64_t n = (uint64_t)(millions * 1e6), got = 0, counted = 0;

	if (fd < 0 || reps < 1 || reps > 16)
		return 1;
	close(fd);
	if (make(path, n) != 0) {
		unlink(path);
		return 1;
	}
	for (int i = 0; i < reps; i++) {
		tr[i] = read_only(path, &got);
		tf[i] = replay(path, &counted);
	}
	printf("pdread alone (read, order, decode): %.1f ns a sample, %.1f M samples/s (%llu samples)\n",
	       median(tr, (size_t)reps) * 1e9 / (double)got, (double)got / median(tr, (size_t)reps) / 1e6,
	       (unsigned long long)got);
	printf("replay -b whole (+ resolve, aggregate, intervals): %.1f ns a sample, %.1f M samples/s (%llu counted)\n",
	       median(tf, (size_t)reps) * 1e9 / (double)counted, (double)counted / median(tf, (size_t)reps) / 1e6,
	       (unsigned long long)counted);
	if (argc > 3 && rename(path, argv[3]) == 0)
		return 0;
	unlink(path);
	return 0;
}
