/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ui: the live view's shared state. The model is a frame: copies of the
 * aggregation's rows taken at each tick (so a paused screen stays still while
 * sampling goes on); views filter and sort it through a column table; key
 * actions change the state and return what must be redrawn; only the main
 * loop (tui.c) draws. */
#ifndef PERFTOP_UI_H
#define PERFTOP_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agg.h"
#include "counters.h"
#include "htab.h"
#include "options.h"
#include "procstat.h"
#include "ratios.h"
#include "session.h"

/* VIEW_WAITS: --off-cpu's, in the Tab cycle while off-CPU tables exist. */
enum ui_view { VIEW_SYMBOLS, VIEW_TASKS, VIEW_CPUS, VIEW_WAITS, VIEW_COUNT };
enum ui_mode { MODE_MAIN, MODE_EVENTS, MODE_EXCLUDE, MODE_HELP, MODE_PROMPT, MODE_SORT, MODE_PATHS, MODE_SETUP,
	MODE_ANNOTATE };
enum ui_prompt { PROMPT_FILTER, PROMPT_INTERVAL, PROMPT_FREQ, PROMPT_SEARCH, PROMPT_KILL, PROMPT_USER,
		 PROMPT_GROUP };

/* What an action asks of the main loop. */
enum {
	UI_DRAW = 1u << 0,     /* repaint */
	UI_RESORT = 1u << 1,   /* filter and sort the rows again, then repaint */
	UI_CLEAR = 1u << 2,    /* forget what the terminal shows, then repaint */
	UI_QUIT = 1u << 3,
	UI_REOPEN = 1u << 4,   /* ui->reopen says what: the loop stops the engine for it */
};

/* Display roles; paint.c maps them to colours or to monochrome attributes. */
enum ui_role {
	R_NORMAL, R_LABEL, R_VALUE, R_HEAD, R_HEAD_SORT, R_SELECTED, R_KERNEL, R_DIM,
	R_METER, R_WARN, R_ERROR, R_FKEY, R_FLABEL, R_PANEL, R_PANEL_SEL, R_OFF, R_TAGGED, R_ROLES
};

/* Colour schemes (paint.c), as perftoprc's colors names them. */
enum ui_scheme { SCHEME_DEFAULT, SCHEME_MONO, SCHEME_LIGHT, SCHEME_COLORBLIND, SCHEME_COUNT };

/* Header lines shown (setup's meters). */
enum { METER_EVENTS = 1u << 0, METER_SYSTEM = 1u << 1, METER_CPUS = 1u << 2, METER_ALL = 7 };

#define UI_MAX_COLS 24      /* columns of a view's table (columns.c) */

#define UI_DECAY_PCT 75
#define UI_MIN_W 60
#define UI_MIN_H 12

/* Copies of the agg's rows at the last tick. Symbol rows keep pointers to
 * the agg's strings: valid until agg_free, so the frame is dropped first. */
struct ui_frame {
	struct agg_sym *syms;
	size_t nsyms, syms_cap;
	struct agg_task *tasks;
	size_t ntasks, tasks_cap;
	struct agg_task *threads;  /* thread rows, for H */
	size_t nthreads, threads_cap;
	struct agg_cpu *cpus;
	double *cpu_rate;          /* samples/s, all events */
	double *cpu_busy;          /* % busy from /proc/stat; < 0: unknown */
	size_t ncpus, cpus_cap, rate_cap, busy_cap;
	uint64_t *counts;          /* the copies' counts (agg's rows point to their own) */
	size_t counts_cap;
	struct procstat_sys sys;   /* load, tasks, memory */
	bool sys_ok;
	struct agg_event ev[AGG_MAX_EVENTS];
	bool on[AGG_MAX_EVENTS];       /* the engine's state, as the session said at the tick */
	unsigned excl[AGG_MAX_EVENTS];
	double ev_rate[AGG_MAX_EVENTS];
	size_t nev;
	double lap;                /* the interval really measured */
	/* focus mode's exact counters (none elsewhere) */
	size_t ncnt;
	char cnt_name[COUNTERS_MAX][EVSPEC_NAME_MAX];
	struct counter_row *cprocs, *cthreads;
	size_t ncprocs, ncthreads, cprocs_cap, cthreads_cap;
	bool ratio_avail[RATIO_COUNT]; /* some task row has it: its column shows */
	struct agg_kin *kin;       /* parents at the tick (agg_kin), for the task tree */
	size_t nkin, kin_cap;
};

