/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Call graphs through agg: self and children, callers and callees, the
 * call-path tree and its bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "agg_int.h"
#include "callgraph.h"
#include "check.h"
#include "flame.h"

static struct sym_result fr(const char *name, uint64_t key)
{
	return (struct sym_result){ .sym = name, .dso = "/bin/w", .key = key, .comm = "w" };
}

static const struct agg_sym *row(struct agg *a, const char *name)
{
	const struct agg_sym **rows;
	size_t n = agg_symbols(a, AGG_TOTAL, &rows);

	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i]->sym, name) == 0)
			return rows[i];
	return NULL;
}

struct paths {
	char buf[4096];
	size_t len;
	uint64_t sum;
};

static void on_path(void *arg, const struct cg_frame *path, size_t depth, uint64_t samples)
{
	struct paths *p = arg;

	for (size_t i = 0; i < depth; i++)
		p->len += (size_t)snprintf(p->buf + p->len, sizeof(p->buf) - p->len, "%s%s", i ? ";" : "", path[i].name);
	p->len += (size_t)snprintf(p->buf + p->len, sizeof(p->buf) - p->len, " %llu\n", (unsigned long long)samples);
	p->sum += samples;
}

/* The stack memo against the long way: the same samples, rolls, renames
 * and pid reuse through two aggs, one with the memo off, must leave every
 * count the same (rows, children, tree nodes, edges, "other", stats). */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rng(void)
{
	return check_rng(&rng_state);
}

static const struct agg_sym *by_key(struct agg *a, uint64_t key)
{
	const struct agg_sym **rows;
	size_t n = agg_symbols(a, AGG_TOTAL, &rows);

	for (size_t i = 0; i < n; i++)
		if (rows[i]->key == key)
			return rows[i];
	return NULL;
}

static bool counts_eq(const struct agg_counts *x, const struct agg_counts *y, size_t nev)
{
	for (size_t e = 0; e < nev; e++)
		if (x->samples[e] != y->samples[e] || x->period[e] != y->period[e])
			return false;
	return true;
}

/* Every count of a (memo) equals b's (no memo); why in *what. */
static bool same_counts(struct agg *a, struct agg *b, const char **what)
{
	const struct agg_sym **ra;
	const struct agg_task **ta, **tb;
	const struct cg *ga = agg_callgraph(a), *gb = agg_callgraph(b);
	struct agg_stats sa, sb;
	size_t n, nev = agg_nevents(a);

	agg_get_stats(a, &sa);
	agg_get_stats(b, &sb);
	*what = "stats";
	if (sa.syms != sb.syms || sa.active_syms != sb.active_syms || sa.active_tasks != sb.active_tasks ||
	    sa.expired_syms != sb.expired_syms || !counts_eq(&sa.sym_expired, &sb.sym_expired, nev) ||
	    !counts_eq(&sa.sym_ch_expired, &sb.sym_ch_expired, nev))
		return false;
	for (size_t e = 0; e < nev; e++)
		if (agg_event(a, e)->samples_iv != agg_event(b, e)->samples_iv ||
		    agg_event(a, e)->period_total != agg_event(b, e)->period_total)
			return false;
	*what = "symbol rows";
	n = agg_symbols(a, AGG_TOTAL, &ra);
	for (size_t i = 0; i < n; i++) {
		const struct agg_sym *x = ra[i], *y = by_key(b, x->key);

		if (y == NULL || strcmp(x->sym, y->sym) || !counts_eq(&x->iv, &y->iv, nev) ||
		    !counts_eq(&x->total, &y->total, nev) || !counts_eq(&x->ch_iv, &y->ch_iv, nev) ||
		    !counts_eq(&x->ch_total, &y->ch_total, nev) || x->active != y->active)
			return false;
	}
	*what = "task rows";
	n = agg_tasks(a, AGG_TOTAL, &ta);
	if (agg_tasks(b, AGG_TOTAL, &tb) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		n = agg_tasks(a, AGG_TOTAL, &ta);
		agg_tasks(b, AGG_TOTAL, &tb);
		while (j < n && tb[j]->pid != ta[i]->pid)
			j++;
		if (j == n || strcmp(ta[i]->comm, tb[j]->comm) || !counts_eq(&ta[i]->iv, &tb[j]->iv, nev) ||
		    !counts_eq(&ta[i]->total, &tb[j]->total, nev))
			return false;
	}
	*what = "call-path tree";
	if ((ga == NULL) != (gb == NULL))
		return false;
	if (ga == NULL)
		return true;
	if (callgraph_nodes(ga) != callgraph_nodes(gb))
		return false;
	for (size_t e = 0; e < nev; e++)
		for (int sc = 0; sc < 2; sc++) {
			enum agg_scope scope = sc ? AGG_TOTAL : AGG_INTERVAL;

			if (callgraph_other(ga, scope, e) != callgraph_other(gb, scope, e))
				return false;
			for (size_t i = 0; i < callgraph_nodes(ga); i++)
				if (callgraph_node_parent(ga, i) != callgraph_node_parent(gb, i) ||
				    strcmp(callgraph_node_frame(ga, i).name, callgraph_node_frame(gb, i).name) ||
				    callgraph_node_samples(ga, i, scope, e) != callgraph_node_samples(gb, i, scope, e))
					return false;
		}
	*what = "edges";
	n = agg_symbols(a, AGG_TOTAL, &ra);
	for (size_t i = 0; i < n; i++) {
		const struct agg_sym *x = ra[i], *y = by_key(b, x->key);

		for (size_t e = 0; e < nev; e++)
			for (int sc = 0; sc < 4; sc++) {
				enum agg_scope scope = sc & 1 ? AGG_TOTAL : AGG_INTERVAL;
				struct cg_link la[64], lb[64];
				size_t na = (sc & 2 ? callgraph_callees : callgraph_callers)(ga, x, scope, e, la, 64);
				size_t nb = (sc & 2 ? callgraph_callees : callgraph_callers)(gb, y, scope, e, lb, 64);
				uint64_t suma = 0, sumb = 0;

				if (na != nb)
					return false;
				/* Ties may come in either order: compare the sums and keys' sum. */
				for (size_t k = 0; k < na; k++) {
					suma += la[k].samples * 31 + la[k].sym->key;
					sumb += lb[k].samples * 31 + lb[k].sym->key;
				}
				if (suma != sumb)
					return false;
			}
	}
	return true;
}

