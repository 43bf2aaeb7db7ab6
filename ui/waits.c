/* SPDX-License-Identifier: GPL-2.0-or-later */
/* waits: --off-cpu in the live view. At each tick the wait agg's symbols
 * (blocked time through and in each) are copied as the Wait view's rows,
 * and the spans' blocked time per task and thread, per state, as ms a
 * second for the Tasks view's Off-CPU columns. O turns it on and off live
 * (the engine opens or closes sched:sched_switch; nothing is re-opened).
 * The wait agg's call paths are snapshot too: a wait row's callers and
 * callees, and F5's tree, are the Symbols view's trees (calltree.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "keys.h"
#include "util.h"

#define WAITS_ROWS 2000 /* the Wait view's rows at most, by blocked time */

bool waits_shown(const struct ui *u)
{
	return u->waits.shown;
}

struct take_ctx {
	struct ui *u;
	double per; /* ms a second: 1e-6 / lap */
};

static void take_task(void *arg, pid_t pid, pid_t tid, const struct spans_time *t)
{
	struct take_ctx *c = arg;
	struct ui_waits *w = &c->u->waits;
	bool cum = ui_scope(c->u) == AGG_TOTAL;
	const uint64_t *ns = cum ? t->total : t->iv;
	struct ui_offtask *o;

	if (ns[0] + ns[1] + ns[2] == 0 || !util_grow((void **)&w->tasks, &w->tcap, w->ntasks + 1, sizeof(*w->tasks)))
		return;
	if (htab_put(&w->idx, tid ? (uint64_t)(uint32_t)tid : (1ull << 32) | (uint32_t)pid, w->ntasks + 1))
		return;
	o = &w->tasks[w->ntasks++];
	o->pid = pid;
	o->tid = tid;
	for (size_t k = 0; k < SPANS_NSTATES; k++)
		o->ms[k] = (double)ns[k] * (cum ? 1e-6 : c->per);
}

void waits_take(struct ui *u, double lap)
{
	struct ui_waits *w = &u->waits;
	struct session *s = u->s;
	const struct agg_sym **rows;
	struct take_ctx c = { u, lap > 0 ? 1e-6 / lap : 0 };
	size_t n;

	w->n = w->ntasks = 0;
	w->shown = s && s->wait && s->spans;
	if (w->idx.tab)
		htab_clear(&w->idx);
	calltree_snap_clear_waits(u);
	if (!w->shown) {
		if (u->tree.open && u->tree.waits)
			calltree_build(u, &u->tree);
		return;
	}
	if (w->idx.tab == NULL && htab_init(&w->idx, 256))
		return;
	spans_each(s->spans, take_task, &c);
	agg_settle(s->wait);
	n = agg_symbols_children_top(s->wait, ui_scope(u), WAITS_ROWS, &rows);
	if (!util_grow((void **)&w->rows, &w->cap, n ? n : 1, sizeof(*w->rows)))
		return;
	for (size_t i = 0; i < n; i++) {
		const struct agg_counts *ch = ui_scope(u) == AGG_INTERVAL ? &rows[i]->ch_iv : &rows[i]->ch_total;
		const struct agg_counts *self = ui_scope(u) == AGG_INTERVAL ? &rows[i]->iv : &rows[i]->total;
		double f = ui_scope(u) == AGG_INTERVAL ? c.per : 1e-6;

		if (ch->period[0] == 0)
			break;
		w->rows[w->n++] = (struct ui_wait){ rows[i]->sym, rows[i]->dso, rows[i]->kernel, rows[i]->key,
						    (double)ch->period[0] * f, (double)self->period[0] * f,
						    ch->samples[0] };
	}
	calltree_snap_take_waits(u, s->wait, s->wake, lap);
}

void waits_clear(struct ui *u)
{
	u->waits.n = u->waits.ntasks = 0;
	if (u->waits.idx.tab)
		htab_clear(&u->waits.idx);
	calltree_snap_clear_waits(u);
}

void waits_free(struct ui *u)
{
	free(u->waits.rows);
	free(u->waits.tasks);
	htab_free(&u->waits.idx);
	memset(&u->waits, 0, sizeof(u->waits));
}

const struct ui_offtask *waits_task(const struct ui *u, const struct agg_task *t)
{
	uintptr_t v;

	if (!u->waits.shown || u->waits.idx.tab == NULL)
		return NULL;
	v = htab_get(&u->waits.idx, t->tid ? (uint64_t)(uint32_t)t->tid : (1ull << 32) | (uint32_t)t->pid);
	return v ? &u->waits.tasks[v - 1] : NULL;
}

