/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annview: the annotate view's model. A level is a symbol: its
 * instructions (the annotate layer's, made once and cached there), the agg
 * row counting them, and its per-instruction samples copied at each tick
 * (frame_take), so that what is drawn is the interval the table shows. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annview.h"
#include "sanitize.h"
#include "util.h"

struct annview_level *annview_top(struct ui *u)
{
	return u->annot && u->annot->depth ? &u->annot->lv[u->annot->depth - 1] : NULL;
}

bool annview_typing(const struct ui *u)
{
	return u->annot && u->annot->typing;
}

const char *annview_scope_name(const struct ui *u)
{
	return u->cumulative ? "since counting began" : u->decay ? "with decaying history" : "in the interval";
}

/* The frame's symbol row of that name and file (a call-tree line's, a
 * callee's), or NULL: a symbol without samples in scope has none. */
const struct agg_sym *annview_row_named(const struct ui *u, const char *sym, const char *dso)
{
	for (size_t i = 0; i < u->fr.nsyms; i++) {
		const struct agg_sym *r = &u->fr.syms[i];

		if (r->sym && r->dso && strcmp(r->sym, sym) == 0 && strcmp(r->dso, dso) == 0)
			return r;
	}
	return NULL;
}

/* --- counts -------------------------------------------------------------- */

static void want(struct ui *u, struct annview_level *L, struct agg *a)
{
	int rc;

	if (!L->keyed || L->wanted == a || a == NULL)
		return;
	/* Wants nest: each level its own, given back when it closes. */
	rc = agg_annot_want(a, L->key, true);
	if (rc == 0)
		L->wanted = a;
	else if (!L->want_failed)
		ui_message(u, true, "%s: cannot count its instructions (%s): close other annotations",
			   L->sym, rc == -ENOSPC ? "too many symbols counted on request" : strerror(-rc));
	L->want_failed = rc != 0;
}

static void unwant(struct ui *u, struct annview_level *L)
{
	struct agg *a = u->s ? u->s->agg : NULL;

	if (L->keyed && L->wanted && L->wanted == a)
		agg_annot_want(a, L->key, false);
	L->wanted = NULL;
}

/* The agg's counts (by offset) onto the instructions, every event's (< >
 * switch at once): a sample inside an instruction (skid, a prefix) counts
 * for it. */
static void read_counts(struct ui *u, struct annview_level *L, struct agg *a, enum agg_scope scope)
{
	size_t nev = a ? agg_nevents(a) : 0, ni = L->fn ? L->fn->ninsn : 0;

	memset(L->sum, 0, sizeof(L->sum));
	L->nev = 0;
	if (ni == 0 && L->keyed && a) /* nothing to count on, but whether it counts */
		agg_annot_counts(a, L->key, 0, scope, &(const struct agg_annot_count *){ NULL }, &L->since_open);
	if (ni == 0 || nev == 0 || !util_grow((void **)&L->cnt, &L->cnt_cap, ni * nev, sizeof(*L->cnt)))
		return;
	memset(L->cnt, 0, ni * nev * sizeof(*L->cnt));
	L->nev = nev;
	L->since_open = false;
	for (size_t e = 0; e < nev && L->keyed; e++) {
		const struct agg_annot_count *c = NULL;
		uint64_t *cnt = L->cnt + e * ni;
		bool since_open = false;
		size_t n = agg_annot_counts(a, L->key, e, scope, &c, &since_open), i = 0;

		L->since_open = L->since_open || since_open;
		for (size_t k = 0; k < n; k++) {
			const struct annot_insn *in;

			while (i + 1 < ni && L->fn->insn[i + 1].offset <= c[k].offset)
				i++;
			in = &L->fn->insn[i];
			if (c[k].offset < in->offset || c[k].offset >= in->offset + (in->len ? in->len : 1))
				continue; /* outside the code disassembled */
			cnt[i] += c[k].samples;
			L->sum[e] += c[k].samples;
		}
	}
}

const uint64_t *annview_counts(const struct ui *u, const struct annview_level *L)
{
	return L->fn && u->annot->ev < L->nev ? L->cnt + u->annot->ev * L->fn->ninsn : NULL;
}

uint64_t annview_sum(const struct ui *u, const struct annview_level *L)
{
	return u->annot->ev < L->nev ? L->sum[u->annot->ev] : 0;
}

/* At each tick (frame_take, not paused): every level's counts, a callee
 * without a row until now counted once it has one. */
void annview_take(struct ui *u, struct agg *a)
{
	struct ui_annot *A = u->annot;

	if (A == NULL || A->depth == 0)
		return;
	for (size_t i = 0; i < A->depth; i++) {
		struct annview_level *L = &A->lv[i];

		if (!L->keyed) {
			const struct agg_sym *r = annview_row_named(u, L->sym, L->dso);

			if (r) {
				L->key = r->key;
				L->keyed = true;
			}
		}
		want(u, L, a);
		read_counts(u, L, a, ui_scope(u));
		L->provisional = false;
	}
	annview_rebuild(u);
}

unsigned annview_table_key(struct ui *u, int key, unsigned r)
{
	if (key == 'c' && !u->paused && u->s && u->s->agg)
		annview_take(u, u->s->agg);
	return r | UI_DRAW;
}

/* The agg goes (a re-aim): the next one is asked to count afresh. */
void annview_forget(struct ui *u)
{
	struct ui_annot *A = u->annot;

	for (size_t i = 0; A && i < A->depth; i++)
		A->lv[i].wanted = NULL;
}

double annview_share(const struct ui *u, const struct annview_level *L, uint64_t c)
{
	uint64_t whole = u->annot->all ? ui_base(u, u->annot->ev) : annview_sum(u, L);

	if (u->annot->all && L->provisional)
		whole = 0; /* counts since counting began, against an interval: no share */
	return whole ? 100.0 * (double)c / (double)whole : 0.0;
}

/* --- lines ---------------------------------------------------------------- */

static bool same_src(const struct annot_insn *a, const struct annot_insn *b)
{
	return a->line == b->line && a->file && b->file && (a->file == b->file || strcmp(a->file, b->file) == 0);
}

static int hot_cmp(const void *pa, const void *pb, void *arg)
{
	const uint64_t *cnt = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (cnt[a] != cnt[b])
		return cnt[a] > cnt[b] ? -1 : 1;
	return (a > b) - (a < b);
}

static int shot_cmp(const void *pa, const void *pb, void *arg)
{
	const struct annview_srow *r = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	if (r[a].samples != r[b].samples)
		return r[a].samples > r[b].samples ? -1 : 1;
	return (a > b) - (a < b);
}

static int srow_cmp(const void *pa, const void *pb)
{
	const struct annview_srow *a = pa, *b = pb;
	int r = a->file == b->file ? 0 : strcmp(a->file, b->file);

	if (r)
		return r;
	if (a->line != b->line)
		return (a->line > b->line) - (a->line < b->line);
	return (a->first > b->first) - (a->first < b->first);
}

/* S: one row per (file, line), its instructions' samples summed; in file
 * then line order, as the source reads. One row an instruction, sorted,
 * then merged: a long function has thousands of lines. */
static void source_rows(struct ui_annot *A, const struct annview_level *L, const uint64_t *cnt)
{
	size_t n = 0, m = 0;

	A->nsrows = A->nshot = 0;
	if (L->fn == NULL || !util_grow((void **)&A->srows, &A->srows_cap, L->fn->ninsn + 1, sizeof(*A->srows)))
		return;
	for (uint32_t i = 0; i < L->fn->ninsn; i++) {
		const struct annot_insn *in = &L->fn->insn[i];

		if (in->file && in->line)
			A->srows[n++] = (struct annview_srow){ in->file, in->line, cnt ? cnt[i] : 0, i };
	}
	if (n > 1)
		qsort(A->srows, n, sizeof(*A->srows), srow_cmp);
	for (size_t k = 0; k < n; k++) {
		struct annview_srow *r = &A->srows[k];

		if (m && r->line == A->srows[m - 1].line && strcmp(r->file, A->srows[m - 1].file) == 0)
			A->srows[m - 1].samples += r->samples;
		else
			A->srows[m++] = *r;
	}
	A->nsrows = m;
	if (!util_grow((void **)&A->shot, &A->shot_cap, m ? m : 1, sizeof(*A->shot)))
		return;
	for (size_t k = 0; k < m; k++)
		if (A->srows[k].samples)
			A->shot[A->nshot++] = k;
	if (A->nshot > 1)
		qsort_r(A->shot, A->nshot, sizeof(*A->shot), shot_cmp, A->srows);
}

size_t annview_line_of(const struct ui_annot *A, uint32_t i)
{
	size_t lo = 0, hi = A->nlines;

	/* lines are in instruction order, a source line before its instruction */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (A->lines[mid].insn < i || (A->lines[mid].insn == i && A->lines[mid].src))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < A->nlines ? lo : (A->nlines ? A->nlines - 1 : 0);
}

void annview_rebuild(struct ui *u)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	const struct annot_func *f;
	const uint64_t *cnt;
	size_t n = 0;

	A->nlines = A->nhot = A->nsrows = A->nshot = 0;
	if (L == NULL || (f = L->fn) == NULL)
		return;
	cnt = annview_counts(u, L);
	if (!util_grow((void **)&A->lines, &A->lines_cap, 2 * f->ninsn + 1, sizeof(*A->lines)) ||
	    !util_grow((void **)&A->hot, &A->hot_cap, f->ninsn + 1, sizeof(*A->hot)))
		return;
	for (uint32_t i = 0; i < f->ninsn; i++) {
		const struct annot_insn *in = &f->insn[i];

		if (A->source && in->file && in->line && (i == 0 || !same_src(in, &f->insn[i - 1])))
			A->lines[n++] = (struct annview_line){ i, true };
		A->lines[n++] = (struct annview_line){ i, false };
		if (cnt && cnt[i])
			A->hot[A->nhot++] = i;
	}
	A->nlines = n;
	if (cnt)
		qsort_r(A->hot, A->nhot, sizeof(*A->hot), hot_cmp, (void *)cnt);
	source_rows(A, L, cnt);
	/* The place kept: the same instruction (its source line when that was
	 * selected and is still shown). */
	L->sel = annview_line_of(A, L->sel_insn);
	if (L->sel_src && L->sel > 0 && A->lines[L->sel - 1].src)
		L->sel--;
	if (L->ssel >= A->nsrows)
		L->ssel = A->nsrows ? A->nsrows - 1 : 0;
	if (!L->moved) { /* until the user moves: the hottest, centred */
		if (A->nhot)
			annview_select(u, annview_line_of(A, A->hot[0]), true);
		if (A->nshot)
			L->ssel = A->shot[0];
	}
}

