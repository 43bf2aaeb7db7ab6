/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "agg.h"
#include "agg_int.h"
#include "symbols.h"
#include "check.h"

/* The names the session hands down with each sample. */
static struct sym_result sym(const char *name, uint64_t key, bool kernel, const char *comm)
{
	struct sym_result r = { .sym = name, .dso = kernel ? "[kernel.kallsyms]" : "/bin/x",
				.key = key, .kernel = kernel, .comm = comm };
	return r;
}

/* An agg whose idle rows all expire, none kept for "since start"
 * (keep_top 0): the tests of expiry itself. */
static struct agg *agg_expiring(size_t nevents, const int *cpus, size_t ncpus)
{
	struct agg *a = agg_new(nevents, cpus, ncpus);

	if (a)
		a->keep_top = 0;
	return a;
}

/* Rows' cumulative samples of event 0 plus what expired: must equal the
 * event's total, whatever went. */
static bool sums_exact(struct agg *a)
{
	const struct agg_sym **s;
	const struct agg_task **t;
	struct agg_stats st;
	uint64_t syms = 0, tasks = 0, threads = 0, all = agg_event(a, 0)->samples_total;
	size_t n;

	agg_get_stats(a, &st);
	n = agg_symbols(a, AGG_TOTAL, &s);
	for (size_t i = 0; i < n; i++)
		syms += s[i]->total.samples[0];
	n = agg_tasks(a, AGG_TOTAL, &t);
	for (size_t i = 0; i < n; i++)
		tasks += t[i]->total.samples[0];
	n = agg_threads(a, AGG_TOTAL, &t);
	for (size_t i = 0; i < n; i++)
		threads += t[i]->total.samples[0];
	return syms + st.sym_expired.samples[0] == all && tasks + st.task_expired.samples[0] == all &&
	       threads + st.thread_expired.samples[0] == all;
}

static const struct agg_sym *find_sym(struct agg *a, uint64_t key)
{
	const struct agg_sym **s;
	size_t n = agg_symbols(a, AGG_TOTAL, &s);

	for (size_t i = 0; i < n; i++)
		if (s[i]->key == key)
			return s[i];
	return NULL;
}

static const struct agg_task *find_task(struct agg *a, pid_t pid)
{
	const struct agg_task **t;
	size_t n = agg_tasks(a, AGG_TOTAL, &t);

	for (size_t i = 0; i < n; i++)
		if (t[i]->pid == pid)
			return t[i];
	return NULL;
}

/* "Since start" keeps what can be shown (issue 46): a program that spun in
 * once_hot and exited is still in the cumulative Symbols and Tasks views
 * with its exact counts, however many intervals roll after; only rows
 * below the top AGG_KEEP_TOP (by samples since start) fold into the
 * expired sums. */
static void test_cumulative_keeps_top(void)
{
	static const int cpus[] = { 0, 1 };
	struct agg *a = agg_new(1, cpus, 2);
	struct sym_result hot = sym("once_hot", 7, false, "once");
	const struct agg_sym *s;
	const struct agg_task *t, **th;
	struct agg_stats st;
	bool thread_kept = false;
	size_t n;

	CHECK(a != NULL, "agg_new");
	if (a == NULL)
		return;
	for (int i = 0; i < 2000; i++)
		agg_sample(a, 0, 0, 500, 500, &hot, 1);
	agg_roll(a, 0);
	agg_task_exit(a, 500);
	/* Rows enough that not all rank: one sample each, idle after. */
	for (int i = 0; i < AGG_KEEP_TOP + 50; i++) {
		struct sym_result r = sym("cold", 1000 + (uint64_t)i, false, "cold");

		agg_sample(a, 0, 1, 2000 + i, 2000 + i, &r, 1);
	}
	/* 14 s later at -d 1, and a good deal more. */
	for (int r = 0; r < 14 + 4 * AGG_EXPIRE_IDLE; r++)
		agg_roll(a, 0);
	s = find_sym(a, 7);
	t = find_task(a, 500);
	CHECK(s && s->total.samples[0] == 2000 && s->total.period[0] == 2000,
	      "cumulative: once_hot's row is still there, its 2000 samples exact");
	CHECK(t && t->exited && t->total.samples[0] == 2000, "cumulative: the exited task's row too, 2000 samples");
	n = agg_threads(a, AGG_TOTAL, &th);
	for (size_t i = 0; i < n; i++)
		thread_kept |= th[i]->tid == 500 && th[i]->total.samples[0] == 2000;
	CHECK(thread_kept, "cumulative: and its thread's row");
	agg_get_stats(a, &st);
	CHECK(st.syms <= AGG_KEEP_TOP && st.tasks <= AGG_KEEP_TOP && st.threads <= AGG_KEEP_TOP,
	      "rows kept idle are bounded by AGG_KEEP_TOP (%zu symbols, %zu tasks, %zu threads)", st.syms, st.tasks,
	      st.threads);
	CHECK(st.expired_syms >= 51 && st.expired_tasks >= 51, "rows below the top fold (%llu symbols, %llu tasks)",
	      (unsigned long long)st.expired_syms, (unsigned long long)st.expired_tasks);
	CHECK(sums_exact(a), "kept rows + expired == the event's total");
	agg_free(a);
}

