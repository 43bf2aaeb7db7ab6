/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The first symbols of a process mapping many shared objects: NLIBS small
 * libraries are built here with cc, this program dlopens them all and
 * forks a child that keeps calling into each. Timed: perftop's symbols
 * naming one function of every library of the child from nothing (a new
 * symbols object: /proc/PID/maps read, NLIBS tables loaded; the files are
 * in the page cache), against `perf report` on a recording of the same
 * child (perf's whole run: it also starts, reads the data, loads kallsyms).
 * Prints medians of RUNS runs; asserts nothing.
 *
 * usage: bench_dsos [RUNS (default 7)] [NLIBS (default 100)] */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "symbols.h"

#define FUNCS 64        /* functions per library besides its hot one */
#define MAX_RUNS 64

/* NLIBS sources, compiled two at a time (two cores here). */
static int build_libs(const char *dir, int nlibs)
{
	char path[PATH_MAX], cmd[PATH_MAX + 256];
	FILE *f;

	for (int i = 0; i < nlibs; i++) {
		snprintf(path, sizeof(path), "%s/lib%03d.c", dir, i);
		f = fopen(path, "w");
		if (f == NULL)
			return -1;
		fprintf(f, "volatile unsigned long sink%03d;\n", i);
		for (int k = 0; k < FUNCS; k++)
			fprintf(f, "__attribute__((noinline)) unsigned long lib%03d_f%02d(unsigned long x)"
				" { return x * %d + sink%03d; }\n", i, k, k + 3, i);
		fprintf(f, "void lib%03d_hot(unsigned long n)\n{\n\tunsigned long x = sink%03d;\n"
			"\tfor (unsigned long j = 0; j < n; j++)\n"
			"\t\tx = x * 6364136223846793005UL + 1442695040888963407UL;\n"
			"\tsink%03d = x;\n}\n", i, i, i);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "cd '%s' && ls lib*.c | xargs -P 2 -I@ sh -c "
		 "'cc -O1 -shared -fPIC -o \"$(basename @ .c).so\" @'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* How many of the libraries' hot functions perf report names. */
static int perf_named(const char *data, int nlibs)
{
	char cmd[PATH_MAX + 128];
	long n;

	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --no-children --sort dso,sym 2>/dev/null", data);
	n = count_lines(cmd, "_hot", "[.] lib");
	return n < nlibs ? (int)n : nlibs;
}

static void bench_perf(const char *dir, pid_t child, int nlibs, int runs, double perftop_s)
{
	char data[PATH_MAX], base[PATH_MAX], cmd[3 * PATH_MAX];
	double t[MAX_RUNS], tb[MAX_RUNS], m, mb;
	int ok = 0;

	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(base, sizeof(base), "%s/base.data", dir);
	snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock -F 1000 -p %d -o '%s' -- sleep 2 >/dev/null 2>&1 && "
		 "perf record -q -e cpu-clock -F 1000 -o '%s' -- true >/dev/null 2>&1", (int)child, data, base);
	if (system(cmd) != 0) {
		printf("perf: cannot record here (not installed, or not allowed): no comparison\n");
		return;
	}
	for (int r = 0; r < runs; r++) {
		snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --no-children --sort dso,sym >/dev/null 2>&1",
			 data);
		t[r] = timed(cmd);
		snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --no-children --sort dso,sym >/dev/null 2>&1",
			 base);
		tb[r] = timed(cmd);
		ok += t[r] >= 0 && tb[r] >= 0;
	}
	if (ok < runs) {
		printf("perf report failed\n");
		return;
	}
	m = median(t, (size_t)runs);
	mb = median(tb, (size_t)runs);
	printf("perf report, 2 s of the child at 1 kHz: %8.1f ms  (names %d of %d hot functions)\n", m * 1e3,
	       perf_named(data, nlibs), nlibs);
	printf("perf report of `true` (its fixed cost): %8.1f ms\n", mb * 1e3);
	printf("ratio perf report / perftop:            %8.1fx (%.1fx without perf's fixed cost)\n",
	       m / perftop_s, (m - mb) / perftop_s);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? (int)strtonum(argv[1], 1, MAX_RUNS, NULL) : 7;
	int nlibs = argc > 2 ? (int)strtonum(argv[2], 1, 1000, NULL) : 100;
	char dir[] = "/tmp/bench-dsos-XXXXXX", path[PATH_MAX], name[64], cmd[PATH_MAX + 16];
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	void (**hot)(unsigned long) = NULL;
	double t[MAX_RUNS], tk[MAX_RUNS], t0, m;
	pid_t child = -1;
	int named = 0;

	if (runs == 0 || nlibs == 0 || mkdtemp(dir) == NULL)
		return 2;
	t0 = clock_mono_s();
	if (build_libs(dir, nlibs) != 0) {
		fprintf(stderr, "bench_dsos: cannot build the libraries in %s\n", dir);
		goto out;
	}
	printf("built %d libraries of %d functions in %.1f s\n", nlibs, FUNCS + 1, clock_mono_s() - t0);
	hot = calloc((size_t)nlibs, sizeof(*hot));
	if (hot == NULL)
		goto out;
	for (int i = 0; i < nlibs; i++) {
		void *h;

		snprintf(path, sizeof(path), "%s/lib%03d.so", dir, i);
		snprintf(name, sizeof(name), "lib%03d_hot", i);
		if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL ||
		    (*(void **)&hot[i] = dlsym(h, name)) == NULL) {
			fprintf(stderr, "bench_dsos: %s\n", dlerror());
			goto out;
		}
	}
	child = fork();
	if (child == 0) {
		for (;;)
			for (int i = 0; i < nlibs; i++)
				hot[i](20000);
	}
	if (child < 0)
		goto out;

	for (int r = 0; r < runs; r++) {
		struct symbols *s;
		struct sym_result res;

		t0 = clock_mono_s();
		s = symbols_new(&o);
		if (s == NULL)
			goto out;
		symbols_synthesize(s, child);
		named = 0;
		for (int i = 0; i < nlibs; i++) {
			symbols_resolve(s, child, (uint64_t)(uintptr_t)hot[i] + 4, false, &res);
			snprintf(name, sizeof(name), "lib%03d_hot", i);
			named += strcmp(res.sym, name) == 0;
		}
		t[r] = clock_mono_s() - t0;
		t0 = clock_mono_s();
		symbols_load_kernel(s);
		tk[r] = clock_mono_s() - t0;
		symbols_free(s);
	}
	m = median(t, (size_t)runs);
	printf("perftop: maps + first symbol in each of %d libraries: %8.2f ms median of %d (names %d of %d)\n",
	       nlibs, m * 1e3, runs, named, nlibs);
	printf("perftop: kallsyms (loaded beside, not in the above):  %8.2f ms\n", median(tk, (size_t)runs) * 1e3);
	bench_perf(dir, child, nlibs, runs < 5 ? runs : 5, m);
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	free(hot);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_dsos: could not remove %s\n", dir);
	return 0;
}
