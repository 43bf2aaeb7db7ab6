/* SPDX-License-Identifier: GPL-2.0-or-later */
/* leaffix: -g's leaf fix. A user leaf that keeps no frame leaves the frame
 * pointer on its caller's frame, so the chain's next entry is the caller's
 * return and the caller itself is missing. Its return address comes from
 * the leaf's CFI and the registers and bit of stack the sample carries: a
 * rule cached by (DSO, offset) (cfarule), a memo by (pid, IP) in front of
 * it, libdw (unwind) where the cache cannot answer. What it needs of the
 * process table above it comes as a table of functions. */
#ifndef PERFTOP_LEAFFIX_H
#define PERFTOP_LEAFFIX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cfarule.h"
#include "record.h"
#include "unwind.h"

struct leaffix_ops {
	/* The DSO (an id for the rule cache) and file offset of addr in pid,
	 * and whether it is the vDSO; false: no file behind it. */
	bool (*map_dso)(void *arg, pid_t pid, uint64_t addr, uint32_t *id, uint64_t *off, bool *vdso);
	/* The file behind addr, to read its CFI. */
	unwind_map_fn map_at;
	/* A tag of pid's maps that moves whenever they change (0: unknown). */
	uint32_t (*maps_gen)(void *arg, pid_t pid);
	/* Called before slow work (opening a file for its CFI). */
	void (*slow_work)(void *arg);
};

struct leaffix;

/* unw (kept by the caller) walks what the rules cannot answer; rule_bits
 * 0: no rule cache, every leaf through libdw (benchmarks compare the two);
 * else at most 2^rule_bits rules (cfarule_new). NULL: out of memory. */
struct leaffix *leaffix_new(struct unwind *unw, const struct leaffix_ops *ops, void *arg, unsigned rule_bits);
void leaffix_free(struct leaffix *lf);

/* The return address of the user leaf `leaf` of sample r (the chain's next
 * entry is `next`): the missing caller, or 0 when the chain is right or
 * nothing can be told. r must carry the user registers. */
uint64_t leaffix_return(struct leaffix *lf, const struct record *r, uint64_t leaf, uint64_t next);

/* The rule at user IP leaf of (64-bit) process pid, for a caller that
 * applies it itself (offbpf, in the kernel); false when the rule cache
 * cannot tell (no file behind it, no CFI, not x86-64). */
bool leaffix_rule(struct leaffix *lf, pid_t pid, uint64_t leaf, struct cfarule *out);

/* Once an interval: files no recent leaf needed are closed. */
void leaffix_idle(struct leaffix *lf);

struct leaffix_stats {
	uint64_t fixed;        /* leaves whose caller was given back */
	uint64_t memo_hits;    /* rules the (pid, IP) memo answered */
	bool has_rules;        /* rules below is the rule cache's */
	struct cfarule_stats rules;
};
void leaffix_get_stats(const struct leaffix *lf, struct leaffix_stats *st);

#endif
