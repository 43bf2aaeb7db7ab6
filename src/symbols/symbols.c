/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols: the resolver. An address of a task becomes a symbol through a
 * direct-mapped cache in front of the kernel's tables (symbols_kernel.c)
 * and the processes' maps and files (symbols_user.c); whole stacks through
 * a cache of their own (symbols_chain.c). */
#include "symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachedir.h"
#include "dso.h"
#include "elfsym.h"
#include "proctab.h"
#include "symbols_chain.h"
#include "symbols_kernel.h"
#include "symbols_user.h"

#define CACHE_BITS 12
#define IVCACHE_BITS 9      /* results that hold for one interval (code of no file) */

/* Kernel entries have pid -1 and PROCTAB_GEN_KERNEL | the kernel's gen;
 * user entries the generation of their pid's slot, which every map change
 * bumps. */
struct cache_entry {
	uint64_t ip;
	int32_t pid;
	uint32_t tag;
	const char *sym, *dso;
	uint64_t key;
	struct dso *d;      /* whose table named it: a hit keeps it from eviction */
	uint64_t start;     /* sym_result's sym_start, sym_size, sym_off: one line in all */
	uint32_t size, off;
};

struct symbols {
	char *proc_root;
	size_t table_limit;
	struct proctab pt;
	struct dso_set dsos;
	struct symbols_kernel kern;
	struct symbols_user user;
	struct symbols_chains chains;
	struct cache_entry *cache;
	struct cache_entry *ivcache; /* 1 << IVCACHE_BITS, NULL until needed; valid in ivcache_epoch */
	unsigned ivcache_epoch;
	/* What a remembered resolve holds under besides its pid's maps
	 * (symbols_tag): bumped when tables are evicted and in the interval
	 * before an eviction may look (each entry resolves again, which keeps
	 * its table's last_hit fresh), at a kernel table change, a switch of
	 * names. */
	uint32_t ver;
	bool hits_fresh;           /* ver moved at the last reap: last_hit says what was hit */
};

struct symbols *symbols_new(const struct symbols_opts *opts)
{
	struct symbols *s = calloc(1, sizeof(*s));
	bool dsos = false, pt = false, kern = false;

	if (s == NULL)
		return NULL;
	s->proc_root = strdup(opts && opts->proc_root ? opts->proc_root : "/proc");
	s->cache = calloc((size_t)1 << CACHE_BITS, sizeof(*s->cache));
	symbols_chain_init(&s->chains);
	if (s->proc_root == NULL || s->cache == NULL || dso_set_init(&s->dsos, s->proc_root, "/usr/lib/debug") != 0)
		goto out_free;
	dsos = true;
	if (proctab_init(&s->pt, s->proc_root, &s->dsos) != 0)
		goto out_free;
	pt = true;
	if (symbols_kernel_init(&s->kern, opts && opts->kallsyms_path ? opts->kallsyms_path : "/proc/kallsyms") != 0)
		goto out_free;
	kern = true;
	if (symbols_user_init(&s->user, &s->pt, &s->dsos) != 0)
		goto out_free;
	s->table_limit = SYMBOLS_TABLE_LIMIT;
	return s;
out_free:
	if (kern)
		symbols_kernel_free(&s->kern);
	if (pt)
		proctab_free(&s->pt);
	if (dsos)
		dso_set_free(&s->dsos);
	free(s->cache);
	free(s->proc_root);
	free(s);
	return NULL;
}

int symbols_cache_dir(char *buf, size_t len)
{
	return cachedir_path(buf, len);
}

int symbols_set_kcache(struct symbols *s, const char *dir, const char *notes_path, const char *modules_path)
{
	return symbols_kernel_set_cache(&s->kern, dir, notes_path, modules_path);
}

int symbols_set_symbol_cache(struct symbols *s, const char *dir)
{
	return dso_set_cache_dir(&s->dsos, dir);
}

void symbols_free(struct symbols *s)
{
	if (s == NULL)
		return;
	proctab_free(&s->pt);
	dso_set_free(&s->dsos);
	symbols_user_free(&s->user);
	symbols_kernel_free(&s->kern);
	free(s->cache);
	free(s->ivcache);
	symbols_chain_free(&s->chains);
	free(s->proc_root);
	free(s);
}

int symbols_load_kernel(struct symbols *s)
{
	int rc = symbols_kernel_load(&s->kern, s->pt.epoch);

	if (rc == 0)
		s->ver++;
	return rc;
}

const char *symbols_notice(const struct symbols *s)
{
	return s->kern.notice[0] ? s->kern.notice : NULL;
}