/* Rows no sample touched for AGG_EXPIRE_IDLE intervals after they showed
 * zero go; their counts stay in the totals; a key back is a fresh row. */
static void test_expiry(void)
{
	static const int one[] = { 0 };
	struct agg *a = agg_expiring(1, one, 1);
	struct sym_result old = sym("old_fn", 1, false, "oldproc"), hot = sym("hot_fn", 2, false, "hotproc");
	const struct agg_sym *o, *h;
	struct agg_stats st;
	uint64_t serial;
	const char *name;

	for (int i = 0; i < 5; i++)
		agg_sample(a, 0, 0, 10, 10, &old, 1);
	agg_sample(a, 0, 0, 10, 11, &old, 1);
	for (int i = 0; i < 8; i++)
		agg_sample(a, 0, 0, 20, 20, &hot, 1);
	o = find_sym(a, 1);
	serial = o ? o->serial : 0;
	/* Decaying by half: 6 -> 3 -> 1 -> 0, idle from the third roll. */
	for (int r = 1; r <= 3 + AGG_EXPIRE_IDLE - 1; r++) {
		agg_sample(a, 0, 0, 20, 20, &hot, 1);
		agg_roll(a, 50);
	}
	o = find_sym(a, 1);
	CHECK(o && find_task(a, 10), "an idle row stays %d intervals after it shows zero", AGG_EXPIRE_IDLE - 1);
	name = o ? o->sym : NULL; /* as a front end's copy would keep it */
	agg_sample(a, 0, 0, 20, 20, &hot, 1);
	agg_roll(a, 50);
	agg_get_stats(a, &st);
	CHECK(find_sym(a, 1) == NULL && find_task(a, 10) == NULL, "then it expires (symbol, task)");
	CHECK(st.expired_syms == 1 && st.expired_tasks == 1 && st.expired_threads == 2,
	      "expiry counted: %llu symbols, %llu tasks, %llu threads", (unsigned long long)st.expired_syms,
	      (unsigned long long)st.expired_tasks, (unsigned long long)st.expired_threads);
	CHECK(st.sym_expired.samples[0] == 6 && st.sym_expired.period[0] == 6 && st.task_expired.samples[0] == 6,
	      "its cumulative counts kept in the expired sums");
	CHECK(st.syms == 1 && st.tasks == 1 && st.threads == 1, "live rows: the hot ones only");
	CHECK(sums_exact(a), "rows + expired == the event's total");
	CHECK(st.held == 3 && name && strcmp(name, "old_fn") == 0,
	      "an expired row is freed by the next roll, not this one (%zu held)", st.held);
	h = find_sym(a, 2);
	CHECK(h && h->total.samples[0] == 8 + 3 + AGG_EXPIRE_IDLE, "a row sampled every interval stays, counts intact");

	/* Back again: a fresh row from its first sample on. */
	agg_sample(a, 0, 0, 10, 10, &old, 3);
	o = find_sym(a, 1);
	CHECK(o && o->total.samples[0] == 1 && o->serial != serial, "a returning symbol starts a fresh row");
	CHECK(find_task(a, 10) && find_task(a, 10)->total.samples[0] == 1 && find_task(a, 10)->threads == 1,
	      "a returning task too");
	CHECK(sums_exact(a), "still exact");
	CHECK(agg_share(a, &o->total, AGG_TOTAL) * (double)agg_base(a, AGG_TOTAL) / 100.0 > 0.99,
	      "shares against the whole run's total");

	/* Held (a paused screen): nothing is freed until released. */
	agg_hold(a, true);
	for (int r = 0; r < AGG_EXPIRE_IDLE + 2; r++)
		agg_roll(a, 0);
	agg_get_stats(a, &st);
	CHECK(st.syms == 0 && st.held >= 3 + 3, "held: rows leave the tables but stay allocated (%zu held)", st.held);
	agg_hold(a, false);
	agg_roll(a, 0);
	agg_get_stats(a, &st);
	CHECK(st.held == 0 && sums_exact(a), "released: freed at the next roll, sums exact");

	/* The call graph points to its symbols: they never expire. */
	{
		struct sym_result fr[2] = { sym("leaf", 7, false, "cg"), sym("root", 8, false, "cg") };

		agg_sample_stack(a, 0, 0, 30, 30, fr, 2, 1);
		for (int r = 0; r < 2 * AGG_EXPIRE_IDLE; r++)
			agg_roll(a, 0);
		CHECK(find_sym(a, 7) && find_sym(a, 8) && find_task(a, 30) == NULL,
		      "call-graph symbols stay, their task goes");
	}
	agg_free(a);
}

/* Expiry deletes from the open-addressing maps: every row kept must be
 * found again (and not made anew) after thousands went. */
