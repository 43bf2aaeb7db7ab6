/* Call graphs through agg: self and children, callers and callees, the
 * call-path tree and its bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
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
	n = cg_callers(g, row(a, "hot"), AGG_TOTAL, 0, l, 4);
	CHECK(n == 3 && l[0].sym == row(a, "a") && l[0].samples == 60 && l[1].sym == row(a, "b") &&
	      l[1].samples == 30 && l[2].sym == row(a, "main") && l[2].samples == 10, "callers of hot, most first");
	n = cg_callees(g, row(a, "main"), AGG_TOTAL, 0, l, 2);
	CHECK(n == 2 && l[0].sym == row(a, "a") && l[0].samples == 60 && l[1].sym == row(a, "b"),
	      "callees of main, top 2");
	cg_walk_paths(g, AGG_TOTAL, 0, on_path, &p);
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
	CHECK(row(a, "main")->ch_iv.samples[0] == 0 && cg_node_samples(g, 0, AGG_INTERVAL, 0) == 0 &&
	      cg_node_samples(g, 0, AGG_TOTAL, 0) == 105, "a roll zeroes the interval, keeps the totals");
	agg_free(a);

	/* A bound of 4 nodes: root, comm, main, a; the rest is "other". */
	{
		struct cg *b = cg_new(1, 4);
		const struct agg_sym *x[3] = { (void *)1, (void *)2, (void *)3 };
		struct agg_sym sy[3] = { { .sym = "hot" }, { .sym = "a" }, { .sym = "main" } };

		x[0] = &sy[0];
		x[1] = &sy[1];
		x[2] = &sy[2];
		cg_add(b, 0, "w", x, 3);
		CHECK(cg_nodes(b) == 4 && cg_other(b, AGG_TOTAL, 0) == 1, "past the bound: counted as other");
		cg_free(b);
	}

	/* The roll decays only what counts this interval, yet every node and
	 * edge that counts again is decayed again. */
	{
		struct cg *c = cg_new(1, 64);
		struct agg_sym sy[3] = { { .sym = "leaf" }, { .sym = "mid" }, { .sym = "top" } };
		const struct agg_sym *x[3] = { &sy[0], &sy[1], &sy[2] };
		struct cg_link lk[2];
		bool ok = true;

		for (int round = 0; round < 3; round++) {
			for (int i = 0; i < 8; i++)
				cg_add(c, 0, "w", x, 3);
			cg_roll(c, 50);
			ok &= cg_node_samples(c, 0, AGG_INTERVAL, 0) == 4 &&
			      cg_callers(c, &sy[0], AGG_INTERVAL, 0, lk, 2) == 1 && lk[0].samples == 4;
			for (int r = 0; r < 4; r++)
				cg_roll(c, 50);
			ok &= cg_node_samples(c, 0, AGG_INTERVAL, 0) == 0 && cg_node_samples(c, 3, AGG_INTERVAL, 0) == 0 &&
			      cg_callers(c, &sy[0], AGG_INTERVAL, 0, lk, 2) == 0;
		}
		CHECK(ok && cg_node_samples(c, 0, AGG_TOTAL, 0) == 24, "interval counts decay to zero, round after round");
		cg_free(c);
	}
	/* Past the node map's first size (512 slots, rehashed at half load): the
	 * rehash must leave out the root, which has no name to hash. */
	{
		struct cg *b = cg_new(1, CG_MAX_NODES_DEFAULT);
		static struct agg_sym sy[1000];
		const struct agg_sym *x[2];
		uint64_t sum = 0;

		for (size_t i = 0; b && i < 1000; i++) {
			sy[i].sym = "f";
			x[0] = &sy[i];
			x[1] = &sy[(i + 1) % 1000];
			cg_add(b, 0, "w", x, 2);
		}
		for (size_t i = 0; b && i < cg_nodes(b); i++)
			if (cg_node_parent(b, i) == 1) /* the comm's children */
				sum += cg_node_samples(b, i, AGG_TOTAL, 0);
		CHECK(b && cg_nodes(b) == 2 + 2000 && sum == 1000, "a tree of 2002 nodes, every stack kept (%zu nodes)",
		      b ? cg_nodes(b) : 0);
		cg_free(b);
	}
	/* Past the maps' first size (256 nodes, 256 edges): they rehash (the
	 * root, which has no name, stays out), and every path is still found. */
	{
		static struct agg_sym sy[600];
		struct cg *b = cg_new(1, 1 << 12);
		bool found = true;

		for (size_t i = 0; i < 600; i++) {
			const struct agg_sym *x[2] = { &sy[i], &sy[(i + 1) % 600] };

			sy[i].sym = "f";
			cg_add(b, 0, "w", x, 2);
			cg_add(b, 0, "w", x, 2);
		}
		for (size_t i = 0; i < 600 && found; i++) {
			struct cg_link lk[2];

			found = cg_callers(b, &sy[i], AGG_TOTAL, 0, lk, 2) == 1 && lk[0].sym == &sy[(i + 1) % 600] &&
				lk[0].samples == 2;
		}
		CHECK(cg_nodes(b) == 2 + 600 + 600 && found,
		      "1 200 paths and 600 edges: the maps grow and each is counted twice (%zu nodes)", cg_nodes(b));
		cg_free(b);
	}
	return check_done();
}
