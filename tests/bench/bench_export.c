/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exporter's own work per interval, on a synthetic agg of NSYMS symbols
 * and NTASKS tasks fed 8000 samples an interval (4 kHz on two CPUs): what
 * export_interval does (comm accumulators, both /metrics pages, the symbols'
 * growth into an open profile window) and, every 15 intervals, the gzip'd
 * profile a /debug/pprof/profile?seconds=15 request gets. Deterministic,
 * unlike perftop's CPU on a shared machine; compare with its cost per
 * interval (doc/BENCHMARKS.md). Thread CPU time, so preemption does not count.
 * usage: bench_export [NSYMS] [NTASKS] [INTERVALS] */
#include <stdlib.h>

#include "bench.h"
#include "metrics.h"
#include "pprof.h"
#include "symbols.h"

static char names[1 << 16][32];

static const char *comm_of(pid_t pid)
{
	static char c[32];

	snprintf(c, sizeof(c), "task-%d", (int)pid % 97);
	return c;
}

int main(int argc, char **argv)
{
	size_t nsyms = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000;
	size_t ntasks = argc > 2 ? strtoul(argv[2], NULL, 10) : 300;
	size_t nint = argc > 3 ? strtoul(argv[3], NULL, 10) : 60;
	int cpus[] = { 0, 1 };
	struct agg *a = agg_new(1, cpus, 2);
	struct metrics *m = metrics_new(20, 50);
	struct metrics_figures f = { .intervals = 1 };
	struct pprof *win = pprof_new();
	uint64_t rng = 88172645463325252ull;
	double t_iv = 0, t_prof = 0, t_upd = 0, t_render = 0, t_win = 0, t_samp = 0, t_plain = 0;
	double *per = calloc(nint, sizeof(double));
	size_t page_bytes = 0, prof_bytes = 0, nprof = 0;

	if (!a || !m || !win || !per || nsyms > (1 << 16) || agg_pairs_keep(a, true))
		return 1;
	for (size_t i = 0; i < nsyms; i++)
		snprintf(names[i], sizeof(names[i]), "function_%zu", i);
	for (size_t it = 0; it < nint; it++) {
		const struct agg_pair *pairs;
		size_t n;
		double t0, t1;

		/* Odd intervals without the pairs (no window then): what keeping
		 * them adds to the sample path. */
		agg_pairs_keep(a, it % 2 == 0);
		t0 = clock_thread_cpu_s();
		for (int s = 0; s < 8000; s++) {
			uint64_t r = bench_rng(&rng);
			/* Skewed: a few symbols and tasks take most samples. */
			size_t k = (size_t)((r % nsyms) * (r % nsyms) / nsyms);
			pid_t pid = (pid_t)(1 + (r >> 20) % ntasks);
			struct sym_result sr = { .sym = names[k], .dso = "/usr/lib/libbench.so", .key = k + 1,
						 .comm = comm_of(pid) };

			agg_sample(a, 0, (int)(r >> 40) & 1, pid, 1, &sr, 250000);
		}
		*(it % 2 == 0 ? &t_samp : &t_plain) += clock_thread_cpu_s() - t0;
		t0 = clock_thread_cpu_s();
		metrics_update(m, a);
		t1 = clock_thread_cpu_s();
		t_upd += t1 - t0;
		for (int fmt = 0; fmt < 2; fmt++) {
			char *page;
			size_t len;

			if (metrics_render(m, a, &f, (enum promtext_fmt)fmt, &page, &len) == 0) {
				page_bytes = len;
				free(page);
			}
		}
		t_render += clock_thread_cpu_s() - t1;
		t1 = clock_thread_cpu_s();
		n = agg_pairs(a, &pairs);
		for (size_t i = 0; i < n; i++) {
			struct pprof_frame fr = { pairs[i].sym->sym, pairs[i].sym->dso, NULL, pairs[i].sym->key };

			if (pprof_add_known(win, fr.key, pairs[i].task->comm, pairs[i].samples, pairs[i].period))
				pprof_add(win, &fr, 1, pairs[i].task->comm, pairs[i].samples, pairs[i].period);
		}
		t_win += clock_thread_cpu_s() - t1;
		per[it] = clock_thread_cpu_s() - t0;
		t_iv += per[it];
		if ((it + 1) % 15 == 0) {
			struct pprof_meta pm = { .duration_nanos = 15000000000, .period = 250000 };
			uint8_t *buf;
			size_t len;

			t0 = clock_thread_cpu_s();
			if (pprof_build(win, &pm, &buf, &len) == 0) {
				prof_bytes = len;
				free(buf);
			}
			win = pprof_recycle(win); /* as the exporter: names kept for the next window */
			if (win == NULL) {
				fprintf(stderr, "bench_export: out of memory\n");
				return 1;
			}
			t_prof += clock_thread_cpu_s() - t0;
			nprof++;
		}
		agg_roll(a, 0);
	}
	printf("export per interval (%zu symbols, %zu tasks, 8000 samples): median %.0f us, mean %.0f us; "
	       "/metrics page %zu KiB\n", nsyms, ntasks, median(per, nint) * 1e6, t_iv / (double)nint * 1e6,
	       page_bytes / 1024);
	if (nprof)
		printf("15 s profile built and gzip'd: %.0f us each (%zu KiB)\n", t_prof / (double)nprof * 1e6,
		       prof_bytes / 1024);
	printf("of which per interval: comm accumulators %.0f us, both /metrics pages %.0f us, pairs into the "
	       "window %.0f us (a window open)\n", t_upd / (double)nint * 1e6, t_render / (double)nint * 1e6,
	       t_win / (double)((nint + 1) / 2) * 1e6);
	printf("8000 agg_samples: %.0f us with the pairs kept, %.0f us without\n",
	       t_samp / (double)((nint + 1) / 2) * 1e6, t_plain / (double)(nint / 2) * 1e6);
	printf("exporter CPU per second at -d 1 with a profile every 15 s: %.0f us\n",
	       (t_iv + t_prof) / (double)nint * 1e6);
	pprof_free(win);
	metrics_free(m);
	agg_free(a);
	free(per);
	return 0;
}
