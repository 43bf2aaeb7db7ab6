#include "dso.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo.h"
#include "elfsym.h"

static const char ANON[] = "//anon";

static int dso_cmp(const struct dso *a, const struct dso *b)
{
	if ((a->ino != 0) != (b->ino != 0))
		return a->ino ? 1 : -1;
	if (a->ino == 0)
		return strcmp(a->path, b->path);
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->maj != b->maj)
		return a->maj < b->maj ? -1 : 1;
	return (a->min > b->min) - (a->min < b->min);
}

/* libbsd's RB_GENERATE_STATIC relies on a __unused its cdefs.h leaves out. */
RB_GENERATE_INTERNAL(dso_tree, dso, node, dso_cmp, __attribute__((unused)) static)

int dso_set_init(struct dso_set *ds, const char *proc_root, const char *debug_root)
{
	memset(ds, 0, sizeof(*ds));
	RB_INIT(&ds->tree);
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
	ds->proc_root = ds->debug_root = NULL;
}

/* Files we can read symbols from start with '/'; the rest ([heap], //anon,
 * anon_inode:..., /memfd:, shared memory) has none. */
static enum dso_kind dso_kind_of(const char *path)
{
	if (strcmp(path, "[vdso]") == 0)
		return DSO_VDSO;
	if (path[0] != '/' || strncmp(path, ANON, 6) == 0 || strncmp(path, "/memfd:", 7) == 0 ||
	    strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/SYSV", 5) == 0)
		return DSO_NONE;
	return DSO_FILE;
}

struct dso *dso_get(struct dso_set *ds, const char *path, uint32_t maj, uint32_t min, uint64_t ino,
		    pid_t pid)
{
	struct dso key = { 0 }, *d;

	if (path == NULL || path[0] == '\0')
		path = ANON;
	key.kind = (uint8_t)dso_kind_of(path);
	/* Pseudo-files are one DSO whatever their inode says. */
	if (key.kind == DSO_FILE) {
		key.ino = ino;
		key.maj = maj;
		key.min = min;
	}
	key.path = (char *)(uintptr_t)path;
	d = RB_FIND(dso_tree, &ds->tree, &key);
	if (d)
		return d;
	d = malloc(sizeof(*d));
	if (d == NULL)
		return NULL;
	*d = key;
	d->pid = pid;
	d->path = strdup(path);
	if (d->path == NULL) {
		free(d);
		return NULL;
	}
	RB_INSERT(dso_tree, &ds->tree, d);
	ds->ndsos++;
	ds->other_bytes += sizeof(*d) + strlen(d->path) + 1;
	return d;
}

/* Opens path as process pid sees it (through /proc/PID/root, for
 * containers), else as we see it; prefers whichever is inode ino (0: any). */
static int open_as(const struct dso_set *ds, pid_t pid, const char *path, uint64_t ino)
{
	char rooted[PATH_MAX];
	int fds[2] = { -1, -1 }, fd = -1, n = 0;
	struct stat st;

	if (pid > 0 && (size_t)snprintf(rooted, sizeof(rooted), "%s/%d/root%s", ds->proc_root, (int)pid,
					path) < sizeof(rooted))
		fds[n++] = open(rooted, O_RDONLY | O_CLOEXEC);
	fds[n++] = open(path, O_RDONLY | O_CLOEXEC);
	for (int i = 0; i < n && fd < 0; i++)
		if (fds[i] >= 0 && (ino == 0 || (fstat(fds[i], &st) == 0 && st.st_ino == ino)))
			fd = fds[i];
	for (int i = 0; i < n && fd < 0; i++)
		fd = fds[i]; /* overlayfs and btrfs may show other inode numbers */
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0 && fds[i] != fd)
			close(fds[i]);
	return fd;
}

/* A binary without .symtab: its separate debug file's symbols, if any. */
static void load_debug_file(const struct dso_set *ds, struct dso *d)
{
	char paths[DEBUGINFO_MAX_PATHS][PATH_MAX];
	size_t n = debuginfo_paths(d->tab, d->path, ds->debug_root, paths);

	for (size_t i = 0; i < n; i++) {
		struct elfsym *dbg = NULL;
		int fd = open_as(ds, d->pid, paths[i], 0);

		if (fd < 0)
			continue;
		elfsym_load_debug_fd(&dbg, fd);
		close(fd);
		if (dbg && dbg->nsyms && !dbg->from_dynsym && debuginfo_matches(d->tab, dbg)) {
			elfsym_adopt_symbols(d->tab, dbg);
			return;
		}
		elfsym_free(dbg);
	}
}

void dso_load(struct dso_set *ds, struct dso *d)
{
	const char *base = strrchr(d->path, '/');
	int fd;

	d->loaded = true;
	if (d->kind == DSO_VDSO) {
		elfsym_load_vdso(&d->tab);
	} else if (d->kind == DSO_FILE && (fd = open_as(ds, d->pid, d->path, d->ino)) >= 0) {
		elfsym_load_fd_label(&d->tab, fd, base ? base + 1 : d->path);
		close(fd);
		if (d->tab && d->tab->from_dynsym)
			load_debug_file(ds, d);
	}
	if (d->tab) {
		ds->ntables++;
		ds->nsyms += d->tab->nsyms;
		ds->table_bytes += elfsym_bytes(d->tab);
	}
}