void annview_select(struct ui *u, size_t l, bool centre)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	size_t page = A->page ? A->page : 10;

	if (L == NULL || A->nlines == 0)
		return;
	if (l >= A->nlines)
		l = A->nlines - 1;
	L->sel = l;
	L->sel_insn = A->lines[l].insn;
	L->sel_src = A->lines[l].src;
	if (centre)
		L->top = l > page / 2 ? l - page / 2 : 0;
}

void annview_detail(const struct ui *u, char *buf, size_t len)
{
	const struct ui_annot *A = u->annot;
	const struct annview_level *L = A && A->depth ? &A->lv[A->depth - 1] : NULL;
	const uint64_t *cnt;
	const struct annot_insn *in;

	buf[0] = '\0';
	if (L == NULL || L->fn == NULL)
		return;
	cnt = annview_counts(u, L);
	if (A->srcview) {
		const struct annview_srow *r = L->ssel < A->nsrows ? &A->srows[L->ssel] : NULL;

		if (r)
			snprintf(buf, len, "%s:%u  %" PRIu64 " samples", r->file, r->line, r->samples);
		return;
	}
	if (L->sel >= A->nlines)
		return;
	in = &L->fn->insn[A->lines[L->sel].insn];
	snprintf(buf, len, "%s+0x%" PRIx64 "  at 0x%" PRIx64 "  %" PRIu64 " samples", L->sym, in->offset, in->addr,
		 cnt ? cnt[A->lines[L->sel].insn] : 0);
	if (in->file) {
		char where[320];

		snprintf(where, sizeof(where), "  %s:%u", in->file, in->line);
		strlcat(buf, where, len);
	}
}

