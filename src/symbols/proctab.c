/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "proctab.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "symbols.h"
#include "util.h"

#define EXITED_MAX 512 /* exited processes (and threads) kept when nobody reaps */

static int proc_cmp(const struct proctab_proc *a, const struct proctab_proc *b)
{
	return (a->pid > b->pid) - (a->pid < b->pid);
}

static int thread_cmp(const struct proctab_thread *a, const struct proctab_thread *b)
{
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* libbsd's RB_GENERATE_STATIC relies on a __unused its cdefs.h leaves out. */
RB_GENERATE_INTERNAL(proctab_procs, proctab_proc, node, proc_cmp, __attribute__((unused)) static)
RB_GENERATE_INTERNAL(proctab_threads, proctab_thread, node, thread_cmp, __attribute__((unused)) static)

int proctab_init(struct proctab *pt, const char *proc_root, struct dso_set *dsos)
{
	memset(pt, 0, sizeof(*pt));
	pt->proc_root = strdup(proc_root);
	if (pt->proc_root == NULL)
		return -ENOMEM;
	pt->dsos = dsos;
	RB_INIT(&pt->procs);
	RB_INIT(&pt->threads);
	TAILQ_INIT(&pt->exited);
	TAILQ_INIT(&pt->exited_threads);
	for (size_t i = 0; i < PROCTAB_GEN_SIZE; i++)
		pt->gen[i] = 1;
	return 0;
}

void proctab_changed(struct proctab *pt, pid_t pid)
{
	uint32_t *g = &pt->gen[(uint32_t)pid & (PROCTAB_GEN_SIZE - 1)];

	*g = (*g + 1) & ~PROCTAB_GEN_KERNEL;
	if (*g == 0)
		*g = 1; /* 0 is what an empty cache entry holds */
}

/* The name and life of a process or a thread: one piece for both. */
static void task_set_comm(struct proctab_task *k, const char *comm)
{
	strlcpy(k->comm, comm ? comm : "", sizeof(k->comm));
}

static void task_exit(struct proctab *pt, struct proctab_task *k, struct proctab_exited *list, size_t *n)
{
	if (k->exited)
		return;
	k->exited = true;
	k->exit_epoch = pt->epoch;
	TAILQ_INSERT_TAIL(list, k, exited_link);
	(*n)++;
}

/* Off the exited list: dropped, or its id taken by a new task. */
static void task_unexit(struct proctab_task *k, struct proctab_exited *list, size_t *n)
{
	if (!k->exited)
		return;
	TAILQ_REMOVE(list, k, exited_link);
	(*n)--;
	k->exited = false;
}

/* The exited lists hold tasks: the process or thread around one. */
#define TASK_PROC(k) ((struct proctab_proc *)(void *)((char *)(k) - offsetof(struct proctab_proc, task)))
#define TASK_THREAD(k) ((struct proctab_thread *)(void *)((char *)(k) - offsetof(struct proctab_thread, task)))

/* The JIT map of a process that is gone or became another program. */
static void jit_retire(struct proctab *pt, struct proctab_proc *p)
{
	struct proctab_jit **r;

	if (p->jit == NULL)
		return;
	r = reallocarray(pt->jit_retired, pt->njit_retired + 1, sizeof(*r));
	if (r == NULL)
		return; /* kept by the process: a later retire may succeed */
	pt->jit_retired = r;
	pt->jit_retired[pt->njit_retired++] = p->jit;
	p->jit = NULL;
	p->jit_checked = 0;
}

static void thread_drop(struct proctab *pt, struct proctab_thread *t)
{
	RB_REMOVE(proctab_threads, &pt->threads, t);
	LIST_REMOVE(t, sibling);
	task_unexit(&t->task, &pt->exited_threads, &pt->nexited_threads);
	if (pt->last_thread == t)
		pt->last_thread = NULL;
	pt->nthreads--;
	pt->bytes -= sizeof(*t);
	free(t);
}

static void threads_drop(struct proctab *pt, struct proctab_proc *p)
{
	while (!LIST_EMPTY(&p->threads))
		thread_drop(pt, LIST_FIRST(&p->threads));
}

static void proc_drop(struct proctab *pt, struct proctab_proc *p)
{
	threads_drop(pt, p);
	RB_REMOVE(proctab_procs, &pt->procs, p);
	task_unexit(&p->task, &pt->exited, &pt->nexited);
	if (pt->last == p)
		pt->last = NULL;
	proctab_changed(pt, p->pid);
	pt->nprocs--;
	pt->bytes -= sizeof(*p) + p->cap * sizeof(*p->maps);
	jit_retire(pt, p);
	if (p->jit) {
		perfmap_free(&p->jit->pm);
		free(p->jit);
	}
	free(p->maps);
	free(p);
}

void proctab_free(struct proctab *pt)
{
	struct proctab_proc *p, *pn;

	RB_FOREACH_SAFE(p, proctab_procs, &pt->procs, pn)
		proc_drop(pt, p);
	for (size_t i = 0; i < pt->njit_retired; i++) {
		perfmap_free(&pt->jit_retired[i]->pm);
		free(pt->jit_retired[i]);
	}
	free(pt->jit_retired);
	dso_ident_cache_free(pt->idents);
	free(pt->proc_root);
	memset(pt, 0, sizeof(*pt));
}

struct proctab_proc *proctab_find(struct proctab *pt, pid_t pid)
{
	struct proctab_proc key = { .pid = pid }, *p = pt->last;

	if (p && p->pid == pid)
		return p;
	p = RB_FIND(proctab_procs, &pt->procs, &key);
	if (p)
		pt->last = p;
	return p;
}

/* Exited threads are kept (for late samples, and to know a tid reused) but
 * bounded even when nobody calls proctab_reap; not within a walk of a
 * thread list. */
static void threads_trim(struct proctab *pt)
{
	while (pt->nexited_threads > EXITED_MAX)
		thread_drop(pt, TASK_THREAD(TAILQ_FIRST(&pt->exited_threads)));
}

/* The threads of p are gone with its image or its life. */
static void threads_exit(struct proctab *pt, struct proctab_proc *p)
{
	struct proctab_thread *t;

	LIST_FOREACH(t, &p->threads, sibling)
		task_exit(pt, &t->task, &pt->exited_threads, &pt->nexited_threads);
	threads_trim(pt);
}

/* A new owner of p's pid: nothing of the old one is inherited. */
static void proc_reset(struct proctab *pt, struct proctab_proc *p)
{
	task_unexit(&p->task, &pt->exited, &pt->nexited);
	p->complete = false;
	p->stale = false;
	p->nmaps = 0;
	task_set_comm(&p->task, NULL);
	jit_retire(pt, p);
	threads_exit(pt, p);
	proctab_changed(pt, p->pid);
}

/* The process a record speaks of, created if new. An exited one getting
 * records again is a new process under a reused pid: started afresh, and
 * *reused (may be NULL) says so. */
static struct proctab_proc *proc_live(struct proctab *pt, pid_t pid, bool *reused)
{
	struct proctab_proc *p = proctab_find(pt, pid);

	if (reused)
		*reused = p && p->task.exited;
	if (p && p->task.exited)
		proc_reset(pt, p);
	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->pid = pid;
	LIST_INIT(&p->threads);
	RB_INSERT(proctab_procs, &pt->procs, p);
	pt->nprocs++;
	pt->bytes += sizeof(*p);
	proctab_changed(pt, pid);
	return p;
}

static void proc_mark_exited(struct proctab *pt, struct proctab_proc *p)
{
	task_exit(pt, &p->task, &pt->exited, &pt->nexited);
	/* Bounded even when nobody calls proctab_reap. */
	if (pt->nexited > EXITED_MAX)
		proc_drop(pt, TASK_PROC(TAILQ_FIRST(&pt->exited)));
}

/* Thread tid of p, created if new. A tid whose previous owner exited (or
 * that another process held: its exit went unseen) starts afresh. */
static struct proctab_thread *thread_live(struct proctab *pt, struct proctab_proc *p, pid_t tid,
					  bool *reused)
{
	struct proctab_thread key = { .tid = tid }, *t = RB_FIND(proctab_threads, &pt->threads, &key);

	if (reused)
		*reused = t && (t->task.exited || t->proc != p);
	if (t && (t->task.exited || t->proc != p)) {
		thread_drop(pt, t);
		t = NULL;
	}
	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->tid = tid;
	t->proc = p;
	RB_INSERT(proctab_threads, &pt->threads, t);
	LIST_INSERT_HEAD(&p->threads, t, sibling);
	pt->nthreads++;
	pt->bytes += sizeof(*t);
	return t;
}

/* A tid now a process's pid is no thread of another any more. */
static void thread_forget(struct proctab *pt, pid_t tid)
{
	struct proctab_thread key = { .tid = tid }, *t = RB_FIND(proctab_threads, &pt->threads, &key);

	if (t)
		thread_drop(pt, t);
}

/* Whose name a task has: its own thread's, else its process's. */
static const char *task_comm(struct proctab *pt, struct proctab_proc *p, pid_t tid)
{
	struct proctab_thread key = { .tid = tid }, *t;

	if (tid != p->pid && (t = RB_FIND(proctab_threads, &pt->threads, &key)) != NULL && t->proc == p &&
	    t->task.comm[0])
		return t->task.comm;
	return p->task.comm;
}

static bool maps_reserve(struct proctab *pt, struct proctab_proc *p, size_t extra)
{
	size_t cap = p->cap ? p->cap : 8;
	struct proctab_map *m;

	if (p->nmaps + extra <= p->cap)
		return true;
	while (cap < p->nmaps + extra)
		cap *= 2;
	m = reallocarray(p->maps, cap, sizeof(*m));
	if (m == NULL)
		return false;
	pt->bytes += (cap - p->cap) * sizeof(*m);
	p->maps = m;
	p->cap = cap;
	return true;
}

/* Index of the first map ending after addr. */
static size_t maps_after(const struct proctab_proc *p, uint64_t addr)
{
	return util_upper_bound(p->maps, p->nmaps, sizeof(*p->maps), offsetof(struct proctab_map, end), addr);
}

/* Removes [start, end) from the maps, keeping the parts of partly covered
 * ones (a new mapping over an old range means the old code is gone there).
 * Needs room for one more map; returns where a map of that range goes. */
static size_t maps_punch(struct proctab_proc *p, uint64_t start, uint64_t end)
{
	size_t i = maps_after(p, start), j = i, keep;
	struct proctab_map head, tail;
	bool keep_head, keep_tail;

	while (j < p->nmaps && p->maps[j].start < end)
		j++;
	if (i == j)
		return i;
	head = p->maps[i];
	tail = p->maps[j - 1];
	keep_head = head.start < start;
	keep_tail = tail.end > end;
	head.end = start;
	tail.pgoff += end - tail.start;
	tail.start = end;
	keep = (size_t)keep_head + (size_t)keep_tail;
	memmove(&p->maps[i + keep], &p->maps[j], (p->nmaps - j) * sizeof(*p->maps));
	p->nmaps = p->nmaps - (j - i) + keep;
	if (keep_head)
		p->maps[i++] = head;
	if (keep_tail)
		p->maps[i] = tail;
	return i;
}

static void maps_insert(struct proctab *pt, struct proctab_proc *p, uint64_t start, uint64_t end,
			uint64_t pgoff, struct dso *d)
{
	size_t i;

	if (!maps_reserve(pt, p, 2))
		return; /* out of memory: this mapping's samples stay [unknown] */
	i = maps_punch(p, start, end);
	if (d == NULL)
		return;
	memmove(&p->maps[i + 1], &p->maps[i], (p->nmaps - i) * sizeof(*p->maps));
	p->maps[i] = (struct proctab_map){ .start = start, .end = end, .pgoff = pgoff, .dso = d };
	p->nmaps++;
}

const struct proctab_map *proctab_map_find(const struct proctab_proc *p, uint64_t ip)
{
	size_t i = maps_after(p, ip);

	return i < p->nmaps && p->maps[i].start <= ip ? &p->maps[i] : NULL;
}

static bool read_comm(const char *path, char *comm, size_t len)
{
	bool ok = false;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return false;
	if (fgets(comm, (int)len, f)) {
		comm[strcspn(comm, "\n")] = '\0';
		ok = true;
	}
	fclose(f);
	return ok;
}

/* One line of /proc/PID/maps: "start-end perms offset maj:min inode   path".
 * Only executable mappings matter for samples. */
bool proctab_parse_maps_line(char *line, struct proctab_maps_line *out)
{
	char perms[8];
	int at = 0;
	const char *sp = strchr(line, ' ');

	/* Most lines (data, heap, stacks) are not executable: told by the
	 * perms' third letter without a scanf (perf top's 189 lines, 30 of
	 * them executable: 53 us to parse, 12 us so). */
	if (sp == NULL || sp[1] == '\0' || sp[2] == '\0' || sp[3] != 'x')
		return false;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &out->start, &out->end,
		   perms, &out->off, &out->maj, &out->min, &out->ino, &at) < 7 ||
	    at == 0 || strchr(perms, 'x') == NULL || out->end <= out->start)
		return false;
	line += at;
	line[strcspn(line, "\n")] = '\0';
	out->path = line;
	return true;
}