static void test_expiry_many(void)
{
	static const int one[] = { 0 };
	struct agg *a = agg_expiring(1, one, 1);
	struct agg_stats st;
	bool found = true;

	for (uint64_t k = 1; k <= 3000; k++) {
		struct sym_result r = sym("s", k * 0x10000, false, "p");

		agg_sample(a, 0, 0, (pid_t)k, (pid_t)k, &r, 1);
	}
	for (int roll = 0; roll < AGG_EXPIRE_IDLE + 2; roll++) {
		for (uint64_t k = 3; k <= 3000; k += 3) {
			struct sym_result r = sym("s", k * 0x10000, false, "p");

			agg_sample(a, 0, 0, (pid_t)k, (pid_t)k, &r, 1);
		}
		agg_roll(a, 0);
	}
	agg_get_stats(a, &st);
	CHECK(st.syms == 1000 && st.tasks == 1000 && st.expired_syms == 2000,
	      "2000 idle rows expired, 1000 kept (%zu, %zu)", st.syms, st.tasks);
	for (uint64_t k = 3; k <= 3000; k += 3) {
		struct sym_result r = sym("s", k * 0x10000, false, "p");

		agg_sample(a, 0, 0, (pid_t)k, (pid_t)k, &r, 1);
	}
	agg_get_stats(a, &st);
	for (uint64_t k = 3; k <= 3000 && found; k += 3)
		found = find_sym(a, k * 0x10000) && find_sym(a, k * 0x10000)->total.samples[0] == AGG_EXPIRE_IDLE + 4;
	CHECK(st.syms == 1000 && found, "every kept row found again with its counts");
	CHECK(sums_exact(a), "sums exact after mass expiry");
	agg_free(a);
}

/* Churn: every interval new names, new pids, threads that exit. Live rows
 * stay bounded by what the last intervals saw, not by all ever seen. */
static void test_expiry_churn(void)
{
	static const int one[] = { 0 };
	struct agg *a = agg_expiring(1, one, 1);
	struct agg_stats st;
	size_t most = 0;
	char name[64], comm[32];

	for (int iv = 0; iv < 500; iv++) {
		for (int j = 0; j < 20; j++) {
			int id = iv * 20 + j;
			struct sym_result r;

			snprintf(name, sizeof(name), "fn_%d\x1b[2J", id);
			snprintf(comm, sizeof(comm), "\x07p%d", id);
			r = sym(name, (uint64_t)id + 100, false, comm);
			r.thread_comm = comm;
			agg_sample(a, 0, 0, 1000 + id, 1000 + id, &r, 1);
			agg_sample(a, 0, 0, 1000 + id, 200000 + id, &r, 1);
			if (j % 2)
				agg_task_exit(a, 1000 + id);
		}
		agg_roll(a, 50);
		agg_get_stats(a, &st);
		if (st.syms + st.tasks + st.threads > most)
			most = st.syms + st.tasks + st.threads;
	}
	CHECK(most <= 3 * 20 * (AGG_EXPIRE_IDLE + 3),
	      "10000 names and tasks: at most %zu live rows at a time", most);
	CHECK(sums_exact(a), "sums exact under churn");
	agg_free(a);
}

/* (process, symbol) pairs of the interval: kept only when asked, event 0
 * only, one pair each, emptied by the roll; a table that grows keeps them all. */
static void pairs(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(2, cpus, 1);
	struct sym_result f = sym("f", 1, false, "alpha"), g = sym("g", 2, false, "beta");
	const struct agg_pair *p;
	size_t n, found = 0;
	uint64_t total = 0;

	CHECK(a != NULL, "pairs: agg_new");
	agg_sample(a, 0, 0, 10, 10, &f, 5);
	CHECK(agg_pairs(a, &p) == 0, "no pairs until asked for");
	CHECK(agg_pairs_keep(a, true) == 0, "agg_pairs_keep");
	for (int i = 0; i < 3; i++)
		agg_sample(a, 0, 0, 10, 10, &f, 5);
	agg_sample(a, 0, 0, 20, 21, &f, 7);
	agg_sample(a, 0, 0, 20, 20, &g, 1);
	agg_sample(a, 1, 0, 20, 20, &g, 1); /* another event: not in the pairs */
	n = agg_pairs(a, &p);
	for (size_t i = 0; i < n; i++) {
		if (p[i].task->pid == 10 && strcmp(p[i].sym->sym, "f") == 0)
			found += p[i].samples == 3 && p[i].period == 15 && strcmp(p[i].task->comm, "alpha") == 0;
		if (p[i].task->pid == 20 && strcmp(p[i].sym->sym, "f") == 0)
			found += p[i].samples == 1 && p[i].period == 7;
		if (p[i].task->pid == 20 && strcmp(p[i].sym->sym, "g") == 0)
			found += p[i].samples == 1 && p[i].period == 1;
	}
	CHECK(n == 3 && found == 3, "one pair per process and symbol, its samples and period (%zu pairs)", n);
	agg_roll(a, 50);
	CHECK(agg_pairs(a, &p) == 0, "the roll empties them (whatever the decay)");
	for (int t = 0; t < 1000; t++)
		for (int i = 0; i <= t % 3; i++)
			agg_sample(a, 0, 0, 100 + t, 100 + t, &g, 1);
	n = agg_pairs(a, &p);
	for (size_t i = 0; i < n; i++)
		total += p[i].samples;
	CHECK(n == 1000 && total == 1999, "1000 pairs through the table's growth, none lost (%zu, %llu)", n,
	      (unsigned long long)total);
	agg_roll(a, 0);
	CHECK(agg_pairs_keep(a, false) == 0, "pairs off");
	agg_sample(a, 0, 0, 10, 10, &f, 5);
	CHECK(agg_pairs(a, &p) == 0, "and no longer kept");
	agg_free(a);
}

