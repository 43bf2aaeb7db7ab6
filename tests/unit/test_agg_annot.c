/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_annot: per-instruction counts by offset, decay, cumulative, the
 * memos' paths, hot ranking, want/unwant, the memory bound under churn. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agg.h"
#include "agg_int.h"
#include "symbols.h"
#include "check.h"

static struct sym_result at(const char *name, uint64_t key, uint64_t off)
{
	return (struct sym_result){ .sym = name, .dso = "/bin/x", .key = key, .comm = "x",
				    .sym_start = 0x1000, .sym_size = 0x100, .sym_off = off };
}

static void hit(struct agg *a, size_t ev, const char *name, uint64_t key, uint64_t off, unsigned n)
{
	struct sym_result r = at(name, key, off);

	for (unsigned i = 0; i < n; i++)
		agg_sample(a, ev, 0, 10, 10, &r, 1);
}

/* The count at off in scope, 0 when none; also checks the order. */
static uint64_t count_at(struct agg *a, uint64_t key, size_t ev, enum agg_scope sc, uint64_t off, bool *since)
{
	const struct agg_annot_count *c;
	size_t n = agg_annot_counts(a, key, ev, sc, &c, since);
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		if (i && c[i - 1].offset >= c[i].offset)
			return UINT64_MAX; /* unsorted */
		if (c[i].offset == off)
			v = c[i].samples;
	}
	return v;
}

static void test_offsets_decay_total(void)
{
	int cpu = 0;
	struct agg *a = agg_new(2, &cpu, 1);
	const struct agg_annot_count *c;
	bool since = false;
	size_t n;

	CHECK(agg_annot_want(a, 7, true) == 0, "want a symbol with no row yet");
	hit(a, 0, "f", 7, 0x10, 6);
	hit(a, 0, "f", 7, 0x4, 2);
	hit(a, 1, "f", 7, 0x10, 3);
	hit(a, 0, "g", 8, 0x4, 5); /* another symbol: not wanted, not counted yet */
	n = agg_annot_counts(a, 7, 0, AGG_INTERVAL, &c, &since);
	CHECK(n == 2 && c[0].offset == 0x4 && c[0].samples == 2 && c[1].offset == 0x10 && c[1].samples == 6,
	      "event 0 by offset, sorted: n %zu", n);
	CHECK(since, "a symbol wanted before it was hot counts since it was opened");
	CHECK(count_at(a, 7, 1, AGG_INTERVAL, 0x10, NULL) == 3, "event 1 apart");
	CHECK(agg_annot_counts(a, 8, 0, AGG_INTERVAL, &c, &since) == 0 && !since, "unwanted cold symbol: none");
	agg_roll(a, 50);
	CHECK(count_at(a, 7, 0, AGG_INTERVAL, 0x10, NULL) == 3, "decayed by half: %llu",
	      (unsigned long long)count_at(a, 7, 0, AGG_INTERVAL, 0x10, NULL));
	CHECK(count_at(a, 7, 0, AGG_TOTAL, 0x10, NULL) == 6, "cumulative kept");
	hit(a, 0, "f", 7, 0x10, 1);
	CHECK(count_at(a, 7, 0, AGG_INTERVAL, 0x10, NULL) == 4 && count_at(a, 7, 0, AGG_TOTAL, 0x10, NULL) == 7,
	      "counts on after a roll");
	agg_roll(a, 0);
	n = agg_annot_counts(a, 7, 0, AGG_INTERVAL, &c, NULL);
	CHECK(n == 0, "no decay: the interval empties (%zu left)", n);
	CHECK(count_at(a, 7, 0, AGG_TOTAL, 0x4, NULL) == 2, "cumulative at 0x4");
	agg_free(a);
}

static void test_memo_paths(void)
{
	int cpu = 0;
	struct agg *a = agg_new(1, &cpu, 1);
	struct agg_where w = { .pid = 10, .tid = 10, .ip = 0x401010, .tag = 99 };
	struct sym_result r = at("f", 7, 0x10), fr[2] = { at("f", 7, 0x30), at("main", 9, 0x8) };
	bool miss = false;

	agg_annot_want(a, 7, true);
	agg_sample_at(a, 0, 0, &w, &r, 1);
	for (int i = 0; i < 5; i++)
		miss |= !agg_sample_memo(a, 0, 0, &w, 1);
	miss |= !agg_samples_memo(a, 0, 0, &w, 4, 4); /* the session's tally: 4 alike */
	CHECK(!miss && a->flat_hits == 6, "the flat memo served the repeats");
	CHECK(count_at(a, 7, 0, AGG_INTERVAL, 0x10, NULL) == 10, "memo hits count their offset: %llu",
	      (unsigned long long)count_at(a, 7, 0, AGG_INTERVAL, 0x10, NULL));
	for (int i = 0; i < 4; i++)
		agg_sample_stack(a, 0, 0, 10, 10, fr, 2, 1);
	CHECK(a->memo_hits >= 2, "the stack memo served repeats");
	CHECK(count_at(a, 7, 0, AGG_TOTAL, 0x30, NULL) == 4, "stack leaf offset counted each time: %llu",
	      (unsigned long long)count_at(a, 7, 0, AGG_TOTAL, 0x30, NULL));
	CHECK(count_at(a, 9, 0, AGG_TOTAL, 0x8, NULL) == 0, "callers' frames are not self samples");
	agg_free(a);
}

