/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "cachedir.h"
#include "util.h"

#define KCACHE_MAGIC "PTKSYMC\n"
#define KCACHE_VERSION 2
#define MODNAMES_MAX (MODULES_MAX * (KCACHE_MODNAME_MAX + 3))
#define NOTES_MAX 4096
#define MODULES_MAX 4096         /* more than any kernel loads */
#define NSYMS_MAX (1u << 24)
#define NAMES_MAX (1u << 28)

/* Native byte order and layout: a cache written by another architecture
 * fails the magic or the sizes and is rebuilt. After the header: the
 * index (each stride's first address), the strides' hashes, the names
 * blocks' hashes, the module records and their names (each NUL-ended,
 * padded to 8 bytes): what a start reads, under the header's checksum.
 * Then the records and the names, read as lookups reach them and checked
 * by their hashes (kallsyms_lazy.c). */
struct kcache_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t checksum;        /* of the header with this field 0, then the rest */
	uint8_t build_id[KCACHE_BUILD_ID_MAX];
	uint8_t build_id_len, pad[3];
	uint32_t head_len, pad2;
	uint64_t head_hash;
	uint32_t nsyms, nmodules, names_len, modnames_len;
};

struct kcache_mod_rec {
	uint32_t name;            /* offset of "[name]" in the names */
	uint32_t pad;
	uint64_t addr, size;      /* as /proc/modules showed them; 0: never valid */
};

_Static_assert(sizeof(struct kcache_hdr) == 80, "cache header layout");
_Static_assert(sizeof(struct kcache_mod_rec) == 24, "cache module layout");
_Static_assert(sizeof(struct kallsyms_sym) == 16, "cache symbol layout");

static int read_small(const char *path, void *buf, size_t len, size_t *got)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = util_read_full(fd, buf, len);
	close(fd);
	if (n < 0)
		return (int)n;
	*got = (size_t)n;
	return 0;
}

int kcache_key_read(struct kcache_key *k, const char *notes_path, const char *kallsyms_path)
{
	unsigned char notes[NOTES_MAX];
	char head[KCACHE_HEAD_MAX];
	struct kallsyms *ks;
	size_t n = 0;
	char *nl;
	int rc, len;

	memset(k, 0, sizeof(*k));
	/* Only whole lines: a cut one would differ between two readers. */
	if ((rc = read_small(kallsyms_path, head, sizeof(head), &n)) != 0)
		return rc;
	if ((nl = memrchr(head, '\n', n)) != NULL)
		n = (size_t)(nl - head) + 1;
	if ((rc = kallsyms_load_buf(&ks, head, n)) != 0)
		return rc;
	rc = ks->lines ? 0 : -ENODATA;
	k->restricted = ks->restricted;
	kallsyms_free(ks);
	if (rc)
		return rc;
	k->head_len = (uint32_t)n;
	k->head_hash = util_hash64(head, n, 0);
	if (notes_path && read_small(notes_path, notes, sizeof(notes), &n) == 0 &&
	    (len = buildid_find_notes(notes, n, k->build_id)) > 0)
		k->build_id_len = (uint8_t)len;
	return 0;
}

/* --- /proc/modules -------------------------------------------------------- */

/* The next space-separated field of [*p, end). */
static bool field(const char **p, const char *end, const char **f, size_t *flen)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*f = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*flen = (size_t)(s - *f);
	*p = s;
	return *flen > 0;
}

static bool parse_num(const char *f, size_t len, int base, uint64_t *v)
{
	char tmp[24];
	char *end;

	if (len == 0 || len >= sizeof(tmp) || f[0] == '-' || f[0] == '+')
		return false;
	memcpy(tmp, f, len);
	tmp[len] = '\0';
	errno = 0;
	*v = strtoull(tmp, &end, base);
	return errno == 0 && *end == '\0';
}

/* "name size refcount deps state 0xaddr [taints]"; a line that is not
 * quite that is skipped. */