/* The flat memo holds rows only while they stay: a row that expired, or a
 * pid's row handed to a new owner, is not counted through the memo. */
static void test_flat_memo(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_expiring(1, cpus, 1);
	struct sym_result f = sym("f", 1, false, "alpha"), g = sym("g", 2, false, "alpha"),
			  h = sym("h", 3, false, "beta");
	struct agg_where wf = { .pid = 10, .tid = 10, .ip = 0x1000, .tag = 7 };
	struct agg_where wg = { .pid = 10, .tid = 10, .ip = 0x2000, .tag = 7 };
	bool hit;

	CHECK(a != NULL, "flat memo: agg_new");
	if (a == NULL)
		return;
	agg_sample_at(a, 0, 0, &wf, &f, 1);
	agg_sample_at(a, 0, 0, &wg, &g, 1);
	CHECK(agg_sample_memo(a, 0, 0, &wf, 1) && find_sym(a, 1)->total.samples[0] == 2,
	      "flat memo: a repeated IP counted through the memo");
	wf.tag = 8;
	CHECK(!agg_sample_memo(a, 0, 0, &wf, 1), "flat memo: another symbols tag is a miss");
	wf.tag = 7;
	/* f goes idle and expires; g stays sampled. */
	for (int r = 0; r < AGG_EXPIRE_IDLE + 2 && find_sym(a, 1); r++) {
		agg_sample_at(a, 0, 0, &wg, &g, 1);
		agg_roll(a, 0);
	}
	CHECK(find_sym(a, 1) == NULL, "flat memo: f's row expired");
	/* g's entry was made before the roll that expired f: another row's
	 * expiry leaves it (a roll expires rows most intervals). */
	CHECK(agg_sample_memo(a, 0, 0, &wg, 1) && sums_exact(a),
	      "flat memo: a row that stays is still counted through the memo after another expired");
	hit = agg_sample_memo(a, 0, 0, &wf, 1);
	CHECK(!hit, "flat memo: an expired row is not counted through the memo");
	if (!hit)
		agg_sample_at(a, 0, 0, &wf, &f, 1);
	CHECK(find_sym(a, 1) && find_sym(a, 1)->total.samples[0] == 1 && sums_exact(a),
	      "flat memo: the IP back is a fresh row, sums exact");
	/* pid 10 exits and a new owner takes it: its samples go to a fresh row
	 * named from the sample, not to the old one through the memo. */
	agg_sample_at(a, 0, 0, &wf, &f, 1);
	agg_task_exit(a, 10);
	agg_task_new(a, 10);
	hit = agg_sample_memo(a, 0, 0, &wf, 1);
	CHECK(!hit, "flat memo: a pid with a new owner is not counted through the memo");
	if (!hit) {
		h.comm = "beta";
		agg_sample_at(a, 0, 0, &wf, &h, 1);
	}
	CHECK(find_task(a, 10) && strcmp(find_task(a, 10)->comm, "beta") == 0 &&
	      find_task(a, 10)->total.samples[0] == 1,
	      "flat memo: the new owner's row named afresh (%s)", find_task(a, 10) ? find_task(a, 10)->comm : "-");
	agg_free(a);
}

/* n samples at once (the engine's tally): as n calls of one, in every
 * count (event, CPU, rows, pairs), through a miss and through the memo. */
static void test_samples_n(void)
{
	int cpus[] = { 0, 1 };
	struct agg *a = agg_new(1, cpus, 2);
	struct sym_result f = sym("f", 1, false, "alpha");
	struct agg_where wf = { .pid = 10, .tid = 11, .ip = 0x1000, .tag = 7 };
	const struct agg_cpu **c;
	const struct agg_pair *p;
	const struct agg_task *t;

	CHECK(a != NULL && agg_pairs_keep(a, true) == 0, "n samples: agg_new");
	if (a == NULL)
		return;
	agg_samples_at(a, 0, 1, &wf, &f, 5, 50);
	CHECK(agg_samples_memo(a, 0, 1, &wf, 3, 33), "n samples: the memo has them");
	(void)agg_pairs_keep(a, false);
	CHECK(agg_samples_memo(a, 0, 1, &wf, 4, 40), "n samples: the memo's pending way too");
	t = find_task(a, 10);
	CHECK(find_sym(a, 1) && find_sym(a, 1)->iv.samples[0] == 12 && find_sym(a, 1)->iv.period[0] == 123 && t &&
	      t->iv.samples[0] == 12 && t->total.period[0] == 123 && sums_exact(a),
	      "n samples: the symbol's and the task's rows count 12, period 123");
	CHECK(agg_event(a, 0)->samples_iv == 12 && agg_event(a, 0)->period_total == 123,
	      "n samples: so do the event's counts");
	CHECK(agg_cpus(a, &c) == 2 && c[1]->iv.samples[0] == 12 && c[1]->total.period[0] == 123 &&
	      c[0]->iv.samples[0] == 0, "n samples: and CPU 1's");
	agg_roll(a, 0);
	CHECK(agg_pairs_keep(a, true) == 0, "n samples: pairs kept again");
	CHECK(agg_samples_memo(a, 0, 1, &wf, 6, 60) && agg_pairs(a, &p) == 1 && p[0].samples == 6 &&
	      p[0].period == 60, "n samples: one pair, 6 samples");
	agg_free(a);
}

