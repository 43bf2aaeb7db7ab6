/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dso.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bidfind.h"
#include "buildid.h"
#include "cachedir.h"
#include "debuginfo.h"
#include "elfsym.h"
#include "symcache.h"
#include "util.h"

static const char ANON[] = "//anon";
static const char DELETED[] = " (deleted)";

static bool ends_deleted(const char *path)
{
	size_t n = strlen(path), k = sizeof(DELETED) - 1;

	return n > k && strcmp(path + n - k, DELETED) == 0;
}

/* Keyed by build-id, else by path (pseudo-files, unknown inode), else by
 * device, inode and generation; the three never compare equal. */
static int dso_class(const struct dso *d)
{
	return d->ident.build_id_len ? 0 : d->ident.ino == 0 ? 1 : 2;
}

#define CMP(x, y) if ((x) != (y)) return (x) < (y) ? -1 : 1

static int dso_cmp(const struct dso *a, const struct dso *b)
{
	const struct dso_ident *x = &a->ident, *y = &b->ident;
	int ca = dso_class(a), cb = dso_class(b);

	CMP(ca, cb);
	if (ca == 0) {
		/* A memfd is a file of its own, whatever it holds. */
		CMP(a->kind, b->kind);
		CMP(x->build_id_len, y->build_id_len);
		return memcmp(x->build_id, y->build_id, x->build_id_len);
	}
	if (ca == 1)
		return strcmp(a->path, b->path);
	CMP(x->ino, y->ino);
	CMP(x->maj, y->maj);
	CMP(x->min, y->min);
	CMP(x->gen, y->gen);
	return 0;
}

/* libbsd's RB_GENERATE_STATIC relies on a __unused its cdefs.h leaves out. */
RB_GENERATE_INTERNAL(dso_tree, dso, node, dso_cmp, __attribute__((unused)) static)

int dso_set_init(struct dso_set *ds, const char *proc_root, const char *debug_root)
{
	memset(ds, 0, sizeof(*ds));
	RB_INIT(&ds->tree);
	ds->cache_fd = -1;
	ds->proc_root = strdup(proc_root);
	ds->debug_root = strdup(debug_root);
	if (ds->proc_root == NULL || ds->debug_root == NULL) {
		dso_set_free(ds);
		return -ENOMEM;
	}
	return 0;
}

int dso_set_debug_root(struct dso_set *ds, const char *debug_root)
{
	char *r = strdup(debug_root);

	if (r == NULL)
		return -ENOMEM;
	free(ds->debug_root);
	ds->debug_root = r;
	return 0;
}

int dso_set_cache_dir(struct dso_set *ds, const char *dir)
{
	char *d = strdup(dir);

	if (d == NULL)
		return -ENOMEM;
	free(ds->cache_dir);
	ds->cache_dir = d;
	if (ds->cache_fd >= 0)
		close(ds->cache_fd);
	ds->cache_fd = -1;
	ds->cache_failed = false;
	return 0;
}

void dso_set_free(struct dso_set *ds)
{
	struct dso *d, *dn;

	RB_FOREACH_SAFE(d, dso_tree, &ds->tree, dn) {
		RB_REMOVE(dso_tree, &ds->tree, d);
		elfsym_free(d->tab);
		free(d->path);
		free(d);
	}
	free(ds->proc_root);
	free(ds->debug_root);
	free(ds->cache_dir);
	if (ds->cache_fd >= 0)
		close(ds->cache_fd);
	ds->cache_fd = -1;
	ds->proc_root = ds->debug_root = ds->cache_dir = NULL;
}

/* Files we can read symbols from start with '/'; the rest ([heap], //anon,
 * anon_inode:..., /memfd:, shared memory) has none. */
static enum dso_kind dso_kind_of(const char *path)
{
	if (strcmp(path, "[vdso]") == 0)
		return DSO_VDSO;
	if (strncmp(path, "/memfd:", 7) == 0)
		return DSO_MEMFD;
	if (path[0] != '/' || strncmp(path, ANON, 6) == 0 ||
	    strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/SYSV", 5) == 0)
		return DSO_NONE;
	return DSO_FILE;
}

static struct dso *dso_find_or_add(struct dso_set *ds, const struct dso *key, pid_t pid)
{
	struct dso *d = RB_FIND(dso_tree, &ds->tree, (struct dso *)(uintptr_t)key);