static int module_line(struct kcache_modules *m, const char *p, const char *end)
{
	const char *name, *f;
	size_t nlen, flen;
	uint64_t size, addr;
	struct kcache_module *v;

	if (!field(&p, end, &name, &nlen) || nlen >= KCACHE_MODNAME_MAX || memchr(name, '\0', nlen) ||
	    !field(&p, end, &f, &flen) || !parse_num(f, flen, 10, &size))
		return 0;
	for (int i = 0; i < 3; i++)
		if (!field(&p, end, &f, &flen))
			return 0;
	if (!field(&p, end, &f, &flen) || flen < 3 || f[0] != '0' || f[1] != 'x' ||
	    !parse_num(f + 2, flen - 2, 16, &addr))
		return 0;
	if (m->n >= MODULES_MAX)
		return -E2BIG;
	v = reallocarray(m->v, m->n + 1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	m->v = v;
	memcpy(v[m->n].name, name, nlen);
	v[m->n].name[nlen] = '\0';
	v[m->n].addr = addr;
	v[m->n].size = size;
	m->n++;
	return 0;
}

int kcache_modules_parse(struct kcache_modules *m, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int rc;

	memset(m, 0, sizeof(*m));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((rc = module_line(m, p, le)) != 0) {
			kcache_modules_free(m);
			return rc;
		}
		p = le + 1;
	}
	return 0;
}

int kcache_modules_read(struct kcache_modules *m, const char *path)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -errno; /* no module support */
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *b = cap < ((size_t)1 << 24) ? realloc(buf, cap ? cap * 2 : 16384) : NULL;

			if (b == NULL) {
				rc = cap ? -E2BIG : -ENOMEM;
				goto out;
			}
			buf = b;
			cap = cap ? cap * 2 : 16384;
		}
		if ((n = util_read_full(fd, buf + len, cap - len)) < 0) {
			rc = (int)n;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = kcache_modules_parse(m, buf, len);
out:
	close(fd);
	free(buf);
	return rc;
}

void kcache_modules_free(struct kcache_modules *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

bool kcache_modules_equal(const struct kcache_modules *a, const struct kcache_modules *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, b->v[i].name) != 0 || a->v[i].addr != b->v[i].addr ||
		    a->v[i].size != b->v[i].size)
			return false;
	return true;
}

/* The live module named "[name]" (kallsyms' spelling), at a shown address. */
static const struct kcache_module *module_shown(const struct kcache_modules *m, const char *bracketed)
{
	size_t len = strlen(bracketed);

	if (len < 3 || bracketed[0] != '[' || bracketed[len - 1] != ']')
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->v[i].name) == len - 2 && memcmp(m->v[i].name, bracketed + 1, len - 2) == 0)
			return m->v[i].addr ? &m->v[i] : NULL;
	return NULL;
}

/* --- the file's bytes ------------------------------------------------------ */

/* Where each part of a file of header h lies; false when its counts cannot
 * be a file's. */
static bool layout_of(const struct kcache_hdr *h, struct kcache_layout *l)
{
	if (h->nsyms > NSYMS_MAX || h->names_len > NAMES_MAX || h->names_len == 0 || h->nmodules > UINT16_MAX + 1u ||
	    h->nmodules == 1 || h->modnames_len > MODNAMES_MAX || h->modnames_len % 8)
		return false;
	l->nindex = (h->nsyms + KALLSYMS_INDEX_STRIDE - 1) / KALLSYMS_INDEX_STRIDE;
	l->nblocks = (h->names_len + KALLSYMS_NAMES_BLOCK - 1) / KALLSYMS_NAMES_BLOCK;
	l->index_off = sizeof(struct kcache_hdr);
	l->shash_off = l->index_off + l->nindex * sizeof(uint64_t);
	l->bhash_off = l->shash_off + l->nindex * sizeof(uint64_t);
	l->mods_off = l->bhash_off + l->nblocks * sizeof(uint64_t);
	l->modnames_off = l->mods_off + (size_t)h->nmodules * sizeof(struct kcache_mod_rec);
	l->syms_off = l->modnames_off + h->modnames_len;
	l->names_off = l->syms_off + (size_t)h->nsyms * sizeof(struct kallsyms_sym);
	l->len = l->names_off + h->names_len;
	return true;
}

int kcache_layout(const void *buf, size_t len, struct kcache_layout *l)
{
	struct kcache_hdr h;

	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	return layout_of(&h, l) ? 0 : -EBADMSG;
}

/* The header's, over itself (this field 0) and what a start reads. */
static uint64_t checksum(const struct kcache_hdr *h, const void *head, size_t len)
{
	struct kcache_hdr z = *h;

	z.checksum = 0;
	return util_hash64(head, len, util_hash64(&z, sizeof(z), 0));
}

