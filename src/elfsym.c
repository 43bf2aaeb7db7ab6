#include "elfsym.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

static bool libelf_ready(void)
{
	static int state; /* 0 unknown, 1 ok, -1 failed */

	if (state == 0)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

static int cmp_esym(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	/* Prefer the sized one of aliases so it survives de-duplication. */
	return (x->size < y->size) - (x->size > y->size);
}

static int load_segments(struct elfsym *t, Elf *e)
{
	size_t phnum;

	if (elf_getphdrnum(e, &phnum) != 0)
		return -ENOEXEC;
	for (size_t i = 0; i < phnum && t->nsegs < ELFSYM_MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		t->segs[t->nsegs++] = (struct eseg){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	return 0;
}

static Elf_Scn *find_symtab(Elf *e, Elf64_Word type)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

static int load_symbols(struct elfsym *t, Elf *e, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t count, cap = 0, scap = 0;

	if (gelf_getshdr(scn, &sh) == NULL || sh.sh_entsize == 0)
		return 0;
	data = elf_getdata(scn, NULL);
	if (data == NULL || data->d_size < sh.sh_entsize)
		return 0;
	/* Trust the data libelf gave us, not the header's size. */
	count = data->d_size / sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		size_t len;
		int type;

		if (gelf_getsym(data, (int)i, &sym) == NULL)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (name == NULL || *name == '\0')
			continue;
		len = strnlen(name, 4096);
		if (t->n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct esym *n = reallocarray(t->syms, ncap, sizeof(*n));

			if (n == NULL)
				return -ENOMEM;
			t->syms = n;
			cap = ncap;
		}
		if (t->strings_len + len + 1 > scap) {
			size_t ncap = scap ? scap * 2 : 4096;
			char *p;

			while (ncap < t->strings_len + len + 1)
				ncap *= 2;
			if (ncap > UINT32_MAX)
				return -E2BIG;
			p = realloc(t->strings, ncap);
			if (p == NULL)
				return -ENOMEM;
			t->strings = p;
			scap = ncap;
		}
		memcpy(t->strings + t->strings_len, name, len);
		t->strings[t->strings_len + len] = '\0';
		t->syms[t->n++] = (struct esym){ sym.st_value, sym.st_size, (uint32_t)t->strings_len };
		t->strings_len += len + 1;
	}
	return 0;
}

/* Sorts, drops duplicate addresses, and gives size-less symbols the room up
 * to the next one (hand-written assembly often has st_size 0). */
static void finish(struct elfsym *t)
{
	size_t j = 0;

	if (t->n > 1)
		qsort(t->syms, t->n, sizeof(*t->syms), cmp_esym);
	for (size_t i = 0; i < t->n; i++)
		if (j == 0 || t->syms[i].addr != t->syms[j - 1].addr)
			t->syms[j++] = t->syms[i];
	t->n = j;
	for (size_t i = 0; i < t->n; i++)
		if (t->syms[i].size == 0)
			t->syms[i].size = i + 1 < t->n ? t->syms[i + 1].addr - t->syms[i].addr : 4096;
}

static int load(struct elfsym *t, Elf *e)
{
	Elf_Scn *scn;
	int rc;

	if (e == NULL)
		return -ENOEXEC;
	if (elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return -ENOEXEC;
	}
	rc = load_segments(t, e);
	if (rc == 0) {
		scn = find_symtab(e, SHT_SYMTAB);
		if (scn == NULL) {
			scn = find_symtab(e, SHT_DYNSYM);
			t->from_dynsym = true;
		}
		if (scn)
			rc = load_symbols(t, e, scn);
	}
	elf_end(e);
	if (rc) {
		elfsym_free(t);
		return rc;
	}
	finish(t);
	return 0;
}

int elfsym_load_fd(struct elfsym *t, int fd)
{
	memset(t, 0, sizeof(*t));
	if (!libelf_ready())
		return -ENOSYS;
	return load(t, elf_begin(fd, ELF_C_READ_MMAP, NULL));
}

int elfsym_load_mem(struct elfsym *t, const void *buf, size_t len)
{
	memset(t, 0, sizeof(*t));
	if (!libelf_ready())
		return -ENOSYS;
	/* libelf wants a writable image for ELF_C_READ_MMAP-like access. */
	return load(t, elf_memory((char *)(uintptr_t)buf, len));
}

void elfsym_free(struct elfsym *t)
{
	free(t->syms);
	free(t->strings);
	memset(t, 0, sizeof(*t));
}

bool elfsym_offset_to_vaddr(const struct elfsym *t, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct eseg *s = &t->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

const struct esym *elfsym_find(const struct elfsym *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->n;

	if (t->n == 0 || vaddr < t->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return vaddr - t->syms[lo].addr < t->syms[lo].size ? &t->syms[lo] : NULL;
}

size_t elfsym_bytes(const struct elfsym *t)
{
	return t->n * sizeof(*t->syms) + t->strings_len + sizeof(*t);
}
