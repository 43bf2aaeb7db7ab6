/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calltree: call trees for the live view (-g). At each tick the frame copies
 * the agg's call-path tree (nodes with samples only, strings copied); the
 * inline tree of a symbol (its callers or its callees) and F5's whole tree
 * are merged from that copy, so opening, expanding or switching a tree
 * between ticks shows the interval on screen, never a half-rolled one.
 * The wait agg (--off-cpu) has its own snapshot, taken the same way: a
 * tree marked waits is built from it, under a Waits view row. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "ui.h"
#include "util.h"

#define NONE UINT32_MAX
#define TREE_MAX_NODES ((size_t)1 << 16) /* lines a tree keeps; the rest are "other" */

static inline uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* --- the snapshot ------------------------------------------------------- */

static uint32_t pool_add(struct ui_cgsnap *c, const char *s)
{
	size_t l = strlen(s) + 1;
	uint32_t at = (uint32_t)c->plen;

	if (!util_grow((void **)&c->pool, &c->pcap, c->plen + l, 1))
		return NONE;
	memcpy(c->pool + c->plen, s, l);
	c->plen += l;
	return at;
}

/* The snapshot's symbol of a cg frame (its agg row, or a comm), copied once a tick. */
static uint32_t intern(struct ui_cgsnap *c, struct cg_frame f)
{
	const void *key = f.sym ? (const void *)f.sym : (const void *)f.name;
	uintptr_t idx1 = htab_get(&c->imap, (uint64_t)(uintptr_t)key);
	struct ui_cgsym *s;

	if (idx1)
		return (uint32_t)(idx1 - 1);
	if (!util_grow((void **)&c->syms, &c->syms_cap, c->nsyms + 1, sizeof(*c->syms)))
		return NONE;
	s = &c->syms[c->nsyms];
	s->name = pool_add(c, f.sym ? (f.sym->sym ? f.sym->sym : "?") : f.name);
	s->dso = pool_add(c, f.sym && f.sym->dso ? f.sym->dso : "");
	if (s->name == NONE || s->dso == NONE)
		return NONE;
	s->kernel = f.sym && f.sym->kernel;
	s->comm = f.sym == NULL;
	if (htab_put(&c->imap, (uint64_t)(uintptr_t)key, c->nsyms + 1))
		return NONE;
	return (uint32_t)c->nsyms++;
}

static void snap_clear(struct ui_cgsnap *c)
{
	c->n = c->nsyms = c->plen = 0;
	c->base = c->other = 0;
	htab_clear(&c->imap);
}

void calltree_snap_clear(struct ui *u)
{
	snap_clear(&u->cg);
}

void calltree_snap_clear_waits(struct ui *u)
{
	snap_clear(&u->waits.cg);
	snap_clear(&u->waits.wake);
}

/* The open trees built from this snapshot, again. */
static void rebuild(struct ui *u, const struct ui_cgsnap *c)
{
	if (u->tree.open && calltree_snap(u, &u->tree) == c)
		calltree_build(u, &u->tree);
	if (u->mode == MODE_PATHS && calltree_snap(u, &u->paths) == c)
		calltree_build(u, &u->paths);
}

/* Nodes without samples in scope are left out, and with them their
 * subtrees (counts are inclusive): in interval mode that is most of them. */
static void snap_take(struct ui_cgsnap *c, struct agg *a)
{
	const struct cg *g = agg_callgraph(a);
	size_t n;

	if (g == NULL)
		return;
	n = callgraph_nodes(g);
	c->other = callgraph_other(g, c->scope, c->ev);
	if (!util_grow((void **)&c->map, &c->map_cap, n, sizeof(*c->map)))
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = callgraph_node_samples(g, i, c->scope, c->ev);
		size_t p = callgraph_node_parent(g, i);
		uint32_t sym = NONE;

		c->map[i] = NONE;
		if (i > 0 && (v == 0 || p >= i || c->map[p] == NONE))
			continue;
		if (i > 0 && (sym = intern(c, callgraph_node_frame(g, i))) == NONE)
			continue;
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 256;
			uint32_t *np = reallocarray(c->parent, cap, sizeof(*np));

			if (np == NULL)
				break;
			c->parent = np;
			np = reallocarray(c->sym, cap, sizeof(*np));
			if (np == NULL)
				break;
			c->sym = np;
			uint64_t *ns = reallocarray(c->samples, cap, sizeof(*ns));

			if (ns == NULL)
				break;
			c->samples = ns;
			c->cap = cap;
		}
		c->parent[c->n] = i > 0 ? c->map[p] : 0;
		c->sym[c->n] = sym;
		c->samples[c->n] = v;
		c->map[i] = (uint32_t)c->n++;
	}
}

