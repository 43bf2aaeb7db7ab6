#include "symbols.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/tree.h>
#include <unistd.h>

#include "demangle.h"
#include "dso.h"
#include "elfsym.h"
#include "kallsyms.h"
#include "perfmap.h"

#define CACHE_BITS 12
#define PIDGEN_SIZE 1024    /* per-pid-slot generations, a power of two */
#define KERNEL_TAG 0x80000000u
#define EXITED_MAX 512      /* exited processes kept when nobody reaps */
#define COMM_LEN 32
#define ANON_BITS 10        /* buckets of anonymous-code labels */
#define ANON_MAX 65536      /* labels kept; beyond, [unknown] in its mapping */
#define ANON_PAGE 4096

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct proc {
	RB_ENTRY(proc) node;
	TAILQ_ENTRY(proc) exited_link;
	pid_t pid;
	bool exited;
	bool complete;      /* maps came from /proc or an exec: no lazy re-read */
	unsigned exit_epoch;
	char comm[COMM_LEN];
	struct map *maps;   /* sorted by start, non-overlapping */
	size_t nmaps, cap;
	struct jit *jit;    /* its /tmp/perf-PID.map, once one was found */
	unsigned jit_checked; /* epoch + 1 of the last look for it: once per interval */
};

/* A JIT's symbols. Retired, not freed, with its process: its names are
 * handed out and are keys. */
struct jit {
	struct perfmap pm;
	size_t bytes;
	char dso[32];       /* "perf-PID.map", as perf report shows it */
};

/* kernel entries have pid -1 and KERNEL_TAG | kgen; user entries the
 * generation of their pid's slot, which every map change bumps. */
struct cache_entry {
	uint64_t ip;
	int32_t pid;
	uint32_t tag;
	const char *sym, *dso;
	uint64_t key;
	struct dso *d;      /* whose table named it: a hit keeps it from eviction */
};

/* A label of anonymous code; never freed before symbols_free: its name is
 * handed out and its address is a key. */
struct anon_label {
	struct anon_label *next;
	pid_t pid;
	uint64_t start, page;
	char name[32];
};

RB_HEAD(proc_tree, proc);
TAILQ_HEAD(proc_list, proc);

struct symbols {
	char *proc_root, *kallsyms_path;
	struct kallsyms *ks;
	struct kallsyms **retired; /* replaced tables: their keys stay unique */
	size_t nretired;
	struct jit **jit_retired;
	size_t njit_retired, jit_bytes;
	char *jit_dir;             /* "/tmp" */
	struct anon_label **anon;  /* hash buckets, NULL until needed */
	size_t nanon;
	bool nocache;              /* the result just resolved must not be cached */
	bool raw_names;            /* no demangling */
	struct dso *hit;           /* the DSO the result just resolved came from */
	size_t table_limit;
	uint32_t kgen;
	struct proc_tree procs;
	struct dso_set dsos;
	struct proc_list exited;
	size_t nexited, nprocs, other_bytes;
	unsigned epoch;
	uint32_t pidgen[PIDGEN_SIZE];
	struct cache_entry *cache;
	char notice[256];
	/* Their addresses are the keys of the unresolved. */
	char unknown_all, unknown_kernel;
};

static const char UNKNOWN[] = "[unknown]";
static const char KERNEL_DSO[] = "[kernel.kallsyms]";

