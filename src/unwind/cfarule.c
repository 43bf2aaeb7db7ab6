/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cfarule.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define DWARF_SP 7 /* rsp in the x86-64 psABI's DWARF numbering */
#endif

/* 16 bytes: four to a cache line. */
struct entry {
	uint64_t off;
	uint32_t dso_id; /* 0: empty (DSO ids start at 1) */
	int32_t ra_off;  /* CFARULE_SP's offset; -1: CFARULE_NONE */
};

/* An open file and its CFI: libdw keeps the FDEs it has read, so the next
 * miss in the same file is a lookup, not an open, a mapping and a parse. */
struct handle {
	uint32_t dso_id; /* 0: free */
	uint64_t used;   /* for eviction: the least recently used goes */
	Elf *elf;
	Dwarf_CFI *cfi; /* NULL: the file has none */
	void *img;      /* the bytes elf reads, when not a file (the vDSO) */
};

/* The table starts small and doubles (rehashed) while it holds more rules
 * than half its slots, up to 2^max_bits: a slot is touched wherever its
 * hash falls, so a table sized for the worst case from the start would
 * have all its pages resident after a few thousand rules. */
#define START_BITS 10

/* Not htab: a lossy cache (a collision overwrites), bounded by max_bits,
 * the rule inline in its slot. */

struct cfarule_cache {
	struct entry *tab;
	uint64_t mask;
	unsigned bits, max_bits;
	uint64_t used; /* slots filled */
	struct cfarule_stats st;
	struct handle h[CFARULE_HANDLES];
	uint64_t clock;
	uint64_t idle_mark[CFARULE_IDLE_KEEP]; /* clock at the last cfarule_close_idle calls, */
	unsigned idle_pos;                      /* a ring: the oldest is at idle_pos */
};

struct cfarule_cache *cfarule_new(unsigned bits)
{
	struct cfarule_cache *c = calloc(1, sizeof(*c));

	if (c == NULL || bits > 24) {
		free(c);
		return NULL;
	}
	c->max_bits = bits;
	c->bits = bits < START_BITS ? bits : START_BITS;
	if ((c->tab = calloc((size_t)1 << c->bits, sizeof(*c->tab))) == NULL) {
		free(c);
		return NULL;
	}
	c->mask = ((uint64_t)1 << c->bits) - 1;
	return c;
}

static void handle_close(struct handle *h)
{
	if (h->cfi)
		dwarf_cfi_end(h->cfi);
	if (h->elf)
		elf_end(h->elf);
	free(h->img);
	memset(h, 0, sizeof(*h));
}

void cfarule_free(struct cfarule_cache *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < CFARULE_HANDLES; i++)
		handle_close(&c->h[i]);
	free(c->tab);
	free(c);
}

/* The product's top bits: its low ones see only the offset's low bits,
 * and the DSO id (shifted up) not at all. */
static uint64_t slot_of(unsigned bits, uint32_t dso_id, uint64_t off)
{
	uint64_t h = (off ^ (uint64_t)dso_id << 40) * 0x9e3779b97f4a7c15ull;

	return bits ? h >> (64 - bits) : 0;
}

static struct entry *slot(const struct cfarule_cache *c, uint32_t dso_id, uint64_t off)
{
	return &c->tab[slot_of(c->bits, dso_id, off)];
}

bool cfarule_get(struct cfarule_cache *c, uint32_t dso_id, uint64_t off, struct cfarule *out)
{
	const struct entry *e = slot(c, dso_id, off);

	if (dso_id == 0 || e->dso_id != dso_id || e->off != off) {
		c->st.misses++;
		return false;
	}
	c->st.hits++;
	*out = e->ra_off < 0 ? (struct cfarule){ CFARULE_NONE, 0 } : (struct cfarule){ CFARULE_SP, e->ra_off };
	return true;
}

/* Twice the slots, the rules rehashed (two that collide there keep the
 * later, as a put would). Out of memory: the table stays as it is. */