/* Call graphs (-g): the frame's copy of the agg's call-path tree, taken at
 * the tick with its strings (agg rows may be freed later), so that a tree
 * opened between ticks shows that interval and a paused screen stays still. */
struct ui_cgsym {
	uint32_t name, dso;        /* offsets into the pool */
	bool kernel, comm;         /* comm: a root's child, the task's name */
};

struct ui_cgsnap {
	uint32_t *parent, *sym;    /* node 0 the root; children after parents */
	uint64_t *samples;         /* inclusive, of event ev in scope */
	size_t n, cap;
	struct ui_cgsym *syms;
	size_t nsyms, syms_cap;
	char *pool;
	size_t plen, pcap;
	struct htab imap;          /* agg row (or comm) -> syms index + 1 */
	uint32_t *map;             /* cg node -> node here, while taking */
	size_t map_cap;
	size_t ev;
	enum agg_scope scope;
	uint64_t base, other;      /* the share's denominator; stacks past the cg's bound */
	double ms;                 /* the wait agg's (samples are µs): ms a sample shows as; 0: shares */
};

/* A call tree as shown: merged from the snapshot; node 0 the root. Lines
 * are known by the hash of their path's names (id), so expansion and the
 * selection follow them across refreshes. */
struct ui_tnode {
	uint32_t sym;              /* UINT32_MAX: the root or "other" */
	uint32_t parent, first, next, depth;
	uint64_t samples, id;
};

enum ui_tree_kind { TREE_CALLERS, TREE_CALLEES, TREE_PATHS };

#define UI_TREE_EXP 256

struct ui_tree {
	enum ui_tree_kind kind;
	bool open;
	char *sym, *dso;           /* inline trees: the symbol followed (copies) */
	bool kernel;
	struct ui_tnode *n;
	size_t nn, ncap;
	uint32_t *vis;             /* the lines shown, root first */
	size_t nvis, vis_cap;
	uint64_t exp[UI_TREE_EXP]; /* ids of the expanded lines */
	size_t nexp;
	size_t sel, top, page;     /* selected line (index into vis); F5's scroll */
	uint64_t sel_id;
	bool in;                   /* inline: the selection is on a tree line */
	bool waits;                /* its source: the wait agg's snapshot (the Waits view), not the samples' */
	bool wakers;               /* (waits) the wake agg's: W, who woke the wait */
	bool hot;                  /* opened along its hottest path once it has lines (W) */
	struct htab hash;          /* building: parent << 32 | sym -> node index */
};

/* %CPU of a task row shown: its CPU time at the last read. */
#define UI_TASKCPU 256
struct ui_taskcpu {
	pid_t id;                  /* TID of a thread row, else PID */
	bool thread;               /* a thread row's own times, not its process's */
	uint64_t ticks, seq;
	double when, pct;          /* pct < 0: not known yet */
};

/* A Wait view row: a wait agg symbol's blocked time, copied at the tick
 * (its strings the agg's, valid until agg_free as the frame's are). */
struct ui_wait {
	const char *sym, *dso;
	bool kernel;
	uint64_t key;
	double children_ms, self_ms; /* a second: ms/s in the interval, else ms since start */
	uint64_t children;         /* blocked µs through it in scope: its tree's whole */
};

/* A task's or thread's off-CPU ms a second in the interval, per state. */
struct ui_offtask {
	pid_t pid, tid;
	double ms[SPANS_NSTATES];
};

struct ui_waits {
	struct ui_wait *rows;
	size_t n, cap;
	struct ui_offtask *tasks;
	size_t ntasks, tcap;
	struct htab idx;           /* tid (process: pid | 1 << 32) -> tasks index + 1 */
	bool shown;                /* the session has off-CPU tables */
	struct ui_cgsnap cg;       /* the wait agg's call-path tree at the tick (calltree.c) */
	struct ui_cgsnap wake;     /* the wake agg's (W); its n 0 without sched_waking */
	bool wake_known;           /* the session has a wake agg */
};