/* One run of ops through both; bound: the tree's node bound (0: default);
 * min_hits: the memo must have counted at least these (else the test
 * would pass with the memo never used). */
static void memo_run(size_t bound, int ops, uint64_t min_hits, const char *name)
{
	static const int cpus[] = { 0, 1 };
	struct agg *a = agg_new(2, cpus, 2), *b = agg_new(2, cpus, 2);
	struct sym_result st[48][24];
	size_t depth[48];
	char names[40][8];
	static const char *comms[] = { "w", "x", "y", "zz" };
	const char *what = "";
	bool ok = true;
	int checks = 0;

	if (a == NULL || b == NULL) {
		CHECK(0, "%s: agg_new", name);
		return;
	}
	a->cg_max = b->cg_max = bound;
	b->memo_off = true;
	for (int i = 0; i < 40; i++)
		snprintf(names[i], sizeof(names[i]), "f%d", i);
	for (size_t s = 0; s < 48; s++) { /* outermost frames shared, as main is */
		depth[s] = 1 + rng() % 24;
		for (size_t f = 0; f < depth[s]; f++) {
			size_t k = f + 1 == depth[s] ? 0 : f + 2 == depth[s] ? 1 + rng() % 3 : rng() % 40;

			if (f > 0 && rng() % 6 == 0) /* recursion */
				k = (size_t)(st[s][f - 1].key - 1);
			st[s][f] = (struct sym_result){ .sym = names[k], .dso = "/bin/w", .key = k + 1 };
		}
	}
	for (int op = 0; op < ops && ok; op++) {
		uint64_t r = rng() % 1000;
		pid_t pid = 10 + (pid_t)(rng() % 3);

		if (r < 880) {
			size_t s = rng() % 48;
			size_t ev = rng() % 4 == 0;
			uint64_t period = 1 + rng() % 1000;
			int cpu = (int)(rng() % 3) - (rng() % 8 == 0); /* -1 and 2: no CPU row */
			pid_t tid = pid + (pid_t)(rng() % 2) * 100;

			st[s][0].comm = st[s][0].thread_comm = comms[pid - 10];
			agg_sample_stack(a, ev, cpu, pid, tid, st[s], depth[s], period);
			agg_sample_stack(b, ev, cpu, pid, tid, st[s], depth[s], period);
		} else if (r < 960) { /* flat rows that come and go */
			struct sym_result f = { .sym = "flat", .dso = "/bin/w", .key = 1000 + rng() % 300, .comm = "w" };

			agg_sample(a, 0, 0, pid, pid, &f, 7);
			agg_sample(b, 0, 0, pid, pid, &f, 7);
		} else if (r < 980) {
			unsigned pct = rng() % 2 ? 0 : 50;

			agg_roll(a, pct);
			agg_roll(b, pct);
			ok = same_counts(a, b, &what);
			checks++;
		} else if (r < 990) { /* a rename: the memo must not count under the old name */
			const char *c = comms[rng() % 4];

			agg_task_comm(a, pid, c);
			agg_task_comm(b, pid, c);
		} else { /* the pid exits and comes back, maybe as another program */
			agg_task_exit(a, pid);
			agg_task_exit(b, pid);
			if (rng() % 2) {
				agg_task_new(a, pid);
				agg_task_new(b, pid);
			}
		}
	}
	if (ok) {
		ok = same_counts(a, b, &what);
		checks++;
	}
	CHECK(ok && a->memo_hits >= min_hits && b->memo_hits == 0,
	      "%s: memo on and off count the same (%d checks, %llu memo hits; first difference: %s)", name, checks,
	      (unsigned long long)a->memo_hits, ok ? "none" : what);
	agg_free(a);
	agg_free(b);
}