void calltree_snap_take(struct ui *u, struct agg *a)
{
	struct ui_cgsnap *c = &u->cg;

	snap_clear(c);
	c->ev = ui_primary(u);
	c->scope = ui_scope(u);
	c->base = ui_base(u, c->ev);
	c->ms = 0;
	snap_take(c, a);
	rebuild(u, c);
}

/* The wait agg's one event counts µs blocked: the tree's lines in ms (a
 * second, in the interval), its shares of all blocked time. */
static void take_waits(struct ui *u, struct ui_cgsnap *c, struct agg *a, double lap)
{
	const struct agg_event *e = a ? agg_event(a, 0) : NULL;

	snap_clear(c);
	c->ev = 0;
	c->scope = ui_scope(u);
	c->base = e == NULL ? 0 : c->scope == AGG_INTERVAL ? e->samples_iv : e->samples_total;
	c->ms = c->scope == AGG_INTERVAL ? (lap > 0 ? 1e-3 / lap : 0) : 1e-3;
	if (a)
		snap_take(c, a);
	rebuild(u, c);
}

void calltree_snap_take_waits(struct ui *u, struct agg *wait, struct agg *wake, double lap)
{
	take_waits(u, &u->waits.cg, wait, lap);
	u->waits.wake_known = wake != NULL;
	take_waits(u, &u->waits.wake, wake, lap);
}

static void snap_free(struct ui_cgsnap *c)
{
	free(c->parent);
	free(c->sym);
	free(c->samples);
	free(c->syms);
	free(c->pool);
	htab_free(&c->imap);
	free(c->map);
	memset(c, 0, sizeof(*c));
}

void calltree_snap_free(struct ui *u)
{
	snap_free(&u->cg);
	snap_free(&u->waits.cg);
	snap_free(&u->waits.wake);
	calltree_free(&u->tree);
	calltree_free(&u->paths);
}

/* --- trees -------------------------------------------------------------- */

const struct ui_cgsnap *calltree_snap(const struct ui *u, const struct ui_tree *t)
{
	return !t->waits ? &u->cg : t->wakers ? &u->waits.wake : &u->waits.cg;
}

const struct ui_cgsym *calltree_snap_sym(const struct ui_cgsnap *c, uint32_t s)
{
	return s < c->nsyms ? &c->syms[s] : NULL;
}

const struct ui_cgsym *calltree_sym(const struct ui *u, uint32_t s)
{
	return calltree_snap_sym(&u->cg, s);
}

const char *calltree_name(const struct ui *u, const struct ui_tree *t, uint32_t node)
{
	const struct ui_cgsnap *c = calltree_snap(u, t);
	const struct ui_cgsym *s;

	if (node == 0)
		return t->kind == TREE_PATHS ? (t->waits ? "all waits" : "all samples") : t->sym ? t->sym : "?";
	s = node < t->nn ? calltree_snap_sym(c, t->n[node].sym) : NULL;
	return s ? c->pool + s->name : "[other]";
}

static uint64_t node_id(const struct ui_cgsnap *c, uint64_t parent, uint32_t sym)
{
	const struct ui_cgsym *s = calltree_snap_sym(c, sym);
	uint64_t h = parent * 31 + 7;

	if (s == NULL)
		return mix(h ^ 0x6f74686572ULL); /* "other" */
	h = str_hash(h, c->pool + s->name);
	h = str_hash(h * 131 + s->comm, c->pool + s->dso);
	return mix(h);
}

static uint32_t tnode_new(const struct ui *u, struct ui_tree *t, uint32_t parent, uint32_t sym)
{
	struct ui_tnode *n;

	if (t->nn >= TREE_MAX_NODES || !util_grow((void **)&t->n, &t->ncap, t->nn + 1, sizeof(*t->n)))
		return NONE;
	n = &t->n[t->nn];
	memset(n, 0, sizeof(*n));
	n->sym = sym;
	n->parent = parent;
	n->depth = t->n[parent].depth + 1;
	n->id = node_id(calltree_snap(u, t), t->n[parent].id, sym);
	return (uint32_t)t->nn++;
}