static void synth_line(struct proctab *pt, struct proctab_proc *p, char *line,
		       struct dso_ident_cache **cache)
{
	struct proctab_maps_line m;
	struct dso *d;

	if (!proctab_parse_maps_line(line, &m))
		return;
	d = dso_get_mapped(pt->dsos, m.path, m.maj, m.min, m.ino, p->pid, m.start, m.end, cache);
	if (d)
		maps_insert(pt, p, m.start, m.end, m.off, d);
}

/* replace: /proc is the whole truth (synthesize); else it fills in what
 * records did not tell (a process first seen through a late MMAP). */
static int synth_one(struct proctab *pt, pid_t pid, bool replace, struct dso_ident_cache **cache)
{
	char path[PATH_MAX], comm[PROCTAB_COMM_LEN], *line = NULL;
	size_t cap = 0;
	struct proctab_proc *p;
	bool have_comm;
	FILE *f;
	int err;

	if (pt->no_proc)
		return -ENOENT;
	if (pt->slow)
		pt->slow(pt->slow_arg);
	if (util_pathf(path, sizeof(path), "%s/%d/comm", pt->proc_root, (int)pid) != 0)
		return -ENAMETOOLONG;
	have_comm = read_comm(path, comm, sizeof(comm));
	if (util_pathf(path, sizeof(path), "%s/%d/maps", pt->proc_root, (int)pid) != 0)
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	err = errno;
	/* Maps we may not read (ptrace rules) still leave a name to show. */
	if (f == NULL && !have_comm)
		return -err;
	p = proc_live(pt, pid, NULL);
	if (p == NULL) {
		if (f)
			fclose(f);
		return -ENOMEM;
	}
	if (replace)
		p->nmaps = 0;
	while (f && getline(&line, &cap, f) > 0)
		synth_line(pt, p, line, cache);
	free(line);
	if (f)
		fclose(f);
	if (have_comm && (p->task.comm[0] == '\0' || replace))
		task_set_comm(&p->task, comm);
	p->complete = true;
	proctab_changed(pt, pid);
	return 0;
}

