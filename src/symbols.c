#include "symbols.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/tree.h>
#include <unistd.h>

#include "elfsym.h"
#include "kallsyms.h"

#define CACHE_BITS 14
#define COMM_MAX 64

/* One file (or pseudo-file) that code is mapped from. Shared by every
 * process mapping it; its table loads on the first sample that hits it. */
struct dso {
	char *path;
	uint32_t maj, min;
	uint64_t ino;
	bool loaded;
	bool special;         /* [vdso], //anon…: nothing to read on disk */
	struct elfsym tab;
	struct dso *next;     /* all DSOs, for lookup and freeing */
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct proc {
	RB_ENTRY(proc) node;
	pid_t pid;
	char comm[COMM_MAX];
	struct map *maps;     /* sorted by start, non-overlapping */
	size_t nmaps, cap;
	bool exited;
	unsigned exit_gen;
};

RB_HEAD(proc_tree, proc);

static int proc_cmp(const struct proc *a, const struct proc *b)
{
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* libbsd's RB_GENERATE_STATIC relies on a __unused its cdefs.h leaves out. */
RB_GENERATE_INTERNAL(proc_tree, proc, node, proc_cmp, __attribute__((unused)) static)

struct cache_entry {
	uint64_t ip;
	pid_t pid;
	unsigned gen;
	bool kernel;
	struct sym_result r;
};

struct symbols {
	char proc_root[256];
	char kallsyms_path[256];
	struct kallsyms k;
	bool kernel_loaded;
	char notice[512];
	struct proc_tree procs;
	struct dso *dsos;
	unsigned gen;         /* bumped whenever a mapping changes */
	unsigned reap_gen;
	struct cache_entry *cache;
	/* Stable addresses whose values serve as keys for the unknowns. */
	char unknown_kernel, unknown_proc;
};

static const char UNKNOWN[] = "[unknown]";
static const char KERNEL_DSO[] = "[kernel.kallsyms]";

struct symbols *symbols_new(const struct symbols_opts *opts)
{
	struct symbols *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->cache = calloc(1u << CACHE_BITS, sizeof(*s->cache));
	if (s->cache == NULL) {
		free(s);
		return NULL;
	}
	strlcpy(s->proc_root, opts && opts->proc_root ? opts->proc_root : "/proc", sizeof(s->proc_root));
	strlcpy(s->kallsyms_path, opts && opts->kallsyms_path ? opts->kallsyms_path : "/proc/kallsyms",
		sizeof(s->kallsyms_path));
	RB_INIT(&s->procs);
	s->gen = 1;
	return s;
}

static void proc_free(struct proc *p)
{
	free(p->maps);
	free(p);
}

void symbols_free(struct symbols *s)
{
	struct proc *p, *tmp;
	struct dso *d, *dn;

	if (s == NULL)
		return;
	RB_FOREACH_SAFE(p, proc_tree, &s->procs, tmp) {
		RB_REMOVE(proc_tree, &s->procs, p);
		proc_free(p);
	}
	for (d = s->dsos; d; d = dn) {
		dn = d->next;
		elfsym_free(&d->tab);
		free(d->path);
		free(d);
	}
	kallsyms_free(&s->k);
	free(s->cache);
	free(s);
}

int symbols_load_kernel(struct symbols *s)
{
	int rc = kallsyms_load_path(&s->k, s->kallsyms_path);

	if (rc) {
		snprintf(s->notice, sizeof(s->notice), "cannot read %s (%s): kernel samples show as [unknown]",
			 s->kallsyms_path, strerror(-rc));
		return rc;
	}
	if (s->k.restricted)
		snprintf(s->notice, sizeof(s->notice), "kernel addresses are hidden (kernel.kptr_restrict): "
			 "run as root or set sysctl kernel.kptr_restrict=0 to see kernel symbols");
	s->kernel_loaded = true;
	return 0;
}

const char *symbols_notice(const struct symbols *s)
{
	return s->notice[0] ? s->notice : NULL;
}

static struct proc *proc_find(struct symbols *s, pid_t pid)
{
	struct proc key = { .pid = pid };

	return RB_FIND(proc_tree, &s->procs, &key);
}

static struct proc *proc_get(struct symbols *s, pid_t pid)
{
	struct proc *p = proc_find(s, pid);

	if (p) {
		p->exited = false;
		return p;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->pid = pid;
	RB_INSERT(proc_tree, &s->procs, p);
	return p;
}

static bool special_path(const char *path)
{
	return path[0] == '[' || strncmp(path, "//anon", 6) == 0 || strncmp(path, "/dev/zero", 9) == 0 ||
	       strncmp(path, "/memfd:", 7) == 0 || strncmp(path, "anon_inode:", 11) == 0;
}

static struct dso *dso_get(struct symbols *s, const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct dso *d;

	for (d = s->dsos; d; d = d->next) {
		if (ino && d->ino == ino && d->maj == maj && d->min == min)
			return d;
		if (!ino && !d->ino && strcmp(d->path, path) == 0)
			return d;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	d->path = strdup(path);
	if (d->path == NULL) {
		free(d);
		return NULL;
	}
	d->maj = maj;
	d->min = min;
	d->ino = ino;
	d->special = special_path(path);
	d->next = s->dsos;
	s->dsos = d;
	return d;
}

/* Inserts [start, end) replacing whatever it overlaps: a new mapping over
 * an old range means the old code is gone there. */
static int proc_map(struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff, struct dso *d)
{
	size_t i = 0, j;

	while (i < p->nmaps && p->maps[i].end <= start)
		i++;
	for (j = i; j < p->nmaps && p->maps[j].start < end; j++)
		;
	/* maps[i, j) overlap: keep the parts outside the new range. */
	if (j > i) {
		struct map head = p->maps[i], tail = p->maps[j - 1];
		bool keep_head = head.start < start, keep_tail = tail.end > end;
		size_t keep = (size_t)keep_head + (size_t)keep_tail;

		if (keep_tail)
			tail.pgoff += end - tail.start, tail.start = end;
		if (keep_head)
			head.end = start;
		memmove(&p->maps[i + keep], &p->maps[j], (p->nmaps - j) * sizeof(*p->maps));
		p->nmaps -= j - i - keep;
		if (keep_head)
			p->maps[i++] = head;
		if (keep_tail)
			p->maps[i] = tail;
	}
	if (p->nmaps == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 16;
		struct map *n = reallocarray(p->maps, ncap, sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		p->maps = n;
		p->cap = ncap;
	}
	memmove(&p->maps[i + 1], &p->maps[i], (p->nmaps - i) * sizeof(*p->maps));
	p->maps[i] = (struct map){ start, end, pgoff, d };
	p->nmaps++;
	return 0;
}

static void read_comm(struct symbols *s, struct proc *p)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/comm", s->proc_root, (int)p->pid);
	f = fopen(path, "re");
	if (f == NULL)
		return;
	if (fgets(p->comm, sizeof(p->comm), f))
		p->comm[strcspn(p->comm, "\n")] = '\0';
	fclose(f);
}

/* "start-end perms offset maj:min inode   path" */
static int synthesize_one(struct symbols *s, pid_t pid)
{
	char path[300], line[4096 + 128];
	struct proc *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", s->proc_root, (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	p = proc_get(s, pid);
	if (p == NULL) {
		fclose(f);
		return -ENOMEM;
	}
	read_comm(s, p);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		char *name;
		struct dso *d;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min, &ino,
			   &name_at) < 7 || strchr(perms, 'x') == NULL || name_at == 0)
			continue;
		name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		d = dso_get(s, *name ? name : "//anon", maj, min, ino);
		if (d)
			proc_map(p, start, end, off, d);
	}
	fclose(f);
	s->gen++;
	return 0;
}

int symbols_synthesize(struct symbols *s, pid_t pid)
{
	struct dirent *de;
	DIR *dir;

	if (pid >= 0)
		return synthesize_one(s, pid);
	dir = opendir(s->proc_root);
	if (dir == NULL)
		return -errno;
	while ((de = readdir(dir)) != NULL) {
		char *end;
		long v;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		v = strtol(de->d_name, &end, 10);
		if (*end == '\0' && v > 0)
			synthesize_one(s, (pid_t)v); /* gone meanwhile: skipped */
	}
	closedir(dir);
	return 0;
}

void symbols_mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot, const char *filename)
{
	struct proc *p;
	struct dso *d;

	if (!(prot & PROT_EXEC) || len == 0 || start + len < start)
		return;
	p = proc_get(s, pid);
	d = p ? dso_get(s, filename, maj, min, ino) : NULL;
	if (d && proc_map(p, start, start + len, pgoff, d) == 0)
		s->gen++;
}

