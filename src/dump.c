/* dump: every table is described once (its JSON key, CSV name, text lines
 * and the fields of its rows) and walked by the three writers, so the
 * formats cannot drift apart. */
#include "dump.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evspec.h"
#include "json.h"
#include "ratios.h"
#include "sanitize.h"

#define NAME_MAX_OUT 1024

/* One row of any table, as every format sees it. */
struct drow {
	const char *name;                  /* symbol, comm, event, CPU number */
	const char *dso;
	int kernel;                        /* -1: not a symbol row */
	long pid, tid;                     /* -1: none */
	uint64_t samples, period, lost, throttled;
	uint64_t samples_total, lost_total, throttled_total;
	double share;
	const struct agg_counts *counts;   /* NULL: none (a counter-only row) */
	const struct agg_task *task;       /* task and thread rows that took samples */
	const struct agg_counter_row *cr;  /* focus mode's exact counters */
	struct session_event ev;           /* event rows */
	int running_pct;
	int cpu;
	struct ratio ratios[RATIO_COUNT];
	char num[16];
};

/* What a row's JSON object holds, in order; a field without data is left out. */
enum field {
	F_NAME, F_SYMBOL, F_DSO, F_KERNEL, F_PID, F_TID, F_COMM, F_CPU, F_ENABLED, F_SAMPLES,
	F_PERIOD, F_SHARE, F_THREADS, F_EXITED, F_LOST, F_THROTTLED, F_SAMPLES_TOTAL,
	F_LOST_TOTAL, F_THROTTLED_TOTAL, F_RUNNING, F_EXCLUDE, F_COUNTS, F_COUNTERS, F_RATIOS,
	F_END,
};

struct dctx {
	FILE *f;
	enum dump_format fmt;
	const struct session *s;
	struct agg *a;
	const struct agg_counters *ac;
	const struct dump_meta *m;
	size_t limit;
	struct session_event evs[AGG_MAX_EVENTS];
	bool enabled[AGG_MAX_EVENTS];
	size_t nev;
	struct drow *rows;
	size_t nrows, cap;
};

struct dtable {
	const char *json;     /* array key; tables with the same key share one array */
	const char *csv;      /* the CSV "table" column; NULL: not in CSV */
	const char *text_head; /* NULL: not in the text dump */
	void (*text)(struct dctx *c, const struct drow *r);
	void (*collect)(struct dctx *c);
	bool threads_only;    /* only with --threads */
	enum field fields[F_END + 1];
};

static struct drow *row_new(struct dctx *c)
{
	if (c->nrows == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 64;
		struct drow *p = reallocarray(c->rows, ncap, sizeof(*p));

		if (p == NULL)
			return NULL;
		c->rows = p;
		c->cap = ncap;
	}
	memset(&c->rows[c->nrows], 0, sizeof(c->rows[0]));
	c->rows[c->nrows].kernel = -1;
	c->rows[c->nrows].pid = c->rows[c->nrows].tid = -1;
	c->rows[c->nrows].running_pct = -1;
	return &c->rows[c->nrows++];
}

static bool has_samples(const struct dctx *c, const struct agg_counts *k)
{
	for (size_t e = 0; e < c->nev; e++)
		if (k->samples[e])
			return true;
	return false;
}

/* --- collectors: agg rows into drows -------------------------------------- */

static void collect_events(struct dctx *c)
{
	for (size_t i = 0; i < c->nev; i++) {
		const struct agg_event *e = agg_event(c->a, i);
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		r->name = c->evs[i].name;
		r->ev = c->evs[i];
		r->samples = e->samples_iv;
		r->period = e->period_iv;
		r->lost = e->lost_iv;
		r->throttled = e->throttled_iv;
		r->samples_total = e->samples_total;
		r->lost_total = e->lost_total;
		r->throttled_total = e->throttled_total;
		r->running_pct = e->running_pct;
	}
}

