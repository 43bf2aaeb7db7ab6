/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg: what the samples add up to. The one API the dump and the UI read:
 * per event, per symbol, per task and per CPU, for the current interval and
 * since start. Fed from the hot path; allocates only for a new row. */
#ifndef PERFTOP_AGG_H
#define PERFTOP_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "counters.h"
#include "evspec.h"

#define AGG_MAX_EVENTS 16
#define AGG_COMM_MAX 64
#define AGG_BUILD_ID_MAX 20

/* A row's counts per event, samples[e] and period[e] for e below
 * agg_nevents(): they point into storage the row owns, sized by the
 * session's events (a -g symbol row's four sets of one event fill one
 * cache line, not the 1 KiB of sixteen), so they live and die with it. */
struct agg_counts {
	uint64_t *samples;
	uint64_t *period;
};

struct agg_sym {
	uint64_t key;
	char *sym, *dso;        /* copied: rows outlive symbol-table eviction */
	bool kernel;
	uint8_t build_id_len;              /* the DSO's GNU build-id, 0: unknown */
	uint8_t build_id[AGG_BUILD_ID_MAX];
	struct agg_counts iv, total;       /* self: samples that ended here */
	struct agg_counts ch_iv, ch_total; /* children (-g): stacks through here, once each */
	uint64_t stamp;                    /* the last stack counted in ch_* */
	bool active;                       /* interval counts not all zero: rolled */
	bool in_cg;                        /* the call graph points here: never expires */
	bool queued;                       /* on the idle queue (agg.c) */
	bool gone;                         /* expired: unlinked, freed by a later roll (agg.c) */
	uint64_t idle_since;               /* the roll that found it idle (agg.c) */
	uint64_t serial;                   /* unique per row ever made: a returning key is a new row */
	uint64_t rank_roll;                /* the roll that found it within AGG_KEEP_TOP (agg_roll.c) */
	/* For annotation (sym_result's): the symbol's start in its file's
	 * address space (the kernel address for kernel code), its size (0
	 * unknown), and a process that sampled it (its /proc/PID/root,
	 * map_files, JIT memory): the last one the long way saw. */
	uint64_t start, size;
	pid_t pid;
	struct agg_annot_rec *annot;       /* per-offset counts, NULL when none (agg_annot.c) */
};

struct agg_task {
	pid_t pid;
	pid_t tid;              /* 0 on process rows; the thread on thread rows */
	char comm[AGG_COMM_MAX];
	uint64_t comm_gen;      /* new whenever comm is written (agg.c): a name's identity */
	/* Process rows: the process's threads, as the session last read them
	 * (agg_task_threads); until it has, the distinct TIDs seen sampling. */
	unsigned threads;
	unsigned threads_seen;  /* process rows: distinct TIDs seen sampling */
	bool threads_told;      /* threads is the session's count */
	bool exited;
	unsigned exited_ticks;  /* intervals since it exited */
	bool active, aging;     /* on the roll's lists (agg.c) */
	bool counted;           /* thread rows: counted in their process's threads_seen */
	bool is_thread, queued, gone; /* expiry's bookkeeping (agg.c) */
	uint64_t idle_since;    /* the roll that found it idle (agg.c) */
	uint64_t rank_roll;     /* the roll that found it within AGG_KEEP_TOP (agg_roll.c) */
	struct agg_counts iv, total;
};

struct agg_cpu {
	int cpu;
	struct agg_counts iv, total;
	uint64_t lost_iv, lost_total, throttled_iv, throttled_total;   /* all events */
	uint64_t ev_lost_total[AGG_MAX_EVENTS], ev_throttled_total[AGG_MAX_EVENTS]; /* per event */
};

/* Counts only: whether an event is on and what it excludes belong to the
 * engine (read through the session). */
struct agg_event {
	char name[EVSPEC_NAME_MAX];
	uint64_t samples_iv, samples_total;
	uint64_t period_iv, period_total;
	uint64_t lost_iv, lost_total;
	uint64_t throttled_iv, throttled_total;
	int running_pct;        /* of the last interval, on the PMU; -1 unknown */
};

