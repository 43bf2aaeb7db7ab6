/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dso: the files (and pseudo-files) code is mapped from, one per file
 * identity and shared by every process mapping it, and the loading of their
 * symbol tables (the file, else its separate debug file). Internal to
 * symbols. */
#ifndef PERFTOP_DSO_H
#define PERFTOP_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/tree.h>
#include <sys/types.h>

struct elfsym;

#define DSO_BUILD_ID_MAX 20

/* What a file is, whatever its path: its build-id when known (the MMAP2
 * build-id form, or read from the file), else device, inode and the
 * inode's generation. All zero: known by path alone (pseudo-files). */
struct dso_ident {
	uint8_t build_id[DSO_BUILD_ID_MAX];
	uint8_t build_id_len;
	uint32_t maj, min;
	uint64_t ino, gen;
};

/* Identities read from files in one pass over /proc, by device and inode:
 * every process mapping libc costs one read of it. */
struct dso_ident_cache;

/* DSO_MEMFD: code in a memfd, readable only through /proc/PID/map_files. */
enum dso_kind { DSO_FILE, DSO_VDSO, DSO_NONE, DSO_MEMFD };

/* Never freed before dso_set_free: its path and its table's names are
 * handed out, and the addresses of its symbols are keys. */
struct dso {
	RB_ENTRY(dso) node;
	struct dso_ident ident; /* the key; the path too when ino and build_id_len are 0 */
	char *path;
	pid_t pid;          /* a process mapping it: its /proc/PID/root opens it */
	bool deleted;       /* "... (deleted)": only the process's mapping reaches it */
	struct elfsym *tab; /* NULL until loaded, or when there is nothing to read */
	uint32_t id;        /* small and unique: symbol keys survive eviction */
	unsigned last_hit;  /* interval (symbols' epoch) of the last sample in it */
	uint8_t kind;
	bool loaded;        /* tried once, whatever came of it: never per sample */
};

RB_HEAD(dso_tree, dso);

struct dso_set {
	struct dso_tree tree;
	char *proc_root;
	char *debug_root;   /* "/usr/lib/debug" */
	uint32_t next_id;
	size_t ndsos, ntables, nsyms, table_bytes, other_bytes;
	size_t nevicted;    /* tables dropped for the memory bound or idleness, ever */
	size_t nevicted_idle; /* of those, for idleness */
	char *cache_dir;    /* of the symbol cache (symcache.h); NULL: none */
	int cache_fd;       /* its entries' directory; -1 until opened */
	bool cache_failed;  /* it cannot be opened: not tried again */
	size_t ncached;     /* tables read from it, ever */
	int8_t boot;        /* boot_id read: 1, unreadable: -1, not yet: 0 */
	char boot_id[40];   /* this boot's: a sealed memfd's cache key (dso.c) */
	size_t nstored;     /* tables written to it */
	/* A replay: files by build-id (bidfind.h), never through /proc; how
	 * many files with a build-id had none that matched, and the first. */
	bool replay;
	char buildid_cache[256]; /* perf's (~/.debug); "": none */
	size_t nunmatched;
	char unmatched[128];
};

int dso_set_init(struct dso_set *ds, const char *proc_root, const char *debug_root);
void dso_set_free(struct dso_set *ds);
int dso_set_debug_root(struct dso_set *ds, const char *debug_root);
/* Tables are read from and written to the symbol cache under dir (the
 * cache directory, cachedir.h). 0 or -ENOMEM. */
int dso_set_cache_dir(struct dso_set *ds, const char *dir);

/* The DSO of a mapping of the file of identity id (NULL: by path alone),
 * created if new; NULL when out of memory. */
struct dso *dso_get(struct dso_set *ds, const char *path, const struct dso_ident *id, pid_t pid);
/* The DSO of what process pid maps at [start, end) according to /proc
 * (path, maj:min, inode): identified as a record would (build-id read from
 * the file, else dev+inode+generation). *cache (NULL at first) spares
 * re-reading a file; dso_ident_cache_free ends it. */
struct dso *dso_get_mapped(struct dso_set *ds, const char *path, uint32_t maj, uint32_t min,
			   uint64_t ino, pid_t pid, uint64_t start, uint64_t end,
			   struct dso_ident_cache **cache);
void dso_ident_cache_free(struct dso_ident_cache *cache);
/* Reads d's table once (first sample in it). pid maps it at [start, end):
 * what /proc/PID/map_files opens when the path is gone or another file. */
void dso_load(struct dso_set *ds, struct dso *d, pid_t pid, uint64_t start, uint64_t end);

/* Drops the tables no sample hit since interval before, least recently hit
 * first, until their bytes are at most limit. A dropped table is read
 * again at its next sample. Returns how many were dropped. */
size_t dso_evict(struct dso_set *ds, size_t limit, unsigned before);
/* Drops every table no sample hit since interval before, whatever the
 * bound: a binary no live process runs any more (or that no sample reached
 * for long) costs no memory. One walk over the DSOs. */
size_t dso_evict_idle(struct dso_set *ds, unsigned before);

#endif
