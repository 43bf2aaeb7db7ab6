/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump: the text and CSV writers over the dump's tables (dump_rows.h),
 * and the entry points. */
#include "offbpf.h"
#include "dump.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump_annot.h"
#include "dump_rows.h"
#include "sanitize.h"

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
/* Then --sort's keys (pid and dso are the pid and dso columns) and
 * --baseline's, empty on rows that have none. */
#define CSV_GROUP_COLS ",comm,symbol,cpu,srcline"
#define CSV_GROUP_EMPTY ",,,,"
#define CSV_BASELINE_COLS ",baseline_share,delta"

static bool csv_grouped(const struct session *s)
{
	const enum agg_gkey *keys;

	return agg_group_nkeys(s->agg, &keys) > 0;
}

static bool csv_baseline(const struct session *s)
{
	return s->opts && s->opts->baseline;
}

int dump_begin(FILE *f, enum dump_format fmt, const struct session *s, bool threads)
{
	int rc = dump_annot_begin(s);

	if (rc) {
		errno = -rc;
		return rc;
	}
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
	if (csv_grouped(s))
		fputs(CSV_GROUP_COLS, f);
	if (csv_baseline(s))
		fputs(CSV_BASELINE_COLS, f);
	fputs("\n", f);
	return ferror(f) ? -EIO : 0;
}

/* A --sort row's comm, symbol, cpu and srcline: each empty unless a key. */
static void csv_group_keys(struct dctx *c, const struct drow *r)
{
	static const enum agg_gkey cols[] = { AGG_GK_COMM, AGG_GK_SYM, AGG_GK_CPU, AGG_GK_SRCLINE };
	const enum agg_gkey *keys;
	size_t n = agg_group_nkeys(c->a, &keys);
	char num[24];

	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
		putc(',', c->f);
		for (size_t i = 0; r->grp && i < n; i++)
			if (keys[i] == cols[k])
				csv_field(c->f, agg_group_value(r->grp, cols[k], false, num, sizeof(num)));
	}
}

/* The rows the JSON gives baseline_share and delta: the same here. */
static void csv_baseline_cols(struct dctx *c, const struct dtable *t, const struct drow *r)
{
	bool has = false;

	for (const enum field *f = t->fields; *f != F_END; f++)
		has = has || *f == F_BASELINE;
	if (has && c->m->baseline) {
		double b = dump_group_baseline(c, r);

		fprintf(c->f, ",%.2f,%.2f", b, r->share - b);
	} else {
		fputs(",,", c->f);
	}
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
	if (c->grouped)
		csv_group_keys(c, r);
	if (csv_baseline(c->s))
		csv_baseline_cols(c, t, r);
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
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%d,%s", v->enabled_ns, v->running_ns,
				v->state == COUNTER_SCALED, dump_counter_state(v->state));
			fputs(c->grouped ? CSV_GROUP_EMPTY : "", f);
			fputs(csv_baseline(c->s) ? ",,\n" : "\n", f);
		}
}

static void dump_csv(struct dctx *c)
{
	for (size_t t = 0; t < dump_ntables; t++) {
		size_t n = dump_tables[t].csv ? dump_collect(c, &dump_tables[t]) : 0;

		for (size_t i = 0; i < n; i++)
			csv_row(c, &dump_tables[t], i + 1, &c->rows[i], i);
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
			dump_text_ratios(c->f, r);
			fputc('\n', c->f);
		}
	}
}

