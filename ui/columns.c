/* SPDX-License-Identifier: GPL-2.0-or-later */
/* columns: what each view's columns show and sort by. Rows are the frame's
 * copies of agg rows; text from other processes is marked foreign and
 * sanitised when drawn. */
#include <stdio.h>
#include <string.h>

#include "columns.h"

/* --- symbols ----------------------------------------------------------- */

static const struct agg_counts *sym_counts(const void *row, enum agg_scope sc)
{
	const struct agg_sym *r = row;

	return sc == AGG_INTERVAL ? &r->iv : &r->total;
}

uint64_t columns_counts_sum(const struct ui *u, const struct agg_counts *c)
{
	uint64_t t = 0;

	for (size_t i = 0; i < u->fr.nev; i++)
		t += c->samples[i];
	return t;
}

static double share(const struct ui *u, const struct agg_counts *c, size_t ev)
{
	uint64_t base = ui_base(u, ev);

	return base ? 100.0 * (double)c->samples[ev] / (double)base : 0.0;
}

static double num_overhead(const struct ui *u, const void *row, size_t ev)
{
	return share(u, columns_counts_of(u, row), ui_primary(u));
}

static void text_overhead(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f%%", num_overhead(u, row, ev));
}

const struct agg_counts *columns_children_of(const struct ui *u, const struct agg_sym *row)
{
	return ui_scope(u) == AGG_INTERVAL ? &row->ch_iv : &row->ch_total;
}

/* -g: stacks through the symbol, as perf top's Children; the marker says
 * whether its call tree is open (-) or can be (+). */
static double num_children(const struct ui *u, const void *row, size_t ev)
{
	return share(u, columns_children_of(u, row), ui_primary(u));
}

static void text_children(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	snprintf(buf, len, "%c%7.2f%%", calltree_is_for(u, row) ? '-' : '+', num_children(u, row, ev));
}

static double num_samples(const struct ui *u, const void *row, size_t ev)
{
	return (double)columns_counts_sum(u, columns_counts_of(u, row));
}

static void text_samples(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	paint_fmt_count(buf, len, num_samples(u, row, ev));
}

static double num_ev_samples(const struct ui *u, const void *row, size_t ev)
{
	return (double)columns_counts_of(u, row)->samples[ev];
}

static void text_ev_samples(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	paint_fmt_count(buf, len, num_ev_samples(u, row, ev));
}

static double num_ev_share(const struct ui *u, const void *row, size_t ev)
{
	return share(u, columns_counts_of(u, row), ev);
}

static void text_ev_share(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f%%", num_ev_share(u, row, ev));
}

static const char *str_dso(const void *row)
{
	const char *d = ((const struct agg_sym *)row)->dso, *slash;

	if (d == NULL)
		return "";
	if (strcmp(d, "[kernel.kallsyms]") == 0)
		return "[kernel]";
	/* The file's name, as perf top shows it; the path is in the filter. */
	slash = strrchr(d, '/');
	return slash && slash[1] ? slash + 1 : d;
}

static void text_dso(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	strlcpy(buf, str_dso(row), len);
}

static void text_mode(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	strlcpy(buf, !groups_has_mode(u, row) ? "" : ((const struct agg_sym *)row)->kernel ? "[k]" : "[.]", len);
}

static const char *str_mode(const void *row)
{
	return ((const struct agg_sym *)row)->kernel ? "k" : ".";
}

static const char *str_sym(const void *row)
{
	const char *s = ((const struct agg_sym *)row)->sym;

	return s ? s : "";
}

static void text_sym(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	groups_hier_text(u, row, buf, len); /* the symbol, or --hierarchy's line */
}

static uint64_t sym_key(const void *row)
{
	return ((const struct agg_sym *)row)->key;
}

static bool sym_match(const void *row, const char *pat)
{
	const struct agg_sym *r = row;

	return (r->sym && strcasestr(r->sym, pat)) || (r->dso && strcasestr(r->dso, pat));
}

static enum ui_role sym_role(const void *row, const struct column *c)
{
	return ((const struct agg_sym *)row)->kernel && (c->text == text_mode || c->text == text_sym)
	       ? R_KERNEL : R_NORMAL;
}

static double num_delta(const struct ui *u, const void *row, size_t ev)
{
	return compare_delta(u, row);
}

static void text_delta(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	compare_text(u, row, buf, len);
}

static const struct column sym_cols[] = {
	{ "Children", 9, .cg = 1, .text = text_children, .num = num_children },
	{ "Self", 8, .cg = 1, .text = text_overhead, .num = num_overhead },
	{ "Overhead", 8, .cg = -1, .text = text_overhead, .num = num_overhead },
	{ "Samples", 8, .text = text_samples, .num = num_samples },
	{ "Delta", 7, .baseline = true, .text = text_delta, .num = num_delta },
	{ NULL, 10, .per_event = true, .multi_only = true, .text = text_ev_samples, .num = num_ev_samples },
	{ "Shared Object", 13, .left = true, .foreign = true, .shrinks = true, .fit = true, .text = text_dso,
	  .str = str_dso },
	/* "Symbol" over "[k] name", as perf top has it; the mode sorts alone. */
	{ "Symbol", 3, .sort_name = "[k]/[.]", .span = true, .left = true, .text = text_mode, .str = str_mode },
	{ "", 0, .sort_name = "Symbol", .left = true, .foreign = true, .text = text_sym, .str = str_sym },
};

