/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols_kernel: the kernel's side of the resolver: its kallsyms table
 * (from the cache when it is of this kernel, else read whole), what later
 * whole reads found (modules loaded since, BPF programs), its build-id and
 * the notice for the user. Internal to symbols. */
#ifndef PERFTOP_SYMBOLS_KERNEL_H
#define PERFTOP_SYMBOLS_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid.h"
#include "symbols_lookup.h"

struct kallsyms;

struct symbols_kernel {
	char *kallsyms_path;
	char *cache_dir, *notes_path, *modules_path; /* cache_dir NULL: no cache */
	struct kallsyms *ks;
	/* What whole reads found since ks: modules loaded later, BPF programs. */
	struct kallsyms *extra;
	struct kallsyms **retired; /* replaced tables: their keys stay unique */
	size_t nretired;
	unsigned reload_next, reload_gap; /* epochs: when a miss may read again */
	size_t reloads;
	bool cached;               /* ks came from the cache */
	uint32_t gen;              /* moves with every table change; never PROCTAB_GEN_KERNEL's bit */
	char notice[256];
	uint8_t build_id[BUILDID_MAX]; /* the running kernel's, from /sys/kernel/notes */
	size_t build_id_len;
	char unknown;              /* its address is the key of the unresolved */
};

/* The DSO name of the core kernel's symbols: one object, so that a result
 * is known for the kernel's by its pointer. */
extern const char symbols_kernel_dso[];

/* 0 or -ENOMEM. */
int symbols_kernel_init(struct symbols_kernel *k, const char *kallsyms_path);
void symbols_kernel_free(struct symbols_kernel *k);
/* As symbols_set_kcache. */
int symbols_kernel_set_cache(struct symbols_kernel *k, const char *dir, const char *notes_path,
			     const char *modules_path);
/* As symbols_load_kernel; epoch is the process table's interval. The
 * tables have changed when it returns 0. */
int symbols_kernel_load(struct symbols_kernel *k, unsigned epoch);
/* What ip names. A miss may read kallsyms whole again (at most once an
 * interval, less often while that finds nothing): true when that changed
 * the tables. */
bool symbols_kernel_resolve(struct symbols_kernel *k, uint64_t ip, unsigned epoch, struct symbols_lookup *out);

/* For statistics. */
size_t symbols_kernel_tables(const struct symbols_kernel *k);
size_t symbols_kernel_symbols(const struct symbols_kernel *k);
size_t symbols_kernel_bytes(const struct symbols_kernel *k);

#endif
