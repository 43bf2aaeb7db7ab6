/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annview_keys: what keys and the mouse do in the annotate view (a): move,
 * hot lines (Tab), follow calls and jumps (Enter), back (Esc), the
 * switches (s o t S), the search (/ n N) and the event (< >). */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "annview.h"
#include "keys.h"

#define DOUBLE_MS 400

static bool has_lines(struct ui *u)
{
	const struct annview_level *L = annview_top(u);

	return L && L->fn && u->annot->nlines;
}

static void moved(struct ui *u)
{
	struct annview_level *L = annview_top(u);

	if (L) {
		L->moved = true;
		L->jump_from = UINT32_MAX;
	}
}

static size_t page(const struct ui *u)
{
	return u->annot->page > 1 ? u->annot->page - 1 : 1;
}

/* Up, Down, PgUp, PgDn, Home, End: lines, or S's rows. */
static unsigned an_move(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	size_t n = A->srcview ? A->nsrows : A->nlines, s, pg = page(u);

	if (L == NULL || n == 0)
		return 0;
	s = A->srcview ? L->ssel : L->sel;
	switch (key) {
	case KEY_UP:
	case 'k':
		s = s ? s - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		s = s + 1 < n ? s + 1 : n - 1;
		break;
	case KEY_PPAGE:
		s = s > pg ? s - pg : 0;
		break;
	case KEY_NPAGE:
		s = s + pg < n ? s + pg : n - 1;
		break;
	case KEY_HOME:
		s = 0;
		break;
	default:
		s = n - 1;
		break;
	}
	moved(u);
	if (A->srcview)
		L->ssel = s;
	else
		annview_select(u, s, false);
	return UI_DRAW;
}

/* Tab, S-Tab: the next or previous hot line, hottest first (perf's order). */
static unsigned an_hot(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	size_t n = A->srcview ? A->nshot : A->nhot, pos = n;
	bool back = key == KEY_BTAB;

	if (L == NULL)
		return 0;
	if (n == 0) {
		ui_message(u, false, "no hot line: %s took no samples %s", L->sym,
			   u->cumulative ? "since counting began" : "in this interval");
		return UI_DRAW;
	}
	for (size_t i = 0; i < n; i++)
		if (A->srcview ? A->shot[i] == L->ssel : (A->hot[i] == L->sel_insn && !L->sel_src))
			pos = i;
	if (pos == n)
		pos = back ? n - 1 : 0;
	else
		pos = back ? (pos + n - 1) % n : (pos + 1) % n;
	moved(u);
	if (A->srcview) {
		L->ssel = A->shot[pos];
		L->stop = L->ssel > page(u) / 2 ? L->ssel - page(u) / 2 : 0;
	} else {
		annview_select(u, annview_line_of(A, A->hot[pos]), true);
	}
	ui_message(u, false, "hot line %zu of %zu", pos + 1, n);
	return UI_DRAW;
}

/* S, Enter: to the instructions of the selected source line, its hottest. */
static unsigned src_to_asm(struct ui *u)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	const struct annview_srow *r;
	const uint64_t *cnt = annview_counts(u, L);
	uint32_t best = UINT32_MAX;

	A->srcview = false;
	if (L->ssel >= A->nsrows)
		return UI_DRAW;
	r = &A->srows[L->ssel];
	for (uint32_t i = 0; i < L->fn->ninsn; i++) {
		const struct annot_insn *in = &L->fn->insn[i];

		if (in->line != r->line || in->file == NULL || strcmp(in->file, r->file) != 0)
			continue;
		if (best == UINT32_MAX || (cnt && cnt[i] > cnt[best]))
			best = i;
	}
	moved(u);
	if (best != UINT32_MAX)
		annview_select(u, annview_line_of(A, best), true);
	return UI_DRAW;
}

/* Enter (and Right): a call opens its callee, a jump in the function moves
 * to its target with the arrow drawn; S: a source line's instructions. */