enum agg_scope { AGG_INTERVAL, AGG_TOTAL };

struct agg;
struct agg_annot_rec;
struct cg;
/* A resolved frame (symbols.h): agg reads it, its contract does not need
 * the symbols' API. */
struct sym_result;

/* cpus: the CPU numbers sampled (rows appear in that order). */
struct agg *agg_new(size_t nevents, const int *cpus, size_t ncpus);
void agg_free(struct agg *a);

struct agg_event *agg_event(struct agg *a, size_t ev);
size_t agg_nevents(const struct agg *a);

/* Hot path. A new task row is named from sr->comm (its thread row from
 * sr->thread_comm): the caller hands names down, agg asks nobody. */
void agg_sample(struct agg *a, size_t ev, int cpu, pid_t pid, pid_t tid,
		const struct sym_result *sr, uint64_t period);
/* Where a sample without a stack fell, for the flat memo: tag is what the
 * resolve of (pid, ip, kernel) held under (symbols_tag); 0 keeps nothing. */
struct agg_where {
	pid_t pid, tid;
	uint64_t ip;
	bool kernel;
	uint64_t tag;
};
/* The same IP counted before, under the same tag and with its rows still
 * there, is counted again as agg_sample_at did (its rows' part at the
 * next agg_settle): true. False: nothing counted; resolve it and call
 * agg_sample_at. */
bool agg_sample_memo(struct agg *a, size_t ev, int cpu, const struct agg_where *w, uint64_t period);
/* agg_sample, remembering its rows under w for agg_sample_memo. */
void agg_sample_at(struct agg *a, size_t ev, int cpu, const struct agg_where *w, const struct sym_result *sr,
		   uint64_t period);
/* The same two for n samples whose periods add up to period (the
 * session's tally): as n calls, one period each. */
bool agg_samples_memo(struct agg *a, size_t ev, int cpu, const struct agg_where *w, uint32_t n, uint64_t period);
void agg_samples_at(struct agg *a, size_t ev, int cpu, const struct agg_where *w, const struct sym_result *sr,
		    uint32_t n, uint64_t period);
/* With call graphs: one sample's stack, frames[0] its own (leaf) symbol and
 * frames[n-1] the outermost. Self goes to the leaf as agg_sample does;
 * children once to each distinct symbol on the stack (recursion too); the
 * edges and the call-path tree to agg_callgraph(). */
void agg_sample_stack(struct agg *a, size_t ev, int cpu, pid_t pid, pid_t tid,
		      const struct sym_result *frames, size_t n, uint64_t period);
/* The same as hits samples whose periods add up to period: --off-cpu
 * counts a span as its microseconds (samples) and nanoseconds (period),
 * so that the call paths and callers weigh time. */
void agg_sample_stack_n(struct agg *a, size_t ev, int cpu, pid_t pid, pid_t tid,
			const struct sym_result *frames, size_t n, uint64_t hits, uint64_t period);
/* NULL until the first stack. Settled first (agg_settle). */
const struct cg *agg_callgraph(struct agg *a);
/* A stack the memo knows adds its children counts and call-path counts
 * later, once for all its hits, as a flat memo hit adds its symbol's,
 * task's and thread's counts (the event's and the CPU's at once): every
 * reader here (and agg_roll) settles them first; a reader of rows it kept
 * from before calls this. */
void agg_settle(struct agg *a);

/* Losses are kept per event and per CPU (cpu < 0: unknown). */
void agg_lost(struct agg *a, size_t ev, int cpu, uint64_t n);
void agg_throttle(struct agg *a, size_t ev, int cpu);

/* A new task under pid (a FORK, or an exec the process table calls a new
 * owner): if the row of that pid belongs to an owner that exited, it
 * starts again empty (name, threads, counts), as does its main thread's. */