int symbols_synthesize(struct symbols *s, pid_t pid)
{
	return proctab_synthesize(&s->pt, pid);
}

void symbols_stale(struct symbols *s)
{
	proctab_stale(&s->pt);
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

static void cache_clear(struct symbols *s)
{
	memset(s->cache, 0, ((size_t)1 << CACHE_BITS) * sizeof(*s->cache));
	if (s->ivcache)
		memset(s->ivcache, 0, ((size_t)1 << IVCACHE_BITS) * sizeof(*s->ivcache));
}

/* Whether the interval starting at epoch ends in an idle check. */
static bool idle_check_at(unsigned epoch)
{
	return epoch >= SYMBOLS_TABLE_IDLE && epoch % (SYMBOLS_TABLE_IDLE / 4) == 0;
}

void symbols_reap(struct symbols *s)
{
	bool dropped = false, over = s->dsos.table_bytes > s->table_limit;

	proctab_reap(&s->pt);
	/* A sample that a memo served (agg's, the chain cache) marks no table
	 * hit: last_hit is right only after an interval in which every
	 * remembered resolve was done again (ver moved at its start). Over the
	 * bound that is every interval; else the one before an idle check.
	 * Not every interval: that cost each distinct IP and stack a resolve
	 * an interval: 10-14 % of a live view's CPU here (BENCHMARKS). */
	if (s->hits_fresh) {
		/* Tables hit this interval stay; cached names of dropped ones go.
		 * The process table's epoch has moved on: the interval just
		 * ended is the one before it. */
		if (over && dso_evict(&s->dsos, s->table_limit, s->pt.epoch - 1))
			dropped = true;
		if (idle_check_at(s->pt.epoch) && dso_evict_idle(&s->dsos, s->pt.epoch - SYMBOLS_TABLE_IDLE))
			dropped = true;
	}
	s->hits_fresh = dropped || over || idle_check_at(s->pt.epoch + 1);
	if (s->hits_fresh)
		s->ver++;
	if (dropped) {
		cache_clear(s);
		malloc_trim(0); /* a table's pages back to the system, not kept for the heap */
	}
}

void symbols_set_table_limit(struct symbols *s, size_t bytes)
{
	s->table_limit = bytes;
}

static inline uint64_t slot_hash(int32_t pid, uint64_t ip)
{
	return ip * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)pid * 0xc2b2ae3d27d4eb4full;
}

/* The interval table's slot for hash h, the table emptied first if it
 * holds another interval's; NULL when out of memory (nothing kept). */
static struct cache_entry *ivcache_slot(struct symbols *s, uint64_t h)
{
	size_t n = (size_t)1 << IVCACHE_BITS;

	if (s->ivcache == NULL) {
		if ((s->ivcache = calloc(n, sizeof(*s->ivcache))) == NULL)
			return NULL;
		s->ivcache_epoch = s->pt.epoch;
	} else if (s->ivcache_epoch != s->pt.epoch) {
		memset(s->ivcache, 0, n * sizeof(*s->ivcache));
		s->ivcache_epoch = s->pt.epoch;
	}
	return &s->ivcache[h >> (64 - IVCACHE_BITS)];
}

/* The file's identity when it has a build-id, else its table's (read from
 * the file or its debug file; tables may be evicted, hence asked each time).
 * A JIT map's names are not the DSO's. */
static inline void set_build_id(const struct symbols *s, const struct dso *d, struct sym_result *out)
{
	out->build_id = NULL;
	out->build_id_len = 0;
	if (d && out->dso == d->path) {
		if (d->ident.build_id_len) {
			out->build_id = d->ident.build_id;
			out->build_id_len = d->ident.build_id_len;
		} else if (d->tab && d->tab->build_id_len) {
			out->build_id = d->tab->build_id;
			out->build_id_len = d->tab->build_id_len;
		}
	} else if (out->dso == symbols_kernel_dso && s->kern.build_id_len) {
		out->build_id = s->kern.build_id;
		out->build_id_len = s->kern.build_id_len;
	}
}

static inline void cache_out(struct symbols *s, const struct cache_entry *e, struct sym_result *out)
{
	out->sym = e->sym;
	out->dso = e->dso;
	out->key = e->key;
	out->sym_start = e->start;
	out->sym_size = e->size;
	out->sym_off = e->off;
	if (e->d)
		e->d->last_hit = s->pt.epoch;
	set_build_id(s, e->d, out);
}

/* True when the result is one the cache holds (or now keeps): it stays
 * what this address resolves to while symbols_tag(pid) does. False for
 * code of no file (held for this interval only) and what cannot be kept. */