int proctab_synthesize(struct proctab *pt, pid_t pid)
{
	struct dirent *de;
	DIR *dir;

	if (pid >= 0)
		return synth_one(pt, pid, true, &pt->idents);
	dir = opendir(pt->proc_root);
	if (dir == NULL)
		return -errno;
	while ((de = readdir(dir)) != NULL) {
		long long v = strtonum(de->d_name, 1, INT_MAX, NULL);

		if (v > 0)
			synth_one(pt, (pid_t)v, true, &pt->idents); /* gone meanwhile: skipped */
	}
	closedir(dir);
	return 0;
}

struct proctab_proc *proctab_get(struct proctab *pt, pid_t pid)
{
	struct proctab_proc *p = proctab_find(pt, pid);

	if (p && !p->complete && !p->task.exited)
		proctab_fill(pt, p);
	if (p || pid <= 0)
		return p;
	/* A replay's pids are not this machine's: what records said is all. */
	if (pt->no_proc) {
		if ((p = proc_live(pt, pid, NULL)) != NULL)
			p->complete = true;
		return p;
	}
	if (proctab_synthesize(pt, pid) == 0)
		return proctab_find(pt, pid);
	p = proc_live(pt, pid, NULL);
	if (p) {
		p->complete = true;
		proc_mark_exited(pt, p);
	}
	return p;
}

