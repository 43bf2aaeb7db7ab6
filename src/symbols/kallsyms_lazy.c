/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A kallsyms table read from its cache file as lookups reach it, each
 * stride of records and block of names checked against its hash as it is
 * read: a start reads the file's index and hashes, not the whole file.
 *
 * Mapped whole, the cached table (2.3 MiB here) was resident whole: the
 * page cache holds the file in large folios, and one fault maps a whole
 * folio. Read by stride and by name, only what samples touched is: a few
 * strides and a few hundred names. */
#include "kallsyms_lazy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "htab.h"
#include "util.h"

#define STRIDE KALLSYMS_INDEX_STRIDE
#define CHUNK_BYTES 16384

static const char UNREADABLE[] = "[unknown]";

struct chunk {
	struct chunk *next;
	size_t used;
	char data[CHUNK_BYTES];
};

struct kallsyms_lazy {
	int fd;
	uint64_t syms_off, names_off;
	size_t names_len; /* the file's arena, every name's offset below it */
	uint64_t *stride_hash, *block_hash; /* what each stride and names block must hash to */
	size_t nblocks;
	size_t area_len;  /* of ks->syms, an anonymous mapping */
	uint8_t *loaded, *bad; /* by stride */
	size_t nloaded;
	struct htab names_read; /* arena offset -> its name, interned */
	struct chunk *chunks;
	size_t chunk_count;
	bool no_nowait;     /* the file system cannot say what is cached */
	uint64_t asked_ns;  /* the last whole-file read-ahead */
	unsigned long missed, asked; /* reads that would wait; read-aheads asked */
};

struct kallsyms_peek {
	size_t stride;
	bool have, valid;
	struct kallsyms_sym buf[STRIDE];
	char name[KALLSYMS_NAME_MAX + 1];
};

static bool bit(const uint8_t *m, size_t i)
{
	return m[i / 8] & (1u << (i % 8));
}

static void set_bit(uint8_t *m, size_t i)
{
	m[i / 8] |= (uint8_t)(1u << (i % 8));
}

static size_t stride_count(const struct kallsyms *ks, size_t k)
{
	size_t first = k * STRIDE;

	return ks->nsyms - first < STRIDE ? ks->nsyms - first : STRIDE;
}

#define ASK_AGAIN_NS 1000000000ull

/* The file's bytes at off. Out of the page cache (an idle machine's
 * reclaim takes its cold pages within a minute), each new name or stride
 * was a read from disk of its own, ~10 a tick beside perf top, each a
 * VM exit to kick the disk: the first read that finds its pages gone asks
 * for the whole file instead (at most once a second), one big read. */
static ssize_t read_at(struct kallsyms_lazy *l, void *buf, size_t len, off_t off)
{
	struct iovec iov = { buf, len };
	struct timespec ts;
	ssize_t n;
	uint64_t now;

	if (!l->no_nowait) {
		if ((n = preadv2(l->fd, &iov, 1, off, RWF_NOWAIT)) == (ssize_t)len)
			return n;
		if (n < 0 && errno != EAGAIN) {
			l->no_nowait = true;
		} else if (l->missed++, clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0 &&
			   ((now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) - l->asked_ns >= ASK_AGAIN_NS ||
			    l->asked_ns == 0)) {
			l->asked_ns = now;
			l->asked++;
			(void)posix_fadvise(l->fd, 0, 0, POSIX_FADV_WILLNEED); /* advice: failing costs time only */
		}
	}
	return util_pread_full(l->fd, buf, len, off);
}

/* Stride k's records, read into recs: whole (their hash), what a parse
 * guarantees, and where the index says they start and end. */
static bool read_stride(const struct kallsyms *ks, size_t k, struct kallsyms_sym *recs)
{
	struct kallsyms_lazy *l = ks->lazy;
	size_t n = stride_count(ks, k), bytes = n * sizeof(*recs);

	if (read_at(l, recs, bytes, (off_t)(l->syms_off + (uint64_t)k * STRIDE * sizeof(*recs))) != (ssize_t)bytes ||
	    util_hash64(recs, bytes, 0) != l->stride_hash[k])
		return false;
	for (size_t j = 0; j < n; j++) {
		const struct kallsyms_sym *s = &recs[j];

		if ((j ? s->addr <= recs[j - 1].addr : s->addr != ks->index[k]) || s->name >= l->names_len ||
		    (s->module && s->module >= ks->nmodules) || s->pad ||
		    (s->type != 't' && s->type != 'T' && s->type != 'w' && s->type != 'W'))
			return false;
	}
	return k + 1 >= ks->nindex || recs[n - 1].addr < ks->index[k + 1];
}

