/* SPDX-License-Identifier: GPL-2.0-or-later */
/* htab against a plain array model: random puts and deletes with many keys
 * sharing a value run, shared keys, and growth across the half-load line. */
#include "check.h"
#include "clock.h"
#include "htab.h"

#define N 5000

static struct { uint64_t key; uintptr_t val; bool in; } model[N];

static size_t count_under(const struct htab *h, uint64_t key)
{
	size_t n = 0;

	for (size_t i = htab_first(h, key); i != SIZE_MAX; i = htab_next(h, key, i))
		n++;
	return n;
}

static void test_model(void)
{
	struct htab h = { 0 };
	uint64_t rng = 42;
	size_t bad = 0, in = 0;

	for (size_t i = 0; i < N; i++) {
		/* Few distinct keys (shared) and keys equal modulo the table size. */
		model[i].key = i % 7 == 0 ? (uint64_t)(i % 3) : (uint64_t)i << 20;
		model[i].val = i + 1;
	}
	for (int step = 0; step < 40000; step++) {
		size_t i = check_rng(&rng) % N;

		if (model[i].in) {
			bad += !htab_del(&h, model[i].key, model[i].val);
			model[i].in = false;
			in--;
		} else {
			bad += htab_put(&h, model[i].key, model[i].val) != 0;
			model[i].in = true;
			in++;
		}
	}
	CHECK(bad == 0, "every put took and every delete found its entry (%zu failed)", bad);
	CHECK(h.used == in, "used counts the entries (%zu, model %zu)", h.used, in);
	bad = 0;
	for (size_t i = 0; i < N; i++) {
		bool found = false;

		for (size_t s = htab_first(&h, model[i].key); s != SIZE_MAX; s = htab_next(&h, model[i].key, s))
			found |= h.tab[s].val == model[i].val;
		bad += found != model[i].in;
	}
	CHECK(bad == 0, "a lookup finds exactly what the model holds (%zu wrong)", bad);
	CHECK(!htab_del(&h, 999, 12345), "deleting what is not there says so");
	htab_free(&h);
}

static void test_shared_and_clear(void)
{
	struct htab h;

	CHECK(htab_init(&h, 3) != 0, "a capacity that is not a power of two is refused");
	CHECK(htab_init(&h, 4) == 0, "init");
	for (uintptr_t v = 1; v <= 100; v++)
		htab_put(&h, 7, v);
	CHECK(count_under(&h, 7) == 100 && h.mask + 1 >= 200, "100 values under one key, grown (%zu slots)",
	      h.mask + 1);
	CHECK(htab_get(&h, 8) == 0, "an absent key gives 0");
	htab_clear(&h);
	CHECK(h.used == 0 && htab_get(&h, 7) == 0, "clear empties it");
	htab_free(&h);
	CHECK(htab_get(&h, 7) == 0, "a freed table answers 0");
}

static void test_shrink(void)
{
	struct htab h = { 0 };
	size_t big;

	for (uint64_t k = 1; k <= 1000; k++)
		htab_put(&h, k, (uintptr_t)k);
	big = h.mask + 1;
	htab_shrink(&h, 64);
	CHECK(h.mask + 1 == big, "a table half full is not shrunk");
	for (uint64_t k = 1; k <= 990; k++)
		htab_del(&h, k, (uintptr_t)k);
	htab_shrink(&h, 64);
	CHECK(h.mask + 1 == 64, "ten left of 1000: down to the floor (%zu slots)", h.mask + 1);
	for (uint64_t k = 991; k <= 1000; k++)
		CHECK(htab_get(&h, k) == k, "key %llu kept through the shrink", (unsigned long long)k);
	CHECK(h.used == 10, "ten entries");
	htab_free(&h);
	htab_shrink(&h, 64);
	CHECK(h.tab == NULL, "an empty table stays empty");
}

static void test_clock(void)
{
	uint64_t a = clock_mono_ns(), b = clock_mono_ns();

	CHECK(b >= a && a > 0, "the monotonic clock does not go back");
	CHECK(clock_mono_s() >= (double)a / 1e9, "seconds and nanoseconds are the same clock");
	CHECK(clock_wall_s() > 1.6e9, "the wall clock is the epoch's");
}

int main(void)
{
	test_model();
	test_shared_and_clear();
	test_shrink();
	test_clock();
	return check_done();
}
