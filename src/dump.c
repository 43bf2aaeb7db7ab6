#include "dump.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "evspec.h"
#include "json.h"
#include "ratios.h"
#include "sanitize.h"

#define NAME_MAX_OUT 1024

static void exclude_words(unsigned bits, char *buf, size_t len)
{
	exclude_format(bits, buf, len);
	if (buf[0] == '\0')
		strlcpy(buf, "-", len);
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

static void json_counts(struct json *j, struct agg *a, const struct agg_counts *c)
{
	json_obj_begin(j, "counts");
	for (size_t e = 0; e < agg_nevents(a); e++)
		json_u64(j, agg_event(a, e)->name, c->period[e]);
	json_obj_end(j);
	json_obj_begin(j, "event_samples");
	for (size_t e = 0; e < agg_nevents(a); e++)
		json_u64(j, agg_event(a, e)->name, c->samples[e]);
	json_obj_end(j);
}

static bool has_samples(struct agg *a, const struct agg_counts *c)
{
	for (size_t e = 0; e < agg_nevents(a); e++)
		if (c->samples[e])
			return true;
	return false;
}

static const char *counter_state_name(enum counter_state st)
{
	switch (st) {
	case COUNTER_SCALED: return "scaled";
	case COUNTER_NOT_RUN: return "not counted";
	case COUNTER_UNSUPPORTED: return "unsupported";
	default: return "ok";
	}
}

static void json_counter_row(struct json *j, const struct counters *cnt, const struct counter_row *r)
{
	json_obj_begin(j, "counters");
	for (size_t e = 0; e < counters_nevents(cnt); e++) {
		const struct counter_value *v = &r->v[e];

		json_obj_begin(j, counters_event(cnt, e)->name);
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

/* Exact counters win over samples when the row has them. */
static void task_ratios(struct agg *a, const struct agg_counts *c, const struct counters *cnt,
			const struct counter_row *cr, struct ratio r[RATIO_COUNT])
{
	struct ratio exact[RATIO_COUNT];

	if (c)
		ratios_from_samples(a, c, r);
	else
		memset(r, 0, sizeof(*r) * RATIO_COUNT);
	if (!cnt || !cr)
		return;
	ratios_from_counters(cnt, cr, false, exact);
	for (size_t k = 0; k < RATIO_COUNT; k++)
		if (exact[k].valid)
			r[k] = exact[k];
}

static bool task_listed(const struct agg_task **tasks, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (tasks[i]->pid == pid)
			return true;
	return false;
}

static void dump_json(FILE *f, struct agg *a, const struct dump_meta *m, size_t rows)
{
	const struct agg_sym **syms;
	const struct agg_task **tasks;
	const struct agg_cpu **cpus;
	const struct counter_row *cr;
	struct ratio r[RATIO_COUNT];
	struct json j;
	size_t n, i;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_double(&j, "time", m->time, 3);
	json_double(&j, "interval", m->interval, 3);
	json_u64(&j, "iteration", m->iteration);
	json_str(&j, "target", m->target);
	if (m->period)
		json_u64(&j, "period", m->period);
	else
		json_u64(&j, "freq", m->freq);
	json_arr_begin(&j, "notices");
	for (i = 0; i < m->nnotices; i++)
		json_str(&j, NULL, m->notices[i]);
	json_arr_end(&j);
	if (m->final)
		json_str(&j, "final", m->final);

	json_arr_begin(&j, "events");
	for (i = 0; i < agg_nevents(a); i++) {
		const struct agg_event *e = agg_event(a, i);

		json_obj_begin(&j, NULL);
		json_str(&j, "name", e->name);
		json_bool(&j, "enabled", e->enabled);
		json_u64(&j, "samples", e->samples_iv);
		json_u64(&j, "period", e->period_iv);
		json_u64(&j, "lost", e->lost_iv);
		json_u64(&j, "throttled", e->throttled_iv);
		json_u64(&j, "samples_total", e->samples_total);
		json_u64(&j, "lost_total", e->lost_total);
		json_u64(&j, "throttled_total", e->throttled_total);
		/* Percent of the interval on the PMU (< 100: multiplexed). */
		if (e->running_pct >= 0)
			json_u64(&j, "running_pct", (uint64_t)e->running_pct);
		json_exclude(&j, e->exclude);
		json_obj_end(&j);
	}
	json_arr_end(&j);

	n = agg_symbols_top(a, AGG_INTERVAL, rows, &syms);
	json_arr_begin(&j, "symbols");
	for (i = 0; i < n && i < rows && has_samples(a, &syms[i]->iv); i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "symbol", syms[i]->sym);
		json_str(&j, "dso", syms[i]->dso);
		json_bool(&j, "kernel", syms[i]->kernel);
		json_u64(&j, "samples", syms[i]->iv.samples[0]);
		json_double(&j, "share", agg_share(a, &syms[i]->iv, AGG_INTERVAL), 2);
		json_counts(&j, a, &syms[i]->iv);
		json_obj_end(&j);
	}
	json_arr_end(&j);

	n = agg_tasks_top(a, AGG_INTERVAL, rows, &tasks);
	json_arr_begin(&j, "tasks");
	for (i = 0; i < n && i < rows; i++) {
		if (!has_samples(a, &tasks[i]->iv))
			break;
		json_obj_begin(&j, NULL);
		json_i64(&j, "pid", tasks[i]->pid);
		json_str(&j, "comm", tasks[i]->comm);
		json_u64(&j, "samples", tasks[i]->iv.samples[0]);
		json_double(&j, "share", agg_share(a, &tasks[i]->iv, AGG_INTERVAL), 2);
		json_u64(&j, "threads", tasks[i]->threads);
		json_bool(&j, "exited", tasks[i]->exited);
		json_counts(&j, a, &tasks[i]->iv);
		cr = m->cnt ? counters_process(m->cnt, tasks[i]->pid) : NULL;
		if (cr)
			json_counter_row(&j, m->cnt, cr);
		task_ratios(a, &tasks[i]->iv, m->cnt, cr, r);
		json_ratios(&j, r);
		json_obj_end(&j);
	}
	if (m->threads) {
		const struct agg_task **th;
		const struct counter_row *crow = NULL;
		size_t nt = agg_threads_top(a, AGG_INTERVAL, rows, &th), k;
		size_t nc = m->cnt ? counters_threads(m->cnt, &crow) : 0;

		for (k = 0; k < nt && k < rows && has_samples(a, &th[k]->iv); k++) {
			json_obj_begin(&j, NULL);
			json_i64(&j, "pid", th[k]->pid);
			json_i64(&j, "tid", th[k]->tid);
			json_str(&j, "comm", th[k]->comm);
			json_u64(&j, "samples", th[k]->iv.samples[0]);
			json_double(&j, "share", agg_share(a, &th[k]->iv, AGG_INTERVAL), 2);
			json_bool(&j, "exited", th[k]->exited);
			json_counts(&j, a, &th[k]->iv);
			cr = NULL;
			for (size_t c = 0; c < nc; c++)
				if (crow[c].tid == th[k]->tid)
					cr = &crow[c];
			if (cr)
				json_counter_row(&j, m->cnt, cr);
			task_ratios(a, &th[k]->iv, m->cnt, cr, r);
			json_ratios(&j, r);
			json_obj_end(&j);
		}
		/* Counted threads that took no sample this interval. */
		for (size_t c = 0; c < nc; c++) {
			bool seen = false;

			for (size_t t = 0; t < k && !seen; t++)
				seen = th[t]->tid == crow[c].tid;
			if (seen)
				continue;
			json_obj_begin(&j, NULL);
			json_i64(&j, "pid", crow[c].pid);
			json_i64(&j, "tid", crow[c].tid);
			json_str(&j, "comm", m->comm_of ? m->comm_of(m->comm_arg, crow[c].pid) : NULL);
			json_u64(&j, "samples", 0);
			json_double(&j, "share", 0, 2);
			json_counter_row(&j, m->cnt, &crow[c]);
			task_ratios(a, NULL, m->cnt, &crow[c], r);
			json_ratios(&j, r);
			json_obj_end(&j);
		}
	}
	if (m->cnt) {
		const struct counter_row *crow;
		size_t nr = counters_processes(m->cnt, &crow);

		/* A focused process that took no sample still has its counters. */
		for (size_t k = 0; k < nr; k++) {
			if (task_listed(tasks, i, crow[k].pid))
				continue;
			json_obj_begin(&j, NULL);
			json_i64(&j, "pid", crow[k].pid);
			json_str(&j, "comm", m->comm_of ? m->comm_of(m->comm_arg, crow[k].pid) : NULL);
			json_u64(&j, "samples", 0);
			json_double(&j, "share", 0, 2);
			json_counter_row(&j, m->cnt, &crow[k]);
			task_ratios(a, NULL, m->cnt, &crow[k], r);
			json_ratios(&j, r);
			json_obj_end(&j);
		}
	}
	json_arr_end(&j);

	n = agg_cpus(a, &cpus);
	json_arr_begin(&j, "cpus");
	for (i = 0; i < n; i++) {
		json_obj_begin(&j, NULL);
		json_i64(&j, "cpu", cpus[i]->cpu);
		json_u64(&j, "samples", cpus[i]->iv.samples[0]);
		json_double(&j, "share", agg_share(a, &cpus[i]->iv, AGG_INTERVAL), 2);
		json_u64(&j, "lost", cpus[i]->lost_iv);
		json_u64(&j, "throttled", cpus[i]->throttled_iv);
		json_obj_end(&j);
	}
	json_arr_end(&j);

	if (m->stats) {
		json_obj_begin(&j, "stats");
		json_u64(&j, "records", m->est.records);
		json_u64(&j, "samples", m->est.samples);
		json_u64(&j, "bad_records", m->est.bad_records);
		json_u64(&j, "malformed", m->est.malformed);
		json_u64(&j, "wakeups", m->est.wakeups);
		json_u64(&j, "backlog_bytes", m->est.backlog);
		json_u64(&j, "tracking_lost", m->tracking_lost);
		json_u64(&j, "processes", m->sst.processes);
		json_u64(&j, "dsos", m->sst.dsos);
		json_u64(&j, "symbol_tables", m->sst.tables);
		json_u64(&j, "symbols", m->sst.symbols);
		json_u64(&j, "symbol_bytes", m->sst.bytes);
		json_u64(&j, "symbol_table_bytes", m->sst.table_bytes);
		json_u64(&j, "symbol_table_limit", m->sst.table_limit);
		json_u64(&j, "symbol_tables_evicted", m->sst.evicted);
		if (m->push) {
			json_u64(&j, "push_sent", m->push_sent);
			json_u64(&j, "push_failed", m->push_failed);
			json_u64(&j, "push_dropped", m->push_dropped);
		}
		json_obj_end(&j);
	}
	json_obj_end(&j);
}

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

int dump_begin(FILE *f, enum dump_format fmt, struct agg *a, const struct counters *cnt)
{
	if (fmt != DUMP_CSV)
		return 0;
	fputs("time,iteration,table,rank,name,dso,kernel,pid,samples,share,lost,throttled", f);
	for (size_t e = 0; e < agg_nevents(a); e++) {
		fputs(",", f);
		csv_field(f, agg_event(a, e)->name);
	}
	if (cnt)
		fputs(CSV_COUNTER_COLS, f);
	fputs("\n", f);
	return ferror(f) ? -EIO : 0;
}

static void csv_row(FILE *f, const struct dump_meta *m, const char *table, size_t rank,
		    const char *name, const char *dso, int kernel, long pid, uint64_t samples,
		    double share, uint64_t lost, uint64_t throttled, struct agg *a,
		    const struct agg_counts *c)
{
	fprintf(f, "%.3f,%lu,%s,%zu,", m->time, m->iteration, table, rank);
	csv_field(f, name);
	putc(',', f);
	csv_field(f, dso ? dso : "");
	fprintf(f, ",%s,", kernel < 0 ? "" : kernel ? "1" : "0");
	if (pid >= 0)
		fprintf(f, "%ld", pid);
	fprintf(f, ",%" PRIu64 ",%.2f,%" PRIu64 ",%" PRIu64, samples, share, lost, throttled);
	for (size_t e = 0; e < agg_nevents(a); e++)
		fprintf(f, ",%" PRIu64, c ? c->period[e] : 0);
	if (m->cnt)
		fputs(",,,,,,,", f);
	putc('\n', f);
}

/* table "counter": one line per task and counter, name = the counter;
 * value and total empty when it never ran or is not supported here. */
static void csv_counter_rows(FILE *f, const struct dump_meta *m, struct agg *a,
			     const struct counter_row *rows, size_t n, size_t *rank)
{
	for (size_t k = 0; k < n; k++)
		for (size_t e = 0; e < counters_nevents(m->cnt); e++) {
			const struct counter_value *v = &rows[k].v[e];
			bool known = v->state != COUNTER_UNSUPPORTED && v->state != COUNTER_NOT_RUN;

			fprintf(f, "%.3f,%lu,counter,%zu,", m->time, m->iteration, ++*rank);
			csv_field(f, counters_event(m->cnt, e)->name);
			fprintf(f, ",,,%ld,,,,", (long)rows[k].pid);
			for (size_t i = 0; i < agg_nevents(a); i++)
				putc(',', f);
			if (rows[k].tid)
				fprintf(f, ",%ld", (long)rows[k].tid);
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

static void dump_csv(FILE *f, struct agg *a, const struct dump_meta *m, size_t rows)
{
	const struct agg_sym **syms;
	const struct agg_task **tasks;
	const struct agg_cpu **cpus;
	size_t n, i;

	for (i = 0; i < agg_nevents(a); i++) {
		const struct agg_event *e = agg_event(a, i);
		struct agg_counts c;

		memset(&c, 0, sizeof(c));
		c.period[i] = e->period_iv;
		csv_row(f, m, "event", i + 1, e->name, NULL, -1, -1, e->samples_iv, 0, e->lost_iv,
			e->throttled_iv, a, &c);
	}
	n = agg_symbols_top(a, AGG_INTERVAL, rows, &syms);
	for (i = 0; i < n && i < rows && has_samples(a, &syms[i]->iv); i++)
		csv_row(f, m, "symbol", i + 1, syms[i]->sym, syms[i]->dso, syms[i]->kernel, -1,
			syms[i]->iv.samples[0], agg_share(a, &syms[i]->iv, AGG_INTERVAL), 0, 0, a,
			&syms[i]->iv);
	n = agg_tasks_top(a, AGG_INTERVAL, rows, &tasks);
	for (i = 0; i < n && i < rows && has_samples(a, &tasks[i]->iv); i++)
		csv_row(f, m, "task", i + 1, tasks[i]->comm, NULL, -1, tasks[i]->pid,
			tasks[i]->iv.samples[0], agg_share(a, &tasks[i]->iv, AGG_INTERVAL), 0, 0, a,
			&tasks[i]->iv);
	n = agg_cpus(a, &cpus);
	for (i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%d", cpus[i]->cpu);
		csv_row(f, m, "cpu", i + 1, name, NULL, -1, -1, cpus[i]->iv.samples[0],
			agg_share(a, &cpus[i]->iv, AGG_INTERVAL), cpus[i]->lost_iv, cpus[i]->throttled_iv,
			a, &cpus[i]->iv);
	}
	if (m->cnt) {
		const struct counter_row *crow;
		size_t rank = 0;

		n = counters_processes(m->cnt, &crow);
		csv_counter_rows(f, m, a, crow, n, &rank);
		if (m->threads) {
			n = counters_threads(m->cnt, &crow);
			csv_counter_rows(f, m, a, crow, n, &rank);
		}
	}
}

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

static void text_counters(FILE *f, const struct dump_meta *m)
{
	const struct counter_row *rows;
	char comm[NAME_MAX_OUT];
	struct ratio r[RATIO_COUNT];
	size_t n = counters_processes(m->cnt, &rows);

	for (size_t k = 0; k < n; k++) {
		const char *c = m->comm_of ? m->comm_of(m->comm_arg, rows[k].pid) : NULL;

		sanitize(comm, sizeof(comm), c ? c : "?");
		fprintf(f, "\n  Counters  PID %d (%s)  %*s  %18s\n", (int)rows[k].pid, comm, 12, "interval", "total");
		for (size_t e = 0; e < counters_nevents(m->cnt); e++) {
			fprintf(f, "  %-24s", counters_event(m->cnt, e)->name);
			text_counter_value(f, &rows[k].v[e]);
		}
		ratios_from_counters(m->cnt, &rows[k], false, r);
		if (ratios_any(r)) {
			fputs("  Ratios", f);
			text_ratios(f, r);
			fputc('\n', f);
		}
	}
}

static void dump_text(FILE *f, struct agg *a, const struct dump_meta *m, size_t rows)
{
	const struct agg_sym **syms;
	const struct agg_task **tasks;
	char clock[32], sym[NAME_MAX_OUT], dso[NAME_MAX_OUT], excl[128];
	time_t t = (time_t)m->time;
	struct tm tm;
	size_t n, i;

	localtime_r(&t, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	fprintf(f, "perftop - %s  interval %.2fs  #%lu  target: %s  ", clock, m->interval,
		m->iteration, m->target);
	if (m->period)
		fprintf(f, "period %" PRIu64 "\n", m->period);
	else
		fprintf(f, "freq %" PRIu64 " Hz\n", m->freq);
	for (i = 0; i < agg_nevents(a); i++) {
		const struct agg_event *e = agg_event(a, i);

		exclude_words(e->exclude, excl, sizeof(excl));
		fprintf(f, "Event %-24s %s  samples %8" PRIu64 " (%6.0f/s)  lost %" PRIu64
			"  throttled %" PRIu64 "  exclude %s", e->name, e->enabled ? "on " : "off",
			e->samples_iv, m->interval > 0 ? (double)e->samples_iv / m->interval : 0.0,
			e->lost_iv, e->throttled_iv, excl);
		if (e->running_pct >= 0 && e->running_pct < 100)
			fprintf(f, "  running %d%%", e->running_pct);
		fputc('\n', f);
	}
	for (i = 0; i < m->nnotices; i++)
		fprintf(f, "Notice: %s\n", m->notices[i]);
	if (m->final)
		fprintf(f, "Final: %s\n", m->final);
	if (m->stats)
		fprintf(f, "Stats: records %" PRIu64 "  bad %" PRIu64 "  tracking lost %" PRIu64 "  backlog %" PRIu64
			" KiB  processes %zu  dsos %zu  tables %zu (%zu KiB, %zu evicted)  symbols %zu  %zu KiB\n",
			m->est.records, m->est.bad_records + m->est.malformed, m->tracking_lost, m->est.backlog / 1024,
			m->sst.processes, m->sst.dsos, m->sst.tables, m->sst.table_bytes / 1024, m->sst.evicted,
			m->sst.symbols, m->sst.bytes / 1024);
	if (m->stats && m->push)
		fprintf(f, "Push: sent %" PRIu64 "  failed %" PRIu64 "  dropped %" PRIu64 "\n",
			m->push_sent, m->push_failed, m->push_dropped);

	fprintf(f, "\n  Overhead   Samples  %-28s     Symbol\n", "Shared Object");
	n = agg_symbols_top(a, AGG_INTERVAL, rows, &syms);
	for (i = 0; i < n && i < rows && has_samples(a, &syms[i]->iv); i++) {
		sanitize(sym, sizeof(sym), syms[i]->sym);
		sanitize(dso, sizeof(dso), syms[i]->dso);
		fprintf(f, "  %7.2f%%  %8" PRIu64 "  %-28.28s %s %s\n",
			agg_share(a, &syms[i]->iv, AGG_INTERVAL), syms[i]->iv.samples[0], dso,
			syms[i]->kernel ? "[k]" : "[.]", sym);
	}
	fprintf(f, "\n      PID  COMM                 Share   Samples  Threads\n");
	n = agg_tasks_top(a, AGG_INTERVAL, rows, &tasks);
	for (i = 0; i < n && i < rows && has_samples(a, &tasks[i]->iv); i++) {
		struct ratio r[RATIO_COUNT];

		sanitize(sym, sizeof(sym), tasks[i]->comm);
		fprintf(f, "  %7d  %-18.18s %6.2f%%  %8" PRIu64 "  %7u%s", (int)tasks[i]->pid, sym,
			agg_share(a, &tasks[i]->iv, AGG_INTERVAL), tasks[i]->iv.samples[0],
			tasks[i]->threads, tasks[i]->exited ? "  exited" : "");
		task_ratios(a, &tasks[i]->iv, m->cnt,
			    m->cnt ? counters_process(m->cnt, tasks[i]->pid) : NULL, r);
		text_ratios(f, r);
		fputc('\n', f);
	}
	if (m->cnt)
		text_counters(f, m);
	fputc('\n', f);
}

int dump_interval(FILE *f, enum dump_format fmt, struct agg *a, const struct dump_meta *m,
		  size_t rows)
{
	switch (fmt) {
	case DUMP_JSON:
		dump_json(f, a, m, rows);
		break;
	case DUMP_CSV:
		dump_csv(f, a, m, rows);
		break;
	default:
		dump_text(f, a, m, rows);
	}
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
