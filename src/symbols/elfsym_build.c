/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsym_build: a table's symbols from what an ELF file says. */
#include "elfsym_build.h"

#include <errno.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsec.h"
#include "elfsym.h"
#include "util.h"

/* Longer C++ names exist, but a name this long is a lying string table. */
#define NAME_MAX_LEN 65536

/* Rank of the function starts taken from .eh_frame_hdr: below every symbol. */
#define RANK_SYNTH UINT32_MAX
/* Untyped labels in code (ld.so's _start, hand-written assembly) rank from
 * here, below every function's alias (sym_rank is at most ~70). */
#define RANK_LABEL 128u

/* A symbol while loading: its binding decides between aliases. */
struct elfsym_build_sym {
	uint64_t addr, size;
	uint32_t name;
	uint32_t rank;
};

static int names_put(struct elfsym_build *b, const char *s, size_t len, uint32_t *off)
{
	return util_pool_put(&b->t->names, &b->t->names_len, &b->names_cap, 4096, s, len, off);
}

/* Room for more symbols and name bytes at once, from the section sizes:
 * grown by doubling, a table's arrays were copied a dozen times over,
 * each new block faulting in afresh. */
static int reserve(struct elfsym_build *b, size_t nsyms, size_t name_bytes)
{
	if (nsyms > SIZE_MAX / sizeof(*b->raw) - b->nraw)
		return -ENOMEM;
	if (b->nraw + nsyms > b->raw_cap) {
		size_t cap = b->nraw + nsyms;
		struct elfsym_build_sym *n = reallocarray(b->raw, cap, sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		b->raw = n;
		b->raw_cap = cap;
	}
	if (name_bytes <= UINT32_MAX - b->t->names_len && b->t->names_len + name_bytes > b->names_cap) {
		char *n = realloc(b->t->names, b->t->names_len + name_bytes);

		if (n == NULL)
			return -ENOMEM;
		b->t->names = n;
		b->names_cap = b->t->names_len + name_bytes;
	}
	return 0;
}

static int raw_push(struct elfsym_build *b, uint64_t addr, uint64_t size, uint32_t rank,
		    const char *name, size_t len)
{
	if (b->nraw == b->raw_cap) {
		size_t cap = b->raw_cap ? b->raw_cap * 2 : 256;
		struct elfsym_build_sym *n = reallocarray(b->raw, cap, sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		b->raw = n;
		b->raw_cap = cap;
	}
	b->raw[b->nraw].addr = addr;
	b->raw[b->nraw].size = size;
	b->raw[b->nraw].rank = rank;
	if (names_put(b, name, len, &b->raw[b->nraw].name) != 0)
		return -ENOMEM;
	b->nraw++;
	return 0;
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Function starts from .eh_frame_hdr's binary search table, in the layout
 * every GNU toolchain writes (little-endian, datarel sdata4 entries);
 * anything else is left alone. */
int elfsym_build_eh_frame(struct elfsym_build *b, Elf *e, const GElf_Ehdr *eh, uint64_t fsize,
			 const char *label)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elfsec_find(e, ".eh_frame_hdr", fsize, &sh);
	const unsigned char *p;
	Elf_Data *d;
	size_t off = 4, n, ptr_len;
	char name[512];
	int rc;

	if (scn == NULL || eh->e_ident[EI_DATA] != ELFDATA2LSB || (d = elf_rawdata(scn, NULL)) == NULL ||
	    d->d_buf == NULL || d->d_size < 12)
		return 0;
	p = d->d_buf;
	ptr_len = (p[1] & 0x0f) == 0x03 || (p[1] & 0x0f) == 0x0b ? 4 : (p[1] & 0x0f) == 0x04 ? 8 : 0;
	if (p[0] != 1 || ptr_len == 0 || ((p[2] & 0x0f) != 0x03 && (p[2] & 0x0f) != 0x0b) || p[3] != 0x3b ||
	    d->d_size < off + ptr_len + 4)
		return 0;
	off += ptr_len;
	n = get_u32(p + off);
	off += 4;
	if (n > (d->d_size - off) / 8)
		n = (d->d_size - off) / 8; /* a count the section cannot hold */
	if ((rc = reserve(b, n, n * (strlen(label) + 20))) != 0)
		return rc;
	for (size_t i = 0; i < n; i++, off += 8) {
		uint64_t addr = sh.sh_addr + (uint64_t)(int64_t)(int32_t)get_u32(p + off);
		int len = snprintf(name, sizeof(name), "%s+0x%" PRIx64, label, addr);

		if (addr == 0 || len <= 0 || (size_t)len >= sizeof(name))
			continue;
		if ((rc = raw_push(b, addr, 0, RANK_SYNTH, name, (size_t)len)) != 0)
			return rc;
	}
	return 0;
}

/* Lower is better among aliases: global, weak, local; then a name without
 * leading underscores (malloc over __libc_malloc). */
static uint32_t sym_rank(const GElf_Sym *sym, const char *name)
{
	int bind = GELF_ST_BIND(sym->st_info);
	uint32_t r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;

	while (*name == '_' && r < 64)
		name++, r += 4;
	return r;
}

/* ARM's and AArch64's mapping symbols ($a, $d, $t, $x, "$x.42") mark
 * what kind of bytes follow, not where a function starts. */
static bool mapping_symbol(const char *name)
{
	return name[0] == '$' && name[1] && strchr("adtx", name[1]) && (name[2] == '\0' || name[2] == '.');
}

/* The rank of a symbol that names code, else UINT32_MAX - 1 (not kept):
 * a function, or as perf has it a label without a type (STT_NOTYPE) in a
 * section of code, which the assembler writes for a label no .type
 * directive names (ld.so's _start and _dl_start_user). */
#define NOT_CODE (UINT32_MAX - 1)

static uint32_t code_rank(Elf *e, const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return sym_rank(sym, name);
	if (type == STT_NOTYPE && !mapping_symbol(name) && elfsec_is_code(e, sym->st_shndx))
		return RANK_LABEL + sym_rank(sym, name);
	return NOT_CODE;
}

int elfsym_build_symbols(struct elfsym_build *b, Elf *e, Elf_Scn *scn, size_t strndx)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT), count, i;
	Elf_Scn *str = elf_getscn(e, strndx);
	GElf_Shdr ssh;
	int rc;

	if (data == NULL || data->d_buf == NULL || entsize == 0)
		return 0;
	count = data->d_size / entsize;
	/* At most every entry and the whole string table (elfsec_symtab checked
	 * that it lies in the file). */
	if ((rc = reserve(b, count, str && gelf_getshdr(str, &ssh) ? ssh.sh_size : 0)) != 0)
		return rc;
	for (i = 0; i < count && i <= INT32_MAX; i++) {
		GElf_Sym sym;
		const char *name;
		size_t len;
		uint32_t rank;
		int type;

		if (gelf_getsym(data, (int)i, &sym) == NULL)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0)
			continue;
		name = elf_strptr(e, strndx, sym.st_name);
		if (name == NULL || *name == '\0')
			continue;
		len = strnlen(name, NAME_MAX_LEN);
		if (len == NAME_MAX_LEN || (rank = code_rank(e, &sym, name)) == NOT_CODE)
			continue;
		if ((rc = raw_push(b, sym.st_value, sym.st_size, rank, name, len)) != 0)
			return rc;
	}
	return 0;
}