bool kallsyms_lazy_load(const struct kallsyms *ks, size_t k)
{
	struct kallsyms_lazy *l = ks->lazy;

	if (bit(l->loaded, k))
		return true;
	if (bit(l->bad, k))
		return false;
	if (!read_stride(ks, k, ks->syms + k * STRIDE)) {
		memset(ks->syms + k * STRIDE, 0, stride_count(ks, k) * sizeof(*ks->syms));
		set_bit(l->bad, k);
		return false;
	}
	set_bit(l->loaded, k);
	l->nloaded++;
	return true;
}

static const char *intern(struct kallsyms_lazy *l, const char *s, size_t len)
{
	struct chunk *c = l->chunks;
	char *p;

	if (c == NULL || CHUNK_BYTES - c->used < len + 1) {
		if ((c = malloc(sizeof(*c))) == NULL)
			return NULL;
		c->next = l->chunks;
		c->used = 0;
		l->chunks = c;
		l->chunk_count++;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

/* The name at off read into buf (KALLSYMS_NAME_MAX + 1 bytes): its length,
 * or 0 when the file cannot give it. The names blocks it spans are read
 * whole and checked against their hashes. */
static size_t read_name(struct kallsyms_lazy *l, uint32_t off, char *buf)
{
	char blocks[2 * KALLSYMS_NAMES_BLOCK];
	size_t want = l->names_len - off < KALLSYMS_NAME_MAX + 1 ? l->names_len - off : KALLSYMS_NAME_MAX + 1;
	size_t b0 = off / KALLSYMS_NAMES_BLOCK, b1 = (off + want - 1) / KALLSYMS_NAMES_BLOCK, n, at = 0;
	const char *nul;

	_Static_assert(KALLSYMS_NAME_MAX + 1 <= KALLSYMS_NAMES_BLOCK, "a name spans two blocks at most");
	if (off >= l->names_len || b1 >= l->nblocks)
		return 0;
	for (size_t b = b0; b <= b1; b++) {
		size_t len = l->names_len - b * KALLSYMS_NAMES_BLOCK < KALLSYMS_NAMES_BLOCK ?
				     l->names_len - b * KALLSYMS_NAMES_BLOCK : KALLSYMS_NAMES_BLOCK;

		if (read_at(l, blocks + at, len, (off_t)(l->names_off + b * KALLSYMS_NAMES_BLOCK)) !=
			    (ssize_t)len ||
		    util_hash64(blocks + at, len, 0) != l->block_hash[b])
			return 0;
		at += len;
	}
	n = want;
	memcpy(buf, blocks + (off - b0 * KALLSYMS_NAMES_BLOCK), n);
	nul = memchr(buf, '\0', n);
	n = nul ? (size_t)(nul - buf) : n > KALLSYMS_NAME_MAX ? KALLSYMS_NAME_MAX : n;
	buf[n] = '\0';
	return n;
}

const char *kallsyms_lazy_name(const struct kallsyms *ks, const struct kallsyms_sym *sym)
{
	struct kallsyms_lazy *l = ks->lazy;
	char buf[KALLSYMS_NAME_MAX + 1];
	const char *s = (const char *)htab_get(&l->names_read, sym->name);
	size_t len;

	if (s)
		return s;
	if ((len = read_name(l, sym->name, buf)) == 0)
		return UNREADABLE;
	/* Out of memory: named as unknown, not crashed. */
	if ((s = intern(l, buf, len)) == NULL || htab_put(&l->names_read, sym->name, (uintptr_t)s))
		return UNREADABLE;
	return s;
}

int kallsyms_lazy_open(struct kallsyms **out, int fd, const struct kallsyms_lazy_layout *lay)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), nindex = (lay->nsyms + STRIDE - 1) / STRIDE, bitmap;
	struct kallsyms *ks;
	struct kallsyms_lazy *l;
	void *area;
	int rc = -ENOMEM;

	*out = NULL;
	if (lay->nsyms == 0 || lay->names_len == 0 || lay->nmodules > UINT16_MAX + 1u)
		return -EINVAL;
	for (size_t k = 1; k < nindex; k++)
		if (lay->index[k] <= lay->index[k - 1])
			return -EBADMSG;
	bitmap = nindex / 8 + 1;
	if ((ks = calloc(1, sizeof(*ks))) == NULL)
		return -ENOMEM;
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		free(ks);
		return -ENOMEM;
	}
	l->fd = -1;
	ks->lazy = l;
	ks->nsyms = ks->syms_cap = ks->lines = lay->nsyms;
	l->nblocks = (lay->names_len + KALLSYMS_NAMES_BLOCK - 1) / KALLSYMS_NAMES_BLOCK;
	l->area_len = (lay->nsyms * sizeof(*ks->syms) + page - 1) / page * page;
	if ((ks->index = malloc(nindex * sizeof(*ks->index))) == NULL ||
	    (l->stride_hash = malloc(nindex * sizeof(*l->stride_hash))) == NULL ||
	    (l->block_hash = malloc(l->nblocks * sizeof(*l->block_hash))) == NULL ||
	    (l->loaded = calloc(bitmap, 1)) == NULL || (l->bad = calloc(bitmap, 1)) == NULL ||
	    (lay->nmodules && (ks->modules = calloc(lay->nmodules, sizeof(*ks->modules))) == NULL))
		goto fail;
	memcpy(ks->index, lay->index, nindex * sizeof(*ks->index));
	ks->nindex = nindex;
	memcpy(l->stride_hash, lay->stride_hash, nindex * sizeof(*l->stride_hash));
	memcpy(l->block_hash, lay->block_hash, l->nblocks * sizeof(*l->block_hash));
	/* The module names stay in memory: a few, and kallsyms_module reads
	 * them where it always does. */
	ks->nmodules = ks->modules_cap = lay->nmodules;
	for (size_t i = 1; i < lay->nmodules; i++)
		if ((rc = util_pool_put(&ks->names, &ks->names_len, &ks->names_cap, 1024, lay->modules[i],
					strlen(lay->modules[i]), &ks->modules[i])) != 0)
			goto fail;
	rc = -ENOMEM;
	if ((l->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		rc = -errno;
		goto fail;
	}
	area = mmap(NULL, l->area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		rc = -errno;
		goto fail;
	}
	ks->syms = area;
	l->syms_off = lay->syms_off;
	l->names_off = lay->names_off;
	l->names_len = lay->names_len;
	*out = ks;
	return 0;
fail:
	kallsyms_lazy_free(ks);
	free(ks->names);
	free(ks->modules);
	free(ks->index);
	free(ks);
	return rc;
}

