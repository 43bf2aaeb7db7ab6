/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening the annotation of a ~10 000-instruction function (generated C,
 * compiled here with cc -O1 -g): annot_get cold (a new cache: the file's
 * headers, its names, capstone, the DWARF line table, the join) and
 * cached (the same target again), against objdump -d -l of the same
 * function (what perf annotate runs). Medians of RUNS runs; asserts
 * nothing. The bound: the view drawn within 50 ms.
 *
 * usage: bench_annotate [RUNS (default 7)] [GROUPS (default 1400)] */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
#include "bench.h"

#define MAX_RUNS 64

static int build(const char *dir, long groups)
{
	char path[PATH_MAX], cmd[2 * PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/big.c", dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("volatile long sink;\nlong big(long x);\n__attribute__((noinline)) long big(long x)\n{\n"
	      "\tlong a = x, b = x + 1;\n\n", f);
	for (long i = 0; i < groups; i++)
		fprintf(f, "\ta += b * %ld;\n\tb ^= a >> %ld;\n\tsink = a;\n", 3 + i % 97, 1 + i % 13);
	fputs("\treturn a + b;\n}\nint main(int argc, char **argv)\n{\n\treturn (int)big(argc);\n}\n", f);
	if (fclose(f))
		return -1;
	snprintf(cmd, sizeof(cmd), "cc -O1 -g -o '%s/big' '%s'", dir, path);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 7;
	long groups = argc > 2 ? atol(argv[2]) : 1400;
	char dir[] = "/tmp/perftop-bench-annot-XXXXXX", bin[PATH_MAX], cmd[3 * PATH_MAX], line[256], why[512];
	double cold[MAX_RUNS], warm[MAX_RUNS], objd[MAX_RUNS];
	unsigned long long addr = 0, size = 0;
	size_t ninsn = 0, nlines = 0;
	FILE *p;

	if (runs < 1 || runs > MAX_RUNS || groups < 1 || !mkdtemp(dir) || build(dir, groups)) {
		fprintf(stderr, "bench_annotate: cannot build the function (cc?)\n");
		return 1;
	}
	snprintf(bin, sizeof(bin), "%s/big", dir);
	snprintf(cmd, sizeof(cmd), "nm -S '%s'", bin);
	for (p = popen(cmd, "r"); p && fgets(line, sizeof(line), p);) {
		char name[64], type;
		unsigned long long a, s;

		if (sscanf(line, "%llx %llx %c %63s", &a, &s, &type, name) == 4 && strcmp(name, "big") == 0) {
			addr = a;
			size = s;
		}
	}
	if (p)
		pclose(p);
	for (int r = 0; r < runs; r++) {
		struct annot_cache *c = annot_cache_new(&(struct annot_opts){ .source = true });
		struct annot_target t = { .sym = "big", .dso = bin, .start = addr, .size = size };
		const struct annot_func *f;
		double t0 = clock_mono_s();

		f = annot_get(c, &t, why, sizeof(why));
		cold[r] = (clock_mono_s() - t0) * 1e3;
		if (f == NULL) {
			fprintf(stderr, "bench_annotate: %s\n", why);
			return 1;
		}
		ninsn = f->ninsn;
		nlines = 0;
		for (size_t i = 0; i < f->ninsn; i++)
			nlines += f->insn[i].line && (i == 0 || f->insn[i].line != f->insn[i - 1].line);
		t0 = clock_mono_s();
		annot_get(c, &t, why, sizeof(why));
		warm[r] = (clock_mono_s() - t0) * 1e3;
		annot_cache_free(c);
		snprintf(cmd, sizeof(cmd), "objdump -d -l --start-address=0x%llx --stop-address=0x%llx '%s' >/dev/null",
			 addr, addr + size, bin);
		objd[r] = timed(cmd) * 1e3;
	}
	printf("function: %zu instructions, %zu bytes, %zu source-line changes\n", ninsn, (size_t)size, nlines);
	printf("annot_get cold:   %.2f ms (median of %d)\n", median(cold, (size_t)runs), runs);
	printf("annot_get cached: %.4f ms\n", median(warm, (size_t)runs));
	printf("objdump -d -l:    %.2f ms (what perf annotate runs)\n", median(objd, (size_t)runs));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
