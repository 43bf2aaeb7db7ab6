/* SPDX-License-Identifier: GPL-2.0-or-later */
/* baseline_pprof: a pprof Profile (profile.proto) read for the share of
 * each leaf function: the sample, location, function, mapping and string
 * tables, as our src/output/pprof.c writes them (and other writers do).
 * Every length and index is checked against the buffer and the tables. */
#include "baseline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"

struct pb {
	const uint8_t *p, *end;
};

static bool varint(struct pb *b, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t c;

		if (b->p >= b->end)
			return false;
		c = *b->p++;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
	}
	return false;
}

/* The next field: its number, wire type, and its value (varint) or its
 * bytes (length-delimited); fixed-width ones are skipped. */
static bool field(struct pb *b, uint32_t *num, uint32_t *wt, uint64_t *v, struct pb *sub)
{
	uint64_t tag, len;

	if (!varint(b, &tag) || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
		return false;
	*num = (uint32_t)(tag >> 3);
	*wt = (uint32_t)(tag & 7);
	switch (*wt) {
	case 0:
		return varint(b, v);
	case 1:
	case 5:
		len = *wt == 1 ? 8 : 4;
		if ((uint64_t)(b->end - b->p) < len)
			return false;
		b->p += len;
		return true;
	case 2:
		if (!varint(b, &len) || len > (uint64_t)(b->end - b->p))
			return false;
		sub->p = b->p;
		sub->end = b->p + len;
		b->p += len;
		return true;
	default:
		return false;
	}
}

struct loc { uint64_t id, mapping, function; };
struct fn { uint64_t id, name; };
struct map { uint64_t id, file; };
struct smp { uint64_t leaf; uint64_t value; };

struct tables {
	struct pb *strs;
	size_t nstrs, cstrs;
	struct loc *locs;
	size_t nlocs, clocs;
	struct fn *fns;
	size_t nfns, cfns;
	struct map *maps;
	size_t nmaps, cmaps;
	struct smp *smps;
	size_t nsmps, csmps;
};

static void *more(void *v, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		void *p = reallocarray(v, c, size);

		if (p == NULL)
			return NULL;
		v = p;
		*cap = c;
	}
	return v;
}

#define PUSH(t, arr, n, cap, val) \
	do { \
		void *np_ = more((t)->arr, &(t)->n, &(t)->cap, sizeof(*(t)->arr)); \
		if (np_ == NULL) \
			return -ENOMEM; \
		(t)->arr = np_; \
		(t)->arr[(t)->n++] = (val); \
	} while (0)

enum msg { MSG_MAPPING, MSG_LOCATION, MSG_OTHER };

/* A message's varint fields 1..4 (the ids we read; a mapping's filename,
 * field 5, in v[4]) and a location's first line; false when malformed. */
static bool ids(struct pb m, enum msg kind, uint64_t v[5], struct pb *line)
{
	uint32_t num, wt;
	uint64_t x;
	struct pb sub;

	memset(v, 0, 5 * sizeof(*v));
	while (m.p < m.end) {
		if (!field(&m, &num, &wt, &x, &sub))
			return false;
		if (wt == 0 && num < 5)
			v[num] = x;
		else if (wt == 0 && num == 5 && kind == MSG_MAPPING)
			v[4] = x;
		if (wt == 2 && num == 4 && kind == MSG_LOCATION && line->p == NULL)
			*line = sub; /* the first line: the leaf of its inlined frames */
	}
	return true;
}

/* A sample's first location and its first value (packed or not). */
static bool sample(struct pb m, struct smp *s)
{
	uint32_t num, wt;
	uint64_t x;
	struct pb sub;
	bool leaf = false, val = false;

	while (m.p < m.end) {
		if (!field(&m, &num, &wt, &x, &sub))
			return false;
		if (num != 1 && num != 2)
			continue;
		if (wt == 2) { /* packed: its first */
			if (sub.p == sub.end)
				continue;
			if (!varint(&sub, &x))
				return false;
		} else if (wt != 0) {
			return false;
		}
		if (num == 1 && !leaf) {
			s->leaf = x;
			leaf = true;
		} else if (num == 2 && !val) {
			s->value = x > (uint64_t)INT64_MAX / 4096 ? 0 : x; /* negative (int64), or absurd: none */
			val = true;
		}
	}
	return leaf && val;
}