struct ui_reopen {
	bool pending;
	pid_t pid;                 /* focus on it; 0: back */
	uint64_t freq;             /* non-zero: new rate, same target */
	bool system_wide;          /* back past the command line's target too */
};

/* A row as a number column sorts it: its value taken once. */
struct ui_sort_item {
	double num;
	uint64_t key;
	const void *row;
};

struct ui {
	struct session *s;
	const struct options *o;
	struct ui_frame fr;
	enum ui_view view;
	enum ui_mode mode, prev_mode;
	size_t sort_col[VIEW_COUNT];
	bool sort_inv[VIEW_COUNT];
	size_t sel[VIEW_COUNT], top[VIEW_COUNT];
	size_t hscroll[VIEW_COUNT];  /* Left/Right: columns skipped of long names */
	uint64_t sel_key[VIEW_COUNT];
	bool sel_valid[VIEW_COUNT];
	const void **rows;         /* the current view's rows: filtered, sorted */
	size_t nrows, rows_cap;
	struct ui_sort_item *items; /* the sort's scratch: each row's value and key */
	size_t items_cap;
	char filter[VIEW_COUNT][64]; /* each view its own, as typed there */
	char search[64];           /* F3: selects, hides nothing */
	pid_t kill_pid;            /* F9: asked for confirmation */
	char user[32];             /* u: the Tasks view shows this user's tasks; "" all */
	uid_t user_uid;
	/* sampling */
	bool paused, cumulative, decay;
	uint64_t freq, period;
	uint64_t prev_ev_total[AGG_MAX_EVENTS];
	uint64_t *prev_cpu_total;
	size_t prev_ncpus;
	struct procstat_cpu prev_stat[CPUMAP_MAX];
	size_t nprev_stat;
	/* focus */
	pid_t focus;               /* 0: the options' target */
	bool left_start;           /* Esc took us off a -p/-t/-G target */
	bool ended;                /* every focused process exited: figures kept */
	bool final_taken;          /* …and the last interval is in the frame */
	pid_t ended_pid;
	bool threads;              /* H: thread rows in the tasks view */
	/* call graphs (-g) */
	bool callgraph;
	struct ui_cgsnap cg;
	struct ui_tree tree;       /* inline, under its symbol's row */
	struct ui_tree paths;      /* F5: the whole call-path tree */
	struct ui_annot *annot;    /* a: the annotate view (annview.h); NULL until opened */
	size_t tree_row;           /* the row the inline tree hangs under; SIZE_MAX: none shown */
	struct ui_reopen reopen;
	struct ui_taskcpu taskcpu[UI_TASKCPU];
	struct ui_waits waits;     /* --off-cpu (waits.c) */
	uint64_t frame_seq;        /* ticks taken: %CPU is read once per tick */
	/* panels and prompt */
	size_t panel_sel, help_top;
	size_t help_page;          /* the help's lines on screen, for PgUp/PgDn */
	enum ui_prompt prompt;
	char input[64], input_saved[64];
	char hint[32];             /* d, F: the value now; typing replaces it */
	/* message line */
	char msg[256];
	bool msg_error;
	time_t msg_until;
	/* screen: where things were drawn, for the mouse */
	struct { int x0, x1, key; } bar_hit[24];
	int nbar_hit;
	int table_y, table_rows;   /* first row on screen, rows shown */
	int head_y;                /* the column titles' line */
	struct { int x0, x1; size_t col; } head_hit[48];
	int nhead_hit;
	struct timespec last_click;  /* a second press on the same row soon: double click */
	size_t last_click_row;
	int tab_x[VIEW_COUNT + 1]; /* tab v spans tab_x[v] .. tab_x[v+1]-1 */
	int page;                  /* table rows on screen, for PgUp/PgDn */
	bool color;
	char host[64], kernel[80];
	time_t fixed_time;         /* render test: a frozen clock, and uptime 0 */
	int exit_code;
	bool quit;
	long frames; /* ticks drawn, for -n */
	bool stdin_gone;
	/* tags (tags.c): IDs as F9 signals them (a thread row's TID, else PID) */
	pid_t *tags;
	size_t ntags, tags_cap;
	bool save_pending;         /* P: the table written at the next tick (save.c) */
	/* settings (prefs.c, setup.c): perftoprc's and the state file's */
	enum ui_scheme scheme;
	unsigned meters;           /* METER_* shown */
	int start_view;            /* perftoprc's view: -1 the last one (state) */
	bool col_custom[VIEW_COUNT];
	uint8_t col_order[VIEW_COUNT][UI_MAX_COLS]; /* columns shown, in order (col_custom) */
	size_t ncol_order[VIEW_COUNT];
	bool clean_quit;           /* q or F10: settings changed are written */
	char state_path[512];
	size_t setup_sec, setup_sel, setup_col; /* the setup screen's selection */
	bool task_tree;            /* t: the Tasks view as a tree (tasktree.c) */
	struct tasktree *tt;
	struct groups *groups;     /* --sort's rows (groups.c) */
	struct baseline *baseline; /* compared with (compare.c): --baseline's or own_baseline */
	struct baseline *own_baseline; /* B's */
};