static int proc_cmp(const struct proc *a, const struct proc *b)
{
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* libbsd's RB_GENERATE_STATIC relies on a __unused its cdefs.h leaves out. */
RB_GENERATE_INTERNAL(proc_tree, proc, node, proc_cmp, __attribute__((unused)) static)

static void pid_changed(struct symbols *s, pid_t pid)
{
	uint32_t *g = &s->pidgen[(uint32_t)pid & (PIDGEN_SIZE - 1)];

	*g = (*g + 1) & ~KERNEL_TAG;
	if (*g == 0)
		*g = 1; /* 0 is what an empty cache entry holds */
}

struct symbols *symbols_new(const struct symbols_opts *opts)
{
	struct symbols *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->proc_root = strdup(opts && opts->proc_root ? opts->proc_root : "/proc");
	s->kallsyms_path = strdup(opts && opts->kallsyms_path ? opts->kallsyms_path : "/proc/kallsyms");
	s->cache = calloc((size_t)1 << CACHE_BITS, sizeof(*s->cache));
	s->jit_dir = strdup("/tmp");
	if (s->proc_root == NULL || s->kallsyms_path == NULL || s->cache == NULL || s->jit_dir == NULL ||
	    dso_set_init(&s->dsos, s->proc_root, "/usr/lib/debug") != 0)
		goto out_free;
	RB_INIT(&s->procs);
	TAILQ_INIT(&s->exited);
	for (size_t i = 0; i < PIDGEN_SIZE; i++)
		s->pidgen[i] = 1;
	s->table_limit = SYMBOLS_TABLE_LIMIT;
	return s;
out_free:
	free(s->jit_dir);
	free(s->cache);
	free(s->kallsyms_path);
	free(s->proc_root);
	free(s);
	return NULL;
}

/* The JIT map of a process that is gone or became another program. */
static void jit_retire(struct symbols *s, struct proc *p)
{
	struct jit **r;

	if (p->jit == NULL)
		return;
	r = reallocarray(s->jit_retired, s->njit_retired + 1, sizeof(*r));
	if (r == NULL)
		return; /* kept by the process: a later retire may succeed */
	s->jit_retired = r;
	s->jit_retired[s->njit_retired++] = p->jit;
	p->jit = NULL;
	p->jit_checked = 0;
}

static void proc_drop(struct symbols *s, struct proc *p)
{
	RB_REMOVE(proc_tree, &s->procs, p);
	if (p->exited) {
		TAILQ_REMOVE(&s->exited, p, exited_link);
		s->nexited--;
	}
	pid_changed(s, p->pid);
	s->nprocs--;
	s->other_bytes -= sizeof(*p) + p->cap * sizeof(*p->maps);
	jit_retire(s, p);
	if (p->jit) {
		perfmap_free(&p->jit->pm);
		free(p->jit);
	}
	free(p->maps);
	free(p);
}

void symbols_free(struct symbols *s)
{
	struct proc *p, *pn;

	if (s == NULL)
		return;
	RB_FOREACH_SAFE(p, proc_tree, &s->procs, pn)
		proc_drop(s, p);
	dso_set_free(&s->dsos);
	for (size_t i = 0; i < s->njit_retired; i++) {
		perfmap_free(&s->jit_retired[i]->pm);
		free(s->jit_retired[i]);
	}
	free(s->jit_retired);
	free(s->jit_dir);
	for (size_t i = 0; s->anon && i < ((size_t)1 << ANON_BITS); i++)
		for (struct anon_label *a = s->anon[i], *an; a; a = an) {
			an = a->next;
			free(a);
		}
	free(s->anon);
	for (size_t i = 0; i < s->nretired; i++)
		kallsyms_free(s->retired[i]);
	free(s->retired);
	kallsyms_free(s->ks);
	free(s->cache);
	free(s->kallsyms_path);
	free(s->proc_root);
	free(s);
}

int symbols_load_kernel(struct symbols *s)
{
	struct kallsyms *ks, **r;
	int rc = kallsyms_load(&ks, s->kallsyms_path);

	if (rc) {
		snprintf(s->notice, sizeof(s->notice), "cannot read %s (%s): kernel samples show as [unknown]",
			 s->kallsyms_path, strerror(-rc));
		return rc;
	}
	if (s->ks) {
		r = reallocarray(s->retired, s->nretired + 1, sizeof(*r));
		if (r == NULL) {
			kallsyms_free(ks);
			return -ENOMEM;
		}
		s->retired = r;
		s->retired[s->nretired++] = s->ks;
	}
	s->ks = ks;
	s->kgen = (s->kgen + 1) & ~KERNEL_TAG;
	if (ks->restricted)
		snprintf(s->notice, sizeof(s->notice), "kernel addresses are hidden (kernel.kptr_restrict): "
			 "kernel samples show as [unknown]; run as root with kptr_restrict=0");
	else if (ks->nsyms == 0)
		snprintf(s->notice, sizeof(s->notice), "no kernel text symbols in %s", s->kallsyms_path);
	else
		s->notice[0] = '\0';
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

/* The process a record speaks of, created if new. An exited one getting
 * records again is a new process under a reused pid: start it afresh. */
static struct proc *proc_live(struct symbols *s, pid_t pid)
{
	struct proc *p = proc_find(s, pid);

	if (p && p->exited) {
		TAILQ_REMOVE(&s->exited, p, exited_link);
		s->nexited--;
		p->exited = false;
		p->complete = false;
		p->nmaps = 0;
		p->comm[0] = '\0';
		jit_retire(s, p);
		pid_changed(s, pid);
	}
	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->pid = pid;
	RB_INSERT(proc_tree, &s->procs, p);
	s->nprocs++;
	s->other_bytes += sizeof(*p);
	pid_changed(s, pid);
	return p;
}

static void proc_mark_exited(struct symbols *s, struct proc *p)
{
	struct proc *old;

	if (p->exited)
		return;
	p->exited = true;
	p->exit_epoch = s->epoch;
	TAILQ_INSERT_TAIL(&s->exited, p, exited_link);
	/* Bounded even when nobody calls symbols_reap. */
	if (++s->nexited > EXITED_MAX && (old = TAILQ_FIRST(&s->exited)) != NULL)
		proc_drop(s, old);
}

static bool maps_reserve(struct symbols *s, struct proc *p, size_t extra)
{
	size_t cap = p->cap ? p->cap : 8;
	struct map *m;

	if (p->nmaps + extra <= p->cap)
		return true;
	while (cap < p->nmaps + extra)
		cap *= 2;
	m = reallocarray(p->maps, cap, sizeof(*m));
	if (m == NULL)
		return false;
	s->other_bytes += (cap - p->cap) * sizeof(*m);
	p->maps = m;
	p->cap = cap;
	return true;
}

/* Index of the first map ending after addr. */
static size_t maps_after(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Removes [start, end) from the maps, keeping the parts of partly covered
 * ones (a new mapping over an old range means the old code is gone there).
 * Needs room for one more map; returns where a map of that range goes. */
static size_t maps_punch(struct proc *p, uint64_t start, uint64_t end)
{
	size_t i = maps_after(p, start), j = i, keep;
	struct map head, tail;
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

static void maps_insert(struct symbols *s, struct proc *p, uint64_t start, uint64_t end,
			uint64_t pgoff, struct dso *d)
{
	size_t i;

	if (!maps_reserve(s, p, 2))
		return; /* out of memory: this mapping's samples stay [unknown] */
	i = maps_punch(p, start, end);
	if (d == NULL)
		return;
	memmove(&p->maps[i + 1], &p->maps[i], (p->nmaps - i) * sizeof(*p->maps));
	p->maps[i] = (struct map){ .start = start, .end = end, .pgoff = pgoff, .dso = d };
	p->nmaps++;
}

static const struct map *maps_find(const struct proc *p, uint64_t ip)
{
	size_t i = maps_after(p, ip);

	return i < p->nmaps && p->maps[i].start <= ip ? &p->maps[i] : NULL;
}

static bool read_comm(struct symbols *s, pid_t pid, char *comm, size_t len)
{
	char path[PATH_MAX];
	bool ok = false;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/comm", s->proc_root, (int)pid) >= sizeof(path))
		return false;
	f = fopen(path, "re");
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
static void synth_line(struct symbols *s, struct proc *p, char *line)
{
	uint64_t start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int at = 0;
	struct dso *d;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &start, &end, perms,
		   &off, &maj, &min, &ino, &at) < 7 || at == 0 || strchr(perms, 'x') == NULL || end <= start)
		return;
	line += at;
	line[strcspn(line, "\n")] = '\0';
	d = dso_get(&s->dsos, line, maj, min, ino, p->pid);
	if (d)
		maps_insert(s, p, start, end, off, d);
}

/* replace: /proc is the whole truth (synthesize); else it fills in what
 * records did not tell (a process first seen through a late MMAP). */
static int synth_one(struct symbols *s, pid_t pid, bool replace)
{
	char path[PATH_MAX], comm[COMM_LEN], *line = NULL;
	size_t cap = 0;
	struct proc *p;
	bool have_comm;
	FILE *f;
	int err;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/maps", s->proc_root, (int)pid) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	err = errno;
	have_comm = read_comm(s, pid, comm, sizeof(comm));
	/* Maps we may not read (ptrace rules) still leave a name to show. */
	if (f == NULL && !have_comm)
		return -err;
	p = proc_live(s, pid);
	if (p == NULL) {
		if (f)
			fclose(f);
		return -ENOMEM;
	}
	if (replace)
		p->nmaps = 0;
	while (f && getline(&line, &cap, f) > 0)
		synth_line(s, p, line);
	free(line);
	if (f)
		fclose(f);
	if (have_comm && (p->comm[0] == '\0' || replace))
		strlcpy(p->comm, comm, sizeof(p->comm));
	p->complete = true;
	pid_changed(s, pid);
	return 0;
}

int symbols_synthesize(struct symbols *s, pid_t pid)
{
	struct dirent *de;
	DIR *dir;

	if (pid >= 0)
		return synth_one(s, pid, true);
	dir = opendir(s->proc_root);
	if (dir == NULL)
		return -errno;
	while ((de = readdir(dir)) != NULL) {
		long long v = strtonum(de->d_name, 1, INT_MAX, NULL);

		if (v > 0)
			synth_one(s, (pid_t)v, true); /* gone meanwhile: skipped */
	}
	closedir(dir);
	return 0;
}

/* A pid that never came through FORK or /proc: read it once. One that is
 * gone stays as an exited placeholder, so we do not try on every sample. */
static struct proc *proc_lazy(struct symbols *s, pid_t pid)
{
	struct proc *p;

	if (pid <= 0)
		return NULL;
	if (synth_one(s, pid, true) == 0)
		return proc_find(s, pid);
	p = proc_live(s, pid);
	if (p) {
		p->complete = true;
		proc_mark_exited(s, p);
	}
	return p;
}

static void mmap_dso(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     struct dso *d)
{
	struct proc *p;

	if (len == 0 || start + len < start)
		return;
	p = proc_live(s, pid);
	if (p == NULL)
		return;
	/* Data mapped over code still removes the code. */
	maps_insert(s, p, start, start + len, pgoff, d);
	pid_changed(s, pid);
}

void symbols_mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot, const char *filename)
{
	mmap_dso(s, pid, start, len, pgoff,
		 prot & PROT_EXEC ? dso_get(&s->dsos, filename, maj, min, ino, pid) : NULL);
}

void symbols_mmap_build_id(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
			   uint64_t pgoff, const uint8_t *build_id, size_t build_id_len,
			   uint32_t prot, const char *filename)
{
	mmap_dso(s, pid, start, len, pgoff,
		 prot & PROT_EXEC ? dso_get_build_id(&s->dsos, filename, build_id, build_id_len, pid) : NULL);
}

void symbols_comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec)
{
	struct proc *p;

	if (pid != tid && !exec)
		return; /* a thread's name is not the process's */
	p = proc_live(s, pid);
	if (p == NULL)
		return;
	strlcpy(p->comm, comm ? comm : "", sizeof(p->comm));
	if (exec) {
		/* The old image is gone; the kernel sends the new one's MMAP2s. */
		p->nmaps = 0;
		jit_retire(s, p);
		p->complete = true;
		pid_changed(s, pid);
	}
}

void symbols_fork(struct symbols *s, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid)
{
	struct proc *parent, *child;

	(void)tid;
	(void)ptid;
	if (pid == ppid)
		return; /* a new thread shares its process's maps */
	parent = proc_find(s, ppid);
	child = proc_live(s, pid);
	if (child == NULL)
		return;
	child->nmaps = 0;
	child->complete = false;
	if (parent && maps_reserve(s, child, parent->nmaps)) {
		if (parent->nmaps)
			memcpy(child->maps, parent->maps, parent->nmaps * sizeof(*parent->maps));
		child->nmaps = parent->nmaps;
		child->complete = parent->complete;
		strlcpy(child->comm, parent->comm, sizeof(child->comm));
	}
	pid_changed(s, pid);
}

void symbols_exit(struct symbols *s, pid_t pid, pid_t tid)
{
	struct proc *p;

	if (pid == tid && (p = proc_find(s, pid)) != NULL)
		proc_mark_exited(s, p);
}

void symbols_reap(struct symbols *s)
{
	struct proc *p;

	while ((p = TAILQ_FIRST(&s->exited)) != NULL && p->exit_epoch < s->epoch)
		proc_drop(s, p);
	/* Tables hit this interval stay; cached names of dropped ones go. */
	if (s->dsos.table_bytes > s->table_limit && dso_evict(&s->dsos, s->table_limit, s->epoch))
		memset(s->cache, 0, ((size_t)1 << CACHE_BITS) * sizeof(*s->cache));
	s->epoch++;
}

void symbols_set_table_limit(struct symbols *s, size_t bytes)
{
	s->table_limit = bytes;
}

static void resolve_kernel(struct symbols *s, uint64_t ip, struct sym_result *out)
{
	const struct kallsyms_sym *k = s->ks ? kallsyms_find(s->ks, ip) : NULL;
	const char *mod;

	if (k == NULL) {
		out->sym = UNKNOWN;
		out->dso = KERNEL_DSO;
		out->key = (uint64_t)(uintptr_t)&s->unknown_kernel;
		return;
	}
	mod = kallsyms_module(s->ks, k);
	out->sym = kallsyms_name(s->ks, k);
	out->dso = mod ? mod : KERNEL_DSO;
	out->key = (uint64_t)(uintptr_t)k;
}

/* Code in no file: a JIT's, if it wrote /tmp/perf-PID.map. Looked for (and
 * re-read, as it grows) at most once per interval per process, and only on
 * a miss, so unresolved samples cost no system call each. */
static const struct perfmap_sym *jit_find(struct symbols *s, struct proc *p, uint64_t ip)
{
	const struct perfmap_sym *sym = p->jit ? perfmap_find(&p->jit->pm, ip) : NULL;
	char path[PATH_MAX];
	struct stat st;
	int rc;

	if (sym || p->jit_checked == s->epoch + 1 || p->exited)
		return sym;
	p->jit_checked = s->epoch + 1;
	if ((size_t)snprintf(path, sizeof(path), "%s/%d", s->proc_root, (int)p->pid) >= sizeof(path) ||
	    stat(path, &st) != 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/perf-%d.map", s->jit_dir, (int)p->pid);
	if (p->jit == NULL) {
		if (access(path, F_OK) != 0 || (p->jit = calloc(1, sizeof(*p->jit))) == NULL)
			return NULL;
		snprintf(p->jit->dso, sizeof(p->jit->dso), "perf-%d.map", (int)p->pid);
	}
	/* Owned by the process's user (its /proc entry's) or root. */
	rc = perfmap_refresh(&p->jit->pm, path, st.st_uid);
	s->jit_bytes -= p->jit->bytes;
	p->jit->bytes = perfmap_bytes(&p->jit->pm);
	s->jit_bytes += p->jit->bytes;
	if (rc > 0)
		pid_changed(s, p->pid); /* cached misses may now resolve */
	return perfmap_find(&p->jit->pm, ip);
}

/* Keys of ELF symbols: a tag no pointer has (user space is below bit 63),
 * the naming form, the DSO's id and the symbol's index, so that a table
 * evicted and read again gives its symbols the same keys. */
#define KEY_ELF (1ull << 63)
#define KEY_RAW (1ull << 62)

static uint64_t sym_key(const struct symbols *s, const struct dso *d, const struct elfsym *t,
			const struct elfsym_sym *sym)
{
	/* Only names the switch changes change keys with it. */
	bool raw = s->raw_names && demangle_candidate(elfsym_name(t, sym));

	return KEY_ELF | (raw ? KEY_RAW : 0) | (uint64_t)(d->id & 0x3fffffff) << 32 | (uint64_t)(sym - t->syms);
}

static const char *sym_name(struct symbols *s, struct elfsym *t, const struct elfsym_sym *sym)
{
	size_t before = t->dnames_bytes;
	const char *name;

	if (s->raw_names)
		return elfsym_name(t, sym);
	name = elfsym_demangled(t, sym);
	s->dsos.table_bytes += t->dnames_bytes - before;
	return name;
}

/* Code in no file that no JIT map names: grouped per process, mapping and
 * page ("[anon]+0x3000"), so that a hot JIT region still stands out. */
static void resolve_anon(struct symbols *s, const struct proc *p, const struct map *m, uint64_t ip,
			 struct sym_result *out)
{
	uint64_t page = (ip - m->start) & ~(uint64_t)(ANON_PAGE - 1);
	size_t b = (size_t)(((uint64_t)(uint32_t)p->pid * 0x9e3779b97f4a7c15ull ^ m->start ^ page) *
			    0xc2b2ae3d27d4eb4full >> (64 - ANON_BITS));
	struct anon_label *a;

	if (s->anon == NULL && (s->anon = calloc((size_t)1 << ANON_BITS, sizeof(*s->anon))) == NULL)
		goto out_unknown;
	for (a = s->anon[b]; a; a = a->next)
		if (a->pid == p->pid && a->start == m->start && a->page == page)
			goto out_found;
	if (s->nanon >= ANON_MAX || (a = malloc(sizeof(*a))) == NULL)
		goto out_unknown;
	a->pid = p->pid;
	a->start = m->start;
	a->page = page;
	snprintf(a->name, sizeof(a->name), "[anon]+0x%" PRIx64, page);
	a->next = s->anon[b];
	s->anon[b] = a;
	s->nanon++;
	s->other_bytes += sizeof(*a);
out_found:
	out->sym = a->name;
	out->key = (uint64_t)(uintptr_t)a;
	return;
out_unknown:
	out->sym = UNKNOWN;
	out->key = (uint64_t)(uintptr_t)m->dso | 1;
}

static void resolve_user(struct symbols *s, pid_t pid, uint64_t ip, struct sym_result *out)
{
	struct proc *p = proc_find(s, pid);
	const struct elfsym_sym *sym = NULL;
	const struct perfmap_sym *jsym;
	const struct map *m = NULL;
	struct dso *d = NULL;
	uint64_t vaddr;

	if (p == NULL)
		p = proc_lazy(s, pid);
	if (p)
		m = maps_find(p, ip);
	if (m == NULL && p && !p->complete && !p->exited) {
		p->complete = true; /* one try, even when /proc has no such pid */
		if (synth_one(s, pid, false) == 0)
			m = maps_find(p, ip);
	}
	if (m && !(d = m->dso)->loaded)
		dso_load(&s->dsos, d, pid, m->start, m->end);
	if (d) {
		d->last_hit = s->epoch;
		s->hit = d;
	}
	/* A miss in code of no file (or in a memfd that is no ELF) is not
	 * cached: the JIT map may name it by the next interval (jit_find
	 * keeps that cheap). */
	if (p && (d == NULL || d->kind == DSO_NONE || (d->kind == DSO_MEMFD && d->tab == NULL))) {
		if ((jsym = jit_find(s, p, ip)) != NULL) {
			out->sym = jsym->name;
			out->dso = p->jit->dso;
			out->key = (uint64_t)(uintptr_t)jsym->name;
			return;
		}
		s->nocache = true;
	}
	if (m == NULL) {
		out->sym = UNKNOWN;
		out->dso = UNKNOWN;
		out->key = (uint64_t)(uintptr_t)&s->unknown_all;
		return;
	}
	if (d->tab && elfsym_offset_to_vaddr(d->tab, ip - m->start + m->pgoff, &vaddr))
		sym = elfsym_find(d->tab, vaddr);
	out->dso = d->path;
	if (sym) {
		out->sym = sym_name(s, d->tab, sym);
		out->key = sym_key(s, d, d->tab, sym);
	} else if (p && d->tab == NULL && (d->kind == DSO_NONE || d->kind == DSO_MEMFD)) {
		resolve_anon(s, p, m, ip, out);
	} else {
		out->sym = UNKNOWN;
		out->key = (uint64_t)(uintptr_t)d | 1;
	}
}

static inline size_t cache_slot(int32_t pid, uint64_t ip)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)pid * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> (64 - CACHE_BITS));
}

void symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel, struct sym_result *out)
{
	int32_t cpid = kernel ? -1 : pid;
	uint32_t *gen = &s->pidgen[(uint32_t)pid & (PIDGEN_SIZE - 1)];
	uint32_t tag = kernel ? KERNEL_TAG | s->kgen : *gen;
	struct cache_entry *e = &s->cache[cache_slot(cpid, ip)];

	out->kernel = kernel;
	if (e->ip == ip && e->pid == cpid && e->tag == tag) {
		out->sym = e->sym;
		out->dso = e->dso;
		out->key = e->key;
		if (e->d)
			e->d->last_hit = s->epoch;
		return;
	}
	s->hit = NULL;
	if (kernel)
		resolve_kernel(s, ip, out);
	else
		resolve_user(s, pid, ip, out);
	if (s->nocache) {
		s->nocache = false;
		return;
	}
	/* Resolving may have read /proc and moved the generation on. */
	*e = (struct cache_entry){ .ip = ip, .pid = cpid, .tag = kernel ? tag : *gen,
				   .sym = out->sym, .dso = out->dso, .key = out->key, .d = s->hit };
}

int symbols_set_jit_dir(struct symbols *s, const char *dir)
{
	char *d = strdup(dir);

	if (d == NULL)
		return -ENOMEM;
	free(s->jit_dir);
	s->jit_dir = d;
	return 0;
}

