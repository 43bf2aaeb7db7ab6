/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump_rows: the dump's row model, shared by its writers (dump.c: text and
 * CSV, dump_json.c: JSON). Every table is described once: its JSON key, its
 * CSV name, its text lines and the fields of its rows. */
#ifndef PERFTOP_DUMP_ROWS_H
#define PERFTOP_DUMP_ROWS_H

#include <stdbool.h>
#include <stdio.h>

#include "dump.h"
#include "callgraph.h"
#include "json.h"
#include "ratios.h"

#define NAME_MAX_OUT 1024
#define DUMP_LINKS 5       /* callers and callees per symbol row */

/* One row of any table, as every format sees it. */
struct drow {
	const char *name;                  /* symbol, comm, event, CPU number */
	const char *dso;
	int kernel;                        /* -1: not a symbol row */
	long pid, tid;                     /* -1: none */
	uint64_t samples, period, lost, throttled;
	uint64_t samples_total, lost_total, throttled_total;
	double share;
	const struct agg_counts *counts;   /* NULL: none (a counter-only row) */
	const struct agg_task *task;       /* task and thread rows that took samples */
	const struct agg_counter_row *cr;  /* focus mode's exact counters */
	const struct agg_sym *sym;         /* symbol rows */
	const struct agg_group *grp;       /* --sort's rows */
	int level;                         /* --hierarchy's JSON: 1 + "level" (1 a parent, 2 its rows), 0 none */
	struct session_event ev;           /* event rows */
	int running_pct;
	int cpu;
	struct ratio ratios[RATIO_COUNT];
	char num[16];
};

/* What a row's JSON object holds, in order; a field without data is left out. */
enum field {
	F_NAME, F_SYMBOL, F_DSO, F_KERNEL, F_PID, F_TID, F_COMM, F_CPU, F_ENABLED, F_SAMPLES,
	F_PERIOD, F_SHARE, F_THREADS, F_EXITED, F_LOST, F_THROTTLED, F_SAMPLES_TOTAL,
	F_LOST_TOTAL, F_THROTTLED_TOTAL, F_RUNNING, F_EXCLUDE, F_COUNTS, F_COUNTERS, F_RATIOS,
	F_SELF, F_CHILDREN, F_CALLERS, F_CALLEES,
	F_OFFCPU,  /* --off-cpu: "offcpu_ms", "offcpu_state" of task and thread rows */
	F_WAIT,    /* waits rows: "self_ms", "children_ms", "callers", "callees" (blocked time) */
	F_PPID, F_GROUP, F_BASELINE,
	F_END,
};

struct dctx {
	FILE *f;
	enum dump_format fmt;
	const struct session *s;
	struct agg *a;
	const struct agg_counters *ac;
	const struct cg *cg;               /* call graphs, or NULL */
	const struct dump_meta *m;
	size_t limit;
	struct session_event evs[AGG_MAX_EVENTS];
	bool enabled[AGG_MAX_EVENTS];
	size_t nev;
	struct drow *rows;
	size_t nrows, cap;
	bool grouped;                      /* the agg has --sort's keys */
};

struct dtable {
	const char *json;     /* array key; tables with the same key share one array */
	const char *csv;      /* the CSV "table" column; NULL: not in CSV */
	const char *text_head; /* NULL: not in the text dump */
	const char *text_head_cg; /* the same with call graphs, if it differs */
	void (*text)(struct dctx *c, const struct drow *r);
	void (*collect)(struct dctx *c);
	bool threads_only;    /* only with --threads */
	enum field fields[F_END + 1];
};

/* Whether t is --off-cpu's, which shows only while the session has its tables. */
bool dump_offcpu_table(const struct dtable *t);
/* --sort's table: only when the agg has keys. */
#define DUMP_GROUPED(t) ((t)->collect == dump_group_collect)

extern const struct dtable dump_tables[];
extern const size_t dump_ntables;

/* The table's rows for this interval into c->rows; how many. */
size_t dump_collect(struct dctx *c, const struct dtable *t);
const char *dump_counter_state(enum counter_state st);
void dump_text_ratios(FILE *f, const struct ratio r[RATIO_COUNT]);
void dump_json(struct dctx *c);
/* A text cell: sanitised, cut with an ellipsis past width (0: whole), padded unless last. */
void dump_text_cell(FILE *f, const char *s, size_t width, bool last);
/* dump_group.c: --sort's table. */
void dump_group_collect(struct dctx *c);
void dump_group_text(struct dctx *c, const struct drow *r);
/* The text dump's main table of --sort's rows (--hierarchy: folded under
 * the first key). */
void dump_group_table(struct dctx *c);
void dump_group_json(struct json *j, const struct drow *r, const struct agg *a);
/* A row's share in --baseline's table (symbol rows by symbol and DSO,
 * --sort's by their keys); 0 when it has none. */
double dump_group_baseline(const struct dctx *c, const struct drow *r);
/* --baseline's text column: a row's Delta (r NULL: blank), the title. */
void dump_text_delta(const struct dctx *c, const struct drow *r);
void dump_text_delta_head(const struct dctx *c);


#endif
