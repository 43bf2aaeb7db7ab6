/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The per-instruction counts' cost on agg's sample path (issue 47): the
 * same stream of flat samples (a skewed mix of symbols and offsets, as the
 * session hands them: a resolve then memo hits, a roll every second of a
 * 4 kHz x CPUS run) into an agg counting the hottest symbols' offsets
 * (AGG_ANNOT_SYMS) and into one counting none (agg_annot_keep 0),
 * alternated; medians of ns per sample.
 * usage: bench_annot [ROUNDS] [SAMPLES] */
#include <inttypes.h>

#include "agg.h"
#include "bench.h"
#include "symbols.h"

#define NSYMS 400
#define CPUS 2
#define RATE 4000

static double run(bool counting, size_t samples)
{
	int cpu = 0;
	struct agg *a = agg_new(1, &cpu, 1);
	uint64_t rng = 7;
	double t0, t;

	if (a == NULL)
		return -1;
	if (!counting)
		agg_annot_keep(a, 0);
	t0 = clock_mono_s();
	for (size_t i = 0; i < samples; i++) {
		uint64_t r = bench_rng(&rng);
		/* Skewed: symbol k with weight ~ 1/(k+1); offsets up to 256 bytes. */
		uint64_t k = (r & 0xffff) * (r & 0xffff) % NSYMS * ((r >> 16) & 1) + ((r >> 17) % 8);
		uint64_t off = (r >> 24) % 64 * 4;
		struct agg_where w = { .pid = 100 + (pid_t)(k % 7), .tid = 100 + (pid_t)(k % 7),
				       .ip = 0x400000 + k * 0x1000 + off, .tag = 1 };
		struct sym_result sr = { .sym = "f", .dso = "/bin/x", .key = k + 1, .comm = "x",
					 .sym_start = 0x400000 + k * 0x1000, .sym_size = 0x1000, .sym_off = off };

		if (!agg_sample_memo(a, 0, 0, &w, 1000000))
			agg_sample_at(a, 0, 0, &w, &sr, 1000000);
		if (i % (RATE * CPUS) == RATE * CPUS - 1)
			agg_roll(a, 0);
	}
	t = clock_mono_s() - t0;
	agg_free(a);
	return t * 1e9 / (double)samples;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9;
	size_t samples = argc > 2 ? (size_t)atol(argv[2]) : 4000000;
	double on[64], off[64];

	if (rounds < 1 || rounds > 64)
		rounds = 9;
	for (int i = 0; i < rounds; i++) {
		off[i] = run(false, samples);
		on[i] = run(true, samples);
	}
	double mon = median(on, (size_t)rounds), moff = median(off, (size_t)rounds);

	printf("agg flat path, %zu samples, %d rounds alternated: counting %.2f ns/sample, not counting %.2f "
	       "ns/sample, +%.2f ns (%.1f%%)\n", samples, rounds, mon, moff, mon - moff, 100.0 * (mon - moff) / moff);
	return 0;
}
