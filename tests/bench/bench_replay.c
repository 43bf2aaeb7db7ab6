/* Replay benchmark: synthetic ring contents through ring -> record -> session
 * (session_record: symbols, agg), as the engine does, without the kernel. Prints ns per sample for
 * decode alone and for the whole path.
 *
 * usage: bench_replay [SAMPLES_MILLIONS [RINGS [rr]]]   (default 20, 4 rings, dealt at random;
 *        rr: in turn, as CPUs whose timers fire at one rate)
 *
 * The "ordered" lines deal the same samples to RINGS per-CPU rings, their
 * times interleaved at random, and merge them by time as the engine's drain
 * passes do (order.c): the reorder's cost is their difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "agg.h"
#include "record.h"
#include "ring.h"
#include "session.h"
#include "symbols.h"
#include "internal/order.h"

/* CPU time, not wall time: on a shared machine a descheduled pass would
 * otherwise count another's work. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define PAGE 4096
#define DATA (8u << 20) /* 8 MiB of records per pass: ~150k samples */

struct ctx {
	struct session s;   /* symbols and agg, no engine: the record path alone */
	struct options o;
	uint64_t n;
	bool full;
};

static void on_decoded(const struct record *r, struct ctx *c)
{
	c->n++;
	if (c->full)
		session_record(&c->s, 0, r);
}

static void on_record(const struct perf_event_header *h, struct ctx *c)
{
	struct record r;

	if (record_decode(h, &r) == RECORD_OK)
		on_decoded(&r, c);
}

/* The engine's way since records are time-ordered: the same samples dealt
 * to NRINGS per-CPU rings (times interleaved at random), merged by time. */
#define NRINGS 8 /* at most; argv[2], default 4 */
static size_t nrings = 4;
static bool round_robin; /* argv[3] "rr": CPUs' timers at one rate take turns */
static double replay_ordered(struct ring *rs, const size_t *filled, struct ctx *c, uint64_t passes)
{
	struct order o;
	double t0;

	if (order_init(&o, rs, nrings) != 0)
		return 0;
	t0 = cpu_now();
	for (uint64_t p = 0; p < passes; p++) {
		const struct record *rec;
		enum record_status st;

		for (size_t i = 0; i < nrings; i++) {
			rs[i].meta->data_tail = 0;
			__atomic_store_n(&rs[i].meta->data_head, filled[i], __ATOMIC_RELEASE);
		}
		order_begin(&o, UINT64_MAX);
		while (order_next(&o, &rec, &st))
			if (st == RECORD_OK)
				on_decoded(rec, c);
		order_done(&o);
	}
	t0 = cpu_now() - t0;
	order_free(&o);
	return t0;
}

/* Kernel text addresses from kallsyms, for a realistic kernel share. */
static size_t kernel_ips(uint64_t *out, size_t max)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	size_t n = 0;

	if (f == NULL)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t;

		if (sscanf(line, "%llx %c", &a, &t) == 2 && a && (t == 'T' || t == 't') && (rand() & 7) == 0)
			out[n++] = a + 4;
	}
	fclose(f);
	return n;
}

static double replay(struct ring *r, struct ctx *c, size_t filled, uint64_t passes)
{
	double t0 = cpu_now();

	for (uint64_t p = 0; p < passes; p++) {
		r->meta->data_tail = 0;
		__atomic_store_n(&r->meta->data_head, filled, __ATOMIC_RELEASE);
		if (ring_read_begin(r) == 0) {
			const struct perf_event_header *h;

			while (ring_next(r, &h))
				on_record(h, c);
			ring_read_done(r);
		}
	}
	return cpu_now() - t0;
}

