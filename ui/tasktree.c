/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tasktree: the Tasks view as a tree (t, htop's): processes under their
 * parents, the parents as the agg's kin had them at the tick (agg_kin). A
 * sampled process's ancestors show even when they took no samples, with
 * their subtree's totals, as does a folded subtree (- folds, + opens).
 * Siblings keep the order the view's sort gave; an ancestor that took no
 * samples sorts where its best descendant does. */
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "util.h"

#define NONE UINT32_MAX
#define TT_DEPTH 64        /* deeper is a loop (a reused pid) */
#define TT_INDENT 24       /* levels drawn; deeper ones are drawn at this one */
#define TT_FOLD 256

struct tnode {
	pid_t pid;
	uint32_t parent, first, next, tail;
	size_t rank;              /* its place in the sorted rows; an ancestor's: its best descendant's */
	const struct agg_task *row; /* NULL: an ancestor that took no samples */
	bool last;                /* the last of its siblings */
};

struct tasktree {
	struct tnode *n;
	size_t nn, ncap;
	uint32_t *order;
	size_t order_cap;
	struct agg_task *rows;    /* the lines, as the view draws them */
	size_t rows_cap;
	char (*pre)[4 * TT_INDENT + 8];   /* each line's tree lines */
	size_t pre_cap;
	uint64_t *sums;           /* per node: iv and total, samples and period */
	size_t sums_cap;
	struct htab ix, kix;      /* pid + 1 -> node + 1; -> frame kin + 1 */
	pid_t fold[TT_FOLD];
	size_t nfold;
};

bool tasktree_on(const struct ui *u)
{
	return u->task_tree && u->view == VIEW_TASKS && !u->threads;
}

static struct tasktree *tt_get(struct ui *u)
{
	if (u->tt == NULL && (u->tt = calloc(1, sizeof(*u->tt))) != NULL &&
	    (htab_init(&u->tt->ix, 64) || htab_init(&u->tt->kix, 64))) {
		htab_free(&u->tt->ix);
		free(u->tt);
		u->tt = NULL;
	}
	return u->tt;
}

static const struct agg_kin *kin_of(const struct ui *u, const struct tasktree *t, pid_t pid)
{
	uintptr_t k = pid > 0 ? htab_get(&t->kix, (uint64_t)pid + 1) : 0;

	return k ? &u->fr.kin[k - 1] : NULL;
}

static uint32_t node_of(const struct tasktree *t, pid_t pid)
{
	uintptr_t i = htab_get(&t->ix, (uint64_t)pid + 1);

	return i ? (uint32_t)(i - 1) : NONE;
}

static uint32_t node_add(struct tasktree *t, pid_t pid, const struct agg_task *row, size_t rank)
{
	if (!util_grow((void **)&t->n, &t->ncap, t->nn + 1, sizeof(*t->n)) ||
	    htab_put(&t->ix, (uint64_t)pid + 1, t->nn + 1))
		return NONE;
	t->n[t->nn] = (struct tnode){ .pid = pid, .parent = NONE, .first = NONE, .next = NONE, .tail = NONE,
				       .rank = rank, .row = row };
	return (uint32_t)t->nn++;
}

static bool folded(const struct tasktree *t, pid_t pid)
{
	for (size_t i = 0; i < t->nfold; i++)
		if (t->fold[i] == pid)
			return true;
	return false;
}

/* Parents: a node's parent is made when no row has it. */
static void parents(const struct ui *u, struct tasktree *t)
{
	for (size_t i = 0; i < t->nn; i++) {
		const struct agg_kin *k = kin_of(u, t, t->n[i].pid);
		uint32_t p;

		if (k == NULL || k->ppid <= 0 || k->ppid == t->n[i].pid)
			continue;
		if ((p = node_of(t, k->ppid)) == NONE && (p = node_add(t, k->ppid, NULL, SIZE_MAX)) == NONE)
			continue;
		t->n[i].parent = p;
	}
	/* A loop (pids reused while the kin were read) is cut where it closes. */
	for (size_t i = 0; i < t->nn; i++) {
		uint32_t p = t->n[i].parent;

		for (int d = 0; p != NONE; d++, p = t->n[p].parent)
			if (p == i || d >= TT_DEPTH) {
				t->n[i].parent = NONE;
				break;
			}
	}
}

/* The sums of each node's subtree, iv and total (samples, period). */
static bool sums(const struct ui *u, struct tasktree *t, size_t nrows)
{
	size_t nev = u->fr.nev, per = 4 * nev;

	if (!util_grow((void **)&t->sums, &t->sums_cap, t->nn * per + 1, sizeof(*t->sums)))
		return false;
	memset(t->sums, 0, t->nn * per * sizeof(*t->sums));
	for (size_t i = 0; i < nrows; i++) {
		const struct agg_task *r = t->n[i].row;

		for (uint32_t p = (uint32_t)i; p != NONE; p = t->n[p].parent) {
			uint64_t *s = t->sums + p * per;

			for (size_t e = 0; e < nev; e++) {
				s[e] += r->iv.samples[e];
				s[nev + e] += r->iv.period[e];
				s[2 * nev + e] += r->total.samples[e];
				s[3 * nev + e] += r->total.period[e];
			}
		}
	}
	return true;
}

static int by_rank(const void *a, const void *b, void *arg)
{
	const struct tnode *n = arg;
	size_t x = n[*(const uint32_t *)a].rank, y = n[*(const uint32_t *)b].rank;

	return (x > y) - (x < y);
}

/* Children in rank order: the sort's order among siblings. */
static bool children(struct tasktree *t, uint32_t *roots)
{
	uint32_t tail = NONE;

	if (!util_grow((void **)&t->order, &t->order_cap, t->nn, sizeof(*t->order)))
		return false;
	for (size_t i = 0; i < t->nn; i++)
		t->order[i] = (uint32_t)i;
	if (t->nn > 1) /* order and n are NULL before the first task */
		qsort_r(t->order, t->nn, sizeof(*t->order), by_rank, t->n);
	*roots = NONE;
	for (size_t k = 0; k < t->nn; k++) {
		uint32_t i = t->order[k], p = t->n[i].parent;
		uint32_t *first = p == NONE ? roots : &t->n[p].first, *last = p == NONE ? &tail : &t->n[p].tail;

		if (*first == NONE)
			*first = i;
		else
			t->n[*last].next = i;
		*last = i;
	}
	for (size_t i = 0; i < t->nn; i++)
		t->n[i].last = t->n[i].next == NONE;
	return true;
}

static bool utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && strcmp(cs, "UTF-8") == 0;
}