static int tables_read(struct tables *t, const uint8_t *buf, size_t len)
{
	struct pb b = { buf, buf + len }, sub;
	uint32_t num, wt;
	uint64_t x, v[5];

	while (b.p < b.end) {
		if (!field(&b, &num, &wt, &x, &sub))
			return -EINVAL;
		if (wt != 2)
			continue;
		switch (num) {
		case 2: { /* sample */
			struct smp s = { 0 };

			if (sample(sub, &s))
				PUSH(t, smps, nsmps, csmps, s);
			break;
		}
		case 3: /* mapping: id 1, filename 5 */
			if (!ids(sub, MSG_MAPPING, v, NULL))
				return -EINVAL;
			PUSH(t, maps, nmaps, cmaps, ((struct map){ v[1], v[4] }));
			break;
		case 4: { /* location: id 1, mapping_id 2, line 4 { function_id 1 } */
			struct pb line = { NULL, NULL };
			uint64_t lv[5] = { 0 };

			if (!ids(sub, MSG_LOCATION, v, &line) || (line.p && !ids(line, MSG_OTHER, lv, NULL)))
				return -EINVAL;
			PUSH(t, locs, nlocs, clocs, ((struct loc){ v[1], v[2], lv[1] }));
			break;
		}
		case 5: /* function: id 1, name 2 */
			if (!ids(sub, MSG_OTHER, v, NULL))
				return -EINVAL;
			PUSH(t, fns, nfns, cfns, ((struct fn){ v[1], v[2] }));
			break;
		case 6: /* string_table */
			PUSH(t, strs, nstrs, cstrs, sub);
			break;
		default:
			break;
		}
	}
	return 0;
}

/* A string of the table, copied (cut) into buf; "" when out of range. */
static const char *string_at(const struct tables *t, uint64_t i, char *buf, size_t len)
{
	size_t n;

	if (i >= t->nstrs || len == 0)
		return "";
	n = (size_t)(t->strs[i].end - t->strs[i].p);
	if (n >= len)
		n = len - 1;
	memcpy(buf, t->strs[i].p, n);
	buf[n] = '\0';
	return buf;
}

/* id -> index + 1 for a table of records whose first member is the id. */
static int index_ids(struct htab *h, const void *v, size_t n, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t id = *(const uint64_t *)(const void *)((const char *)v + i * size);

		if (id && htab_put(h, id, i + 1))
			return -ENOMEM;
	}
	return 0;
}

static size_t look(const struct htab *h, uint64_t id)
{
	uintptr_t i = id ? htab_get(h, id) : 0;

	return i ? i - 1 : SIZE_MAX;
}

int baseline_parse_pprof(struct baseline *b, const uint8_t *buf, size_t len)
{
	struct tables t = { 0 };
	struct htab li = { 0 }, fi = { 0 }, mi = { 0 };
	uint64_t total = 0;
	int rc = tables_read(&t, buf, len);

	if (rc == 0 && (t.nsmps == 0 || t.nstrs == 0))
		rc = -EINVAL;
	if (rc == 0 && (htab_init(&li, 64) || htab_init(&fi, 64) || htab_init(&mi, 64) ||
			index_ids(&li, t.locs, t.nlocs, sizeof(*t.locs)) || index_ids(&fi, t.fns, t.nfns, sizeof(*t.fns)) ||
			index_ids(&mi, t.maps, t.nmaps, sizeof(*t.maps))))
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < t.nsmps; i++)
		total += t.smps[i].value;
	if (rc == 0 && total == 0)
		rc = -EINVAL;
	for (size_t i = 0; rc == 0 && i < t.nsmps; i++) {
		size_t l = look(&li, t.smps[i].leaf), f, m;
		char name[512], dso[512];

		if (l == SIZE_MAX)
			continue;
		f = look(&fi, t.locs[l].function);
		m = look(&mi, t.locs[l].mapping);
		rc = baseline_add(b, f == SIZE_MAX ? "[unknown]" : string_at(&t, t.fns[f].name, name, sizeof(name)),
				  m == SIZE_MAX ? "" : string_at(&t, t.maps[m].file, dso, sizeof(dso)),
				  100.0 * (double)t.smps[i].value / (double)total);
	}
	htab_free(&li);
	htab_free(&fi);
	htab_free(&mi);
	free(t.strs);
	free(t.locs);
	free(t.fns);
	free(t.maps);
	free(t.smps);
	if (rc)
		baseline_clear(b);
	return rc;
}
