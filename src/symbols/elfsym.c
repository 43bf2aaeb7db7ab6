#include "elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demangle.h"
#include "util.h"

/* .gnu_debugdata: what its decompression may take and give. */
#define MINIDEBUG_MAX_OUT ((size_t)64 << 20)
#define MINIDEBUG_MEMLIMIT ((uint64_t)128 << 20)

/* Longer C++ names exist, but a name this long is a lying string table. */
#define NAME_MAX_LEN 65536

/* A symbol while loading: its binding decides between aliases. */
struct raw_sym {
	uint64_t addr, size;
	uint32_t name;
	uint32_t rank;
};

struct builder {
	struct elfsym *t;
	struct raw_sym *raw;
	size_t nraw, raw_cap, names_cap;
};

static int names_put(struct builder *b, const char *s, size_t len, uint32_t *off);

/* Rank of the function starts taken from .eh_frame_hdr: below every symbol. */
#define RANK_SYNTH UINT32_MAX

static bool libelf_ready(void)
{
	static int state; /* 0 unknown, 1 ok, -1 unusable */

	if (state == 0)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

/* off + len within a file of size, without overflow. */
static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int load_segments(struct elfsym *t, Elf *e, const GElf_Ehdr *eh, uint64_t fsize, bool debug)
{
	size_t phnum, i;

	if (elf_getphdrnum(e, &phnum) != 0)
		return -ENOEXEC;
	if (phnum && !in_file(eh->e_phoff, (uint64_t)phnum * eh->e_phentsize, fsize))
		return -ENOEXEC;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) == NULL)
			return -ENOEXEC;
		if (ph.p_type != PT_LOAD)
			continue;
		/* A segment the file does not hold is a truncated file. */
		if ((!debug && !in_file(ph.p_offset, ph.p_filesz, fsize)) || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			return -ENOEXEC;
		if (t->nloads == ELFSYM_MAX_LOADS)
			continue;
		t->loads[t->nloads++] = (struct elfsym_load){
			.vaddr = ph.p_vaddr, .offset = ph.p_offset, .filesz = ph.p_filesz,
			.memsz = ph.p_memsz, .flags = ph.p_flags,
		};
	}
	return 0;
}

static void load_build_id(struct elfsym *t, Elf *e, uint64_t fsize)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE ||
		    !in_file(sh.sh_offset, sh.sh_size, fsize) || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz > 0 && nh.n_descsz <= ELFSYM_BUILD_ID_MAX) {
				memcpy(t->build_id, (char *)d->d_buf + doff, nh.n_descsz);
				t->build_id_len = nh.n_descsz;
				return;
			}
		}
	}
}

/* The section called name, its header in *sh, when the file holds it. */
static Elf_Scn *find_section(Elf *e, const char *name, uint64_t fsize, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, sh) == NULL || sh->sh_type == SHT_NOBITS ||
		    (n = elf_strptr(e, shstrndx, sh->sh_name)) == NULL || strcmp(n, name) != 0)
			continue;
		return in_file(sh->sh_offset, sh->sh_size, fsize) ? scn : NULL;
	}
	return NULL;
}

/* .gnu_debuglink: a file name, NUL, padding, CRC32. A name with a '/'
 * could point anywhere: ignored. */
static int load_debuglink(struct elfsym *t, Elf *e, uint64_t fsize)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, ".gnu_debuglink", fsize, &sh);
	Elf_Data *d;
	size_t len;

	if (scn == NULL || (d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL || d->d_size < 2)
		return 0;
	len = strnlen(d->d_buf, d->d_size);
	if (len == 0 || len == d->d_size || len > 255 || memchr(d->d_buf, '/', len) ||
	    strcmp(d->d_buf, ".") == 0 || strcmp(d->d_buf, "..") == 0)
		return 0;
	t->debuglink = strndup(d->d_buf, len);
	return t->debuglink ? 0 : -ENOMEM;
}