void kallsyms_lazy_free(struct kallsyms *ks)
{
	struct kallsyms_lazy *l = ks->lazy;

	if (l == NULL)
		return;
	if (ks->syms)
		munmap(ks->syms, l->area_len);
	ks->syms = NULL;
	if (l->fd >= 0)
		close(l->fd);
	free(l->stride_hash);
	free(l->block_hash);
	while (l->chunks) {
		struct chunk *c = l->chunks;

		l->chunks = c->next;
		free(c);
	}
	htab_free(&l->names_read);
	free(l->loaded);
	free(l->bad);
	free(l);
	ks->lazy = NULL;
}

void kallsyms_lazy_reads(const struct kallsyms *ks, unsigned long *missed, unsigned long *asked)
{
	*missed = ks->lazy ? ks->lazy->missed : 0;
	*asked = ks->lazy ? ks->lazy->asked : 0;
}

size_t kallsyms_lazy_bytes(const struct kallsyms *ks)
{
	const struct kallsyms_lazy *l = ks->lazy;

	return sizeof(*l) + 2 * (ks->nindex / 8 + 1) + l->nloaded * STRIDE * sizeof(*ks->syms) +
	       (ks->nindex + l->nblocks) * sizeof(uint64_t) +
	       (l->names_read.tab ? l->names_read.mask + 1 : 0) * sizeof(struct htab_slot) + l->chunk_count * sizeof(struct chunk);
}

struct kallsyms_peek *kallsyms_peek_new(void)
{
	return calloc(1, sizeof(struct kallsyms_peek));
}

void kallsyms_peek_free(struct kallsyms_peek *p)
{
	free(p);
}

const struct kallsyms_sym *kallsyms_peek_at(struct kallsyms_peek *p, const struct kallsyms *ks, uint64_t addr,
					    size_t *idx)
{
	const struct kallsyms_sym *recs;
	size_t lo, n;

	if (ks->nsyms == 0 || addr < ks->index[0])
		return NULL;
	lo = kallsyms_stride_of(ks, addr);
	if (bit(ks->lazy->loaded, lo)) {
		recs = ks->syms + lo * STRIDE;
	} else {
		if (!p->have || p->stride != lo) {
			p->have = true;
			p->stride = lo;
			p->valid = read_stride(ks, lo, p->buf);
		}
		if (!p->valid)
			return NULL;
		recs = p->buf;
	}
	n = stride_count(ks, lo);
	for (size_t a = 0, b = n; a < b;) {
		size_t m = a + (b - a) / 2;

		if (recs[m].addr == addr) {
			*idx = lo * STRIDE + m;
			return &recs[m];
		}
		if (recs[m].addr < addr)
			a = m + 1;
		else
			b = m;
	}
	return NULL;
}

const char *kallsyms_peek_name(struct kallsyms_peek *p, const struct kallsyms *ks, const struct kallsyms_sym *s)
{
	struct kallsyms_lazy *l = ks->lazy;

	const char *name = (const char *)htab_get(&l->names_read, s->name);

	if (name)
		return name;
	return read_name(l, s->name, p->name) ? p->name : NULL;
}
