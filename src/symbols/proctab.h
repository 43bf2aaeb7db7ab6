/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proctab: the process table of symbols: pid -> comm, threads and
 * executable maps, kept from the ring's records (MMAP, COMM, FORK, EXIT) and
 * /proc. Internal to symbols: the resolver reads it. */
#ifndef PERFTOP_PROCTAB_H
#define PERFTOP_PROCTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/tree.h>
#include <sys/types.h>

#include "dso.h"
#include "perfmap.h"

struct sym_map;

#define PROCTAB_GEN_SIZE 1024        /* per-pid-slot generations, a power of two */
#define PROCTAB_GEN_KERNEL 0x80000000u /* a bit no pid slot's generation has */
#define PROCTAB_COMM_LEN 32

struct proctab_map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

/* A JIT's symbols (/tmp/perf-PID.map). Retired, not freed, with its
 * process: its names are handed out and are keys. */
struct proctab_jit {
	struct perfmap pm;
	size_t bytes;
	char dso[32];       /* "perf-PID.map", as perf report shows it */
};

/* What a process and a thread both have: a name and a life. Exited ones
 * stay on a list until reaped, for the late samples of their interval. */
struct proctab_task {
	char comm[PROCTAB_COMM_LEN]; /* a thread's "": its process's stands for it */
	bool exited;
	unsigned exit_epoch;
	TAILQ_ENTRY(proctab_task) exited_link;
};

/* A thread other than its process's main one (whose name is the process's). */
struct proctab_thread {
	pid_t tid;          /* with the name: what a sample reads, in one line */
	struct proctab_task task;
	struct proctab_proc *proc;
	RB_ENTRY(proctab_thread) node;
	LIST_ENTRY(proctab_thread) sibling;
};

struct proctab_proc {
	pid_t pid;          /* with the name: what a sample reads, in one line */
	struct proctab_task task;
	bool complete;      /* maps came from /proc or an exec: no lazy re-read */
	bool stale;         /* tracking was interrupted: /proc replaces the maps */
	RB_ENTRY(proctab_proc) node;
	LIST_HEAD(, proctab_thread) threads;
	struct proctab_map *maps; /* sorted by start, non-overlapping */
	size_t nmaps, cap;
	struct proctab_jit *jit;  /* its perf-PID.map, once one was found */
	unsigned jit_checked;     /* epoch + 1 of the last look for it: once per interval */
};

RB_HEAD(proctab_procs, proctab_proc);
RB_HEAD(proctab_threads, proctab_thread);
TAILQ_HEAD(proctab_exited, proctab_task);

struct proctab {
	char *proc_root;
	struct dso_set *dsos;
	struct proctab_procs procs;
	struct proctab_threads threads;
	struct proctab_exited exited;
	struct proctab_exited exited_threads;
	struct proctab_proc *last;          /* last-hit lookups of the sample path */
	struct proctab_thread *last_thread;
	size_t nprocs, nthreads, nexited, nexited_threads, bytes;
	struct proctab_jit **jit_retired;
	size_t njit_retired;
	/* Files identified from /proc this interval, by device and inode: the
	 * first samples of many processes mapping libc read it once. Dropped
	 * at each reap, so an inode reused for another file is read anew. */
	struct dso_ident_cache *idents;
	unsigned epoch;                     /* intervals (proctab_reap calls) */
	/* Bumped at every change to a pid slot's maps, so that cached
	 * resolutions of the old maps miss. Never 0 nor PROCTAB_GEN_KERNEL. */
	uint32_t gen[PROCTAB_GEN_SIZE];
	void (*slow)(void *);               /* called before /proc is read (symbols_set_slow_hook) */
	bool no_proc;                       /* a replay: never read /proc (symbols_set_replay) */
	void *slow_arg;
};

int proctab_init(struct proctab *pt, const char *proc_root, struct dso_set *dsos);
void proctab_free(struct proctab *pt);
/* Frees what exited before the previous call; then a new interval. */
void proctab_reap(struct proctab *pt);
/* Every live process's /proc is read again, replacing its maps, at its
 * next sample (what records said may be out of date). */
void proctab_stale(struct proctab *pt);

static inline uint32_t proctab_gen(const struct proctab *pt, pid_t pid)
{
	return pt->gen[(uint32_t)pid & (PROCTAB_GEN_SIZE - 1)];
}
void proctab_changed(struct proctab *pt, pid_t pid);

/* The process pid, NULL if unknown (no /proc read). */
struct proctab_proc *proctab_find(struct proctab *pt, pid_t pid);
/* The same, else read from /proc once: a pid gone from there stays as an
 * exited placeholder, so that its samples cost no further reads. A live
 * process that records alone told of is filled in from /proc, once. */
struct proctab_proc *proctab_get(struct proctab *pt, pid_t pid);
/* Thread tid of p, read from /proc once when unknown; NULL for the main
 * thread or when out of memory. */
struct proctab_thread *proctab_thread_get(struct proctab *pt, struct proctab_proc *p, pid_t tid);

/* The sample path's way to both: a last hit costs no call. pid 0 (the
 * idle tasks) and below are never in the table. A process that only
 * records told of (it ran before we started) has its /proc read at its
 * first sample: there is no scan of every process at start. */
static inline struct proctab_proc *proctab_task(struct proctab *pt, pid_t pid)
{
	if (pt->last && pt->last->pid == pid && pt->last->complete)
		return pt->last;
	return pid > 0 ? proctab_get(pt, pid) : NULL;
}

static inline struct proctab_thread *proctab_task_thread(struct proctab *pt, struct proctab_proc *p, pid_t tid)
{
	struct proctab_thread *t = pt->last_thread;

	if (tid == p->pid)
		return NULL;
	return t && t->tid == tid && t->proc == p ? t : proctab_thread_get(pt, p, tid);
}
/* Fills what records did not tell of p (first seen through a late MMAP)
 * from /proc, once. 0 or -errno. */
int proctab_fill(struct proctab *pt, struct proctab_proc *p);

int proctab_synthesize(struct proctab *pt, pid_t pid);

/* One line of /proc/PID/maps, "start-end perms offset maj:min inode path". */
struct proctab_maps_line {
	uint64_t start, end, off, ino;
	unsigned maj, min;
	const char *path; /* in the line, its newline cut off; may be "" */
};
/* True for an executable mapping (the only kind samples land in) whose
 * fields all parse, end above start; line is cut at its newline. */
bool proctab_parse_maps_line(char *line, struct proctab_maps_line *out);
/* What symbols_mmap, _comm, _fork and _exit (symbols.h) say they do. */
void proctab_mmap(struct proctab *pt, const struct sym_map *m);
bool proctab_comm(struct proctab *pt, pid_t pid, pid_t tid, const char *comm, bool exec);
bool proctab_fork(struct proctab *pt, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid);
void proctab_exit(struct proctab *pt, pid_t pid, pid_t tid);

/* The map of p holding ip, or NULL. */
const struct proctab_map *proctab_map_find(const struct proctab_proc *p, uint64_t ip);

#endif
