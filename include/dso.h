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

enum dso_kind { DSO_FILE, DSO_VDSO, DSO_NONE };

/* Never freed before dso_set_free: its path and its table's names are
 * handed out, and the addresses of its symbols are keys. */
struct dso {
	RB_ENTRY(dso) node;
	uint64_t ino;       /* 0: keyed by path */
	uint32_t maj, min;
	char *path;
	pid_t pid;          /* a process mapping it: its /proc/PID/root opens it */
	struct elfsym *tab; /* NULL until loaded, or when there is nothing to read */
	uint8_t kind;
	bool loaded;        /* tried once, whatever came of it: never per sample */
};

RB_HEAD(dso_tree, dso);

struct dso_set {
	struct dso_tree tree;
	char *proc_root;
	char *debug_root;   /* "/usr/lib/debug" */
	size_t ndsos, ntables, nsyms, table_bytes, other_bytes;
};

int dso_set_init(struct dso_set *ds, const char *proc_root, const char *debug_root);
void dso_set_free(struct dso_set *ds);
int dso_set_debug_root(struct dso_set *ds, const char *debug_root);

/* The DSO of a mapping, created if new; NULL when out of memory. */
struct dso *dso_get(struct dso_set *ds, const char *path, uint32_t maj, uint32_t min,
		    uint64_t ino, pid_t pid);
/* Reads d's table once (first sample in it). */
void dso_load(struct dso_set *ds, struct dso *d);

#endif