int kcache_encode(const struct kallsyms *ks, const struct kcache_key *k, const struct kcache_modules *m,
		  void **bufp, size_t *lenp)
{
	struct kcache_hdr h = { .magic = KCACHE_MAGIC, .version = KCACHE_VERSION, .hdr_size = sizeof(h) };
	struct kallsyms_sym *kept;
	struct kcache_mod_rec *mods;
	struct kcache_layout l;
	size_t nsyms = 0, modnames_len = 0;
	uint64_t *index, *shash, *bhash;
	char *buf, *p;

	*bufp = NULL;
	if (ks->restricted || ks->lazy || k->restricted || k->build_id_len == 0 || k->build_id_len > KCACHE_BUILD_ID_MAX)
		return -EINVAL;
	if (ks->names_len == 0)
		return -EINVAL;
	if (ks->nsyms > NSYMS_MAX || ks->names_len > NAMES_MAX || ks->nmodules > UINT16_MAX + 1u)
		return -E2BIG;
	kept = malloc(ks->nsyms ? ks->nsyms * sizeof(*kept) : 1);
	mods = calloc(ks->nmodules ? ks->nmodules : 1, sizeof(*mods));
	if (kept == NULL || mods == NULL) {
		free(kept);
		free(mods);
		return -ENOMEM;
	}
	for (size_t i = 1; i < ks->nmodules; i++) {
		const struct kcache_module *live = module_shown(m, ks->names + ks->modules[i]);

		mods[i].name = ks->modules[i];
		if (live) {
			mods[i].addr = live->addr;
			mods[i].size = live->size;
		}
		modnames_len += strlen(ks->names + ks->modules[i]) + 1;
	}
	for (size_t i = 0; i < ks->nsyms; i++) {
		const struct kallsyms_sym *s = &ks->syms[i];

		/* A pseudo-module (BPF, ftrace) or a hidden one: read on demand. */
		if (s->module && (s->module >= ks->nmodules || mods[s->module].addr == 0))
			continue;
		kept[nsyms] = *s;
		kept[nsyms].pad = 0;
		nsyms++;
	}
	memcpy(h.build_id, k->build_id, k->build_id_len);
	h.build_id_len = k->build_id_len;
	h.head_len = k->head_len;
	h.head_hash = k->head_hash;
	h.nsyms = (uint32_t)nsyms;
	h.nmodules = (uint32_t)ks->nmodules;
	h.names_len = (uint32_t)ks->names_len;
	h.modnames_len = (uint32_t)((modnames_len + 7) / 8 * 8);
	if (!layout_of(&h, &l) || (buf = calloc(1, l.len)) == NULL) {
		free(kept);
		free(mods);
		return layout_of(&h, &l) ? -ENOMEM : -E2BIG;
	}
	index = (uint64_t *)(void *)(buf + l.index_off);
	shash = (uint64_t *)(void *)(buf + l.shash_off);
	bhash = (uint64_t *)(void *)(buf + l.bhash_off);
	for (size_t s = 0; s < l.nindex; s++) {
		size_t first = s * KALLSYMS_INDEX_STRIDE, n = nsyms - first < KALLSYMS_INDEX_STRIDE ? nsyms - first : KALLSYMS_INDEX_STRIDE;

		index[s] = kept[first].addr;
		shash[s] = util_hash64(kept + first, n * sizeof(*kept), 0);
	}
	for (size_t b = 0; b < l.nblocks; b++) {
		size_t off = b * KALLSYMS_NAMES_BLOCK;

		bhash[b] = util_hash64(ks->names + off, ks->names_len - off < KALLSYMS_NAMES_BLOCK ? ks->names_len - off :
								   KALLSYMS_NAMES_BLOCK, 0);
	}
	memcpy(buf + l.mods_off, mods, ks->nmodules * sizeof(*mods));
	p = buf + l.modnames_off;
	for (size_t i = 1; i < ks->nmodules; i++) {
		size_t n = strlen(ks->names + ks->modules[i]) + 1;

		memcpy(p, ks->names + ks->modules[i], n);
		p += n;
	}
	memcpy(buf + l.syms_off, kept, nsyms * sizeof(*kept));
	memcpy(buf + l.names_off, ks->names, ks->names_len);
	free(kept);
	free(mods);
	h.checksum = checksum(&h, buf + sizeof(h), l.syms_off - sizeof(h));
	memcpy(buf, &h, sizeof(h));
	*bufp = buf;
	*lenp = l.len;
	return 0;
}