int proctab_fill(struct proctab *pt, struct proctab_proc *p)
{
	int rc;

	p->complete = true; /* one try, even when /proc has no such pid */
	rc = synth_one(pt, p->pid, p->stale, &pt->idents);
	p->stale = false;
	return rc;
}

void proctab_stale(struct proctab *pt)
{
	struct proctab_proc *p;

	RB_FOREACH(p, proctab_procs, &pt->procs) {
		if (p->task.exited)
			continue;
		p->complete = false;
		p->stale = true;
		proctab_changed(pt, p->pid); /* what was worked out from its maps waits for the read */
	}
}

struct proctab_thread *proctab_thread_get(struct proctab *pt, struct proctab_proc *p, pid_t tid)
{
	struct proctab_thread key = { .tid = tid }, *t = pt->last_thread;
	char path[PATH_MAX];

	if (tid <= 0 || tid == p->pid)
		return NULL;
	if (t && t->tid == tid && t->proc == p)
		return t;
	t = RB_FIND(proctab_threads, &pt->threads, &key);
	if (t == NULL || t->proc != p) {
		/* Known neither by FORK nor COMM: older than we are. */
		if ((t = thread_live(pt, p, tid, NULL)) == NULL)
			return NULL;
		if (pt->no_proc || util_pathf(path, sizeof(path), "%s/%d/task/%d/comm", pt->proc_root, (int)p->pid, (int)tid) != 0 ||
		    !read_comm(path, t->task.comm, sizeof(t->task.comm)))
			t->task.comm[0] = '\0';
	}
	pt->last_thread = t;
	return t;
}