static void grow(struct cfarule_cache *c)
{
	uint64_t mask = c->mask * 2 + 1, used = 0;
	struct entry *t = calloc(mask + 1, sizeof(*t));

	if (t == NULL)
		return;
	for (uint64_t i = 0; i <= c->mask; i++) {
		const struct entry *e = &c->tab[i];
		struct entry *to;

		if (e->dso_id == 0)
			continue;
		to = &t[slot_of(c->bits + 1, e->dso_id, e->off)];
		used += to->dso_id == 0;
		*to = *e;
	}
	free(c->tab);
	c->tab = t;
	c->mask = mask;
	c->bits++;
	c->used = used;
}

void cfarule_put(struct cfarule_cache *c, uint32_t dso_id, uint64_t off, struct cfarule rule)
{
	struct entry *e;

	if (dso_id == 0)
		return;
	if (c->bits < c->max_bits && (c->used + 1) * 2 > c->mask + 1)
		grow(c);
	e = slot(c, dso_id, off);
	c->used += e->dso_id == 0;
	*e = (struct entry){ off, dso_id, rule.kind == CFARULE_SP ? rule.ra_off : -1 };
	c->st.derived++;
	c->st.negative += rule.kind != CFARULE_SP;
}

void cfarule_get_stats(const struct cfarule_cache *c, struct cfarule_stats *st)
{
	*st = c->st;
	st->slots = c->mask + 1;
}

#if defined(__x86_64__)
/* The address the loader gives file offset off, before relocation. */
static bool file_vaddr(Elf *e, uint64_t off, uint64_t *va)
{
	size_t n;

	if (elf_getphdrnum(e, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && off >= ph.p_offset &&
		    off - ph.p_offset < ph.p_filesz) {
			*va = off - ph.p_offset + ph.p_vaddr;
			return true;
		}
	}
	return false;
}

/* Only the shapes a leaf's CFI has: CFA = rsp + k, RA at CFA + r. An
 * rbp-based CFA means the frame is made, so the chain is right: none. */
static void rule_at(Dwarf_CFI *cfi, uint64_t va, struct cfarule *out)
{
	Dwarf_Frame *f = NULL;
	Dwarf_Op *ops, mem[3];
	size_t nops;
	int64_t cfa_off, ra_off;
	int ra;

	if (dwarf_cfi_addrframe(cfi, va, &f) != 0)
		return;
	if (dwarf_frame_cfa(f, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number != DWARF_SP)
		goto out;
	cfa_off = (int64_t)ops[0].number2;
	if ((ra = dwarf_frame_info(f, NULL, NULL, NULL)) < 0 ||
	    dwarf_frame_register(f, ra, mem, &ops, &nops) != 0 || nops < 1 || nops > 2 ||
	    ops[0].atom != DW_OP_call_frame_cfa || (nops == 2 && ops[1].atom != DW_OP_plus_uconst))
		goto out;
	ra_off = cfa_off + (nops == 2 ? (int64_t)ops[1].number : 0);
	if (ra_off >= 0 && ra_off < 65536)
		*out = (struct cfarule){ CFARULE_SP, (int32_t)ra_off };
out:
	free(f);
}

/* The file mapped whole (ELF_C_READ_MMAP), so the descriptor can go at
 * once: a kept handle holds no fd. NULL when unreadable. */
static Elf *file_open(const char *path)
{
	Elf *e;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	(void)elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e != NULL && elf_cntl(e, ELF_C_FDDONE) != 0) {
		elf_end(e);
		e = NULL;
	}
	close(fd);
	return e;
}

/* Our own vDSO, copied (libelf is handed memory it may treat as its own):
 * the same image as every 64-bit process's on this kernel. */
static Elf *vdso_open(void **img)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[256];
	unsigned long long start, end;
	Elf *e = NULL;

	*img = NULL;
	if (f == NULL)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2 && end > start &&
		    end - start <= (1u << 20)) {
			if ((*img = malloc(end - start)) != NULL) {
				memcpy(*img, (const void *)(uintptr_t)start, end - start);
				(void)elf_version(EV_CURRENT);
				if ((e = elf_memory(*img, end - start)) == NULL) {
					free(*img);
					*img = NULL;
				}
			}
			break;
		}
	fclose(f);
	return e;
}

