/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tags: htop's tagged tasks. Space tags the selected task and moves down,
 * Y tags it with its descendants, Ctrl-U untags all; F9 then signals every
 * tagged task. A tag is the ID F9 signals (a thread row's TID, else the
 * PID): it stays while the task is out of the table. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keys.h"

static int tag_add(struct ui *u, pid_t id)
{
	if (ui_tagged(u, id))
		return 0;
	if (u->ntags == u->tags_cap) {
		size_t cap = u->tags_cap ? 2 * u->tags_cap : 16;
		pid_t *p = reallocarray(u->tags, cap, sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		u->tags = p;
		u->tags_cap = cap;
	}
	u->tags[u->ntags++] = id;
	return 0;
}

static void tag_del(struct ui *u, pid_t id)
{
	for (size_t i = 0; i < u->ntags; i++)
		if (u->tags[i] == id) {
			u->tags[i] = u->tags[--u->ntags];
			return;
		}
}

static pid_t row_id(const struct agg_task *t)
{
	return t->tid ? t->tid : t->pid;
}

/* The selected task row, or NULL with the reason said. */
static const struct agg_task *selected(struct ui *u, const char *what)
{
	const struct agg_task *t;

	if (u->view != VIEW_TASKS) {
		ui_message(u, false, "%s tags tasks: Tab to the Tasks view (Z pauses)", what);
		return NULL;
	}
	if (u->nrows == 0) {
		ui_message(u, false, "%s: no task shown to tag", what);
		return NULL;
	}
	t = u->rows[u->sel[VIEW_TASKS]];
	if (t->pid <= 0) {
		ui_message(u, true, "PID %d is the idle task: it cannot be tagged", (int)t->pid);
		return NULL;
	}
	return t;
}

unsigned tags_key_tag(struct ui *u, int key)
{
	const struct agg_task *t = selected(u, "Space");
	pid_t id;

	if (t == NULL)
		return UI_DRAW;
	id = row_id(t);
	if (ui_tagged(u, id))
		tag_del(u, id);
	else if (tag_add(u, id))
		ui_message(u, true, "no memory for another tag");
	views_select_line(u, views_sel_line(u) + 1);
	return UI_DRAW;
}

/* A process's parent from /proc/PID/stat (after the comm's last ')'); 0 if gone. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

static bool descends(pid_t pid, pid_t from)
{
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == from)
			return true;
		pid = parent_of(pid);
	}
	return false;
}

unsigned tags_key_children(struct ui *u, int key)
{
	const struct agg_task *t = selected(u, "Y");
	size_t n = 0;
	pid_t top;

	if (t == NULL)
		return UI_DRAW;
	top = t->pid;
	/* Every row shown whose process is it or under it (thread rows: by their process). */
	for (size_t i = 0; i < u->nrows; i++) {
		const struct agg_task *r = u->rows[i];

		if (r->pid > 0 && descends(r->pid, top) && tag_add(u, row_id(r)) == 0)
			n++;
	}
	ui_message(u, false, "PID %d and its children: %zu row%s tagged (Ctrl-U untags all)", (int)top, n,
		   n == 1 ? "" : "s");
	return UI_DRAW;
}

unsigned tags_key_untag(struct ui *u, int key)
{
	size_t n = u->ntags;

	u->ntags = 0;
	ui_message(u, false, n ? "%zu tag%s cleared" : "no task was tagged (Space tags one)", n, n == 1 ? "" : "s");
	return UI_DRAW;
}

unsigned tags_signal(struct ui *u, int sig)
{
	size_t sent = 0, failed = 0;
	char first[96] = "";

	for (size_t i = 0; i < u->ntags; i++) {
		if (kill(u->tags[i], sig) == 0) {
			sent++;
			continue;
		}
		if (failed++ == 0)
			snprintf(first, sizeof(first), "PID %d: %s", (int)u->tags[i], strerror(errno));
	}
	if (failed)
		ui_message(u, true, "signal %d (%s) sent to %zu tagged task%s, %zu failed (%s)", sig, strsignal(sig),
			   sent, sent == 1 ? "" : "s", failed, first);
	else
		ui_message(u, false, "signal %d (%s) sent to %zu tagged task%s", sig, strsignal(sig), sent,
			   sent == 1 ? "" : "s");
	return UI_DRAW;
}
