/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_annot: per-instruction counts (samples by offset from the symbol's
 * start) of the hottest symbols and the wanted ones (include/agg.h). A
 * counted row points to its record, so a sample costs one test when its
 * symbol is not counted and a small open-addressed probe when it is. The
 * roll picks the hottest (agg_annot_roll), so records come and go there
 * and at a want, never on the sample path; a record's table grows by
 * doubling at a new offset, up to its bound. What the readers and the
 * wants call is agg_annot_view.c's (it settles the memos first). */
#include "agg_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS_FIRST 16
#define SLOTS_MAX (2 * AGG_ANNOT_OFFSETS)


/* Words per slot. */
static inline size_t slot_words(const struct agg *a)
{
	return 1 + 2 * a->nevents;
}

static size_t rec_bytes(const struct agg *a, const struct agg_annot_rec *r)
{
	return sizeof(*r) + (size_t)r->cap * slot_words(a) * sizeof(uint64_t);
}

static inline size_t slot_of(uint64_t k, uint32_t cap)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
}

/* The table at twice the slots (or the first), rehashed. */
static bool grow(struct agg *a, struct agg_annot_rec *r)
{
	uint32_t cap = r->cap ? r->cap * 2 : SLOTS_FIRST;
	size_t w = slot_words(a);
	uint64_t *slots = calloc((size_t)cap * w, sizeof(*slots));

	if (slots == NULL)
		return false;
	for (size_t i = 0; i < r->cap; i++) {
		const uint64_t *from = &r->slots[i * w];
		size_t j;

		if (from[0] == 0)
			continue;
		for (j = slot_of(from[0], cap); slots[j * w]; j = (j + 1) & (cap - 1))
			;
		memcpy(&slots[j * w], from, w * sizeof(*slots));
	}
	free(r->slots);
	r->slots = slots;
	r->cap = cap;
	r->last = 0;
	return true;
}

void agg_annot_add(struct agg *a, struct agg_annot_rec *r, size_t ev, uint64_t off, uint64_t n)
{
	uint64_t k = off + 1, *v;
	size_t i, w = slot_words(a);

	if (r->cap == 0)
		goto out_new;
	if (r->slots[(size_t)r->last * w] == k) {
		i = r->last;
		goto out_count;
	}
	for (i = slot_of(k, r->cap); r->slots[i * w]; i = (i + 1) & (r->cap - 1))
		if (r->slots[i * w] == k)
			goto out_count;
out_new:
	/* A new offset: at most half the slots used, AGG_ANNOT_OFFSETS in all. */
	if (k == 0 || r->n >= AGG_ANNOT_OFFSETS || ((r->n + 1) * 2 > r->cap && !grow(a, r))) {
		a->annot_dropped += n;
		return;
	}
	for (i = slot_of(k, r->cap); r->slots[i * w]; i = (i + 1) & (r->cap - 1))
		;
	r->slots[i * w] = k;
	r->n++;
out_count:
	r->last = (uint32_t)i;
	v = &r->slots[i * w + 1];
	v[ev] += n;
	v[a->nevents + ev] += n;
}

size_t agg_annot_nwanted(const struct agg *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nannot; i++)
		n += a->annot[i]->wants || a->annot[i]->by_name;
	return n;
}

/* The record of key's index, or nannot. */
size_t agg_annot_index(const struct agg *a, uint64_t key)
{
	size_t i;

	for (i = 0; i < a->nannot; i++)
		if (a->annot[i]->key == key)
			break;
	return i;
}

static struct agg_annot_rec *rec_find(const struct agg *a, uint64_t key)
{
	size_t i = agg_annot_index(a, key);

	return i < a->nannot ? a->annot[i] : NULL;
}

/* The records' key bits, after one came or went (at a roll or a want). */
static void keys_rebuild(struct agg *a)
{
	memset(a->annot_keys, 0, sizeof(a->annot_keys));
	for (size_t i = 0; i < a->nannot; i++) {
		size_t b = agg_annot_keybit(a->annot[i]->key);

		a->annot_keys[b / 64] |= 1ull << (b % 64);
	}
}

/* A record for key (its row s, or NULL while it has none); NULL when the
 * records are all taken or out of memory. */
struct agg_annot_rec *agg_annot_new(struct agg *a, uint64_t key, struct agg_sym *s)
{
	struct agg_annot_rec *r;