static void collect_symbols(struct dctx *c)
{
	const struct agg_sym **syms;
	size_t n = agg_symbols_top(c->a, AGG_INTERVAL, c->limit, &syms);

	for (size_t i = 0; i < n && has_samples(c, &syms[i]->iv); i++) {
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		r->name = syms[i]->sym;
		r->dso = syms[i]->dso;
		r->kernel = syms[i]->kernel;
		r->samples = syms[i]->iv.samples[0];
		r->share = agg_share(c->a, &syms[i]->iv, AGG_INTERVAL);
		r->counts = &syms[i]->iv;
	}
}

static void task_drow(struct dctx *c, struct drow *r, const struct agg_task *t)
{
	r->pid = t->pid;
	r->tid = t->tid ? t->tid : -1;
	r->name = t->comm;
	r->task = t;
	r->samples = t->iv.samples[0];
	r->share = agg_share(c->a, &t->iv, AGG_INTERVAL);
	r->counts = &t->iv;
	r->cr = agg_counter_row(c->ac, t->pid, t->tid);
	if (c->ac)
		ratios_task(agg_event(c->a, 0), c->enabled, c->nev, &t->iv, c->ac->names, c->ac->nevents,
			    r->cr ? &r->cr->c : NULL, false, r->ratios);
	else
		ratios_task(agg_event(c->a, 0), c->enabled, c->nev, &t->iv, NULL, 0, NULL, false, r->ratios);
}

static bool listed(const struct dctx *c, size_t from, long pid, long tid)
{
	for (size_t i = from; i < c->nrows; i++)
		if (tid >= 0 ? c->rows[i].tid == tid : c->rows[i].pid == pid)
			return true;
	return false;
}

/* Counted tasks that took no sample still have their counters (JSON). */
static void counter_only_rows(struct dctx *c, size_t from, bool threads)
{
	const struct agg_counter_row *cr = threads ? c->ac->threads : c->ac->procs;
	size_t n = threads ? c->ac->nthreads : c->ac->nprocs;

	for (size_t k = 0; k < n; k++) {
		struct drow *r;

		if (listed(c, from, cr[k].c.pid, threads ? cr[k].c.tid : -1) || (r = row_new(c)) == NULL)
			continue;
		r->pid = cr[k].c.pid;
		r->tid = threads ? cr[k].c.tid : -1;
		r->name = cr[k].comm;
		r->cr = &cr[k];
		ratios_task(agg_event(c->a, 0), c->enabled, c->nev, NULL, c->ac->names, c->ac->nevents,
			    &cr[k].c, false, r->ratios);
	}
}

static void collect_task_rows(struct dctx *c, bool threads)
{
	const struct agg_task **t;
	size_t n = threads ? agg_threads_top(c->a, AGG_INTERVAL, c->limit, &t)
		   : agg_tasks_top(c->a, AGG_INTERVAL, c->limit, &t);
	size_t from = c->nrows;

	for (size_t i = 0; i < n && has_samples(c, &t[i]->iv); i++) {
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		task_drow(c, r, t[i]);
	}
	if (c->fmt == DUMP_JSON && c->ac)
		counter_only_rows(c, from, threads);
}

static void collect_tasks(struct dctx *c) { collect_task_rows(c, false); }
static void collect_threads(struct dctx *c) { collect_task_rows(c, true); }

static void collect_cpus(struct dctx *c)
{
	const struct agg_cpu **cpus;
	size_t n = agg_cpus(c->a, &cpus);

	for (size_t i = 0; i < n; i++) {
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		r->cpu = cpus[i]->cpu;
		snprintf(r->num, sizeof(r->num), "%d", cpus[i]->cpu);
		r->name = r->num;
		r->samples = cpus[i]->iv.samples[0];
		r->share = agg_share(c->a, &cpus[i]->iv, AGG_INTERVAL);
		r->lost = cpus[i]->lost_iv;
		r->throttled = cpus[i]->throttled_iv;
		r->counts = &cpus[i]->iv;
	}
}

/* --- text lines ------------------------------------------------------------- */

/* "  IPC ~1.23  Miss% 4.5%": the valid ratios, "~" on estimates. */
static void text_ratios(FILE *f, const struct ratio r[RATIO_COUNT])
{
	char buf[32];

	for (size_t k = 0; k < RATIO_COUNT; k++) {
		if (!r[k].valid)
			continue;
		ratio_format(&r[k], (enum ratio_kind)k, buf, sizeof(buf));
		fprintf(f, "  %s %s", ratio_title((enum ratio_kind)k), buf);
	}
}

