/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A real ELF of a million functions (generated assembly, linked here with
 * cc): its table's load time, lookups per second through elfsym_find and
 * through symbols_resolve (the cache in front mostly missing: the ips are
 * spread over every function), against perf report on recordings of a
 * child calling random functions of it. perf report's cost per sample is
 * the slope between a short and a long recording, its fixed cost (start,
 * table load) the rest. Prints medians of RUNS runs; asserts nothing.
 *
 * usage: bench_bigelf [RUNS (default 5)] [FUNCTIONS (default 1000000)] */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "elfsym.h"
#include "symbols.h"

#define MAX_RUNS 64
#define FN_ALIGN 16     /* every function is 10 bytes, padded to 16 */
#define LOOKUPS 5000000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
#define rng() bench_rng(&rng_state)

/* big_base, then f0000000 .. f(n-1), FN_ALIGN apart; the f are hidden, so
 * they are in .symtab only and the dynamic linker has nothing to do. */
static int build_elf(const char *dir, long n)
{
	char path[PATH_MAX], cmd[2 * PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/big.s", dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(".macro F name\n.globl \\name\n.hidden \\name\n.type \\name,@function\n.p2align 4\n"
	      "\\name: mov $64,%ecx\n1: dec %ecx\njnz 1b\nret\n.size \\name,.-\\name\n.endm\n"
	      ".text\n.globl big_base\n.type big_base,@function\n.p2align 4\nbig_base: ret\n"
	      ".size big_base,.-big_base\n", f);
	for (long i = 0; i < n; i++)
		fprintf(f, "F f%07ld\n", i);
	fputs(".section .note.GNU-stack,\"\",@progbits\n", f);
	if (fclose(f) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -o '%s/big.so' '%s'", dir, path);
	return system(cmd) == 0 ? 0 : -1;
}

static long perf_samples(const char *data)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F ip 2>/dev/null", data);
	return count_lines(cmd, NULL, NULL);
}