void agg_task_new(struct agg *a, pid_t pid);

/* A task renamed (exec, prctl) or gone. */
void agg_task_comm(struct agg *a, pid_t pid, const char *comm);
/* A process's number of threads, as the session read it (/proc's
 * num_threads): what its row shows from then on, sampled or not. */
void agg_task_threads(struct agg *a, pid_t pid, unsigned n);
void agg_task_exit(struct agg *a, pid_t pid);
/* The same for one thread (its name may differ from its process's). */
void agg_thread_comm(struct agg *a, pid_t tid, const char *comm);
void agg_thread_exit(struct agg *a, pid_t tid);

/* Lifetimes. The arrays agg_* return are valid until the next agg_* call
 * that returns rows, agg_sample or agg_roll. The rows they point to (and
 * their strings) are valid until the next agg_roll, and a row that roll
 * expires is freed only by the roll after it (so a front end's copy taken
 * before a roll may be drawn until its next copy), or later while held.
 *
 * Expiry: a row no sample has touched for AGG_EXPIRE_IDLE intervals after
 * its interval counts decayed to zero (so it shows zero in every interval
 * view) goes, as does an exited task after AGG_EXIT_GRACE intervals,
 * unless "since start" keeps it (AGG_KEEP_TOP below). Its
 * cumulative counts stay in the events' totals (agg_base, shares) and in
 * agg_stats' expired sums, so rows + expired always equals the totals. A
 * key sampled again starts a fresh row (new serial) counting from there.
 * Symbols the call graph points to never expire. */
#define AGG_EXPIRE_IDLE 8

/* "Since start" keeps what can be shown: a row that would expire (idle, or
 * an exited task past its grace) stays while it ranks within the
 * AGG_KEEP_TOP rows of its kind (symbols, processes, threads) with most
 * samples since start of some event; it is judged again every
 * AGG_EXPIRE_IDLE rolls, and only rows below that fold into the expired
 * sums. A kept exited task's row still goes when its pid gets a new owner
 * (agg_task_new). */
#define AGG_KEEP_TOP 256

/* Rows sorted by the first event's samples in scope (then by all events'). */
size_t agg_symbols(struct agg *a, enum agg_scope scope, const struct agg_sym ***rows);
size_t agg_tasks(struct agg *a, enum agg_scope scope, const struct agg_task ***rows);
/* One row per thread (tid set), same order rules. */
size_t agg_threads(struct agg *a, enum agg_scope scope, const struct agg_task ***rows);
/* Only the rows with samples in scope (a symbol's children count too), in
 * no particular order, for a reader that sorts them its own way (the live
 * view): in the interval they come from the roll's lists, so the cost
 * follows the interval's rows, not every row ever seen. Same validity. */
size_t agg_symbols_in_scope(struct agg *a, enum agg_scope scope, const struct agg_sym ***rows);
size_t agg_tasks_in_scope(struct agg *a, enum agg_scope scope, const struct agg_task ***rows);
size_t agg_threads_in_scope(struct agg *a, enum agg_scope scope, const struct agg_task ***rows);

/* Symbol rows by children (-g), then self. */
size_t agg_symbols_children_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_sym ***rows);

/* The first `limit` rows only, in the same order, without sorting the rest
 * (the dump shows -E rows of thousands). */
size_t agg_symbols_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_sym ***rows);
size_t agg_tasks_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_task ***rows);
size_t agg_threads_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_task ***rows);
size_t agg_cpus(struct agg *a, const struct agg_cpu ***rows);

/* In no order, the rows whose counts may have changed this interval (all
 * those sampled since the last roll; a few more), task rows of processes
 * and threads alike: for readers that follow what grew without sorting or
 * walking every row ever seen. Valid until the next agg_sample/agg_roll. */
size_t agg_symbols_active(struct agg *a, const struct agg_sym ***rows);
size_t agg_tasks_active(struct agg *a, const struct agg_task ***rows);

