/* symbols: the resolver. An address of a task becomes a symbol through a
 * direct-mapped cache in front of the process table's maps (proctab.c) and
 * the DSOs' tables; code in no file gets a JIT map's name or an
 * anonymous-code label. */
#include "symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demangle.h"
#include "dso.h"
#include "elfsym.h"
#include "kallsyms.h"
#include "perfmap.h"
#include "proctab.h"
#include "util.h"

#define CACHE_BITS 12
#define ANON_BITS 10        /* buckets of anonymous-code labels */
#define ANON_MAX 65536      /* labels kept; beyond, [unknown] in its mapping */
#define ANON_PAGE 4096

/* Kernel entries have pid -1 and PROCTAB_GEN_KERNEL | kgen; user entries the
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

/* What one resolution found, and whether it may be cached. */
struct lookup {
	const char *sym, *dso;
	uint64_t key;
	struct dso *d;      /* the DSO whose table (or lack of one) named it */
	bool nocache;       /* code of no file: a JIT map may name it later */
};

struct symbols {
	char *proc_root, *kallsyms_path;
	struct kallsyms *ks;
	struct kallsyms **retired; /* replaced tables: their keys stay unique */
	size_t nretired;
	size_t jit_bytes;
	char *jit_dir;             /* "/tmp" */
	struct anon_label **anon;  /* hash buckets, NULL until needed */
	size_t nanon, anon_bytes;
	bool raw_names;            /* no demangling */
	size_t table_limit;
	uint32_t kgen;
	struct proctab pt;
	struct dso_set dsos;
	struct cache_entry *cache;
	char notice[256];
	/* Their addresses are the keys of the unresolved. */
	char unknown_all, unknown_kernel;
};

static const char UNKNOWN[] = "[unknown]";
static const char KERNEL_DSO[] = "[kernel.kallsyms]";

struct symbols *symbols_new(const struct symbols_opts *opts)
{
	struct symbols *s = calloc(1, sizeof(*s));
	bool dsos = false;

	if (s == NULL)
		return NULL;
	s->proc_root = strdup(opts && opts->proc_root ? opts->proc_root : "/proc");
	s->kallsyms_path = strdup(opts && opts->kallsyms_path ? opts->kallsyms_path : "/proc/kallsyms");
	s->cache = calloc((size_t)1 << CACHE_BITS, sizeof(*s->cache));
	s->jit_dir = strdup("/tmp");
	if (s->proc_root == NULL || s->kallsyms_path == NULL || s->cache == NULL || s->jit_dir == NULL ||
	    dso_set_init(&s->dsos, s->proc_root, "/usr/lib/debug") != 0)
		goto out_free;
	dsos = true;
	if (proctab_init(&s->pt, s->proc_root, &s->dsos) != 0)
		goto out_free;
	s->table_limit = SYMBOLS_TABLE_LIMIT;
	return s;
out_free:
	if (dsos)
		dso_set_free(&s->dsos);
	free(s->jit_dir);
	free(s->cache);
	free(s->kallsyms_path);
	free(s->proc_root);
	free(s);
	return NULL;
}

void symbols_free(struct symbols *s)
{
	if (s == NULL)
		return;
	proctab_free(&s->pt);
	dso_set_free(&s->dsos);
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
	s->kgen = (s->kgen + 1) & ~PROCTAB_GEN_KERNEL;
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

int symbols_synthesize(struct symbols *s, pid_t pid)
{
	return proctab_synthesize(&s->pt, pid);
}

void symbols_mmap(struct symbols *s, const struct sym_map *m)
{
	proctab_mmap(&s->pt, m);
}

bool symbols_comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec)
{
	return proctab_comm(&s->pt, pid, tid, comm, exec);
}

bool symbols_fork(struct symbols *s, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid)
{
	return proctab_fork(&s->pt, pid, ppid, tid, ptid);
}

void symbols_exit(struct symbols *s, pid_t pid, pid_t tid)
{
	proctab_exit(&s->pt, pid, tid);
}

void symbols_reap(struct symbols *s)
{
	proctab_reap(&s->pt);
	/* Tables hit this interval stay; cached names of dropped ones go. The
	 * process table's epoch has moved on: the interval just ended is the
	 * one before it. */
	if (s->dsos.table_bytes > s->table_limit && dso_evict(&s->dsos, s->table_limit, s->pt.epoch - 1))
		memset(s->cache, 0, ((size_t)1 << CACHE_BITS) * sizeof(*s->cache));
}

