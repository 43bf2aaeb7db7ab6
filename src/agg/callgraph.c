/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "callgraph.h"
#include "htab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Node 0 is the root; its children are comms, theirs symbols. A symbol
 * node under a symbol node is one caller -> callee edge: its index is kept
 * (edge), so a stack walked down the tree counts its edges without a
 * second lookup each. */
struct node {
	union {                    /* by depth: 0 the root (neither), 1 a comm, else a symbol */
		const struct agg_sym *sym;
		char *comm;
	};
	uint32_t parent, first_child, next_sibling, depth, edge;
};
/* 32 bytes, not 40: a system-wide tree has 100 000s. */
_Static_assert(sizeof(struct node) <= 32, "a call-path tree node stays within 32 bytes");

static inline const struct agg_sym *node_sym(const struct node *n)
{
	return n->depth >= 2 ? n->sym : NULL;
}

static inline const char *node_comm(const struct node *n)
{
	return n->depth == 1 ? n->comm : NULL;
}

struct edge {
	const struct agg_sym *callee, *caller;
};

/* Indexes with interval counts: the roll visits these, not every node and
 * edge ever made. on[i] says whether i is listed. */
struct actlist {
	uint32_t *v;
	size_t n, cap;
	uint8_t *on;
	size_t on_cap;
	bool all;                  /* could not grow: the roll walks everything */
};

struct cg {
	size_t nev, stride;        /* counts per node/edge: iv[nev] then total[nev] */
	struct actlist nact, eact;
	struct node *nodes;
	uint64_t *ncount;
	size_t nnodes, ncap, max;
	struct htab nmap;          /* node hash -> index + 1, several per hash */
	struct edge *edges;
	uint64_t *ecount;
	size_t nedges, ecap;
	struct htab emap;          /* edge hash -> index + 1, several per hash */
	uint64_t *other;
};

static inline uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void act_mark(struct actlist *l, uint32_t idx)
{
	if (l->all)
		return;
	if (idx >= l->on_cap) {
		size_t ncap = l->on_cap ? l->on_cap : 256;
		uint8_t *p;

		while (ncap <= idx)
			ncap *= 2;
		if ((p = realloc(l->on, ncap)) == NULL) {
			l->all = true;
			return;
		}
		memset(p + l->on_cap, 0, ncap - l->on_cap);
		l->on = p;
		l->on_cap = ncap;
	}
	if (l->on[idx])
		return;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 256;
		uint32_t *p = reallocarray(l->v, ncap, sizeof(*p));

		if (p == NULL) {
			l->all = true;
			return;
		}
		l->v = p;
		l->cap = ncap;
	}
	l->on[idx] = 1;
	l->v[l->n++] = idx;
}

/* Decays the listed counts; those at zero leave the list. With `all`, every
 * one of n, and the list starts again from those still counting. */
static void act_roll(struct actlist *l, uint64_t *counts, size_t stride, size_t nev, size_t n, unsigned pct)
{
	size_t k = 0;
	bool all = l->all;

	if (all) {
		l->all = false;
		l->n = 0;
		if (l->on)
			memset(l->on, 0, l->on_cap);
	}
	for (size_t i = 0; i < (all ? n : l->n); i++) {
		uint32_t idx = all ? (uint32_t)i : l->v[i];
		uint64_t *c = &counts[(size_t)idx * stride];
		bool zero = true;

		for (size_t e = 0; e < nev; e++) {
			c[e] = c[e] * pct / 100;
			zero = zero && c[e] == 0;
		}
		if (all) {
			if (!zero)
				act_mark(l, idx);
		} else if (zero) {
			l->on[idx] = 0;
		} else {
			l->v[k++] = idx;
		}
	}
	if (!all)
		l->n = k;
}

static uint64_t node_hash(const struct cg *g, uint32_t parent, const struct agg_sym *sym, const char *comm)
{
	(void)g;
	return mix(((uint64_t)parent << 32) ^ (sym ? (uint64_t)(uintptr_t)sym : str_hash(comm)));
}

static uint64_t edge_hash(const struct agg_sym *callee, const struct agg_sym *caller)
{
	return mix((uint64_t)(uintptr_t)callee * 31 ^ mix((uint64_t)(uintptr_t)caller));
}