/* A memo hit adds to its rows later (agg_settle): every read sees it, it
 * counts in the interval it came in, under its own event, and a pid handed
 * to a new owner keeps the old owner's hits in the old owner's sums. */
static void test_flat_pending(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(2, cpus, 1);
	struct sym_result f = sym("f", 1, false, "alpha"), h = sym("h", 3, false, "beta");
	struct agg_where wf = { .pid = 10, .tid = 11, .ip = 0x1000, .tag = 7 };
	const struct agg_sym **s;
	const struct agg_task **th, *t;
	bool hits = true;
	size_t n;

	CHECK(a != NULL, "flat pending: agg_new");
	if (a == NULL)
		return;
	agg_sample_at(a, 0, 0, &wf, &f, 1);
	for (int i = 0; i < 5; i++)
		hits &= agg_sample_memo(a, 0, 0, &wf, 3);
	for (int i = 0; i < 2; i++)
		hits &= agg_sample_memo(a, 1, 0, &wf, 4);
	hits &= agg_sample_memo(a, 0, 0, &wf, 3);
	CHECK(hits, "flat pending: the hits went through the memo");
	CHECK(find_sym(a, 1) && find_sym(a, 1)->iv.samples[0] == 7 && find_sym(a, 1)->iv.period[0] == 19 &&
	      find_sym(a, 1)->iv.samples[1] == 2 && find_sym(a, 1)->iv.period[1] == 8 &&
	      find_sym(a, 1)->total.samples[0] == 7,
	      "flat pending: the symbol's row has every hit, under its event, when read");
	t = find_task(a, 10);
	CHECK(t && t->iv.samples[0] == 7 && t->total.period[1] == 8, "flat pending: so has the task's");
	CHECK(sums_exact(a), "flat pending: the rows add up to the event's samples");
	n = agg_symbols_active(a, &s);
	CHECK(n == 1 && s[0]->key == 1, "flat pending: the row is in the interval's active list (%zu)", n);
	agg_sample_memo(a, 0, 0, &wf, 3);
	agg_roll(a, 0);
	CHECK(find_sym(a, 1)->iv.samples[0] == 0 && find_sym(a, 1)->total.samples[0] == 8,
	      "flat pending: a hit counts in the interval it came in (%llu in the next, %llu in all)",
	      (unsigned long long)find_sym(a, 1)->iv.samples[0], (unsigned long long)find_sym(a, 1)->total.samples[0]);
	/* Hits, then the pid gets a new owner: they stay the old owner's. */
	for (int i = 0; i < 4; i++)
		agg_sample_memo(a, 0, 0, &wf, 3);
	agg_task_exit(a, 10);
	agg_task_new(a, 10);
	CHECK(!agg_sample_memo(a, 0, 0, &wf, 1), "flat pending: a pid with a new owner is a miss");
	agg_sample_at(a, 0, 0, &wf, &h, 1);
	t = find_task(a, 10);
	CHECK(t && strcmp(t->comm, "beta") == 0 && t->total.samples[0] == 1 && sums_exact(a),
	      "flat pending: the old owner's hits not in the new owner's row (%llu), sums exact",
	      t ? (unsigned long long)t->total.samples[0] : 0ULL);
	/* The same for a thread id another process takes. */
	for (int i = 0; i < 4; i++)
		agg_sample_memo(a, 0, 0, &wf, 3);
	agg_thread_exit(a, 11);
	wf.pid = 20;
	agg_sample_at(a, 0, 0, &wf, &h, 1);
	n = agg_threads(a, AGG_TOTAL, &th);
	t = NULL;
	for (size_t i = 0; i < n; i++)
		if (th[i]->tid == 11)
			t = th[i];
	CHECK(t && t->pid == 20 && t->total.samples[0] == 1 && sums_exact(a),
	      "flat pending: a thread id taken by another process keeps none of the old hits (%llu)",
	      t ? (unsigned long long)t->total.samples[0] : 0ULL);
	agg_free(a);
}