	if (d)
		return d;
	d = malloc(sizeof(*d));
	if (d == NULL)
		return NULL;
	*d = *key;
	d->pid = pid;
	d->id = ++ds->next_id;
	d->deleted = ends_deleted(key->path);
	d->path = strdup(key->path);
	if (d->path == NULL) {
		free(d);
		return NULL;
	}
	RB_INSERT(dso_tree, &ds->tree, d);
	ds->ndsos++;
	ds->other_bytes += sizeof(*d) + strlen(d->path) + 1;
	return d;
}

struct dso *dso_get(struct dso_set *ds, const char *path, const struct dso_ident *id, pid_t pid)
{
	struct dso key = { 0 };

	if (path == NULL || path[0] == '\0')
		path = ANON;
	key.kind = (uint8_t)dso_kind_of(path);
	/* Pseudo-files are one DSO whatever their inode says (a replay's vDSO
	 * is its kernel's: by build-id); a memfd is a file of its own. */
	if (id && (key.kind == DSO_FILE || key.kind == DSO_MEMFD || (key.kind == DSO_VDSO && ds->replay))) {
		/* The build-id says it all: one DSO however it was reached. */
		if (id->build_id_len && id->build_id_len <= DSO_BUILD_ID_MAX) {
			memcpy(key.ident.build_id, id->build_id, id->build_id_len);
			key.ident.build_id_len = id->build_id_len;
		} else {
			key.ident.maj = id->maj;
			key.ident.min = id->min;
			key.ident.ino = id->ino;
			key.ident.gen = id->gen;
		}
	}
	key.path = (char *)(uintptr_t)path;
	return dso_find_or_add(ds, &key, pid);
}

/* The inode's generation (FS_IOC_GETVERSION), as MMAP2 records carry it;
 * 0 where the filesystem does not say. */
static uint64_t file_gen(int fd)
{
	int gen = 0;

	return ioctl(fd, FS_IOC_GETVERSION, &gen) == 0 ? (uint64_t)(uint32_t)gen : 0;
}

struct ident_entry {
	RB_ENTRY(ident_entry) node;
	uint32_t maj, min;
	uint64_t ino;
	struct dso_ident ident;
};

static int ident_entry_cmp(const struct ident_entry *a, const struct ident_entry *b)
{
	CMP(a->ino, b->ino);
	CMP(a->maj, b->maj);
	CMP(a->min, b->min);
	return 0;
}

RB_HEAD(ident_tree, ident_entry);
RB_GENERATE_INTERNAL(ident_tree, ident_entry, node, ident_entry_cmp, __attribute__((unused)) static)

struct dso_ident_cache {
	struct ident_tree tree;
};

void dso_ident_cache_free(struct dso_ident_cache *c)
{
	struct ident_entry *e, *en;

	if (c == NULL)
		return;
	RB_FOREACH_SAFE(e, ident_tree, &c->tree, en) {
		RB_REMOVE(ident_tree, &c->tree, e);
		free(e);
	}
	free(c);
}

static int open_as(const struct dso_set *ds, pid_t pid, const char *path, uint64_t ino, bool *other);

/* The identity of the file pid maps at [start, end): its build-id, else
 * id's device and inode with the inode's generation. The mapping itself
 * (map_files) is the file; the path may name a newer one. */
static void ident_read(const struct dso_set *ds, const char *path, pid_t pid, uint64_t start,
		       uint64_t end, struct dso_ident *id)
{
	char mf[PATH_MAX];
	bool other = false;
	int fd = -1, n;

	if (util_pathf(mf, sizeof(mf), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, ds->proc_root, (int)pid,
		       start, end) == 0)
		fd = open(mf, O_RDONLY | O_CLOEXEC);
	/* Else the path, when it is still that inode (open_as checks). */
	if (fd < 0 && !ends_deleted(path) && (fd = open_as(ds, pid, path, id->ino, &other)) >= 0 && other) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return;
	if ((n = buildid_read_fd(fd, id->build_id)) > 0)
		id->build_id_len = (uint8_t)n;
	else
		id->gen = file_gen(fd);
	close(fd);
}

struct dso *dso_get_mapped(struct dso_set *ds, const char *path, uint32_t maj, uint32_t min,
			   uint64_t ino, pid_t pid, uint64_t start, uint64_t end,
			   struct dso_ident_cache **cache)
{
	struct ident_entry key = { .maj = maj, .min = min, .ino = ino }, *e = NULL;
	struct dso_ident id = { .maj = maj, .min = min, .ino = ino };
	enum dso_kind kind = dso_kind_of(path && path[0] ? path : ANON);

