#include "agg.h"
#include "check.h"

/* The names the session hands down with each sample. */
static struct sym_result sym(const char *name, uint64_t key, bool kernel, const char *comm)
{
	struct sym_result r = { .sym = name, .dso = kernel ? "[kernel.kallsyms]" : "/bin/x",
				.key = key, .kernel = kernel, .comm = comm };
	return r;
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

int main(void)
{
	int cpus[] = { 0, 3 };
	struct agg *a = agg_new(2, cpus, 2);
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
		for (int i = 0; i < 10; i++)
			agg_roll(b, 0);
		n = agg_tasks(b, AGG_TOTAL, &trows);
		CHECK(n == 2, "the new owners stay (%zu rows)", n);
		agg_free(b);
	}
	pairs();
	return check_done();
}
