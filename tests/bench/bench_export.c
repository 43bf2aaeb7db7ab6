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
#include "deltamap.h"
#include "metrics.h"
#include "pprof.h"

static char names[1 << 16][32];

/* CPU time, not wall: the shared machine preempts us for tens of ms. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
	struct deltamap last;
	uint64_t rng = 88172645463325252ull;
	double t_iv = 0, t_prof = 0, *per = calloc(nint, sizeof(double));
	size_t page_bytes = 0, prof_bytes = 0, nprof = 0;

	if (!a || !m || !win || !per || deltamap_init(&last, 2) || nsyms > (1 << 16))
		return 1;
	for (size_t i = 0; i < nsyms; i++)
		snprintf(names[i], sizeof(names[i]), "function_%zu", i);
	for (size_t it = 0; it < nint; it++) {
		const struct agg_sym **rows;
		size_t n;
		double t0;

		for (int s = 0; s < 8000; s++) {
			uint64_t r = bench_rng(&rng);
			/* Skewed: a few symbols and tasks take most samples. */
			size_t k = (size_t)((r % nsyms) * (r % nsyms) / nsyms);
			pid_t pid = (pid_t)(1 + (r >> 20) % ntasks);
			struct sym_result sr = { .sym = names[k], .dso = "/usr/lib/libbench.so", .key = k + 1,
						 .comm = comm_of(pid) };

			agg_sample(a, 0, (int)(r >> 40) & 1, pid, 1, &sr, 250000);
		}
		t0 = cpu_now();
		metrics_update(m, a);
		for (int fmt = 0; fmt < 2; fmt++) {
			char *page;
			size_t len;

			if (metrics_render(m, a, &f, (enum promtext_fmt)fmt, &page, &len) == 0) {
				page_bytes = len;
				free(page);
			}
		}
		n = agg_symbols(a, AGG_TOTAL, &rows);
		for (size_t i = 0; i < n; i++) {
			uint64_t *l = deltamap_get(&last, rows[i]->key), ds = rows[i]->total.samples[0] - l[0];
			struct pprof_frame fr = { rows[i]->sym, rows[i]->dso, NULL };

			if (ds)
				pprof_add(win, &fr, 1, NULL, ds, ds * 250000);
			l[0] = rows[i]->total.samples[0];
		}
		per[it] = cpu_now() - t0;
		t_iv += per[it];
		if ((it + 1) % 15 == 0) {
			struct pprof_meta pm = { .duration_nanos = 15000000000, .period = 250000 };
			uint8_t *buf;
			size_t len;

			t0 = cpu_now();
			if (pprof_build(win, &pm, &buf, &len) == 0) {
				prof_bytes = len;
				free(buf);
			}
			pprof_free(win);
			win = pprof_new();
			t_prof += cpu_now() - t0;
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
	printf("exporter CPU per second at -d 1 with a profile every 15 s: %.0f us\n",
	       (t_iv + t_prof) / (double)nint * 1e6);
	deltamap_free(&last);
	pprof_free(win);
	metrics_free(m);
	agg_free(a);
	free(per);
	return 0;
}