static unsigned an_follow(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	const struct annot_insn *in, *to;
	uint32_t i;

	if (L == NULL || L->fn == NULL)
		return 0;
	if (A->srcview)
		return src_to_asm(u);
	if (!has_lines(u))
		return 0;
	i = A->lines[L->sel].insn;
	in = &L->fn->insn[i];
	if (in->kind == ANNOT_CALL || (in->kind == ANNOT_JUMP && !in->target_in_func && in->has_target))
		return annview_push_callee(u, i); /* a jump out: a tail call */
	if (in->kind == ANNOT_JUMP && in->target_in_func && (to = annot_insn_at(L->fn, in->target_off))) {
		size_t from = L->sel, at = annview_line_of(A, (uint32_t)(to - L->fn->insn));
		size_t lo = from < at ? from : at, span = (from < at ? at - from : from - at) + 1;

		/* Both ends of the arrow on screen when they fit, else the target centred. */
		annview_select(u, at, span > page(u));
		if (span <= page(u))
			L->top = lo > (page(u) - span) / 2 ? lo - (page(u) - span) / 2 : 0;
		L->moved = true;
		L->jump_from = i;
		return UI_DRAW;
	}
	if (in->kind == ANNOT_JUMP)
		ui_message(u, false, "an indirect jump: its target is known only at run time");
	else if (key == 'a')
		ui_message(u, false, "a on a call opens its callee's annotation");
	else
		ui_message(u, false, "Enter follows a call or a jump (Tab: the next hot line)");
	return UI_DRAW;
}

static unsigned an_back(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;

	if (A->srcview) {
		A->srcview = false;
		return UI_DRAW;
	}
	return annview_pop(u);
}

static unsigned an_source(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	const struct annview_level *L = annview_top(u);

	A->source = !A->source;
	annview_rebuild(u);
	if (A->source && A->nsrows == 0)
		ui_message(u, false, "no source lines for %s%s%s", L ? L->sym : "?",
			   L && L->fn && L->fn->lacks ? ": " : "", L && L->fn && L->fn->lacks ? L->fn->lacks : "");
	else
		ui_message(u, false, A->source ? "source lines shown (s: instructions only)" : "instructions only (s: source lines)");
	return UI_DRAW;
}

static unsigned an_raw(struct ui *u, int key)
{
	u->annot->raw = !u->annot->raw;
	ui_message(u, false, u->annot->raw ? "addresses and raw bytes (o: offsets)" : "offsets from the symbol's start (o: addresses, bytes)");
	return UI_DRAW;
}

static unsigned an_total(struct ui *u, int key)
{
	u->annot->all = !u->annot->all;
	ui_message(u, false, u->annot->all ? "share of all samples (t: of the symbol's)" : "share of the symbol's samples (t: of all)");
	return UI_DRAW;
}

static unsigned an_srcview(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);

	if (A->srcview)
		return src_to_asm(u);
	if (L == NULL || L->fn == NULL || A->nsrows == 0) {
		ui_message(u, false, "no source lines for %s%s%s", L ? L->sym : "?",
			   L && L->fn && L->fn->lacks ? ": " : "", L && L->fn && L->fn->lacks ? L->fn->lacks : "");
		return UI_DRAW;
	}
	/* as the instructions open: the hottest line, centred */
	A->srcview = true;
	if (A->nshot) {
		L->ssel = A->shot[0];
		L->stop = L->ssel > page(u) / 2 ? L->ssel - page(u) / 2 : 0;
	}
	return UI_DRAW;
}

/* n, N: the next or previous instruction matching the search. */
static bool search_step(struct ui *u, uint32_t from, int dir, bool here)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	size_t n = L && L->fn ? L->fn->ninsn : 0;

	for (size_t k = here ? 0 : 1; k <= n && n; k++) {
		uint32_t i = (uint32_t)(dir > 0 ? (from + k) % n : (from + n - k % n) % n);

		if (annview_match(L, i, A->search)) {
			annview_select(u, annview_line_of(A, i), true);
			L->moved = true;
			return true;
		}
	}
	return false;
}

static unsigned an_next(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);

	if (A->search[0] == '\0') {
		ui_message(u, false, "no search: / starts one");
		return UI_DRAW;
	}
	A->srcview = false;
	if (L == NULL || !search_step(u, L->sel_insn, key == 'N' ? -1 : 1, false))
		ui_message(u, false, "no instruction matches \"%s\"", A->search);
	return UI_DRAW;
}

static unsigned an_search(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);

	if (!has_lines(u))
		return 0;
	A->srcview = false;
	A->typing = true;
	A->input[0] = '\0';
	A->search_from = L->sel_insn;
	return UI_DRAW;
}