/* A line's tree lines: one column of three per level above it. */
static void prefix(const struct tasktree *t, uint32_t i, bool open_mark, char *buf, size_t len)
{
	bool u8 = utf8();
	const char *bar = u8 ? "\xe2\x94\x82  " : "|  ", *mid = u8 ? "\xe2\x94\x9c\xe2\x94\x80 " : "|- ",
		   *end = u8 ? "\xe2\x94\x94\xe2\x94\x80 " : "`- ";
	uint32_t up[TT_INDENT];
	int n = 0;

	buf[0] = '\0';
	for (uint32_t p = t->n[i].parent, c = i; p != NONE && n < TT_INDENT; c = p, p = t->n[p].parent)
		up[n++] = c; /* up[0]: the node, then its ancestors below the root */
	for (int k = n - 1; k >= 0; k--) {
		if (k == 0)
			strlcat(buf, t->n[up[k]].last ? end : mid, len);
		else
			strlcat(buf, t->n[up[k]].last ? "   " : bar, len);
	}
	if (open_mark)
		strlcat(buf, "+ ", len);
}

/* One line: the row as the view draws it, its counts the subtree's when
 * it stands for more than itself. */
static void line(const struct ui *u, struct tasktree *t, uint32_t i, size_t k, bool fold)
{
	struct agg_task *r = &t->rows[k];
	const struct tnode *n = &t->n[i];
	size_t nev = u->fr.nev;
	uint64_t *s = t->sums + (size_t)i * 4 * nev;

	if (n->row) {
		*r = *n->row;
	} else {
		const struct agg_kin *kin = kin_of(u, t, n->pid);

		memset(r, 0, sizeof(*r));
		r->pid = n->pid;
		strlcpy(r->comm, kin && kin->comm[0] ? kin->comm : "?", sizeof(r->comm));
	}
	if (n->row == NULL || (fold && n->first != NONE)) {
		r->iv.samples = s;
		r->iv.period = s + nev;
		r->total.samples = s + 2 * nev;
		r->total.period = s + 3 * nev;
	}
	prefix(t, i, fold && n->first != NONE, t->pre[k], sizeof(t->pre[k]));
}