void symbols_comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec)
{
	struct proc *p = proc_get(s, pid);

	if (p == NULL)
		return;
	if (pid == tid)
		strlcpy(p->comm, comm, sizeof(p->comm));
	if (exec) {
		/* The old image is gone; the kernel sends the new one's MMAP2s. */
		p->nmaps = 0;
		s->gen++;
	}
}

void symbols_fork(struct symbols *s, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid)
{
	struct proc *parent, *child;

	if (pid == ppid)
		return; /* a new thread shares its process's maps */
	parent = proc_find(s, ppid);
	child = proc_get(s, pid);
	if (child == NULL || parent == NULL)
		return;
	strlcpy(child->comm, parent->comm, sizeof(child->comm));
	if (parent->nmaps) {
		struct map *m = reallocarray(NULL, parent->nmaps, sizeof(*m));

		if (m == NULL)
			return;
		memcpy(m, parent->maps, parent->nmaps * sizeof(*m));
		free(child->maps);
		child->maps = m;
		child->nmaps = child->cap = parent->nmaps;
	}
	s->gen++;
}

void symbols_exit(struct symbols *s, pid_t pid, pid_t tid)
{
	struct proc *p;

	if (pid != tid || (p = proc_find(s, pid)) == NULL)
		return;
	p->exited = true;
	p->exit_gen = s->reap_gen;
}

