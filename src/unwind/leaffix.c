/* SPDX-License-Identifier: GPL-2.0-or-later */
/* leaffix: -g's leaf fix (leaffix.h), moved down from the session: the
 * process table's answers come through leaffix_ops. */
#include "leaffix.h"

#include <stdio.h>
#include <stdlib.h>

/* The rule at a leaf, by (pid, IP), while the pid's maps stay as they
 * were: a warm leaf costs one lookup here instead of a map lookup in the
 * process table (which the chain's resolve does again) and one in the rule
 * cache. 2048 entries, direct-mapped: a collision costs those lookups. */
#define LEAF_MEMO_BITS 11
#define LEAF_MEMO_NONE (-1) /* CFARULE_NONE */
#define LEAF_MEMO_NO (-2)   /* the cache cannot answer: libdw unwinds */

struct leaf_memo {
	uint64_t ip;
	int32_t pid;
	uint32_t gen; /* maps_gen; 0: empty */
	int32_t ra_off;
};

struct leaffix {
	struct unwind *unw;
	const struct leaffix_ops *ops;
	void *arg;
	struct cfarule_cache *rules; /* NULL: libdw alone */
	struct leaf_memo *memo;      /* with the rules */
	uint64_t memo_hits, fixed;
};

struct leaffix *leaffix_new(struct unwind *unw, const struct leaffix_ops *ops, void *arg, unsigned rule_bits)
{
	struct leaffix *lf = calloc(1, sizeof(*lf));

	if (lf == NULL)
		return NULL;
	lf->unw = unw;
	lf->ops = ops;
	lf->arg = arg;
	/* The rules belong to the code, not the process: one table for all. */
	if (rule_bits && ((lf->rules = cfarule_new(rule_bits)) == NULL ||
			  (lf->memo = calloc((size_t)1 << LEAF_MEMO_BITS, sizeof(*lf->memo))) == NULL)) {
		leaffix_free(lf);
		return NULL;
	}
	return lf;
}

void leaffix_free(struct leaffix *lf)
{
	if (lf == NULL)
		return;
	cfarule_free(lf->rules);
	free(lf->memo);
	free(lf);
}

static struct leaf_memo *memo_slot(struct leaffix *lf, pid_t pid, uint64_t ip)
{
	uint64_t h = (ip ^ (uint64_t)(uint32_t)pid << 40) * 0x9e3779b97f4a7c15ull;

	return &lf->memo[h >> (64 - LEAF_MEMO_BITS)];
}

/* The leaf's rule from the rule cache, read from the CFI on a miss; false
 * when the cache cannot answer. */
static bool rule_find(struct leaffix *lf, pid_t pid, bool abi64, uint64_t leaf, struct cfarule *rule)
{
	struct unwind_map m;
	uint32_t id;
	uint64_t off;
	bool vdso;

	if (!lf->ops->map_dso(lf->arg, pid, leaf, &id, &off, &vdso))
		return false;
	/* Our vDSO's CFI is a 64-bit process's; a 32-bit one's is its own
	 * (the unwinder reads it from the process). */
	if (vdso && !abi64)
		return false;
	if (!cfarule_get(lf->rules, id, off, rule)) {
		if (vdso)
			snprintf(m.path, sizeof(m.path), "%s", CFARULE_VDSO);
		else if (!lf->ops->map_at(lf->arg, pid, leaf, &m))
			return false;
		if (!cfarule_has_handle(lf->rules, id))
			lf->ops->slow_work(lf->arg); /* opens the file for its CFI */
		if (!cfarule_derive_dso(lf->rules, id, m.path, off, rule))
			return false;
		cfarule_put(lf->rules, id, off, *rule);
	}
	return true;
}

/* The leaf fix from the rule cache: false when it cannot answer (no file
 * behind the leaf, a 32-bit process's vDSO, or not x86-64), and libdw
 * unwinds. */
static bool by_rule(struct leaffix *lf, const struct record *r, uint64_t leaf, uint64_t *ret)
{
	pid_t pid = (pid_t)r->sid.pid;
	struct leaf_memo *lm = lf->memo ? memo_slot(lf, pid, leaf) : NULL;
	struct cfarule rule;
	bool known;

	if (lm == NULL) {
		if (!rule_find(lf, pid, r->sample.regs_abi == PERF_SAMPLE_REGS_ABI_64, leaf, &rule))
			return false;
	} else if (lm->ip == leaf && lm->pid == pid && lm->gen && lm->gen == lf->ops->maps_gen(lf->arg, pid)) {
		lf->memo_hits++;
		if (lm->ra_off == LEAF_MEMO_NO)
			return false;
		rule = lm->ra_off == LEAF_MEMO_NONE ? (struct cfarule){ CFARULE_NONE, 0 }
						    : (struct cfarule){ CFARULE_SP, lm->ra_off };
	} else {
		known = rule_find(lf, pid, r->sample.regs_abi == PERF_SAMPLE_REGS_ABI_64, leaf, &rule);
		/* The tag after the lookup: a first sample of a process reads /proc. */
		*lm = (struct leaf_memo){ leaf, pid, lf->ops->maps_gen(lf->arg, pid),
					  !known ? LEAF_MEMO_NO : rule.kind == CFARULE_SP ? rule.ra_off : LEAF_MEMO_NONE };
		if (!known)
			return false;
	}
	*ret = cfarule_apply(rule, r, unwind_regs_mask(), leaf);
	return true;
}

bool leaffix_rule(struct leaffix *lf, pid_t pid, uint64_t leaf, struct cfarule *out)
{
	return lf->rules && rule_find(lf, pid, true, leaf, out);
}

uint64_t leaffix_return(struct leaffix *lf, const struct record *r, uint64_t leaf, uint64_t next)
{
	uint64_t ips[2];
	bool complete;

	if (lf->rules && by_rule(lf, r, leaf, ips)) {
		if (ips[0] == 0 || ips[0] == next)
			return 0;
		lf->fixed++;
		return ips[0];
	}
	if (unwind_stack(lf->unw, (pid_t)r->sid.pid, (pid_t)r->sid.tid, r, ips, 2, &complete) != 2 ||
	    ips[0] != leaf || ips[1] == next)
		return 0;
	lf->fixed++;
	return ips[1];
}

void leaffix_idle(struct leaffix *lf)
{
	if (lf && lf->rules)
		cfarule_close_idle(lf->rules);
}

void leaffix_get_stats(const struct leaffix *lf, struct leaffix_stats *st)
{
	*st = (struct leaffix_stats){ 0 };
	if (lf == NULL)
		return;
	st->fixed = lf->fixed;
	st->memo_hits = lf->memo_hits;
	st->has_rules = lf->rules != NULL;
	if (lf->rules)
		cfarule_get_stats(lf->rules, &st->rules);
}
