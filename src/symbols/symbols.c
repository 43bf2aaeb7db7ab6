/* symbols: the resolver. An address of a task becomes a symbol through a
 * direct-mapped cache in front of the process table's maps (proctab.c) and
 * the DSOs' tables; code in no file gets a JIT map's name or an
 * anonymous-code label. */
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "demangle.h"
#include "dso.h"
#include "elfsym.h"
#include "kallsyms.h"
#include "cachedir.h"
#include "kcache.h"
#include "perfmap.h"
#include "proctab.h"
#include "util.h"

#define CACHE_BITS 12
#define IVCACHE_BITS 9      /* results that hold for one interval (code of no file) */
#define ANON_BITS 10        /* buckets of anonymous-code labels */
#define ANON_MAX 65536      /* labels kept; beyond, [unknown] in its mapping */
#define ANON_PAGE 4096
#define KRELOAD_GAP_MAX 64  /* intervals between whole kallsyms reads that find nothing */

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

/* A whole callchain's frames (-g), by its addresses as resolved (return
 * addresses already less one, the leaf fix applied) and their modes: a
 * repeated stack costs one lookup instead of one resolve per frame. Valid
 * while the pid's maps (its generation), the kernel's tables (kgen) and
 * ver (see struct symbols) are those it was resolved under. */
#define CHAIN_BITS_MIN 10  /* the chain cache's slots, as 1 << bits (symbols_set_chain_rate) */
#define CHAIN_BITS_MAX 12
#define CHAIN_MAX 128       /* longer stacks are resolved frame by frame */

struct chain_entry {
	uint64_t hash;
	uint64_t tag;       /* kgen << 32 | the pid slot's generation */
	uint32_t ver;
	int32_t pid;
	uint16_t n, cap;
	uint32_t until;     /* 0: while tag and ver hold; else only in that interval (epoch + 1) */
	uint64_t kmask[CHAIN_MAX / 64];
	uint64_t *addrs;    /* cap of them, then cap frames, in one block */
	struct sym_result *frames;
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
	bool nocache;       /* code of no file: a JIT map may name it by the next interval */
};

struct symbols {
	char *proc_root, *kallsyms_path;
	char *kcache_dir, *notes_path, *modules_path;
	struct kallsyms *ks;
	/* What whole reads found since ks: modules loaded later, BPF programs. */
	struct kallsyms *kextra;
	unsigned kreload_next, kreload_gap; /* epochs: when a miss may read again */
	size_t kreloads;
	bool kcached;
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
	struct cache_entry *ivcache; /* 1 << IVCACHE_BITS, NULL until needed; valid in ivcache_epoch */
	unsigned ivcache_epoch;
	struct chain_entry *chains; /* 1 << chain_bits, NULL until the first stack */
	unsigned chain_bits;
	/* What a remembered resolve holds under besides its pid's maps
	 * (symbols_tag): bumped when tables are evicted and in the interval
	 * before an eviction may look (each entry resolves again, which keeps
	 * its table's last_hit fresh), at a kernel table change, a switch of
	 * names. */
	uint32_t ver;
	bool hits_fresh;           /* ver moved at the last reap: last_hit says what was hit */
	uint64_t chain_hits, chain_misses;
	void (*slow)(void *);      /* symbols_set_slow_hook */
	void *slow_arg;
	size_t chain_bytes;
	char notice[256];
	uint8_t kbuild_id[BUILDID_MAX];  /* the running kernel's, from /sys/kernel/notes */
	size_t kbuild_id_len;
	/* Their addresses are the keys of the unresolved. */
	char unknown_all, unknown_kernel;
};

static const char UNKNOWN[] = "[unknown]";
static const char KERNEL_DSO[] = "[kernel.kallsyms]";

static void chains_free(struct symbols *s);

struct symbols *symbols_new(const struct symbols_opts *opts)
{
	struct symbols *s = calloc(1, sizeof(*s));
	bool dsos = false;