/* The search prompt: as typed, the first match from where it started. */
unsigned annview_prompt_key(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	size_t len = strlen(A->input);

	switch (key) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		A->typing = false;
		strlcpy(A->search, A->input, sizeof(A->search));
		if (A->search[0] && L && !annview_match(L, L->sel_insn, A->search))
			ui_message(u, false, "no instruction matches \"%s\"", A->search);
		return UI_DRAW;
	case KEY_ESC:
		A->typing = false;
		A->search[0] = '\0';
		if (L)
			annview_select(u, annview_line_of(A, A->search_from), false);
		return UI_DRAW;
	case KEY_BACKSPACE:
	case 127:
	case KEY_CTRL('h'):
		if (len)
			A->input[len - 1] = '\0';
		break;
	case KEY_CTRL('u'):
		A->input[0] = '\0';
		break;
	case KEY_CTRL('l'):
		return UI_CLEAR;
	case KEY_RESIZE:
	case KEY_MOUSE:
		return UI_DRAW;
	default:
		if (key < 0x20 || key > 0x7e || len + 1 >= sizeof(A->input))
			return 0;
		A->input[len] = (char)key;
		A->input[len + 1] = '\0';
		break;
	}
	strlcpy(A->search, A->input, sizeof(A->search));
	if (L && A->search[0])
		search_step(u, A->search_from, 1, true);
	return UI_DRAW;
}

/* < >: the event counted, where several are sampled. */
static unsigned an_event(struct ui *u, int key)
{
	struct ui_annot *A = u->annot;
	size_t n = u->fr.nev;

	if (n < 2) {
		ui_message(u, false, "one event sampled: < > pick the event where there are several");
		return UI_DRAW;
	}
	A->ev = (A->ev + (key == '<' ? n - 1 : 1)) % n;
	annview_rebuild(u);
	ui_message(u, false, "samples of %s", u->fr.ev[A->ev].name);
	return UI_DRAW;
}

/* The help tells the view's own keys, a few to a row (Up Down PgUp PgDn
 * Home End move as in the tables). */
const struct key_binding annview_keys[] = {
	{ 0, NULL, { "a", "annotate a symbol (tables, call trees)" } },
	{ KEY_UP, an_move, { NULL, NULL } },
	{ KEY_DOWN, an_move, { NULL, NULL } },
	{ 'k', an_move, { NULL, NULL } },
	{ 'j', an_move, { NULL, NULL } },
	{ KEY_PPAGE, an_move, { NULL, NULL } },
	{ KEY_NPAGE, an_move, { NULL, NULL } },
	{ KEY_HOME, an_move, { NULL, NULL } },
	{ KEY_END, an_move, { NULL, NULL } },
	{ '\t', an_hot, { "Tab S-Tab", "next / previous hot line, hottest first" } },
	{ KEY_BTAB, an_hot, { NULL, NULL } },
	{ '\n', an_follow, { "Enter Right", "follow a call (callee) or a jump (target)" } },
	{ '\r', an_follow, { NULL, NULL } },
	{ KEY_ENTER, an_follow, { NULL, NULL } },
	{ KEY_RIGHT, an_follow, { NULL, NULL } },
	{ 'a', an_follow, { NULL, NULL } },
	{ KEY_ESC, an_back, { "Esc Left", "back: the caller's annotation, the table" } },
	{ KEY_LEFT, an_back, { NULL, NULL } },
	{ KEY_BACKSPACE, an_back, { NULL, NULL } },
	{ 127, an_back, { NULL, NULL } },
	{ KEY_CTRL('h'), an_back, { NULL, NULL } },
	{ 's', an_source, { "s S", "source lines on/off; source view (summed)" } },
	{ 'S', an_srcview, { NULL, NULL } },
	{ 'o', an_raw, { "o t", "addresses, raw bytes; share of all samples" } },
	{ 't', an_total, { NULL, NULL } },
	{ '/', an_search, { "/ n N", "search the instructions; next / previous" } },
	{ 'n', an_next, { NULL, NULL } },
	{ 'N', an_next, { NULL, NULL } },
	{ '<', an_event, { "< >", "the event counted (several sampled)" } },
	{ '>', an_event, { NULL, NULL } },
	/* keys.c hands these to the table's actions */
	{ 0, NULL, { "c z Z + -", "cumulative, decay, pause, interval: as the table" } },
	{ 0, NULL, { NULL, NULL } },
};

/* A click selects a line, a second one soon after on the same line
 * follows it (as Enter). */
unsigned annview_mouse(struct ui *u, int y, int x)
{
	static struct timespec last;
	static size_t last_line = SIZE_MAX;
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	struct timespec now;
	size_t l;
	long ms;

	if (L == NULL || y < A->list_y || y >= A->list_y + A->list_rows)
		return 0;
	l = (A->srcview ? L->stop : L->top) + (size_t)(y - A->list_y);
	if (l >= (A->srcview ? A->nsrows : A->nlines))
		return 0;
	moved(u);
	if (A->srcview)
		L->ssel = l;
	else
		annview_select(u, l, false);
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000;
	if (last_line == l && ms >= 0 && ms < DOUBLE_MS) {
		last_line = SIZE_MAX;
		return an_follow(u, '\n');
	}
	last = now;
	last_line = l;
	return UI_DRAW;
}