static void rule_in(Elf *e, Dwarf_CFI *cfi, uint64_t off, struct cfarule *out)
{
	uint64_t va;

	*out = (struct cfarule){ CFARULE_NONE, 0 };
	if (cfi != NULL && file_vaddr(e, off, &va))
		rule_at(cfi, va, out);
}
#endif

bool cfarule_derive(const char *path, uint64_t off, struct cfarule *out)
{
#if defined(__x86_64__)
	Elf *e = file_open(path);
	Dwarf_CFI *cfi;

	*out = (struct cfarule){ CFARULE_NONE, 0 };
	if (e == NULL)
		return true;
	cfi = dwarf_getcfi_elf(e);
	rule_in(e, cfi, off, out);
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(e);
	return true;
#else
	(void)path;
	(void)off;
	(void)out;
	return false;
#endif
}

bool cfarule_has_handle(const struct cfarule_cache *c, uint32_t dso_id)
{
#if defined(__x86_64__)
	for (size_t i = 0; dso_id && i < CFARULE_HANDLES; i++)
		if (c->h[i].dso_id == dso_id)
			return true;
#else
	(void)c;
	(void)dso_id;
#endif
	return false;
}

bool cfarule_derive_dso(struct cfarule_cache *c, uint32_t dso_id, const char *path, uint64_t off,
			struct cfarule *out)
{
#if defined(__x86_64__)
	struct handle *h = NULL, *old = &c->h[0];

	*out = (struct cfarule){ CFARULE_NONE, 0 };
	if (dso_id == 0)
		return cfarule_derive(path, off, out);
	for (size_t i = 0; i < CFARULE_HANDLES && h == NULL; i++) {
		if (c->h[i].dso_id == dso_id)
			h = &c->h[i];
		else if (c->h[i].used < old->used)
			old = &c->h[i];
	}
	if (h == NULL) {
		void *img = NULL;
		Elf *e = strcmp(path, CFARULE_VDSO) == 0 ? vdso_open(&img) : file_open(path);

		c->st.opens++;
		/* Not kept when unreadable: the process may have gone, and
		 * another one's path to the same file may open. */
		if (e == NULL)
			return true;
		handle_close(old);
		h = old;
		h->dso_id = dso_id;
		h->elf = e;
		h->img = img;
		h->cfi = dwarf_getcfi_elf(e);
	}
	h->used = ++c->clock;
	rule_in(h->elf, h->cfi, off, out);
	return true;
#else
	(void)c;
	(void)dso_id;
	return cfarule_derive(path, off, out);
#endif
}

void cfarule_close_idle(struct cfarule_cache *c)
{
	for (size_t i = 0; i < CFARULE_HANDLES; i++)
		if (c->h[i].dso_id && c->h[i].used <= c->idle_mark[c->idle_pos])
			handle_close(&c->h[i]);
	c->idle_mark[c->idle_pos] = c->clock;
	c->idle_pos = (c->idle_pos + 1) % CFARULE_IDLE_KEEP;
}

uint64_t cfarule_apply(struct cfarule rule, const struct record *r, uint64_t regs_mask, uint64_t leaf)
{
#if defined(__x86_64__)
	uint64_t ip, ret, at = (uint64_t)rule.ra_off;

	/* The copy starts at SP, so [SP + at] is its byte at. */
	if (rule.kind != CFARULE_SP || !record_user_reg(r, regs_mask, PERF_REG_X86_IP, &ip) || ip != leaf ||
	    r->sample.stack == NULL ||
	    at > r->sample.stack_dyn_size || r->sample.stack_dyn_size - at < 8 ||
	    r->sample.stack_dyn_size > r->sample.stack_size)
		return 0;
	memcpy(&ret, r->sample.stack + at, 8);
	return ret;
#else
	(void)rule;
	(void)r;
	(void)regs_mask;
	(void)leaf;
	return 0;
#endif
}