/* A process row shows the count the session hands it (/proc's threads),
 * idle threads included; the threads seen sampling only until then, and
 * again for a new owner of its pid. */
static void test_threads_told(void)
{
	static const int one[] = { 0 };
	struct agg *a = agg_new(1, one, 1);
	struct sym_result x = sym("x", 1, false, "four");
	const struct agg_task *t;

	if (a == NULL) {
		CHECK(false, "threads: an agg");
		return;
	}
	agg_sample(a, 0, 0, 70, 70, &x, 1);
	t = find_task(a, 70);
	CHECK(t && t->threads == 1, "threads: one seen sampling, before the session says (%u)", t ? t->threads : 0);
	agg_task_threads(a, 70, 4);
	agg_sample(a, 0, 0, 70, 71, &x, 1);
	t = find_task(a, 70);
	CHECK(t && t->threads == 4 && t->threads_seen == 2,
	      "threads: the process's 4, not the 2 seen sampling (%u, %u seen)", t ? t->threads : 0,
	      t ? t->threads_seen : 0);
	agg_task_threads(a, 70, 3);
	agg_task_exit(a, 70);
	agg_roll(a, 0);
	t = find_task(a, 70);
	CHECK(t && t->exited && t->threads == 3, "threads: an exited process keeps its last count (%u)",
	      t ? t->threads : 0);
	agg_task_new(a, 70);
	agg_sample(a, 0, 0, 70, 70, &x, 1);
	t = find_task(a, 70);
	CHECK(t && !t->exited && t->threads == 1, "threads: a new owner of the pid starts from what it samples (%u)",
	      t ? t->threads : 0);
	agg_task_threads(a, 999, 9); /* no row: nothing made */
	CHECK(find_task(a, 999) == NULL, "threads: a count for a process without a row makes none");
	agg_free(a);
}