/* The child of parent for sym, made if new. */
static uint32_t tchild(const struct ui *u, struct ui_tree *t, uint32_t parent, uint32_t sym)
{
	uint64_t key = (uint64_t)parent << 32 | sym;
	uintptr_t found = htab_get(&t->hash, key);
	uint32_t c;

	if (found)
		return (uint32_t)(found - 1);
	c = tnode_new(u, t, parent, sym);
	if (c != NONE)
		htab_put(&t->hash, key, (uintptr_t)c + 1); /* out of memory: unindexed, a twin may come */
	return c;
}

static int cmp_children(const void *pa, const void *pb, void *arg)
{
	const struct ui_tree *t = arg;
	const struct ui_tnode *a = &t->n[*(const uint32_t *)pa], *b = &t->n[*(const uint32_t *)pb];

	if (a->parent != b->parent)
		return (a->parent > b->parent) - (a->parent < b->parent);
	if (a->samples != b->samples)
		return (a->samples < b->samples) - (a->samples > b->samples);
	return (a->id > b->id) - (a->id < b->id);
}

/* Children linked most samples first. */
static void link_children(struct ui_tree *t, uint32_t *order)
{
	size_t k = 0;

	for (size_t i = 0; i < t->nn; i++)
		t->n[i].first = t->n[i].next = 0;
	for (size_t i = 1; i < t->nn; i++)
		order[k++] = (uint32_t)i;
	if (k > 1)
		qsort_r(order, k, sizeof(*order), cmp_children, t);
	for (size_t i = k; i-- > 0;) {
		struct ui_tnode *n = &t->n[order[i]];

		n->next = t->n[n->parent].first;
		t->n[n->parent].first = order[i];
	}
}

static bool is_named(const struct ui_tree *t, const char *sym, const char *dso, bool kernel)
{
	return t->open && kernel == t->kernel && strcmp(sym ? sym : "?", t->sym) == 0 &&
	       strcmp(dso ? dso : "", t->dso) == 0;
}

bool calltree_is_for(const struct ui *u, const struct agg_sym *row)
{
	return row && !u->tree.waits && is_named(&u->tree, row->sym, row->dso, row->kernel);
}

bool calltree_is_for_wait(const struct ui *u, const struct ui_wait *row)
{
	return row && u->tree.waits && is_named(&u->tree, row->sym, row->dso, row->kernel);
}

bool calltree_in_view(const struct ui *u)
{
	return u->tree.open && u->view == (u->tree.waits ? VIEW_WAITS : VIEW_SYMBOLS);
}

bool calltree_row_is(const struct ui *u, const void *row)
{
	if (!calltree_in_view(u))
		return false;
	return u->tree.waits ? calltree_is_for_wait(u, row) : calltree_is_for(u, row);
}

/* Stacks through the tree's symbol in the frame's rows: its children count. */
static uint64_t sym_children(const struct ui *u, const struct ui_tree *t)
{
	uint64_t c = 0;

	if (t->wakers) /* the wait rows count the wait agg's stacks, not these */
		return 0;
	if (t->waits) {
		for (size_t i = 0; i < u->waits.n; i++)
			if (calltree_is_for_wait(u, &u->waits.rows[i]))
				c += u->waits.rows[i].children;
		return c;
	}
	for (size_t i = 0; i < u->fr.nsyms; i++)
		if (calltree_is_for(u, &u->fr.syms[i]))
			c += (u->cg.scope == AGG_TOTAL ? u->fr.syms[i].ch_total : u->fr.syms[i].ch_iv).samples[u->cg.ev];
	return c;
}

/* Callers: the ancestors of each outermost node of the symbol (inner ones
 * are recursion: a stack counts once, as its children count does);
 * callees: the subtrees under them, merged by symbol. With past (W's
 * trees), only nodes past the separator are the woken's: the same wait
 * function in its waker's stack above is not (it stole the stack, its
 * callers ending at a bare comm). */
static void merge_symbol(const struct ui *u, struct ui_tree *t, const bool *is_s, bool *under, const bool *past)
{
	const struct ui_cgsnap *c = calltree_snap(u, t);

	for (size_t i = 1; i < c->n; i++) {
		uint32_t p = c->parent[i], s = c->sym[i];

		under[i] = p > 0 && (under[p] || (is_s[c->sym[p]] && (past == NULL || past[p])));
		c->map[i] = NONE;
		if (is_s[s] && !under[i] && (past == NULL || past[i])) {
			t->n[0].samples += c->samples[i];
			c->map[i] = 0;
			if (t->kind == TREE_CALLERS)
				for (uint32_t a = 0, q = p; q > 0; q = c->parent[q]) {
					a = tchild(u, t, a, c->sym[q]);
					if (a == NONE)
						break;
					t->n[a].samples += c->samples[i];
				}
		} else if (t->kind == TREE_CALLEES && p > 0 && c->map[p] != NONE) {
			c->map[i] = tchild(u, t, c->map[p], s);
			if (c->map[i] != NONE)
				t->n[c->map[i]].samples += c->samples[i];
		}
	}
}