static void text_event(struct dctx *c, const struct drow *r)
{
	char excl[128];

	exclude_format(r->ev.exclude, excl, sizeof(excl));
	fprintf(c->f, "Event %-24s %s  samples %8" PRIu64 " (%6.0f/s)  lost %" PRIu64
		"  throttled %" PRIu64 "  exclude %s", r->name, r->ev.enabled ? "on " : "off",
		r->samples, c->m->interval > 0 ? (double)r->samples / c->m->interval : 0.0,
		r->lost, r->throttled, excl[0] ? excl : "-");
	if (r->running_pct >= 0 && r->running_pct < 100)
		fprintf(c->f, "  running %d%%", r->running_pct);
	fputc('\n', c->f);
}

static void text_symbol(struct dctx *c, const struct drow *r)
{
	char sym[NAME_MAX_OUT], dso[NAME_MAX_OUT];

	sanitize(sym, sizeof(sym), r->name);
	sanitize(dso, sizeof(dso), r->dso);
	fprintf(c->f, "  %7.2f%%  %8" PRIu64 "  %-28.28s %s %s\n", r->share, r->samples, dso,
		r->kernel ? "[k]" : "[.]", sym);
}

static void text_task(struct dctx *c, const struct drow *r)
{
	char comm[NAME_MAX_OUT];

	sanitize(comm, sizeof(comm), r->name);
	if (r->tid >= 0)
		fprintf(c->f, "  %7ld  %7ld  %-18.18s %6.2f%%  %8" PRIu64 "%s", r->pid, r->tid, comm,
			r->share, r->samples, r->task && r->task->exited ? "  exited" : "");
	else
		fprintf(c->f, "  %7ld  %-18.18s %6.2f%%  %8" PRIu64 "  %7u%s", r->pid, comm, r->share,
			r->samples, r->task ? r->task->threads : 0,
			r->task && r->task->exited ? "  exited" : "");
	text_ratios(c->f, r->ratios);
	fputc('\n', c->f);
}

/* --- the tables --------------------------------------------------------------- */