/* --- tasks ------------------------------------------------------------- */

static const struct agg_counts *task_counts(const void *row, enum agg_scope sc)
{
	const struct agg_task *r = row;

	return sc == AGG_INTERVAL ? &r->iv : &r->total;
}

static double num_pid(const struct ui *u, const void *row, size_t ev)
{
	return (double)((const struct agg_task *)row)->pid;
}

static void text_pid(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	snprintf(buf, len, "%d", (int)((const struct agg_task *)row)->pid);
}

/* Thread rows (H) show their TID here; process rows their PID again. */
static double num_tid(const struct ui *u, const void *row, size_t ev)
{
	const struct agg_task *t = row;

	return (double)(t->tid ? t->tid : t->pid);
}

static void text_tid(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	snprintf(buf, len, "%d", (int)num_tid(u, row, ev));
}

static double num_threads(const struct ui *u, const void *row, size_t ev)
{
	return ((const struct agg_task *)row)->threads;
}

static void text_threads(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	const struct agg_task *t = row;

	if (t->tid)
		strlcpy(buf, "-", len);
	else
		snprintf(buf, len, "%u", t->threads);
}

static double num_cpu_pct(const struct ui *u, const void *row, size_t ev)
{
	return taskcpu_pct(u, row);
}

static void text_cpu_pct(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	double p = taskcpu_pct(u, row);

	if (p < 0)
		strlcpy(buf, "-", len);
	else
		snprintf(buf, len, "%.1f", p);
}

/* Ratio columns: ev is the ratio kind. Rows without one sort last. */
static double num_ratio(const struct ui *u, const void *row, size_t ev)
{
	struct ratio r[RATIO_COUNT];

	ui_task_ratios(u, row, r);
	return r[ev].valid ? r[ev].value : -1.0;
}

static void text_ratio(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	struct ratio r[RATIO_COUNT];

	ui_task_ratios(u, row, r);
	ratios_format(&r[ev], (enum ratio_kind)ev, buf, len);
}

static const char *str_comm(const void *row)
{
	return ((const struct agg_task *)row)->comm;
}

static void text_comm(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	const struct agg_task *t = row;
	char pre[128];

	tasktree_prefix(u, row, pre, sizeof(pre)); /* t: the tree's lines */
	snprintf(buf, len, "%s%s%s", pre, t->comm, t->exited ? " (exited)" : "");
}

static uint64_t task_key(const void *row)
{
	const struct agg_task *t = row;

	return (uint64_t)(t->tid ? t->tid : t->pid);
}

static bool task_match(const void *row, const char *pat)
{
	const struct agg_task *t = row;
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)t->pid);
	if (strcasestr(t->comm, pat) || strcmp(pid, pat) == 0)
		return true;
	snprintf(pid, sizeof(pid), "%d", (int)t->tid);
	return t->tid && strcmp(pid, pat) == 0;
}

static enum ui_role task_role(const void *row, const struct column *c)
{
	return ((const struct agg_task *)row)->exited ? R_DIM : R_NORMAL;
}

static const struct column task_cols[] = {
	{ "PID", 7, .asc = true, .text = text_pid, .num = num_pid },
	{ NULL, 10, .per_event = true, .text = text_ev_share, .num = num_ev_share },
	/* top's %CPU beside the share of samples: busy, not just sampled */
	{ "CPU%", 6, .text = text_cpu_pct, .num = num_cpu_pct },
	/* --off-cpu: blocked ms a second, all and by state (ev: SPANS_NSTATES = all) */
	{ "Off/s", 6, .offcpu = true, .sort_name = "Off-CPU ms/s", .text = waits_text_off, .num = waits_num_off },
	{ "S/s", 5, .offcpu = true, .sort_name = "sleeping ms/s", .text = waits_text_off_s, .num = waits_num_off_s },
	{ "D/s", 5, .offcpu = true, .sort_name = "uninterruptible ms/s", .text = waits_text_off_d,
	  .num = waits_num_off_d },
	{ "R/s", 5, .offcpu = true, .sort_name = "preempted ms/s", .text = waits_text_off_r,
	  .num = waits_num_off_r },
	{ "Samples", 8, .text = text_samples, .num = num_samples },
	{ "TID", 7, .asc = true, .threads_only = true, .text = text_tid, .num = num_tid },
	{ "Thr", 4, .text = text_threads, .num = num_threads },
	{ "IPC", 6, .ratio = 1 + RATIO_IPC, .text = text_ratio, .num = num_ratio },
	{ "Miss%", 7, .ratio = 1 + RATIO_CACHE_MISS, .text = text_ratio, .num = num_ratio },
	{ "BrMiss%", 7, .ratio = 1 + RATIO_BRANCH_MISS, .text = text_ratio, .num = num_ratio },
	{ "COMM", 0, .left = true, .foreign = true, .text = text_comm, .str = str_comm },
};