/* A table's title line; the symbols' gains Delta after Samples with --baseline. */
static void text_head(struct dctx *c, const struct dtable *t)
{
	const char *head = c->cg && t->text_head_cg ? t->text_head_cg : t->text_head;
	const char *at = strstr(head, "Samples");

	if (c->m->baseline == NULL || strcmp(t->json, "symbols") != 0 || at == NULL) {
		fputs(head, c->f);
		return;
	}
	at += strlen("Samples");
	fwrite(head, 1, (size_t)(at - head), c->f);
	dump_text_delta_head(c);
	fputs(at, c->f);
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
	for (size_t i = 0, n = dump_collect(c, &dump_tables[0]); i < n; i++)
		dump_tables[0].text(c, &c->rows[i]);
	for (size_t i = 0; i < c->s->nnotices; i++)
		fprintf(c->f, "Notice: %s\n", c->s->notices[i]);
	if (m->final)
		fprintf(c->f, "Final: %s\n", m->final);
	if (m->stats) {
		struct session_stats st;

		session_stats(c->s, &st);
		fprintf(c->f, "Stats: records %" PRIu64 "  bad %" PRIu64 "  late %" PRIu64 "  tracking lost %" PRIu64 "  backlog %" PRIu64
			" KiB  processes %zu  dsos %zu  tables %zu (%zu KiB, %zu evicted, %zu cached)  symbols %zu  %zu KiB\n",
			st.eng.records, st.eng.bad_records + st.eng.malformed, st.eng.reordered_late, st.tracking_lost,
			st.eng.backlog / 1024, st.sym.processes, st.sym.dsos, st.sym.tables,
			st.sym.table_bytes / 1024, st.sym.evicted, st.sym.tables_cached, st.sym.symbols, st.sym.bytes / 1024);
		fprintf(c->f, "Rows: symbols %zu  tasks %zu  threads %zu  active %zu/%zu  held %zu  expired %" PRIu64
			"/%" PRIu64 "/%" PRIu64 "\n",
			st.agg.syms, st.agg.tasks, st.agg.threads, st.agg.active_syms, st.agg.active_tasks, st.agg.held,
			st.agg.expired_syms, st.agg.expired_tasks, st.agg.expired_threads);
		if (c->cg)
			fprintf(c->f, "Call graphs: unwound %" PRIu64 " (%" PRIu64 " cut short, %" PRIu64
				" slow)  leaf fixed %" PRIu64 "  leaf rules hit %" PRIu64 " missed %" PRIu64
				" (%" PRIu64 " none)  opened %" PRIu64 "  memo %" PRIu64 "  dwfl %" PRIu64
				"  chains cached %" PRIu64 " resolved %" PRIu64 "\n",
				st.unwound, st.unwind_truncated, st.unwind_slow, st.leaf_fixed, st.leaf_rule_hits,
				st.leaf_rule_misses, st.leaf_rule_negative, st.leaf_rule_opens, st.leaf_rule_memo,
				st.unwind_dwfl, st.sym.chain_hits, st.sym.chain_misses);
		dump_annot_stats_text(c);
		if (m->push)
			fprintf(c->f, "Push: sent %" PRIu64 "  failed %" PRIu64 "  dropped %" PRIu64 "\n",
				m->push_sent, m->push_failed, m->push_dropped);
	}
	if (c->s->spans) {
		struct spans_stats st;

		spans_stats(c->s->spans, &st);
		struct offbpf_stats bs;
		bool bpf = session_offcpu_bpf_stats(c->s, &bs);

		fprintf(c->f, "Off-CPU: %s  switches %" PRIu64 "  spans %" PRIu64 "  lost records %" PRIu64
			"  spans dropped for them %" PRIu64 "  via %s\n", session_offcpu_on(c->s) ? "on" : "off", st.outs,
			st.spans, st.lost_records, st.lost_spans, bpf ? "bpf" : "records");
	}
	for (size_t k = 1; k < dump_ntables; k++) {
		size_t n;

		if (dump_tables[k].text_head == NULL || (dump_tables[k].threads_only && !m->threads) ||
		    (dump_offcpu_table(&dump_tables[k]) && c->s->wait == NULL))
			continue;
		if (c->grouped && strcmp(dump_tables[k].json, "symbols") == 0) { /* --sort's rows instead */
			dump_group_table(c);
			continue;
		}
		n = dump_collect(c, &dump_tables[k]);
		text_head(c, &dump_tables[k]);
		for (size_t i = 0; i < n; i++)
			dump_tables[k].text(c, &c->rows[i]);
	}
	if (c->ac)
		text_counters(c);
	dump_annot_text(c);
	fputc('\n', c->f);
}

int dump_interval(FILE *f, enum dump_format fmt, const struct session *s, const struct dump_meta *m,
		  size_t rows)
{
	struct dctx c = { .f = f, .fmt = fmt, .s = s, .a = s->agg, .ac = agg_counters(s->agg), .cg = agg_callgraph(s->agg),
			  .m = m, .limit = rows, .nev = agg_nevents(s->agg) };

	c.grouped = agg_group_nkeys(s->agg, &(const enum agg_gkey *){ NULL }) > 0;
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