static const struct dtable tables[] = {
	{ "events", "event", NULL, text_event, collect_events, false,
	  { F_NAME, F_ENABLED, F_SAMPLES, F_PERIOD, F_LOST, F_THROTTLED, F_SAMPLES_TOTAL,
	    F_LOST_TOTAL, F_THROTTLED_TOTAL, F_RUNNING, F_EXCLUDE, F_END } },
	{ "symbols", "symbol", "\n  Overhead   Samples  Shared Object                    Symbol\n",
	  text_symbol, collect_symbols, false,
	  { F_SYMBOL, F_DSO, F_KERNEL, F_SAMPLES, F_SHARE, F_COUNTS, F_END } },
	{ "tasks", "task", "\n      PID  COMM                 Share   Samples  Threads\n",
	  text_task, collect_tasks, false,
	  { F_PID, F_COMM, F_SAMPLES, F_SHARE, F_THREADS, F_EXITED, F_COUNTS, F_COUNTERS, F_RATIOS, F_END } },
	{ "tasks", "thread", "\n      PID      TID  COMM                 Share   Samples\n",
	  text_task, collect_threads, true,
	  { F_PID, F_TID, F_COMM, F_SAMPLES, F_SHARE, F_EXITED, F_COUNTS, F_COUNTERS, F_RATIOS, F_END } },
	{ "cpus", "cpu", NULL, NULL, collect_cpus, false,
	  { F_CPU, F_SAMPLES, F_SHARE, F_LOST, F_THROTTLED, F_END } },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static size_t collect(struct dctx *c, const struct dtable *t)
{
	c->nrows = 0;
	if (t->threads_only && !c->m->threads)
		return 0;
	t->collect(c);
	return c->nrows;
}

/* --- JSON ------------------------------------------------------------------- */

static const char *counter_state_name(enum counter_state st)
{
	switch (st) {
	case COUNTER_SCALED: return "scaled";
	case COUNTER_NOT_RUN: return "not counted";
	case COUNTER_UNSUPPORTED: return "unsupported";
	default: return "ok";
	}
}

static void json_exclude(struct json *j, unsigned bits)
{
	char buf[128], *p, *tok;

	exclude_format(bits, buf, sizeof(buf));
	json_arr_begin(j, "exclude");
	for (p = buf; (tok = strsep(&p, ",")) != NULL;)
		if (*tok)
			json_str(j, NULL, tok);
	json_arr_end(j);
}

static void json_counters(struct json *j, const struct agg_counters *ac, const struct counter_row *r)
{
	json_obj_begin(j, "counters");
	for (size_t e = 0; e < ac->nevents; e++) {
		const struct counter_value *v = &r->v[e];

		json_obj_begin(j, ac->names[e]);
		if (v->state == COUNTER_UNSUPPORTED || v->state == COUNTER_NOT_RUN) {
			json_null(j, "value");
			json_null(j, "total");
		} else {
			json_u64(j, "value", v->value);
			json_u64(j, "total", v->total);
		}
		json_u64(j, "enabled_ns", v->enabled_ns);
		json_u64(j, "running_ns", v->running_ns);
		json_bool(j, "scaled", v->state == COUNTER_SCALED);
		json_str(j, "state", counter_state_name(v->state));
		json_obj_end(j);
	}
	json_obj_end(j);
}

/* "ratios":{"ipc":{"value":1.23,"estimate":true},…}: only the valid ones. */
static void json_ratios(struct json *j, const struct ratio r[RATIO_COUNT])
{
	if (!ratios_any(r))
		return;
	json_obj_begin(j, "ratios");
	for (size_t k = 0; k < RATIO_COUNT; k++) {
		if (!r[k].valid)
			continue;
		json_obj_begin(j, ratio_key((enum ratio_kind)k));
		json_double(j, "value", r[k].value, k == RATIO_IPC ? 3 : 2);
		json_bool(j, "estimate", r[k].estimate);
		json_obj_end(j);
	}
	json_obj_end(j);
}

static void json_field(struct json *j, struct dctx *c, const struct drow *r, enum field f)
{
	switch (f) {
	case F_NAME: json_str(j, "name", r->name); break;
	case F_SYMBOL: json_str(j, "symbol", r->name); break;
	case F_DSO: json_str(j, "dso", r->dso); break;
	case F_KERNEL: json_bool(j, "kernel", r->kernel > 0); break;
	case F_PID: json_i64(j, "pid", r->pid); break;
	case F_TID: json_i64(j, "tid", r->tid); break;
	case F_COMM: json_str(j, "comm", r->name); break;
	case F_CPU: json_i64(j, "cpu", r->cpu); break;
	case F_ENABLED: json_bool(j, "enabled", r->ev.enabled); break;
	case F_SAMPLES: json_u64(j, "samples", r->samples); break;
	case F_PERIOD: json_u64(j, "period", r->period); break;
	case F_SHARE: json_double(j, "share", r->share, 2); break;
	case F_THREADS:
		if (r->task)
			json_u64(j, "threads", r->task->threads);
		break;
	case F_EXITED:
		if (r->task)
			json_bool(j, "exited", r->task->exited);
		break;
	case F_LOST: json_u64(j, "lost", r->lost); break;
	case F_THROTTLED: json_u64(j, "throttled", r->throttled); break;
	case F_SAMPLES_TOTAL: json_u64(j, "samples_total", r->samples_total); break;
	case F_LOST_TOTAL: json_u64(j, "lost_total", r->lost_total); break;
	case F_THROTTLED_TOTAL: json_u64(j, "throttled_total", r->throttled_total); break;
	case F_RUNNING:
		/* Percent of the interval on the PMU (< 100: multiplexed). */
		if (r->running_pct >= 0)
			json_u64(j, "running_pct", (uint64_t)r->running_pct);
		break;
	case F_EXCLUDE: json_exclude(j, r->ev.exclude); break;
	case F_COUNTS:
		if (r->counts == NULL)
			break;
		json_obj_begin(j, "counts");
		for (size_t e = 0; e < c->nev; e++)
			json_u64(j, c->evs[e].name, r->counts->period[e]);
		json_obj_end(j);
		json_obj_begin(j, "event_samples");
		for (size_t e = 0; e < c->nev; e++)
			json_u64(j, c->evs[e].name, r->counts->samples[e]);
		json_obj_end(j);
		break;
	case F_COUNTERS:
		if (r->cr)
			json_counters(j, c->ac, &r->cr->c);
		break;
	case F_RATIOS: json_ratios(j, r->ratios); break;
	case F_END: break;
	}
}

static void json_row(struct json *j, struct dctx *c, const struct dtable *t, const struct drow *r)
{
	json_obj_begin(j, NULL);
	for (const enum field *f = t->fields; *f != F_END; f++)
		json_field(j, c, r, *f);
	json_obj_end(j);
}

static void json_stats(struct json *j, const struct session *s)
{
	struct session_stats st;

	session_stats(s, &st);
	json_obj_begin(j, "stats");
	json_u64(j, "records", st.eng.records);
	json_u64(j, "samples", st.eng.samples);
	json_u64(j, "bad_records", st.eng.bad_records);
	json_u64(j, "malformed", st.eng.malformed);
	json_u64(j, "wakeups", st.eng.wakeups);
	json_u64(j, "backlog_bytes", st.eng.backlog);
	json_u64(j, "tracking_lost", st.tracking_lost);
	json_u64(j, "processes", st.sym.processes);
	json_u64(j, "dsos", st.sym.dsos);
	json_u64(j, "symbol_tables", st.sym.tables);
	json_u64(j, "symbols", st.sym.symbols);
	json_u64(j, "symbol_bytes", st.sym.bytes);
	json_u64(j, "symbol_table_bytes", st.sym.table_bytes);
	json_u64(j, "symbol_table_limit", st.sym.table_limit);
	json_u64(j, "symbol_tables_evicted", st.sym.evicted);
	json_obj_end(j);
}

static void dump_json(struct dctx *c)
{
	const struct dump_meta *m = c->m;
	const char *open = NULL;
	struct json j;

	json_init(&j, c->f);
	json_obj_begin(&j, NULL);
	json_double(&j, "time", m->time, 3);
	json_double(&j, "interval", m->interval, 3);
	json_u64(&j, "iteration", m->iteration);
	json_str(&j, "target", c->s->target);
	if (m->period)
		json_u64(&j, "period", m->period);
	else
		json_u64(&j, "freq", m->freq);
	json_arr_begin(&j, "notices");
	for (size_t i = 0; i < c->s->nnotices; i++)
		json_str(&j, NULL, c->s->notices[i]);
	json_arr_end(&j);
	if (m->final)
		json_str(&j, "final", m->final);
	for (size_t t = 0; t < NTABLES; t++) {
		size_t n = collect(c, &tables[t]);

		if (open == NULL || strcmp(open, tables[t].json) != 0) {
			if (open)
				json_arr_end(&j);
			json_arr_begin(&j, tables[t].json);
			open = tables[t].json;
		}
		for (size_t i = 0; i < n; i++)
			json_row(&j, c, &tables[t], &c->rows[i]);
	}
	if (open)
		json_arr_end(&j);
	if (m->stats)
		json_stats(&j, c->s);
	json_obj_end(&j);
}

/* --- CSV -------------------------------------------------------------------- */

/* RFC 4180 field, sanitised first: CSV is read on terminals too. */
static void csv_field(FILE *f, const char *s)
{
	char buf[NAME_MAX_OUT];

	sanitize(buf, sizeof(buf), s);
	if (strpbrk(buf, ",\"") == NULL) {
		fputs(buf, f);
		return;
	}
	putc('"', f);
	for (const char *p = buf; *p; p++) {
		if (*p == '"')
			putc('"', f);
		putc(*p, f);
	}
	putc('"', f);
}

/* Appended after the per-event columns, so that their positions stay. */
#define CSV_COUNTER_COLS ",tid,value,total,enabled_ns,running_ns,scaled,state"
#define CSV_COUNTER_EMPTY ",,,,,,"

int dump_begin(FILE *f, enum dump_format fmt, const struct session *s, bool threads)
{
	if (fmt != DUMP_CSV)
		return 0;
	fputs("time,iteration,table,rank,name,dso,kernel,pid,samples,share,lost,throttled", f);
	for (size_t e = 0; e < agg_nevents(s->agg); e++) {
		fputs(",", f);
		csv_field(f, agg_event(s->agg, e)->name);
	}
	if (s->cnt)
		fputs(CSV_COUNTER_COLS, f);
	else if (threads)
		fputs(",tid", f);
	fputs("\n", f);
	return ferror(f) ? -EIO : 0;
}

static void csv_row(struct dctx *c, const struct dtable *t, size_t rank, const struct drow *r, size_t ev)
{
	FILE *f = c->f;

	fprintf(f, "%.3f,%lu,%s,%zu,", c->m->time, c->m->iteration, t->csv, rank);
	csv_field(f, r->name);
	putc(',', f);
	csv_field(f, r->dso ? r->dso : "");
	fprintf(f, ",%s,", r->kernel < 0 ? "" : r->kernel ? "1" : "0");
	if (r->pid >= 0)
		fprintf(f, "%ld", r->pid);
	fprintf(f, ",%" PRIu64 ",%.2f,%" PRIu64 ",%" PRIu64, r->samples, r->share, r->lost, r->throttled);
	/* Event rows carry their own period in their own column. */
	for (size_t e = 0; e < c->nev; e++)
		fprintf(f, ",%" PRIu64, r->counts ? r->counts->period[e] : e == ev ? r->period : 0);
	if (c->s->cnt || c->m->threads) {
		putc(',', f);
		if (r->tid >= 0)
			fprintf(f, "%ld", r->tid);
		if (c->s->cnt)
			fputs(CSV_COUNTER_EMPTY, f);
	}
	putc('\n', f);
}

/* table "counter": one line per task and counter, name = the counter;
 * value and total empty when it never ran or is not supported here. */
static void csv_counter_rows(struct dctx *c, const struct agg_counter_row *rows, size_t n, size_t *rank)
{
	FILE *f = c->f;

	for (size_t k = 0; k < n; k++)
		for (size_t e = 0; e < c->ac->nevents; e++) {
			const struct counter_value *v = &rows[k].c.v[e];
			bool known = v->state != COUNTER_UNSUPPORTED && v->state != COUNTER_NOT_RUN;

			fprintf(f, "%.3f,%lu,counter,%zu,", c->m->time, c->m->iteration, ++*rank);
			csv_field(f, c->ac->names[e]);
			fprintf(f, ",,,%ld,,,,", (long)rows[k].c.pid);
			for (size_t i = 0; i < c->nev; i++)
				putc(',', f);
			if (rows[k].c.tid)
				fprintf(f, ",%ld", (long)rows[k].c.tid);
			else
				putc(',', f);
			if (known)
				fprintf(f, ",%" PRIu64 ",%" PRIu64, v->value, v->total);
			else
				fputs(",,", f);
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%d,%s\n", v->enabled_ns, v->running_ns,
				v->state == COUNTER_SCALED, counter_state_name(v->state));
		}
}

