/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taskuid: whose a task is, for u (the Tasks view's user filter). A live
 * task is its user's when /proc/PID is; an exited one keeps the uid it had,
 * learnt at a tick while it was alive (one stat a process new to the
 * frame, whether or not a user is asked for: by the time one is, the task
 * may be gone). */
#include <stdio.h>
#include <sys/stat.h>

#include "ui.h"

/* Direct-mapped: a pid's slot is pid % TASKUID_SLOTS; a later pid on the
 * slot replaces it. */
#define TASKUID_SLOTS 4096

static struct { pid_t pid; uid_t uid; } known[TASKUID_SLOTS];
static uint64_t noted_seq = UINT64_MAX;

static int proc_uid(pid_t pid, uid_t *uid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (pid <= 0 || stat(path, &st) != 0)
		return -1;
	*uid = st.st_uid;
	return 0;
}

static void note(const struct agg_task *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)t[i].pid % TASKUID_SLOTS;
		uid_t uid;

		if (t[i].pid > 0 && known[k].pid != t[i].pid && !t[i].exited && proc_uid(t[i].pid, &uid) == 0) {
			known[k].pid = t[i].pid;
			known[k].uid = uid;
		}
	}
}

void taskuid_note(const struct ui *u)
{
	if (u->fixed_time || noted_seq == u->frame_seq || session_replaying(u->s))
		return;
	noted_seq = u->frame_seq;
	note(u->fr.tasks, u->fr.ntasks);
	note(u->fr.threads, u->fr.nthreads);
}

bool taskuid_match(const struct ui *u, const struct agg_task *t)
{
	size_t k = (size_t)t->pid % TASKUID_SLOTS;
	uid_t uid;

	if (t->pid <= 0 || session_replaying(u->s)) /* -i: a recording's pids have no user here */
		return false;
	if (!t->exited && proc_uid(t->pid, &uid) == 0)
		return uid == u->user_uid;
	/* gone: as it was seen alive; never seen, nobody's */
	return known[k].pid == t->pid && known[k].uid == u->user_uid;
}