void symbols_set_table_limit(struct symbols *s, size_t bytes)
{
	s->table_limit = bytes;
}

static struct lookup resolve_kernel(struct symbols *s, uint64_t ip)
{
	const struct kallsyms_sym *k = s->ks ? kallsyms_find(s->ks, ip) : NULL;
	const char *mod;

	if (k == NULL)
		return (struct lookup){ .sym = UNKNOWN, .dso = KERNEL_DSO,
					.key = (uint64_t)(uintptr_t)&s->unknown_kernel };
	mod = kallsyms_module(s->ks, k);
	return (struct lookup){ .sym = kallsyms_name(s->ks, k), .dso = mod ? mod : KERNEL_DSO,
				.key = (uint64_t)(uintptr_t)k };
}

/* Code in no file: a JIT's, if it wrote /tmp/perf-PID.map. Looked for (and
 * re-read, as it grows) at most once per interval per process, and only on
 * a miss, so unresolved samples cost no system call each. */
static const struct perfmap_sym *jit_find(struct symbols *s, struct proctab_proc *p, uint64_t ip)
{
	const struct perfmap_sym *sym = p->jit ? perfmap_find(&p->jit->pm, ip) : NULL;
	char path[PATH_MAX];
	struct stat st;
	int rc;

	if (sym || p->jit_checked == s->pt.epoch + 1 || p->task.exited)
		return sym;
	p->jit_checked = s->pt.epoch + 1;
	if (util_pathf(path, sizeof(path), "%s/%d", s->proc_root, (int)p->pid) != 0 || stat(path, &st) != 0 ||
	    util_pathf(path, sizeof(path), "%s/perf-%d.map", s->jit_dir, (int)p->pid) != 0)
		return NULL;
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
		proctab_changed(&s->pt, p->pid); /* cached misses may now resolve */
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
static void resolve_anon(struct symbols *s, const struct proctab_proc *p, const struct proctab_map *m,
			 uint64_t ip, struct lookup *out)
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
	s->anon_bytes += sizeof(*a);
out_found:
	out->sym = a->name;
	out->key = (uint64_t)(uintptr_t)a;
	return;
out_unknown:
	out->sym = UNKNOWN;
	out->key = (uint64_t)(uintptr_t)m->dso | 1;
}

static struct lookup resolve_user(struct symbols *s, struct proctab_proc *p, uint64_t ip)
{
	struct lookup l = { .sym = UNKNOWN, .dso = UNKNOWN, .key = (uint64_t)(uintptr_t)&s->unknown_all };
	const struct elfsym_sym *sym = NULL;
	const struct perfmap_sym *jsym;
	const struct proctab_map *m = NULL;
	struct dso *d = NULL;
	uint64_t vaddr;

	if (p)
		m = proctab_map_find(p, ip);
	if (m == NULL && p && !p->complete && !p->task.exited && proctab_fill(&s->pt, p) == 0)
		m = proctab_map_find(p, ip);
	if (m && !(d = m->dso)->loaded)
		dso_load(&s->dsos, d, p->pid, m->start, m->end);
	if (d) {
		d->last_hit = s->pt.epoch;
		l.d = d;
	}
	/* A miss in code of no file (or in a memfd that is no ELF) is not
	 * cached: the JIT map may name it by the next interval (jit_find
	 * keeps that cheap). */
	if (p && (d == NULL || d->kind == DSO_NONE || (d->kind == DSO_MEMFD && d->tab == NULL))) {
		if ((jsym = jit_find(s, p, ip)) != NULL)
			return (struct lookup){ .sym = jsym->name, .dso = p->jit->dso,
						.key = (uint64_t)(uintptr_t)jsym->name, .d = l.d };
		l.nocache = true;
	}
	if (m == NULL)
		return l;
	if (d->tab && elfsym_offset_to_vaddr(d->tab, ip - m->start + m->pgoff, &vaddr))
		sym = elfsym_find(d->tab, vaddr);
	l.dso = d->path;
	if (sym) {
		l.sym = sym_name(s, d->tab, sym);
		l.key = sym_key(s, d, d->tab, sym);
	} else if (d->tab == NULL && (d->kind == DSO_NONE || d->kind == DSO_MEMFD)) {
		resolve_anon(s, p, m, ip, &l);
	} else {
		l.key = (uint64_t)(uintptr_t)d | 1;
	}
	return l;
}

