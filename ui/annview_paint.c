/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annview_paint: the annotate view on screen. A title (the stack of
 * symbols), what the counts are, what the annotation lacks, then one line
 * per instruction (source lines among them with s) with its share in a
 * heat colour (perf's: red from 5 %, green from 0.5 %), or S's source
 * lines. Names, paths and source text are other programs': sanitised. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "annview.h"
#include "sanitize.h"

#define SHARE_W 7   /* "100.00 " */
#define GUTTER_W 3  /* the jump's arrow */
#define BYTES_MAX 8  /* raw bytes shown at most (x86 has up to 15: the rest marked +) */

/* o's columns: the address as wide as the function's last one needs, as
 * many bytes as the width leaves the instruction room for. */
static int addr_w(const struct annot_func *f)
{
	uint64_t last = f->ninsn ? f->insn[f->ninsn - 1].addr : f->start;
	int n = 1;

	while (last >>= 4)
		n++;
	return n < 7 ? 7 : n; /* the title's "Address" */
}

static int bytes_shown(int w)
{
	return w >= 100 ? BYTES_MAX : w >= 70 ? 6 : 4;
}

static enum ui_role heat(double pct)
{
	return pct >= 5.0 ? R_ERROR : pct >= 0.5 ? R_METER : R_NORMAL;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s && s[1] ? s + 1 : path ? path : "";
}

static void share_cell(char *buf, size_t len, double pct, uint64_t c)
{
	if (c == 0)
		snprintf(buf, len, "%*s", SHARE_W, "");
	else
		snprintf(buf, len, "%6.2f ", pct);
}

/* " Annotate hot (annowork)  main > hot" with the keys, cut after a word. */
static void draw_title(struct ui *u, int w)
{
	struct ui_annot *A = u->annot;
	const struct annview_level *L = annview_top(u);
	char line[1024], safe[1024];
	snprintf(line, sizeof(line), " Annotate %s (%s)", L->sym, base_name(L->dso));
	if (A->depth > 1) {
		strlcat(line, "  ", sizeof(line));
		for (size_t i = A->depth > 4 ? A->depth - 4 : 0; i < A->depth; i++) {
			if (i + 4 < A->depth || (i > 0 && i == A->depth - 4))
				strlcat(line, "... > ", sizeof(line));
			strlcat(line, A->lv[i].sym, sizeof(line));
			if (i + 1 < A->depth)
				strlcat(line, " > ", sizeof(line));
		}
	}
	strlcat(line, A->srcview ? "   source view (S: instructions, Esc back)" : "   Tab hot  Enter follow  Esc back",
		sizeof(line));
	sanitize(safe, sizeof(safe), line);
	paint_words(0, 0, w, R_HEAD, safe);
}

/* What the shares are: the event, the symbol's samples in scope, its part
 * of all; then what is missing or where the counts stand. */
static void draw_info(struct ui *u, int y, int w)
{
	struct ui_annot *A = u->annot;
	const struct annview_level *L = annview_top(u);
	uint64_t sum = annview_sum(u, L), all = ui_base(u, A->ev);
	char line[1024], note[512];
	enum ui_role nr = R_WARN;

	if (L->fn == NULL) { /* nothing to count: the why is below */
		paint_fill(y, 0, w, R_NORMAL);
		paint_fill(y + 1, 0, w, R_NORMAL);
		return;
	}
	snprintf(line, sizeof(line), " %s: %" PRIu64 " sample%s %s", A->ev < u->fr.nev ? u->fr.ev[A->ev].name : "?",
		 sum, sum == 1 ? "" : "s", L->provisional ? "since counting began" : annview_scope_name(u));
	if (all && !L->provisional) {
		char pct[64];

		snprintf(pct, sizeof(pct), ", %.2f%% of all", 100.0 * (double)sum / (double)all);
		strlcat(line, pct, sizeof(line));
	}
	if (u->paused)
		strlcat(line, "  (paused)", sizeof(line));
	paint_words(y, 0, w, R_LABEL, line);

	if (L->fn && L->fn->lacks)
		snprintf(note, sizeof(note), " %slacks: %s", L->since_open ? "counting since it was opened; " : "",
			 L->fn->lacks);
	else if (!L->keyed)
		snprintf(note, sizeof(note), " %s took no samples here: counting starts once it has some", L->sym);
	else if (L->since_open)
		snprintf(note, sizeof(note), " counting since it was opened (it was not among the symbols counted)");
	else if (L->provisional)
		snprintf(note, sizeof(note), " none in this interval yet: counts since counting began, until the next refresh");
	else if (L->fn && L->fn->origin) {
		snprintf(note, sizeof(note), " code from %s%s", L->fn->origin, L->fn->jit ? " (JIT)" : "");
		nr = R_DIM;
	} else {
		note[0] = '\0';
	}
	paint_foreign_words(y + 1, 0, w, nr, note);
}

/* The arrow of the jump shown: from the selected jump to its target, or
 * to the selection from the jump followed (Enter). */
static bool arrow(struct ui *u, size_t *from, size_t *to)
{
	struct ui_annot *A = u->annot;
	const struct annview_level *L = annview_top(u);
	const struct annot_insn *in, *t;

	if (A->nlines == 0)
		return false;
	in = &L->fn->insn[A->lines[L->sel].insn];
	if (!A->lines[L->sel].src && in->kind == ANNOT_JUMP && in->target_in_func &&
	    (t = annot_insn_at(L->fn, in->target_off))) {
		*from = L->sel;
		*to = annview_line_of(A, (uint32_t)(t - L->fn->insn));
		return true;
	}
	if (L->jump_from != UINT32_MAX && L->jump_from < L->fn->ninsn) {
		*from = annview_line_of(A, L->jump_from);
		*to = L->sel;
		return true;
	}
	return false;
}

static void gutter(char g[GUTTER_W + 1], size_t l, bool on, size_t from, size_t to)
{
	size_t lo = from < to ? from : to, hi = from < to ? to : from;

	memset(g, ' ', GUTTER_W);
	g[GUTTER_W] = '\0';
	if (!on || l < lo || l > hi)
		return;
	if (l != lo && l != hi) {
		g[0] = '|';
		return;
	}
	g[0] = lo == hi ? '@' : l == lo ? ',' : '`';
	g[1] = '-';
	g[2] = l == to ? '>' : '-';
}

/* An instruction as read: a call by its callee's name, a jump in the
 * function by the offset it lands on (the offset column's); o: as
 * disassembled, the callee after it. */
static void insn_text(const struct ui_annot *A, const struct annot_insn *in, char *buf, size_t len)
{
	const char *sp = strchr(in->text, ' ');
	int ml = sp ? (int)(sp - in->text) : (int)strlen(in->text);

	if (in->callee && (in->kind == ANNOT_CALL || (in->kind == ANNOT_JUMP && !in->target_in_func))) {
		if (A->raw)
			snprintf(buf, len, "%s  <%s>", in->text, in->callee);
		else
			snprintf(buf, len, "%.*s %s", ml, in->text, in->callee);
	} else if (in->kind == ANNOT_JUMP && in->target_in_func && !A->raw)
		snprintf(buf, len, "%.*s %" PRIx64, ml, in->text, in->target_off);
	else
		snprintf(buf, len, "%s", in->text);
}

static void draw_insn(struct ui *u, int y, int w, size_t l, const char *g, bool hit)
{
	struct ui_annot *A = u->annot;
	const struct annview_level *L = annview_top(u);
	const struct annview_line *ln = &A->lines[l];
	const struct annot_insn *in = &L->fn->insn[ln->insn];
	const uint64_t *cnt = annview_counts(u, L);
	bool sel = l == L->sel;
	char share[32], text[256], where[96], line[512];
	uint64_t c = cnt && !ln->src ? cnt[ln->insn] : 0;
	double pct = annview_share(u, L, c);
	int x = SHARE_W + GUTTER_W;

	paint_fill(y, 0, w, sel ? R_SELECTED : R_NORMAL);
	if (ln->src) {
		const char *src = annot_source_text(session_annot(u->s), in->file, in->line);

		/* its indentation would push the text off a narrow screen */
		while (src && *src == ' ')
			src++;
		snprintf(line, sizeof(line), "%s:%u  %s", base_name(in->file), in->line, src ? src : "");
		sanitize(text, sizeof(text), line);
		paint_text(y, SHARE_W, GUTTER_W, sel ? R_SELECTED : R_VALUE, g, false);
		paint_name(y, x, w - x, sel ? R_SELECTED : R_LABEL, text);
		return;
	}
	share_cell(share, sizeof(share), pct, c);
	paint_text(y, 0, SHARE_W, sel ? R_SELECTED : heat(pct), share, false);
	paint_text(y, SHARE_W, GUTTER_W, sel ? R_SELECTED : R_VALUE, g, false);
	if (A->raw) {
		char bytes[3 * BYTES_MAX + 2] = "";
		int nb = bytes_shown(w);

		for (int i = 0; i < in->len && i < nb; i++)
			snprintf(bytes + 3 * i, sizeof(bytes) - 3 * (size_t)i, "%02x ", in->bytes[i]);
		if (in->len > nb) /* more than shown: the last blank says so */
			bytes[3 * nb - 1] = '+';
		snprintf(where, sizeof(where), "%*" PRIx64 "  %-*s ", addr_w(L->fn), in->addr, 3 * nb, bytes);
	} else {
		snprintf(where, sizeof(where), "%6" PRIx64 ":  ", in->offset);
	}
	insn_text(A, in, text, sizeof(text));
	snprintf(line, sizeof(line), "%s%s", where, text);
	sanitize(where, sizeof(where), line); /* a callee's name is another program's */
	paint_name(y, x, w - x, sel ? R_SELECTED : hit ? R_METER : R_NORMAL, where);
}

static void draw_lines(struct ui *u, int y, int rows, int w)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	size_t from = 0, to = 0;
	bool on = arrow(u, &from, &to);

	char head[160];

	if (!A->raw)
		snprintf(head, sizeof(head), "%s   Offset   Instruction", A->all ? " Of all" : "  Share");
	else
		snprintf(head, sizeof(head), "%s   %*s  %-*s Instruction", A->all ? " Of all" : "  Share",
			 addr_w(L->fn), "Address", 3 * bytes_shown(w), "Bytes");
	paint_text(y, 0, w, R_HEAD, head, false);
	y++;
	rows--;
	A->list_y = y;
	A->list_rows = rows;
	A->page = rows > 0 ? (size_t)rows : 1;
	if (L->sel < L->top)
		L->top = L->sel;
	if (L->sel >= L->top + (size_t)rows)
		L->top = L->sel - (size_t)rows + 1;
	if (L->top + (size_t)rows > A->nlines)
		L->top = A->nlines > (size_t)rows ? A->nlines - (size_t)rows : 0;
	for (int r = 0; r < rows && L->top + (size_t)r < A->nlines; r++) {
		size_t l = L->top + (size_t)r;
		char g[GUTTER_W + 1];

		gutter(g, l, on, from, to);
		draw_insn(u, y + r, w, l, g, A->search[0] && !A->lines[l].src && annview_match(L, A->lines[l].insn, A->search));
	}
}

