/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replay benchmark: synthetic ring contents through ring -> record -> session
 * (session_record: symbols, agg), as the engine does, without the kernel. Prints ns per sample for
 * decode alone and for the whole path.
 *
 * usage: bench_replay [SAMPLES_MILLIONS [RINGS [rr|tasks]]]   (default 20, 4 rings, dealt at random;
 *        rr: in turn, as CPUs whose timers fire at one rate; tasks: the samples of CPU 1
 *        are a forked copy's, as two busy CPUs each running its own process)
 *        bench_replay SAMPLES_MILLIONS cg   (-g: frame-pointer callchains of 10-20 user
 *        frames, 30 % with 4-8 kernel frames too; and the leaf fix's unwind of 2 frames)
 *
 * The "ordered" lines deal the same samples to RINGS per-CPU rings, their
 * times interleaved at random, and merge them by time as the engine's drain
 * passes do (order.c): the reorder's cost is their difference. */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "unwind.h"
#include "agg.h"
#include "record.h"
#include "ring.h"
#include "session.h"
#include "symbols.h"
#include "order.h"

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

static const struct record_layout *layout; /* cg: the callchain's */

static void on_record(const struct perf_event_header *h, struct ctx *c)
{
	struct record r;

	if (record_decode_with(h, layout, &r) == RECORD_OK)
		on_decoded(&r, c);
}

/* The engine's way since records are time-ordered: the same samples dealt
 * to NRINGS per-CPU rings (times interleaved at random), merged by time. */
#define NRINGS 8 /* at most; argv[2], default 4 */
static size_t nrings = 4;
static bool round_robin; /* argv[3] "rr": CPUs' timers at one rate take turns */
static bool two_tasks;   /* argv[3] "tasks": CPU 1's samples are another process's */
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

/* The same merge as the engine's drain passes do it without call graphs
 * (order_step): flat samples into the tally, handed on by kind. */
static void take_samples(void *arg, const struct tally_slot *t)
{
	struct ctx *c = arg;
	struct engine_samples s = { .ip = t->ip, .period = t->period, .pid = t->pid, .tid = t->tid, .cpu = t->cpu,
				    .n = t->n, .misc = t->misc };

	c->n += t->n;
	if (c->full)
		session_samples(&c->s, 0, &s);
}

static double replay_stepped(struct ring *rs, const size_t *filled, struct ctx *c, uint64_t passes)
{
	struct order o;
	struct tally *tl = tally_new(ORDER_TALLY_BITS, ORDER_TALLY_PROBE);
	double t0;

	if (tl == NULL || order_init(&o, rs, nrings) != 0) {
		tally_free(tl);
		return 0;
	}
	o.tally = tl;
	t0 = cpu_now();
	for (uint64_t p = 0; p < passes; p++) {
		const struct record *rec;
		enum record_status st;
		enum order_out out;

		for (size_t i = 0; i < nrings; i++) {
			rs[i].meta->data_tail = 0;
			__atomic_store_n(&rs[i].meta->data_head, filled[i], __ATOMIC_RELEASE);
		}
		order_begin(&o, UINT64_MAX);
		while ((out = order_step(&o, &rec, &st)) != ORDER_END) {
			if (out != ORDER_TALLIED)
				tally_take(tl, take_samples, c);
			if (out == ORDER_RECORD && st == RECORD_OK)
				on_decoded(rec, c);
		}
		order_done(&o);
		tally_take(tl, take_samples, c);
	}
	t0 = cpu_now() - t0;
	order_free(&o);
	tally_free(tl);
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

/* --- call graphs (-g) ------------------------------------------------------ */

int main(int argc, char **argv);

#define CG_PATHS 64
#define CG_USER_MAX 20

/* The same kinds of stacks over and over, as a program's hot paths are:
 * 64 distinct paths of 10-20 user frames (this program's functions and
 * libc's), 30 % of them under 4-8 kernel frames. Return addresses lie
 * inside their function. */
static size_t cg_fill(struct ring *r, const uint64_t *uf, size_t nuf, const uint64_t *kips, size_t nk,
		      pid_t pid)
{
	uint64_t paths[CG_PATHS][CG_USER_MAX], kpaths[CG_PATHS][8];
	size_t depth[CG_PATHS], kdepth[CG_PATHS], filled = 0;
	uint64_t buf[64];

	for (size_t p = 0; p < CG_PATHS; p++) {
		depth[p] = 10 + (size_t)rand() % (CG_USER_MAX - 10 + 1);
		kdepth[p] = nk && rand() % 10 < 3 ? 4 + (size_t)rand() % 5 : 0;
		for (size_t i = 0; i < depth[p]; i++)
			paths[p][i] = uf[(p * 7 + i * 13 + (size_t)rand() % 3) % nuf] + 5 + (uint64_t)(rand() % 40);
		for (size_t i = 0; i < kdepth[p]; i++)
			kpaths[p][i] = kips[(size_t)rand() % nk];
	}
	for (;;) {
		size_t p = (size_t)rand() % CG_PATHS, n = 0, nr = 0, size;
		bool kern = kdepth[p] > 0;

		buf[n++] = 0; /* the header, below */
		buf[n++] = 1; /* id */
		buf[n++] = kern ? kpaths[p][0] : paths[p][0];
		buf[n++] = (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)pid << 32;
		buf[n++] = filled; /* time */
		buf[n++] = (uint64_t)(rand() & 1);
		buf[n++] = 250000;
		n++; /* nr */
		if (kern) {
			buf[n + nr++] = PERF_CONTEXT_KERNEL;
			for (size_t i = 0; i < kdepth[p]; i++)
				buf[n + nr++] = kpaths[p][i];
		}
		buf[n + nr++] = PERF_CONTEXT_USER;
		for (size_t i = 0; i < depth[p]; i++)
			buf[n + nr++] = paths[p][i];
		buf[n - 1] = nr;
		n += nr;
		size = n * 8;
		if (filled + size > DATA)
			return filled;
		{
			struct perf_event_header h = { PERF_RECORD_SAMPLE, kern ? PERF_RECORD_MISC_KERNEL
									: PERF_RECORD_MISC_USER, (uint16_t)size };

			memcpy(&buf[0], &h, sizeof(h));
		}
		memcpy(r->data + filled, buf, size);
		filled += size;
	}
}

static bool cg_find_map(void *arg, pid_t pid, uint64_t addr, struct unwind_map *out)
{
	uint64_t pgoff;

	if (!symbols_map_at(arg, pid, addr, out->path, sizeof(out->path), &out->start, &out->end, &pgoff))
		return false;
	out->base = out->start - pgoff;
	return true;
}

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* A real sample of the leaf fix's kind: registers and 512 bytes of stack
 * taken inside a leaf that keeps no frame, called from cg_mid. */
static uint64_t cg_regs[PERF_REG_X86_64_MAX];
static unsigned char cg_stack[512];

__attribute__((noinline, no_sanitize_address)) static void cg_copy_stack(uint64_t sp)
{
	const volatile unsigned char *p = (const volatile unsigned char *)(uintptr_t)sp;

	for (size_t i = 0; i < sizeof(cg_stack); i++)
		cg_stack[i] = p[i];
}

__attribute__((noinline)) void cg_leaf(void);
__attribute__((noinline)) void cg_leaf(void)
{
	__asm__ volatile(
		"movq %%rax, 0(%0)\n\t movq %%rbx, 8(%0)\n\t movq %%rcx, 16(%0)\n\t movq %%rdx, 24(%0)\n\t"
		"movq %%rsi, 32(%0)\n\t movq %%rdi, 40(%0)\n\t movq %%rbp, 48(%0)\n\t movq %%rsp, 56(%0)\n\t"
		"leaq 0(%%rip), %%rax\n\t movq %%rax, 64(%0)\n\t"
		"movq %%r8, 128(%0)\n\t movq %%r9, 136(%0)\n\t movq %%r10, 144(%0)\n\t movq %%r11, 152(%0)\n\t"
		"movq %%r12, 160(%0)\n\t movq %%r13, 168(%0)\n\t movq %%r14, 176(%0)\n\t movq %%r15, 184(%0)\n\t"
		: : "r"(cg_regs) : "rax", "memory");
}

__attribute__((noinline)) void cg_mid(void);
__attribute__((noinline)) void cg_mid(void)
{
	cg_leaf();
	cg_copy_stack(cg_regs[PERF_REG_X86_SP]);
	__asm__ volatile("" ::: "memory");
}
#define CG_LEAF 1
#else
#define CG_LEAF 0
#endif

/* One decoded sample through session_record n times: (ns per sample). */
static double cg_same(struct ctx *c, const struct record *r, uint64_t n)
{
	double t0 = cpu_now();

	for (uint64_t i = 0; i < n; i++)
		session_record(&c->s, 0, r);
	return (cpu_now() - t0) * 1e9 / (double)n;
}

static int bench_cg(double millions)
{
	static const struct record_layout fp = { .extra = PERF_SAMPLE_CALLCHAIN };
	struct symbols_opts so = { "/proc", "/proc/kallsyms" };
	unsigned char *map = aligned_alloc(PAGE, PAGE + DATA);
	uint64_t uf[40], kips[4096];
	size_t nuf = 0, nk, filled, per_pass = 0;
	struct ctx c = { 0 };
	int cpus[2] = { 0, 1 };
	pid_t pid = getpid();
	uint64_t passes;
	double t_dec, t_full;
	struct ring r;

	if (map == NULL || ring_init(&r, map, PAGE, DATA))
		return 1;
	memset(map, 0, PAGE);
	c.o.cg.mode = CALLGRAPH_FP;
	c.o.cg.max_stack = 127;
	c.s.opts = &c.o;
	c.s.syms = symbols_new(&so);
	c.s.agg = agg_new(1, cpus, 2);
	if (c.s.syms == NULL || c.s.agg == NULL)
		return 1;
	symbols_load_kernel(c.s.syms);
	symbols_synthesize(c.s.syms, pid);
	nk = kernel_ips(kips, 4096);
	uf[nuf++] = (uint64_t)(uintptr_t)main;
	uf[nuf++] = (uint64_t)(uintptr_t)on_record;
	uf[nuf++] = (uint64_t)(uintptr_t)replay;
	uf[nuf++] = (uint64_t)(uintptr_t)kernel_ips;
	uf[nuf++] = (uint64_t)(uintptr_t)cg_fill;
	uf[nuf++] = (uint64_t)(uintptr_t)bench_cg;
	uf[nuf++] = (uint64_t)(uintptr_t)memcpy;
	uf[nuf++] = (uint64_t)(uintptr_t)memset;
	uf[nuf++] = (uint64_t)(uintptr_t)qsort;
	uf[nuf++] = (uint64_t)(uintptr_t)fopen;
	uf[nuf++] = (uint64_t)(uintptr_t)fclose;
	uf[nuf++] = (uint64_t)(uintptr_t)fgets;
	uf[nuf++] = (uint64_t)(uintptr_t)sscanf;
	uf[nuf++] = (uint64_t)(uintptr_t)printf;
	uf[nuf++] = (uint64_t)(uintptr_t)clock_gettime;
	uf[nuf++] = (uint64_t)(uintptr_t)strlen;
	uf[nuf++] = (uint64_t)(uintptr_t)strcmp;
	uf[nuf++] = (uint64_t)(uintptr_t)malloc;
	uf[nuf++] = (uint64_t)(uintptr_t)free;
	uf[nuf++] = (uint64_t)(uintptr_t)calloc;
	uf[nuf++] = (uint64_t)(uintptr_t)realloc;
	uf[nuf++] = (uint64_t)(uintptr_t)atof;
	uf[nuf++] = (uint64_t)(uintptr_t)atoi;
	uf[nuf++] = (uint64_t)(uintptr_t)rand;
	uf[nuf++] = (uint64_t)(uintptr_t)getpid;
	uf[nuf++] = (uint64_t)(uintptr_t)aligned_alloc;
	srand(2);
	filled = cg_fill(&r, uf, nuf, kips, nk, pid);
	{
		size_t off = 0;

		while (off < filled) {
			off += ((const struct perf_event_header *)(r.data + off))->size;
			per_pass++;
		}
	}
	passes = (uint64_t)(millions * 1e6 / (double)per_pass) + 1;
	layout = &fp;
	c.full = false;
	t_dec = replay(&r, &c, filled, passes);
	c.full = true;
	c.n = 0;
	replay(&r, &c, filled, 1); /* warm: first resolves load symbol tables */
	c.n = 0;
	t_full = replay(&r, &c, filled, passes);
	printf("samples            %llu (%llu passes of %llu, %.0f bytes each)\n", (unsigned long long)c.n,
	       (unsigned long long)passes, (unsigned long long)per_pass, (double)filled / (double)per_pass);
	printf("cg decode only        %.1f ns/sample  %.1f M samples/s\n", t_dec * 1e9 / (double)c.n,
	       (double)c.n / t_dec / 1e6);
	printf("cg decode+resolve+agg %.1f ns/sample  %.1f M samples/s\n", t_full * 1e9 / (double)c.n,
	       (double)c.n / t_full / 1e6);
#if CG_LEAF
	{
		/* The leaf fix: the same sample with and without its registers
		 * and stack (without, the session follows the chain alone). */
		uint64_t mask = unwind_regs_mask(), regs[64], chain[8];
		size_t nregs = 0, nr = 0;
		struct record rec;
		double plain, fixed;

		cg_mid();
		for (int b = 0; b < 64; b++)
			if (mask & (1ull << b))
				regs[nregs++] = cg_regs[b];
		chain[nr++] = PERF_CONTEXT_USER;
		chain[nr++] = cg_regs[PERF_REG_X86_IP];
		chain[nr++] = (uint64_t)(uintptr_t)bench_cg + 20; /* cg_mid's caller: the chain skips cg_mid */
		chain[nr++] = (uint64_t)(uintptr_t)main + 20;
		memset(&rec, 0, sizeof(rec));
		rec.type = PERF_RECORD_SAMPLE;
		rec.misc = PERF_RECORD_MISC_USER;
		rec.sid.pid = rec.sid.tid = (uint32_t)pid;
		rec.sample.ip = cg_regs[PERF_REG_X86_IP];
		rec.sample.period = 1;
		rec.sample.nr = nr;
		rec.sample.ips = (const unsigned char *)chain;
		rec.sample.regs_abi = PERF_SAMPLE_REGS_ABI_64;
		rec.sample.regs = (const unsigned char *)regs;
		rec.sample.stack = cg_stack;
		rec.sample.stack_size = rec.sample.stack_dyn_size = sizeof(cg_stack);
		struct leaffix_stats ls;

		c.s.unw = unwind_new(cg_find_map, c.s.syms, 64);
		if (c.s.unw == NULL || (c.s.leaf = session_leaffix_new(&c.s, 0)) == NULL)
			return 1;
		plain = cg_same(&c, &rec, 2000000); /* nregs 0: frame pointers alone */
		rec.sample.nregs = nregs;
		cg_same(&c, &rec, 1000); /* warm: the Dwfl and its modules */
		fixed = cg_same(&c, &rec, 2000000);
		leaffix_get_stats(c.s.leaf, &ls);
		printf("leaf fix: 4-frame user stack %.1f ns/sample with frame pointers alone, %.1f ns with the "
		       "leaf's caller from its CFI through libdw (%llu fixed): +%.1f ns\n", plain, fixed,
		       (unsigned long long)ls.fixed, fixed - plain);
		/* As perftop runs it: the rule cached by (DSO, offset). */
		leaffix_free(c.s.leaf);
		if ((c.s.leaf = session_leaffix_new(&c.s, 16)) == NULL)
			return 1;
		cg_same(&c, &rec, 1000);
		fixed = cg_same(&c, &rec, 2000000);
		leaffix_get_stats(c.s.leaf, &ls);
		printf("leaf fix: %.1f ns with the rule cache (%llu fixed): +%.1f ns\n", fixed,
		       (unsigned long long)ls.fixed, fixed - plain);
		leaffix_free(c.s.leaf);
		c.s.leaf = NULL;
		unwind_free(c.s.unw);
	}
#endif
	agg_free(c.s.agg);
	symbols_free(c.s.syms);
	ring_unmap(&r);
	free(map);
	return 0;
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
	double t_ord_dec, t_ord_full, t_step_dec, t_step_full;
	uint64_t n_step_dec, n_step_full, n_plain;
	uint64_t n_dec, n_full;
	struct ctx c = { 0 };
	int cpus[2] = { 0, 1 };
	uint64_t per_pass, passes;
	double t_dec, t_full;
	pid_t pid = getpid();
	pid_t other = -1;

	if (argc > 2 && strcmp(argv[2], "cg") == 0)
		return bench_cg(argc > 1 ? atof(argv[1]) : 20);
	if (argc > 2 && atoi(argv[2]) >= 1 && atoi(argv[2]) <= NRINGS)
		nrings = (size_t)atoi(argv[2]);
	round_robin = argc > 3 && strcmp(argv[3], "rr") == 0;
	two_tasks = argc > 3 && strcmp(argv[3], "tasks") == 0;
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
	if (two_tasks) { /* the same maps: the same addresses resolve in both */
		other = fork();
		if (other < 0)
			return 1;
		if (other == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pause();
			_exit(0);
		}
		symbols_synthesize(c.s.syms, other);
	}
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
		s.cpu = (uint32_t)(rand() & 1);
		s.pid = s.tid = (uint32_t)(two_tasks && s.cpu ? other : pid);
		s.time = filled;
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
	n_plain = c.n;
	c.n = 0;
	c.full = false;
	t_step_dec = replay_stepped(orings, ofilled, &c, passes);
	n_step_dec = c.n;
	c.n = 0;
	c.full = true;
	t_step_full = replay_stepped(orings, ofilled, &c, passes);
	n_step_full = c.n;
	c.n = n_plain;

	printf("samples            %llu (%llu passes of %llu)\n", (unsigned long long)c.n,
	       (unsigned long long)passes, (unsigned long long)per_pass);
	printf("decode only        %.1f ns/sample  %.1f M samples/s\n", t_dec * 1e9 / (double)c.n,
	       (double)c.n / t_dec / 1e6);
	printf("decode+resolve+agg %.1f ns/sample  %.1f M samples/s\n", t_full * 1e9 / (double)c.n,
	       (double)c.n / t_full / 1e6);
	printf("ordered %zu rings%s: decode+merge %.1f ns/sample, decode+merge+resolve+agg %.1f ns/sample\n",
	       nrings, round_robin ? " (in turn)" : " (at random)", t_ord_dec * 1e9 / (double)n_dec, t_ord_full * 1e9 / (double)n_full);
	printf("windowed, tallied (the drain's way without call graphs): decode+merge %.1f ns/sample, "
	       "decode+merge+resolve+agg %.1f ns/sample\n",
	       t_step_dec * 1e9 / (double)n_step_dec, t_step_full * 1e9 / (double)n_step_full);
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
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