bool annview_match(const struct annview_level *L, uint32_t i, const char *pat)
{
	const struct annot_insn *in;

	if (L->fn == NULL || i >= L->fn->ninsn || pat[0] == '\0')
		return false;
	in = &L->fn->insn[i];
	return strcasestr(in->text, pat) || (in->callee && strcasestr(in->callee, pat));
}

/* --- opening and closing ------------------------------------------------- */

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static void level_free(struct annview_level *L)
{
	free(L->sym);
	free(L->dso);
	free(L->cnt);
	memset(L, 0, sizeof(*L));
}

/* A level for the target t (its strings copied), counted by its row's key
 * when it has a row; false (said on the message line) when none is made. */
static bool level_push(struct ui *u, const struct annot_target *t, const struct agg_sym *row)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L;
	struct annot_cache *c = u->s ? session_annot(u->s) : NULL;
	struct agg *a = u->s ? u->s->agg : NULL;

	if (A->depth >= ANNVIEW_DEPTH) {
		ui_message(u, false, "annotate: %d levels open already (Esc goes back)", ANNVIEW_DEPTH);
		return false;
	}
	L = &A->lv[A->depth];
	memset(L, 0, sizeof(*L));
	L->sym = dup_or_empty(t->sym);
	L->dso = dup_or_empty(t->dso);
	if (L->sym == NULL || L->dso == NULL) {
		level_free(L);
		ui_message(u, true, "no memory to annotate: close other views or restart perftop");
		return false;
	}
	L->t = *t;
	L->t.sym = L->sym;
	L->t.dso = L->dso;
	if (t->build_id && t->build_id_len && t->build_id_len <= sizeof(L->build_id)) {
		memcpy(L->build_id, t->build_id, t->build_id_len);
		L->t.build_id = L->build_id;
	} else {
		L->t.build_id = NULL;
		L->t.build_id_len = 0;
	}
	L->jump_from = UINT32_MAX;
	if (row) {
		L->key = row->key;
		L->keyed = true;
	}
	if (c)
		L->fn = annot_get(c, &L->t, L->why, sizeof(L->why));
	else
		strlcpy(L->why, "no annotation here (no session)", sizeof(L->why));
	if (L->fn == NULL && L->why[0] == '\0')
		strlcpy(L->why, "no instructions", sizeof(L->why));
	A->depth++;
	/* Counts at once (the agg keeps them for the hottest symbols before
	 * any a): the interval is only begun, so until the next tick those
	 * since counting began; decaying or cumulative, the scope's own. */
	want(u, L, a);
	L->provisional = ui_scope(u) == AGG_INTERVAL && !u->decay;
	read_counts(u, L, a, L->provisional ? AGG_TOTAL : ui_scope(u));
	A->srcview = false;
	A->typing = false;
	annview_rebuild(u);
	return true;
}

