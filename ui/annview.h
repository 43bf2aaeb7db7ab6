/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annview: the live annotate view (a). A stack of symbols (Enter on a call
 * pushes its callee, Esc pops), each its instructions from the annotate
 * layer and its per-instruction counts from the agg, copied at each tick
 * as the frame's rows are (a paused screen stays still). annview.c: the
 * model; annview_keys.c: keys and the mouse; annview_paint.c: drawing. */
#ifndef PERFTOP_UI_ANNVIEW_H
#define PERFTOP_UI_ANNVIEW_H

#include "annotate.h"
#include "ui.h"

#define ANNVIEW_DEPTH 16

/* A line of the instruction list: an instruction, or (source on) the
 * source line the instructions after it come from. */
struct annview_line {
	uint32_t insn;            /* index into fn->insn */
	bool src;                 /* the source line above insn */
};

/* S: a source line of the symbol, its instructions' samples summed. */
struct annview_srow {
	const char *file;         /* the annotation's string */
	unsigned line;
	uint64_t samples;
	uint32_t first;           /* its first instruction */
};

/* One symbol on the stack. */
struct annview_level {
	struct annot_target t;    /* sym, dso, build_id: copies owned here */
	char *sym, *dso;
	uint8_t build_id[AGG_BUILD_ID_MAX];
	uint64_t key;             /* the agg row counted for it */
	bool keyed;               /* false: no row yet (a callee without samples) */
	const struct agg *wanted; /* the agg told to count it; NULL: none yet */
	bool want_failed;         /* said once */
	const struct annot_func *fn; /* NULL: why says why */
	char why[256];
	uint64_t *cnt;            /* samples per event and instruction, as at the last tick */
	size_t cnt_cap, nev;
	uint64_t sum[AGG_MAX_EVENTS]; /* per event */
	bool since_open;          /* counting began when it was opened */
	bool provisional;         /* counts read between ticks: since counting began */
	bool moved;               /* the user moved: the refresh keeps the place */
	size_t sel, top;          /* selected line, first line shown */
	uint32_t sel_insn;        /* the selected line's instruction (the place kept) */
	bool sel_src;             /* …its source line */
	uint32_t jump_from;       /* the jump followed to here; UINT32_MAX none */
	size_t ssel, stop;        /* S: selected and first row */
};

struct ui_annot {
	struct annview_level lv[ANNVIEW_DEPTH];
	size_t depth;             /* levels open; lv[depth - 1] is shown */
	enum ui_mode prev_mode;   /* where a was pressed: Esc on the last level goes back there */
	bool source;              /* s: source lines among the instructions */
	bool raw;                 /* o: addresses and raw bytes */
	bool all;                 /* t: share of all samples, not of the symbol */
	bool srcview;             /* S: the source view */
	size_t ev;                /* the event counted */
	bool typing;              /* /: the search prompt is open */
	char input[64], search[64];
	uint32_t search_from;     /* the instruction the search started at */
	/* the shown level's lines, hot order, source rows (rebuilt on change) */
	struct annview_line *lines;
	size_t nlines, lines_cap;
	uint32_t *hot;            /* instructions with samples, most first */
	size_t nhot, hot_cap;
	struct annview_srow *srows;
	size_t nsrows, srows_cap;
	size_t *shot;             /* S rows with samples, most first */
	size_t nshot, shot_cap;
	size_t page;              /* lines on screen, for PgUp/PgDn */
	int list_y, list_rows;    /* where the list was drawn, for the mouse */
};

/* annview.c */
struct annview_level *annview_top(struct ui *u);
/* (Re)builds the shown level's lines, hot order and source rows; keeps the
 * selected instruction. */
void annview_rebuild(struct ui *u);
/* Pushes the callee of a call (or a tail jump) at instruction i. */
unsigned annview_push_callee(struct ui *u, uint32_t i);
/* Pops a level; the last one closes the view. */
unsigned annview_pop(struct ui *u);
/* Selects line l (clamped); centre: put it mid-screen. */
void annview_select(struct ui *u, size_t l, bool centre);
/* The line of instruction i (its own, not its source line). */
size_t annview_line_of(const struct ui_annot *A, uint32_t i);
/* The shown event's counts per instruction (NULL: none), and their sum. */
const uint64_t *annview_counts(const struct ui *u, const struct annview_level *L);
uint64_t annview_sum(const struct ui *u, const struct annview_level *L);
/* Share of instruction counts c in percent: of the symbol, or (t) of all. */
double annview_share(const struct ui *u, const struct annview_level *L, uint64_t c);
/* What the counts cover: the interval, decaying, since counting began. */
const char *annview_scope_name(const struct ui *u);
/* Case-insensitive: instruction i's text (or its callee) holds pat. */
bool annview_match(const struct annview_level *L, uint32_t i, const char *pat);

#endif