static void dump_csv(struct dctx *c)
{
	for (size_t t = 0; t < NTABLES; t++) {
		size_t n = collect(c, &tables[t]);

		for (size_t i = 0; i < n; i++)
			csv_row(c, &tables[t], i + 1, &c->rows[i], i);
	}
	if (c->ac && c->s->cnt) {
		size_t rank = 0;

		csv_counter_rows(c, c->ac->procs, c->ac->nprocs, &rank);
		if (c->m->threads)
			csv_counter_rows(c, c->ac->threads, c->ac->nthreads, &rank);
	}
}

/* --- text ------------------------------------------------------------------- */

static void text_counter_value(FILE *f, const struct counter_value *v)
{
	switch (v->state) {
	case COUNTER_UNSUPPORTED:
		fprintf(f, "  %18s  %18s", "n/a", "n/a");
		break;
	case COUNTER_NOT_RUN:
		fprintf(f, "  %18s  %18s", "-", "-");
		break;
	default:
		fprintf(f, "  %18" PRIu64 "  %18" PRIu64, v->value, v->total);
		if (v->state == COUNTER_SCALED)
			fprintf(f, "  (scaled, ran %.0f%%)",
				v->enabled_ns ? 100.0 * (double)v->running_ns / (double)v->enabled_ns : 0.0);
	}
	fputc('\n', f);
}

