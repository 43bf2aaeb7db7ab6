/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "deltamap.h"
#include "htab.h"

#define PPROF_MAX_DEPTH 128

/* Ids: strings index the string table (0 is ""); mappings, functions and
 * locations are numbered from 1 in order of first use. A sample is a list
 * of location ids, so whole stacks need no new structures. */
struct pprof_fn { uint64_t name, file; uint64_t mapping; uint64_t window; /* its names last checked */ };
struct pprof_sample { uint64_t *loc; size_t depth; uint64_t comm, fkey, chash; uint64_t samples, nanos; };

struct pprof {
	char **strs;
	size_t nstrs, capstrs;
	struct htab str_ix;              /* hash -> string index + 1, several per hash */
	uint64_t *map_file, *map_bid;    /* per mapping: filename, build-id strings */
	size_t nmaps, capmaps;
	/* The maps below stay deltamaps (one value a key): their get-or-add
	 * hands back the value to fill in or overwrite. */
	struct deltamap map_ix;          /* filename << 32 | build-id string -> mapping id */
	struct pprof_fn *fns;
	size_t nfns, capfns;
	struct deltamap fn_ix;           /* name << 32 | mapping -> function id (= location id) */
	struct deltamap key_ix;          /* the caller's frame key -> location id */
	struct deltamap ptr_ix;          /* a comm's address -> its string index + 1, checked */
	struct deltamap one_ix;          /* location << 32 | comm -> one-frame sample index + 1 */
	struct deltamap pair_ix;         /* a frame's key mixed with its comm's hash -> sample index + 1, checked */
	struct pprof_sample *samples;
	size_t nsamples, capsamples;
	struct deltamap sample_ix;       /* stack hash -> sample index + 1 */
	uint64_t total;
	uint64_t window;                 /* pprof_recycle's count */
};

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	void *na;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 16;
	na = reallocarray(*arr, nc, size);
	if (na == NULL)
		return -ENOMEM;
	*arr = na;
	*cap = nc;
	return 0;
}

struct pprof *pprof_new(void)
{
	struct pprof *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	if (htab_init(&p->str_ix, 64) || deltamap_init(&p->map_ix, 1) || deltamap_init(&p->fn_ix, 1) ||
	    deltamap_init(&p->key_ix, 1) || deltamap_init(&p->ptr_ix, 1) || deltamap_init(&p->one_ix, 1) ||
	    deltamap_init(&p->pair_ix, 1) ||
	    deltamap_init(&p->sample_ix, 1) || grow((void **)&p->strs, &p->capstrs, 0, sizeof(char *)) ||
	    (p->strs[0] = strdup("")) == NULL) {
		pprof_free(p);
		return NULL;
	}
	p->nstrs = 1;
	return p;
}

void pprof_free(struct pprof *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p->map_file);
	free(p->map_bid);
	free(p->fns);
	for (size_t i = 0; i < p->nsamples; i++)
		free(p->samples[i].loc);
	free(p->samples);
	htab_free(&p->str_ix);
	deltamap_free(&p->map_ix);
	deltamap_free(&p->fn_ix);
	deltamap_free(&p->key_ix);
	deltamap_free(&p->ptr_ix);
	deltamap_free(&p->one_ix);
	deltamap_free(&p->pair_ix);
	deltamap_free(&p->sample_ix);
	free(p);
}