struct cg *callgraph_new(size_t nevents, size_t max_nodes)
{
	struct cg *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return NULL;
	g->nev = nevents;
	g->stride = 2 * nevents;
	g->max = max_nodes > 1 ? max_nodes : 2;
	g->ncap = 256;
	g->nodes = calloc(g->ncap, sizeof(*g->nodes));
	g->ncount = calloc(g->ncap * g->stride, sizeof(*g->ncount));
	g->other = calloc(g->stride, sizeof(*g->other));
	if (g->nodes == NULL || g->ncount == NULL || g->other == NULL || htab_init(&g->nmap, 512) ||
	    htab_init(&g->emap, 512)) {
		callgraph_free(g);
		return NULL;
	}
	g->nnodes = 1; /* the root */
	return g;
}

void callgraph_free(struct cg *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].depth == 1)
			free(g->nodes[i].comm);
	free(g->nodes);
	free(g->ncount);
	htab_free(&g->nmap);
	free(g->edges);
	free(g->ecount);
	htab_free(&g->emap);
	free(g->other);
	free(g->nact.v);
	free(g->nact.on);
	free(g->eact.v);
	free(g->eact.on);
	free(g);
}

static bool grow_arrays(void **items, uint64_t **counts, size_t *cap, size_t item_size, size_t stride)
{
	size_t ncap = 2 * *cap;
	void *ni = reallocarray(*items, ncap, item_size);
	uint64_t *nc;

	if (ni == NULL)
		return false;
	*items = ni;
	nc = reallocarray(*counts, ncap, stride * sizeof(**counts));
	if (nc == NULL)
		return false;
	memset(nc + *cap * stride, 0, (ncap - *cap) * stride * sizeof(*nc));
	*counts = nc;
	*cap = ncap;
	return true;
}

static uint32_t edge_index(struct cg *g, const struct agg_sym *callee, const struct agg_sym *caller);

/* The child of parent for sym (or comm), made if new; UINT32_MAX past the bound. */
static uint32_t child(struct cg *g, uint32_t parent, const struct agg_sym *sym, const char *comm)
{
	uint64_t h = node_hash(g, parent, sym, comm);
	struct node *n;

	for (size_t i = htab_first(&g->nmap, h); i != SIZE_MAX; i = htab_next(&g->nmap, h, i)) {
		uint32_t k = (uint32_t)g->nmap.tab[i].val - 1;

		n = &g->nodes[k];
		/* Siblings share a depth: a root's children are comms, the rest symbols. */
		if (n->parent == parent && (sym ? node_sym(n) == sym : n->depth == 1 && strcmp(n->comm, comm) == 0))
			return k;
	}
	if (g->nnodes >= g->max)
		return UINT32_MAX;
	if (g->nnodes == g->ncap &&
	    !grow_arrays((void **)&g->nodes, &g->ncount, &g->ncap, sizeof(*g->nodes), g->stride))
		return UINT32_MAX;
	n = &g->nodes[g->nnodes];
	memset(n, 0, sizeof(*n));
	if (sym != NULL)
		n->sym = sym;
	else if ((n->comm = strdup(comm)) == NULL)
		return UINT32_MAX;
	n->parent = parent;
	n->edge = sym && node_sym(&g->nodes[parent]) ? edge_index(g, sym, node_sym(&g->nodes[parent])) : UINT32_MAX;
	n->depth = g->nodes[parent].depth + 1;
	n->next_sibling = g->nodes[parent].first_child;
	g->nodes[parent].first_child = (uint32_t)g->nnodes;
	g->nnodes++;
	htab_put(&g->nmap, h, g->nnodes); /* out of memory: unindexed, a twin may come */
	return (uint32_t)(g->nnodes - 1);
}

static void count_node(struct cg *g, uint32_t idx, size_t ev)
{
	uint64_t *c = &g->ncount[idx * g->stride];

	c[ev]++;
	c[g->nev + ev]++;
	act_mark(&g->nact, idx);
}

/* An edge's counts, and its place on the roll's list of edges to decay. */
static void count_at(struct cg *g, uint32_t k, size_t ev)
{
	uint64_t *c = &g->ecount[k * g->stride];

	c[ev]++;
	c[g->nev + ev]++;
	act_mark(&g->eact, k);
}

