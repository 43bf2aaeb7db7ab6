/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tally: alike samples counted as one, the others apart, handed on in the
 * order they came; the size given at creation honoured (a 16-slot tally
 * with a probe of 2 against a model of linear probing, each key's home
 * slot learnt from a probe of 1, so the test does not restate the hash). */
#include <errno.h>

#include "check.h"
#include "tally.h"

#define MAXK 4096

struct seen {
	size_t n;
	uint64_t key[MAXK];
	struct tally_slot slot[MAXK];
};

static void keep(void *arg, const struct tally_slot *s)
{
	struct seen *sn = arg;

	if (sn->n < MAXK) {
		sn->key[sn->n] = s->key;
		sn->slot[sn->n] = *s;
	}
	sn->n++;
}

static void drop(void *arg, const struct tally_slot *s)
{
	(void)arg;
	(void)s;
}

static bool add_key(struct tally *t, uint64_t key)
{
	return tally_add(t, key, 1, 100, 101, 0x4000, 2, 10);
}

static void test_new(void)
{
	struct tally *t;

	errno = 0;
	CHECK(tally_new(0, 1) == NULL && errno == EINVAL, "0 bits refused");
	errno = 0;
	CHECK(tally_new(TALLY_BITS_MAX + 1, 1) == NULL && errno == EINVAL, "more bits than the used list holds refused");
	errno = 0;
	CHECK(tally_new(4, 0) == NULL && errno == EINVAL, "a probe of 0 refused");
	errno = 0;
	CHECK(tally_new(4, 17) == NULL && errno == EINVAL, "a probe longer than the table refused");
	t = tally_new(4, 16);
	CHECK(t && tally_empty(t) && t->mask == 15, "16 slots, empty");
	tally_free(t);
	tally_free(NULL);
}

/* Alike in all but period: one slot; any other field: another. */
static void test_alike(void)
{
	static struct seen sn;
	struct tally *t = tally_new(9, 8);
	bool ok = true;

	if (t == NULL) {
		CHECK(false, "tally_new(9, 8)");
		return;
	}
	for (int i = 0; i < 3; i++)
		ok &= tally_add(t, 7, 3, 100, 101, 0x4000, 2, 10 + (uint64_t)i);
	ok &= tally_add(t, 8, 3, 100, 101, 0x4000, 2, 1);          /* key */
	ok &= tally_add(t, 7, 4, 100, 101, 0x4000, 2, 1);          /* cpu */
	ok &= tally_add(t, 7, 3, 102, 101, 0x4000, 2, 1);          /* pid */
	ok &= tally_add(t, 7, 3, 100, 102, 0x4000, 2, 1);          /* tid */
	ok &= tally_add(t, 7, 3, 100, 101, 0x4001, 2, 1);          /* ip */
	ok &= tally_add(t, 7, 3, 100, 101, 0x4000, 1, 1);          /* misc */
	ok &= tally_add(t, 7, UINT32_MAX, 100, 101, 0x4000, 2, 1); /* a replay's CPU not recorded */
	ok &= tally_add(t, 7, UINT32_MAX, 100, 101, 0x4000, 2, 1);
	ok &= tally_add(t, UINT64_MAX, 70000, 100, 101, 0x4000, 2, 1); /* the whole key, a CPU past 16 bits */
	ok &= tally_add(t, 7, 3, 100, 101, 0x4000, 2, 5);          /* the first kind again, after others */
	CHECK(ok && !tally_empty(t) && t->nused == 9, "12 adds of 9 kinds: 9 slots (%zu)", t->nused);
	tally_take(t, keep, &sn);
	CHECK(tally_empty(t) && sn.n == 9, "taken: 9 slots handed on, then empty");
	CHECK(sn.slot[0].key == 7 && sn.slot[0].cpu == 3 && sn.slot[0].n == 4 && sn.slot[0].period == 10 + 11 + 12 + 5 &&
	      sn.slot[0].pid == 100 && sn.slot[0].tid == 101 && sn.slot[0].ip == 0x4000 && sn.slot[0].misc == 2,
	      "the first kind: 4 samples, their periods added");
	CHECK(sn.slot[1].key == 8 && sn.slot[2].cpu == 4 && sn.slot[3].pid == 102 && sn.slot[4].tid == 102 &&
	      sn.slot[5].ip == 0x4001 && sn.slot[6].misc == 1, "then each other kind, in the order it came");
	CHECK(sn.slot[7].cpu == UINT32_MAX && sn.slot[7].n == 2 && sn.slot[8].key == UINT64_MAX &&
	      sn.slot[8].cpu == 70000, "a CPU not recorded and a 64-bit key kept whole");
	memset(&sn, 0, sizeof(sn));
	tally_take(t, keep, &sn);
	CHECK(sn.n == 0, "an empty tally hands nothing on");
	CHECK(add_key(t, 7) && t->nused == 1, "and takes samples again");
	tally_take(t, drop, NULL);

	/* A count at its limit: the next alike sample in a slot of its own. */
	CHECK(add_key(t, 9) && t->nused == 1, "one kind");
	t->slot[t->used[0]].n = UINT32_MAX;
	CHECK(add_key(t, 9) && t->nused == 2, "a full count: a second slot for the same kind");
	tally_free(t);
}