void proctab_mmap(struct proctab *pt, const struct sym_map *m)
{
	struct dso_ident id = { .maj = m->maj, .min = m->min, .ino = m->ino, .gen = m->ino_generation };
	struct proctab_proc *p;
	struct dso *d = NULL;

	if (m->len == 0 || m->start + m->len < m->start)
		return;
	p = proc_live(pt, m->pid, NULL);
	if (p == NULL)
		return;
	if (m->build_id && m->build_id_len && m->build_id_len <= DSO_BUILD_ID_MAX) {
		memcpy(id.build_id, m->build_id, m->build_id_len);
		id.build_id_len = (uint8_t)m->build_id_len;
	}
	if (m->prot & PROT_EXEC)
		d = dso_get(pt->dsos, m->filename, id.build_id_len || id.ino ? &id : NULL, m->pid);
	/* Data mapped over code still removes the code. */
	maps_insert(pt, p, m->start, m->start + m->len, m->pgoff, d);
	proctab_changed(pt, m->pid);
}

bool proctab_comm(struct proctab *pt, pid_t pid, pid_t tid, const char *comm, bool exec)
{
	struct proctab_thread *t;
	bool reused, treused = false;
	struct proctab_proc *p = proc_live(pt, pid, &reused);

	if (p == NULL)
		return false;
	if (pid != tid && !exec) {
		/* A thread's name is not the process's. */
		if ((t = thread_live(pt, p, tid, &treused)) != NULL)
			task_set_comm(&t->task, comm);
		return reused || treused;
	}
	task_set_comm(&p->task, comm);
	if (exec) {
		/* The old image is gone, and every other thread with it; the
		 * kernel sends the new image's MMAP2s. */
		p->nmaps = 0;
		jit_retire(pt, p);
		threads_exit(pt, p);
		p->complete = true;
		p->stale = false;
		proctab_changed(pt, pid);
	}
	return reused;
}

