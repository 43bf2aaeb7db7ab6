/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_tasks: the task and thread rows: made at a sample, named, exited,
 * and handed to a new owner when their pid or tid is reused. */
#include "agg_int.h"

#include <stdlib.h>
#include <string.h>

static struct agg_task *task_alloc(size_t nev)
{
	struct agg_task *t = calloc(1, AGG_TASK_BYTES(nev));

	if (t) {
		uint64_t *v = (uint64_t *)(void *)(t + 1);

		agg_rows_counts_at(&t->iv, 1, v, nev);
		agg_rows_counts_at(&t->total, 1, v + 2 * nev, nev);
	}
	return t;
}

/* The old owner's cumulative counts leave the row: into the expired sums,
 * as if its row had expired and a new one come. */
void agg_tasks_fold(struct agg *a, const struct agg_task *t)
{
	if (t->is_thread) {
		agg_counts_add(&a->st.thread_expired, &t->total, a->nevents);
		a->st.expired_threads++;
	} else {
		agg_counts_add(&a->st.task_expired, &t->total, a->nevents);
		a->st.expired_tasks++;
	}
}

/* Every write of a task's name comes here: the stack memo tells a name
 * from the one its path was counted under by the generation, not the text. */
static void set_comm(struct agg *a, struct agg_task *t, const char *comm)
{
	strlcpy(t->comm, comm, sizeof(t->comm));
	t->comm_gen = ++a->comm_gens;
}

/* A row of an owner that exited, ready for the pid's (or tid's) new one. */
static void task_reset(struct agg_task *t, pid_t pid, size_t nev)
{
	t->pid = pid;
	t->comm[0] = '\0';
	t->comm_gen = 0; /* named anew (set_comm) before its next sample counts */
	t->threads = t->threads_seen = 0;
	t->threads_told = false;
	t->exited = false;
	t->exited_ticks = 0;
	t->counted = false;
	memset(t->iv.samples, 0, 2 * nev * sizeof(uint64_t));
	memset(t->total.samples, 0, 2 * nev * sizeof(uint64_t));
}

/* A thread first seen sampling: what its process shows until the
 * session has told its count. */
static void thread_seen(struct agg_task *proc)
{
	proc->threads_seen++;
	if (!proc->threads_told)
		proc->threads = proc->threads_seen;
}

/* pid 0 is the idle task on every CPU; keys are pid + 1 so 0 stays "empty". */
/* A thread's row, made on its first sample; its process counts it seen. */
static struct agg_task *thread_row(struct agg *a, struct agg_task *proc, pid_t tid, const char *comm)
{
	struct agg_task *t = (void *)htab_get(&a->tids, (uint64_t)tid + 1);

	if (t && t->pid == proc->pid) {
		if (!t->counted) { /* reset for a new owner: counted by its first sample */
			if (t->comm[0] == '\0')
				set_comm(a, t, comm ? comm : proc->comm);
			t->counted = true;
			thread_seen(proc);
		}
		return t;
	}
	if (t && t->exited) { /* a tid reused by another process */
		agg_settle(a); /* hits of the old owner's, before its counts fold */
		if (++a->rows_gen == 0) /* not rows_moved: task_row is setting the last lookups */
			a->rows_gen = 1;
		agg_tasks_fold(a, t);
		task_reset(t, proc->pid, a->nevents);
		t->tid = tid;
		set_comm(a, t, comm ? comm : proc->comm);
		t->counted = true;
		thread_seen(proc);
		return t;
	}
	if (t) /* still someone else's: its EXIT has not come yet */
		return NULL;
	t = task_alloc(a->nevents);
	if (t == NULL)
		return NULL;
	t->pid = proc->pid;
	t->tid = tid;
	t->is_thread = true;
	set_comm(a, t, comm ? comm : proc->comm);
	if (htab_put(&a->tids, (uint64_t)tid + 1, (uintptr_t)t)) {
		free(t);
		return NULL;
	}
	t->counted = true;
	thread_seen(proc);
	return t;
}

struct agg_task *agg_tasks_row(struct agg *a, pid_t pid, pid_t tid, const struct sym_result *sr)
{
	struct agg_task *t = a->last_task;

	if (t && t->pid == pid && a->last_tid == tid)
		return t;
	t = (void *)htab_get(&a->tasks, (uint64_t)pid + 1);
	if (t && t->comm[0] == '\0') /* reset for a new owner */
		set_comm(a, t, sr->comm ? sr->comm : "?");
	if (t == NULL) {
		t = task_alloc(a->nevents);
		if (t == NULL)
			return NULL;
		t->pid = pid;
		set_comm(a, t, sr->comm ? sr->comm : (pid == 0 ? "swapper" : "?"));
		if (htab_put(&a->tasks, (uint64_t)pid + 1, (uintptr_t)t)) {
			free(t);
			return NULL;
		}
	}
	a->last_task = t;
	a->last_tid = tid;
	a->last_thread = thread_row(a, t, tid, sr->thread_comm);
	return t;
}

void agg_task_comm(struct agg *a, pid_t pid, const char *comm)
{
	struct agg_task *t = (void *)htab_get(&a->tasks, (uint64_t)pid + 1);

	if (t)
		set_comm(a, t, comm);
}

void agg_task_threads(struct agg *a, pid_t pid, unsigned n)
{
	struct agg_task *t = (void *)htab_get(&a->tasks, (uint64_t)pid + 1);

	if (t) {
		t->threads = n;
		t->threads_told = true;
	}
}

static void mark_exited(struct agg *a, struct agg_task *t)
{
	if (t == NULL || t->exited)
		return;
	t->exited = true;
	if (!t->aging) {
		t->aging = true;
		agg_rows_push(a, &a->aging, t);
	}
}

void agg_task_new(struct agg *a, pid_t pid)
{
	struct agg_task *t = (void *)htab_get(&a->tasks, (uint64_t)pid + 1);
	struct agg_task *th = (void *)htab_get(&a->tids, (uint64_t)pid + 1);

	bool reset = false;

	if ((t && t->exited) || (th && th->exited))
		agg_settle(a); /* hits of the old owners', before their counts fold */
	if (t && t->exited) {
		agg_tasks_fold(a, t);
		task_reset(t, pid, a->nevents);
		reset = true;
	}
	if (th && th->exited) {
		agg_tasks_fold(a, th);
		task_reset(th, pid, a->nevents);
		reset = true;
	}
	a->last_task = a->last_thread = NULL;
	if (reset) /* new owners: named and counted afresh at their next sample */
		agg_rows_moved(a);
}

void agg_task_exit(struct agg *a, pid_t pid)
{
	mark_exited(a, (void *)htab_get(&a->tasks, (uint64_t)pid + 1));
	agg_thread_exit(a, pid);
}

void agg_thread_comm(struct agg *a, pid_t tid, const char *comm)
{
	struct agg_task *t = (void *)htab_get(&a->tids, (uint64_t)tid + 1);

	if (t)
		set_comm(a, t, comm);
}

void agg_thread_exit(struct agg *a, pid_t tid)
{
	mark_exited(a, (void *)htab_get(&a->tids, (uint64_t)tid + 1));
}