/* --- the Tasks view's columns ------------------------------------------- */

static double off(const struct ui *u, const void *row, int state)
{
	const struct ui_offtask *o = waits_task(u, row);

	if (o == NULL)
		return 0;
	return state < 0 ? o->ms[0] + o->ms[1] + o->ms[2] : o->ms[state];
}

static void off_text(const struct ui *u, const void *row, int state, char *buf, size_t len)
{
	double v = off(u, row, state);

	if (v == 0)
		strlcpy(buf, "-", len);
	else
		snprintf(buf, len, "%.0f", v);
}

#define OFF_COLUMN(suffix, state) \
	double waits_num_off##suffix(const struct ui *u, const void *row, size_t ev) { return off(u, row, state); } \
	void waits_text_off##suffix(const struct ui *u, const void *row, size_t ev, char *buf, size_t len) \
	{ \
		off_text(u, row, state, buf, len); \
	}
OFF_COLUMN(, -1)
OFF_COLUMN(_s, SPANS_S)
OFF_COLUMN(_d, SPANS_D)
OFF_COLUMN(_r, SPANS_R)

/* --- the Wait view's --------------------------------------------------- */

double waits_num_children(const struct ui *u, const void *row, size_t ev)
{
	return ((const struct ui_wait *)row)->children_ms;
}

void waits_text_children(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", waits_num_children(u, row, ev));
}

double waits_num_self(const struct ui *u, const void *row, size_t ev)
{
	return ((const struct ui_wait *)row)->self_ms;
}

void waits_text_self(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", waits_num_self(u, row, ev));
}

const char *waits_str_dso(const void *row)
{
	const char *d = ((const struct ui_wait *)row)->dso, *slash;

	if (d == NULL)
		return "";
	if (strcmp(d, "[kernel.kallsyms]") == 0)
		return "[kernel]";
	slash = strrchr(d, '/');
	return slash && slash[1] ? slash + 1 : d;
}

void waits_text_dso(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	strlcpy(buf, waits_str_dso(row), len);
}

const char *waits_str_mode(const void *row)
{
	return ((const struct ui_wait *)row)->kernel ? "k" : ".";
}

void waits_text_mode(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	strlcpy(buf, ((const struct ui_wait *)row)->kernel ? "[k]" : "[.]", len);
}

const char *waits_str_sym(const void *row)
{
	const char *s = ((const struct ui_wait *)row)->sym;

	return s ? s : "";
}

void waits_text_sym(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	strlcpy(buf, waits_str_sym(row), len);
}

/* The rows are not agg counts: the views' sample filter passes them over. */
const struct agg_counts *waits_counts(const void *row, enum agg_scope scope)
{
	static uint64_t zero[AGG_MAX_EVENTS];
	static const struct agg_counts none = { zero, zero };

	return &none;
}

uint64_t waits_key(const void *row)
{
	return ((const struct ui_wait *)row)->key;
}

bool waits_match(const void *row, const char *pat)
{
	const struct ui_wait *w = row;

	return (w->sym && strcasestr(w->sym, pat)) || (w->dso && strcasestr(w->dso, pat));
}

enum ui_role waits_role(const void *row, const struct column *c)
{
	return ((const struct ui_wait *)row)->kernel && (c->text == waits_text_mode || c->text == waits_text_sym)
	       ? R_KERNEL : R_NORMAL;
}

/* --- O ----------------------------------------------------------------- */

unsigned waits_toggle(struct ui *u, int key)
{
	bool on = !session_offcpu_on(u->s);
	char err[256];

	if (session_offcpu_set(u->s, on, err, sizeof(err)) != 0) {
		ui_message(u, true, "%s", err);
		return UI_DRAW;
	}
	if (on && !session_offcpu_in_kernel(u->s) && session_offcpu_notice(u->s))
		ui_message(u, true, "off-CPU on from sched_switch records: %s", session_offcpu_notice(u->s));
	else if (on)
		ui_message(u, false, "off-CPU on%s: where threads wait (Tab: the Waits view, Tasks: Off/s)",
			   session_offcpu_in_kernel(u->s) ? ", summed in the kernel" : "");
	else
		ui_message(u, false, "off-CPU off (its figures stay until the next tick)");
	return UI_DRAW;
}
