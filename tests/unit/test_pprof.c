/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pprof: the encoded profile read back by a small protobuf decoder of the
 * test's own (after gunzip), field by field as profile.proto says. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "check.h"
#include "pprof.h"

struct rd { const uint8_t *p, *end; bool bad; };

static uint64_t varint(struct rd *r)
{
	uint64_t v = 0;

	for (int s = 0; s < 64; s += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		v |= (uint64_t)(*r->p & 0x7f) << s;
		if (!(*r->p++ & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

/* Next field: its number, wire type, a varint value or a sub-reader. */
static bool field(struct rd *r, unsigned *num, unsigned *wt, uint64_t *v, struct rd *sub)
{
	uint64_t key;

	if (r->p >= r->end || r->bad)
		return false;
	key = varint(r);
	*num = (unsigned)(key >> 3);
	*wt = key & 7;
	if (*wt == 0) {
		*v = varint(r);
	} else if (*wt == 2) {
		uint64_t n = varint(r);

		if (n > (uint64_t)(r->end - r->p)) {
			r->bad = true;
			return false;
		}
		sub->p = r->p;
		sub->end = r->p + n;
		sub->bad = false;
		r->p += n;
	} else {
		r->bad = true;
		return false;
	}
	return !r->bad;
}

#define MAXN 64
struct decoded {
	char *strs[MAXN];
	size_t nstrs;
	uint64_t st_type[4], st_unit[4];
	size_t nst;
	uint64_t sample_loc[MAXN], sample_v0[MAXN], sample_v1[MAXN];
	uint64_t sample_lkey[MAXN], sample_lstr[MAXN]; /* its label, 0 0 without */
	size_t nsamples;
	uint64_t loc_fn[MAXN + 1];      /* by location id */
	uint64_t fn_name[MAXN + 1];     /* by function id */
	uint64_t map_file[MAXN + 1], map_bid[MAXN + 1];
	uint64_t loc_map[MAXN + 1];
	uint64_t period, duration, period_type;
	bool bad;
};

static void decode_sample(struct rd *r, struct decoded *d)
{
	unsigned num, wt;
	uint64_t v;
	struct rd sub;
	size_t i = d->nsamples++;

	while (field(r, &num, &wt, &v, &sub)) {
		if (num == 1 && wt == 2) {
			d->sample_loc[i] = varint(&sub);
			d->bad |= sub.p != sub.end; /* one frame each, for now */
		} else if (num == 2 && wt == 2) {
			d->sample_v0[i] = varint(&sub);
			d->sample_v1[i] = varint(&sub);
		} else if (num == 3 && wt == 2) {
			struct rd s2;
			unsigned n2, w2;
			uint64_t v2;

			while (field(&sub, &n2, &w2, &v2, &s2))
				*(n2 == 1 ? &d->sample_lkey[i] : n2 == 2 ? &d->sample_lstr[i] : &v2) = v2;
		}
	}
}

static void decode(const uint8_t *b, size_t len, struct decoded *d)
{
	struct rd r = { b, b + len, false }, sub, sub2;
	unsigned num, wt, n2, w2;
	uint64_t v, v2;

	memset(d, 0, sizeof(*d));
	while (field(&r, &num, &wt, &v, &sub)) {
		if (num == 1 && d->nst < 4) {
			while (field(&sub, &n2, &w2, &v2, &sub2))
				*(n2 == 1 ? &d->st_type[d->nst] : &d->st_unit[d->nst]) = v2;
			d->nst++;
		} else if (num == 2 && d->nsamples < MAXN) {
			decode_sample(&sub, d);
		} else if (num == 3) {
			uint64_t id = 0, file = 0, bid = 0;

			while (field(&sub, &n2, &w2, &v2, &sub2))
				*(n2 == 1 ? &id : n2 == 5 ? &file : n2 == 6 ? &bid : &v) = v2;
			if (id && id <= MAXN) {
				d->map_file[id] = file;
				d->map_bid[id] = bid;
			}
		} else if (num == 4) {
			uint64_t id = 0, map = 0, fn = 0;
			struct rd line;
			unsigned n3, w3;
			uint64_t v3;

			while (field(&sub, &n2, &w2, &v2, &sub2)) {
				if (n2 == 1)
					id = v2;
				else if (n2 == 2)
					map = v2;
				else if (n2 == 4)
					while (field(&sub2, &n3, &w3, &v3, &line))
						if (n3 == 1)
							fn = v3;
			}
			if (id && id <= MAXN) {
				d->loc_fn[id] = fn;
				d->loc_map[id] = map;
			}
		} else if (num == 5) {
			uint64_t id = 0, name = 0;

			while (field(&sub, &n2, &w2, &v2, &sub2))
				*(n2 == 1 ? &id : n2 == 2 ? &name : &v) = v2;
			if (id && id <= MAXN)
				d->fn_name[id] = name;
		} else if (num == 6 && d->nstrs < MAXN) {
			d->strs[d->nstrs] = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
			d->nstrs++;
		} else if (num == 10) {
			d->duration = v;
		} else if (num == 11) {
			while (field(&sub, &n2, &w2, &v2, &sub2))
				if (n2 == 1)
					d->period_type = v2;
		} else if (num == 12) {
			d->period = v;
		}
	}
	d->bad |= r.bad;
}

static const char *str(const struct decoded *d, uint64_t i)
{
	return i < d->nstrs ? d->strs[i] : "(out of range)";
}

/* Samples of the function named name, through location and function. */
static uint64_t samples_of(const struct decoded *d, const char *name, uint64_t *nanos, const char **file)
{
	for (size_t i = 0; i < d->nsamples; i++) {
		uint64_t loc = d->sample_loc[i];

		if (loc && loc <= MAXN && strcmp(str(d, d->fn_name[d->loc_fn[loc]]), name) == 0) {
			*nanos = d->sample_v1[i];
			*file = str(d, d->map_file[d->loc_map[loc]]);
			return d->sample_v0[i];
		}
	}
	return 0;
}

int main(void)
{
	struct pprof *p = pprof_new();
	struct pprof_frame f = { "hot_a", "/bin/w", "abcd", 0 }, g = { "hot_b", "/bin/w", "abcd", 0 },
			   k = { "schedule", "[kernel.kallsyms]", NULL, 0 };
	struct pprof_meta m = { .time_nanos = 1, .duration_nanos = 2000000000, .period = 250000 };
	uint8_t *raw, *gz, unz[1 << 16];
	size_t rawlen, gzlen;
	uLongf unzlen = sizeof(unz);
	struct decoded d;
	uint64_t ns;
	const char *file;

	CHECK(p != NULL, "pprof_new");
	CHECK(pprof_add(p, &f, 1, "w", 60, 15000000) == 0 && pprof_add(p, &g, 1, "w", 30, 7500000) == 0 &&
	      pprof_add(p, &k, 1, NULL, 10, 2500000) == 0 && pprof_add(p, &f, 1, "w", 6, 1500000) == 0 &&
	      pprof_add(p, &f, 1, "sh", 4, 1000000) == 0,
	      "pprof_add");
	CHECK(pprof_samples(p) == 110, "samples added up");
	CHECK(pprof_encode(p, &m, &raw, &rawlen) == 0 && rawlen > 0, "pprof_encode");
	decode(raw, rawlen, &d);
	CHECK(!d.bad, "the encoding decodes as protobuf");
	CHECK(d.nstrs > 0 && strcmp(d.strs[0], "") == 0, "string_table[0] is empty");
	CHECK(d.nst == 2 && strcmp(str(&d, d.st_type[0]), "samples") == 0 && strcmp(str(&d, d.st_unit[0]), "count") == 0 &&
	      strcmp(str(&d, d.st_type[1]), "cpu") == 0 && strcmp(str(&d, d.st_unit[1]), "nanoseconds") == 0,
	      "sample types samples/count and cpu/nanoseconds");
	CHECK(d.nsamples == 4, "one sample per distinct stack and comm (%zu)", d.nsamples);
	CHECK(samples_of(&d, "hot_a", &ns, &file) == 66 && ns == 16500000 && strcmp(file, "/bin/w") == 0,
	      "hot_a: 66 samples, 16.5 ms, mapped to /bin/w");
	CHECK(strcmp(str(&d, d.sample_lkey[0]), "comm") == 0 && strcmp(str(&d, d.sample_lstr[0]), "w") == 0 &&
	      d.sample_lkey[2] == 0 && strcmp(str(&d, d.sample_lkey[3]), "comm") == 0 &&
	      strcmp(str(&d, d.sample_lstr[3]), "sh") == 0 && d.sample_v0[3] == 4 && d.sample_loc[3] == d.sample_loc[0],
	      "a comm label on each sample that has one; the same stack of another comm is its own sample");
	CHECK(samples_of(&d, "schedule", &ns, &file) == 10 && strcmp(file, "[kernel.kallsyms]") == 0,
	      "the kernel has its own mapping");
	CHECK(strcmp(str(&d, d.map_bid[1]), "abcd") == 0, "build-id on the mapping when known");
	CHECK(d.period == 250000 && strcmp(str(&d, d.period_type), "cpu") == 0 && d.duration == 2000000000,
	      "period, period type and duration");

	CHECK(pprof_build(p, &m, &gz, &gzlen) == 0 && gzlen > 2 && gz[0] == 0x1f && gz[1] == 0x8b,
	      "pprof_build gives gzip");
	{
		z_stream z;

		memset(&z, 0, sizeof(z));
		inflateInit2(&z, 15 + 16);
		z.next_in = gz;
		z.avail_in = (uInt)gzlen;
		z.next_out = unz;
		z.avail_out = (uInt)sizeof(unz);
		CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END, "gunzip");
		unzlen = sizeof(unz) - z.avail_out;
		inflateEnd(&z);
	}
	CHECK(unzlen == rawlen && memcmp(unz, raw, rawlen) == 0, "gunzipped is the encoding");
	for (size_t i = 0; i < d.nstrs; i++)
		free(d.strs[i]);
	free(raw);
	free(gz);
	pprof_free(p);

	p = pprof_new();
	{
		struct pprof_frame kf = { "hot_a", "/bin/w", NULL, 5 };

		CHECK(pprof_add_known(p, 5, "w", 1, 10) == 1, "a key not added yet is not known");
		CHECK(pprof_add(p, &kf, 1, "w", 2, 20) == 0 && pprof_add_known(p, 5, "w", 3, 30) == 0 &&
		      pprof_samples(p) == 5, "added once with its key, then known by key and comm alone");
		CHECK(pprof_add_known(p, 5, "v", 1, 10) == 1 && pprof_add_known(p, 6, "w", 1, 10) == 1 &&
		      pprof_add_known(p, 5, NULL, 1, 10) == 1 && pprof_samples(p) == 5,
		      "another comm, another key, no comm: not known, nothing added");
		CHECK(pprof_encode(p, &m, &raw, &rawlen) == 0, "encode");
		decode(raw, rawlen, &d);
		CHECK(d.nsamples == 1 && d.sample_v0[0] == 5 && d.sample_v1[0] == 50, "one sample: 5 samples, 50 ns");
		for (size_t i = 0; i < d.nstrs; i++)
			free(d.strs[i]);
		free(raw);
	}
	pprof_free(p);

	/* A window after another: the names are kept, only what this window's
	 * samples use is encoded, and a key that now names another symbol is
	 * taken by its new names. */
	p = pprof_new();
	{
		struct pprof_frame a = { "hot_a", "/bin/w", "abcd", 1 }, b = { "hot_b", "/bin/x", NULL, 2 },
				   c = { "hot_c", "/bin/w", "abcd", 3 }, dd = { "hot_d", "/bin/y", NULL, 4 },
				   a2 = { "renamed", "/bin/w", "abcd", 1 };
		bool seen_old = false;

		CHECK(pprof_add(p, &a, 1, "w", 1, 10) == 0 && pprof_add(p, &b, 1, "old", 1, 10) == 0 &&
		      pprof_add(p, &c, 1, "w", 1, 10) == 0, "a first window");
		p = pprof_recycle(p);
		CHECK(p != NULL && pprof_samples(p) == 0, "recycled: no samples");
		CHECK(pprof_add_known(p, 3, "w", 1, 10) == 1, "nor pairs: each window adds its own");
		CHECK(pprof_add(p, &c, 1, "w", 2, 20) == 0 && pprof_add(p, &dd, 1, "v", 1, 10) == 0 &&
		      pprof_add(p, &a2, 1, "w", 1, 10) == 0 && pprof_add_known(p, 4, "v", 3, 30) == 0 &&
		      pprof_samples(p) == 7, "the next window");
		CHECK(pprof_encode(p, &m, &raw, &rawlen) == 0, "encode");
		decode(raw, rawlen, &d);
		CHECK(!d.bad && d.nsamples == 3, "its three samples (%zu)", d.nsamples);
		CHECK(samples_of(&d, "hot_c", &ns, &file) == 2 && strcmp(file, "/bin/w") == 0 &&
		      samples_of(&d, "hot_d", &ns, &file) == 4 && ns == 40 && strcmp(file, "/bin/y") == 0,
		      "counted and mapped as in a fresh profile");
		CHECK(samples_of(&d, "renamed", &ns, &file) == 1 && samples_of(&d, "hot_a", &ns, &file) == 0,
		      "a key reused for another symbol: its new name");
		for (size_t i = 0; i < d.nstrs; i++)
			seen_old |= strcmp(d.strs[i], "hot_b") == 0 || strcmp(d.strs[i], "/bin/x") == 0 ||
				    strcmp(d.strs[i], "old") == 0;
		CHECK(!seen_old, "names no sample of this window uses are left out");
		for (size_t i = 0; i < d.nsamples; i++)
			CHECK(d.sample_loc[i] >= 1 && d.sample_loc[i] <= 3 && d.loc_map[d.sample_loc[i]] >= 1 &&
			      d.loc_map[d.sample_loc[i]] <= 2, "ids numbered from 1 without gaps");
		for (size_t i = 0; i < d.nstrs; i++)
			free(d.strs[i]);
		free(raw);
	}
	pprof_free(p);

	p = pprof_new();
	CHECK(pprof_encode(p, &m, &raw, &rawlen) == 0, "an empty profile encodes");
	decode(raw, rawlen, &d);
	CHECK(!d.bad && d.nsamples == 0 && d.nst == 2, "and decodes with no samples");
	for (size_t i = 0; i < d.nstrs; i++)
		free(d.strs[i]);
	free(raw);
	pprof_free(p);
	return check_done();
}
