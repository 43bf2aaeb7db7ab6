/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Symbol lookup speed: kallsyms and ELF tables of a million symbols, and
 * symbols_resolve (cache in front) on a mix of user and kernel addresses of
 * this very process. Prints rates; asserts nothing.
 *
 * usage: bench_symbols [lookups (default 10000000)] */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "elfsym.h"
#include "kallsyms.h"
#include "symbols.h"

#define NSYMS 1000000

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
#define rng() bench_rng(&rng_state)

static void report(const char *what, size_t n, double secs, size_t found)
{
	printf("%-44s %8.1f ns/lookup %10.0f lookups/s (%zu%% found)\n", what, secs * 1e9 / (double)n,
	       (double)n / secs, n ? found * 100 / n : 0);
}

static void bench_kallsyms(size_t n)
{
	size_t len = 0, found = 0;
	char *text = malloc((size_t)NSYMS * 48);
	struct kallsyms *ks;
	uint64_t span, sum = 0;
	double t0;

	if (text == NULL)
		return;
	/* Unsorted on purpose: modules' lines come after the core's. */
	for (size_t i = 0; i < NSYMS; i++)
		len += (size_t)sprintf(text + len, "%016" PRIx64 " %c sym_%zu\n",
				       (uint64_t)(0xffffffff81000000ull + ((i * 7919) % NSYMS) * 64), i & 1 ? 't' : 'T', i);
	t0 = clock_mono_s();
	if (kallsyms_load_buf(&ks, text, len) != 0) {
		free(text);
		return;
	}
	printf("kallsyms: parsed %zu lines in %.0f ms, %zu KiB\n", ks->nsyms, (clock_mono_s() - t0) * 1e3,
	       kallsyms_bytes(ks) / 1024);
	span = (uint64_t)NSYMS * 64;
	t0 = clock_mono_s();
	for (size_t i = 0; i < n; i++) {
		const struct kallsyms_sym *s = kallsyms_find(ks, 0xffffffff81000000ull + rng() % span);

		found += s != NULL;
		sum += s ? s->name : 0;
	}
	report("kallsyms_find, 1M symbols, random", n, clock_mono_s() - t0, found);
	if (sum == 42)
		puts("");
	kallsyms_free(ks);
	free(text);
}

static void bench_elfsym(size_t n)
{
	struct elfsym *t = calloc(1, sizeof(*t));
	size_t found = 0;
	uint64_t sum = 0;
	double t0;

	if (t == NULL || (t->syms = calloc(NSYMS, sizeof(*t->syms))) == NULL || (t->names = strdup("f")) == NULL) {
		elfsym_free(t);
		return;
	}
	for (size_t i = 0; i < NSYMS; i++)
		t->syms[i] = (struct elfsym_sym){ .addr = 0x1000 + i * 64, .size = 48, .name = 0 };
	t->nsyms = NSYMS;
	t0 = clock_mono_s();
	for (size_t i = 0; i < n; i++) {
		const struct elfsym_sym *s = elfsym_find(t, 0x1000 + rng() % ((uint64_t)NSYMS * 64));

		found += s != NULL;
		sum += s ? s->addr : 0;
	}
	report("elfsym_find, 1M symbols, random", n, clock_mono_s() - t0, found);
	if (sum == 42)
		puts("");
	elfsym_free(t);
}

/* Executable ranges of this process, from its maps. */
static size_t self_text(uint64_t (*r)[2], size_t max)
{
	char line[512], perms[8];
	uint64_t a, b;
	size_t n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &a, &b, perms) == 3 && strchr(perms, 'x') &&
		    !strstr(line, "[vsyscall]")) {
			r[n][0] = a;
			r[n++][1] = b;
		}
	if (f)
		fclose(f);
	return n;
}

static size_t kernel_text(uint64_t *addrs, size_t max)
{
	char line[512], name[256], type;
	uint64_t a;
	size_t n = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) == 3 && a && (type == 't' || type == 'T') &&
		    rng() % 8 == 0)
			addrs[n++] = a + rng() % 32;
	if (f)
		fclose(f);
	return n;
}

/* A working set of distinct addresses, 30% kernel, drawn with a skew (a few
 * hot ones, a long tail) as a profile's samples are. */
static void bench_resolve(size_t n, size_t working_set)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s = symbols_new(&o);
	uint64_t ranges[64][2], *kaddr = malloc(65536 * sizeof(*kaddr));
	uint64_t *ips = malloc(working_set * sizeof(*ips));
	bool *kern = malloc(working_set * sizeof(*kern));
	size_t nr, nk, known = 0;
	pid_t pid = getpid();
	struct sym_result r;
	char what[64];
	double t0;

	if (s == NULL || kaddr == NULL || ips == NULL || kern == NULL)
		goto out;
	symbols_load_kernel(s);
	symbols_synthesize(s, pid);
	nr = self_text(ranges, 64);
	nk = kernel_text(kaddr, 65536);
	for (size_t i = 0; i < working_set; i++) {
		kern[i] = nk && rng() % 10 < 3;
		if (kern[i]) {
			ips[i] = kaddr[rng() % nk];
		} else {
			size_t k = rng() % nr;

			ips[i] = ranges[k][0] + rng() % (ranges[k][1] - ranges[k][0]);
		}
	}
	/* First touch loads the tables: not what is timed. */
	for (size_t i = 0; i < working_set; i++) {
		symbols_resolve(s, pid, ips[i], kern[i], &r);
		known += strcmp(r.sym, "[unknown]") != 0;
	}
	t0 = clock_mono_s();
	for (size_t i = 0; i < n; i++) {
		uint64_t x = rng();
		/* Skew: half the samples on 1/16 of the set. */
		size_t k = x & 1 ? (x >> 1) % (working_set / 16 + 1) : (x >> 1) % working_set;

		symbols_resolve(s, pid, ips[k], kern[k], &r);
	}
	snprintf(what, sizeof(what), "symbols_resolve, %zu distinct ips", working_set);
	report(what, n, clock_mono_s() - t0, known * n / working_set);
out:
	symbols_free(s);
	free(kaddr);
	free(ips);
	free(kern);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtonum(argv[1], 1000, 10000000000LL, NULL) : 10000000;

	if (n == 0)
		n = 10000000;

	bench_kallsyms(n);
	bench_elfsym(n);
	bench_resolve(n, 256);
	bench_resolve(n, 2048);
	bench_resolve(n, 16384);
	bench_resolve(n / 4, 262144);
	return 0;
}