/* Ends an interval: interval counters are zeroed (decay_pct 0) or scaled by
 * decay_pct/100 (the UI's decaying history); exited tasks age out. */
void agg_roll(struct agg *a, unsigned decay_pct);

/* While held (a paused screen or a cumulative view showing old copies),
 * rows still expire from the tables but none is freed; releasing lets the
 * next roll free them. */
void agg_hold(struct agg *a, bool hold);

/* agg's own accounting, for --stats and tests. */
struct agg_stats {
	size_t syms, tasks, threads;        /* live rows */
	size_t active_syms, active_tasks;   /* with interval counts: what a roll walks */
	size_t held;                        /* expired rows not yet freed */
	uint64_t expired_syms, expired_tasks, expired_threads; /* rows expired, ever */
	/* Their cumulative counts (kept by agg: read them before it is freed). */
	struct agg_counts sym_expired, task_expired, thread_expired;
	struct agg_counts sym_ch_expired;   /* their children counts (-g) */
};
void agg_get_stats(const struct agg *a, struct agg_stats *st);

/* Samples of the first event in scope: the denominator of "share". */
uint64_t agg_base(const struct agg *a, enum agg_scope scope);

/* A row's share in percent of agg_base. */
double agg_share(const struct agg *a, const struct agg_counts *c, enum agg_scope scope);

/* Focus mode's exact counters as read at the interval's end, handed over
 * by the session so that the dump and the screen read one place. */
struct agg_counter_row {
	struct counter_row c;
	char comm[AGG_COMM_MAX];
};

struct agg_counters {
	size_t nevents;
	char names[COUNTERS_MAX][EVSPEC_NAME_MAX];
	struct agg_counter_row *procs, *threads;
	size_t nprocs, nthreads, procs_cap, threads_cap;
};

/* Starts a new reading (drops the previous rows); names: the counted events. */
int agg_counters_begin(struct agg *a, const char *const *names, size_t n);
/* One row (tid 0: a process row, else a thread row). 0 or -ENOMEM. */
int agg_counters_add(struct agg *a, const struct counter_row *r, const char *comm);
/* NULL outside focus mode (no agg_counters_begin yet). */
const struct agg_counters *agg_counters(const struct agg *a);
/* The row of a process (tid 0) or a thread, or NULL. */
const struct agg_counter_row *agg_counter_row(const struct agg_counters *c, pid_t pid, pid_t tid);

/* Samples of the first event per (process, symbol) in the current interval,
 * in no order: for an exporter that needs the pair (a profile's comm label)
 * without sorting or diffing every row. Kept only while asked for
 * (agg_pairs_keep, 0 or -ENOMEM); agg_roll empties them. Valid until the
 * next agg_sample/agg_roll. */
struct agg_pair {
	const struct agg_task *task;      /* the process row */
	const struct agg_sym *sym;
	uint64_t samples, period;
};
int agg_pairs_keep(struct agg *a, bool on);
size_t agg_pairs(const struct agg *a, const struct agg_pair **pairs);

/* Per-instruction counts (agg_annot.c): samples by offset from the
 * symbol's start (sym_result.sym_off), per event, in the interval (decayed
 * as the rows' counts) and since counting began. Kept at all times for the
 * AGG_ANNOT_SYMS symbols with most recent samples (interval counts of all
 * events, ranked at each agg_roll: a symbol counts from the roll after it
 * became hot) and for every wanted one (agg_annot_want, up to
 * AGG_ANNOT_WANT); a symbol that drops out of both loses its counts. Each
 * keeps at most AGG_ANNOT_OFFSETS distinct offsets (more are counted as
 * dropped, agg_annot_stats). Memory bound: (AGG_ANNOT_SYMS + AGG_ANNOT_WANT)
 * records of at most 2 * AGG_ANNOT_OFFSETS slots of (8 + 16 * nevents)
 * bytes: 7.5 MiB for one event (agg_annot_bytes_max). */
#define AGG_ANNOT_SYMS 64
#define AGG_ANNOT_WANT 16
#define AGG_ANNOT_OFFSETS 2048

