/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taskcpu: %CPU of the task rows on screen, as top and htop show it —
 * utime+stime from /proc between two readings. Only rows drawn are read,
 * once per tick, so the cost follows the screen, not the system. A thread
 * row reads its own times (/proc/PID/task/TID/stat), a process row its
 * process's.
 *
 * A row just come on screen has one reading: a task born within about an
 * interval has all its CPU time in its life so far, which gives its rate
 * at once; an older one is read again soon (soon.c asks for a redraw), and
 * shows the rate of those two readings until the next tick. */
#include <string.h>
#include <time.h>

#include "clock.h"
#include "ui.h"

/* The second reading of a row come on screen: long enough that clock
 * ticks (10 ms) make a figure, short enough to seem at once. */
#define TASKCPU_AGAIN 0.3

static struct ui_taskcpu *slot(struct ui *u, pid_t id, bool thread)
{
	struct ui_taskcpu *oldest = &u->taskcpu[0];

	for (size_t i = 0; i < UI_TASKCPU; i++) {
		if (u->taskcpu[i].id == id && u->taskcpu[i].thread == thread)
			return &u->taskcpu[i];
		if (u->taskcpu[i].seq < oldest->seq)
			oldest = &u->taskcpu[i];
	}
	memset(oldest, 0, sizeof(*oldest));
	oldest->id = id;
	oldest->thread = thread;
	oldest->pct = -1;
	return oldest;
}

/* One reading only: the rate over the task's life, when that life is
 * about an interval at most (longer, and it is not the rate of now). */
static double first_pct(const struct ui *u, const struct procstat_task *pt)
{
	double hz = (double)procstat_hz(), age = procstat_uptime() - (double)pt->start / hz;

	if (age < 5.0 / hz || age > session_interval(u->s) * 1.5)
		return -1;
	return 100.0 * (double)pt->ticks / hz / age;
}

void taskcpu_update(struct ui *u, const struct agg_task *t)
{
	pid_t id = t->tid ? t->tid : t->pid;
	struct ui_taskcpu *c;
	struct procstat_task pt;
	double now;

	if (u->fixed_time || id <= 0 || session_replaying(u->s)) /* -i: the pids are not this machine's */
		return;
	c = slot(u, id, t->tid != 0);
	now = clock_mono_s();
	/* read at this tick already, unless a second reading is due */
	if (c->seq == u->frame_seq && !(c->pct < 0 && c->when > 0 && now - c->when >= TASKCPU_AGAIN))
		return;
	if (procstat_task(t->pid, t->tid, &pt) != 0) {
		c->pct = -1;
		c->seq = u->frame_seq;
		return;
	}
	if (c->when > 0 && now > c->when && pt.ticks >= c->ticks)
		c->pct = 100.0 * (double)(pt.ticks - c->ticks) / (double)procstat_hz() / (now - c->when);
	else if ((c->pct = first_pct(u, &pt)) < 0)
		soon_draw(TASKCPU_AGAIN);
	c->ticks = pt.ticks;
	c->when = now;
	c->seq = u->frame_seq;
}

double taskcpu_pct(const struct ui *u, const struct agg_task *t)
{
	pid_t id = t->tid ? t->tid : t->pid;

	for (size_t i = 0; i < UI_TASKCPU; i++)
		if (u->taskcpu[i].id == id && id > 0 && u->taskcpu[i].thread == (t->tid != 0))
			return u->taskcpu[i].pct;
	return -1;
}