/* The edge's index, made if new; UINT32_MAX when out of memory. */
static uint32_t edge_index(struct cg *g, const struct agg_sym *callee, const struct agg_sym *caller)
{
	uint64_t h = edge_hash(callee, caller);

	for (size_t i = htab_first(&g->emap, h); i != SIZE_MAX; i = htab_next(&g->emap, h, i)) {
		uint32_t k = (uint32_t)g->emap.tab[i].val - 1;

		if (g->edges[k].callee == callee && g->edges[k].caller == caller)
			return k;
	}
	if (g->nedges == g->ecap) {
		if (g->ecap == 0) {
			g->edges = malloc(64 * sizeof(*g->edges));
			g->ecount = calloc(64 * g->stride, sizeof(*g->ecount));
			if (g->edges == NULL || g->ecount == NULL)
				return UINT32_MAX;
			g->ecap = 64;
		} else if (!grow_arrays((void **)&g->edges, &g->ecount, &g->ecap, sizeof(*g->edges), g->stride)) {
			return UINT32_MAX;
		}
	}
	g->edges[g->nedges] = (struct edge){ callee, caller };
	g->nedges++;
	htab_put(&g->emap, h, g->nedges);
	return (uint32_t)(g->nedges - 1);
}

static void count_edge(struct cg *g, const struct agg_sym *callee, const struct agg_sym *caller, size_t ev)
{
	uint32_t k = edge_index(g, callee, caller);

	if (k != UINT32_MAX)
		count_at(g, k, ev);
}

uint32_t callgraph_add_path(struct cg *g, size_t ev, const char *comm, const struct agg_sym *const *frames, size_t n)
{
	uint32_t cur;
	size_t i = n;
	bool again = true; /* every edge came with its node: callgraph_add_nodes can replay it */

	if (ev >= g->nev)
		return UINT32_MAX;
	count_node(g, 0, ev);
	cur = child(g, 0, NULL, comm ? comm : "?");
	if (cur == UINT32_MAX)
		goto other;
	count_node(g, cur, ev);
	while (i-- > 0) {
		cur = child(g, cur, frames[i], NULL);
		if (cur == UINT32_MAX)
			goto other;
		count_node(g, cur, ev);
		if (g->nodes[cur].edge != UINT32_MAX) {
			count_at(g, g->nodes[cur].edge, ev);
		} else if (i + 1 < n) {
			count_edge(g, frames[i], frames[i + 1], ev);
			again = false;
		}
	}
	return again ? cur : UINT32_MAX;
other:
	/* The edges of the frames not walked (frame i's with its caller included). */
	for (size_t j = 0; j + 1 < n && j <= i; j++)
		count_edge(g, frames[j], frames[j + 1], ev);
	g->other[ev]++;
	g->other[g->nev + ev]++;
	return UINT32_MAX;
}

void callgraph_add(struct cg *g, size_t ev, const char *comm, const struct agg_sym *const *frames, size_t n)
{
	callgraph_add_path(g, ev, comm, frames, n);
}

size_t callgraph_path_nodes(const struct cg *g, uint32_t leaf, uint32_t *out, size_t max)
{
	size_t n = 0;

	if (leaf >= g->nnodes)
		return 0;
	for (uint32_t k = leaf;; k = g->nodes[k].parent) {
		if (n == max)
			return 0;
		out[n++] = k;
		if (k == 0)
			return n;
	}
}

void callgraph_add_nodes(struct cg *g, size_t ev, const uint32_t *nodes, size_t n, uint64_t hits, bool mark)
{
	size_t nev = g->nev, stride = g->stride;

	if (ev >= nev)
		return;
	for (size_t i = 0; i < n; i++) {
		uint32_t k = nodes[i], edge = k ? g->nodes[k].edge : UINT32_MAX; /* the root's field is no edge */
		uint64_t *c = &g->ncount[k * stride];

		c[ev] += hits;
		c[nev + ev] += hits;
		if (edge != UINT32_MAX) {
			uint64_t *e = &g->ecount[edge * stride];

			e[ev] += hits;
			e[nev + ev] += hits;
		}
		if (mark) {
			act_mark(&g->nact, k);
			if (edge != UINT32_MAX)
				act_mark(&g->eact, edge);
		}
	}
}

static void decay(uint64_t *c, size_t nev, unsigned pct)
{
	for (size_t e = 0; e < nev; e++)
		c[e] = c[e] * pct / 100;
}