static inline bool resolve(struct symbols *s, pid_t pid, pid_t tid, uint64_t ip, bool kernel,
			   struct sym_result *out)
{
	/* Known, or read from /proc once (which may move the generation on). */
	struct proctab_proc *p = proctab_task(&s->pt, pid);
	struct proctab_thread *t = p && tid != pid ? proctab_task_thread(&s->pt, p, tid) : NULL;
	int32_t cpid = kernel ? -1 : pid;
	uint32_t tag = kernel ? PROCTAB_GEN_KERNEL | s->kern.gen : proctab_gen(&s->pt, pid);
	uint64_t h = slot_hash(cpid, ip);
	struct cache_entry *e = &s->cache[h >> (64 - CACHE_BITS)], *v;
	struct symbols_lookup l;

	out->kernel = kernel;
	out->comm = pid == 0 ? "swapper" : p && p->task.comm[0] ? p->task.comm : NULL;
	out->thread_comm = t && t->task.comm[0] ? t->task.comm : out->comm;
	if (e->ip == ip && e->pid == cpid && e->tag == tag) {
		cache_out(s, e, out);
		return true;
	}
	v = s->ivcache && s->ivcache_epoch == s->pt.epoch ? &s->ivcache[h >> (64 - IVCACHE_BITS)] : NULL;
	if (v && v->ip == ip && v->pid == cpid && v->tag == tag) {
		cache_out(s, v, out);
		return false;
	}
	if (!kernel)
		l = symbols_user_resolve(&s->user, p, ip);
	else if (symbols_kernel_resolve(&s->kern, ip, s->pt.epoch, &l))
		s->ver++; /* a whole read found new tables */
	out->sym = l.sym;
	out->dso = l.dso;
	out->key = l.key;
	out->sym_start = l.start;
	out->sym_size = l.size;
	out->sym_off = l.off;
	set_build_id(s, l.d, out);
	/* Resolving may have read /proc and moved the generation on. Code of
	 * no file is kept for the rest of the interval only (a JIT map is
	 * looked for once an interval): frame-pointer chains through code
	 * built without them end in such addresses, and each was resolved
	 * afresh at every sample, its whole chain with it. */
	if (l.nocache) {
		if ((v = ivcache_slot(s, h)) != NULL)
			*v = (struct cache_entry){ .ip = ip, .pid = cpid,
						   .tag = kernel ? tag : proctab_gen(&s->pt, pid), .sym = l.sym,
						   .dso = l.dso, .key = l.key, .d = l.d, .start = l.start,
						   .size = l.size, .off = l.off };
		return false;
	}
	*e = (struct cache_entry){ .ip = ip, .pid = cpid, .tag = kernel ? tag : proctab_gen(&s->pt, pid),
				   .sym = l.sym, .dso = l.dso, .key = l.key, .d = l.d, .start = l.start,
				   .size = l.size, .off = l.off };
	return true;
}

void symbols_resolve_thread(struct symbols *s, pid_t pid, pid_t tid, uint64_t ip, bool kernel,
			    struct sym_result *out)
{
	resolve(s, pid, tid, ip, kernel, out);
}

uint64_t symbols_resolve_tagged(struct symbols *s, pid_t pid, pid_t tid, uint64_t ip, bool kernel,
				struct sym_result *out)
{
	/* Resolving may have read /proc: the tag after it is the one that holds. */
	return resolve(s, pid, tid, ip, kernel, out) ? symbols_tag(s, pid) : 0;
}

uint64_t symbols_tag(const struct symbols *s, pid_t pid)
{
	return (uint64_t)s->ver << 32 | proctab_gen(&s->pt, pid);
}

void symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel, struct sym_result *out)
{
	resolve(s, pid, pid, ip, kernel, out);
}

/* Each frame on its own; the leaf (frame 0) names the thread too. True
 * when every frame holds beyond this interval (resolve). */
static bool resolve_each(struct symbols *s, pid_t pid, pid_t tid, const uint64_t *addrs, const uint64_t *kmask,
			 size_t n, struct sym_result *out)
{
	bool lasting = true;

	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		lasting &= resolve(s, pid, i ? pid : tid, addrs[i], kmask[i / 64] >> (i % 64) & 1, &out[i]);
	}
	return lasting;
}

void symbols_set_chain_rate(struct symbols *s, uint64_t per_sec)
{
	symbols_chain_set_rate(&s->chains, per_sec);
}

static inline uint64_t chain_tag(const struct symbols *s, pid_t pid)
{
	return (uint64_t)s->kern.gen << 32 | proctab_gen(&s->pt, pid);
}

