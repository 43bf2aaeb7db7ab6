/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg's internals, shared by its files: agg_rows.c
 * (what every row kind shares), agg_settle.c (the memos' pending hits),
 * agg_tasks.c (task and thread rows), agg.c (symbol rows and the flat
 * sample path), agg_stack.c (-g), agg_roll.c (the interval's end, expiry),
 * agg_view.c (what readers see); agg_pairs.c and agg_annot.c (the
 * per-instruction records) call none of them, agg_annot_view.c (their
 * wants and reads) calls agg_settle. Each calls only those listed before
 * it (no circle). */
#ifndef PERFTOP_AGG_INT_H
#define PERFTOP_AGG_INT_H

#include "agg.h"
#include "htab.h"
#include "symbols.h"

/* Rows the roll must visit: those with interval counts, and exited tasks
 * ageing out. The roll's work follows them, not every row ever seen. */
struct rowlist {
	void **v;
	size_t n, cap;
};

/* Rows that went idle at roll `tick`, oldest first from head. */
struct idle {
	void *row;
	uint64_t tick;
};

struct idleq {
	struct idle *v;
	size_t head, n, cap;
};

/* The stack memo (-g): a stack counted before, by the same task under the
 * same name, adds its counts through what its first count found (its rows,
 * distinct, and its call-path tree nodes) with no lookup per frame. It
 * needs no invalidation: the rows it holds are in the call graph, which
 * never expires them, and tree nodes and edges are never freed; a renamed
 * task is caught by comparing the tree's comm with the task's. Two ways
 * a set: a new stack takes the way used least lately. A hit adds to the
 * rows' children and the nodes later, with the others (agg_settle). */
#define AGG_MEMO_SLOTS 512
#define AGG_MEMO_FRAMES 128       /* longer stacks are not memoised */

struct agg_memo {
	uint64_t hash;                /* 0: empty */
	uint32_t n, nrows;            /* frames; distinct rows */
	uint32_t used;                /* memo_tick when last hit or filled */
	uint64_t roll;                /* counted since this roll: rows and nodes already listed */
	uint64_t comm_gen;            /* the task's name it was counted under (agg_task.comm_gen) */
	uint32_t cap;                 /* frames that keys, rows and nodes have room for */
	uint32_t nnodes;              /* the tree's path, leaf to root */
	uint64_t *keys;               /* the frames' keys, leaf first; one block with: */
	struct agg_sym **rows;        /* distinct, rows[0] the leaf's (self) */
	uint32_t *nodes;              /* callgraph_path_nodes of leaf */
	/* Hits not yet added to the children counts and the tree (agg_settle):
	 * one add per stack an interval instead of one per frame a sample. */
	uint64_t pend_n, pend_period;
	size_t pend_ev;
};

/* The flat memo: the rows a sample without a stack went to, by where it
 * fell (pid, tid, IP, mode). It holds while two tags do: the symbols' of
 * what the resolve depended on (symbols_tag, handed in by the caller) and
 * rows_gen, which moves wherever a row it may hold goes or gets a new
 * owner (the places that drop the last lookups). A hit costs one probe
 * instead of a resolve and a symbol and a task row lookup. Direct-mapped:
 * a collision costs the long way. Made at the first sample it could keep. */
#define AGG_FLAT_BITS 11

struct agg_flat {
	uint64_t ip, tag;             /* tag 0: empty */
	int32_t pid, tid;
	uint32_t gen;                 /* rows_gen when filled */
	bool kernel;
	bool listed;                  /* in agg.flat_pend */
	uint8_t pend_ev;
	/* Hits not yet added to the rows (agg_settle): a hit adds to the
	 * event's and the CPU's counts, and here; the symbol's, task's and
	 * thread's rows get them all at once. */
	uint32_t pend_n;
	uint32_t off;                 /* the IP's offset in sym (sym_result.sym_off): its annotation count */
	uint64_t pend_period;
	struct agg_sym *sym;
	struct agg_task *task, *thread;
};

struct agg {
	size_t nevents;
	struct agg_event ev[AGG_MAX_EVENTS];
	struct htab syms, tasks, tids; /* key -> row: rows never move, so pointers stay good */
	struct agg_cpu *cpus;
	size_t ncpus;
	int *cpu_index;       /* cpu number -> row, -1 when not sampled */
	int max_cpu;
	void **sorted;
	size_t sorted_cap;
	/* Last lookups: consecutive samples mostly hit the same symbol/task. */
	struct agg_sym *last_sym;
	struct agg_task *last_task, *last_thread;
	pid_t last_tid;
	struct agg_counters cnt;
	bool has_cnt;
	struct cg *cg;
	uint64_t stamp;           /* stacks counted: children dedupe */
	struct rowlist act_syms, act_tasks, aging;
	bool walk_all;            /* a list could not grow: the next roll walks the maps */
	/* Expiry: rows that went idle, in the order they did (so the roll
	 * looks only at the oldest), and rows unlinked but not yet freed. */
	struct idleq idle_syms, idle_tasks;
	struct rowlist dead_syms, dead_tasks;  /* freed by the next roll not held */
	bool held;
	uint64_t rolls;
	size_t freed;             /* bytes freed since the heap was last trimmed */
	struct agg_stats st;      /* expired sums and counts; live counts filled on demand */
	uint64_t st_counts[4][2][AGG_MAX_EVENTS]; /* what st's expired sums point to */
	uint64_t *cpu_counts;     /* the CPU rows' counts, 4 * nevents each */
	struct agg_pairs *pairs;  /* agg_pairs_keep: the interval's (process, symbol) pairs */
	bool keep_pairs;
	struct agg_memo *memo;    /* AGG_MEMO_SLOTS, made with the call graph */
	bool memo_off;            /* tests: every stack the long way */
	uint64_t memo_hits;       /* tests: stacks the memo counted */
	bool memo_pending;        /* a way holds hits not yet added */
	uint32_t memo_tick;       /* ages the memo's ways */
	uint64_t comm_gens;       /* the last agg_task.comm_gen handed out */
	size_t cg_max;            /* tests: the tree's bound (0: CG_MAX_NODES_DEFAULT) */
	struct agg_flat *flat;    /* 1 << AGG_FLAT_BITS, NULL until the first fill */
	uint16_t *flat_pend;      /* the slots listed: each holds hits or did */
	size_t flat_npend;
	uint32_t rows_gen;
	/* What "since start" keeps (AGG_KEEP_TOP): ranked at most once a roll
	 * per kind (symbols, processes, threads), in a heap of keep_top. */
	size_t keep_top;          /* AGG_KEEP_TOP; tests: 0 lets every idle row expire */
	uint64_t rank_rolls[3];
	void **rank;
	bool flat_off;            /* tests: every flat sample the long way */
	uint64_t flat_hits;       /* tests: flat samples the memo counted */
	/* Per-instruction counts (agg_annot.c): the records, hot and wanted. */
	struct agg_annot_rec *annot[AGG_ANNOT_SYMS + AGG_ANNOT_WANT];
	size_t nannot;
	size_t annot_keep;        /* hottest symbols counted (agg_annot_keep) */
	char *annot_names[AGG_ANNOT_WANT]; /* wanted by name (agg_annot_want_name) */
	unsigned annot_name_wants[AGG_ANNOT_WANT];
	size_t nannot_names;
	uint64_t annot_dropped;
	/* Bits of the records' keys (agg_annot_keybit): a new row whose bit
	 * is clear has no record to find, without a look through them. */
	uint64_t annot_keys[16];
	/* The roll's ranking: a min-heap of the hottest rows it walked. */
	struct agg_sym *annot_top[AGG_ANNOT_SYMS];
	uint64_t annot_heat[AGG_ANNOT_SYMS]; /* their interval samples, all events */
	size_t annot_ntop;
	struct agg_annot_count *annot_out; /* what agg_annot_counts hands out */
	size_t annot_out_cap;
	struct agg_kinset *kin;   /* agg_kin.c: parents, NULL until the first */
	struct agg_groupset *grp; /* agg_group.c: --sort's rows, NULL without keys */
	agg_srcline_fn srcline_fn; /* agg_group_srcline_fn: names srcline's addresses */
	void *srcline_ctx;
};

/* agg_pairs.c: the sample path's side (event 0 only), the roll's, the end. */
/* n samples whose periods add up to period. */
void agg_pairs_add(struct agg *a, const struct agg_task *t, const struct agg_sym *s, uint64_t n, uint64_t period);
void agg_pairs_clear(struct agg *a);
void agg_pairs_free(struct agg *a);

/* Shared by agg's files: agg.c (rows, the flat sample path),
 * agg_tasks.c, agg_stack.c (-g), agg_roll.c (the interval's end). */

static inline size_t agg_hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

/* The row in a map's slot i, or NULL: for walking the maps. */
static inline void *agg_row_at(const struct htab *m, size_t i)
{
	return (void *)m->tab[i].val;
}

/* A row and its sets of counts in one block: a symbol row has four (self
 * and children, interval and total), a task row two. */
#define AGG_ROW_BYTES(head, sets, nev) ((head) + (sets) * 2 * (nev) * sizeof(uint64_t))
#define AGG_SYM_BYTES(nev) AGG_ROW_BYTES(sizeof(struct agg_sym), 4, (nev))
#define AGG_TASK_BYTES(nev) AGG_ROW_BYTES(sizeof(struct agg_task), 2, (nev))

/* agg_rows.c */
void agg_rows_push(struct agg *a, struct rowlist *l, void *row);
void agg_rows_moved(struct agg *a);
void agg_rows_counts_at(struct agg_counts *c, size_t n, uint64_t *v, size_t nev);
void agg_rows_sym_free(void *row);
/* Frees the rows expired by earlier rolls. */
void agg_rows_free_dead(struct agg *a);

/* agg.c */
struct agg_sym *agg_sym_row(struct agg *a, const struct sym_result *sr);
void agg_sample_rows(struct agg *a, size_t ev, int cpu, struct agg_sym *s, struct agg_task *t, uint64_t n,
		     uint64_t period, uint64_t off);

static inline void agg_sym_active(struct agg *a, struct agg_sym *s)
{
	if (!s->active) {
		s->active = true;
		agg_rows_push(a, &a->act_syms, s);
	}
}

static inline void agg_task_active(struct agg *a, struct agg_task *t)
{
	if (!t->active) {
		t->active = true;
		agg_rows_push(a, &a->act_tasks, t);
	}
}

/* n samples whose periods add up to period. */
static inline void agg_count_n(struct agg_counts *iv, struct agg_counts *total, size_t ev, uint64_t n,
			       uint64_t period)
{
	iv->samples[ev] += n;
	iv->period[ev] += period;
	total->samples[ev] += n;
	total->period[ev] += period;
}

/* n samples of this period in all to the symbol's, task's and thread's
 * rows (any may be NULL). */
static inline void agg_rows_count(struct agg *a, size_t ev, struct agg_sym *s, struct agg_task *t, struct agg_task *th,
			      uint64_t n, uint64_t period)
{
	if (s) {
		agg_count_n(&s->iv, &s->total, ev, n, period);
		agg_sym_active(a, s);
	}
	if (t) {
		agg_count_n(&t->iv, &t->total, ev, n, period);
		agg_task_active(a, t);
	}
	if (th) {
		agg_count_n(&th->iv, &th->total, ev, n, period);
		agg_task_active(a, th);
	}
}

static inline void agg_counts_add(struct agg_counts *to, const struct agg_counts *c, size_t nev)
{
	for (size_t e = 0; e < nev; e++) {
		to->samples[e] += c->samples[e];
		to->period[e] += c->period[e];
	}
}

/* One symbol's counts by offset (agg_annot.c): slots of 1 + 2 * nevents
 * words, the offset + 1 (0: empty) then the interval's counts per event
 * then the totals, so that a sample touches one slot's line. */
struct agg_annot_rec {
	uint64_t key;
	struct agg_sym *row;     /* NULL while its symbol has no row */
	uint32_t cap, n;         /* slots (a power of two, 0 before the first sample), used */
	uint32_t last;           /* the slot hit last: a loop hits the same offsets */
	uint64_t *slots;
	unsigned wants;          /* agg_annot_want ons not yet off */
	bool by_name;            /* its name is wanted (agg_annot_want_name) */
	bool hot;                /* ranked at the last roll */
	bool since_open;         /* began as wanted, not hot */
};


/* agg_annot.c: n samples at offset off of a counted symbol; a new row
 * (a wanted key or name gets its record); the roll's ranking and decay. */
void agg_annot_add(struct agg *a, struct agg_annot_rec *r, size_t ev, uint64_t off, uint64_t n);
void agg_annot_row(struct agg *a, struct agg_sym *s);
/* A row the roll walks, before its counts decay: among the hottest? */
void agg_annot_rank(struct agg *a, struct agg_sym *s, uint64_t heat);
void agg_annot_roll(struct agg *a, unsigned decay_pct);
void agg_annot_free(struct agg *a);
/* A row freed: its record (if any) no longer points to it. */
void agg_annot_unrow(struct agg_sym *s);
/* The records: key's index (nannot: none), a new one for key and its row
 * (NULL: none yet), one dropped, whether one is kept (hot or wanted), how
 * many are wanted, a wanted name's index (nannot_names: none). */
size_t agg_annot_index(const struct agg *a, uint64_t key);
struct agg_annot_rec *agg_annot_new(struct agg *a, uint64_t key, struct agg_sym *s);
void agg_annot_drop(struct agg *a, size_t i);
bool agg_annot_kept(const struct agg_annot_rec *r);
size_t agg_annot_nwanted(const struct agg *a);
size_t agg_annot_name_index(const struct agg *a, const char *name);

static inline void agg_annot_count(struct agg *a, struct agg_sym *s, size_t ev, uint64_t off, uint64_t n)
{
	struct agg_annot_rec *r;

	if (s == NULL || (r = s->annot) == NULL)
		return;
	/* A loop hits the offset it hit last: no probe, no call. */
	if (r->cap && r->slots[(size_t)r->last * (1 + 2 * a->nevents)] == off + 1) {
		uint64_t *v = &r->slots[(size_t)r->last * (1 + 2 * a->nevents) + 1];

		v[ev] += n;
		v[a->nevents + ev] += n;
		return;
	}
	agg_annot_add(a, r, ev, off, n);
}

static inline size_t agg_annot_keybit(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 54); /* 0..1023 */
}

/* Whether a new row's key may have a record, or its name be wanted. */
static inline bool agg_annot_maybe(const struct agg *a, uint64_t key)
{
	size_t b = agg_annot_keybit(key);

	return a->nannot_names || (a->annot_keys[b / 64] >> (b % 64) & 1);
}

static inline void agg_annot_consider(struct agg *a, struct agg_sym *s)
{
	uint64_t h = 0;

	if (a->annot_keep == 0 || s->gone)
		return;
	for (size_t e = 0; e < a->nevents; e++)
		h += s->iv.samples[e];
	if (h && (a->annot_ntop < a->annot_keep || h > a->annot_heat[0]))
		agg_annot_rank(a, s, h);
}

/* agg_tasks.c */
struct agg_task *agg_tasks_row(struct agg *a, pid_t pid, pid_t tid, const struct sym_result *sr);
/* The old owner's cumulative counts leave the row: into the expired sums. */
void agg_tasks_fold(struct agg *a, const struct agg_task *t);

/* agg_kin.c: the roll's sweep, the end. */
void agg_kin_roll(struct agg *a);
void agg_kin_free(struct agg *a);

/* agg_group.c: n samples of a sample's rows into its group; the roll. */
void agg_group_count(struct agg *a, size_t ev, int cpu, const struct agg_sym *s, const struct agg_task *t,
		     uint64_t off, uint64_t n, uint64_t period);
void agg_group_roll(struct agg *a, unsigned decay_pct);
void agg_group_free(struct agg *a);
/* agg_group_line.c: srcline's rows by address (rows[0..n), all of them)
 * summed into rows by (other keys, "file:line"), each address named once;
 * rows[] then holds those; how many. A line's row lives while an address
 * row is summed into it, and is freed a roll after the last goes (as rows
 * are: the live view's frame points to it meanwhile). */
struct agg_glines;
size_t agg_glines_merge(struct agg *a, struct agg_glines **l, unsigned mask, const struct agg_group **rows, size_t n);
/* An address row expired: its line loses it. */
void agg_glines_unref(struct agg *a, struct agg_glines *l, struct agg_group *g);
/* The lines of earlier rolls' expiries freed (the roll, when not held). */
void agg_glines_free_dead(struct agg_glines *l);
void agg_glines_free(struct agg_glines *l);

/* agg_settle.c: a slot's or a way's pending hits added to their rows. */
void agg_settle_flat(struct agg *a, struct agg_flat *f);
void agg_settle_memo(struct agg *a, struct agg_memo *m);

#endif