/* S: the symbol's source lines, each with its instructions' share summed. */
static void draw_source(struct ui *u, int y, int rows, int w)
{
	struct ui_annot *A = u->annot;
	struct annview_level *L = annview_top(u);
	struct annot_cache *c = session_annot(u->s);
	int lw = 8;

	for (size_t i = 0; i < A->nsrows; i++) {
		char where[300];
		int n = snprintf(where, sizeof(where), "%s:%u", base_name(A->srows[i].file), A->srows[i].line);

		lw = n > lw ? n : lw;
	}
	lw = lw > w / 3 ? w / 3 : lw;
	paint_text(y, 0, w, R_HEAD, A->all ? " Of all   Line" : "  Share   Line", false);
	paint_text(y, SHARE_W + GUTTER_W + lw + 2, w - (SHARE_W + GUTTER_W + lw + 2), R_HEAD, "Source", false);
	y++;
	rows--;
	A->list_y = y;
	A->list_rows = rows;
	A->page = rows > 0 ? (size_t)rows : 1;
	if (L->ssel < L->stop)
		L->stop = L->ssel;
	if (L->ssel >= L->stop + (size_t)rows)
		L->stop = L->ssel - (size_t)rows + 1;
	if (L->stop + (size_t)rows > A->nsrows)
		L->stop = A->nsrows > (size_t)rows ? A->nsrows - (size_t)rows : 0;
	for (int r = 0; r < rows && L->stop + (size_t)r < A->nsrows; r++) {
		size_t i = L->stop + (size_t)r;
		const struct annview_srow *s = &A->srows[i];
		const char *text = annot_source_text(c, s->file, s->line);
		bool sel = i == L->ssel;
		double pct = annview_share(u, L, s->samples);
		char share[32], where[300], line[1024], safe[1024];

		share_cell(share, sizeof(share), pct, s->samples);
		snprintf(where, sizeof(where), "%s:%u", base_name(s->file), s->line);
		snprintf(line, sizeof(line), "%-*.*s  %s", lw, lw, where, text ? text : "(source text not readable)");
		sanitize(safe, sizeof(safe), line);
		paint_fill(y + r, 0, w, sel ? R_SELECTED : R_NORMAL);
		paint_text(y + r, 0, SHARE_W, sel ? R_SELECTED : heat(pct), share, false);
		paint_name(y + r, SHARE_W + GUTTER_W, w - SHARE_W - GUTTER_W, sel ? R_SELECTED : text ? R_NORMAL : R_DIM,
			   safe);
	}
}