void kcache_seal(void *buf, size_t len)
{
	struct kcache_layout l;
	struct kcache_hdr h;

	if (kcache_layout(buf, len, &l) != 0 || l.syms_off > len)
		return;
	memcpy(&h, buf, sizeof(h));
	h.checksum = checksum(&h, (char *)buf + sizeof(h), l.syms_off - sizeof(h));
	memcpy(buf, &h, sizeof(h));
}

static bool key_matches(const struct kcache_hdr *h, const struct kcache_key *k)
{
	return k->build_id_len && !k->restricted && h->build_id_len == k->build_id_len &&
	       memcmp(h->build_id, k->build_id, k->build_id_len) == 0 && h->head_len == k->head_len &&
	       h->head_hash == k->head_hash;
}

static bool module_name_ok(const char *name, size_t len)
{
	return len >= 3 && len <= KCACHE_MODNAME_MAX && name[0] == '[' && name[len - 1] == ']';
}

/* The cached module r (named name) still is where it was: else its
 * symbols are stale. */
static bool module_current(const struct kcache_mod_rec *r, const char *name, const struct kcache_modules *m)
{
	const struct kcache_module *live = module_shown(m, name);

	return r->addr && live && live->addr == r->addr && live->size == r->size;
}

/* The header, checked against the key and the file's length. */
static int header_check(struct kcache_hdr *h, const void *p, size_t len, const struct kcache_key *k,
			struct kcache_layout *l)
{
	if (len < sizeof(*h))
		return -EBADMSG;
	memcpy(h, p, sizeof(*h));
	if (memcmp(h->magic, KCACHE_MAGIC, sizeof(h->magic)) != 0 || h->version != KCACHE_VERSION ||
	    h->hdr_size != sizeof(*h))
		return -EBADMSG;
	if (!key_matches(h, k))
		return -ESTALE;
	return layout_of(h, l) && l->len == len ? 0 : -EBADMSG;
}

/* The module names after the records, one per module 1.. (each a valid
 * "[name]"), into names[]; the rest of the area NULs. */
static bool module_names(const char *area, size_t len, size_t nmodules, const char **names)
{
	size_t at = 0, end;

	for (size_t i = 1; i < nmodules; i++) {
		const char *nul = memchr(area + at, '\0', len - at);

		if (nul == NULL || !module_name_ok(area + at, (size_t)(nul - area - at)))
			return false;
		names[i] = area + at;
		at = (size_t)(nul - area) + 1;
	}
	end = at;
	for (; at < len; at++)
		if (area[at])
			return false;
	return len - end < 8;
}

