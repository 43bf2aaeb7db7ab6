/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ui: what the state says, asked by every part of the live view (the scope
 * shown, the event shares are of, a task's counters and ratios) and the
 * message line's text; below frame.c and calltree.c, which both read it. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "evspec.h"
#include "ui.h"

enum agg_scope ui_scope(const struct ui *u)
{
	return u->cumulative ? AGG_TOTAL : AGG_INTERVAL;
}

/* The event shares are computed against: the first one switched on. */
size_t ui_primary(const struct ui *u)
{
	for (size_t i = 0; i < u->fr.nev; i++)
		if (u->fr.on[i])
			return i;
	return 0;
}

uint64_t ui_base(const struct ui *u, size_t ev)
{
	if (ev >= u->fr.nev)
		return 0;
	return ui_scope(u) == AGG_INTERVAL ? u->fr.ev[ev].samples_iv : u->fr.ev[ev].samples_total;
}

const struct counter_row *ui_counter_row(const struct ui *u, pid_t pid, pid_t tid)
{
	const struct ui_frame *f = &u->fr;

	if (tid) {
		for (size_t i = 0; i < f->ncthreads; i++)
			if (f->cthreads[i].tid == tid)
				return &f->cthreads[i];
		return NULL;
	}
	for (size_t i = 0; i < f->ncprocs; i++)
		if (f->cprocs[i].pid == pid)
			return &f->cprocs[i];
	return NULL;
}

void ui_counter_ratios(const struct ui *u, const struct counter_row *r, struct ratio out[RATIO_COUNT])
{
	ratios_from_counters(u->fr.cnt_name, u->fr.ncnt, r, ui_scope(u) == AGG_TOTAL, out);
}

void ui_task_ratios(const struct ui *u, const struct agg_task *t, struct ratio out[RATIO_COUNT])
{
	bool total = ui_scope(u) == AGG_TOTAL;

	ratios_task(u->fr.ev, u->fr.on, u->fr.nev, total ? &t->total : &t->iv, u->fr.cnt_name, u->fr.ncnt,
		    ui_counter_row(u, t->pid, t->tid), total, out);
}

bool ui_tagged(const struct ui *u, pid_t id)
{
	for (size_t i = 0; i < u->ntags; i++)
		if (u->tags[i] == id)
			return true;
	return false;
}

void ui_message(struct ui *u, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->msg, sizeof(u->msg), fmt, ap);
	va_end(ap);
	u->msg_error = error;
	u->msg_until = time(NULL) + (error ? 10 : 5);
}

void ui_empty_why(const struct ui *u, char *buf, size_t len)
{
	size_t on = 0, blind = 0;

	for (size_t i = 0; i < u->fr.nev; i++) {
		if (!u->fr.on[i])
			continue;
		on++;
		if ((u->fr.excl[i] & (EXCL_USER | EXCL_KERNEL)) == (EXCL_USER | EXCL_KERNEL))
			blind++;
	}
	if (u->paused)
		snprintf(buf, len, "paused");
	else if (u->fr.nev && on == 0)
		snprintf(buf, len, "every event is off: nothing is sampled (e: the event panel)");
	else if (on && blind == on)
		snprintf(buf, len, "user and kernel both excluded: nothing is sampled (U, K or x)");
	else
		snprintf(buf, len, "no samples yet");
}