int main(int argc, char **argv)
{
	double millions = argc > 1 ? atof(argv[1]) : 20;
	struct symbols_opts so = { "/proc", "/proc/kallsyms" };
	uint64_t uips[64], kips[4096];
	size_t nk, nu = 0, filled = 0;
	unsigned char *map = aligned_alloc(PAGE, PAGE + DATA);
	struct ring r, orings[NRINGS];
	unsigned char *omap[NRINGS];
	size_t ofilled[NRINGS] = { 0 };
	double t_ord_dec, t_ord_full;
	uint64_t n_dec, n_full;
	struct ctx c = { 0 };
	int cpus[2] = { 0, 1 };
	uint64_t per_pass, passes;
	double t_dec, t_full;
	pid_t pid = getpid();

	if (argc > 2 && atoi(argv[2]) >= 1 && atoi(argv[2]) <= NRINGS)
		nrings = (size_t)atoi(argv[2]);
	round_robin = argc > 3 && strcmp(argv[3], "rr") == 0;
	if (map == NULL || ring_init(&r, map, PAGE, DATA))
		return 1;
	memset(map, 0, PAGE);
	c.s.opts = &c.o;
	c.s.syms = symbols_new(&so);
	c.s.agg = agg_new(1, cpus, 2);
	if (c.s.syms == NULL || c.s.agg == NULL)
		return 1;
	symbols_load_kernel(c.s.syms);
	symbols_synthesize(c.s.syms, pid);
	nk = kernel_ips(kips, 4096);
	/* User addresses: this program's functions and libc's. */
	uips[nu++] = (uint64_t)(uintptr_t)main;
	uips[nu++] = (uint64_t)(uintptr_t)on_record;
	uips[nu++] = (uint64_t)(uintptr_t)replay;
	uips[nu++] = (uint64_t)(uintptr_t)memcpy;
	uips[nu++] = (uint64_t)(uintptr_t)qsort;
	uips[nu++] = (uint64_t)(uintptr_t)fopen;
	uips[nu++] = (uint64_t)(uintptr_t)sscanf;
	uips[nu++] = (uint64_t)(uintptr_t)clock_gettime;

	/* Fill the ring with samples: 70 % user (hot few), 30 % kernel (spread). */
	srand(1);
	while (filled + 56 <= DATA) {
		struct {
			struct perf_event_header h;
			uint64_t id, ip;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
			uint64_t period;
		} s;
		bool kern = nk && rand() % 10 < 3;

		s.h.type = PERF_RECORD_SAMPLE;
		s.h.misc = kern ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		s.h.size = sizeof(s);
		s.id = 1;
		s.ip = kern ? kips[rand() % nk] : uips[rand() % nu] + (uint64_t)(rand() % 16);
		s.pid = s.tid = (uint32_t)pid;
		s.time = filled;
		s.cpu = (uint32_t)(rand() & 1);
		s.res = 0;
		s.period = 250000;
		memcpy(r.data + filled, &s, sizeof(s));
		filled += sizeof(s);
	}
	/* The same records dealt to NRINGS rings, in time order within each. */
	{
		size_t part = DATA / NRINGS;

		for (size_t i = 0; i < NRINGS; i++) {
			omap[i] = aligned_alloc(PAGE, PAGE + part);
			if (omap[i] == NULL || ring_init(&orings[i], omap[i], PAGE, part))
				return 1;
			memset(omap[i], 0, PAGE);
		}
		for (size_t off = 0; off + 56 <= filled; off += 56) {
			size_t i = round_robin ? off / 56 % nrings : (size_t)rand() % nrings;

			if (ofilled[i] + 56 > part)
				continue;
			memcpy(orings[i].data + ofilled[i], r.data + off, 56);
			ofilled[i] += 56;
		}
	}
	per_pass = filled / 56;
	passes = (uint64_t)(millions * 1e6 / (double)per_pass) + 1;

	c.full = false;
	t_dec = replay(&r, &c, filled, passes);
	c.n = 0;
	t_ord_dec = replay_ordered(orings, ofilled, &c, passes);
	n_dec = c.n;
	c.n = 0;
	c.full = true;
	replay(&r, &c, filled, 1); /* warm: first resolves load symbol tables */
	c.n = 0;
	t_ord_full = replay_ordered(orings, ofilled, &c, passes);
	n_full = c.n;
	c.n = 0;
	t_full = replay(&r, &c, filled, passes);

	printf("samples            %llu (%llu passes of %llu)\n", (unsigned long long)c.n,
	       (unsigned long long)passes, (unsigned long long)per_pass);
	printf("decode only        %.1f ns/sample  %.1f M samples/s\n", t_dec * 1e9 / (double)c.n,
	       (double)c.n / t_dec / 1e6);
	printf("decode+resolve+agg %.1f ns/sample  %.1f M samples/s\n", t_full * 1e9 / (double)c.n,
	       (double)c.n / t_full / 1e6);
	printf("ordered %zu rings%s: decode+merge %.1f ns/sample, decode+merge+resolve+agg %.1f ns/sample\n",
	       nrings, round_robin ? " (in turn)" : " (at random)", t_ord_dec * 1e9 / (double)n_dec, t_ord_full * 1e9 / (double)n_full);
	agg_free(c.s.agg);
	symbols_free(c.s.syms);
	ring_unmap(&r);
	free(map);
	for (size_t i = 0; i < NRINGS; i++) {
		ring_unmap(&orings[i]);
		free(omap[i]);
	}
	return 0;
}