	if ((kind != DSO_FILE && kind != DSO_MEMFD) || ino == 0)
		return dso_get(ds, path, &id, pid);
	if (*cache == NULL && (*cache = calloc(1, sizeof(**cache))) != NULL)
		RB_INIT(&(*cache)->tree);
	if (*cache && (e = RB_FIND(ident_tree, &(*cache)->tree, &key)) != NULL)
		return dso_get(ds, path, &e->ident, pid);
	ident_read(ds, path, pid, start, end, &id);
	if (*cache && (e = malloc(sizeof(*e))) != NULL) {
		*e = key;
		e->ident = id;
		RB_INSERT(ident_tree, &(*cache)->tree, e);
	}
	return dso_get(ds, path, &id, pid);
}

/* Opens path as process pid sees it (through /proc/PID/root, for
 * containers), else as we see it; prefers whichever is inode ino (0: any).
 * *other (may be NULL) says the file opened is not inode ino. */
static int open_as(const struct dso_set *ds, pid_t pid, const char *path, uint64_t ino, bool *other)
{
	char rooted[PATH_MAX];
	int fds[2] = { -1, -1 }, fd = -1, n = 0;
	struct stat st;

	if (pid > 0 && !ds->replay && (size_t)snprintf(rooted, sizeof(rooted), "%s/%d/root%s", ds->proc_root, (int)pid,
					path) < sizeof(rooted))
		fds[n++] = open(rooted, O_RDONLY | O_CLOEXEC);
	fds[n++] = open(path, O_RDONLY | O_CLOEXEC);
	for (int i = 0; i < n && fd < 0; i++)
		if (fds[i] >= 0 && (ino == 0 || (fstat(fds[i], &st) == 0 && st.st_ino == ino)))
			fd = fds[i];
	if (other)
		*other = false;
	for (int i = 0; i < n && fd < 0; i++) {
		fd = fds[i]; /* overlayfs and btrfs may show other inode numbers */
		if (other)
			*other = fd >= 0;
	}
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0 && fds[i] != fd)
			close(fds[i]);
	return fd;
}

/* A table that is not of the build-id the kernel saw is another file's
 * (the path was replaced): dropped. */
static bool build_id_ok(const struct dso *d, const struct elfsym *t)
{
	return d->ident.build_id_len == 0 || (t->build_id_len == d->ident.build_id_len &&
					memcmp(t->build_id, d->ident.build_id, d->ident.build_id_len) == 0);
}

/* The symbols of the separate debug file of d, whose table t has none of
 * its own (no .symtab): found by d's build-id (the record's, else the
 * file's) or t's debuglink. NULL if none. */
static struct elfsym *load_debug_file(const struct dso_set *ds, const struct dso *d, const struct elfsym *t)
{
	char paths[DEBUGINFO_MAX_PATHS][PATH_MAX];
	const uint8_t *bid = d->ident.build_id_len ? d->ident.build_id : t->build_id;
	size_t bidlen = d->ident.build_id_len ? d->ident.build_id_len : t->build_id_len;
	size_t n = debuginfo_paths(bid, bidlen, t->debuglink, d->path, ds->debug_root, paths);

	for (size_t i = 0; i < n; i++) {
		struct elfsym *dbg = NULL;
		int fd = open_as(ds, d->pid, paths[i], 0, NULL);

		if (fd < 0)
			continue;
		elfsym_load_debug_fd(&dbg, fd);
		close(fd);
		if (dbg && dbg->nsyms && !dbg->from_dynsym && debuginfo_matches(t, dbg) && build_id_ok(d, dbg))
			return dbg;
		elfsym_free(dbg);
	}
	return NULL;
}

/* The very file process pid maps at [start, end), deleted, replaced or
 * in a memfd: /proc/PID/map_files (root, or CAP_SYS_ADMIN), else, for the
 * main binary, /proc/PID/exe when it is that inode. */
