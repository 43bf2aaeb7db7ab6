#include "kallsyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A symbol covers up to the next one; past this much we say "not found"
 * rather than blame a far-away symbol. */
#define MAX_SYMBOL_SPAN (1u << 20)
#define LAST_SYMBOL_SPAN 4096

struct builder {
	struct kallsyms *k;
	size_t cap, scap;
	bool any_nonzero;
};

static int put_string(struct builder *b, const char *s, size_t len, uint32_t *off)
{
	struct kallsyms *k = b->k;

	if (k->strings_len + len + 1 > UINT32_MAX)
		return -E2BIG;
	if (k->strings_len + len + 1 > b->scap) {
		size_t ncap = b->scap ? b->scap * 2 : 1 << 16;
		char *p;

		while (ncap < k->strings_len + len + 1)
			ncap *= 2;
		p = realloc(k->strings, ncap);
		if (p == NULL)
			return -ENOMEM;
		k->strings = p;
		b->scap = ncap;
	}
	memcpy(k->strings + k->strings_len, s, len);
	k->strings[k->strings_len + len] = '\0';
	*off = (uint32_t)k->strings_len;
	k->strings_len += len + 1;
	return 0;
}

/* One line: "ffffffff81000000 T _stext" or "... t foo\t[mod]". */
static int add_line(struct builder *b, const char *line, size_t len)
{
	const char *p = line, *end = line + len, *name, *mod = NULL;
	size_t namelen, modlen = 0;
	uint64_t addr = 0;
	struct ksym *s;
	char type;
	int rc;

	while (p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'))) {
		if (addr >> 60)
			return 0; /* more than 16 hex digits: not a line we understand */
		addr = addr << 4 | (uint64_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
		p++;
	}
	if (p == line || p + 3 > end || p[0] != ' ' || p[2] != ' ')
		return 0;
	type = p[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	name = p + 3;
	namelen = 0;
	while (name + namelen < end && name[namelen] != '\t' && name[namelen] != ' ')
		namelen++;
	if (namelen == 0)
		return 0;
	if (name + namelen < end) {
		mod = name + namelen;
		while (mod < end && (*mod == '\t' || *mod == ' '))
			mod++;
		modlen = (size_t)(end - mod);
		if (modlen < 3 || mod[0] != '[' || mod[modlen - 1] != ']')
			mod = NULL;
	}
	if (b->k->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 4096;
		struct ksym *n = reallocarray(b->k->syms, ncap, sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		b->k->syms = n;
		b->cap = ncap;
	}
	s = &b->k->syms[b->k->n];
	s->addr = addr;
	s->module = 0;
	if ((rc = put_string(b, name, namelen, &s->name)) != 0)
		return rc;
	if (mod && (rc = put_string(b, mod, modlen, &s->module)) != 0)
		return rc;
	if (addr)
		b->any_nonzero = true;
	b->k->n++;
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

int kallsyms_load_buf(struct kallsyms *k, const char *buf, size_t len)
{
	struct builder b = { .k = k };
	const char *p = buf, *end = buf + len;
	uint32_t empty;
	int rc;

	memset(k, 0, sizeof(*k));
	if ((rc = put_string(&b, "", 0, &empty)) != 0)
		return rc;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if ((rc = add_line(&b, p, l)) != 0) {
			kallsyms_free(k);
			return rc;
		}
		p += l + 1;
	}
	if (k->n && !b.any_nonzero) {
		k->restricted = true;
		k->n = 0;
	}
	if (k->n > 1)
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	return 0;
}

int kallsyms_load_path(struct kallsyms *k, const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	memset(k, 0, sizeof(*k));
	if (f == NULL)
		return -errno;
	/* /proc files report size 0: read until EOF. */
	for (;;) {
		if (cap - len < 65536) {
			char *p = realloc(buf, cap ? cap * 2 : 1 << 20);

			if (p == NULL) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = p;
			cap = cap ? cap * 2 : 1 << 20;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc == 0)
		rc = kallsyms_load_buf(k, buf, len);
	free(buf);
	return rc;
}

void kallsyms_free(struct kallsyms *k)
{
	free(k->syms);
	free(k->strings);
	memset(k, 0, sizeof(*k));
}

const struct ksym *kallsyms_find(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (k->n == 0 || addr < k->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* Aliases share an address: report the first name of the run. */
	while (lo > 0 && k->syms[lo - 1].addr == k->syms[lo].addr)
		lo--;
	{
		size_t next = lo + 1;

		while (next < k->n && k->syms[next].addr == k->syms[lo].addr)
			next++;
		if (next == k->n)
			return addr - k->syms[lo].addr < LAST_SYMBOL_SPAN ? &k->syms[lo] : NULL;
		if (k->syms[next].addr - k->syms[lo].addr > MAX_SYMBOL_SPAN)
			return addr - k->syms[lo].addr < LAST_SYMBOL_SPAN ? &k->syms[lo] : NULL;
	}
	return &k->syms[lo];
}