/* ui.c: the state's queries, read by the frame, the call trees and the views. */
enum agg_scope ui_scope(const struct ui *u);
/* The event shares are computed against: the first one switched on. */
size_t ui_primary(const struct ui *u);
uint64_t ui_base(const struct ui *u, size_t ev);
/* The frame's counter row of a task (tid 0: its process), or NULL. */
const struct counter_row *ui_counter_row(const struct ui *u, pid_t pid, pid_t tid);
/* A task row's ratios: exact from its counters, else estimated from samples. */
void ui_task_ratios(const struct ui *u, const struct agg_task *t, struct ratio out[RATIO_COUNT]);
/* The same from a counter row alone. */
void ui_counter_ratios(const struct ui *u, const struct counter_row *r, struct ratio out[RATIO_COUNT]);
/* Why the table has no rows, when no filter hides them: paused, every
 * event off, user and kernel both excluded, or no samples yet. */
void ui_empty_why(const struct ui *u, char *buf, size_t len);
/* The message line's text, shown for a few seconds (errors longer). */
void ui_message(struct ui *u, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* frame.c */
void frame_take(struct ui *u, struct agg *a, double lap);
void frame_clear(struct ui *u);
/* The events' on/off and exclude state again from the session (after a key changed them). */
void frame_events(struct ui *u);
void frame_free(struct ui *u);

/* calltree.c: the snapshot, trees built from it, their lines; treeview.c: drawn. */
void calltree_snap_take(struct ui *u, struct agg *a);
void calltree_snap_clear(struct ui *u);
void calltree_snap_free(struct ui *u);
/* Opens row's tree (callers), replacing any other; 0 or -ENOMEM. */
int calltree_open(struct ui *u, const struct agg_sym *row);
void calltree_close(struct ui *u);
bool calltree_is_for(const struct ui *u, const struct agg_sym *row);
/* The same trees on the Waits view's rows, from the wait agg's call paths
 * (waits_take takes them): weighted by blocked time, shown in ms. */
void calltree_snap_take_waits(struct ui *u, struct agg *wait, struct agg *wake, double lap);
void calltree_snap_clear_waits(struct ui *u);
int calltree_open_wait(struct ui *u, const struct ui_wait *row);
/* W: the wait's callers in the wake agg, which lead past "-- woken by --"
 * into its wakers' stacks. */
int calltree_open_wakers(struct ui *u, const struct ui_wait *row);
bool calltree_is_for_wait(const struct ui *u, const struct ui_wait *row);
/* Whether the open inline tree belongs to the view shown, and hangs under
 * its row (a symbol row, a wait row). */
bool calltree_in_view(const struct ui *u);
bool calltree_row_is(const struct ui *u, const void *row);
/* The snapshot tree t is built from, and a symbol of it. */
const struct ui_cgsnap *calltree_snap(const struct ui *u, const struct ui_tree *t);
const struct ui_cgsym *calltree_snap_sym(const struct ui_cgsnap *c, uint32_t sym);
/* (Re)builds a tree from the snapshot, keeping expansion and selection. */
void calltree_build(struct ui *u, struct ui_tree *t);
/* The lines shown again after an expansion changed. */
void calltree_lines(struct ui_tree *t);
bool calltree_expanded(const struct ui_tree *t, uint32_t node);
void calltree_set_expanded(struct ui_tree *t, uint32_t node, bool on);
void calltree_select(struct ui_tree *t, size_t vis);
/* Line vis's text and role (sanitised: names come from other processes). */
void treeview_line(const struct ui *u, const struct ui_tree *t, size_t vis, char *buf, size_t len,
	       enum ui_role *role);
/* A node's symbol in the snapshot, or NULL (the root, "other"). */
const struct ui_cgsym *calltree_sym(const struct ui *u, uint32_t sym);
/* The name of a node (root: the tree's symbol, or "all"). */
const char *calltree_name(const struct ui *u, const struct ui_tree *t, uint32_t node);
void calltree_free(struct ui_tree *t);
/* F5's full-screen view. */
void treeview_paths_draw(struct ui *u, int h, int w);
/* tree_keys.c: F5 opens its tree along the hottest path, self included
 * (calltree_hottest's). */
void tree_keys_hottest(struct ui_tree *t);
void calltree_hottest(struct ui_tree *t);

/* annview*.c: the annotate view (a). Opens on a frame's symbol row (the
 * Symbols view's, a call-tree line's through annview_row_named). */
unsigned annview_open(struct ui *u, const struct agg_sym *row);
/* a (a key action): the selected symbol row's, call-tree line's (F5's too). */
unsigned annview_open_selected(struct ui *u, int key);
/* After the table's c z Z + - in the view (r: what it returned): c's
 * scope read at once. */
unsigned annview_table_key(struct ui *u, int key, unsigned r);
const struct agg_sym *annview_row_named(const struct ui *u, const char *sym, const char *dso);
/* frame_take: the open symbols' counts of the tick; frame_clear: the agg goes. */
void annview_take(struct ui *u, struct agg *a);
void annview_forget(struct ui *u);
void annview_draw(struct ui *u, int h, int w);
/* The selected line in full for the message line: address, source, samples. */
void annview_detail(const struct ui *u, char *buf, size_t len);
/* The search prompt (/) is open: it reads every key. */
bool annview_typing(const struct ui *u);
unsigned annview_prompt_key(struct ui *u, int key);
/* A click (the wheel comes as Up and Down keys). */
unsigned annview_mouse(struct ui *u, int y, int x);
void annview_free(struct ui *u);
/* waits.c: --off-cpu's Wait view rows and the Tasks view's Off-CPU
 * columns, taken with the frame; O turns it on and off. */
void waits_take(struct ui *u, double lap);
void waits_clear(struct ui *u);
void waits_free(struct ui *u);
bool waits_shown(const struct ui *u);
/* A task row's off-CPU ms/s per state, NULL when none. */
const struct ui_offtask *waits_task(const struct ui *u, const struct agg_task *t);
unsigned waits_toggle(struct ui *u, int key);

/* taskcpu.c: %CPU of the task rows drawn (read once a tick). */
void taskcpu_update(struct ui *u, const struct agg_task *t);
double taskcpu_pct(const struct ui *u, const struct agg_task *t);

/* taskuid.c: u's match, exited tasks by the uid they had; noted at each
 * new frame. */
void taskuid_note(const struct ui *u);
bool taskuid_match(const struct ui *u, const struct agg_task *t);

/* soon.c: before the interval comes round. soon_start: sampling (re)
 * started, the first tick comes early; soon_early: whether the tick now
 * is that one (it is not one of -n's frames); soon_again: after it, another
 * early while the frame has nothing to show, up to half an interval.
 * soon_draw: a redraw in secs (a row's second %CPU reading), by the
 * timerfd soon_fd (-1: none) the main loop watches; soon_fire: it fired,
 * the redraw is due. */
void soon_start(const struct ui *u);
bool soon_early(void);
void soon_again(const struct ui *u);
int soon_fd(void);
void soon_draw(double secs);
bool soon_fire(void);

/* tasktree.c: t's tree of processes. tasktree_build turns the sorted
 * rows into the tree's lines (views_build calls it while tasktree_on). */
bool tasktree_on(const struct ui *u);
void tasktree_build(struct ui *u);
/* A line's tree lines ("" off the tree); whether it stands for a subtree
 * (an ancestor that took no samples, or folded): its counts are the sums. */
void tasktree_prefix(const struct ui *u, const void *row, char *buf, size_t len);
bool tasktree_ancestor(const struct ui *u, const void *row);
/* t; + and - on the tree (fold, open). */
unsigned tasktree_key(struct ui *u, int key);
unsigned tasktree_fold(struct ui *u, int key);
void tasktree_free(struct ui *u);

/* groups.c: --sort's rows in the Symbols view, g, --hierarchy. */
bool groups_on(const struct ui *u);
/* The frame's symbol rows from the agg's group rows; false: no keys. */
bool groups_take(struct ui *u, struct agg *a);
bool groups_title(const struct ui *u, const char *title, char *buf, size_t len);
bool groups_has_mode(const struct ui *u, const void *row);
unsigned groups_key(struct ui *u, int key);
unsigned groups_apply(struct ui *u);
bool groups_hier_on(const struct ui *u);
void groups_hier_build(struct ui *u);
void groups_hier_text(const struct ui *u, const void *row, char *buf, size_t len);
/* Right, Left, Enter on --hierarchy's lines; 0: nothing to do there. */
unsigned groups_hier_key(struct ui *u, int key);
void groups_free(struct ui *u);

/* compare.c: the Delta column against a baseline (B, --baseline). */
bool compare_on(const struct ui *u);
double compare_delta(const struct ui *u, const void *row);
void compare_text(const struct ui *u, const void *row, char *buf, size_t len);
enum ui_role compare_role(const struct ui *u, const void *row);
unsigned compare_key(struct ui *u, int key);
void compare_free(struct ui *u);

/* views.c */
void views_build(struct ui *u);
void views_draw(struct ui *u, int y, int h, int w);
size_t views_ncols(const struct ui *u);
/* The event the table sorts by (a per-event column's), else the first on. */
size_t views_sort_event(const struct ui *u);
/* Column i's name as the sort menu and the tab line say it. */
void views_col_name(const struct ui *u, size_t i, char *buf, size_t len);
const char *views_title(const struct ui *u, enum ui_view v);
uint64_t views_row_key(const struct ui *u, const void *row);
bool views_match(const struct ui *u, const void *row, const char *pat);
/* The table's lines: rows, and the inline call tree's lines under its row. */
size_t views_nlines(const struct ui *u);
size_t views_sel_line(const struct ui *u);
void views_select_line(struct ui *u, size_t line);
/* Line i: a row's index (*tl SIZE_MAX), or the tree line *tl under row tree_row. */
size_t views_line(const struct ui *u, size_t i, size_t *tl);
/* The selected row's full DSO path and name (symbols), or "". */
void views_detail(const struct ui *u, char *buf, size_t len);

/* header.c */
int header_height(const struct ui *u, int h, int w);
void header_draw(struct ui *u, int w, int h);
void header_footer_draw(struct ui *u, int y, int w);
void header_message_draw(struct ui *u, int y, int w);

/* panels.c */
void panels_draw(struct ui *u, int h, int w);
void panels_help_draw(struct ui *u, int h, int w);
/* Focus mode's counters section, between the header and the table. */
int panels_counters_height(const struct ui *u, int avail, int w);
void panels_counters_draw(struct ui *u, int y, int lines, int w);

/* keys.c */
unsigned keys_dispatch(struct ui *u, int key);
/* mouse.c: a mouse event (KEY_MOUSE read) to what it means here. */
unsigned mouse_event(struct ui *u);
/* The help, read from the key tables: section titles (NULL past the last)
 * and their documented rows (false past the last). */
struct ui_keyhelp { const char *keys, *what; };
const char *keys_section(size_t s);
bool keys_doc(size_t s, size_t i, struct ui_keyhelp *out);

/* paint.c */
void paint_init(struct ui *u);
int paint_attr(enum ui_role r);
void paint_text(int y, int x, int w, enum ui_role r, const char *s, bool right);
void paint_foreign(int y, int x, int w, enum ui_role r, const char *s);
/* Prose (messages, hints, titles): too long, it is cut after a whole
 * word and marked with '~', never mid-word. */
void paint_words(int y, int x, int w, enum ui_role r, const char *s);
void paint_foreign_words(int y, int x, int w, enum ui_role r, const char *s);
/* A name (symbol, comm, tree line): too long, it is cut at the line's end
 * and marked with '~' in its last column. */
void paint_name(int y, int x, int w, enum ui_role r, const char *s);
void paint_fill(int y, int x, int w, enum ui_role r);
/* A blank in the role's full attributes: a gap between two cells of one
 * colour, which a plain blank would cut with two attribute changes. */
void paint_gap(int y, int x, enum ui_role r);
void paint_box(int y, int x, int h, int w, const char *title);
/* The frame to the terminal (refresh), leaving out the rows drawn as they
 * were; all: compare none (after a resize, a resume, a clear). */
void paint_refresh(bool all);
/* Rows the last paint_refresh handed to ncurses (the others were as shown). */
int paint_rows_sent(void);
void paint_free(void);
void paint_fmt_count(char *buf, size_t len, double v);
void paint_fmt_bytes(char *buf, size_t len, uint64_t b);
/* A duration in ns as "12.3ms", "4.56s": clock counters count ns. */
void paint_fmt_nsec(char *buf, size_t len, double ns);

/* colset.c: a view's columns as settings name them: shown, in order. A
 * spanning column ("Symbol" over [k]) and the one it spans are one. */
size_t colset_list(const struct ui *u, enum ui_view v, size_t *out, size_t max);
/* Every column of the view that can be listed (not a span's second). */
size_t colset_all(enum ui_view v, size_t *out, size_t max);
const char *colset_name(enum ui_view v, size_t col);
/* The column named so (case-insensitive), or -1. */
int colset_find(enum ui_view v, const char *name);
bool colset_shown(const struct ui *u, enum ui_view v, size_t col);
/* False while the column's mode is off (--off-cpu/O, a baseline, -g or not):
 * the setup leaves it out of its list, the order and columns.VIEW keep it. */
bool colset_available(const struct ui *u, enum ui_view v, size_t col);
/* Shown on/off; moved one place (dir -1, 1) among the shown available. */
void colset_toggle(struct ui *u, enum ui_view v, size_t col);
void colset_move(struct ui *u, enum ui_view v, size_t col, int dir);

/* tags.c: Space, Y, Ctrl-U; F9 on the tagged (ui.c: whether an ID is). */
bool ui_tagged(const struct ui *u, pid_t id);
unsigned tags_signal(struct ui *u, int sig);

/* save.c: P's table, written when the tick has it. */
void save_write(struct ui *u, double lap);

/* prefs.c: perftoprc's live-view keys and the state file, read at the
 * start (after the first frame) and written at a clean quit. */
void prefs_load(struct ui *u);
/* The sorts, once the first frame says the events; the values to compare
 * with at the quit are taken then. */
void prefs_load_sort(struct ui *u);
/* At a clean quit: perftoprc's keys changed in the live view, and the
 * state; a failure is one line on stderr (the terminal is back). */
void prefs_save(struct ui *u);
/* "Samples", "Samples, inverted": view v's sort as the file says it. */
void prefs_sort_text(const struct ui *u, enum ui_view v, char *buf, size_t len);
extern const char *const prefs_scheme_names[SCHEME_COUNT];

/* views.c: the sort column's identity, kept across a change of columns. */
void views_sort_get(const struct ui *u, const void **col, size_t *ev);
void views_sort_set(struct ui *u, const void *col, size_t ev);

/* setup.c: the F2 screen, whole. */
void setup_draw(struct ui *u, int h, int w);

/* paint.c: another scheme, at once (the pairs made again). */
void paint_scheme(struct ui *u, enum ui_scheme s);

/* screen.c: the state's defaults, and one whole frame on the screen */
void ui_init(struct ui *u, struct session *s, const struct options *o);
void ui_free(struct ui *u);
void screen_draw(struct ui *u, unsigned what);

#endif