/* The search prompt on the last line, the cursor after the text. */
static void draw_prompt(struct ui *u, int y, int w)
{
	static const char label[] = "Search instructions: ";
	char safe[128];
	int x = (int)strlen(label);

	paint_fill(y, 0, w, R_FLABEL);
	paint_text(y, 0, x, R_FKEY, label, false);
	sanitize(safe, sizeof(safe), u->annot->input);
	paint_text(y, x, w - x, R_FLABEL, safe, false);
	move(y, x + (int)strlen(safe) < w ? x + (int)strlen(safe) : w - 1);
}

void annview_draw(struct ui *u, int h, int w)
{
	struct ui_annot *A = u->annot;
	const struct annview_level *L = annview_top(u);
	int rows = h - 5; /* title, info, note; message and keys below */

	if (L == NULL)
		return;
	draw_title(u, w);
	draw_info(u, 1, w);
	A->list_rows = 0;
	if (L->fn == NULL) {
		char why[512];

		snprintf(why, sizeof(why), "no annotation of %s: %s", L->sym, L->why);
		paint_foreign_words(3 + rows / 2, 0, w, R_WARN, why);
	} else if (A->srcview) {
		draw_source(u, 3, rows, w);
	} else {
		draw_lines(u, 3, rows, w);
	}
	header_message_draw(u, h - 2, w);
	if (A->typing)
		draw_prompt(u, h - 1, w);
	else
		header_footer_draw(u, h - 1, w);
}