static int open_mapped(const struct dso_set *ds, const struct dso *d, pid_t pid, uint64_t start,
		       uint64_t end, bool exe)
{
	char path[PATH_MAX];
	struct stat st;
	int fd = -1;

	if (pid <= 0 || ds->replay)
		return -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, ds->proc_root,
			     (int)pid, start, end) < sizeof(path))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	/* /proc/PID/exe is right only for the main binary: known by its inode,
	 * or by the build-id its table is checked against. */
	if (fd >= 0 || !exe || (d->ident.ino == 0 && d->ident.build_id_len == 0))
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/exe", ds->proc_root, (int)pid) >= sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (d->ident.ino && (fstat(fd, &st) != 0 || st.st_ino != d->ident.ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The path of d as it was before " (deleted)" was appended. */
static const char *live_path(const struct dso *d, char *buf, size_t len)
{
	size_t n = strlen(d->path);

	if (!d->deleted)
		return d->path;
	n -= sizeof(DELETED) - 1;
	if (n >= len)
		return NULL;
	memcpy(buf, d->path, n);
	buf[n] = '\0';
	return buf;
}

static int open_dso(const struct dso_set *ds, const struct dso *d, pid_t pid, uint64_t start,
		    uint64_t end)
{
	char buf[PATH_MAX];
	const char *path;
	bool other = false;
	int fd = -1, mfd;

	if (d->kind == DSO_MEMFD)
		return open_mapped(ds, d, pid, start, end, true);
	/* Known by path alone (or by build-id), the path may name a newer
	 * file: the mapping itself is the surer way when we may open it. */
	if (d->ident.ino == 0 && !d->deleted && (mfd = open_mapped(ds, d, pid, start, end, false)) >= 0)
		return mfd;
	/* A deleted file's path may name a new file now: never trust it. */
	if (!d->deleted && (fd = open_as(ds, d->pid, d->path, d->ident.ino, &other)) >= 0 && !other) {
		if (d->ident.gen == 0 || file_gen(fd) == 0 || file_gen(fd) == d->ident.gen)
			return fd;
		close(fd); /* the inode number reused by another file */
		fd = -1;
	}
	mfd = open_mapped(ds, d, pid, start, end, true);
	if (mfd >= 0) {
		if (fd >= 0)
			close(fd);
		return mfd;
	}
	/* Deleted, but still there under its old name (a hard link, or the
	 * "(deleted)" was in the name all along). */
	if (fd < 0 && d->deleted && (path = live_path(d, buf, sizeof(buf))) != NULL &&
	    (fd = open_as(ds, d->pid, path, d->ident.ino, &other)) >= 0 && other) {
		close(fd);
		fd = -1;
	}
	return fd;
}

struct finder_ctx {
	const struct dso_set *ds;
	const struct dso *d;
};

static struct elfsym *find_debug(void *arg, const struct elfsym *t)
{
	const struct finder_ctx *c = arg;

	return c->d->kind == DSO_FILE ? load_debug_file(c->ds, c->d, t) : NULL;
}

/* The symbol cache's directory of entries; -1 without one. Made when a
 * table is first to be written (create). */
static int cache_fd(struct dso_set *ds, bool create)
{
	int dfd, fd = -1;

	if (ds->cache_fd >= 0 || ds->cache_dir == NULL || ds->cache_failed)
		return ds->cache_fd;
	if ((dfd = cachedir_open(ds->cache_dir, create)) >= 0) {
		fd = cachedir_sub(dfd, SYMCACHE_DIR, create);
		close(dfd);
	}
	if (fd < 0 && create)
		ds->cache_failed = true; /* a cache we cannot write costs only time */
	ds->cache_fd = fd < 0 ? -1 : fd;
	return ds->cache_fd;
}

/* What t rests on besides its file: whether each of its debug file's
 * candidate paths is there and what file it is, when the file has no
 * .symtab of its own (a debug package installed since is a miss). */
static uint64_t table_deps(const struct dso_set *ds, const struct dso *d, const struct elfsym *t)
{
	char paths[DEBUGINFO_MAX_PATHS][PATH_MAX];
	uint64_t h = 0;
	size_t n;

	if (!t->searched_debug)
		return 0;
	n = debuginfo_paths(d->ident.build_id, d->ident.build_id_len, t->debuglink, d->path, ds->debug_root, paths);
	for (size_t i = 0; i < n; i++) {
		uint64_t v[5] = { i + 1, 0, 0, 0, 0 };
		int fd = open_as(ds, d->pid, paths[i], 0, NULL);
		struct stat st;

		if (fd >= 0 && fstat(fd, &st) == 0) {
			v[1] = st.st_dev;
			v[2] = st.st_ino;
			v[3] = (uint64_t)st.st_size;
			v[4] = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
		}
		if (fd >= 0)
			close(fd);
		h = util_hash64(v, sizeof(v), h);
	}
	return h | 1;
}