static void target_of_row(struct annot_target *t, const struct agg_sym *r)
{
	memset(t, 0, sizeof(*t));
	t->sym = r->sym;
	t->dso = r->dso;
	t->build_id = r->build_id_len ? r->build_id : NULL;
	t->build_id_len = r->build_id_len;
	t->pid = r->pid;
	t->start = r->start;
	t->size = r->size;
	t->kernel = r->kernel;
}

static bool level_opened(struct ui *u, const struct annview_level *L)
{
	if (L->fn == NULL) {
		ui_message(u, true, "%s: %s", L->sym, L->why);
		return true;
	}
	if (L->since_open)
		ui_message(u, false, "%s had no instruction counts: counting from now", L->sym);
	return false;
}

/* a: the selected symbol's annotation; on a call-tree line, that line's
 * symbol (its row in the frame: it has samples in scope). */
unsigned annview_open_selected(struct ui *u, int key)
{
	const struct ui_tree *t = u->mode == MODE_PATHS ? &u->paths : &u->tree;
	const struct agg_sym *row = NULL;

	if (u->mode == MODE_MAIN && u->view != VIEW_SYMBOLS) {
		ui_message(u, false, "a annotates a symbol: Tab to the Symbols view and select one");
		return UI_DRAW;
	}
	if (u->mode == MODE_MAIN && u->nrows == 0) {
		ui_message(u, false, "no symbol to annotate yet");
		return UI_DRAW;
	}
	if (u->mode == MODE_PATHS || (u->tree.in && t->nvis && t->sel < t->nvis && t->vis[t->sel] != 0)) {
		uint32_t node = t->nvis && t->sel < t->nvis ? t->vis[t->sel] : 0;
		const struct ui_cgsnap *c = calltree_snap(u, t); /* F5 in the Waits view: the wait agg's */
		const struct ui_cgsym *s = node && node < t->nn ? calltree_snap_sym(c, t->n[node].sym) : NULL;

		if (s == NULL || s->comm) {
			ui_message(u, false, "a annotates a symbol: select a function's line");
			return UI_DRAW;
		}
		row = annview_row_named(u, c->pool + s->name, c->pool + s->dso);
		if (row == NULL) {
			ui_message(u, false, "%s: no samples in this view to annotate", c->pool + s->name);
			return UI_DRAW;
		}
	} else {
		row = u->rows[u->sel[VIEW_SYMBOLS]];
	}
	return annview_open(u, row);
}