/* Room for more symbols and name bytes at once, from the section sizes:
 * grown by doubling, a table's arrays were copied a dozen times over,
 * each new block faulting in afresh. */
static int reserve(struct builder *b, size_t nsyms, size_t name_bytes)
{
	if (nsyms > SIZE_MAX / sizeof(*b->raw) - b->nraw)
		return -ENOMEM;
	if (b->nraw + nsyms > b->raw_cap) {
		size_t cap = b->nraw + nsyms;
		struct raw_sym *n = reallocarray(b->raw, cap, sizeof(*n));

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

static int raw_push(struct builder *b, uint64_t addr, uint64_t size, uint32_t rank,
		    const char *name, size_t len)
{
	if (b->nraw == b->raw_cap) {
		size_t cap = b->raw_cap ? b->raw_cap * 2 : 256;
		struct raw_sym *n = reallocarray(b->raw, cap, sizeof(*n));

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
static int load_eh_frame(struct builder *b, Elf *e, const GElf_Ehdr *eh, uint64_t fsize,
			 const char *label)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, ".eh_frame_hdr", fsize, &sh);
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

/* A symbol table we can trust as far as the file goes: inside the file,
 * entries of the right size, names in a string table also inside it. */
static Elf_Scn *find_symtab(Elf *e, uint32_t type, uint64_t fsize, size_t *strndx)
{
	size_t entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Scn *scn = NULL, *str;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh, ssh;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != type)
			continue;
		if (entsize == 0 || sh.sh_entsize != entsize || !in_file(sh.sh_offset, sh.sh_size, fsize))
			return NULL;
		str = elf_getscn(e, sh.sh_link);
		if (str == NULL || gelf_getshdr(str, &ssh) == NULL || ssh.sh_type != SHT_STRTAB ||
		    !in_file(ssh.sh_offset, ssh.sh_size, fsize))
			return NULL;
		*strndx = sh.sh_link;
		return scn;
	}
	return NULL;
}

static int names_put(struct builder *b, const char *s, size_t len, uint32_t *off)
{
	return util_pool_put(&b->t->names, &b->t->names_len, &b->names_cap, 4096, s, len, off);
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

static int load_symbols(struct builder *b, Elf *e, Elf_Scn *scn, size_t strndx)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT), count, i;
	Elf_Scn *str = elf_getscn(e, strndx);
	GElf_Shdr ssh;
	int rc;

	if (data == NULL || data->d_buf == NULL || entsize == 0)
		return 0;
	count = data->d_size / entsize;
	/* At most every entry and the whole string table (find_symtab checked
	 * that it lies in the file). */
	if ((rc = reserve(b, count, str && gelf_getshdr(str, &ssh) ? ssh.sh_size : 0)) != 0)
		return rc;
	for (i = 0; i < count && i <= INT32_MAX; i++) {
		GElf_Sym sym;
		const char *name;
		size_t len;
		int type;

		if (gelf_getsym(data, (int)i, &sym) == NULL)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(e, strndx, sym.st_name);
		if (name == NULL || *name == '\0')
			continue;
		len = strnlen(name, NAME_MAX_LEN);
		if (len == NAME_MAX_LEN)
			continue;
		if ((rc = raw_push(b, sym.st_value, sym.st_size, sym_rank(&sym, name), name, len)) != 0)
			return rc;
	}
	return 0;
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

bool elfsym_sort_by_qsort;

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
static bool sort_radix(struct builder *b)
{
	enum { DIGIT = 8, BUCKETS = 1 << DIGIT };
	uint64_t lo = UINT64_MAX, hi = 0, *key, *tmp;
	unsigned ib = bits_for(b->nraw - 1), rb = 7, total;
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
		/* Ranks run 0..~70 (sym_rank); a synthetic one sorts last. */
		uint64_t r = b->raw[i].rank == RANK_SYNTH ? 127 : b->raw[i].rank > 126 ? 126 : b->raw[i].rank;

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
		struct raw_sym first;
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
static int finish(struct builder *b)
{
	struct elfsym *t = b->t;
	size_t i, j, n = 0;
	uint64_t real_end = 0;

	if (b->nraw > 1 && (elfsym_sort_by_qsort || !sort_radix(b)))
		qsort(b->raw, b->nraw, sizeof(*b->raw), raw_cmp);
	for (i = 0; i < b->nraw; i = j) {
		uint64_t size = b->raw[i].size;

		for (j = i + 1; j < b->nraw && b->raw[j].addr == b->raw[i].addr; j++)
			if (size == 0)
				size = b->raw[j].size;
		/* A cold part or a nested start inside a known function is that
		 * function's. */
		if (b->raw[i].rank == RANK_SYNTH && b->raw[i].addr < real_end)
			continue;
		if (b->raw[i].rank != RANK_SYNTH && size && b->raw[i].addr + size > real_end)
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
	return 0;
}

/* MiniDebugInfo (.gnu_debugdata, Fedora): an xz-compressed ELF whose
 * .symtab holds the functions .dynsym lacks. Decompressed into memory,
 * bounded, and its symbols added to b's. A damaged one is ignored. */
static int load_minidebug(struct builder *b, Elf *e, uint64_t fsize)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, ".gnu_debugdata", fsize, &sh);
	lzma_stream zs = LZMA_STREAM_INIT;
	Elf_Data *d;
	unsigned char *buf = NULL, *nbuf;
	size_t cap = 0, strndx = 0;
	lzma_ret lr = LZMA_OK;
	Elf *mini;
	Elf_Scn *sym;
	GElf_Ehdr eh;
	int rc = 0;

	if (scn == NULL || (d = elf_rawdata(scn, NULL)) == NULL || d->d_buf == NULL || d->d_size == 0)
		return 0;
	if (lzma_stream_decoder(&zs, MINIDEBUG_MEMLIMIT, 0) != LZMA_OK)
		return 0;
	zs.next_in = d->d_buf;
	zs.avail_in = d->d_size;
	while (lr == LZMA_OK) {
		if (zs.avail_out == 0) {
			if (cap == MINIDEBUG_MAX_OUT)
				goto out; /* bigger than any real one: not worth it */
			cap = cap ? cap * 2 : 256 * 1024;
			if (cap > MINIDEBUG_MAX_OUT)
				cap = MINIDEBUG_MAX_OUT;
			if ((nbuf = realloc(buf, cap)) == NULL) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nbuf;
			zs.next_out = buf + zs.total_out;
			zs.avail_out = cap - zs.total_out;
		}
		lr = lzma_code(&zs, LZMA_FINISH);
	}
	if (lr != LZMA_STREAM_END || zs.total_out == 0)
		goto out;
	mini = elf_memory((char *)buf, zs.total_out);
	if (mini == NULL)
		goto out;
	if (elf_kind(mini) == ELF_K_ELF && gelf_getehdr(mini, &eh) != NULL &&
	    (sym = find_symtab(mini, SHT_SYMTAB, zs.total_out, &strndx)) != NULL &&
	    (rc = load_symbols(b, mini, sym, strndx)) == 0)
		b->t->minidebug = true;
	elf_end(mini);
out:
	lzma_end(&zs);
	free(buf);
	return rc;
}

static int load(struct elfsym **out, Elf *e, uint64_t fsize, bool debug, const char *label,
		const struct elfsym_debug_finder *find)
{
	struct builder b = { 0 };
	struct elfsym *dbg;
	GElf_Ehdr eh;
	Elf_Scn *scn;
	size_t strndx = 0;
	int rc = -ENOEXEC;

	*out = NULL;
	if (e == NULL)
		return -ENOEXEC;
	if (elf_kind(e) != ELF_K_ELF || gelf_getehdr(e, &eh) == NULL ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		goto out_end;
	b.t = calloc(1, sizeof(*b.t));
	if (b.t == NULL) {
		rc = -ENOMEM;
		goto out_end;
	}
	b.t->type = eh.e_type;
	if ((rc = load_segments(b.t, e, &eh, fsize, debug)) != 0)
		goto out_free;
	load_build_id(b.t, e, fsize);
	if ((rc = load_debuglink(b.t, e, fsize)) != 0)
		goto out_free;
	scn = find_symtab(e, SHT_SYMTAB, fsize, &strndx);
	/* Its debug file's symbols would replace what .dynsym, MiniDebugInfo
	 * and .eh_frame_hdr give: looked for before those are built (libc's
	 * table was built twice, the first thrown away). */
	if (scn == NULL && !debug && find)
		b.t->searched_debug = true;
	if (b.t->searched_debug && (dbg = find->fn(find->arg, b.t)) != NULL) {
		elfsym_adopt_symbols(b.t, dbg);
		elf_end(e);
		*out = b.t;
		return 0;
	}
	if (scn == NULL) {
		scn = find_symtab(e, SHT_DYNSYM, fsize, &strndx);
		b.t->from_dynsym = true;
	}
	if (scn && (rc = load_symbols(&b, e, scn, strndx)) != 0)
		goto out_free;
	if (b.t->from_dynsym && !debug && (rc = load_minidebug(&b, e, fsize)) != 0)
		goto out_free;
	if (b.t->from_dynsym && label && (rc = load_eh_frame(&b, e, &eh, fsize, label)) != 0)
		goto out_free;
	if ((rc = finish(&b)) != 0)
		goto out_free;
	if (b.t->names_len && b.t->names_len < b.names_cap) {
		char *names = realloc(b.t->names, b.t->names_len);

		if (names)
			b.t->names = names;
	}
	free(b.raw);
	elf_end(e);
	*out = b.t;
	return 0;
out_free:
	free(b.raw);
	elfsym_free(b.t);
out_end:
	elf_end(e);
	return rc;
}

static int load_fd(struct elfsym **out, int fd, bool debug, const char *label,
		   const struct elfsym_debug_finder *find)
{
	struct stat st;

	*out = NULL;
	if (!libelf_ready())
		return -ENOSYS;
	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	return load(out, elf_begin(fd, ELF_C_READ_MMAP, NULL), (uint64_t)st.st_size, debug, label, find);
}

int elfsym_load_fd(struct elfsym **out, int fd)
{
	return load_fd(out, fd, false, NULL, NULL);
}

int elfsym_load_fd_label(struct elfsym **out, int fd, const char *label)
{
	return load_fd(out, fd, false, label, NULL);
}

int elfsym_load_fd_find(struct elfsym **out, int fd, const char *label, const struct elfsym_debug_finder *find)
{
	return load_fd(out, fd, false, label, find);
}

int elfsym_load_debug_fd(struct elfsym **out, int fd)
{
	return load_fd(out, fd, true, NULL, NULL);
}

/* Marks a symbol whose name is not mangled: its raw name is shown. */
static char not_mangled;

static void free_dnames(struct elfsym *t)
{
	for (size_t i = 0; t->dnames && i < t->nsyms; i++)
		if (t->dnames[i] != &not_mangled)
			free(t->dnames[i]);
	free(t->dnames);
	t->dnames = NULL;
	t->dnames_bytes = 0;
}

const char *elfsym_demangled(struct elfsym *t, const struct elfsym_sym *sym)
{
	const char *raw = elfsym_name(t, sym);
	size_t i = (size_t)(sym - t->syms);
	char *d;

	if (!demangle_candidate(raw))
		return raw;
	if (t->dnames == NULL) {
		t->dnames = calloc(t->nsyms, sizeof(*t->dnames));
		if (t->dnames == NULL)
			return raw;
		t->dnames_bytes = t->nsyms * sizeof(*t->dnames);
	}
	if (t->dnames[i] == NULL) {
		d = demangle(raw);
		t->dnames[i] = d ? d : &not_mangled;
		if (d)
			t->dnames_bytes += strlen(d) + 1;
	}
	return t->dnames[i] == &not_mangled ? raw : t->dnames[i];
}

void elfsym_adopt_symbols(struct elfsym *t, struct elfsym *dbg)
{
	free_dnames(t);
	if (t->map) {
		munmap(t->map, t->map_len);
	} else {
		free(t->syms);
		free(t->names);
	}
	t->map = dbg->map;
	t->map_len = dbg->map_len;
	dbg->map = NULL;
	t->syms = dbg->syms;
	t->nsyms = dbg->nsyms;
	t->names = dbg->names;
	t->names_len = dbg->names_len;
	t->from_dynsym = dbg->from_dynsym;
	t->nsynth = dbg->nsynth;
	dbg->syms = NULL;
	dbg->names = NULL;
	elfsym_free(dbg);
}

int elfsym_load(struct elfsym **out, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	*out = NULL;
	if (fd < 0)
		return -errno;
	rc = elfsym_load_fd(out, fd);
	close(fd);
	return rc;
}

/* libelf may convert a memory image in place; never the caller's. */
static int load_buf(struct elfsym **out, const void *buf, size_t len, const char *label)
{
	char *copy;
	int rc;

	*out = NULL;
	if (!libelf_ready())
		return -ENOSYS;
	copy = malloc(len ? len : 1);
	if (copy == NULL)
		return -ENOMEM;
	memcpy(copy, buf, len);
	rc = load(out, elf_memory(copy, len), len, false, label, NULL);
	free(copy);
	return rc;
}

int elfsym_load_buf(struct elfsym **out, const void *buf, size_t len)
{
	return load_buf(out, buf, len, NULL);
}

/* The vDSO is one image for every 64-bit process of this kernel: read ours,
 * whose extent /proc/self/maps gives. */
int elfsym_load_vdso(struct elfsym **out)
{
	char line[256];
	uint64_t start, end;
	FILE *f = fopen("/proc/self/maps", "re");
	int rc = -ENOENT;

	*out = NULL;
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2 &&
		    end > start) {
			/* Its static helpers (the pvclock read of a VM) have no
			 * symbol: named [vdso]+0xVADDR from .eh_frame_hdr. */
			rc = load_buf(out, (const void *)(uintptr_t)start, (size_t)(end - start), "[vdso]");
			break;
		}
	}
	fclose(f);
	return rc;
}