void callgraph_roll(struct cg *g, unsigned decay_pct)
{
	if (decay_pct > 100)
		decay_pct = 100;
	act_roll(&g->nact, g->ncount, g->stride, g->nev, g->nnodes, decay_pct);
	act_roll(&g->eact, g->ecount, g->stride, g->nev, g->nedges, decay_pct);
	decay(g->other, g->nev, decay_pct);
}

static inline uint64_t at(const uint64_t *c, const struct cg *g, enum agg_scope scope, size_t ev)
{
	return c[(scope == AGG_TOTAL ? g->nev : 0) + ev];
}

static size_t links(const struct cg *g, const struct agg_sym *sym, bool callers, enum agg_scope scope,
		    size_t ev, struct cg_link *out, size_t max)
{
	size_t n = 0;

	if (ev >= g->nev || max == 0)
		return 0;
	for (size_t i = 0; i < g->nedges; i++) {
		const struct edge *e = &g->edges[i];
		uint64_t v = at(&g->ecount[i * g->stride], g, scope, ev);
		size_t k;

		if ((callers ? e->callee : e->caller) != sym || v == 0)
			continue;
		/* Insertion into the short sorted list. */
		if (n == max && out[n - 1].samples >= v)
			continue;
		k = n < max ? n++ : max - 1;
		while (k > 0 && out[k - 1].samples < v) {
			out[k] = out[k - 1];
			k--;
		}
		out[k] = (struct cg_link){ callers ? e->caller : e->callee, v };
	}
	return n;
}

size_t callgraph_callers(const struct cg *g, const struct agg_sym *sym, enum agg_scope scope, size_t ev,
		  struct cg_link *out, size_t max)
{
	return links(g, sym, true, scope, ev, out, max);
}

size_t callgraph_callees(const struct cg *g, const struct agg_sym *sym, enum agg_scope scope, size_t ev,
		  struct cg_link *out, size_t max)
{
	return links(g, sym, false, scope, ev, out, max);
}

size_t callgraph_nodes(const struct cg *g) { return g->nnodes; }
size_t callgraph_node_parent(const struct cg *g, size_t i) { return i < g->nnodes ? g->nodes[i].parent : 0; }

struct cg_frame callgraph_node_frame(const struct cg *g, size_t i)
{
	const struct node *n = &g->nodes[i < g->nnodes ? i : 0];

	const struct agg_sym *sym = node_sym(n);
	const char *comm = node_comm(n);

	return (struct cg_frame){ sym ? sym->sym : comm ? comm : "all", sym };
}

uint64_t callgraph_node_samples(const struct cg *g, size_t i, enum agg_scope scope, size_t ev)
{
	return i < g->nnodes && ev < g->nev ? at(&g->ncount[i * g->stride], g, scope, ev) : 0;
}

uint64_t callgraph_other(const struct cg *g, enum agg_scope scope, size_t ev)
{
	return ev < g->nev ? at(g->other, g, scope, ev) : 0;
}

void callgraph_walk_paths(const struct cg *g, enum agg_scope scope, size_t ev, cg_path_fn fn, void *arg)
{
	struct cg_frame path[1024];

	if (ev >= g->nev)
		return;
	/* Depth-first without recursion: the sibling links and parents are the stack. */
	for (uint32_t cur = g->nodes[0].first_child; cur;) {
		const struct node *n = &g->nodes[cur];
		uint64_t self = at(&g->ncount[cur * g->stride], g, scope, ev);

		if (n->depth <= sizeof(path) / sizeof(path[0]))
			path[n->depth - 1] = callgraph_node_frame(g, cur);
		for (uint32_t c = n->first_child; c; c = g->nodes[c].next_sibling) {
			uint64_t v = at(&g->ncount[c * g->stride], g, scope, ev);

			self = self > v ? self - v : 0;
		}
		if (self && n->depth <= sizeof(path) / sizeof(path[0]))
			fn(arg, path, n->depth, self);
		if (n->first_child) {
			cur = n->first_child;
			continue;
		}
		while (cur && g->nodes[cur].next_sibling == 0)
			cur = g->nodes[cur].parent;
		if (cur)
			cur = g->nodes[cur].next_sibling;
	}
}