/* The table's event: the sort column's when it is an event's, else the first on. */
unsigned annview_open(struct ui *u, const struct agg_sym *row)
{
	struct annot_target t;

	if (u->annot == NULL && (u->annot = calloc(1, sizeof(*u->annot))) == NULL) {
		ui_message(u, true, "no memory to annotate: close other views or restart perftop");
		return UI_DRAW;
	}
	if (u->mode != MODE_ANNOTATE) {
		while (u->annot->depth)
			annview_pop(u);
		u->annot->prev_mode = u->mode;
		u->annot->ev = views_sort_event(u);
		u->annot->srcview = false;
		if (u->s && session_annot(u->s))
			u->annot->source = annot_source_on(session_annot(u->s));
	}
	target_of_row(&t, row);
	if (!level_push(u, &t, row))
		return UI_DRAW;
	u->mode = MODE_ANNOTATE;
	level_opened(u, annview_top(u));
	return UI_DRAW;
}

unsigned annview_push_callee(struct ui *u, uint32_t i)
{
	struct annview_level *L = annview_top(u), *N;
	const struct annot_insn *in = &L->fn->insn[i];
	const struct agg_sym *row = NULL;
	struct annot_target t = L->t;
	const char *base = strrchr(L->dso, '/');
	char name[160];

	if (!in->has_target) {
		ui_message(u, false, "an indirect %s: its target is known only at run time",
			   in->kind == ANNOT_CALL ? "call" : "jump");
		return UI_DRAW;
	}
	/* A direct call lands in the same file (a PLT entry included); a
	 * stripped callee by its start, named as the table names it. */
	if (in->callee)
		row = annview_row_named(u, in->callee, L->dso);
	for (size_t k = 0; !in->callee && k < u->fr.nsyms && !row; k++)
		if (u->fr.syms[k].start == in->target_addr && u->fr.syms[k].dso && strcmp(u->fr.syms[k].dso, L->dso) == 0)
			row = &u->fr.syms[k];
	snprintf(name, sizeof(name), "%s+0x%" PRIx64, base && base[1] ? base + 1 : L->dso, in->target_addr);
	t.sym = in->callee ? in->callee : name;
	t.start = in->target_addr;
	t.size = 0;
	if (row)
		target_of_row(&t, row);
	if (!level_push(u, &t, row))
		return UI_DRAW;
	N = annview_top(u);
	if (!level_opened(u, N) && !row)
		ui_message(u, false, "%s has no samples in this view: counts appear once it has some", N->sym);
	return UI_DRAW;
}

unsigned annview_pop(struct ui *u)
{
	struct ui_annot *A = u->annot;

	if (A == NULL || A->depth == 0) {
		u->mode = MODE_MAIN;
		return UI_DRAW;
	}
	unwant(u, &A->lv[A->depth - 1]);
	level_free(&A->lv[--A->depth]);
	A->typing = false;
	A->srcview = false;
	if (A->depth == 0) {
		u->mode = A->prev_mode == MODE_PATHS ? MODE_PATHS : MODE_MAIN;
		return UI_RESORT;
	}
	annview_rebuild(u);
	return UI_DRAW;
}

void annview_free(struct ui *u)
{
	struct ui_annot *A = u->annot;

	if (A == NULL)
		return;
	while (A->depth)
		level_free(&A->lv[--A->depth]);
	free(A->lines);
	free(A->hot);
	free(A->srows);
	free(A->shot);
	free(A);
	u->annot = NULL;
}