/* 16 slots, a probe of 2, against a model; then a probe of the whole
 * table: exactly 16 kinds fit. */
static void test_size(void)
{
	struct tally *one = tally_new(4, 1), *t = tally_new(4, 2), *whole = tally_new(4, 16);
	int64_t occ[16];
	size_t refused = 0, refused_room = 0, wrong = 0, kinds = 0, homes_out = 0;

	if (one == NULL || t == NULL || whole == NULL) {
		CHECK(false, "tally_new(4, 1|2|16)");
		goto out;
	}
	for (size_t i = 0; i < 16; i++)
		occ[i] = -1;
	for (uint64_t key = 0; key < 200; key++) {
		size_t home, i, p;
		bool want = false, got;

		/* Its home: where it goes in an empty tally with no probing. */
		if (!add_key(one, key)) {
			wrong++;
			continue;
		}
		home = one->used[0];
		tally_take(one, drop, NULL);
		if (home > 15)
			homes_out++;
		for (i = home & 15, p = 0; p < 2; p++, i = (i + 1) & 15) {
			if (occ[i] < 0) {
				occ[i] = (int64_t)key;
				kinds++;
				want = true;
				break;
			}
		}
		got = add_key(t, key);
		if (got != want || (got && (t->used[t->nused - 1] != i || t->nused != kinds)))
			wrong++;
		if (!got) {
			refused++;
			refused_room += kinds < 16;
		}
		/* A kind already in stays countable, full or not. */
		if (got && (!add_key(t, key) || t->nused != kinds))
			wrong++;
	}
	CHECK(homes_out == 0, "every home slot among the 16 (%zu past them)", homes_out);
	CHECK(wrong == 0, "200 kinds into 16 slots, a probe of 2: each add as the model says (%zu differ)", wrong);
	CHECK(refused > 0 && refused_room > 0 && t->nused <= 16,
	      "refused when its 2 slots are taken, with room elsewhere (%zu refused, %zu with room, %zu in)", refused,
	      refused_room, t->nused);

	for (uint64_t key = 1000; key < 1016; key++)
		if (!add_key(whole, key))
			wrong++;
	CHECK(wrong == 0 && whole->nused == 16 && !add_key(whole, 1016), "a probe of 16: 16 kinds, the 17th refused");
	CHECK(add_key(whole, 1003), "full, an alike sample still counts");
	tally_take(whole, drop, NULL);
	CHECK(tally_empty(whole) && add_key(whole, 1016), "taken: room again");
out:
	tally_free(one);
	tally_free(t);
	tally_free(whole);
}

/* The largest size: 65536 slots, every one reachable through the 16-bit
 * used list, handed on in order. */
static void test_max(void)
{
	struct tally *t = tally_new(TALLY_BITS_MAX, 1u << TALLY_BITS_MAX);
	static struct seen sn;
	size_t bad = 0;

	if (t == NULL) {
		CHECK(false, "tally_new(16, 65536)");
		return;
	}
	for (uint64_t key = 0; key < 65536; key++)
		bad += !add_key(t, key);
	CHECK(bad == 0 && t->nused == 65536 && !add_key(t, 65536), "65536 kinds in, the next refused");
	tally_take(t, keep, &sn);
	for (size_t k = 0; k < MAXK; k++)
		bad += sn.key[k] != k;
	CHECK(bad == 0 && sn.n == 65536 && tally_empty(t), "all handed on, in the order they came");
	tally_free(t);
}

int main(void)
{
	test_new();
	test_alike();
	test_size();
	test_max();
	return check_done();
}