/* perf report on a 1 s and a 4 s recording of the child. */
static void bench_perf(const char *dir, pid_t child, int runs, double resolve_ns, double load_s)
{
	static const int secs[2] = { 1, 4 };
	char data[2][PATH_MAX], cmd[2 * PATH_MAX];
	double t[2][MAX_RUNS], m[2];
	long samples[2];

	for (int k = 0; k < 2; k++) {
		snprintf(data[k], sizeof(data[k]), "%s/perf%d.data", dir, k);
		snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock -F 4000 -p %d -o '%s' -- sleep %d >/dev/null 2>&1",
			 (int)child, data[k], secs[k]);
		if (system(cmd) != 0) {
			printf("perf: cannot record here (not installed, or not allowed): no comparison\n");
			return;
		}
		samples[k] = perf_samples(data[k]);
	}
	for (int r = 0; r < runs; r++)
		for (int k = 0; k < 2; k++) {
			snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --no-children --sort dso,sym >/dev/null 2>&1",
				 data[k]);
			if ((t[k][r] = timed(cmd)) < 0) {
				printf("perf report failed\n");
				return;
			}
		}
	for (int k = 0; k < 2; k++) {
		m[k] = median(t[k], (size_t)runs);
		printf("perf report, %ld samples:            %9.1f ms\n", samples[k], m[k] * 1e3);
	}
	if (samples[1] > samples[0]) {
		double per = (m[1] - m[0]) / (double)(samples[1] - samples[0]);

		printf("perf report per sample (slope):       %9.0f ns  (%.0fx perftop's resolve)\n", per * 1e9,
		       per * 1e9 / resolve_ns);
		printf("perf report fixed cost (intercept):   %9.1f ms  (%.1fx perftop's table load)\n",
		       (m[0] - per * (double)samples[0]) * 1e3, (m[0] - per * (double)samples[0]) / load_s);
	}
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? (int)strtonum(argv[1], 1, MAX_RUNS, NULL) : 5;
	long n = argc > 2 ? (long)strtonum(argv[2], 1000, 10000000, NULL) : 1000000;
	char dir[] = "/tmp/bench-bigelf-XXXXXX", path[PATH_MAX], cmd[PATH_MAX + 16];
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	double tl[MAX_RUNS], tf[MAX_RUNS], tr[MAX_RUNS], t0;
	size_t found = 0, named = 0;
	struct elfsym *t = NULL;
	uint64_t base, *ips = NULL;
	pid_t child = -1, self = getpid();
	void *h;

	if (runs == 0 || n == 0 || mkdtemp(dir) == NULL)
		return 2;
	t0 = clock_mono_s();
	if (build_elf(dir, n) != 0) {
		fprintf(stderr, "bench_bigelf: cannot build the ELF in %s\n", dir);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/big.so", dir);
	printf("built an ELF of %ld functions in %.1f s\n", n, clock_mono_s() - t0);

	for (int r = 0; r < runs; r++) {
		elfsym_free(t);
		t0 = clock_mono_s();
		if (elfsym_load(&t, path) != 0) {
			fprintf(stderr, "bench_bigelf: elfsym_load failed\n");
			goto out;
		}
		tl[r] = clock_mono_s() - t0;
	}
	printf("elfsym_load: %zu symbols in %.1f ms median of %d, %zu KiB\n", t->nsyms,
	       median(tl, (size_t)runs) * 1e3, runs, elfsym_bytes(t) / 1024);

	/* f(i) is FN_ALIGN * (i + 1) after big_base. */
	if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL || (base = (uint64_t)(uintptr_t)dlsym(h, "big_base")) == 0) {
		fprintf(stderr, "bench_bigelf: %s\n", dlerror());
		goto out;
	}
	ips = malloc(LOOKUPS * sizeof(*ips));
	if (ips == NULL)
		goto out;
	for (size_t i = 0; i < LOOKUPS; i++)
		ips[i] = (1 + rng() % (uint64_t)n) * FN_ALIGN + rng() % 10;
	{
		const struct elfsym_sym *s0 = NULL;

		for (size_t i = 0; i < t->nsyms && s0 == NULL; i++)
			if (strcmp(elfsym_name(t, &t->syms[i]), "f0000000") == 0)
				s0 = &t->syms[i];
		if (s0 == NULL) {
			fprintf(stderr, "bench_bigelf: no f0000000 in the table\n");
			goto out;
		}
		for (int r = 0; r < runs; r++) {
			found = 0;
			t0 = clock_mono_s();
			for (size_t i = 0; i < LOOKUPS; i++)
				found += elfsym_find(t, s0->addr - FN_ALIGN + ips[i]) != NULL;
			tf[r] = clock_mono_s() - t0;
		}
		printf("elfsym_find, random:         %8.1f ns/lookup %10.0f lookups/s (%zu%% found)\n",
		       median(tf, (size_t)runs) * 1e9 / LOOKUPS, LOOKUPS / median(tf, (size_t)runs),
		       found * 100 / LOOKUPS);
	}

	/* The same, through this process's maps: what a sample costs. */
	for (int r = 0; r < runs; r++) {
		struct symbols *s = symbols_new(&o);
		struct sym_result res;

		if (s == NULL)
			goto out;
		symbols_synthesize(s, self);
		symbols_resolve(s, self, base + FN_ALIGN, false, &res); /* loads the table */
		t0 = clock_mono_s();
		for (size_t i = 0; i < LOOKUPS; i++)
			symbols_resolve(s, self, base + ips[i], false, &res);
		tr[r] = clock_mono_s() - t0;
		/* Untimed: are the names right? */
		named = 0;
		for (size_t i = 0; i < LOOKUPS / 50; i++) {
			char want[32];

			symbols_resolve(s, self, base + ips[i], false, &res);
			snprintf(want, sizeof(want), "f%07ld", (long)(ips[i] / FN_ALIGN - 1));
			named += strcmp(res.sym, want) == 0;
		}
		symbols_free(s);
	}
	printf("symbols_resolve, random:     %8.1f ns/lookup %10.0f lookups/s (%zu%% named right)\n",
	       median(tr, (size_t)runs) * 1e9 / LOOKUPS, LOOKUPS / median(tr, (size_t)runs),
	       named * 100 / (LOOKUPS / 50));

	child = fork();
	if (child == 0) {
		for (;;)
			((void (*)(void))(uintptr_t)(base + FN_ALIGN * (1 + rng() % (uint64_t)n)))();
	}
	if (child > 0)
		bench_perf(dir, child, runs, median(tr, (size_t)runs) * 1e9 / LOOKUPS, median(tl, (size_t)runs));
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	free(ips);
	elfsym_free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_bigelf: could not remove %s\n", dir);
	return 0;
}