void symbols_set_demangle(struct symbols *s, bool on)
{
	if (s->raw_names == !on)
		return;
	s->raw_names = !on;
	/* Cached results carry the other form's names. */
	memset(s->cache, 0, ((size_t)1 << CACHE_BITS) * sizeof(*s->cache));
}

bool symbols_demangle(const struct symbols *s)
{
	return !s->raw_names;
}

int symbols_set_debug_root(struct symbols *s, const char *debug_root)
{
	return dso_set_debug_root(&s->dsos, debug_root);
}

const char *symbols_comm_of(struct symbols *s, pid_t pid)
{
	struct proc *p = proc_find(s, pid);

	if (p == NULL)
		p = proc_lazy(s, pid);
	return p && p->comm[0] ? p->comm : NULL;
}

void symbols_stats(const struct symbols *s, struct symbols_stats *st)
{
	st->processes = s->nprocs;
	st->dsos = s->dsos.ndsos;
	st->tables = s->dsos.ntables + (s->ks != NULL);
	st->symbols = s->dsos.nsyms + (s->ks ? s->ks->nsyms : 0);
	st->table_bytes = s->dsos.table_bytes;
	st->table_limit = s->table_limit;
	st->evicted = s->dsos.nevicted;
	st->bytes = sizeof(*s) + ((size_t)1 << CACHE_BITS) * sizeof(*s->cache) + s->dsos.table_bytes +
		    s->dsos.other_bytes + s->other_bytes + s->jit_bytes + kallsyms_bytes(s->ks);
	for (size_t i = 0; i < s->nretired; i++)
		st->bytes += kallsyms_bytes(s->retired[i]);
}
