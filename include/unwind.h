/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unwind: user call stacks from a sample's registers and stack copy
 * (--call-graph dwarf), through elfutils' libdw. One Dwfl per process is
 * kept (its modules reported as unwinding meets them), never one per
 * sample: perf's libdw path was 18x slower until it kept them. Memory
 * reads are served from the sample's stack copy only. */
#ifndef PERFTOP_UNWIND_H
#define PERFTOP_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"

/* Where the session's process table says an address of pid is mapped:
 * a path to open the file by (through /proc/PID/root or map_files when
 * needed), and where its offset 0 would be mapped (start - pgoff). */
struct unwind_map {
	char path[4096];
	uint64_t start, end, base;
};
typedef bool (*unwind_map_fn)(void *arg, pid_t pid, uint64_t addr, struct unwind_map *out);

struct unwind;

/* At most max_procs Dwfl kept (the least recently used goes first). */
struct unwind *unwind_new(unwind_map_fn find_map, void *arg, size_t max_procs);
void unwind_free(struct unwind *u);

/* attr.sample_regs_user this architecture needs; 0: dwarf unwinding is not
 * supported here (the caller says so and uses frame pointers). */
uint64_t unwind_regs_mask(void);

/* A process exited or exec'd: its Dwfl goes (its maps are no more). */
void unwind_forget(struct unwind *u, pid_t pid);

/* Code was mapped at [start, end) of pid: the rules cached for that range
 * go, and its Dwfl too if a module was reported there (a file replaced). */
void unwind_mapped(struct unwind *u, pid_t pid, uint64_t start, uint64_t end);

/* ips[0] is the sample's IP, then return addresses, outward. Returns how
 * many; *complete false when the stack could not be followed to its end
 * (the caller marks it [unknown] and counts it). */
size_t unwind_stack(struct unwind *u, pid_t pid, pid_t tid, const struct record *r, uint64_t *ips,
		    size_t max, bool *complete);

/* Of the last unwind_stack: the bytes of the stack copy its walk read
 * (from the stack pointer), and whether it wanted more than the copy held. */
void unwind_copy_used(const struct unwind *u, uint32_t *bytes, bool *ran_off);

struct unwind_stats {
	uint64_t stacks, truncated, dwfl_made, dwfl_dropped; /* truncated: cut short, not by max */
	/* The per-process cache of step rules (x86-64): frames stepped from a
	 * cached rule, rules read from CFI, and stacks libdw walked instead. */
	uint64_t rule_hits, rules_made, slow_walks;
};
void unwind_get_stats(const struct unwind *u, struct unwind_stats *st);

#endif
