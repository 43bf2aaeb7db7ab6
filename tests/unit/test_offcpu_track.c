/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --off-cpu's aggs follow the tasks' lives: a COMM (exec) renames a task in
 * the wake agg (W's waker names) as in the wait agg, and an EXIT ages it. */
#include <linux/perf_event.h>
#include <string.h>

#include "check.h"
#include "agg.h"
#include "session.h"

static void charge(struct agg *a, pid_t pid)
{
	struct sym_result f = { .sym = "waker_fn", .dso = "/bin/w", .key = 77, .comm = "old" };

	agg_sample_stack_n(a, 0, 0, pid, pid, &f, 1, 10, 10000);
}

/* The name of task pid's row, or NULL. */
static const char *comm_of(struct agg *a, pid_t pid)
{
	const struct agg_task **rows;
	size_t n = agg_tasks(a, AGG_TOTAL, &rows);

	for (size_t i = 0; i < n; i++)
		if (rows[i]->pid == pid)
			return rows[i]->comm;
	return NULL;
}

int main(void)
{
	static const int cpus[] = { 0 };
	struct record comm = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC };
	struct session s;

	memset(&s, 0, sizeof(s));
	s.wait = agg_new(1, cpus, 1);
	s.wake = agg_new(1, cpus, 1);
	if (s.wait == NULL || s.wake == NULL)
		return 1;
	charge(s.wait, 50);
	charge(s.wake, 50);
	CHECK_STR(comm_of(s.wake, 50), "old", "the waker's task named at its first charge");
	comm.comm.pid = comm.comm.tid = 50;
	comm.comm.comm = "new";
	session_offcpu_track(&s, &comm);
	charge(s.wait, 50);
	charge(s.wake, 50);
	CHECK_STR(comm_of(s.wait, 50), "new", "wait agg: renamed at its exec");
	CHECK_STR(comm_of(s.wake, 50), "new", "wake agg: renamed at its exec too (W's waker under its new name)");
	agg_free(s.wait);
	agg_free(s.wake);
	return check_done();
}