bool proctab_fork(struct proctab *pt, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid)
{
	struct proctab_proc *parent, *child;
	struct proctab_thread *t;
	bool reused = false;

	if (pid == ppid) {
		/* A new thread: it shares its process's maps, and starts with
		 * the name of the thread that made it. */
		if (tid == pid || (child = proc_live(pt, pid, NULL)) == NULL ||
		    (t = thread_live(pt, child, tid, &reused)) == NULL)
			return reused;
		task_set_comm(&t->task, task_comm(pt, child, ptid));
		return reused;
	}
	thread_forget(pt, pid);
	/* A parent older than we are is read now, while it lives: the child
	 * may be gone by its first sample and has nothing of its own yet. */
	parent = ppid > 0 ? proctab_get(pt, ppid) : proctab_find(pt, ppid);
	child = proctab_find(pt, pid);
	/* Records of the child itself (its exec, its mmaps) or a sample's read
	 * of /proc came first, from another CPU's ring: they are newer than
	 * this fork, which adds only what they did not say. */
	if (child && !child->task.exited && (child->nmaps || child->task.comm[0])) {
		if (child->task.comm[0] == '\0' && parent)
			task_set_comm(&child->task, task_comm(pt, parent, ptid));
		return false;
	}
	/* Else a new process: nothing of an entry that exited under its pid. */
	if (child) {
		reused = child->task.exited;
		proc_reset(pt, child);
	} else if ((child = proc_live(pt, pid, NULL)) == NULL) {
		return false;
	}
	if (parent && maps_reserve(pt, child, parent->nmaps)) {
		if (parent->nmaps)
			memcpy(child->maps, parent->maps, parent->nmaps * sizeof(*parent->maps));
		child->nmaps = parent->nmaps;
		/* A parent gone before we read it gave nothing: the child's own
		 * /proc then, at its first sample. */
		child->complete = parent->complete && !parent->task.exited;
		task_set_comm(&child->task, task_comm(pt, parent, ptid));
	}
	proctab_changed(pt, pid);
	return reused;
}

void proctab_exit(struct proctab *pt, pid_t pid, pid_t tid)
{
	struct proctab_thread key = { .tid = tid }, *t;
	struct proctab_proc *p;

	if (pid == tid) {
		if ((p = proctab_find(pt, pid)) == NULL)
			return;
		threads_exit(pt, p);
		proc_mark_exited(pt, p);
	} else if ((t = RB_FIND(proctab_threads, &pt->threads, &key)) != NULL && t->proc->pid == pid) {
		task_exit(pt, &t->task, &pt->exited_threads, &pt->nexited_threads);
		threads_trim(pt);
	}
}

void proctab_reap(struct proctab *pt)
{
	struct proctab_task *k;

	while ((k = TAILQ_FIRST(&pt->exited_threads)) != NULL && k->exit_epoch < pt->epoch)
		thread_drop(pt, TASK_THREAD(k));
	while ((k = TAILQ_FIRST(&pt->exited)) != NULL && k->exit_epoch < pt->epoch)
		proc_drop(pt, TASK_PROC(k));
	dso_ident_cache_free(pt->idents);
	pt->idents = NULL;
	pt->epoch++;
}