	if (s == NULL)
		return NULL;
	s->proc_root = strdup(opts && opts->proc_root ? opts->proc_root : "/proc");
	s->kallsyms_path = strdup(opts && opts->kallsyms_path ? opts->kallsyms_path : "/proc/kallsyms");
	s->cache = calloc((size_t)1 << CACHE_BITS, sizeof(*s->cache));
	s->chain_bits = CHAIN_BITS_MIN;
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

int symbols_cache_dir(char *buf, size_t len)
{
	return cachedir_path(buf, len);
}

int symbols_set_kcache(struct symbols *s, const char *dir, const char *notes_path, const char *modules_path)
{
	char *d = strdup(dir), *n = strdup(notes_path ? notes_path : "/sys/kernel/notes");
	char *m = strdup(modules_path ? modules_path : "/proc/modules");

	if (d == NULL || n == NULL || m == NULL) {
		free(d);
		free(n);
		free(m);
		return -ENOMEM;
	}
	free(s->kcache_dir);
	free(s->notes_path);
	free(s->modules_path);
	s->kcache_dir = d;
	s->notes_path = n;
	s->modules_path = m;
	return 0;
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
	kallsyms_free(s->kextra);
	free(s->cache);
	free(s->ivcache);
	chains_free(s);
	free(s->kcache_dir);
	free(s->notes_path);
	free(s->modules_path);
	free(s->kallsyms_path);
	free(s->proc_root);
	free(s);
}

/* As perf does: the notes the kernel exports of its own image. Unreadable
 * (a container without /sys) is no error: profiles then carry none. */
static void kernel_build_id(struct symbols *s)
{
	int fd = open(s->notes_path ? s->notes_path : "/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	int n = fd >= 0 ? buildid_read_notes(fd, s->kbuild_id) : 0;

	if (fd >= 0)
		close(fd);
	s->kbuild_id_len = n > 0 ? (size_t)n : 0;
}

/* A table whose symbols' addresses were handed out as keys: kept, so that
 * no later table's symbol gets the same key. */
static int retire(struct symbols *s, struct kallsyms *ks)
{
	struct kallsyms **r = reallocarray(s->retired, s->nretired + 1, sizeof(*r));

	if (r == NULL)
		return -ENOMEM;
	s->retired = r;
	s->retired[s->nretired++] = ks;
	return 0;
}

/* The kernel's table: the cache's when it is of this kernel as we see it,
 * else kallsyms read whole, then cached. */
static int kernel_table(struct symbols *s, struct kallsyms **out)
{
	struct kcache_modules before = { 0 }, after = { 0 };
	struct kcache_key key;
	bool store = false;
	int rc;

	s->kcached = false;
	if (s->kcache_dir == NULL)
		return kallsyms_load(out, s->kallsyms_path);
	rc = kcache_key_read(&key, s->notes_path, s->kallsyms_path);
	if (rc == 0 && key.restricted) {
		/* One view for the whole file: its first addresses read 0, so
		 * do all; nothing worth having the kernel format. */
		if ((*out = calloc(1, sizeof(**out))) == NULL)
			return -ENOMEM;
		(*out)->restricted = true;
		return 0;
	}
	if (rc == 0 && key.build_id_len && kcache_modules_read(&before, s->modules_path) == 0) {
		if (kcache_load(out, s->kcache_dir, &key, &before) == 0) {
			s->kcached = true;
			goto out;
		}
		store = true;
	}
	rc = kallsyms_load(out, s->kallsyms_path);
	/* A module loaded or unloaded meanwhile may or may not be in the text
	 * read: cached next time. A cache we cannot write costs only time. */
	if (rc == 0 && store && !(*out)->restricted && kcache_modules_read(&after, s->modules_path) == 0 &&
	    kcache_modules_equal(&before, &after))
		kcache_store(*out, s->kcache_dir, &key, &after);
out:
	kcache_modules_free(&before);
	kcache_modules_free(&after);
	return rc;
}

int symbols_load_kernel(struct symbols *s)
{
	struct kallsyms *ks;
	int rc = kernel_table(s, &ks);

	if (rc) {
		snprintf(s->notice, sizeof(s->notice), "cannot read %s (%s): kernel samples show as [unknown]",
			 s->kallsyms_path, strerror(-rc));
		return rc;
	}
	if (s->ks && retire(s, s->ks) != 0) {
		kallsyms_free(ks);
		return -ENOMEM;
	}
	if (s->kextra && retire(s, s->kextra) != 0) {
		s->ks = NULL;
		kallsyms_free(ks);
		return -ENOMEM;
	}
	s->ks = ks;
	s->kextra = NULL;
	s->kgen = (s->kgen + 1) & ~PROCTAB_GEN_KERNEL;
	s->ver++;
	kernel_build_id(s);
	/* Just read whole: the next whole read waits an interval. */
	s->kreload_gap = 1;
	s->kreload_next = s->pt.epoch + (s->kcached ? 0 : 1);
	if (ks->restricted)
		snprintf(s->notice, sizeof(s->notice), "kernel addresses are hidden (kernel.kptr_restrict): "
			 "kernel samples show as [unknown]; run as root with kptr_restrict=0");
	else if (ks->nsyms == 0)
		snprintf(s->notice, sizeof(s->notice), "no kernel text symbols in %s", s->kallsyms_path);
	else
		s->notice[0] = '\0';
	return 0;
}

/* A kernel sample where no symbol is known: kallsyms read whole, and what
 * is new since the table we have becomes the extra table. Read again an
 * interval later if that found something, else after twice the wait, so
 * that an address no read ever names (a hole, a BPF program without
 * bpf_jit_kallsyms) costs little. True when the tables changed. */
static bool kernel_reload(struct symbols *s)
{
	struct kallsyms *extra = NULL;
	bool changed = false;

	s->kreloads++;
	if (kallsyms_load_since(&extra, s->kallsyms_path, s->ks) == 0 && !extra->restricted &&
	    !(s->kextra ? kallsyms_same(extra, s->kextra) : extra->nsyms == 0) &&
	    (s->kextra == NULL || retire(s, s->kextra) == 0)) {
		s->kextra = extra;
		extra = NULL;
		s->kgen = (s->kgen + 1) & ~PROCTAB_GEN_KERNEL;
		s->ver++;
		changed = true;
	}
	kallsyms_free(extra);
	s->kreload_gap = changed ? 1 : s->kreload_gap * 2 > KRELOAD_GAP_MAX ? KRELOAD_GAP_MAX : s->kreload_gap * 2;
	s->kreload_next = s->pt.epoch + s->kreload_gap;
	return changed;
}

const char *symbols_notice(const struct symbols *s)
{
	return s->notice[0] ? s->notice : NULL;
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

/* Of the table read first and what later reads added, the symbol that
 * starts nearer below ip; at a tie the later read's. */
static const struct kallsyms_sym *kernel_find(const struct symbols *s, uint64_t ip, const struct kallsyms **in)
{
	const struct kallsyms_sym *k = s->ks ? kallsyms_find(s->ks, ip) : NULL;
	const struct kallsyms_sym *x = s->kextra ? kallsyms_find(s->kextra, ip) : NULL;

	*in = x && (k == NULL || x->addr >= k->addr) ? s->kextra : s->ks;
	return *in == s->kextra ? x : k;
}

static struct lookup resolve_kernel(struct symbols *s, uint64_t ip)
{
	const struct kallsyms *t;
	const struct kallsyms_sym *k = kernel_find(s, ip, &t);
	const char *mod;

	if (k == NULL && s->ks && !s->ks->restricted && s->pt.epoch >= s->kreload_next && kernel_reload(s))
		k = kernel_find(s, ip, &t);
	/* Not cached: a later whole read may name it. */
	if (k == NULL)
		return (struct lookup){ .sym = UNKNOWN, .dso = KERNEL_DSO,
					.key = (uint64_t)(uintptr_t)&s->unknown_kernel, .nocache = true };
	mod = kallsyms_module(t, k);
	return (struct lookup){ .sym = kallsyms_name(t, k), .dso = mod ? mod : KERNEL_DSO,
				.key = (uint64_t)(uintptr_t)k };
}

/* Before work that may take long: the engine hands its rings back. */
static void slow(struct symbols *s)
{
	if (s->slow)
		s->slow(s->slow_arg);
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
	slow(s);
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
	if (m && !(d = m->dso)->loaded) {
		slow(s);
		dso_load(&s->dsos, d, p->pid, m->start, m->end);
	}
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
	} else if (out->dso == KERNEL_DSO && s->kbuild_id_len) {
		out->build_id = s->kbuild_id;
		out->build_id_len = s->kbuild_id_len;
	}
}

static inline void cache_out(struct symbols *s, const struct cache_entry *e, struct sym_result *out)
{
	out->sym = e->sym;
	out->dso = e->dso;
	out->key = e->key;
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
	uint32_t tag = kernel ? PROCTAB_GEN_KERNEL | s->kgen : proctab_gen(&s->pt, pid);
	uint64_t h = slot_hash(cpid, ip);
	struct cache_entry *e = &s->cache[h >> (64 - CACHE_BITS)], *v;
	struct lookup l;

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
	l = kernel ? resolve_kernel(s, ip) : resolve_user(s, p, ip);
	out->sym = l.sym;
	out->dso = l.dso;
	out->key = l.key;
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
						   .dso = l.dso, .key = l.key, .d = l.d };
		return false;
	}
	*e = (struct cache_entry){ .ip = ip, .pid = cpid, .tag = kernel ? tag : proctab_gen(&s->pt, pid),
				   .sym = l.sym, .dso = l.dso, .key = l.key, .d = l.d };
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

static inline uint64_t chain_hash(pid_t pid, const uint64_t *addrs, const uint64_t *kmask, size_t n)
{
	uint64_t h = (uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ull ^ n;

	for (size_t i = 0; i < n; i++)
		h = (h ^ addrs[i]) * 0xff51afd7ed558ccdull;
	for (size_t i = 0; i < (n + 63) / 64; i++)
		h = (h ^ kmask[i]) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

static void chains_free(struct symbols *s)
{
	for (size_t i = 0; s->chains && i < ((size_t)1 << s->chain_bits); i++)
		free(s->chains[i].addrs);
	free(s->chains);
	s->chains = NULL;
	s->chain_bytes = 0;
}

void symbols_set_chain_rate(struct symbols *s, uint64_t per_sec)
{
	unsigned bits = CHAIN_BITS_MIN;

	/* Distinct stacks an interval grow with the samples: beside perf top
	 * -g at 20 kHz on 2 CPUs, 1 024 slots had 35 000 chains in 10 s
	 * resolved frame by frame again, 4 096 20 000. */
	while (bits < CHAIN_BITS_MAX && per_sec > ((uint64_t)SYMBOLS_CHAIN_RATE << (bits - CHAIN_BITS_MIN)))
		bits++;
	if (bits == s->chain_bits)
		return;
	chains_free(s); /* a cache: refilled at the new size */
	s->chain_bits = bits;
}

/* Keeps a chain just resolved; nothing when its slot cannot grow. */
static void chain_keep(struct symbols *s, struct chain_entry *e, uint64_t h, uint64_t tag, uint32_t until,
		       pid_t pid, const uint64_t *addrs, const uint64_t *kmask, const struct sym_result *frames,
		       size_t n)
{
	if (e->cap < n) {
		size_t cap = n < 16 ? 16 : n, per = sizeof(*e->addrs) + sizeof(*e->frames);
		uint64_t *blk = s->chain_bytes + (cap - e->cap) * per <= SYMBOLS_CHAIN_BYTES ? malloc(cap * per) : NULL;

		/* Over the bound (deep stacks in every slot), or out of memory:
		 * not kept. */
		if (blk == NULL) {
			e->hash = 0;
			e->n = 0;
			return;
		}
		s->chain_bytes += (cap - e->cap) * per;
		free(e->addrs);
		e->addrs = blk;
		e->frames = (struct sym_result *)(void *)(blk + cap);
		e->cap = (uint16_t)cap;
	}
	e->hash = h;
	e->tag = tag;
	e->ver = s->ver;
	e->until = until;
	e->pid = pid;
	e->n = (uint16_t)n;
	memcpy(e->kmask, kmask, sizeof(e->kmask));
	memcpy(e->addrs, addrs, n * sizeof(*addrs));
	memcpy(e->frames, frames, n * sizeof(*frames));
	/* The task's names are taken afresh at each hit, on frames[0]. */
	for (size_t i = 0; i < n; i++)
		e->frames[i].comm = e->frames[i].thread_comm = NULL;
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

const struct sym_result *symbols_resolve_chain(struct symbols *s, pid_t pid, pid_t tid, const uint64_t *addrs,
					       const uint64_t *kmask, size_t n, struct sym_result *out)
{
	struct proctab_proc *p;
	struct chain_entry *e;
	uint64_t h, tag;
	uint32_t now1 = s->pt.epoch + 1;
	bool lasting;
	uint64_t km[CHAIN_MAX / 64] = { 0 };

	if (n == 0 || n > CHAIN_MAX ||
	    (s->chains == NULL && (s->chains = calloc((size_t)1 << s->chain_bits, sizeof(*s->chains))) == NULL))
		goto out_resolve;
	/* As resolve: a process first seen is read from /proc before its generation counts. */
	p = proctab_task(&s->pt, pid);
	memcpy(km, kmask, (n + 63) / 64 * sizeof(*km));
	if (n % 64)
		km[n / 64] &= (1ull << (n % 64)) - 1;
	tag = (uint64_t)s->kgen << 32 | proctab_gen(&s->pt, pid);
	h = chain_hash(pid, addrs, km, n);
	e = &s->chains[h >> (64 - s->chain_bits)];
	if (e->hash == h && e->n == n && e->pid == pid && e->tag == tag && e->ver == s->ver &&
	    (e->until == 0 || e->until == now1) && memcmp(e->kmask, km, sizeof(km)) == 0 &&
	    memcmp(e->addrs, addrs, n * sizeof(*addrs)) == 0) {
		struct proctab_thread *t = p && tid != pid ? proctab_task_thread(&s->pt, p, tid) : NULL;

		s->chain_hits++;
		e->frames[0].comm = pid == 0 ? "swapper" : p && p->task.comm[0] ? p->task.comm : NULL;
		e->frames[0].thread_comm = t && t->task.comm[0] ? t->task.comm : e->frames[0].comm;
		return e->frames;
	}
	s->chain_misses++;
	lasting = resolve_each(s, pid, tid, addrs, km, n, out);
	/* Kept if nothing moved meanwhile (a first resolve may have read /proc
	 * or a file); for this interval only if a frame holds only that long. */
	if (tag == ((uint64_t)s->kgen << 32 | proctab_gen(&s->pt, pid)))
		chain_keep(s, e, h, tag, lasting ? 0 : now1, pid, addrs, km, out, n);
	return out;
out_resolve:
	resolve_each(s, pid, tid, addrs, kmask, n, out);
	return out;
}

int symbols_set_jit_dir(struct symbols *s, const char *dir)
{
	char *d = strdup(dir);

	if (d == NULL)
		return -ENOMEM;
	free(s->jit_dir);
	s->jit_dir = d;
	s->ver++;
	return 0;
}

void symbols_set_slow_hook(struct symbols *s, void (*fn)(void *), void *arg)
{
	s->slow = fn;
	s->slow_arg = arg;
	s->pt.slow = fn;
	s->pt.slow_arg = arg;
}

void symbols_set_demangle(struct symbols *s, bool on)
{
	if (s->raw_names == !on)
		return;
	s->raw_names = !on;
	/* Cached results carry the other form's names. */
	cache_clear(s);
	s->ver++;
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
	st->tables = s->dsos.ntables + (s->ks != NULL) + (s->kextra != NULL);
	st->symbols = s->dsos.nsyms + (s->ks ? s->ks->nsyms : 0) + (s->kextra ? s->kextra->nsyms : 0);
	st->kernel_cached = s->kcached;
	st->tables_cached = s->dsos.ncached;
	st->kernel_reloads = s->kreloads;
	st->table_bytes = s->dsos.table_bytes;
	st->table_limit = s->table_limit;
	st->evicted = s->dsos.nevicted;
	st->evicted_idle = s->dsos.nevicted_idle;
	st->chain_hits = s->chain_hits;
	st->chain_misses = s->chain_misses;
	st->bytes = sizeof(*s) + ((size_t)1 << CACHE_BITS) * sizeof(*s->cache) +
		    (s->ivcache ? ((size_t)1 << IVCACHE_BITS) * sizeof(*s->ivcache) : 0) + s->dsos.table_bytes +
		    s->dsos.other_bytes + s->pt.bytes + s->anon_bytes + s->jit_bytes + kallsyms_bytes(s->ks) +
		    kallsyms_bytes(s->kextra) + s->chain_bytes +
		    (s->chains ? ((size_t)1 << s->chain_bits) * sizeof(*s->chains) : 0);
	for (size_t i = 0; i < s->nretired; i++)
		st->bytes += kallsyms_bytes(s->retired[i]);
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