static inline size_t cache_slot(int32_t pid, uint64_t ip)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)pid * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> (64 - CACHE_BITS));
}

static inline void resolve(struct symbols *s, pid_t pid, pid_t tid, uint64_t ip, bool kernel,
			   struct sym_result *out)
{
	/* Known, or read from /proc once (which may move the generation on). */
	struct proctab_proc *p = proctab_task(&s->pt, pid);
	struct proctab_thread *t = p && tid != pid ? proctab_task_thread(&s->pt, p, tid) : NULL;
	int32_t cpid = kernel ? -1 : pid;
	uint32_t tag = kernel ? PROCTAB_GEN_KERNEL | s->kgen : proctab_gen(&s->pt, pid);
	struct cache_entry *e = &s->cache[cache_slot(cpid, ip)];
	struct lookup l;

	out->kernel = kernel;
	out->comm = pid == 0 ? "swapper" : p && p->task.comm[0] ? p->task.comm : NULL;
	out->thread_comm = t && t->task.comm[0] ? t->task.comm : out->comm;
	if (e->ip == ip && e->pid == cpid && e->tag == tag) {
		out->sym = e->sym;
		out->dso = e->dso;
		out->key = e->key;
		if (e->d)
			e->d->last_hit = s->pt.epoch;
		return;
	}
	l = kernel ? resolve_kernel(s, ip) : resolve_user(s, p, ip);
	out->sym = l.sym;
	out->dso = l.dso;
	out->key = l.key;
	if (l.nocache)
		return;
	/* Resolving may have read /proc and moved the generation on. */
	*e = (struct cache_entry){ .ip = ip, .pid = cpid, .tag = kernel ? tag : proctab_gen(&s->pt, pid),
				   .sym = l.sym, .dso = l.dso, .key = l.key, .d = l.d };
}

void symbols_resolve_thread(struct symbols *s, pid_t pid, pid_t tid, uint64_t ip, bool kernel,
			    struct sym_result *out)
{
	resolve(s, pid, tid, ip, kernel, out);
}

void symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel, struct sym_result *out)
{
	resolve(s, pid, pid, ip, kernel, out);
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
	struct proctab_proc *p = proctab_get(&s->pt, pid);

	return p && p->task.comm[0] ? p->task.comm : NULL;
}

void symbols_stats(const struct symbols *s, struct symbols_stats *st)
{
	st->processes = s->pt.nprocs;
	st->dsos = s->dsos.ndsos;
	st->tables = s->dsos.ntables + (s->ks != NULL);
	st->symbols = s->dsos.nsyms + (s->ks ? s->ks->nsyms : 0);
	st->table_bytes = s->dsos.table_bytes;
	st->table_limit = s->table_limit;
	st->evicted = s->dsos.nevicted;
	st->bytes = sizeof(*s) + ((size_t)1 << CACHE_BITS) * sizeof(*s->cache) + s->dsos.table_bytes +
		    s->dsos.other_bytes + s->pt.bytes + s->anon_bytes + s->jit_bytes + kallsyms_bytes(s->ks);
	for (size_t i = 0; i < s->nretired; i++)
		st->bytes += kallsyms_bytes(s->retired[i]);
}

bool symbols_map_at(struct symbols *s, pid_t pid, uint64_t addr, char *path, size_t len,
		    uint64_t *start, uint64_t *end, uint64_t *pgoff)
{
	struct proctab_proc *p = proctab_find(&s->pt, pid);
	const struct proctab_map *m = p ? proctab_map_find(p, addr) : NULL;
	int n;

	if (m == NULL || m->dso == NULL || m->dso->path == NULL)
		return false;
	if (strcmp(m->dso->path, "[vdso]") == 0)
		n = snprintf(path, len, "[vdso]"); /* no file: the unwinder reads its image */
	else if (m->dso->path[0] != '/')
		return false;
	else if (m->dso->deleted)
		n = snprintf(path, len, "%s/%d/map_files/%" PRIx64 "-%" PRIx64, s->proc_root, (int)pid,
			     m->start, m->end);
	else
		n = snprintf(path, len, "%s/%d/root%s", s->proc_root, (int)pid, m->dso->path);
	if (n < 0 || (size_t)n >= len)
		return false;
	*start = m->start;
	*end = m->end;
	*pgoff = m->pgoff;
	return true;
}