static void text_counters(struct dctx *c)
{
	char comm[NAME_MAX_OUT];
	struct ratio r[RATIO_COUNT];

	for (size_t k = 0; k < c->ac->nprocs; k++) {
		const struct agg_counter_row *row = &c->ac->procs[k];

		sanitize(comm, sizeof(comm), row->comm);
		fprintf(c->f, "\n  Counters  PID %d (%s)  %*s  %18s\n", (int)row->c.pid, comm, 12, "interval", "total");
		for (size_t e = 0; e < c->ac->nevents; e++) {
			fprintf(c->f, "  %-24s", c->ac->names[e]);
			text_counter_value(c->f, &row->c.v[e]);
		}
		ratios_from_counters(c->ac->names, c->ac->nevents, &row->c, false, r);
		if (ratios_any(r)) {
			fputs("  Ratios", c->f);
			text_ratios(c->f, r);
			fputc('\n', c->f);
		}
	}
}

static void dump_text(struct dctx *c)
{
	const struct dump_meta *m = c->m;
	char clock[32];
	time_t t = (time_t)m->time;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	fprintf(c->f, "perftop - %s  interval %.2fs  #%lu  target: %s  ", clock, m->interval,
		m->iteration, c->s->target);
	if (m->period)
		fprintf(c->f, "period %" PRIu64 "\n", m->period);
	else
		fprintf(c->f, "freq %" PRIu64 " Hz\n", m->freq);
	for (size_t i = 0, n = collect(c, &tables[0]); i < n; i++)
		text_event(c, &c->rows[i]);
	for (size_t i = 0; i < c->s->nnotices; i++)
		fprintf(c->f, "Notice: %s\n", c->s->notices[i]);
	if (m->final)
		fprintf(c->f, "Final: %s\n", m->final);
	if (m->stats) {
		struct session_stats st;

		session_stats(c->s, &st);
		fprintf(c->f, "Stats: records %" PRIu64 "  bad %" PRIu64 "  tracking lost %" PRIu64 "  backlog %" PRIu64
			" KiB  processes %zu  dsos %zu  tables %zu (%zu KiB, %zu evicted)  symbols %zu  %zu KiB\n",
			st.eng.records, st.eng.bad_records + st.eng.malformed, st.tracking_lost,
			st.eng.backlog / 1024, st.sym.processes, st.sym.dsos, st.sym.tables,
			st.sym.table_bytes / 1024, st.sym.evicted, st.sym.symbols, st.sym.bytes / 1024);
	}
	for (size_t k = 1; k < NTABLES; k++) {
		size_t n;

		if (tables[k].text_head == NULL || (tables[k].threads_only && !m->threads))
			continue;
		n = collect(c, &tables[k]);
		fputs(tables[k].text_head, c->f);
		for (size_t i = 0; i < n; i++)
			tables[k].text(c, &c->rows[i]);
	}
	if (c->ac)
		text_counters(c);
	fputc('\n', c->f);
}

int dump_interval(FILE *f, enum dump_format fmt, const struct session *s, const struct dump_meta *m,
		  size_t rows)
{
	struct dctx c = { .f = f, .fmt = fmt, .s = s, .a = s->agg, .ac = agg_counters(s->agg),
			  .m = m, .limit = rows, .nev = agg_nevents(s->agg) };

	for (size_t i = 0; i < c.nev; i++) {
		session_event(s, i, &c.evs[i]);
		c.evs[i].name = agg_event(s->agg, i)->name;
		c.enabled[i] = c.evs[i].enabled;
	}
	switch (fmt) {
	case DUMP_JSON:
		dump_json(&c);
		break;
	case DUMP_CSV:
		dump_csv(&c);
		break;
	default:
		dump_text(&c);
	}
	free(c.rows);
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