int kcache_decode(struct kallsyms **out, const void *data, size_t len, const struct kcache_key *k,
		  const struct kcache_modules *m)
{
	const unsigned char *p = data, *syms, *mods;
	const char **mnames = NULL;
	struct kallsyms *ks = NULL;
	struct kcache_layout l;
	struct kcache_hdr h;
	const char *names;
	uint8_t *keep = NULL;
	uint64_t prev = 0;
	size_t kept = 0;
	int rc;

	*out = NULL;
	if ((rc = header_check(&h, data, len, k, &l)) != 0)
		return rc;
	if (checksum(&h, p + sizeof(h), l.syms_off - sizeof(h)) != h.checksum)
		return -EBADMSG;
	syms = p + l.syms_off;
	mods = p + l.mods_off;
	names = (const char *)(p + l.names_off);
	if (names[h.names_len - 1] != '\0')
		return -EBADMSG;
	/* Every stride and names block as its hash says: what a lazy read
	 * checks one at a time, all of them here. */
	for (size_t s = 0; s < l.nindex; s++) {
		size_t first = s * KALLSYMS_INDEX_STRIDE, n = h.nsyms - first < KALLSYMS_INDEX_STRIDE ? h.nsyms - first : KALLSYMS_INDEX_STRIDE;
		uint64_t want, at, addr;

		memcpy(&want, p + l.shash_off + s * sizeof(want), sizeof(want));
		memcpy(&at, p + l.index_off + s * sizeof(at), sizeof(at));
		memcpy(&addr, syms + first * sizeof(struct kallsyms_sym), sizeof(addr));
		if (util_hash64(syms + first * sizeof(struct kallsyms_sym), n * sizeof(struct kallsyms_sym), 0) != want ||
		    at != addr)
			return -EBADMSG;
	}
	for (size_t b = 0; b < l.nblocks; b++) {
		size_t off = b * KALLSYMS_NAMES_BLOCK;
		uint64_t want;

		memcpy(&want, p + l.bhash_off + b * sizeof(want), sizeof(want));
		if (util_hash64(names + off, h.names_len - off < KALLSYMS_NAMES_BLOCK ? h.names_len - off : KALLSYMS_NAMES_BLOCK,
				0) != want)
			return -EBADMSG;
	}
	if ((ks = calloc(1, sizeof(*ks))) == NULL || (keep = calloc(h.nmodules + 1, sizeof(*keep))) == NULL ||
	    (mnames = calloc(h.nmodules + 1, sizeof(*mnames))) == NULL ||
	    (h.nmodules && (ks->modules = calloc(h.nmodules, sizeof(*ks->modules))) == NULL))
		goto out_nomem;
	if (!module_names((const char *)p + l.modnames_off, h.modnames_len, h.nmodules, mnames))
		goto out_bad;
	for (size_t i = 1; i < h.nmodules; i++) {
		struct kcache_mod_rec r;

		memcpy(&r, mods + i * sizeof(r), sizeof(r));
		/* The name in the arena is the one the start reads. */
		if (r.name >= h.names_len || strcmp(names + r.name, mnames[i]) != 0)
			goto out_bad;
		/* 0: never written with symbols; 1: moved since; 2: current. */
		keep[i] = r.addr == 0 ? 0 : module_current(&r, mnames[i], m) ? 2 : 1;
		ks->modules[i] = r.name;
	}
	ks->nmodules = ks->modules_cap = h.nmodules;
	for (size_t i = 0; i < h.nsyms; i++) {
		struct kallsyms_sym s;

		memcpy(&s, syms + i * sizeof(s), sizeof(s));
		/* What a parsed table guarantees: ascending unique addresses,
		 * names in the arena (which ends in a NUL), known modules, text
		 * types. */
		if ((i && s.addr <= prev) || s.name >= h.names_len || names[s.name] == '\0' ||
		    (s.module && (s.module >= h.nmodules || keep[s.module] == 0)) || s.pad ||
		    (s.type != 't' && s.type != 'T' && s.type != 'w' && s.type != 'W'))
			goto out_bad;
		prev = s.addr;
		if (!s.module || keep[s.module] == 2)
			kept++;
	}
	/* The table lies in the cache's bytes, unless modules moved. */
	ks->backing = data;
	ks->backing_len = len;
	ks->names = (char *)(uintptr_t)names;
	ks->names_len = ks->names_cap = h.names_len;
	if (kept == h.nsyms && (uintptr_t)syms % _Alignof(struct kallsyms_sym) == 0) {
		ks->syms = (struct kallsyms_sym *)(uintptr_t)syms;
		ks->nsyms = h.nsyms;
	} else {
		if ((ks->syms = malloc(kept ? kept * sizeof(*ks->syms) : 1)) == NULL)
			goto out_nomem;
		for (size_t i = 0; i < h.nsyms; i++) {
			struct kallsyms_sym s;

			memcpy(&s, syms + i * sizeof(s), sizeof(s));
			if (!s.module || keep[s.module] == 2)
				ks->syms[ks->nsyms++] = s;
		}
	}
	ks->syms_cap = ks->nsyms;
	ks->lines = ks->nsyms;
	free(keep);
	free(mnames);
	if (kallsyms_index(ks) != 0)
		goto out_nomem_ks;
	*out = ks;
	return 0;
out_nomem_ks:
	kallsyms_free(ks);
	return -ENOMEM;
out_nomem:
	free(keep);
	free(mnames);
	kallsyms_free(ks);
	return -ENOMEM;
out_bad:
	free(keep);
	free(mnames);
	kallsyms_free(ks);
	return -EBADMSG;
}