void elfsym_free(struct elfsym *t)
{
	if (t == NULL)
		return;
	free_dnames(t);
	if (t->map) {
		munmap(t->map, t->map_len);
	} else {
		free(t->syms);
		free(t->names);
	}
	free(t->debuglink);
	free(t);
}

bool elfsym_offset_to_vaddr(const struct elfsym *t, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < t->nloads; i++) {
		const struct elfsym_load *l = &t->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

const struct elfsym_sym *elfsym_find(const struct elfsym *t, uint64_t vaddr)
{
	const struct elfsym_sym *base = t->syms;
	size_t n = t->nsyms;

	if (n == 0 || vaddr < base[0].addr)
		return NULL;
	while (n > 1) {
		size_t half = n / 2;

		/* Both possible next probes: the misses of a big table overlap. */
		__builtin_prefetch(&base[half / 2]);
		__builtin_prefetch(&base[half + half / 2]);
		base = base[half].addr <= vaddr ? base + half : base;
		n -= half;
	}
	return vaddr - base->addr < base->size ? base : NULL;
}

size_t elfsym_bytes(const struct elfsym *t)
{
	if (t == NULL)
		return 0;
	return sizeof(*t) + t->nsyms * sizeof(*t->syms) + t->names_len + t->dnames_bytes +
	       (t->debuglink ? strlen(t->debuglink) + 1 : 0);
}
