/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The live view's call-graph work per tick (-g): what frame_take costs with
 * and without the call-path tree's copy, and building the inline tree of a
 * symbol on every stack and F5's whole tree, on a tree filled to the
 * agg's bound (2^18 nodes, the worst case), or a tree of STACKS stacks, as
 * an interval at that many samples holds. CPU time; no timed assertions.
 *   bench_calltree [STACKS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "agg.h"
#include "callgraph.h"
#include "ui.h"

#define NSYMS 4096

/* CPU time, not wall time: the machine may be shared. */
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
#define DEPTH 10
#define RUNS 9

static char names[NSYMS][16];

static double timed_take(struct ui *u, struct agg *a, bool cg)
{
	double t[RUNS];

	u->callgraph = cg;
	for (int r = 0; r < RUNS; r++) {
		double t0 = cpu();

		frame_take(u, a, 1.0);
		t[r] = cpu() - t0;
	}
	return median(t, RUNS);
}

int main(int argc, char **argv)
{
	static const int cpus[] = { 0 };
	long stacks = argc > 1 ? atol(argv[1]) : 400000;
	struct options o = { .interval = 1.0, .freq = 4000, .no_color = true };
	struct agg *a = agg_new(1, cpus, 1);
	struct sym_result fr[DEPTH];
	struct session s;
	struct ui u;
	uint64_t x = 88172645463325252ULL;
	double t_plain, t_cg, t[RUNS];

	if (a == NULL)
		return 1;
	for (int i = 0; i < NSYMS; i++)
		snprintf(names[i], sizeof(names[i]), "f%d", i);
	/* Stacks from main down through random functions to a leaf; every
	 * fourth ends in memcpy, the symbol whose trees are built below. */
	for (long k = 0; k < stacks; k++) {
		size_t n = 3 + (size_t)(k % (DEPTH - 3));

		for (size_t i = 0; i < n; i++) {
			size_t id;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			id = i + 1 == n ? 0 : i == 0 && k % 4 == 0 ? 1 : 2 + (size_t)(x % (NSYMS - 2));
			fr[i] = (struct sym_result){ .sym = id == 0 ? "main" : id == 1 ? "memcpy" : names[id],
						     .dso = "/usr/bin/w", .key = id + 1, .comm = "w" };
		}
		agg_sample_stack(a, 0, 0, 10, 10, fr, n, 1);
	}
	memset(&s, 0, sizeof(s));
	s.agg = a;
	ui_init(&u, &s, &o);
	u.fixed_time = 1700000000; /* no /proc reads in frame_take */
	t_plain = timed_take(&u, a, false);
	t_cg = timed_take(&u, a, true);
	printf("call-path tree: %zu nodes (bound %zu), %llu stacks past it\n", callgraph_nodes(agg_callgraph(a)),
	       CG_MAX_NODES_DEFAULT, (unsigned long long)callgraph_other(agg_callgraph(a), AGG_INTERVAL, 0));
	printf("frame_take: %.2f ms without -g's copy, %.2f ms with it (+%.2f ms a tick; %zu nodes, %zu symbols, %zu KiB of names copied)\n",
	       t_plain * 1e3, t_cg * 1e3, (t_cg - t_plain) * 1e3, u.cg.n, u.cg.nsyms, u.cg.plen / 1024);
	for (size_t i = 0; i < u.fr.nsyms; i++)
		if (strcmp(u.fr.syms[i].sym, "memcpy") == 0 && calltree_open(&u, &u.fr.syms[i]) != 0)
			return 1;
	for (int kind = 0; kind < 2; kind++) {
		u.tree.kind = kind ? TREE_CALLEES : TREE_CALLERS;
		for (int r = 0; r < RUNS; r++) {
			double t0 = cpu();

			calltree_build(&u, &u.tree);
			t[r] = cpu() - t0;
		}
		printf("inline tree of memcpy (%s): %.2f ms to build, %zu lines kept\n", kind ? "callees" : "callers",
		       median(t, RUNS) * 1e3, u.tree.nn);
	}
	u.paths.kind = TREE_PATHS;
	for (int r = 0; r < RUNS; r++) {
		double t0 = cpu();

		calltree_build(&u, &u.paths);
		t[r] = cpu() - t0;
	}
	printf("F5 tree: %.2f ms to build, %zu lines kept\n", median(t, RUNS) * 1e3, u.paths.nn);
	ui_free(&u);
	agg_free(a);
	return 0;
}
