/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols_kernel: the kernel's symbols for the resolver (symbols.c). */
#include "symbols_kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kallsyms.h"
#include "kcache.h"
#include "proctab.h"

#define RELOAD_GAP_MAX 64  /* intervals between whole kallsyms reads that find nothing */

const char symbols_kernel_dso[] = "[kernel.kallsyms]";

/* The kernel cache's paths, which symbols_kernel_set_cache replaces. */
static void free_paths(struct symbols_kernel *k)
{
	free(k->cache_dir);
	free(k->notes_path);
	free(k->modules_path);
}

int symbols_kernel_init(struct symbols_kernel *k, const char *kallsyms_path)
{
	*k = (struct symbols_kernel){ 0 };
	k->kallsyms_path = strdup(kallsyms_path);
	return k->kallsyms_path ? 0 : -ENOMEM;
}

void symbols_kernel_free(struct symbols_kernel *k)
{
	for (size_t i = 0; i < k->nretired; i++)
		kallsyms_free(k->retired[i]);
	free(k->retired);
	kallsyms_free(k->ks);
	kallsyms_free(k->extra);
	free_paths(k);
	free(k->kallsyms_path);
	*k = (struct symbols_kernel){ 0 };
}

int symbols_kernel_set_cache(struct symbols_kernel *k, const char *dir, const char *notes_path,
			     const char *modules_path)
{
	char *d = strdup(dir), *n = strdup(notes_path ? notes_path : "/sys/kernel/notes");
	char *m = strdup(modules_path ? modules_path : "/proc/modules");

	if (d == NULL || n == NULL || m == NULL) {
		free(d);
		free(n);
		free(m);
		return -ENOMEM;
	}
	free_paths(k);
	k->cache_dir = d;
	k->notes_path = n;
	k->modules_path = m;
	return 0;
}

/* As perf does: the notes the kernel exports of its own image. Unreadable
 * (a container without /sys) is no error: profiles then carry none. */
