/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_syms: the names of functions a call may go to and how long a
 * function is when nobody said: a file's symbol tables (libelf), the
 * kernel's kallsyms. Read once per file and kept by the cache; small next
 * to the symbols' own tables (names and addresses only). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annot_int.h"
#include "util.h"

struct annot_symfile {
	uint64_t dev, ino;
	struct annot_symtab *tab;
};

/* A table under construction: names appended to one growing block, their
 * offsets kept in name until done. */
struct build {
	struct annot_sym *syms;
	size_t n, cap;
	char *names;
	size_t used, ncap;
};

static int add(struct build *b, uint64_t addr, uint64_t size, const char *name, size_t len)
{
	uint32_t off;

	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct annot_sym *s = reallocarray(b->syms, cap, sizeof(*s));

		if (s == NULL)
			return -ENOMEM;
		b->syms = s;
		b->cap = cap;
	}
	if (util_pool_put(&b->names, &b->used, &b->ncap, 4096, name, len, &off))
		return -ENOMEM;
	b->syms[b->n++] = (struct annot_sym){ addr, size, (const char *)(uintptr_t)off };
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct annot_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Of aliases, the sized one first (the function, not a label). */
	return (x->size < y->size) - (x->size > y->size);
}

static struct annot_symtab *finish(struct build *b)
{
	struct annot_symtab *t = calloc(1, sizeof(*t));
	size_t w = 0;

	if (t == NULL) {
		free(b->syms);
		free(b->names);
		return NULL;
	}
	for (size_t i = 0; i < b->n; i++)
		b->syms[i].name = b->names + (uintptr_t)b->syms[i].name;
	if (b->n) /* a stripped file has none, and b->syms may be NULL */
		qsort(b->syms, b->n, sizeof(*b->syms), sym_cmp);
	for (size_t i = 0; i < b->n; i++)
		if (w == 0 || b->syms[w - 1].addr != b->syms[i].addr)
			b->syms[w++] = b->syms[i];
	t->syms = b->syms;
	t->n = w;
	t->names = b->names;
	return t;
}

void annot_syms_free(struct annot_symtab *t)
{
	if (t == NULL)
		return;
	free(t->syms);
	free(t->names);
	free(t);
}

struct annot_symtab *annot_syms_elf(int fd)
{
	struct build b = { 0 };
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_version(EV_CURRENT) == EV_NONE || (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		Elf_Data *d;
		GElf_Sym s;

		if (gelf_getshdr(scn, &sh) == NULL || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (size_t i = 0; i < d->d_size / sh.sh_entsize; i++) {
			const char *name;

			if (gelf_getsym(d, (int)i, &s) == NULL || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || s.st_value == 0 ||
			    (name = elf_strptr(e, sh.sh_link, s.st_name)) == NULL || !*name)
				continue;
			if (add(&b, s.st_value, s.st_size, name, strlen(name))) {
				elf_end(e);
				free(b.syms);
				free(b.names);
				return NULL;
			}
		}
	}
	elf_end(e);
	return finish(&b);
}

uint64_t annot_syms_elf_value(int fd, const char *name)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t v = 0;

	if (elf_version(EV_CURRENT) == EV_NONE || (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return 0;
	while (v == 0 && (scn = elf_nextscn(e, scn)) != NULL) {
		Elf_Data *d;
		GElf_Sym s;
		const char *n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0 ||
		    (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (size_t i = 0; i < d->d_size / sh.sh_entsize && v == 0; i++)
			if (gelf_getsym(d, (int)i, &s) && (n = elf_strptr(e, sh.sh_link, s.st_name)) && strcmp(n, name) == 0)
				v = s.st_value;
	}
	elf_end(e);
	return v;
}

/* "ffffffff81000000 T _text\n", "... t foo\t[mod]\n": text symbols only. */
struct annot_symtab *annot_syms_kallsyms(const char *path)
{
	struct build b = { 0 };
	FILE *f = fopen(path, "re");
	char line[1024];

	if (f == NULL)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *end, *name;
		uint64_t a = strtoull(line, &end, 16);
		size_t len;

		if (end == line || end[0] != ' ' || !strchr("tTwW", end[1]) || end[1] == '\0' || end[2] != ' ' || a == 0)
			continue;
		name = end + 3;
		len = strcspn(name, "\t\n");
		if (len == 0 || add(&b, a, 0, name, len) == 0)
			continue;
		fclose(f);
		free(b.syms);
		free(b.names);
		return NULL;
	}
	fclose(f);
	return finish(&b);
}

const struct annot_sym *annot_syms_find(const struct annot_symtab *t, uint64_t addr)
{
	size_t i;

	if (t == NULL || t->n == 0)
		return NULL;
	i = util_upper_bound(t->syms, t->n, sizeof(*t->syms), offsetof(struct annot_sym, addr), addr);
	if (i == 0)
		return NULL;
	/* Past a sized symbol's end: in no function we know. */
	if (t->syms[i - 1].size && addr - t->syms[i - 1].addr >= t->syms[i - 1].size)
		return NULL;
	return &t->syms[i - 1];
}

const struct annot_sym *annot_syms_named(const struct annot_symtab *t, const char *name)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (strcmp(t->syms[i].name, name) == 0)
			return &t->syms[i];
	return NULL;
}

uint64_t annot_syms_len(const struct annot_symtab *t, uint64_t addr)
{
	const struct annot_sym *s = annot_syms_find(t, addr);

	if (s == NULL || s->addr != addr)
		return 0;
	if (s->size)
		return s->size;
	return s + 1 < t->syms + t->n ? s[1].addr - addr : 0;
}

const struct annot_symtab *annot_syms_of_file(struct annot_cache *c, const char *path)
{
	struct annot_symfile *sf;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t key;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	key = htab_mix64((uint64_t)st.st_dev * 0x9e3779b97f4a7c15ULL ^ st.st_ino);
	for (size_t i = htab_first(&c->symtabs, key); i != SIZE_MAX; i = htab_next(&c->symtabs, key, i)) {
		sf = (struct annot_symfile *)c->symtabs.tab[i].val;
		if (sf->dev == st.st_dev && sf->ino == st.st_ino) {
			close(fd);
			return sf->tab;
		}
	}
	if ((sf = calloc(1, sizeof(*sf))) == NULL || htab_put(&c->symtabs, key, (uintptr_t)sf)) {
		free(sf);
		close(fd);
		return NULL;
	}
	sf->dev = st.st_dev;
	sf->ino = st.st_ino;
	sf->tab = annot_syms_elf(fd);
	close(fd);
	return sf->tab;
}

const struct annot_symtab *annot_syms_kernel(struct annot_cache *c)
{
	if (!c->ksyms_tried) {
		c->ksyms_tried = true;
		c->ksyms = annot_syms_kallsyms(c->kallsyms);
	}
	return c->ksyms;
}

void annot_syms_drop(struct annot_cache *c)
{
	for (size_t i = 0; c->symtabs.tab && i <= c->symtabs.mask; i++) {
		struct annot_symfile *sf = (struct annot_symfile *)c->symtabs.tab[i].val;

		if (sf) {
			annot_syms_free(sf->tab);
			free(sf);
		}
	}
	htab_free(&c->symtabs);
	annot_syms_free(c->ksyms);
	c->ksyms = NULL;
}