static void test_hot_and_want(void)
{
	int cpu = 0;
	struct agg *a = agg_new(1, &cpu, 1);
	struct agg_annot_stats st;
	bool since = true;
	char name[32];

	agg_annot_keep(a, 2);
	hit(a, 0, "hot", 1, 0x0, 50);
	hit(a, 0, "warm", 2, 0x0, 30);
	hit(a, 0, "cold", 3, 0x0, 1);
	CHECK(count_at(a, 1, 0, AGG_TOTAL, 0, NULL) == 0, "nothing counted before the first ranking");
	agg_roll(a, 100);
	hit(a, 0, "hot", 1, 0x8, 5);
	hit(a, 0, "warm", 2, 0x8, 5);
	hit(a, 0, "cold", 3, 0x8, 5);
	CHECK(count_at(a, 1, 0, AGG_TOTAL, 0x8, &since) == 5 && !since, "the hottest counts at all times");
	CHECK(count_at(a, 2, 0, AGG_TOTAL, 0x8, NULL) == 5, "the second too (keep 2)");
	CHECK(count_at(a, 3, 0, AGG_TOTAL, 0x8, NULL) == 0, "the third not");
	agg_get_stats(a, &(struct agg_stats){ 0 });
	agg_annot_stats(a, &st);
	CHECK(st.records == 2, "two records: %zu", st.records);
	/* Wanting the cold one: counted from then on, and says so. */
	CHECK(agg_annot_want(a, 3, true) == 0, "want");
	hit(a, 0, "cold", 3, 0x8, 2);
	CHECK(count_at(a, 3, 0, AGG_TOTAL, 0x8, &since) == 2 && since, "wanted: counting since open");
	CHECK(agg_annot_want(a, 3, true) == 0 && agg_annot_want(a, 3, false) == 0, "wants nest");
	agg_annot_stats(a, &st);
	CHECK(st.records == 3, "still wanted once: %zu records", st.records);
	agg_annot_want(a, 3, false);
	agg_annot_stats(a, &st);
	CHECK(st.records == 2 && count_at(a, 3, 0, AGG_TOTAL, 0x8, NULL) == 0, "unwanted and cold: dropped");
	/* Wanting a hot one keeps its counts and they stay after it cools. */
	agg_annot_want(a, 1, true);
	CHECK(count_at(a, 1, 0, AGG_TOTAL, 0x8, &since) == 5 && !since, "a hot symbol wanted: its counts at once");
	for (int i = 0; i < 3; i++) {
		hit(a, 0, "warm", 2, 0x0, 500);
		hit(a, 0, "cold", 3, 0x0, 500);
		agg_roll(a, 0);
	}
	CHECK(count_at(a, 1, 0, AGG_TOTAL, 0x8, NULL) == 5, "wanted: kept though no longer among the hottest");
	agg_annot_want(a, 1, false);
	agg_roll(a, 0);
	CHECK(count_at(a, 1, 0, AGG_TOTAL, 0x8, NULL) == 0, "unwanted and cold: gone at the roll");
	/* The hot set follows the samples: the new hottest in, the old out. */
	agg_roll(a, 0);
	hit(a, 0, "new1", 21, 0x0, 100);
	hit(a, 0, "new2", 22, 0x0, 90);
	agg_roll(a, 0);
	hit(a, 0, "new1", 21, 0xc, 1);
	agg_annot_stats(a, &st);
	CHECK(st.records == 2 && count_at(a, 21, 0, AGG_TOTAL, 0xc, NULL) == 1 &&
	      count_at(a, 2, 0, AGG_TOTAL, 0x8, NULL) == 0, "the roll swaps the hot set: %zu records", st.records);
	/* The want list's bound. */
	for (int i = 0; i < AGG_ANNOT_WANT; i++)
		CHECK(agg_annot_want(a, 1000 + (uint64_t)i, true) == 0, "want %d", i);
	CHECK(agg_annot_want(a, 5000, true) == -ENOSPC, "beyond AGG_ANNOT_WANT: -ENOSPC");
	snprintf(name, sizeof(name), "n");
	CHECK(agg_annot_want_name(a, name, true) == 0, "a name may be wanted");
	agg_free(a);
}

