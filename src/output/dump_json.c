/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump_json: the JSON Lines writer over the dump's tables. */
#include "dump_annot.h"
#include "dump_rows.h"

#include <string.h>

#include "evspec.h"
#include "json.h"
#include "offbpf.h"

/* --- JSON ------------------------------------------------------------------- */

const char *dump_counter_state(enum counter_state st)
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

	evspec_exclude_format(bits, buf, sizeof(buf));
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
		json_str(j, "state", dump_counter_state(v->state));
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
		json_obj_begin(j, ratios_key((enum ratio_kind)k));
		json_double(j, "value", r[k].value, k == RATIO_IPC ? 3 : 2);
		json_bool(j, "estimate", r[k].estimate);
		json_obj_end(j);
	}
	json_obj_end(j);
}

/* "callers":[{"symbol":…,"dso":…,"samples":N},…]: the top few, most first. */
static void json_links(struct json *j, struct dctx *c, const struct agg_sym *sym, bool callers)
{
	struct cg_link l[DUMP_LINKS];
	size_t n = callers ? callgraph_callers(c->cg, sym, AGG_INTERVAL, 0, l, DUMP_LINKS)
		   : callgraph_callees(c->cg, sym, AGG_INTERVAL, 0, l, DUMP_LINKS);

	json_arr_begin(j, callers ? "callers" : "callees");
	for (size_t i = 0; i < n; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "symbol", l[i].sym->sym);
		json_str(j, "dso", l[i].sym->dso);
		json_u64(j, "samples", l[i].samples);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* "offcpu_ms": blocked time in the interval, "offcpu_state": {"S","D","R"} ms. */
static void json_offcpu(struct json *j, struct dctx *c, const struct drow *r)
{
	struct spans_time t;
	uint64_t sum = 0;

	if (c->s->spans == NULL)
		return;
	spans_task(c->s->spans, (pid_t)r->pid, r->tid > 0 ? (pid_t)r->tid : 0, &t);
	for (size_t k = 0; k < SPANS_NSTATES; k++)
		sum += t.iv[k];
	json_double(j, "offcpu_ms", (double)sum / 1e6, 3);
	json_obj_begin(j, "offcpu_state");
	for (size_t k = 0; k < SPANS_NSTATES; k++)
		json_double(j, spans_state_names[k], (double)t.iv[k] / 1e6, 3);
	json_obj_end(j);
}

/* A waits row: blocked time through the symbol and in it, and its callers
 * and callees by blocked microseconds. */
static void json_wait(struct json *j, struct dctx *c, const struct drow *r)
{
	const struct cg *cg = agg_callgraph(c->s->wait);
	struct cg_link l[DUMP_LINKS];

	json_double(j, "children_ms", (double)r->sym->ch_iv.period[0] / 1e6, 3);
	json_double(j, "self_ms", (double)r->sym->iv.period[0] / 1e6, 3);
	for (int callers = 1; cg && callers >= 0; callers--) {
		size_t n = callers ? callgraph_callers(cg, r->sym, AGG_INTERVAL, 0, l, DUMP_LINKS)
			   : callgraph_callees(cg, r->sym, AGG_INTERVAL, 0, l, DUMP_LINKS);

		json_arr_begin(j, callers ? "callers" : "callees");
		for (size_t i = 0; i < n; i++) {
			json_obj_begin(j, NULL);
			json_str(j, "symbol", l[i].sym->sym);
			json_str(j, "dso", l[i].sym->dso);
			json_double(j, "ms", (double)l[i].samples / 1e3, 3);
			json_obj_end(j);
		}
		json_arr_end(j);
	}
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
	case F_SELF:
		if (c->cg && r->sym)
			json_u64(j, "self", r->sym->iv.samples[0]);
		break;
	case F_CHILDREN:
		if (c->cg && r->sym) {
			json_u64(j, "children", r->sym->ch_iv.samples[0]);
			json_double(j, "children_share", agg_share(c->a, &r->sym->ch_iv, AGG_INTERVAL), 2);
		}
		break;
	case F_CALLERS:
	case F_CALLEES:
		if (c->cg && r->sym)
			json_links(j, c, r->sym, f == F_CALLERS);
		break;
	case F_OFFCPU: json_offcpu(j, c, r); break;
	case F_WAIT: json_wait(j, c, r); break;
	case F_GROUP: dump_group_json(j, r, c->a); break;
	case F_BASELINE:
		if (c->m->baseline && r->level != 1) { /* a --hierarchy parent has no baseline row */
			double b = dump_group_baseline(c, r);

			json_double(j, "baseline_share", b, 2);
			json_double(j, "delta", r->share - b, 2);
		}
		break;
	case F_PPID:
		/* The parent as the session last read it; left out when unknown. */
		if (r->tid < 0 && r->pid > 0 && agg_ppid(c->a, (pid_t)r->pid) >= 0)
			json_i64(j, "ppid", agg_ppid(c->a, (pid_t)r->pid));
		break;
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

static void json_stats(struct json *j, const struct session *s, const struct dump_meta *m)
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
	json_u64(j, "reordered_late", st.eng.reordered_late);
	json_u64(j, "stack_bytes_cut", st.eng.stack_cut);
	json_u64(j, "read_in_place_bytes", st.eng.in_place);
	json_u64(j, "spilled_bytes", st.eng.spilled);
	json_u64(j, "rings_handed_back", st.eng.handed_back);
	json_u64(j, "ring_wakeups", st.eng.ring_wakeups);
	json_u64(j, "ring_bytes", st.eng.ring_bytes);
	json_u64(j, "watermark_bytes", st.eng.watermark_bytes);
	json_u64(j, "tracking_lost", st.tracking_lost);
	json_u64(j, "unwound", st.unwound);
	json_u64(j, "unwind_truncated", st.unwind_truncated);
	json_u64(j, "unwind_slow", st.unwind_slow);
	json_u64(j, "leaf_fixed", st.leaf_fixed);
	json_u64(j, "leaf_rule_hits", st.leaf_rule_hits);
	json_u64(j, "leaf_rule_memo", st.leaf_rule_memo);
	json_u64(j, "leaf_rule_misses", st.leaf_rule_misses);
	json_u64(j, "leaf_rule_negative", st.leaf_rule_negative);
	json_u64(j, "leaf_rule_opens", st.leaf_rule_opens);
	json_u64(j, "unwind_dwfl", st.unwind_dwfl);
	json_u64(j, "chains_cached", st.sym.chain_hits);
	json_u64(j, "chains_resolved", st.sym.chain_misses);
	json_u64(j, "processes", st.sym.processes);
	json_u64(j, "dsos", st.sym.dsos);
	json_u64(j, "symbol_tables", st.sym.tables);
	json_u64(j, "symbols", st.sym.symbols);
	json_u64(j, "symbol_bytes", st.sym.bytes);
	json_u64(j, "symbol_table_bytes", st.sym.table_bytes);
	json_u64(j, "symbol_table_limit", st.sym.table_limit);
	json_u64(j, "symbol_tables_evicted", st.sym.evicted);
	json_u64(j, "symbol_tables_cached", st.sym.tables_cached);
	json_u64(j, "symbol_tables_evicted_idle", st.sym.evicted_idle);
	json_u64(j, "rows_symbols", st.agg.syms);
	json_u64(j, "rows_tasks", st.agg.tasks);
	json_u64(j, "rows_threads", st.agg.threads);
	json_u64(j, "rows_active_symbols", st.agg.active_syms);
	json_u64(j, "rows_active_tasks", st.agg.active_tasks);
	json_u64(j, "rows_held", st.agg.held);
	json_u64(j, "expired_symbols", st.agg.expired_syms);
	json_u64(j, "expired_tasks", st.agg.expired_tasks);
	json_u64(j, "expired_threads", st.agg.expired_threads);
	if (m->push) {
		json_u64(j, "push_sent", m->push_sent);
		json_u64(j, "push_failed", m->push_failed);
		json_u64(j, "push_dropped", m->push_dropped);
	}
	json_obj_end(j);
}

void dump_json(struct dctx *c)
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
	for (size_t t = 0; t < dump_ntables; t++) {
		size_t n;

		if (DUMP_GROUPED(&dump_tables[t]) && !c->grouped) /* no --sort: the default's arrays only */
			continue;
		n = dump_collect(c, &dump_tables[t]);

		if (open == NULL || strcmp(open, dump_tables[t].json) != 0) {
			if (open)
				json_arr_end(&j);
			json_arr_begin(&j, dump_tables[t].json);
			open = dump_tables[t].json;
		}
		for (size_t i = 0; i < n; i++)
			json_row(&j, c, &dump_tables[t], &c->rows[i]);
	}
	if (open)
		json_arr_end(&j);
	if (c->s->spans) {
		struct spans_stats st;

		/* Spans lost records cut are dropped, and said so. */
		spans_stats(c->s->spans, &st);
		json_obj_begin(&j, "offcpu");
		json_bool(&j, "on", session_offcpu_on(c->s));
		json_u64(&j, "switches", st.outs);
		json_u64(&j, "spans", st.spans);
		json_u64(&j, "short_spans", st.short_spans);
		json_u64(&j, "lost_records", st.lost_records);
		json_u64(&j, "lost_spans", st.lost_spans);
		json_u64(&j, "open_spans", st.open);
		/* The kernel's way: what crossed into user space, and what it
		 * could not keep. */
		struct offbpf_stats bs;
		bool bpf = session_offcpu_bpf_stats(c->s, &bs);

		json_str(&j, "via", bpf ? "bpf" : "records");
		if (bpf) {
			json_u64(&j, "kernel_sums", bs.sums);
			json_u64(&j, "stacks_read", bs.stacks_read);
			json_u64(&j, "stacks_lost", bs.no_stack + bs.stacks_gone);
			json_u64(&j, "unfixed_leaves", bs.unfixed);
			json_u64(&j, "drains", bs.drains);
			json_u64(&j, "drain_us", bs.drain_ns / 1000);
			json_u64(&j, "quiesce_waits", bs.quiesce_waits);
		}
		json_obj_end(&j);
	}
	if (m->stats)
		json_stats(&j, c->s, m);
	dump_annot_json(c, &j);
	json_obj_end(&j);
}