const struct sym_result *symbols_resolve_chain(struct symbols *s, pid_t pid, pid_t tid, const uint64_t *addrs,
					       const uint64_t *kmask, size_t n, struct sym_result *out)
{
	struct symbols_chain_entry *slot;
	struct symbols_chain_key k;
	struct sym_result *hit;
	struct proctab_proc *p;
	bool lasting;

	if (n == 0 || n > SYMBOLS_CHAIN_MAX) {
		resolve_each(s, pid, tid, addrs, kmask, n, out);
		return out;
	}
	/* As resolve: a process first seen is read from /proc before its generation counts. */
	p = proctab_task(&s->pt, pid);
	symbols_chain_key(&k, pid, addrs, kmask, n, chain_tag(s, pid), s->ver, s->pt.epoch + 1);
	if ((hit = symbols_chain_find(&s->chains, &k, &slot)) != NULL) {
		struct proctab_thread *t = p && tid != pid ? proctab_task_thread(&s->pt, p, tid) : NULL;

		hit[0].comm = pid == 0 ? "swapper" : p && p->task.comm[0] ? p->task.comm : NULL;
		hit[0].thread_comm = t && t->task.comm[0] ? t->task.comm : hit[0].comm;
		return hit;
	}
	/* Kept if nothing moved meanwhile (a first resolve may have read /proc
	 * or a file); for this interval only if a frame holds only that long. */
	lasting = resolve_each(s, pid, tid, addrs, k.kmask, n, out);
	if (k.tag == chain_tag(s, pid))
		symbols_chain_keep(&s->chains, slot, &k, lasting, out);
	return out;
}

int symbols_set_jit_dir(struct symbols *s, const char *dir)
{
	int rc = symbols_user_set_jit_dir(&s->user, dir);

	if (rc == 0)
		s->ver++;
	return rc;
}

void symbols_set_slow_hook(struct symbols *s, void (*fn)(void *), void *arg)
{
	s->pt.slow = fn;
	s->pt.slow_arg = arg;
}

void symbols_set_demangle(struct symbols *s, bool on)
{
	if (s->user.raw_names == !on)
		return;
	s->user.raw_names = !on;
	/* Cached results carry the other form's names. */
	cache_clear(s);
	s->ver++;
}

bool symbols_demangle(const struct symbols *s)
{
	return !s->user.raw_names;
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
	st->tables = s->dsos.ntables + symbols_kernel_tables(&s->kern);
	st->symbols = s->dsos.nsyms + symbols_kernel_symbols(&s->kern);
	st->kernel_cached = s->kern.cached;
	st->tables_cached = s->dsos.ncached;
	st->kernel_reloads = s->kern.reloads;
	st->table_bytes = s->dsos.table_bytes;
	st->table_limit = s->table_limit;
	st->evicted = s->dsos.nevicted;
	st->evicted_idle = s->dsos.nevicted_idle;
	st->chain_hits = s->chains.hits;
	st->chain_misses = s->chains.misses;
	st->bytes = sizeof(*s) + ((size_t)1 << CACHE_BITS) * sizeof(*s->cache) +
		    (s->ivcache ? ((size_t)1 << IVCACHE_BITS) * sizeof(*s->ivcache) : 0) + s->dsos.table_bytes +
		    s->dsos.other_bytes + s->pt.bytes + s->user.anon_bytes + s->user.jit_bytes +
		    symbols_kernel_bytes(&s->kern) + symbols_chain_bytes(&s->chains);
}

bool symbols_map_at(struct symbols *s, pid_t pid, uint64_t addr, char *path, size_t len,
		    uint64_t *start, uint64_t *end, uint64_t *pgoff)
{
	/* The unwinder may ask before a resolve did: a first sample reads /proc. */
	struct proctab_proc *p = proctab_task(&s->pt, pid);
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

uint32_t symbols_maps_gen(const struct symbols *s, pid_t pid)
{
	return proctab_gen(&s->pt, pid);
}

bool symbols_map_dso(struct symbols *s, pid_t pid, uint64_t addr, uint32_t *dso_id, uint64_t *off, bool *vdso)
{
	struct proctab_proc *p = proctab_task(&s->pt, pid);
	const struct proctab_map *m = p ? proctab_map_find(p, addr) : NULL;

	if (m == NULL || m->dso == NULL || m->dso->path == NULL)
		return false;
	*vdso = m->dso->kind == DSO_VDSO;
	if (m->dso->path[0] != '/' && !*vdso)
		return false;
	*dso_id = m->dso->id;
	*off = addr - m->start + m->pgoff;
	return true;
}