struct agg_annot_count {
	uint64_t offset, samples;
};

/* How many hottest symbols are counted (AGG_ANNOT_SYMS by default; 0:
 * only wanted ones, at most AGG_ANNOT_SYMS). From the next roll. */
void agg_annot_keep(struct agg *a, size_t nsyms);
/* Count the symbol of this key (sym_result.key) from now on, whether hot
 * or not, or stop wanting it (it keeps counting while hot). Wants nest:
 * each on needs its off. 0, -ENOSPC (AGG_ANNOT_WANT wanted already) or
 * -ENOMEM. */
int agg_annot_want(struct agg *a, uint64_t key, bool on);
/* The same for every symbol of this name (agg_sym.sym) there is or comes:
 * the dump's --sym-annotate, counted from the symbol's first sample. Its
 * symbols count against AGG_ANNOT_WANT. 0, -ENOSPC or -ENOMEM. */
int agg_annot_want_name(struct agg *a, const char *name, bool on);
/* The symbol's counts of event ev in scope, sorted by offset, offsets
 * with no samples in scope left out; *out valid until the next agg_* call
 * that samples, rolls or reads counts. *counting_since_open (may be
 * NULL): its counts began when it was wanted (it was not among the
 * hottest then), so they cover only the time since. 0 when not counted. */
size_t agg_annot_counts(struct agg *a, uint64_t key, size_t ev, enum agg_scope scope,
			const struct agg_annot_count **out, bool *counting_since_open);

struct agg_annot_stats {
	size_t records;         /* symbols counted now */
	size_t offsets;         /* distinct offsets they hold */
	size_t bytes;           /* what their tables take */
	uint64_t dropped;       /* samples of offsets beyond AGG_ANNOT_OFFSETS, ever */
};
void agg_annot_stats(const struct agg *a, struct agg_annot_stats *st);
/* The bound on agg_annot_stats.bytes for nevents events. */
size_t agg_annot_bytes_max(size_t nevents);

/* Parentage (agg_kin.c): a process's parent and the name of an ancestor
 * that took no samples, as the session handed them (FORK records, and
 * /proc/PID/stat at the interval's end); for the task tree and "ppid". */
struct agg_kin {
	pid_t pid, ppid;        /* ppid 0: no parent known (a root) */
	char comm[AGG_COMM_MAX]; /* "" until told */
	uint64_t used;          /* the roll that last reached it from a task row */
};
/* pid's parent (and name, when comm is not NULL or ""). */
void agg_kin_note(struct agg *a, pid_t pid, pid_t ppid, const char *comm);
/* A known pid renamed (exec); an unknown one is not made. */
void agg_kin_name(struct agg *a, pid_t pid, const char *comm);
/* The parent as told, 0 for none, -1 when nobody told. */
pid_t agg_ppid(const struct agg *a, pid_t pid);
const struct agg_kin *agg_kin_of(const struct agg *a, pid_t pid);
/* Up to max pids the process rows' ancestry reaches whose parent nobody
 * told: for the session to read /proc and call agg_kin_note (again, until
 * none: each call goes one level further). Keeps what it reached. */
size_t agg_kin_missing(struct agg *a, pid_t *out, size_t max);
/* Every kin known, in no order; valid until the next agg_kin_* or agg_roll. */
size_t agg_kin_all(struct agg *a, const struct agg_kin ***rows);

/* perf top's --sort (agg_group.c): rows per composite key, the keys in
 * the order asked. Counted from every sample path once keys are set;
 * interval and since start, rolled and expired as the symbol rows are
 * (same lifetimes); their strings are the rows' own. */
enum agg_gkey { AGG_GK_COMM, AGG_GK_PID, AGG_GK_DSO, AGG_GK_SYM, AGG_GK_CPU, AGG_GK_SRCLINE, AGG_GK_COUNT };