void symbols_reap(struct symbols *s)
{
	struct proc *p, *tmp;
	bool any = false;

	RB_FOREACH_SAFE(p, proc_tree, &s->procs, tmp) {
		if (p->exited && p->exit_gen < s->reap_gen) {
			RB_REMOVE(proc_tree, &s->procs, p);
			proc_free(p);
			any = true;
		}
	}
	s->reap_gen++;
	if (any)
		s->gen++;
}

/* Opens a mapped file as the process sees it: through /proc/PID/root for
 * processes in other mount namespaces, else by its path. */
static int open_dso(struct symbols *s, const struct dso *d, pid_t pid)
{
	char path[4400];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/root%s", s->proc_root, (int)pid, d->path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(d->path, O_RDONLY | O_CLOEXEC);
	return fd;
}

static void dso_load(struct symbols *s, struct dso *d, pid_t pid)
{
	int fd;

	d->loaded = true;
	if (d->special)
		return;
	fd = open_dso(s, d, pid);
	if (fd < 0)
		return;
	elfsym_load_fd(&d->tab, fd);
	close(fd);
}

static const struct map *proc_lookup(const struct proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= ip)
			lo = mid + 1;
		else if (p->maps[mid].start > ip)
			hi = mid;
		else
			return &p->maps[mid];
	}
	return NULL;
}

static void resolve_kernel(struct symbols *s, uint64_t ip, struct sym_result *out)
{
	const struct ksym *k = s->kernel_loaded ? kallsyms_find(&s->k, ip) : NULL;

	out->kernel = true;
	if (k == NULL) {
		out->sym = UNKNOWN;
		out->dso = KERNEL_DSO;
		out->key = (uint64_t)(uintptr_t)&s->unknown_kernel;
		return;
	}
	out->sym = kallsyms_str(&s->k, k->name);
	out->dso = k->module ? kallsyms_str(&s->k, k->module) : KERNEL_DSO;
	out->key = (uint64_t)(uintptr_t)k;
}

static void resolve_user(struct symbols *s, pid_t pid, uint64_t ip, struct sym_result *out)
{
	struct proc *p = proc_find(s, pid);
	const struct map *m;
	const struct esym *e;
	uint64_t vaddr;

	out->kernel = false;
	if (p == NULL && synthesize_one(s, pid) == 0)
		p = proc_find(s, pid); /* a process that began before we saw its FORK */
	m = p ? proc_lookup(p, ip) : NULL;
	if (m == NULL) {
		out->sym = UNKNOWN;
		out->dso = UNKNOWN;
		out->key = (uint64_t)(uintptr_t)&s->unknown_proc;
		return;
	}
	if (!m->dso->loaded)
		dso_load(s, m->dso, pid);
	out->dso = m->dso->path;
	e = elfsym_offset_to_vaddr(&m->dso->tab, ip - m->start + m->pgoff, &vaddr)
	    ? elfsym_find(&m->dso->tab, vaddr) : NULL;
	if (e == NULL) {
		out->sym = UNKNOWN;
		out->key = (uint64_t)(uintptr_t)m->dso | 1;
		return;
	}
	out->sym = elfsym_name(&m->dso->tab, e);
	out->key = (uint64_t)(uintptr_t)e;
}

void symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel, struct sym_result *out)
{
	uint64_t h = (ip ^ ((uint64_t)(uint32_t)pid << 32)) * 0x9e3779b97f4a7c15ULL;
	struct cache_entry *c = &s->cache[h >> (64 - CACHE_BITS)];

	if (c->gen == s->gen && c->ip == ip && c->kernel == kernel && (kernel || c->pid == pid)) {
		*out = c->r;
		return;
	}
	if (kernel)
		resolve_kernel(s, ip, out);
	else
		resolve_user(s, pid, ip, out);
	/* resolve_user may have synthesized a process and bumped gen. */
	c->gen = s->gen;
	c->ip = ip;
	c->pid = pid;
	c->kernel = kernel;
	c->r = *out;
}

const char *symbols_comm_of(struct symbols *s, pid_t pid)
{
	struct proc *p = proc_find(s, pid);

	return p && p->comm[0] ? p->comm : NULL;
}

void symbols_stats(const struct symbols *s, struct symbols_stats *st)
{
	struct proc_tree *procs = (struct proc_tree *)&s->procs; /* RB_FOREACH is not const */
	struct proc *p;
	const struct dso *d;

	memset(st, 0, sizeof(*st));
	RB_FOREACH(p, proc_tree, procs) {
		st->processes++;
		st->bytes += sizeof(*p) + p->cap * sizeof(*p->maps);
	}
	for (d = s->dsos; d; d = d->next) {
		st->dsos++;
		if (d->tab.n) {
			st->tables++;
			st->symbols += d->tab.n;
			st->bytes += elfsym_bytes(&d->tab);
		}
	}
	st->symbols += s->k.n;
	st->bytes += s->k.n * sizeof(*s->k.syms) + s->k.strings_len + (1u << CACHE_BITS) * sizeof(*s->cache);
}