static void merge_all(const struct ui *u, struct ui_tree *t)
{
	const struct ui_cgsnap *c = calltree_snap(u, t);

	t->n[0].samples = c->n ? c->samples[0] : 0;
	if (c->n)
		c->map[0] = 0;
	for (size_t i = 1; i < c->n; i++) {
		uint32_t p = c->map[c->parent[i]];

		c->map[i] = p == NONE ? NONE : tchild(u, t, p, c->sym[i]);
		if (c->map[i] != NONE)
			t->n[c->map[i]].samples += c->samples[i];
	}
}

/* Per snapshot node: whether it is past a "-- woken by --" node (in a
 * woken's stack of the wake agg); NULL out of memory. *sep: per symbol,
 * whether it is the separator (the caller frees both). */
static bool *woken_part(const struct ui_cgsnap *c, bool **sep)
{
	bool *past = calloc(c->n + 1, sizeof(*past));

	*sep = calloc(c->nsyms + 1, sizeof(**sep));
	if (past == NULL || *sep == NULL) {
		free(past);
		return NULL;
	}
	for (size_t i = 0; i < c->nsyms; i++)
		(*sep)[i] = !c->syms[i].comm && strcmp(c->pool + c->syms[i].name, SESSION_WOKEN_BY) == 0 &&
			    strcmp(c->pool + c->syms[i].dso, SESSION_WOKEN_BY_DSO) == 0;
	for (size_t i = 1; i < c->n; i++) {
		uint32_t p = c->parent[i];

		past[i] = p > 0 && (past[p] || (*sep)[c->sym[p]]);
	}
	return past;
}

void calltree_build(struct ui *u, struct ui_tree *t)
{
	struct ui_cgsnap *c = (struct ui_cgsnap *)calltree_snap(u, t); /* u's own: not const */
	bool *is_s = NULL, *under = NULL, *past = NULL, *sep = NULL;
	uint32_t *order;
	uint64_t other = 0, kept;

	t->nn = 0;
	htab_clear(&t->hash);
	if (!util_grow((void **)&t->n, &t->ncap, 1, sizeof(*t->n)))
		goto lines;
	memset(&t->n[0], 0, sizeof(t->n[0]));
	t->n[0].sym = NONE;
	t->n[0].id = mix(0x7265657274ULL + t->kind);
	t->nn = 1;
	/* c->map is free once taken: it maps snapshot nodes to tree nodes here. */
	if (c->n && !util_grow((void **)&c->map, &c->map_cap, c->n, sizeof(*c->map)))
		goto lines;
	if (t->kind == TREE_PATHS) {
		merge_all(u, t);
		other = c->other;
	} else {
		is_s = calloc(c->nsyms + 1, sizeof(*is_s));
		under = calloc(c->n + 1, sizeof(*under));
		if (is_s == NULL || under == NULL)
			goto out;
		for (size_t i = 0; i < c->nsyms; i++)
			is_s[i] = !c->syms[i].comm && c->syms[i].kernel == t->kernel &&
				  strcmp(c->pool + c->syms[i].name, t->sym) == 0 &&
				  strcmp(c->pool + c->syms[i].dso, t->dso) == 0;
		if (t->wakers && (past = woken_part(c, &sep)) == NULL)
			goto out;
		merge_symbol(u, t, is_s, under, past);
		kept = t->n[0].samples;
		other = sym_children(u, t);
		other = other > kept ? other - kept : 0;
		t->n[0].samples += other;
	}
	/* Stacks the cg's bound (or ours) left out: counted, as "other". */
	if (other) {
		uint32_t o = tnode_new(u, t, 0, NONE);

		if (o != NONE)
			t->n[o].samples = other;
	}
	order = malloc(t->nn * sizeof(*order));
	if (order) {
		link_children(t, order);
		free(order);
	}
out:
	free(is_s);
	free(under);
	free(past);
	free(sep);
lines:
	calltree_lines(t);
	if (t->hot && t->nn > 1) {
		t->hot = false;
		calltree_hottest(t);
	}
}

