/* taskcpu: %CPU of the task rows on screen, as top and htop show it —
 * utime+stime from /proc/PID/stat between two ticks. Only rows drawn are
 * read, once per tick, so the cost follows the screen, not the system. */
#include <string.h>
#include <time.h>

#include "ui.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct ui_taskcpu *slot(struct ui *u, pid_t id)
{
	struct ui_taskcpu *oldest = &u->taskcpu[0];

	for (size_t i = 0; i < UI_TASKCPU; i++) {
		if (u->taskcpu[i].id == id)
			return &u->taskcpu[i];
		if (u->taskcpu[i].seq < oldest->seq)
			oldest = &u->taskcpu[i];
	}
	memset(oldest, 0, sizeof(*oldest));
	oldest->id = id;
	oldest->pct = -1;
	return oldest;
}

void taskcpu_update(struct ui *u, const struct agg_task *t)
{
	pid_t id = t->tid ? t->tid : t->pid;
	struct ui_taskcpu *c;
	uint64_t ticks;
	double now;

	if (u->fixed_time || id <= 0)
		return;
	c = slot(u, id);
	if (c->seq == u->frame_seq)
		return; /* read at this tick already */
	now = now_s();
	if (procstat_task_ticks(id, &ticks) != 0) {
		c->pct = -1;
		c->seq = u->frame_seq;
		return;
	}
	if (c->when > 0 && now > c->when && ticks >= c->ticks)
		c->pct = 100.0 * (double)(ticks - c->ticks) / (double)procstat_hz() / (now - c->when);
	c->ticks = ticks;
	c->when = now;
	c->seq = u->frame_seq;
}

double taskcpu_pct(const struct ui *u, const struct agg_task *t)
{
	pid_t id = t->tid ? t->tid : t->pid;

	for (size_t i = 0; i < UI_TASKCPU; i++)
		if (u->taskcpu[i].id == id && id > 0)
			return u->taskcpu[i].pct;
	return -1;
}
