/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols_user: the processes' side of the resolver: an address of a
 * process through its maps (proctab.c) to its file's table (dso.c), else a
 * JIT map's name (perf-PID.map) or a label of anonymous code. Internal to
 * symbols. */
#ifndef PERFTOP_SYMBOLS_USER_H
#define PERFTOP_SYMBOLS_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols_lookup.h"

struct dso_set;
struct proctab;
struct proctab_proc;
struct symbols_anon;

struct symbols_user {
	struct proctab *pt;        /* the resolver's: maps, epoch, slow hook */
	struct dso_set *dsos;
	char *jit_dir;             /* "/tmp" */
	size_t jit_bytes;
	struct symbols_anon **anon; /* hash buckets of anonymous-code labels, NULL until needed */
	size_t nanon, anon_bytes;
	bool raw_names;            /* no demangling */
	char unknown;              /* its address is the key of addresses no map covers */
};

/* 0 or -ENOMEM. */
int symbols_user_init(struct symbols_user *u, struct proctab *pt, struct dso_set *dsos);
void symbols_user_free(struct symbols_user *u);
/* As symbols_set_jit_dir. */
int symbols_user_set_jit_dir(struct symbols_user *u, const char *dir);
/* What ip of process p (NULL: unknown) names; may read p's /proc, a table
 * or a JIT map. */
struct symbols_lookup symbols_user_resolve(struct symbols_user *u, struct proctab_proc *p, uint64_t ip);

#endif