static void kernel_build_id(struct symbols_kernel *k)
{
	int fd = open(k->notes_path ? k->notes_path : "/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	int n = fd >= 0 ? buildid_read_notes(fd, k->build_id) : 0;

	if (fd >= 0)
		close(fd);
	k->build_id_len = n > 0 ? (size_t)n : 0;
}

/* A table whose symbols' addresses were handed out as keys: kept, so that
 * no later table's symbol gets the same key. */
static int retire(struct symbols_kernel *k, struct kallsyms *ks)
{
	struct kallsyms **r = reallocarray(k->retired, k->nretired + 1, sizeof(*r));

	if (r == NULL)
		return -ENOMEM;
	k->retired = r;
	k->retired[k->nretired++] = ks;
	return 0;
}

/* The kernel's table: the cache's when it is of this kernel as we see it,
 * else kallsyms read whole, then cached. */
static int kernel_table(struct symbols_kernel *k, struct kallsyms **out)
{
	struct kcache_modules before = { 0 }, after = { 0 };
	struct kcache_key key;
	bool store = false;
	int rc;

	k->cached = false;
	if (k->cache_dir == NULL)
		return kallsyms_load(out, k->kallsyms_path);
	rc = kcache_key_read(&key, k->notes_path, k->kallsyms_path);
	if (rc == 0 && key.restricted) {
		/* One view for the whole file: its first addresses read 0, so
		 * do all; nothing worth having the kernel format. */
		if ((*out = calloc(1, sizeof(**out))) == NULL)
			return -ENOMEM;
		(*out)->restricted = true;
		return 0;
	}
	if (rc == 0 && key.build_id_len && kcache_modules_read(&before, k->modules_path) == 0) {
		if (kcache_load(out, k->cache_dir, &key, &before) == 0) {
			k->cached = true;
			goto out;
		}
		store = true;
	}
	rc = kallsyms_load(out, k->kallsyms_path);
	/* A module loaded or unloaded meanwhile may or may not be in the text
	 * read: cached next time. A cache we cannot write costs only time. */
	if (rc == 0 && store && !(*out)->restricted && kcache_modules_read(&after, k->modules_path) == 0 &&
	    kcache_modules_equal(&before, &after))
		kcache_store(*out, k->cache_dir, &key, &after);
out:
	kcache_modules_free(&before);
	kcache_modules_free(&after);
	return rc;
}

static void next_gen(struct symbols_kernel *k)
{
	k->gen = (k->gen + 1) & ~PROCTAB_GEN_KERNEL;
}

int symbols_kernel_load(struct symbols_kernel *k, unsigned epoch)
{
	struct kallsyms *ks;
	int rc = kernel_table(k, &ks);

	if (rc) {
		snprintf(k->notice, sizeof(k->notice), "cannot read %s (%s): kernel samples show as [unknown]",
			 k->kallsyms_path, strerror(-rc));
		return rc;
	}
	if (k->ks && retire(k, k->ks) != 0) {
		kallsyms_free(ks);
		return -ENOMEM;
	}
	if (k->extra && retire(k, k->extra) != 0) {
		k->ks = NULL;
		kallsyms_free(ks);
		return -ENOMEM;
	}
	k->ks = ks;
	k->extra = NULL;
	next_gen(k);
	kernel_build_id(k);
	/* Just read whole: the next whole read waits an interval. */
	k->reload_gap = 1;
	k->reload_next = epoch + (k->cached ? 0 : 1);
	if (ks->restricted)
		snprintf(k->notice, sizeof(k->notice), "kernel addresses are hidden (kernel.kptr_restrict): "
			 "kernel samples show as [unknown]; run as root with kptr_restrict=0");
	else if (ks->nsyms == 0)
		snprintf(k->notice, sizeof(k->notice), "no kernel text symbols in %s", k->kallsyms_path);
	else
		k->notice[0] = '\0';
	return 0;
}

/* A kernel sample where no symbol is known: kallsyms read whole, and what
 * is new since the table we have becomes the extra table. Read again an
 * interval later if that found something, else after twice the wait, so
 * that an address no read ever names (a hole, a BPF program without
 * bpf_jit_kallsyms) costs little. True when the tables changed. */
static bool kernel_reload(struct symbols_kernel *k, unsigned epoch)
{
	struct kallsyms *extra = NULL;
	bool changed = false;

	k->reloads++;
	if (kallsyms_load_since(&extra, k->kallsyms_path, k->ks) == 0 && !extra->restricted &&
	    !(k->extra ? kallsyms_same(extra, k->extra) : extra->nsyms == 0) &&
	    (k->extra == NULL || retire(k, k->extra) == 0)) {
		k->extra = extra;
		extra = NULL;
		next_gen(k);
		changed = true;
	}
	kallsyms_free(extra);
	k->reload_gap = changed ? 1 : k->reload_gap * 2 > RELOAD_GAP_MAX ? RELOAD_GAP_MAX : k->reload_gap * 2;
	k->reload_next = epoch + k->reload_gap;
	return changed;
}

/* Of the table read first and what later reads added, the symbol that
 * starts nearer below ip; at a tie the later read's. */
static const struct kallsyms_sym *kernel_find(const struct symbols_kernel *k, uint64_t ip,
					      const struct kallsyms **in)
{
	const struct kallsyms_sym *s = k->ks ? kallsyms_find(k->ks, ip) : NULL;
	const struct kallsyms_sym *x = k->extra ? kallsyms_find(k->extra, ip) : NULL;

	*in = x && (s == NULL || x->addr >= s->addr) ? k->extra : k->ks;
	return *in == k->extra ? x : s;
}

bool symbols_kernel_resolve(struct symbols_kernel *k, uint64_t ip, unsigned epoch, struct symbols_lookup *out)
{
	const struct kallsyms *t;
	const struct kallsyms_sym *s = kernel_find(k, ip, &t);
	const char *mod;
	bool changed = false;

	if (s == NULL && k->ks && !k->ks->restricted && epoch >= k->reload_next &&
	    (changed = kernel_reload(k, epoch)))
		s = kernel_find(k, ip, &t);
	/* Not cached: a later whole read may name it. */
	if (s == NULL) {
		*out = (struct symbols_lookup){ .sym = SYMBOLS_UNKNOWN, .dso = symbols_kernel_dso,
						.key = (uint64_t)(uintptr_t)&k->unknown, .nocache = true };
		return changed;
	}
	mod = kallsyms_module(t, s);
	*out = (struct symbols_lookup){ .sym = kallsyms_name(t, s), .dso = mod ? mod : symbols_kernel_dso,
					.key = (uint64_t)(uintptr_t)s, .start = s->addr,
					.size = (uint32_t)kallsyms_size(t, s), .off = (uint32_t)(ip - s->addr) };
	return changed;
}

size_t symbols_kernel_tables(const struct symbols_kernel *k)
{
	return (k->ks != NULL) + (k->extra != NULL);
}

size_t symbols_kernel_symbols(const struct symbols_kernel *k)
{
	return (k->ks ? k->ks->nsyms : 0) + (k->extra ? k->extra->nsyms : 0);
}

size_t symbols_kernel_bytes(const struct symbols_kernel *k)
{
	size_t bytes = kallsyms_bytes(k->ks) + kallsyms_bytes(k->extra);

	for (size_t i = 0; i < k->nretired; i++)
		bytes += kallsyms_bytes(k->retired[i]);
	return bytes;
}
