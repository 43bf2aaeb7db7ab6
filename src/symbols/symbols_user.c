/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols_user: process addresses for the resolver (symbols.c). */
#include "symbols_user.h"

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
#include "perfmap.h"
#include "proctab.h"
#include "util.h"

#define ANON_BITS 10        /* buckets of anonymous-code labels */
#define ANON_MAX 65536      /* labels kept; beyond, [unknown] in its mapping */
#define ANON_PAGE 4096

/* A label of anonymous code; never freed before symbols_free: its name is
 * handed out and its address is a key. */
struct symbols_anon {
	struct symbols_anon *next;
	pid_t pid;
	uint64_t start, page;
	char name[32];
};

int symbols_user_init(struct symbols_user *u, struct proctab *pt, struct dso_set *dsos)
{
	*u = (struct symbols_user){ .pt = pt, .dsos = dsos };
	u->jit_dir = strdup("/tmp");
	return u->jit_dir ? 0 : -ENOMEM;
}

void symbols_user_free(struct symbols_user *u)
{
	for (size_t i = 0; u->anon && i < ((size_t)1 << ANON_BITS); i++)
		for (struct symbols_anon *a = u->anon[i], *an; a; a = an) {
			an = a->next;
			free(a);
		}
	free(u->anon);
	free(u->jit_dir);
	u->anon = NULL;
	u->jit_dir = NULL;
}

int symbols_user_set_jit_dir(struct symbols_user *u, const char *dir)
{
	char *d = strdup(dir);

	if (d == NULL)
		return -ENOMEM;
	free(u->jit_dir);
	u->jit_dir = d;
	return 0;
}

/* Before work that may take long: the engine hands its rings back. */
static void slow(struct symbols_user *u)
{
	if (u->pt->slow)
		u->pt->slow(u->pt->slow_arg);
}

/* Code in no file: a JIT's, if it wrote /tmp/perf-PID.map. Looked for (and
 * re-read, as it grows) at most once per interval per process, and only on
 * a miss, so unresolved samples cost no system call each. */
static const struct perfmap_sym *jit_find(struct symbols_user *u, struct proctab_proc *p, uint64_t ip)
{
	const struct perfmap_sym *sym = p->jit ? perfmap_find(&p->jit->pm, ip) : NULL;
	char path[PATH_MAX];
	struct stat st;
	int rc;

	if (sym || p->jit_checked == u->pt->epoch + 1 || p->task.exited)
		return sym;
	p->jit_checked = u->pt->epoch + 1;
	if (util_pathf(path, sizeof(path), "%s/%d", u->pt->proc_root, (int)p->pid) != 0 || stat(path, &st) != 0 ||
	    util_pathf(path, sizeof(path), "%s/perf-%d.map", u->jit_dir, (int)p->pid) != 0)
		return NULL;
	if (p->jit == NULL) {
		if (access(path, F_OK) != 0 || (p->jit = calloc(1, sizeof(*p->jit))) == NULL)
			return NULL;
		snprintf(p->jit->dso, sizeof(p->jit->dso), "perf-%d.map", (int)p->pid);
	}
	/* Owned by the process's user (its /proc entry's) or root. */
	slow(u);
	rc = perfmap_refresh(&p->jit->pm, path, st.st_uid);
	u->jit_bytes -= p->jit->bytes;
	p->jit->bytes = perfmap_bytes(&p->jit->pm);
	u->jit_bytes += p->jit->bytes;
	if (rc > 0)
		proctab_changed(u->pt, p->pid); /* cached misses may now resolve */
	return perfmap_find(&p->jit->pm, ip);
}

/* Keys of ELF symbols: a tag no pointer has (user space is below bit 63),
 * the naming form, the DSO's id and the symbol's index, so that a table
 * evicted and read again gives its symbols the same keys. */
#define KEY_ELF (1ull << 63)
#define KEY_RAW (1ull << 62)

static uint64_t sym_key(const struct symbols_user *u, const struct dso *d, const struct elfsym *t,
			const struct elfsym_sym *sym)
{
	/* Only names the switch changes change keys with it. */
	bool raw = u->raw_names && demangle_candidate(elfsym_name(t, sym));

	return KEY_ELF | (raw ? KEY_RAW : 0) | (uint64_t)(d->id & 0x3fffffff) << 32 | (uint64_t)(sym - t->syms);
}