/* --- CPUs -------------------------------------------------------------- */

static const struct agg_counts *cpu_counts(const void *row, enum agg_scope sc)
{
	const struct agg_cpu *r = row;

	return sc == AGG_INTERVAL ? &r->iv : &r->total;
}

static double num_cpu(const struct ui *u, const void *row, size_t ev)
{
	return ((const struct agg_cpu *)row)->cpu;
}

static void text_cpu(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	snprintf(buf, len, "%d", ((const struct agg_cpu *)row)->cpu);
}

static double num_rate(const struct ui *u, const void *row, size_t ev)
{
	size_t i = (size_t)((const struct agg_cpu *)row - u->fr.cpus);

	return i < u->fr.ncpus ? u->fr.cpu_rate[i] : 0.0;
}

static void text_rate(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	paint_fmt_count(buf, len, num_rate(u, row, ev));
}

static double num_lost(const struct ui *u, const void *row, size_t ev)
{
	const struct agg_cpu *c = row;

	return (double)(ui_scope(u) == AGG_INTERVAL ? c->lost_iv : c->lost_total);
}

static void text_lost(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	paint_fmt_count(buf, len, num_lost(u, row, ev));
}

static double num_throttled(const struct ui *u, const void *row, size_t ev)
{
	const struct agg_cpu *c = row;

	return (double)(ui_scope(u) == AGG_INTERVAL ? c->throttled_iv : c->throttled_total);
}

static void text_throttled(const struct ui *u, const void *row, size_t ev, char *buf, size_t len)
{
	paint_fmt_count(buf, len, num_throttled(u, row, ev));
}

static uint64_t cpu_key(const void *row)
{
	return (uint64_t)((const struct agg_cpu *)row)->cpu;
}

static bool cpu_match(const void *row, const char *pat)
{
	char cpu[16];

	snprintf(cpu, sizeof(cpu), "%d", ((const struct agg_cpu *)row)->cpu);
	return strcmp(cpu, pat) == 0;
}

static const struct column cpu_cols[] = {
	{ "CPU", 5, .asc = true, .text = text_cpu, .num = num_cpu },
	{ "Overhead", 8, .text = text_overhead, .num = num_overhead },
	{ "Samples", 8, .text = text_samples, .num = num_samples },
	{ NULL, 10, .per_event = true, .multi_only = true, .text = text_ev_samples, .num = num_ev_samples },
	{ "Samples/s", 9, .text = text_rate, .num = num_rate },
	{ "Lost", 7, .text = text_lost, .num = num_lost },
	{ "Throttled", 9, .text = text_throttled, .num = num_throttled },
};

/* --- waits (--off-cpu; the rows and their figures: waits.c) ------------ */

static const struct column wait_cols[] = {
	{ "Off/s", 8, .sort_name = "blocked ms/s through it", .text = waits_text_children, .num = waits_num_children },
	{ "Self/s", 8, .sort_name = "blocked ms/s in it", .text = waits_text_self, .num = waits_num_self },
	{ "Shared Object", 13, .left = true, .foreign = true, .shrinks = true, .fit = true, .text = waits_text_dso,
	  .str = waits_str_dso },
	{ "Wait symbol", 3, .sort_name = "[k]/[.]", .span = true, .left = true, .text = waits_text_mode,
	  .str = waits_str_mode },
	{ "", 0, .sort_name = "Wait symbol", .left = true, .foreign = true, .text = waits_text_sym,
	  .str = waits_str_sym },
};

const struct view_def columns_views[VIEW_COUNT] = {
	[VIEW_SYMBOLS] = { "Symbols", sym_cols, sizeof(sym_cols) / sizeof(sym_cols[0]), sym_counts,
			   sym_key, sym_match, sym_role },
	[VIEW_TASKS] = { "Tasks", task_cols, sizeof(task_cols) / sizeof(task_cols[0]), task_counts,
			 task_key, task_match, task_role },
	[VIEW_CPUS] = { "CPUs", cpu_cols, sizeof(cpu_cols) / sizeof(cpu_cols[0]), cpu_counts,
			cpu_key, cpu_match, NULL },
	[VIEW_WAITS] = { "Waits", wait_cols, sizeof(wait_cols) / sizeof(wait_cols[0]), waits_counts,
			 waits_key, waits_match, waits_role },
};

const struct agg_counts *columns_counts_of(const struct ui *u, const void *row)
{
	return columns_views[u->view].counts(row, ui_scope(u));
}