int main(void)
{
	int cpus[] = { 0, 3 };
	struct agg *a = agg_expiring(2, cpus, 2);
	struct sym_result f = sym("f", 1, false, "alpha"), g = sym("g", 2, false, "alpha"),
			  k = sym("schedule", 3, true, "beta");
	const struct agg_sym **srows;
	const struct agg_task **trows;
	const struct agg_cpu **crows;
	size_t n;

	CHECK(a != NULL, "agg_new");
	CHECK(agg_new(0, cpus, 2) == NULL && agg_new(AGG_MAX_EVENTS + 1, cpus, 2) == NULL,
	      "event counts out of range refused");
	for (int i = 0; i < 60; i++)
		agg_sample(a, 0, 0, 100, 100, &f, 10);
	for (int i = 0; i < 30; i++)
		agg_sample(a, 0, 3, 100, 101, &g, 10);
	for (int i = 0; i < 10; i++)
		agg_sample(a, 0, 3, 200, 200, &k, 10);
	for (int i = 0; i < 50; i++)
		agg_sample(a, 1, 0, 200, 200, &k, 7); /* second event only on k */
	agg_lost(a, 0, 3, 5);
	agg_throttle(a, 1, 0);

	n = agg_symbols(a, AGG_INTERVAL, &srows);
	CHECK(n == 3, "three symbols");
	CHECK_STR(srows[0]->sym, "f", "first by samples of event 0");
	CHECK_STR(srows[1]->sym, "g", "second");
	CHECK_STR(srows[2]->sym, "schedule", "third (kernel)");
	CHECK(srows[2]->kernel && srows[2]->iv.samples[1] == 50 && srows[2]->iv.period[1] == 350,
	      "per-event samples and period on a row");
	CHECK(agg_base(a, AGG_INTERVAL) == 100, "base is event 0 samples");
	CHECK(agg_share(a, &srows[0]->iv, AGG_INTERVAL) > 59.99 && agg_share(a, &srows[0]->iv, AGG_INTERVAL) < 60.01,
	      "share of f is 60%%");

	n = agg_tasks(a, AGG_INTERVAL, &trows);
	CHECK(n == 2 && trows[0]->pid == 100 && trows[0]->iv.samples[0] == 90, "task 100 first with 90");
	CHECK_STR(trows[0]->comm, "alpha", "comm handed down with the sample");
	CHECK(trows[0]->threads == 2 && trows[1]->threads == 1, "distinct threads counted");

	n = agg_threads(a, AGG_INTERVAL, &trows);
	CHECK(n == 3 && trows[0]->tid == 100 && trows[0]->pid == 100 && trows[0]->iv.samples[0] == 60 &&
	      trows[1]->tid == 101 && trows[1]->pid == 100 && trows[1]->iv.samples[0] == 30,
	      "thread rows: tid, pid and their own counts");
	agg_thread_comm(a, 101, "worker");
	CHECK_STR(trows[1]->comm, "worker", "a thread keeps its own name");

	n = agg_cpus(a, &crows);
	CHECK(n == 2 && crows[0]->cpu == 0 && crows[0]->iv.samples[0] == 60 && crows[1]->cpu == 3 &&
	      crows[1]->iv.samples[0] == 40, "per-CPU samples");
	CHECK(agg_event(a, 0)->lost_iv == 5 && agg_event(a, 1)->throttled_iv == 1, "lost and throttled kept per event");
	CHECK(crows[1]->lost_iv == 5 && crows[0]->throttled_iv == 1 && crows[0]->lost_iv == 0,
	      "lost and throttled kept per CPU");

	agg_sample(a, 0, 99, 100, 100, &f, 10); /* a CPU we do not sample: no crash, still counted */
	CHECK(agg_event(a, 0)->samples_iv == 101, "sample from an unknown CPU still counts");

	agg_roll(a, 0);
	n = agg_symbols(a, AGG_INTERVAL, &srows);
	CHECK(n == 3 && srows[0]->iv.samples[0] == 0 && agg_event(a, 0)->lost_iv == 0,
	      "interval counters zeroed by roll");
	n = agg_symbols(a, AGG_TOTAL, &srows);
	CHECK(srows[0]->total.samples[0] == 61, "totals survive the roll");
	CHECK(agg_event(a, 0)->lost_total == 5, "lost total survives");

	for (int i = 0; i < 100; i++)
		agg_sample(a, 0, 0, 100, 100, &f, 10);
	agg_roll(a, 50);
	n = agg_symbols(a, AGG_INTERVAL, &srows);
	CHECK(srows[0]->iv.samples[0] == 50, "decaying roll halves");

	agg_task_comm(a, 200, "renamed");
	agg_task_exit(a, 200);
	for (int i = 0; i <= AGG_EXIT_GRACE; i++) {
		n = agg_tasks(a, AGG_TOTAL, &trows);
		CHECK(n == 2, "exited task still visible after %d rolls", i);
		agg_roll(a, 0);
	}
	n = agg_tasks(a, AGG_TOTAL, &trows);
	CHECK(n == 1 && trows[0]->pid == 100, "exited task reaped after the grace period");
	n = agg_threads(a, AGG_TOTAL, &trows);
	CHECK(n == 2, "its thread row reaped with it (%zu left)", n);
	agg_sample(a, 0, 0, 200, 200, &k, 1);
	n = agg_tasks(a, AGG_TOTAL, &trows);
	CHECK(n == 2, "a reused pid gets a fresh row");

	/* Many rows: the maps grow and every row is found again. */
	for (uint64_t key = 10; key < 5000; key++) {
		struct sym_result r = sym("many", key, false, NULL);

		agg_sample(a, 0, 0, (pid_t)(1000 + key), (pid_t)(1000 + key), &r, 1);
	}
	n = agg_symbols(a, AGG_TOTAL, &srows);
	CHECK(n == 3 + 4990, "all rows after growth (%zu)", n);
	{
		/* Uneven counts so the order is strict; top-k must equal the head. */
		const struct agg_sym *full[64], **top;
		size_t got;
		bool same = true;

		for (uint64_t key = 10; key < 5000; key += 7) {
			struct sym_result r = sym("many", key, false, NULL);

			for (uint64_t j = 0; j < key % 97; j++)
				agg_sample(a, 0, 0, 1, 1, &r, 1);
		}
		n = agg_symbols(a, AGG_TOTAL, &srows);
		memcpy(full, srows, sizeof(full));
		got = agg_symbols_top(a, AGG_TOTAL, 64, &top);
		for (size_t i = 0; i < 64; i++)
			same &= top[i]->total.samples[0] == full[i]->total.samples[0];
		CHECK(got == 64 && same, "top 64 of %zu rows equals the head of the full sort", n);
		CHECK(agg_symbols_top(a, AGG_TOTAL, 0, &top) == 0, "top 0 is empty");
	}
	agg_free(a);

	/* The roll follows the rows with interval counts; decayed ones keep
	 * rolling until zero; a pid whose owner exited starts afresh. */
	{
		static const int one[] = { 0 };
		struct agg *b = agg_new(1, one, 1);
		struct sym_result x = sym("x", 1, false, "old"), y = sym("y", 2, false, "new");

		for (int i = 0; i < 8; i++)
			agg_sample(b, 0, 0, 50, 50, &x, 1);
		for (int i = 0; i < 3; i++)
			agg_roll(b, 50);
		n = agg_symbols(b, AGG_INTERVAL, &srows);
		CHECK(n == 1 && srows[0]->iv.samples[0] == 1, "a decaying row keeps rolling: 8 -> 4 -> 2 -> 1");
		agg_roll(b, 50);
		agg_sample(b, 0, 0, 50, 51, &x, 1);
		agg_task_exit(b, 50);
		agg_thread_exit(b, 51);
		agg_task_new(b, 50);
		agg_sample(b, 0, 0, 50, 50, &y, 1);
		n = agg_tasks(b, AGG_TOTAL, &trows);
		CHECK(n == 1 && strcmp(trows[0]->comm, "new") == 0 && trows[0]->total.samples[0] == 1 &&
		      trows[0]->threads == 1 && !trows[0]->exited,
		      "a pid reused after its owner exited: a fresh row (comm %s, %u threads, %llu samples)",
		      n ? trows[0]->comm : "-", n ? trows[0]->threads : 0,
		      n ? (unsigned long long)trows[0]->total.samples[0] : 0ull);
		agg_sample(b, 0, 0, 60, 51, &y, 1); /* tid 51 reused by another process */
		n = agg_threads(b, AGG_TOTAL, &trows);
		{
			const struct agg_task *t51 = n == 2 ? (trows[0]->tid == 51 ? trows[0] : trows[1]) : NULL;

			CHECK(t51 && t51->tid == 51 && t51->pid == 60 && t51->total.samples[0] == 1,
			      "an exited thread's tid taken by another process: its own row");
		}
		for (int i = 0; i < AGG_EXIT_GRACE + 2; i++)
			agg_roll(b, 0);
		n = agg_tasks(b, AGG_TOTAL, &trows);
		CHECK(n == 2, "the new owners stay (%zu rows)", n);
		agg_free(b);
	}
	test_cumulative_keeps_top();
	test_expiry();
	test_expiry_many();
	test_expiry_churn();
	{
		/* Every row of the table, the interval's active ones sorted
		 * first (one with only the second event's samples among them)
		 * and the idle ones after: the view's sort skips the idle. */
		struct agg *c = agg_new(2, cpus, 2);
		struct sym_result rows[40];
		char names[40][8];
		size_t active = 0, idle_after = 1, sorted_ok = 1;

		for (int i = 0; i < 40; i++) {
			snprintf(names[i], sizeof(names[i]), "s%d", i);
			rows[i] = sym(names[i], 100 + (uint64_t)i, false, "c");
			agg_sample(c, 0, 0, 7, 7, &rows[i], 1);
		}
		agg_roll(c, 0);
		for (int i = 0; i < 40; i += 3)
			for (int j = 0; j <= i; j++)
				agg_sample(c, 0, 0, 7, 7, &rows[i], 1);
		agg_sample(c, 1, 0, 7, 7, &rows[40 - 2], 1); /* 38: the second event only */
		n = agg_symbols(c, AGG_INTERVAL, &srows);
		for (size_t i = 0; i < n; i++) {
			uint64_t s0 = srows[i]->iv.samples[0], s1 = srows[i]->iv.samples[1];

			if (s0 || s1) {
				active++;
				idle_after &= active == i + 1;
			}
			if (i > 0 && srows[i - 1]->iv.samples[0] < s0)
				sorted_ok = 0;
		}
		CHECK(n == 40 && active == 15 && idle_after && sorted_ok && strcmp(srows[0]->sym, "s39") == 0 &&
		      strcmp(srows[14]->sym, "s38") == 0,
		      "all 40 rows, the 15 active sorted first (last of them the second event's), the idle after");
		{
			const struct agg_task **tr;
			size_t ok = 1;

			n = agg_symbols_in_scope(c, AGG_INTERVAL, &srows);
			for (size_t i = 0; i < n; i++)
				ok &= srows[i]->iv.samples[0] + srows[i]->iv.samples[1] > 0;
			CHECK(n == 15 && ok, "in scope: the 15 rows of the interval, not the 25 idle (%zu)", n);
			n = agg_symbols_in_scope(c, AGG_TOTAL, &srows);
			CHECK(n == 40, "in scope of the totals: all 40 (%zu)", n);
			agg_sample(c, 0, 0, 9, 10, &rows[0], 1); /* another task, after the roll */
			agg_roll(c, 0);
			agg_sample(c, 0, 0, 7, 8, &rows[1], 1);
			n = agg_tasks_in_scope(c, AGG_INTERVAL, &tr);
			CHECK(n == 1 && tr[0]->pid == 7 && tr[0]->tid == 0, "tasks in scope: the one process sampled");
			n = agg_threads_in_scope(c, AGG_INTERVAL, &tr);
			CHECK(n == 1 && tr[0]->pid == 7 && tr[0]->tid == 8, "threads in scope: its one thread");
			n = agg_tasks_in_scope(c, AGG_TOTAL, &tr);
			CHECK(n == 2, "tasks in scope of the totals: both processes (%zu)", n);
			n = agg_threads_in_scope(c, AGG_TOTAL, &tr);
			CHECK(n == 3, "threads in scope of the totals: all three (%zu)", n);
			agg_roll(c, 0);
			agg_sample(c, 0, 0, 0, 0, &rows[2], 1); /* the idle task: pid 0, tid 0 */
			n = agg_tasks_in_scope(c, AGG_INTERVAL, &tr);
			ok = n == 1 && tr[0]->pid == 0 && tr[0]->threads == 1;
			n = agg_threads_in_scope(c, AGG_INTERVAL, &tr);
			CHECK(ok && n == 1 && tr[0]->pid == 0 && tr[0]->tid == 0 && tr[0]->threads == 0,
			      "pid 0: its process row with the tasks, its thread row with the threads");
		}
		agg_free(c);
	}
	pairs();
	test_flat_memo();
	test_flat_pending();
	test_samples_n();
	test_threads_told();
	return check_done();
}