static const char *sym_name(struct symbols_user *u, struct elfsym *t, const struct elfsym_sym *sym)
{
	size_t before = t->dnames_bytes;
	const char *name;

	if (u->raw_names)
		return elfsym_name(t, sym);
	name = elfsym_demangled(t, sym);
	u->dsos->table_bytes += t->dnames_bytes - before;
	return name;
}

static inline uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Code in no file that no JIT map names: grouped per process, mapping and
 * page ("[anon]+0x3000"), so that a hot JIT region still stands out. */
static void resolve_anon(struct symbols_user *u, const struct proctab_proc *p, const struct proctab_map *m,
			 uint64_t ip, struct symbols_lookup *out)
{
	uint64_t page = (ip - m->start) & ~(uint64_t)(ANON_PAGE - 1);
	size_t b = (size_t)(((uint64_t)(uint32_t)p->pid * 0x9e3779b97f4a7c15ull ^ m->start ^ page) *
			    0xc2b2ae3d27d4eb4full >> (64 - ANON_BITS));
	struct symbols_anon *a;

	if (u->anon == NULL && (u->anon = calloc((size_t)1 << ANON_BITS, sizeof(*u->anon))) == NULL)
		goto out_unknown;
	for (a = u->anon[b]; a; a = a->next)
		if (a->pid == p->pid && a->start == m->start && a->page == page)
			goto out_found;
	if (u->nanon >= ANON_MAX || (a = malloc(sizeof(*a))) == NULL)
		goto out_unknown;
	a->pid = p->pid;
	a->start = m->start;
	a->page = page;
	snprintf(a->name, sizeof(a->name), "[anon]+0x%" PRIx64, page);
	a->next = u->anon[b];
	u->anon[b] = a;
	u->nanon++;
	u->anon_bytes += sizeof(*a);
out_found:
	out->sym = a->name;
	out->key = (uint64_t)(uintptr_t)a;
	/* The label's page, in the process's addresses (no file has them). */
	out->start = m->start + page;
	out->size = ANON_PAGE;
	out->off = (uint32_t)(ip - out->start);
	return;
out_unknown:
	out->sym = SYMBOLS_UNKNOWN;
	out->key = (uint64_t)(uintptr_t)m->dso | 1;
}

struct symbols_lookup symbols_user_resolve(struct symbols_user *u, struct proctab_proc *p, uint64_t ip)
{
	struct symbols_lookup l = { .sym = SYMBOLS_UNKNOWN, .dso = SYMBOLS_UNKNOWN,
				    .key = (uint64_t)(uintptr_t)&u->unknown };
	const struct elfsym_sym *sym = NULL;
	const struct perfmap_sym *jsym;
	const struct proctab_map *m = NULL;
	struct dso *d = NULL;
	uint64_t vaddr;

	if (p)
		m = proctab_map_find(p, ip);
	if (m == NULL && p && !p->complete && !p->task.exited && proctab_fill(u->pt, p) == 0)
		m = proctab_map_find(p, ip);
	if (m && !(d = m->dso)->loaded) {
		slow(u);
		dso_load(u->dsos, d, p->pid, m->start, m->end);
	}
	if (d) {
		d->last_hit = u->pt->epoch;
		l.d = d;
	}
	/* A miss in code of no file (or in a memfd that is no ELF) is not
	 * cached: the JIT map may name it by the next interval (jit_find
	 * keeps that cheap). */
	if (p && (d == NULL || d->kind == DSO_NONE || (d->kind == DSO_MEMFD && d->tab == NULL))) {
		if ((jsym = jit_find(u, p, ip)) != NULL)
			return (struct symbols_lookup){ .sym = jsym->name, .dso = p->jit->dso,
							.key = (uint64_t)(uintptr_t)jsym->name, .d = l.d,
							.start = jsym->addr, .size = clamp32(jsym->size),
							.off = clamp32(ip - jsym->addr) };
		l.nocache = true;
	}
	if (m == NULL)
		return l;
	if (d->tab && elfsym_offset_to_vaddr(d->tab, ip - m->start + m->pgoff, &vaddr))
		sym = elfsym_find(d->tab, vaddr);
	l.dso = d->path;
	if (sym) {
		l.sym = sym_name(u, d->tab, sym);
		l.key = sym_key(u, d, d->tab, sym);
		l.start = sym->addr;
		l.size = sym->size;
		l.off = clamp32(vaddr - sym->addr);
	} else if (d->tab == NULL && (d->kind == DSO_NONE || d->kind == DSO_MEMFD)) {
		resolve_anon(u, p, m, ip, &l);
	} else {
		l.key = (uint64_t)(uintptr_t)d | 1;
	}
	return l;
}