int kcache_open_lazy(struct kallsyms **out, int fd, size_t len, const struct kcache_key *k,
		     const struct kcache_modules *m)
{
	struct kallsyms_lazy_layout lay;
	struct kcache_layout l;
	struct kcache_hdr h;
	const char **mnames = NULL;
	unsigned char *head = NULL, raw[sizeof(h)];
	size_t head_len;
	ssize_t n;
	int rc;

	*out = NULL;
	n = util_pread_full(fd, raw, sizeof(raw), 0);
	if (n < 0)
		return (int)n;
	if ((size_t)n != sizeof(raw))
		return -EBADMSG;
	if ((rc = header_check(&h, raw, len, k, &l)) != 0)
		return rc;
	if (h.nsyms == 0)
		return -EAGAIN; /* nothing to read lazily: the whole path takes it */
	head_len = l.syms_off - sizeof(h);
	if ((head = malloc(head_len)) == NULL || (mnames = calloc(h.nmodules + 1, sizeof(*mnames))) == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	n = util_pread_full(fd, head, head_len, (off_t)sizeof(h));
	if (n < 0 || (size_t)n != head_len || checksum(&h, head, head_len) != h.checksum ||
	    !module_names((const char *)head + (l.modnames_off - sizeof(h)), h.modnames_len, h.nmodules, mnames)) {
		rc = n < 0 ? (int)n : -EBADMSG;
		goto out;
	}
	/* Every module with symbols cached still where it was: else the
	 * table is a copy of part of the file (the whole path). */
	for (size_t i = 1; i < h.nmodules; i++) {
		struct kcache_mod_rec r;

		memcpy(&r, head + (l.mods_off - sizeof(h)) + i * sizeof(r), sizeof(r));
		if (r.addr && !module_current(&r, mnames[i], m)) {
			rc = -EAGAIN;
			goto out;
		}
	}
	lay = (struct kallsyms_lazy_layout){
		.nsyms = h.nsyms, .syms_off = l.syms_off, .names_off = l.names_off, .names_len = h.names_len,
		.index = (const uint64_t *)(void *)(head + (l.index_off - sizeof(h))),
		.stride_hash = (const uint64_t *)(void *)(head + (l.shash_off - sizeof(h))),
		.block_hash = (const uint64_t *)(void *)(head + (l.bhash_off - sizeof(h))),
		.modules = mnames, .nmodules = h.nmodules,
	};
	rc = kallsyms_lazy_open(out, fd, &lay);
out:
	free(head);
	free(mnames);
	return rc;
}

int kcache_load(struct kallsyms **out, const char *dir, const struct kcache_key *k,
		const struct kcache_modules *m)
{
	struct stat st;
	void *map;
	int dfd, fd, rc = 0;

	*out = NULL;
	if ((dfd = cachedir_open(dir, false)) < 0)
		return dfd;
	fd = cachedir_open_file(dfd, KCACHE_FILE, KCACHE_MAX_BYTES, &st);
	close(dfd);
	if (fd < 0)
		return fd == -EFBIG ? -EBADMSG : fd;
	/* The file's pages asked for at once, read while the start goes on:
	 * out of the page cache (an idle machine's reclaim takes them within
	 * a minute), each stride or name read lazily was a read from disk the
	 * start waited for: 13-17 ms more CPU a start here. Advice: failing
	 * costs time only. */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
	/* A start reads the header, index and hashes (a few KiB), not the
	 * table: each stride and name is checked as it is read. */
	rc = kcache_open_lazy(out, fd, (size_t)st.st_size, k, m);
	if (rc != -EAGAIN)
		goto out;
	/* Modules moved: the part still valid, checked whole, used where it
	 * is mapped. */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		rc = -errno;
		goto out;
	}
	if ((rc = kcache_decode(out, map, (size_t)st.st_size, k, m)) != 0) {
		munmap(map, (size_t)st.st_size);
	} else {
		(*out)->backing_mapped = true;
		(void)madvise(map, (size_t)st.st_size, MADV_DONTNEED); /* advice: failing costs memory only */
	}
out:
	close(fd);
	return rc;
}

int kcache_store(const struct kallsyms *ks, const char *dir, const struct kcache_key *k,
		 const struct kcache_modules *m)
{
	void *buf;
	size_t len;
	int dfd, rc;

	if ((rc = kcache_encode(ks, k, m, &buf, &len)) != 0)
		return rc;
	if ((dfd = cachedir_open(dir, true)) < 0) {
		free(buf);
		return dfd;
	}
	rc = cachedir_replace(dfd, KCACHE_FILE, buf, len);
	close(dfd);
	free(buf);
	return rc;
}