static uint64_t hash_bytes(const void *b, size_t n, uint64_t h)
{
	const unsigned char *s = b;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

/* Interned: equal strings share an index; strings whose hashes collide
 * share the hash's key in str_ix, told apart by the compare. */
static int str_id(struct pprof *p, const char *s, uint64_t *id)
{
	uint64_t h;
	char *dup;

	if (s == NULL || *s == '\0') {
		*id = 0;
		return 0;
	}
	h = hash_bytes(s, strlen(s), 0xcbf29ce484222325ull);
	for (size_t i = htab_first(&p->str_ix, h); i != SIZE_MAX; i = htab_next(&p->str_ix, h, i)) {
		if (strcmp(p->strs[p->str_ix.tab[i].val - 1], s) == 0) {
			*id = p->str_ix.tab[i].val - 1;
			return 0;
		}
	}
	if (grow((void **)&p->strs, &p->capstrs, p->nstrs, sizeof(char *)) || (dup = strdup(s)) == NULL)
		return -ENOMEM;
	if (htab_put(&p->str_ix, h, p->nstrs + 1)) {
		free(dup);
		return -ENOMEM;
	}
	p->strs[p->nstrs] = dup;
	*id = p->nstrs++;
	return 0;
}

/* A file rebuilt at the same path is another mapping: its own build-id. */
static int mapping_id(struct pprof *p, uint64_t file, uint64_t bid, uint64_t *id)
{
	uint64_t *v = deltamap_get(&p->map_ix, file << 32 | bid);

	if (v == NULL)
		return -ENOMEM;
	if (*v == 0) {
		size_t cap = p->capmaps;

		if (grow((void **)&p->map_file, &cap, p->nmaps, sizeof(uint64_t)) ||
		    grow((void **)&p->map_bid, &p->capmaps, p->nmaps, sizeof(uint64_t)))
			return -ENOMEM;
		p->map_file[p->nmaps] = file;
		p->map_bid[p->nmaps] = bid;
		*v = ++p->nmaps;
	}
	*id = *v;
	return 0;
}

static bool same_names(const struct pprof *p, const struct pprof_fn *fn, const struct pprof_frame *f)
{
	return strcmp(p->strs[fn->name], f->sym ? f->sym : "[unknown]") == 0 &&
	       strcmp(p->strs[fn->file], f->dso ? f->dso : "[unknown]") == 0;
}

static int location_id(struct pprof *p, const struct pprof_frame *f, uint64_t *id)
{
	uint64_t name, file, bid, map, *v, *k = NULL;

	if (f->key) {
		if ((k = deltamap_get(&p->key_ix, f->key)) == NULL)
			return -ENOMEM;
		/* Names compared once a window: a key learnt windows ago
		 * (pprof_recycle) may since name another symbol (a DSO's slot
		 * reused); within one, a key keeps its names. */
		if (*k && (p->fns[*k - 1].window == p->window || same_names(p, &p->fns[*k - 1], f))) {
			p->fns[*k - 1].window = p->window;
			*id = *k;
			return 0;
		}
	}
	if (str_id(p, f->sym ? f->sym : "[unknown]", &name) || str_id(p, f->dso ? f->dso : "[unknown]", &file) ||
	    str_id(p, f->build_id, &bid) || mapping_id(p, file, bid, &map))
		return -ENOMEM;
	v = deltamap_get(&p->fn_ix, name << 32 | map);
	if (v == NULL)
		return -ENOMEM;
	if (*v == 0) {
		if (grow((void **)&p->fns, &p->capfns, p->nfns, sizeof(*p->fns)))
			return -ENOMEM;
		p->fns[p->nfns] = (struct pprof_fn){ .name = name, .file = file, .mapping = map, .window = p->window };
		*v = ++p->nfns;
	}
	*id = *v;
	if (k)
		*k = *v;
	return 0;
}

/* 64 bits of a comm: equal hashes are taken for equal comms (a collision
 * is a 2^-64 chance, and would only put samples under the other comm). */
static uint64_t comm_hash(const char *comm)
{
	return comm && *comm ? hash_bytes(comm, strlen(comm), 0xcbf29ce484222325ull) | 1 : 0;
}

static uint64_t pair_key(uint64_t fkey, uint64_t chash)
{
	return fkey * 0x9e3779b97f4a7c15ull ^ chash;
}

int pprof_add_known(struct pprof *p, uint64_t key, const char *comm, uint64_t samples, uint64_t nanos)
{
	uint64_t ch = comm_hash(comm), *v = key ? deltamap_find(&p->pair_ix, pair_key(key, ch)) : NULL;
	struct pprof_sample *s = v && *v ? &p->samples[*v - 1] : NULL;

	if (s == NULL || s->fkey != key || s->chash != ch || s->depth != 1)
		return 1;
	s->samples += samples;
	s->nanos += nanos;
	p->total += samples;
	return 0;
}

/* The caller hands the same comm buffers again and again (agg's rows): by
 * address first, the string compared to be sure, else hashed. */
static int comm_id(struct pprof *p, const char *comm, uint64_t *id)
{
	uint64_t *v;

	if (comm == NULL || *comm == '\0') {
		*id = 0;
		return 0;
	}
	if ((v = deltamap_get(&p->ptr_ix, (uint64_t)(uintptr_t)comm)) == NULL)
		return -ENOMEM;
	if (*v && strcmp(p->strs[*v - 1], comm) == 0) {
		*id = *v - 1;
		return 0;
	}
	if (str_id(p, comm, id))
		return -ENOMEM;
	*v = *id + 1;
	return 0;
}

static int new_sample(struct pprof *p, const struct pprof_sample *s, uint64_t *v)
{
	struct pprof_sample n = *s;

	if (grow((void **)&p->samples, &p->capsamples, p->nsamples, sizeof(*p->samples)))
		return -ENOMEM;
	n.loc = malloc(s->depth * sizeof(s->loc[0]) + 1);
	if (n.loc == NULL)
		return -ENOMEM;
	memcpy(n.loc, s->loc, s->depth * sizeof(s->loc[0]));
	p->samples[p->nsamples] = n;
	*v = ++p->nsamples;
	return 0;
}

int pprof_add(struct pprof *p, const struct pprof_frame *stack, size_t depth, const char *comm,
	      uint64_t samples, uint64_t nanos)
{
	uint64_t loc[PPROF_MAX_DEPTH];
	struct pprof_sample s = { .loc = loc, .depth = depth < PPROF_MAX_DEPTH ? depth : PPROF_MAX_DEPTH };
	uint64_t h, *v, *pv = NULL;

	if (s.depth == 1 && stack[0].key) {
		s.fkey = stack[0].key;
		s.chash = comm_hash(comm);
		pv = deltamap_get(&p->pair_ix, pair_key(s.fkey, s.chash));
		if (pv == NULL)
			return -ENOMEM;
	}
	for (size_t i = 0; i < s.depth; i++)
		if (location_id(p, &stack[i], &loc[i]))
			return -ENOMEM;
	if (comm_id(p, comm, &s.comm))
		return -ENOMEM;
	/* One frame (no call graphs): the pair of ids is the key itself. */
	if (s.depth == 1 && loc[0] < (1ull << 32) && s.comm < (1ull << 32)) {
		if ((v = deltamap_get(&p->one_ix, loc[0] << 32 | s.comm)) == NULL || (*v == 0 && new_sample(p, &s, v)))
			return -ENOMEM;
		goto add;
	}
	h = hash_bytes(loc, s.depth * sizeof(loc[0]), 0xcbf29ce484222325ull ^ s.comm * 0x9e3779b97f4a7c15ull);
	for (;; h++) {
		v = deltamap_get(&p->sample_ix, h);
		if (v == NULL)
			return -ENOMEM;
		if (*v == 0 && new_sample(p, &s, v))
			return -ENOMEM;
		if (p->samples[*v - 1].depth == s.depth && p->samples[*v - 1].comm == s.comm &&
		    memcmp(p->samples[*v - 1].loc, loc, s.depth * sizeof(loc[0])) == 0)
			break;
	}
add:
	if (pv) { /* pprof_add_known finds it next time */
		*pv = *v;
		p->samples[*v - 1].fkey = s.fkey;
		p->samples[*v - 1].chash = s.chash;
	}
	p->samples[*v - 1].samples += samples;
	p->samples[*v - 1].nanos += nanos;
	p->total += samples;
	return 0;
}

/* What the samples use, renumbered in order: fn[i] and map[i] the new id of
 * function (= location) and mapping i (1-based, 0: unused), str[i] the new
 * index of string i + 1 (0: unused). With extra strings kept too (the
 * encoder's own). A fresh profile uses everything: the same ids. */
struct pprof_used {
	uint64_t *fn, *map, *str;
	size_t nfn;
};

static void used_free(struct pprof_used *u)
{
	free(u->fn);
	free(u->map);
	free(u->str);
}

static int used_ids(const struct pprof *p, const uint64_t *extra, size_t nextra, struct pprof_used *u)
{
	size_t k;

	u->fn = calloc(p->nfns + 1, sizeof(*u->fn));
	u->map = calloc(p->nmaps + 1, sizeof(*u->map));
	u->str = calloc(p->nstrs + 1, sizeof(*u->str));
	u->nfn = 0;
	if (u->fn == NULL || u->map == NULL || u->str == NULL) {
		used_free(u);
		return -ENOMEM;
	}
	u->str[0] = 1; /* "" is string 0 in every profile */
	for (size_t i = 0; i < nextra; i++)
		u->str[extra[i]] = 1;
	for (size_t i = 0; i < p->nsamples; i++) {
		for (size_t d = 0; d < p->samples[i].depth; d++)
			u->fn[p->samples[i].loc[d]] = 1;
		u->str[p->samples[i].comm] = 1;
	}
	for (size_t i = 1; i <= p->nfns; i++) {
		if (u->fn[i] == 0)
			continue;
		u->fn[i] = ++u->nfn;
		u->str[p->fns[i - 1].name] = u->str[p->fns[i - 1].file] = 1;
		u->map[p->fns[i - 1].mapping] = 1;
	}
	k = 0;
	for (size_t i = 1; i <= p->nmaps; i++) {
		if (u->map[i] == 0)
			continue;
		u->map[i] = ++k;
		u->str[p->map_file[i - 1]] = u->str[p->map_bid[i - 1]] = 1;
	}
	k = 0;
	for (size_t i = 0; i < p->nstrs; i++)
		if (u->str[i])
			u->str[i] = ++k;
	return 0;
}

/* Kept while the names are at most this many times what a window used. */
#define PPROF_KEEP_RATIO 3
#define PPROF_KEEP_MIN 1024

struct pprof *pprof_recycle(struct pprof *p)
{
	struct pprof_used u;
	bool keep;

	if (used_ids(p, NULL, 0, &u)) {
		pprof_free(p);
		return pprof_new();
	}
	keep = p->nfns <= PPROF_KEEP_RATIO * u.nfn + PPROF_KEEP_MIN;
	used_free(&u);
	if (!keep) {
		pprof_free(p);
		return pprof_new();
	}
	for (size_t i = 0; i < p->nsamples; i++)
		free(p->samples[i].loc);
	p->nsamples = 0;
	p->total = 0;
	p->window++;
	deltamap_clear(&p->one_ix);
	deltamap_clear(&p->pair_ix);
	deltamap_clear(&p->sample_ix);
	return p;
}

uint64_t pprof_samples(const struct pprof *p)
{
	return p->total;
}

/* --- protobuf ------------------------------------------------------------ */

struct pb {
	uint8_t *b;
	size_t len, cap;
	bool oom;
};

static void pb_bytes(struct pb *pb, const void *d, size_t n)
{
	if (pb->oom)
		return;
	if (pb->len + n > pb->cap) {
		size_t cap = pb->cap ? pb->cap : 1024;
		uint8_t *nb;

		while (cap < pb->len + n)
			cap *= 2;
		nb = realloc(pb->b, cap);
		if (nb == NULL) {
			pb->oom = true;
			return;
		}
		pb->b = nb;
		pb->cap = cap;
	}
	memcpy(pb->b + pb->len, d, n);
	pb->len += n;
}

static void pb_varint(struct pb *pb, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_bytes(pb, tmp, n);
}

/* Wire types: 0 varint, 2 length-delimited. Zero scalars are left out, as
 * proto3 does. */
static void pb_uint(struct pb *pb, unsigned field, uint64_t v)
{
	if (v == 0)
		return;
	pb_varint(pb, (uint64_t)field << 3);
	pb_varint(pb, v);
}

static void pb_len(struct pb *pb, unsigned field, const void *d, size_t n)
{
	pb_varint(pb, (uint64_t)field << 3 | 2);
	pb_varint(pb, n);
	pb_bytes(pb, d, n);
}

static void pb_msg(struct pb *pb, unsigned field, struct pb *sub)
{
	if (sub->oom)
		pb->oom = true;
	pb_len(pb, field, sub->b, sub->len);
	sub->len = 0;
}

static void pb_packed(struct pb *pb, struct pb *tmp, unsigned field, const uint64_t *v, size_t n)
{
	tmp->len = 0;
	for (size_t i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	pb_msg(pb, field, tmp);
}

static void value_type(struct pb *pb, struct pb *sub, unsigned field, uint64_t type, uint64_t unit)
{
	pb_uint(sub, 1, type);
	pb_uint(sub, 2, unit);
	pb_msg(pb, field, sub);
}

int pprof_encode(const struct pprof *cp, const struct pprof_meta *m, uint8_t **out, size_t *len)
{
	struct pprof *p = (struct pprof *)cp; /* only interns the fixed names */
	struct pb pb = { 0 }, sub = { 0 }, tmp = { 0 };
	uint64_t fixed[5], loc[PPROF_MAX_DEPTH];
	struct pprof_used u;

	if (str_id(p, "samples", &fixed[0]) || str_id(p, "count", &fixed[1]) || str_id(p, m->time_type ? m->time_type : "cpu", &fixed[2]) ||
	    str_id(p, "nanoseconds", &fixed[3]) || str_id(p, "comm", &fixed[4]) || used_ids(p, fixed, 5, &u))
		return -ENOMEM;
#define S(i) (u.str[i] - 1)
	value_type(&pb, &sub, 1, S(fixed[0]), S(fixed[1]));
	value_type(&pb, &sub, 1, S(fixed[2]), S(fixed[3]));
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pprof_sample *s = &p->samples[i];
		uint64_t vals[2] = { s->samples, s->nanos };

		for (size_t d = 0; d < s->depth; d++)
			loc[d] = u.fn[s->loc[d]];
		pb_packed(&sub, &tmp, 1, loc, s->depth);
		pb_packed(&sub, &tmp, 2, vals, 2);
		if (s->comm) { /* Label{key, str}: Pyroscope makes it a series label */
			tmp.len = 0;
			pb_uint(&tmp, 1, S(fixed[4]));
			pb_uint(&tmp, 2, S(s->comm));
			pb_msg(&sub, 3, &tmp);
		}
		pb_msg(&pb, 2, &sub);
	}
	for (size_t i = 0; i < p->nmaps; i++) {
		if (u.map[i + 1] == 0)
			continue;
		pb_uint(&sub, 1, u.map[i + 1]);
		pb_uint(&sub, 5, S(p->map_file[i]));
		pb_uint(&sub, 6, S(p->map_bid[i]));
		pb_uint(&sub, 7, 1); /* has_functions: nothing to symbolize */
		pb_msg(&pb, 3, &sub);
	}
	/* One location per function: the symbol is all we know of an address. */
	for (size_t i = 0; i < p->nfns; i++) {
		if (u.fn[i + 1] == 0)
			continue;
		pb_uint(&sub, 1, u.fn[i + 1]);
		pb_uint(&sub, 2, u.map[p->fns[i].mapping]);
		pb_uint(&tmp, 1, u.fn[i + 1]);
		pb_msg(&sub, 4, &tmp);
		pb_msg(&pb, 4, &sub);
	}
	for (size_t i = 0; i < p->nfns; i++) {
		if (u.fn[i + 1] == 0)
			continue;
		pb_uint(&sub, 1, u.fn[i + 1]);
		pb_uint(&sub, 2, S(p->fns[i].name));
		pb_uint(&sub, 3, S(p->fns[i].name));
		pb_uint(&sub, 4, S(p->fns[i].file));
		pb_msg(&pb, 5, &sub);
	}
	for (size_t i = 0; i < p->nstrs; i++)
		if (u.str[i])
			pb_len(&pb, 6, p->strs[i], strlen(p->strs[i]));
	pb_uint(&pb, 9, (uint64_t)m->time_nanos);
	pb_uint(&pb, 10, (uint64_t)m->duration_nanos);
	value_type(&pb, &sub, 11, S(fixed[2]), S(fixed[3]));
	pb_uint(&pb, 12, (uint64_t)m->period);
	pb_uint(&pb, 14, S(fixed[2]));
#undef S
	used_free(&u);
	free(sub.b);
	free(tmp.b);
	if (pb.oom || sub.oom || tmp.oom) {
		free(pb.b);
		return -ENOMEM;
	}
	*out = pb.b;
	*len = pb.len;
	return 0;
}

int pprof_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *outlen)
{
	z_stream z;
	uint8_t *buf;
	size_t cap;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer rather than zlib's. Level 1: a
	 * profile of thousands of symbols compresses well enough at once. */
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len) + 32;
	buf = malloc(cap);
	if (buf == NULL) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -EIO;
	}
	*out = buf;
	*outlen = cap - z.avail_out;
	return 0;
}

int pprof_build(const struct pprof *p, const struct pprof_meta *m, uint8_t **out, size_t *len)
{
	uint8_t *raw;
	size_t rawlen;
	int rc = pprof_encode(p, m, &raw, &rawlen);

	if (rc)
		return rc;
	rc = pprof_gzip(raw, rawlen, out, len);
	free(raw);
	return rc;
}