static int raw_cmp(const void *a, const void *b)
{
	const struct elfsym_build_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

bool elfsym_build_qsort;

static unsigned bits_for(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

/* raw_cmp's order, by an LSD radix sort of one 64-bit key per symbol:
 * address (less the lowest), rank, then the push order, which is the
 * names' order (the arena only grows). glibc's qsort (a merge sort with
 * a copy back at every level, through a comparison callback) was a third
 * of a table's load. false, nothing done: a small table (its passes over
 * the buckets cost more than qsort), keys too wide, or no memory. */
static bool sort_radix(struct elfsym_build *b)
{
	enum { DIGIT = 8, BUCKETS = 1 << DIGIT };
	uint64_t lo = UINT64_MAX, hi = 0, *key, *tmp;
	unsigned ib = bits_for(b->nraw - 1), rb = 8, total;
	size_t n = b->nraw;

	if (n < 256)
		return false;
	for (size_t i = 0; i < n; i++) {
		lo = b->raw[i].addr < lo ? b->raw[i].addr : lo;
		hi = b->raw[i].addr > hi ? b->raw[i].addr : hi;
	}
	total = bits_for(hi - lo) + rb + ib;
	if (total > 64 || (key = malloc(2 * n * sizeof(*key))) == NULL)
		return false;
	tmp = key + n;
	for (size_t i = 0; i < n; i++) {
		/* Ranks run 0..~70 (sym_rank), labels' RANK_LABEL + that; a
		 * synthetic one sorts last. */
		uint64_t r = b->raw[i].rank == RANK_SYNTH ? 255 : b->raw[i].rank > 254 ? 254 : b->raw[i].rank;

		key[i] = (b->raw[i].addr - lo) << (rb + ib) | r << ib | i;
	}
	for (unsigned shift = 0; shift < total; shift += DIGIT) {
		size_t count[BUCKETS] = { 0 }, sum = 0;
		uint64_t *swap;

		for (size_t i = 0; i < n; i++)
			count[key[i] >> shift & (BUCKETS - 1)]++;
		if (count[key[0] >> shift & (BUCKETS - 1)] == n)
			continue; /* one value of this digit: nothing moves */
		for (size_t d = 0; d < BUCKETS; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[key[i] >> shift & (BUCKETS - 1)]++] = key[i];
		swap = key, key = tmp, tmp = swap;
	}
	/* Moved in place, cycle by cycle (a new array's first touch cost more
	 * than the sort): position i takes the symbol from[i]. */
	for (size_t i = 0; i < n; i++)
		key[i] &= (1ull << ib) - 1;
	for (size_t i = 0; i < n; i++) {
		struct elfsym_build_sym first;
		size_t j = i;

		if (key[i] == i)
			continue;
		first = b->raw[i];
		while (key[j] != i) {
			size_t from = (size_t)key[j];

			b->raw[j] = b->raw[from];
			key[j] = j;
			j = from;
		}
		b->raw[j] = first;
		key[j] = j;
	}
	free(key < tmp ? key : tmp);
	return true;
}

/* End of the executable segment holding vaddr: where a size-less symbol at
 * the end of the code must stop. */
static uint64_t text_end(const struct elfsym *t, uint64_t vaddr)
{
	for (size_t i = 0; i < t->nloads; i++) {
		const struct elfsym_load *l = &t->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->memsz)
			return l->vaddr + l->memsz;
	}
	return vaddr;
}

/* Sort, keep the best-ranked alias per address, and size the size-less
 * (hand-written assembly, PLT stubs) up to the next symbol. */
int elfsym_build_finish(struct elfsym_build *b)
{
	struct elfsym *t = b->t;
	size_t i, j, n = 0;
	uint64_t real_end = 0;

	if (b->nraw > 1 && (elfsym_build_qsort || !sort_radix(b)))
		qsort(b->raw, b->nraw, sizeof(*b->raw), raw_cmp);
	for (i = 0; i < b->nraw; i = j) {
		uint64_t size = b->raw[i].size;

		for (j = i + 1; j < b->nraw && b->raw[j].addr == b->raw[i].addr; j++)
			if (size == 0)
				size = b->raw[j].size;
		/* A cold part, a nested start or a label inside a known function
		 * is that function's: a label names only code no function
		 * covers. */
		if (b->raw[i].rank >= RANK_LABEL && b->raw[i].addr < real_end)
			continue;
		if (b->raw[i].rank < RANK_LABEL && size && b->raw[i].addr + size > real_end)
			real_end = b->raw[i].addr + size;
		b->raw[n] = b->raw[i];
		b->raw[n++].size = size;
	}
	if (n == 0)
		return 0;
	t->syms = reallocarray(NULL, n, sizeof(*t->syms));
	if (t->syms == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t size = b->raw[i].size;

		if (size == 0) {
			uint64_t end = text_end(t, b->raw[i].addr);

			if (i + 1 < n && b->raw[i + 1].addr < end)
				end = b->raw[i + 1].addr;
			size = end - b->raw[i].addr;
		}
		t->syms[i].addr = b->raw[i].addr;
		t->syms[i].size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
		t->syms[i].name = b->raw[i].name;
		t->nsynth += b->raw[i].rank == RANK_SYNTH;
	}
	t->nsyms = n;
	if (t->names_len && t->names_len < b->names_cap) {
		char *names = realloc(t->names, t->names_len);

		if (names)
			t->names = names;
	}
	return 0;
}

void elfsym_build_free(struct elfsym_build *b)
{
	free(b->raw);
	b->raw = NULL;
	b->nraw = b->raw_cap = 0;
}