#define SEALED_ID_LEN 16
#define SEALED (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW)

static bool boot_id(struct dso_set *ds)
{
	char path[PATH_MAX];
	ssize_t n = -1;
	int fd;

	if (ds->boot)
		return ds->boot > 0;
	ds->boot = -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id", ds->proc_root) < sizeof(path) &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, ds->boot_id, sizeof(ds->boot_id) - 1);
		close(fd);
	}
	if (n < 32)
		return false;
	ds->boot_id[n] = '\0';
	ds->boot = 1;
	return true;
}

/* A memfd sealed against writes and resizing holds the same bytes for as
 * long as it lives, so without a build-id it is known by this boot, its
 * inode and its creation time (a sandbox's program run from one, ~3 300
 * symbols, was parsed at every start: 1-2 ms of CPU here). */
static bool sealed_id(struct dso_set *ds, int fd, const struct stat *st, uint8_t id[SEALED_ID_LEN])
{
	int seals = fcntl(fd, F_GET_SEALS);
	uint64_t v[5], h[2];

	if (seals < 0 || (seals & SEALED) != SEALED || !boot_id(ds))
		return false;
	v[0] = st->st_dev;
	v[1] = st->st_ino;
	v[2] = (uint64_t)st->st_size;
	v[3] = (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec;
	v[4] = util_hash64(ds->boot_id, strlen(ds->boot_id), 0);
	h[0] = util_hash64(v, sizeof(v), 1);
	h[1] = util_hash64(v, sizeof(v), 2);
	memcpy(id, h, SEALED_ID_LEN);
	return true;
}

/* The cache's key for d's file open at fd: known by build-id (a file
 * without one is parsed each time), a sealed memfd without one by
 * sealed_id (into synth). A memfd's name, the label, may be new each
 * time, but only names made from .eh_frame_hdr starts carry it
 * (cache_worth). */
static bool cache_key(struct dso_set *ds, const struct dso *d, int fd, const char *label,
		      uint8_t synth[SEALED_ID_LEN], struct symcache_key *k)
{
	struct stat st;

	if (ds->cache_dir == NULL || ds->cache_failed || (d->kind != DSO_FILE && d->kind != DSO_MEMFD) ||
	    (d->ident.build_id_len == 0 && d->kind != DSO_MEMFD) ||
	    fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if (d->ident.build_id_len)
		*k = (struct symcache_key){ d->ident.build_id, d->ident.build_id_len, (uint64_t)st.st_size, label };
	else if (sealed_id(ds, fd, &st, synth))
		*k = (struct symcache_key){ synth, SEALED_ID_LEN, (uint64_t)st.st_size, label };
	else
		return false;
	return true;
}

/* Pruning reads the whole directory: at every 256th write of a run, and at
 * its first only when the directory may hold more entries than are kept
 * (its size grows with them: ~64 bytes each on ext4, 20 on tmpfs), so a
 * short run that writes one entry does not pay for the scan. */
static bool prune_due(struct dso_set *ds, int dfd)
{
	size_t n = ds->nstored++;
	struct stat st;

	if (n % SYMCACHE_PRUNE_EVERY)
		return false;
	return n || (fstat(dfd, &st) == 0 && (uint64_t)st.st_size >= (uint64_t)SYMCACHE_KEEP_FILES * 32);
}

/* Whether d's new table is worth an entry: a memfd's only when no name in
 * it is made from its label (a runtime's or a sandbox's memfd is named anew
 * at each start, and an entry the next run cannot match would be written
 * again at every run). A big program run from a memfd was parsed at every
 * start: 2.5-4 ms here. */
static bool cache_worth(const struct dso *d)
{
	return d->tab && d->tab->nsyms && (d->kind != DSO_MEMFD || d->tab->nsynth == 0);
}

static void load_fd_checked(struct dso_set *ds, struct dso *d, int fd, const char *label)
{
	struct finder_ctx c = { ds, d };
	struct elfsym_debug_finder find = { find_debug, &c };
	uint8_t synth[SEALED_ID_LEN];
	struct symcache_key k;
	bool cacheable = cache_key(ds, d, fd, label, synth, &k);
	uint64_t deps;
	int dfd;

	if (cacheable && (dfd = cache_fd(ds, false)) >= 0 && symcache_load(&d->tab, &deps, dfd, &k) == 0) {
		if (deps == table_deps(ds, d, d->tab)) {
			close(fd);
			if (k.build_id == synth)
				d->tab->build_id_len = 0; /* the key's, not the file's */
			ds->ncached++;
			return;
		}
		elfsym_free(d->tab);
		d->tab = NULL;
	}
	elfsym_load_fd_find(&d->tab, fd, label, &find);
	close(fd);
	if (d->tab && !build_id_ok(d, d->tab)) {
		elfsym_free(d->tab);
		d->tab = NULL;
	}
	if (cacheable && cache_worth(d) && (dfd = cache_fd(ds, true)) >= 0 &&
	    symcache_store(d->tab, dfd, &k, table_deps(ds, d, d->tab)) == 0 && prune_due(ds, dfd))
		symcache_prune(dfd, SYMCACHE_KEEP_FILES);
}

/* A replay's file not at its path (by build-id): bidfind's; else counted. */
static void dso_replay_load(struct dso_set *ds, struct dso *d, const char *label)
{
	char paths[BIDFIND_MAX][PATH_MAX];
	size_t n = d->tab ? 0 : bidfind_paths(ds->buildid_cache, ds->debug_root, d->path, d->ident.build_id,
					      d->ident.build_id_len, paths);
	int fd;

	for (size_t i = 1; i < n && d->tab == NULL; i++)
		if ((fd = open(paths[i], O_RDONLY | O_CLOEXEC)) >= 0)
			load_fd_checked(ds, d, fd, label);
	if (d->tab == NULL && ds->nunmatched++ == 0)
		strlcpy(ds->unmatched, d->path, sizeof(ds->unmatched));
}

void dso_load(struct dso_set *ds, struct dso *d, pid_t pid, uint64_t start, uint64_t end)
{
	char buf[PATH_MAX];
	const char *path = live_path(d, buf, sizeof(buf)), *base, *label;
	int fd;

	if (path == NULL)
		path = d->path;
	base = strrchr(path, '/');
	label = base ? base + 1 : path;
	d->loaded = true;
	if (d->kind == DSO_VDSO) {
		bidfind_vdso(ds->replay ? ds->buildid_cache : NULL, d->ident.build_id, d->ident.build_id_len, &d->tab);
	} else if ((d->kind == DSO_FILE || d->kind == DSO_MEMFD) &&
		   (fd = open_dso(ds, d, pid, start, end)) >= 0) {
		load_fd_checked(ds, d, fd, label);
		/* The path's file is not the mapped one: the mapping's is. */
		if (d->tab == NULL && d->ident.build_id_len && d->kind == DSO_FILE &&
		    (fd = open_mapped(ds, d, pid, start, end, true)) >= 0)
			load_fd_checked(ds, d, fd, label);
	}
	if (ds->replay && (d->kind == DSO_FILE || d->kind == DSO_VDSO) && d->ident.build_id_len)
		dso_replay_load(ds, d, label);
	if (d->tab) {
		ds->ntables++;
		ds->nsyms += d->tab->nsyms;
		ds->table_bytes += elfsym_bytes(d->tab);
	}
}

static void dso_unload(struct dso_set *ds, struct dso *d)
{
	ds->ntables--;
	ds->nsyms -= d->tab->nsyms;
	ds->table_bytes -= elfsym_bytes(d->tab);
	elfsym_free(d->tab);
	d->tab = NULL;
	d->loaded = false;
	ds->nevicted++;
}

size_t dso_evict(struct dso_set *ds, size_t limit, unsigned before)
{
	size_t n = 0;

	while (ds->table_bytes > limit) {
		struct dso *d, *oldest = NULL;

		RB_FOREACH(d, dso_tree, &ds->tree)
			if (d->tab && d->kind != DSO_VDSO && d->last_hit < before &&
			    (oldest == NULL || d->last_hit < oldest->last_hit))
				oldest = d;
		if (oldest == NULL)
			break; /* all in use: over the bound rather than thrash */
		dso_unload(ds, oldest);
		n++;
	}
	return n;
}

size_t dso_evict_idle(struct dso_set *ds, unsigned before)
{
	struct dso *d;
	size_t n = 0;

	RB_FOREACH(d, dso_tree, &ds->tree)
		if (d->tab && d->kind != DSO_VDSO && d->last_hit < before) {
			dso_unload(ds, d);
			n++;
		}
	ds->nevicted_idle += n;
	return n;
}