int main(void)
{
	static const int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	struct sym_result hot = fr("hot", 1), fa = fr("a", 2), fb = fr("b", 3), mainf = fr("main", 4), rec = fr("rec", 5);
	struct sym_result s1[] = { hot, fa, mainf }, s2[] = { hot, fb, mainf }, s3[] = { hot, mainf };
	struct sym_result s4[] = { rec, rec, rec, mainf };
	struct cg_link l[4];
	const struct cg *g;
	struct paths p = { .len = 0 };
	size_t n;

	for (int i = 0; i < 60; i++)
		agg_sample_stack(a, 0, 0, 10, 10, s1, 3, 1);
	for (int i = 0; i < 30; i++)
		agg_sample_stack(a, 0, 0, 10, 10, s2, 3, 1);
	for (int i = 0; i < 10; i++)
		agg_sample_stack(a, 0, 0, 10, 10, s3, 2, 1);
	for (int i = 0; i < 5; i++)
		agg_sample_stack(a, 0, 0, 10, 10, s4, 4, 1);
	g = agg_callgraph(a);
	CHECK(g != NULL, "a call graph once stacks come");
	CHECK(row(a, "hot")->total.samples[0] == 100 && row(a, "hot")->ch_total.samples[0] == 100,
	      "hot: self 100, children 100");
	CHECK(row(a, "main")->total.samples[0] == 0 && row(a, "main")->ch_total.samples[0] == 105,
	      "main: self 0, children 105 (every stack once)");
	CHECK(row(a, "rec")->ch_total.samples[0] == 5 && row(a, "rec")->total.samples[0] == 5,
	      "recursion counts once per stack in children");
	n = callgraph_callers(g, row(a, "hot"), AGG_TOTAL, 0, l, 4);
	CHECK(n == 3 && l[0].sym == row(a, "a") && l[0].samples == 60 && l[1].sym == row(a, "b") &&
	      l[1].samples == 30 && l[2].sym == row(a, "main") && l[2].samples == 10, "callers of hot, most first");
	n = callgraph_callees(g, row(a, "main"), AGG_TOTAL, 0, l, 2);
	CHECK(n == 2 && l[0].sym == row(a, "a") && l[0].samples == 60 && l[1].sym == row(a, "b"),
	      "callees of main, top 2");
	callgraph_walk_paths(g, AGG_TOTAL, 0, on_path, &p);
	CHECK(strstr(p.buf, "w;main;a;hot 60\n") && strstr(p.buf, "w;main;b;hot 30\n") &&
	      strstr(p.buf, "w;main;hot 10\n") && strstr(p.buf, "w;main;rec;rec;rec 5\n"),
	      "folded paths, outermost first");
	CHECK(p.sum == 105, "the paths add up to the samples (%llu)", (unsigned long long)p.sum);

	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CHECK(f && flame_folded(f, a, AGG_TOTAL, 0) == 0, "folded output written");
		if (f)
			fclose(f);
		CHECK(buf && strstr(buf, "w;main;a;hot 60\n") && strstr(buf, "w;main;rec;rec;rec 5\n"),
		      "folded lines as flamegraph.pl reads them");
		free(buf);
		buf = NULL;
		f = open_memstream(&buf, &len);
		CHECK(f && flame_svg(f, a, AGG_TOTAL, 0, "t<&>") == 0, "SVG written");
		if (f)
			fclose(f);
		CHECK(buf && strstr(buf, "<svg ") && strstr(buf, "t&lt;&amp;&gt;") && strstr(buf, "data-n=\"hot\"") &&
		      strstr(buf, "</svg>\n"), "SVG names the frames, title escaped");
		free(buf);
	}
	agg_roll(a, 0);
	CHECK(row(a, "main")->ch_iv.samples[0] == 0 && callgraph_node_samples(g, 0, AGG_INTERVAL, 0) == 0 &&
	      callgraph_node_samples(g, 0, AGG_TOTAL, 0) == 105, "a roll zeroes the interval, keeps the totals");
	agg_free(a);

	/* A bound of 4 nodes: root, comm, main, a; the rest is "other". */
	{
		struct cg *b = callgraph_new(1, 4);
		const struct agg_sym *x[3] = { (void *)1, (void *)2, (void *)3 };
		struct agg_sym sy[3] = { { .sym = "hot" }, { .sym = "a" }, { .sym = "main" } };

		x[0] = &sy[0];
		x[1] = &sy[1];
		x[2] = &sy[2];
		callgraph_add(b, 0, "w", x, 3);
		CHECK(callgraph_nodes(b) == 4 && callgraph_other(b, AGG_TOTAL, 0) == 1, "past the bound: counted as other");
		callgraph_free(b);
	}

	/* The roll decays only what counts this interval, yet every node and
	 * edge that counts again is decayed again. */
	{
		struct cg *c = callgraph_new(1, 64);
		struct agg_sym sy[3] = { { .sym = "leaf" }, { .sym = "mid" }, { .sym = "top" } };
		const struct agg_sym *x[3] = { &sy[0], &sy[1], &sy[2] };
		struct cg_link lk[2];
		bool ok = true;

		for (int round = 0; round < 3; round++) {
			for (int i = 0; i < 8; i++)
				callgraph_add(c, 0, "w", x, 3);
			callgraph_roll(c, 50);
			ok &= callgraph_node_samples(c, 0, AGG_INTERVAL, 0) == 4 &&
			      callgraph_callers(c, &sy[0], AGG_INTERVAL, 0, lk, 2) == 1 && lk[0].samples == 4;
			for (int r = 0; r < 4; r++)
				callgraph_roll(c, 50);
			ok &= callgraph_node_samples(c, 0, AGG_INTERVAL, 0) == 0 && callgraph_node_samples(c, 3, AGG_INTERVAL, 0) == 0 &&
			      callgraph_callers(c, &sy[0], AGG_INTERVAL, 0, lk, 2) == 0;
		}
		CHECK(ok && callgraph_node_samples(c, 0, AGG_TOTAL, 0) == 24, "interval counts decay to zero, round after round");
		callgraph_free(c);
	}
	/* Past the node map's first size (512 slots, rehashed at half load): the
	 * rehash must leave out the root, which has no name to hash. */
	{
		struct cg *b = callgraph_new(1, CG_MAX_NODES_DEFAULT);
		static struct agg_sym sy[1000];
		const struct agg_sym *x[2];
		uint64_t sum = 0;

		for (size_t i = 0; b && i < 1000; i++) {
			sy[i].sym = "f";
			x[0] = &sy[i];
			x[1] = &sy[(i + 1) % 1000];
			callgraph_add(b, 0, "w", x, 2);
		}
		for (size_t i = 0; b && i < callgraph_nodes(b); i++)
			if (callgraph_node_parent(b, i) == 1) /* the comm's children */
				sum += callgraph_node_samples(b, i, AGG_TOTAL, 0);
		CHECK(b && callgraph_nodes(b) == 2 + 2000 && sum == 1000, "a tree of 2002 nodes, every stack kept (%zu nodes)",
		      b ? callgraph_nodes(b) : 0);
		callgraph_free(b);
	}
	/* Past the maps' first size (256 nodes, 256 edges): they rehash (the
	 * root, which has no name, stays out), and every path is still found. */
	{
		static struct agg_sym sy[600];
		struct cg *b = callgraph_new(1, 1 << 12);
		bool found = true;

		for (size_t i = 0; i < 600; i++) {
			const struct agg_sym *x[2] = { &sy[i], &sy[(i + 1) % 600] };

			sy[i].sym = "f";
			callgraph_add(b, 0, "w", x, 2);
			callgraph_add(b, 0, "w", x, 2);
		}
		for (size_t i = 0; i < 600 && found; i++) {
			struct cg_link lk[2];

			found = callgraph_callers(b, &sy[i], AGG_TOTAL, 0, lk, 2) == 1 && lk[0].sym == &sy[(i + 1) % 600] &&
				lk[0].samples == 2;
		}
		CHECK(callgraph_nodes(b) == 2 + 600 + 600 && found,
		      "1 200 paths and 600 edges: the maps grow and each is counted twice (%zu nodes)", callgraph_nodes(b));
		callgraph_free(b);
	}
	memo_run(0, 60000, 20000, "the default bound");
	memo_run(60, 30000, 1000, "a bound of 60 nodes (\"other\")");
	return check_done();
}