/* The path with the most samples at each level, a node's own samples
 * counting as a way too: where they outweigh every child the path ends
 * there (a leaf of 99.98 % self does not open its 0.5 % timer chain).
 * Children come most samples first. (F5's and W's opening; moved here
 * from tree_keys.c so that a build can open a tree marked hot.) */
void calltree_hottest(struct ui_tree *t)
{
	for (uint32_t n = 0, d = 0; t->nn && t->n[n].first && d < 64; n = t->n[n].first, d++) {
		uint64_t kids = 0;

		for (uint32_t c = t->n[n].first; c; c = t->n[c].next)
			kids += t->n[c].samples;
		if (t->n[n].samples > kids && t->n[n].samples - kids > t->n[t->n[n].first].samples)
			break;
		calltree_set_expanded(t, n, true);
	}
	calltree_lines(t);
}

bool calltree_expanded(const struct ui_tree *t, uint32_t node)
{
	if (node == 0)
		return true;
	for (size_t i = 0; i < t->nexp; i++)
		if (t->exp[i] == t->n[node].id)
			return true;
	return false;
}

void calltree_set_expanded(struct ui_tree *t, uint32_t node, bool on)
{
	uint64_t id = t->n[node].id;

	if (node == 0 || calltree_expanded(t, node) == on)
		return;
	if (!on) {
		for (size_t i = 0; i < t->nexp; i++)
			if (t->exp[i] == id)
				t->exp[i] = t->exp[--t->nexp];
		return;
	}
	if (t->nexp == UI_TREE_EXP) /* full: the oldest goes */
		memmove(t->exp, t->exp + 1, --t->nexp * sizeof(*t->exp));
	t->exp[t->nexp++] = id;
}

/* Depth first through expanded lines; the selection follows its line. */
void calltree_lines(struct ui_tree *t)
{
	uint32_t cur = 0;

	t->nvis = 0;
	if (t->nn == 0 || !util_grow((void **)&t->vis, &t->vis_cap, t->nn, sizeof(*t->vis))) {
		t->sel = 0;
		return;
	}
	for (;;) {
		t->vis[t->nvis++] = cur;
		if (t->n[cur].first && calltree_expanded(t, cur)) {
			cur = t->n[cur].first;
			continue;
		}
		while (cur != 0 && t->n[cur].next == 0)
			cur = t->n[cur].parent;
		if (cur == 0)
			break;
		cur = t->n[cur].next;
	}
	for (size_t i = 0; i < t->nvis; i++)
		if (t->n[t->vis[i]].id == t->sel_id) {
			t->sel = i;
			return;
		}
	calltree_select(t, t->sel);
}

void calltree_select(struct ui_tree *t, size_t vis)
{
	if (t->nvis == 0) {
		t->sel = 0;
		return;
	}
	t->sel = vis < t->nvis ? vis : t->nvis - 1;
	t->sel_id = t->n[t->vis[t->sel]].id;
}

static int open_named(struct ui *u, const char *name, const char *file, bool kernel, bool waits, bool wakers)
{
	struct ui_tree *t = &u->tree;
	char *sym = strdup(name ? name : "?"), *dso = strdup(file ? file : "");

	if (sym == NULL || dso == NULL) {
		free(sym);
		free(dso);
		return -ENOMEM;
	}
	calltree_close(u);
	t->sym = sym;
	t->dso = dso;
	t->kernel = kernel;
	t->waits = waits;
	t->wakers = wakers;
	t->hot = false;
	t->kind = TREE_CALLERS;
	t->open = true;
	t->nexp = 0;
	t->sel = 0;
	t->sel_id = 0;
	t->in = false;
	calltree_build(u, t);
	return 0;
}

int calltree_open(struct ui *u, const struct agg_sym *row)
{
	return open_named(u, row->sym, row->dso, row->kernel, false, false);
}

int calltree_open_wait(struct ui *u, const struct ui_wait *row)
{
	return open_named(u, row->sym, row->dso, row->kernel, true, false);
}

int calltree_open_wakers(struct ui *u, const struct ui_wait *row)
{
	return open_named(u, row->sym, row->dso, row->kernel, true, true);
}

void calltree_close(struct ui *u)
{
	struct ui_tree *t = &u->tree;

	free(t->sym);
	free(t->dso);
	t->sym = t->dso = NULL;
	t->open = t->in = false;
	t->nn = t->nvis = t->nexp = 0;
}

void calltree_free(struct ui_tree *t)
{
	free(t->sym);
	free(t->dso);
	free(t->n);
	free(t->vis);
	htab_free(&t->hash);
	memset(t, 0, sizeof(*t));
}