	if (a->nannot >= sizeof(a->annot) / sizeof(a->annot[0]) || (r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->key = key;
	r->row = s;
	if (s)
		s->annot = r;
	a->annot[a->nannot++] = r;
	keys_rebuild(a);
	return r;
}

void agg_annot_drop(struct agg *a, size_t i)
{
	struct agg_annot_rec *r = a->annot[i];

	if (r->row)
		r->row->annot = NULL;
	free(r->slots);
	free(r);
	a->annot[i] = a->annot[--a->nannot];
	keys_rebuild(a);
}

bool agg_annot_kept(const struct agg_annot_rec *r)
{
	return r->hot || r->wants || (r->by_name && r->row);
}

void agg_annot_unrow(struct agg_sym *s)
{
	if (s->annot)
		s->annot->row = NULL;
	s->annot = NULL;
}

size_t agg_annot_name_index(const struct agg *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->nannot_names; i++)
		if (strcmp(a->annot_names[i], name) == 0)
			break;
	return i;
}

void agg_annot_row(struct agg *a, struct agg_sym *s)
{
	struct agg_annot_rec *r = rec_find(a, s->key);

	if (r) { /* a wanted key whose row went and came back */
		if (r->row)
			r->row->annot = NULL;
		r->row = s;
		s->annot = r;
		return;
	}
	if (agg_annot_name_index(a, s->sym) < a->nannot_names && agg_annot_nwanted(a) < AGG_ANNOT_WANT &&
	    (r = agg_annot_new(a, s->key, s)) != NULL)
		r->by_name = true;
}

void agg_annot_keep(struct agg *a, size_t nsyms)
{
	a->annot_keep = nsyms < AGG_ANNOT_SYMS ? nsyms : AGG_ANNOT_SYMS;
}

/* Sifts the min-heap of the roll's hottest down from i, by heat. */
static void sift(struct agg *a, size_t i)
{
	size_t n = a->annot_ntop;

	for (;;) {
		size_t m = i, l = 2 * i + 1, r = l + 1;
		struct agg_sym *ts;
		uint64_t th;

		if (l < n && a->annot_heat[l] < a->annot_heat[m])
			m = l;
		if (r < n && a->annot_heat[r] < a->annot_heat[m])
			m = r;
		if (m == i)
			return;
		ts = a->annot_top[i], th = a->annot_heat[i];
		a->annot_top[i] = a->annot_top[m], a->annot_heat[i] = a->annot_heat[m];
		a->annot_top[m] = ts, a->annot_heat[m] = th;
		i = m;
	}
}

void agg_annot_rank(struct agg *a, struct agg_sym *s, uint64_t heat)
{
	if (a->annot_ntop < a->annot_keep) {
		a->annot_top[a->annot_ntop] = s;
		a->annot_heat[a->annot_ntop++] = heat;
		if (a->annot_ntop == a->annot_keep)
			for (size_t j = a->annot_ntop / 2; j-- > 0;)
				sift(a, j);
		return;
	}
	a->annot_top[0] = s;
	a->annot_heat[0] = heat;
	sift(a, 0);
}

/* The roll's hottest (agg_annot_consider, over the rows it walked: those
 * with interval samples) are hot; the rest of the records go unless
 * wanted. */
static void rank(struct agg *a)
{
	size_t n = a->annot_ntop;

	a->annot_ntop = 0;
	for (size_t i = 0; i < a->nannot; i++)
		a->annot[i]->hot = false;
	for (size_t i = 0; i < n; i++)
		if (a->annot_top[i]->annot)
			a->annot_top[i]->annot->hot = true;
	for (size_t i = a->nannot; i-- > 0;)
		if (!agg_annot_kept(a->annot[i]))
			agg_annot_drop(a, i);
	for (size_t i = 0; i < n; i++) {
		struct agg_sym *s = a->annot_top[i];
		struct agg_annot_rec *r = s->annot;

		if (r == NULL && (r = agg_annot_new(a, s->key, s)) == NULL)
			break;
		r->hot = true;
	}
}

void agg_annot_roll(struct agg *a, unsigned decay_pct)
{
	size_t w = slot_words(a);

	rank(a);
	for (size_t i = 0; i < a->nannot; i++) {
		struct agg_annot_rec *r = a->annot[i];

		for (size_t j = 0; j < r->cap; j++)
			for (size_t e = 0; r->slots[j * w] && e < a->nevents; e++)
				r->slots[j * w + 1 + e] = r->slots[j * w + 1 + e] * decay_pct / 100;
	}
}

void agg_annot_stats(const struct agg *a, struct agg_annot_stats *st)
{
	*st = (struct agg_annot_stats){ .records = a->nannot, .dropped = a->annot_dropped };
	for (size_t i = 0; i < a->nannot; i++) {
		st->offsets += a->annot[i]->n;
		st->bytes += rec_bytes(a, a->annot[i]);
	}
}

size_t agg_annot_bytes_max(size_t nevents)
{
	return (size_t)(AGG_ANNOT_SYMS + AGG_ANNOT_WANT) *
	       (sizeof(struct agg_annot_rec) + SLOTS_MAX * (1 + 2 * nevents) * sizeof(uint64_t));
}

void agg_annot_free(struct agg *a)
{
	while (a->nannot)
		agg_annot_drop(a, a->nannot - 1);
	for (size_t i = 0; i < a->nannot_names; i++)
		free(a->annot_names[i]);
	a->nannot_names = 0;
	free(a->annot_out);
	a->annot_out = NULL;
}
