/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kallsyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "addrsearch.h"
#include "kallsyms_lazy.h"
#include "util.h"

/* "[name]" as the kernel prints it; MODULE_NAME_LEN is 56 with the brackets
 * well inside this. */
#define MODULE_MAX 64

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int names_put(struct kallsyms *ks, const char *s, size_t len, uint32_t *off)
{
	return util_pool_put(&ks->names, &ks->names_len, &ks->names_cap, 1 << 16, s, len, off);
}

static bool module_is(const struct kallsyms *ks, size_t i, const char *m, size_t len)
{
	const char *have = ks->names + ks->modules[i];

	return strncmp(have, m, len) == 0 && have[len] == '\0';
}

/* Lines of one module come together, so the newest module is nearly always
 * the one asked for and the full search runs about once per module. */
static int module_index(struct kallsyms *ks, const char *m, size_t len, uint16_t *idx)
{
	size_t i;
	uint32_t off;
	int rc;

	for (i = ks->nmodules; i-- > 1;) {
		if (module_is(ks, i, m, len)) {
			*idx = (uint16_t)i;
			return 0;
		}
	}
	if (ks->nmodules == 0)
		ks->nmodules = 1; /* index 0 means "core kernel" */
	if (ks->nmodules > UINT16_MAX)
		return -E2BIG;
	if (ks->nmodules >= ks->modules_cap) {
		size_t cap = ks->modules_cap ? ks->modules_cap * 2 : 64;
		uint32_t *p = reallocarray(ks->modules, cap, sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		ks->modules = p;
		ks->modules_cap = cap;
	}
	if ((rc = names_put(ks, m, len, &off)) != 0)
		return rc;
	ks->modules[ks->nmodules] = off;
	*idx = (uint16_t)ks->nmodules++;
	return 0;
}

/* Padding and CFI stubs sit just before their function and are never where
 * a sample lands; dropping them halves the table on recent kernels. */
static bool ignored_name(const char *name, size_t len)
{
	return (len > 6 && memcmp(name, "__pfx_", 6) == 0) || (len > 6 && memcmp(name, "__cfi_", 6) == 0);
}

/* One line: "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[mod]".
 * Returns 0 whether or not the line was kept; -errno only when out of memory. */
static int add_line(struct kallsyms *ks, const char *p, size_t len, bool *nonzero)
{
	const char *end = p + len, *name, *mod = NULL;
	size_t ndigits = 0, namelen = 0, modlen = 0;
	struct kallsyms_sym *sym;
	uint64_t addr = 0;
	uint16_t midx = 0;
	char type;
	int d, rc;

	while (p < end && (d = hex_digit(*p)) >= 0) {
		if (++ndigits > 16)
			goto garbage;
		addr = addr << 4 | (uint64_t)d;
		p++;
	}
	if (ndigits == 0 || end - p < 3 || p[0] != ' ' || is_space(p[1]) || p[2] != ' ')
		goto garbage;
	type = p[1];
	name = p + 3;
	while (name + namelen < end && !is_space(name[namelen]))
		namelen++;
	if (namelen == 0 || namelen > KALLSYMS_NAME_MAX || memchr(name, '\0', (size_t)(end - name)))
		goto garbage;
	for (p = name + namelen; p < end && is_space(*p); p++)
		;
	if (p < end) {
		mod = p;
		while (p < end && !is_space(*p))
			p++;
		modlen = (size_t)(p - mod);
		while (p < end && is_space(*p))
			p++;
		if (p != end || modlen < 3 || modlen > MODULE_MAX || mod[0] != '[' || mod[modlen - 1] != ']')
			goto garbage;
	}
	ks->lines++;
	if (addr)
		*nonzero = true;
	if ((type != 't' && type != 'T' && type != 'w' && type != 'W') || ignored_name(name, namelen))
		return 0;
	if (mod && (rc = module_index(ks, mod, modlen, &midx)) != 0)
		return rc;
	if (ks->nsyms == ks->syms_cap) {
		size_t cap = ks->syms_cap ? ks->syms_cap * 2 : 4096;
		struct kallsyms_sym *n = reallocarray(ks->syms, cap, sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		ks->syms = n;
		ks->syms_cap = cap;
	}
	sym = &ks->syms[ks->nsyms];
	if ((rc = names_put(ks, name, namelen, &sym->name)) != 0)
		return rc;
	sym->addr = addr;
	sym->module = midx;
	sym->type = (uint8_t)type;
	sym->pad = 0;
	ks->nsyms++;
	return 0;
garbage:
	ks->skipped++;
	return 0;
}

/* Name offsets grow with input order, so ties sort as the text had them. */
static int sym_cmp(const void *a, const void *b)
{
	const struct kallsyms_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Of aliases at one address, the name a user knows: global before weak
 * before local, then the fewest leading underscores. */
static int sym_rank(const struct kallsyms *ks, const struct kallsyms_sym *s)
{
	const char *n = kallsyms_name(ks, s);
	int r = s->type == 'T' ? 0 : s->type == 'W' ? 1 : s->type == 't' ? 2 : 3;

	while (*n == '_' && r < 64)
		n++, r += 4;
	return r;
}

static void finish(struct kallsyms *ks, bool nonzero)
{
	size_t i, j;

	if (ks->lines && !nonzero) {
		ks->restricted = true;
		ks->nsyms = 0;
		return;
	}
	if (ks->nsyms > 1)
		qsort(ks->syms, ks->nsyms, sizeof(*ks->syms), sym_cmp);
	for (i = 0, j = 0; i < ks->nsyms; i++) {
		if (j && ks->syms[j - 1].addr == ks->syms[i].addr) {
			if (sym_rank(ks, &ks->syms[i]) < sym_rank(ks, &ks->syms[j - 1]))
				ks->syms[j - 1] = ks->syms[i];
			continue;
		}
		ks->syms[j++] = ks->syms[i];
	}
	ks->nsyms = j;
	if (ks->nsyms && ks->nsyms < ks->syms_cap) {
		struct kallsyms_sym *n = reallocarray(ks->syms, ks->nsyms, sizeof(*n));

		if (n) {
			ks->syms = n;
			ks->syms_cap = ks->nsyms;
		}
	}
}

int kallsyms_load_buf(struct kallsyms **out, const char *buf, size_t len)
{
	struct kallsyms *ks = calloc(1, sizeof(*ks));
	const char *p = buf, *end = buf + len;
	bool nonzero = false;
	int rc;

	*out = NULL;
	if (ks == NULL)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if ((rc = add_line(ks, p, l, &nonzero)) != 0)
			goto out_free;
		p += l + 1;
	}
	finish(ks, nonzero);
	*out = ks;
	return 0;
out_free:
	kallsyms_free(ks);
	return rc;
}

static bool modules_equal(const char *ma, const char *mb)
{
	return ma && mb ? strcmp(ma, mb) == 0 : ma == mb;
}

/* The symbol of base at exactly addr and its index, or NULL: a lazy base is
 * looked at through p, so that it stays unread. */
static const struct kallsyms_sym *base_at(struct kallsyms_peek *p, const struct kallsyms *base, uint64_t addr,
					  size_t *idx)
{
	const struct kallsyms_sym *b;

	if (base->lazy)
		return kallsyms_peek_at(p, base, addr, idx);
	if ((b = kallsyms_find(base, addr)) == NULL || b->addr != addr)
		return NULL;
	*idx = (size_t)(b - base->syms);
	return b;
}

static const char *base_name(struct kallsyms_peek *p, const struct kallsyms *base, const struct kallsyms_sym *b)
{
	return base->lazy ? kallsyms_peek_name(p, base, b) : kallsyms_name(base, b);
}

/* The symbol add_line just appended, dropped when base has it as it is:
 * its base entry is marked seen. Names are appended, so the last is given
 * back too. Base is looked at through p: a lazy one stays unread. */
static void drop_known(struct kallsyms *ks, const struct kallsyms *base, struct kallsyms_peek *p, uint8_t *seen)
{
	const struct kallsyms_sym *s = &ks->syms[ks->nsyms - 1];
	size_t i;
	const struct kallsyms_sym *b = base_at(p, base, s->addr, &i);
	const char *name;

	if (b == NULL || !modules_equal(kallsyms_module(ks, s), kallsyms_module(base, b)) ||
	    (name = base_name(p, base, b)) == NULL || strcmp(kallsyms_name(ks, s), name) != 0)
		return;
	seen[i / 8] |= (uint8_t)(1u << (i % 8));
	ks->names_len = s->name;
	ks->nsyms--;
}

/* Of what is left, the aliases at an address whose base symbol was seen
 * as it is: that address has not changed (base kept one name for it). */
static void drop_aliases(struct kallsyms *ks, const struct kallsyms *base, struct kallsyms_peek *p,
			 const uint8_t *seen)
{
	size_t j = 0;

	for (size_t i = 0; i < ks->nsyms; i++) {
		size_t k;

		if (base_at(p, base, ks->syms[i].addr, &k) && (seen[k / 8] & (1u << (k % 8))))
			continue;
		ks->syms[j++] = ks->syms[i];
	}
	ks->nsyms = j;
}

/* Line by line: /proc/kallsyms is megabytes of text we need not hold. With
 * a base, what it already has is not kept either (a reload holds only the
 * news, not a second table). */
int kallsyms_load_since(struct kallsyms **out, const char *path, const struct kallsyms *base)
{
	struct kallsyms *ks;
	struct kallsyms_peek *peek = NULL;
	uint8_t *seen = NULL;
	bool nonzero = false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int rc = 0;

	*out = NULL;
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	ks = calloc(1, sizeof(*ks));
	if (ks == NULL ||
	    (base && ((seen = calloc(base->nsyms / 8 + 1, 1)) == NULL || (peek = kallsyms_peek_new()) == NULL))) {
		rc = -ENOMEM;
		goto out_free;
	}
	errno = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		size_t before = ks->nsyms;

		if (line[n - 1] == '\n')
			n--;
		if ((rc = add_line(ks, line, (size_t)n, &nonzero)) != 0)
			goto out_free;
		if (base && ks->nsyms > before)
			drop_known(ks, base, peek, seen);
	}
	if (ferror(f)) {
		rc = errno ? -errno : -EIO;
		goto out_free;
	}
	finish(ks, nonzero);
	if (base)
		drop_aliases(ks, base, peek, seen);
	*out = ks;
	goto out_close;
out_free:
	kallsyms_free(ks);
out_close:
	kallsyms_peek_free(peek);
	free(seen);
	free(line);
	fclose(f);
	return rc;
}

int kallsyms_load(struct kallsyms **out, const char *path)
{
	return kallsyms_load_since(out, path, NULL);
}

static bool in_backing(const struct kallsyms *ks, const void *p)
{
	const char *c = p, *b = ks->backing;

	return b && c >= b && c < b + ks->backing_len;
}

void kallsyms_free(struct kallsyms *ks)
{
	if (ks == NULL)
		return;
	kallsyms_lazy_free(ks);
	if (!in_backing(ks, ks->syms))
		free(ks->syms);
	if (!in_backing(ks, ks->names))
		free(ks->names);
	free(ks->modules);
	free(ks->index);
	if (ks->backing_mapped)
		munmap((void *)(uintptr_t)ks->backing, ks->backing_len);
	free(ks);
}

int kallsyms_index(struct kallsyms *ks)
{
	size_t n = (ks->nsyms + KALLSYMS_INDEX_STRIDE - 1) / KALLSYMS_INDEX_STRIDE;
	uint64_t *idx = NULL;

	if (n && (idx = malloc(n * sizeof(*idx))) == NULL)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		idx[k] = ks->syms[k * KALLSYMS_INDEX_STRIDE].addr;
	free(ks->index);
	ks->index = idx;
	ks->nindex = n;
	return 0;
}

static void index_narrow(const struct kallsyms *ks, uint64_t addr, const struct kallsyms_sym **base, size_t *n)
{
	size_t k = kallsyms_stride_of(ks, addr) * KALLSYMS_INDEX_STRIDE;

	*base = ks->syms + k;
	*n = ks->nsyms - k < KALLSYMS_INDEX_STRIDE ? ks->nsyms - k : KALLSYMS_INDEX_STRIDE;
}

const struct kallsyms_sym *kallsyms_find(const struct kallsyms *ks, uint64_t addr)
{
	const struct kallsyms_sym *base = ks->syms;
	size_t n = ks->nsyms, i;
	uint64_t span;

	if (n == 0 || addr < (ks->lazy ? ks->index[0] : base[0].addr))
		return NULL;
	if (ks->index && ks->nindex == (n + KALLSYMS_INDEX_STRIDE - 1) / KALLSYMS_INDEX_STRIDE)
		index_narrow(ks, addr, &base, &n);
	/* A lazy table always has its index (kallsyms_lazy_open). */
	if (ks->lazy && !kallsyms_lazy_load(ks, (size_t)(base - ks->syms) / KALLSYMS_INDEX_STRIDE))
		return NULL;
	base = addrsearch_floor(base, n, sizeof(*base), addr);
	i = (size_t)(base - ks->syms);
	span = KALLSYMS_TAIL_SPAN;
	if (i + 1 < ks->nsyms) {
		/* The next stride of a lazy table may be unread: its first
		 * address is in the index. */
		uint64_t next = ks->lazy && (i + 1) % KALLSYMS_INDEX_STRIDE == 0 ?
					ks->index[(i + 1) / KALLSYMS_INDEX_STRIDE] : ks->syms[i + 1].addr;

		if (next - base->addr <= KALLSYMS_MAX_SPAN)
			span = next - base->addr;
	}
	return addr - base->addr < span ? base : NULL;
}

uint64_t kallsyms_size(const struct kallsyms *ks, const struct kallsyms_sym *sym)
{
	size_t i = (size_t)(sym - ks->syms);
	uint64_t next;

	if (i + 1 >= ks->nsyms)
		return 0;
	next = ks->lazy && (i + 1) % KALLSYMS_INDEX_STRIDE == 0 ? ks->index[(i + 1) / KALLSYMS_INDEX_STRIDE]
								  : ks->syms[i + 1].addr;
	return next > sym->addr && next - sym->addr <= KALLSYMS_MAX_SPAN ? next - sym->addr : 0;
}

static bool sym_equal(const struct kallsyms *a, const struct kallsyms_sym *x, const struct kallsyms *b,
		      const struct kallsyms_sym *y)
{
	return x->addr == y->addr && strcmp(kallsyms_name(a, x), kallsyms_name(b, y)) == 0 &&
	       modules_equal(kallsyms_module(a, x), kallsyms_module(b, y));
}

bool kallsyms_same(const struct kallsyms *a, const struct kallsyms *b)
{
	if (a->nsyms != b->nsyms)
		return false;
	for (size_t k = 0; k < a->nindex || k < b->nindex; k++)
		if ((a->lazy && !kallsyms_lazy_load(a, k)) || (b->lazy && !kallsyms_lazy_load(b, k)))
			return false;
	for (size_t i = 0; i < a->nsyms; i++)
		if (!sym_equal(a, &a->syms[i], b, &b->syms[i]))
			return false;
	return true;
}

size_t kallsyms_bytes(const struct kallsyms *ks)
{
	if (ks == NULL)
		return 0;
	return sizeof(*ks) + (ks->lazy ? kallsyms_lazy_bytes(ks) : ks->syms_cap * sizeof(*ks->syms)) + ks->names_cap +
	       ks->modules_cap * sizeof(*ks->modules) + ks->nindex * sizeof(*ks->index);
}
