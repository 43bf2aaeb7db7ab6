#include "cfarule.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define DWARF_SP 7 /* rsp in the x86-64 psABI's DWARF numbering */
#endif

struct entry {
	uint64_t off;
	uint32_t dso_id; /* 0: empty (DSO ids start at 1) */
	uint8_t kind;
	int32_t ra_off;
};

struct cfarule_cache {
	struct entry *tab;
	uint64_t mask;
	struct cfarule_stats st;
};

struct cfarule_cache *cfarule_new(unsigned bits)
{
	struct cfarule_cache *c = calloc(1, sizeof(*c));

	if (c == NULL || bits > 24 || (c->tab = calloc((size_t)1 << bits, sizeof(*c->tab))) == NULL) {
		free(c);
		return NULL;
	}
	c->mask = ((uint64_t)1 << bits) - 1;
	return c;
}

void cfarule_free(struct cfarule_cache *c)
{
	if (c == NULL)
		return;
	free(c->tab);
	free(c);
}

static struct entry *slot(const struct cfarule_cache *c, uint32_t dso_id, uint64_t off)
{
	uint64_t h = (off ^ (uint64_t)dso_id << 40) * 0x9e3779b97f4a7c15ull;

	return &c->tab[(h >> 32) & c->mask];
}

bool cfarule_get(struct cfarule_cache *c, uint32_t dso_id, uint64_t off, struct cfarule *out)
{
	const struct entry *e = slot(c, dso_id, off);

	if (dso_id == 0 || e->dso_id != dso_id || e->off != off) {
		c->st.misses++;
		return false;
	}
	c->st.hits++;
	*out = (struct cfarule){ e->kind, e->ra_off };
	return true;
}

void cfarule_put(struct cfarule_cache *c, uint32_t dso_id, uint64_t off, struct cfarule rule)
{
	if (dso_id == 0)
		return;
	*slot(c, dso_id, off) = (struct entry){ off, dso_id, rule.kind, rule.ra_off };
	c->st.derived++;
	c->st.negative += rule.kind != CFARULE_SP;
}

void cfarule_get_stats(const struct cfarule_cache *c, struct cfarule_stats *st)
{
	*st = c->st;
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
#endif

bool cfarule_derive(const char *path, uint64_t off, struct cfarule *out)
{
#if defined(__x86_64__)
	Elf *e;
	int fd;

	*out = (struct cfarule){ CFARULE_NONE, 0 };
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return true;
	(void)elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL) {
		Dwarf_CFI *cfi;
		uint64_t va;

		if (file_vaddr(e, off, &va) && (cfi = dwarf_getcfi_elf(e)) != NULL) {
			rule_at(cfi, va, out);
			dwarf_cfi_end(cfi);
		}
		elf_end(e);
	}
	close(fd);
	return true;
#else
	(void)path;
	(void)off;
	(void)out;
	return false;
#endif
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