void tasktree_build(struct ui *u)
{
	struct tasktree *t = tt_get(u);
	size_t nrows = u->nrows, k = 0;
	uint32_t roots, stack[TT_DEPTH + 1];
	int sp = 0;

	if (t == NULL)
		return;
	t->nn = 0;
	htab_clear(&t->ix);
	htab_clear(&t->kix);
	for (size_t i = 0; i < u->fr.nkin; i++)
		if (htab_put(&t->kix, (uint64_t)u->fr.kin[i].pid + 1, i + 1))
			return;
	for (size_t i = 0; i < nrows; i++)
		if (node_add(t, ((const struct agg_task *)u->rows[i])->pid, u->rows[i], i) == NONE)
			return;
	parents(u, t);
	/* An ancestor without samples sorts where its best descendant does. */
	for (size_t i = 0; i < nrows; i++)
		for (uint32_t p = t->n[i].parent; p != NONE; p = t->n[p].parent)
			if (t->n[p].row == NULL && t->n[p].rank > i)
				t->n[p].rank = i;
			else if (t->n[p].row == NULL)
				break;
	if (!sums(u, t, nrows) || !children(t, &roots) ||
	    !util_grow((void **)&t->rows, &t->rows_cap, t->nn, sizeof(*t->rows)) ||
	    !util_grow((void **)&t->pre, &t->pre_cap, t->nn, sizeof(*t->pre)) ||
	    !util_grow((void **)&u->rows, &u->rows_cap, t->nn, sizeof(*u->rows)))
		return;
	/* Depth first: a node, then its children unless folded. */
	for (uint32_t i = roots; i != NONE || sp > 0;) {
		bool f;

		if (i == NONE) {
			i = t->n[stack[--sp]].next;
			continue;
		}
		f = folded(t, t->n[i].pid);
		line(u, t, i, k, f);
		u->rows[k] = &t->rows[k];
		k++;
		if (!f && t->n[i].first != NONE && sp < TT_DEPTH) {
			stack[sp++] = i;
			i = t->n[i].first;
		} else {
			i = t->n[i].next;
		}
	}
	u->nrows = k;
}

void tasktree_prefix(const struct ui *u, const void *row, char *buf, size_t len)
{
	const struct tasktree *t = u->tt;
	const struct agg_task *r = row;

	buf[0] = '\0';
	if (t && tasktree_on(u) && r >= t->rows && r < t->rows + t->rows_cap)
		strlcpy(buf, t->pre[r - t->rows], len);
}

bool tasktree_ancestor(const struct ui *u, const void *row)
{
	const struct tasktree *t = u->tt;
	const struct agg_task *r = row;

	if (t == NULL || !tasktree_on(u) || r < t->rows || r >= t->rows + t->rows_cap)
		return false;
	return r->iv.samples >= t->sums && r->iv.samples < t->sums + t->sums_cap;
}

unsigned tasktree_key(struct ui *u, int key)
{
	u->task_tree = !u->task_tree;
	u->view = VIEW_TASKS;
	if (u->task_tree && u->threads) {
		u->threads = false;
		u->sel_valid[VIEW_TASKS] = false;
	}
	ui_message(u, false, u->task_tree ? "task tree: processes under their parents (- folds, + opens; t: flat)"
					  : "flat task list (t: tree)");
	return UI_RESORT;
}

/* - folds the selected subtree, + opens it again. */
unsigned tasktree_fold(struct ui *u, int key)
{
	struct tasktree *t = tt_get(u);
	const struct agg_task *r;
	size_t i;

	if (t == NULL || u->nrows == 0)
		return 0;
	r = u->rows[u->sel[VIEW_TASKS]];
	for (i = 0; i < t->nfold && t->fold[i] != r->pid; i++)
		;
	if (key == '+') {
		if (i == t->nfold) {
			ui_message(u, false, "+ opens a folded subtree: %d is open", (int)r->pid);
			return UI_DRAW;
		}
		t->fold[i] = t->fold[--t->nfold];
		return UI_RESORT;
	}
	if (i < t->nfold)
		return 0;
	{
		uint32_t n = node_of(t, r->pid);

		if (n == NONE || t->n[n].first == NONE) {
			ui_message(u, false, "- folds a subtree: %d has no children shown", (int)r->pid);
			return UI_DRAW;
		}
	}
	if (t->nfold == TT_FOLD)
		t->nfold--; /* the oldest fold goes */
	memmove(t->fold + 1, t->fold, t->nfold * sizeof(*t->fold));
	t->fold[0] = r->pid;
	t->nfold++;
	return UI_RESORT;
}

void tasktree_free(struct ui *u)
{
	struct tasktree *t = u->tt;

	if (t == NULL)
		return;
	free(t->n);
	free(t->order);
	free(t->rows);
	free(t->pre);
	free(t->sums);
	htab_free(&t->ix);
	htab_free(&t->kix);
	free(t);
	u->tt = NULL;
}