struct agg_group {
	uint64_t hash;
	char comm[AGG_COMM_MAX];  /* keyed by comm, else "" */
	pid_t pid;                /* keyed by pid, else -1 */
	int cpu;                  /* keyed by cpu, else -1 */
	char *dso, *sym;          /* keyed by dso (or sym), sym; else NULL */
	bool kernel;
	uint64_t sym_key;         /* the symbol's identity (agg_sym.key) */
	struct agg_counts iv, total;
	bool active, idle;        /* on the roll's lists (agg_group.c) */
	uint64_t idle_since;
	/* srcline: the rows read out are one per (other keys, "file:line"),
	 * summed at each read from the rows per sampled address, each named
	 * at the first read after its first sample (agg_group_line.c). */
	char *srcline;            /* a line's row: its "file:line" (its own copy) */
	struct agg_group *line;   /* an address's row: its line's row, NULL until named */
	uint32_t refs;            /* a line's row: the address rows summed into it */
	uint64_t off;             /* the address's offset in its symbol */
	uint64_t sym_start;       /* agg_sym.start: the symbol in its file's addresses */
	pid_t spid;               /* a process that sampled it: its /proc/PID/root */
	uint8_t build_id_len;
	uint8_t build_id[AGG_BUILD_ID_MAX];
};

/* --sort srcline: an address in a file, for the session to name its source
 * line (the DWARF line table, never on the sample path: agg asks at the
 * read after the address's first sample, once per address row). */
struct agg_srcline_q {
	const char *dso;          /* the path as mapped */
	const uint8_t *build_id;
	size_t build_id_len;
	uint64_t addr;            /* in the file's addresses (ELF vaddr) */
	pid_t pid;                /* a process that mapped it, -1 unknown */
};
/* "file:line" into out; false when the file has no line for addr. */
typedef bool (*agg_srcline_fn)(void *ctx, const struct agg_srcline_q *q, char *out, size_t len);
/* Who names addresses for srcline's rows (NULL: every one "??:0"). */
void agg_group_srcline_fn(struct agg *a, agg_srcline_fn fn, void *ctx);

/* perf's key names (comm, pid, dso, sym, cpu, srcline; "symbol" for sym)
 * as a comma list into keys: how many, or -EINVAL (unknown, twice, empty). */
int agg_group_parse(const char *s, enum agg_gkey *keys, size_t max);
const char *agg_group_key_name(enum agg_gkey k);
/* The keys rows are made of from now on (the rows so far are dropped);
 * n 0: no grouping. 0, -EINVAL or -ENOMEM. */
int agg_group_keys(struct agg *a, const enum agg_gkey *keys, size_t n);
size_t agg_group_nkeys(const struct agg *a, const enum agg_gkey **keys);
/* The keys a fresh agg takes over from old (the live view's g), else
 * sort_keys' (--sort; NULL or bad: none): how many. */
size_t agg_group_carry(const struct agg *old, const char *sort_keys, enum agg_gkey keys[AGG_GK_COUNT]);
/* Rows with samples in scope, in no order / the first limit by the first
 * event's samples (then the others'); valid as agg_symbols' arrays. */
size_t agg_groups_in_scope(struct agg *a, enum agg_scope scope, const struct agg_group ***rows);
size_t agg_groups_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_group ***rows);
/* A key's value as text (raw: sanitise it to print); short_dso: the
 * path's file name. buf: room for a number. */
const char *agg_group_value(const struct agg_group *g, enum agg_gkey k, bool short_dso, char *buf, size_t len);
/* The keys' values joined by two spaces, leaving out those in skip (bits
 * 1 << key); the length. */
size_t agg_group_label(const struct agg *a, const struct agg_group *g, unsigned skip, char *buf, size_t len);
/* The expired rows' cumulative counts and how many (rows + expired = totals). */
void agg_group_expired(const struct agg *a, struct agg_counts *out, uint64_t *rows);

/* How many intervals an exited task stays visible. */
#define AGG_EXIT_GRACE 3

#endif