static void test_want_name(void)
{
	int cpu = 0;
	struct agg *a = agg_new(1, &cpu, 1);
	struct agg_annot_stats st;
	bool since = true;

	agg_annot_keep(a, 0);
	CHECK(agg_annot_want_name(a, "hotfn", true) == 0, "want by name");
	hit(a, 0, "hotfn", 5, 0x20, 3);
	hit(a, 0, "other", 6, 0x20, 3);
	CHECK(count_at(a, 5, 0, AGG_INTERVAL, 0x20, &since) == 3 && !since,
	      "a wanted name counts from its first sample, before any roll");
	CHECK(count_at(a, 6, 0, AGG_INTERVAL, 0x20, NULL) == 0, "other names not (keep 0)");
	hit(a, 0, "hotfn", 50, 0x4, 1); /* the same name in another file */
	CHECK(count_at(a, 50, 0, AGG_INTERVAL, 0x4, NULL) == 1, "every symbol of the name");
	agg_annot_want_name(a, "hotfn", false);
	agg_annot_stats(a, &st);
	CHECK(st.records == 0, "unwanted: dropped (%zu)", st.records);
	agg_free(a);
}

/* A wanted key's row expires and comes back: the record follows it. */
static void test_row_expiry(void)
{
	int cpu = 0;
	struct agg *a = agg_new(1, &cpu, 1);

	a->keep_top = 0;
	agg_annot_keep(a, 0);
	agg_annot_want(a, 7, true);
	hit(a, 0, "f", 7, 0x10, 2);
	for (int i = 0; i < AGG_EXPIRE_IDLE + 3; i++)
		agg_roll(a, 0);
	CHECK(htab_get(&a->syms, 7) == 0, "the row expired");
	hit(a, 0, "f", 7, 0x10, 1);
	CHECK(count_at(a, 7, 0, AGG_TOTAL, 0x10, NULL) == 3, "its record counts on under the new row");
	agg_free(a);
}

/* Many symbols, many offsets each, changing every interval: what the
 * records hold stays within the documented bound. */
static void test_churn_bound(void)
{
	int cpu = 0;
	struct agg *a = agg_new(1, &cpu, 1);
	struct agg_annot_stats st;
	uint64_t rng = 42;
	size_t peak = 0, peak_rec = 0;

	for (int i = 0; i < AGG_ANNOT_WANT; i++)
		agg_annot_want(a, 1000000 + (uint64_t)i, true);
	for (int roll = 0; roll < 12; roll++) {
		for (int k = 0; k < 200000; k++) {
			uint64_t r = check_rng(&rng);
			uint64_t key = roll * 1000 + r % 200;
			struct sym_result sr = at("s", key, (r >> 20) % 100000);

			if (k % 8 == 0)
				sr.key = 1000000 + (r >> 8) % AGG_ANNOT_WANT;
			agg_sample(a, 0, 0, 10, 10, &sr, 1);
		}
		agg_annot_stats(a, &st);
		peak = st.bytes > peak ? st.bytes : peak;
		peak_rec = st.records > peak_rec ? st.records : peak_rec;
		agg_roll(a, 50);
	}
	agg_annot_stats(a, &st);
	CHECK(peak <= agg_annot_bytes_max(1), "bytes %zu within the bound %zu", peak, agg_annot_bytes_max(1));
	CHECK(peak_rec <= AGG_ANNOT_SYMS + AGG_ANNOT_WANT, "records %zu within the bound", peak_rec);
	CHECK(st.offsets <= st.records * AGG_ANNOT_OFFSETS && st.dropped > 0,
	      "offsets beyond AGG_ANNOT_OFFSETS dropped: %llu", (unsigned long long)st.dropped);
	CHECK(peak_rec > AGG_ANNOT_WANT, "hot records were made too: %zu", peak_rec);
	agg_free(a);
}

int main(void)
{
	test_offsets_decay_total();
	test_memo_paths();
	test_hot_and_want();
	test_want_name();
	test_row_expiry();
	test_churn_bound();
	printf("1..%d\n", check_n);
	return check_failed ? 1 : 0;
}
