/* SPDX-License-Identifier: GPL-2.0-or-later */
/* columns: the column table of each view (title, width, text, sort key),
 * read by views.c to filter, sort, lay out and draw the rows. */
#ifndef PERFTOP_UI_COLUMNS_H
#define PERFTOP_UI_COLUMNS_H

#include "ui.h"

struct column {
	const char *title;          /* per-event columns: NULL, the event's name */
	int width;                  /* 0: the rest of the line */
	bool left;
	bool per_event;
	bool multi_only;            /* only when there is more than one event */
	bool foreign;               /* another process's text: sanitised when drawn */
	bool asc;                   /* numbers sort smallest first (ids) */
	bool shrinks;               /* gives up width first when the screen is narrow */
	bool threads_only;          /* only with thread rows (H) */
	int ratio;                  /* 1 + enum ratio_kind: shown only when some row has it */
	void (*text)(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
	double (*num)(const struct ui *u, const void *row, size_t ev);
	const char *(*str)(const void *row);
	const char *sort_name;      /* in "sort: …" when the title is not enough */
	bool span;                  /* the title runs on over the next column's empty one */
	bool fit;                   /* as wide as its widest text shown, up to a third of the line */
	int cg;                     /* 1: only with call graphs (-g); -1: only without */
	bool offcpu;                /* only while off-CPU tables exist (--off-cpu, O) */
	bool baseline;              /* only with a baseline (B, --baseline): compare.c */
};

struct view_def {
	const char *name;
	const struct column *cols;
	size_t ncols;
	const struct agg_counts *(*counts)(const void *row, enum agg_scope scope);
	uint64_t (*key)(const void *row);
	bool (*match)(const void *row, const char *pat);
	enum ui_role (*role)(const void *row, const struct column *c);
};

extern const struct view_def columns_views[VIEW_COUNT];
/* waits.c: the Wait view's columns (rows: struct ui_wait) and the Tasks
 * view's Off-CPU ones (offcpu: shown only while the session has off-CPU
 * tables). */
double waits_num_off(const struct ui *u, const void *row, size_t ev);
void waits_text_off(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
double waits_num_off_s(const struct ui *u, const void *row, size_t ev);
void waits_text_off_s(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
double waits_num_off_d(const struct ui *u, const void *row, size_t ev);
void waits_text_off_d(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
double waits_num_off_r(const struct ui *u, const void *row, size_t ev);
void waits_text_off_r(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
double waits_num_children(const struct ui *u, const void *row, size_t ev);
void waits_text_children(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
double waits_num_self(const struct ui *u, const void *row, size_t ev);
void waits_text_self(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
void waits_text_dso(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
const char *waits_str_dso(const void *row);
void waits_text_mode(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
const char *waits_str_mode(const void *row);
void waits_text_sym(const struct ui *u, const void *row, size_t ev, char *buf, size_t len);
const char *waits_str_sym(const void *row);
const struct agg_counts *waits_counts(const void *row, enum agg_scope scope);
uint64_t waits_key(const void *row);
bool waits_match(const void *row, const char *pat);
enum ui_role waits_role(const void *row, const struct column *c);

/* The row's counts in the scope shown. */
const struct agg_counts *columns_counts_of(const struct ui *u, const void *row);
uint64_t columns_counts_sum(const struct ui *u, const struct agg_counts *c);
/* A symbol row's children counts (-g) in the scope shown. */
const struct agg_counts *columns_children_of(const struct ui *u, const struct agg_sym *row);

#endif
