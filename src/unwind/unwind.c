/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
static const int dwarf_from_perf[] = {
	PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX, PERF_REG_X86_BX, PERF_REG_X86_SI,
	PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP, PERF_REG_X86_R8, PERF_REG_X86_R9,
	PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
	PERF_REG_X86_R15, PERF_REG_X86_IP,
};
#define REG_SP PERF_REG_X86_SP
#define REG_IP PERF_REG_X86_IP
#define PC_IN_DWARF 1
#elif defined(__aarch64__)
/* x0..x30, sp: perf's and DWARF's numbers agree; the pc is passed apart. */
static const int dwarf_from_perf[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
	25, 26, 27, 28, 29, 30, 31,
};
#define REG_SP 31
#define REG_IP 32
#define PC_IN_DWARF 0
#endif

#define NDWARF (sizeof(dwarf_from_perf) / sizeof(dwarf_from_perf[0]))

/* An ELF image in memory (the vDSO). */
struct vimg {
	void *buf;
	size_t len;
};

/* How to step out of the frame at one address, from its CFI (x86-64): the
 * CFA is rsp or rbp plus an offset, the return address and the caller's
 * rbp are at fixed offsets from it. Most code is this simple, and a walk
 * that knows these rules reads a few words from the stack copy per frame
 * with no libdw call at all. Anything else is left to libdw's walk. */
enum rule_kind {
	RULE_NONE,   /* an empty slot */
	RULE_STEP,
	RULE_END,    /* the return address is undefined: the outermost frame */
	RULE_SLOW,   /* no CFI, or not this simple: libdw walks the sample */
};
enum { BP_SAME, BP_SAVED, BP_LOST };
struct rule {
	uint64_t addr;            /* looked up at (the IP, or a return address - 1) */
	int32_t cfa_off;
	int16_t ra_off, bp_off;   /* from the CFA */
	uint8_t kind, cfa_bp, bp; /* cfa_bp: the CFA is rbp-based (else rsp) */
};
/* A direct-mapped cache per process: a collision costs one rule made again. */
#define RULES 512

/* One process's Dwfl and what the sample being unwound offers it. */
struct proc {
	pid_t pid;
	Dwfl *dwfl;
	bool attached;
	uint64_t used;            /* LRU clock */
	struct unwind *u;
	/* the current sample */
	const struct record *r;
	uint64_t sp;
	uint64_t *ips;
	size_t n, max;
	bool read_failed;         /* the walk wanted memory the copy lacks */
	bool full;                /* it stopped at max frames: asked to, not cut short */
	struct vimg vimg;         /* its vDSO image, the [vdso] module's userdata */
	void *vdso_own;           /* that image when not the same as ours */
	struct rule *rules;       /* [RULES], made at the first fast walk */
};

struct unwind {
	unwind_map_fn find_map;
	void *arg;
	struct proc **procs;      /* each its own allocation: libdw keeps its address */
	size_t nprocs, max;
	uint64_t clock;
	struct unwind_stats st;
	uint64_t last_used;       /* of the last walk: unwind_copy_used */
	bool last_ran_off;
	void *vdso;               /* our own vDSO image, copied once */
	size_t vdso_len;
	bool vdso_read;
};

uint64_t unwind_regs_mask(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	uint64_t m = 0;

	for (size_t i = 0; i < NDWARF; i++)
		m |= 1ull << dwarf_from_perf[i];
	return m | 1ull << REG_SP | 1ull << REG_IP;
#else
	return 0;
#endif
}

/* A register of the sample by perf number (the mask worked out once: three
 * registers a sample, per sample). */
static bool sample_reg(const struct record *r, int perf_reg, uint64_t *out)
{
	static uint64_t mask;

	if (mask == 0)
		mask = unwind_regs_mask();
	return record_user_reg(r, mask, perf_reg, out);
}

/* A module's userdata is its ELF image in memory (the vDSO); the others
 * are files found as usual. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct vimg *img = *userdata;

	if (img == NULL)
		return dwfl_build_id_find_elf(mod, userdata, name, base, file_name, elfp);
	*elfp = elf_memory(img->buf, img->len);
	return -1;
}

/* No separate debug files: their .debug_frame is all they would add for
 * unwinding, and libdw reads them when .eh_frame ends a walk (at _start),
 * decompressing the whole of libc's debug sections for each process. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = find_elf,
	.find_debuginfo = no_debuginfo,
};

/* Our own vDSO, copied (libelf is handed memory it may treat as its own). */
static void own_vdso(struct unwind *u)
{
	FILE *f;
	char line[256];
	unsigned long long start, end;

	if (u->vdso_read)
		return;
	u->vdso_read = true;
	if ((f = fopen("/proc/self/maps", "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2 && end > start) {
			if ((u->vdso = malloc(end - start)) != NULL) {
				memcpy(u->vdso, (const void *)(uintptr_t)start, end - start);
				u->vdso_len = end - start;
			}
			break;
		}
	fclose(f);
}

/* The process's vDSO, read from its memory once per Dwfl: one kernel image
 * for every process of an ABI, so it is ours unless the bytes differ (a
 * 32-bit process). A process already gone is taken to have ours. */
static bool vdso_image(struct proc *p, const struct unwind_map *m)
{
	struct unwind *u = p->u;
	size_t n = m->end - m->start;
	void *mine = n <= (1u << 20) ? malloc(n) : NULL;
	struct iovec local = { mine, n }, remote = { (void *)(uintptr_t)m->start, n };
	bool got;

	own_vdso(u);
	got = mine && process_vm_readv(p->pid, &local, 1, &remote, 1, 0) == (ssize_t)n;
	if (!got || (n == u->vdso_len && memcmp(mine, u->vdso, n) == 0)) {
		free(mine);
		p->vimg = (struct vimg){ u->vdso, u->vdso_len };
		return u->vdso != NULL;
	}
	free(p->vdso_own);
	p->vdso_own = mine;
	p->vimg = (struct vimg){ mine, n };
	return true;
}

/* The vDSO has no file: reported by its extent, its image given to libdw
 * through the module's userdata (find_elf). */
static Dwfl_Module *report_vdso(struct proc *p, const struct unwind_map *m)
{
	Dwfl_Module *mod;
	void **ud;

	if (!vdso_image(p, m))
		return NULL;
	mod = dwfl_report_module(p->dwfl, "[vdso]", m->start, m->end);
	if (mod == NULL || dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) == NULL)
		return NULL;
	*ud = &p->vimg;
	return mod;
}

/* The module holding addr, reported from the process table if new. */
static bool report(struct proc *p, uint64_t addr)
{
	struct unwind_map m;
	Dwfl_Module *mod;

	if (dwfl_addrmodule(p->dwfl, addr))
		return true;
	if (!p->u->find_map(p->u->arg, p->pid, addr, &m))
		return false;
	dwfl_report_begin_add(p->dwfl);
	if (strcmp(m.path, "[vdso]") == 0)
		mod = report_vdso(p, &m);
	else
		mod = dwfl_report_elf(p->dwfl, m.path, m.path, -1, m.base, false);
	dwfl_report_end(p->dwfl, NULL, NULL);
	return mod != NULL;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	return 0; /* get_thread names the one we want */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

/* Only the stack the kernel copied: anything else ends the walk. */
static bool stack_word(struct proc *p, uint64_t addr, uint64_t *out)
{
	const struct record *r = p->r;

	if (addr < p->sp || addr - p->sp > r->sample.stack_dyn_size || r->sample.stack_dyn_size - (addr - p->sp) < 8) {
		p->read_failed = true;
		p->u->last_ran_off |= addr >= p->sp;
		return false;
	}
	if (addr - p->sp + 8 > p->u->last_used)
		p->u->last_used = addr - p->sp + 8;
	memcpy(out, r->sample.stack + (addr - p->sp), 8);
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	uint64_t v;

	if (!stack_word(arg, addr, &v))
		return false;
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
#if defined(__x86_64__) || defined(__aarch64__)
	struct proc *p = arg;
	Dwarf_Word regs[NDWARF];
	uint64_t ip;

	for (size_t i = 0; i < NDWARF; i++) {
		uint64_t v = 0;

		if (!sample_reg(p->r, dwarf_from_perf[i], &v))
			return false;
		regs[i] = v;
	}
	if (!dwfl_thread_state_registers(thread, 0, NDWARF, regs))
		return false;
	if (!PC_IN_DWARF && sample_reg(p->r, REG_IP, &ip))
		dwfl_thread_state_register_pc(thread, ip);
	return true;
#else
	return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int on_frame(Dwfl_Frame *frame, void *arg)
{
	struct proc *p = arg;
	Dwarf_Addr pc;
	bool activation;

	if (p->n >= p->max) {
		p->full = true;
		return DWARF_CB_ABORT;
	}
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	/* Modules are reported as the walk reaches them, for their CFI. */
	report(p, activation ? pc : pc - 1);
	p->ips[p->n++] = pc;
	return DWARF_CB_OK;
}

#if defined(__x86_64__)
#define FAST_WALK 1
enum { DW_RBP = 6, DW_RSP = 7, DW_RA = 16 };

/* A register's rule as libdw spells the simple ones: "same value",
 * "undefined", or "saved at CFA + off" (call_frame_cfa [plus_uconst off]). */
static int reg_rule(Dwarf_Frame *fr, int regno, int16_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t v = 0;

	if (dwarf_frame_register(fr, regno, mem, &ops, &nops) != 0)
		return -1;
	if (nops == 0)
		return ops == NULL ? BP_SAME : BP_LOST;
	if (ops[0].atom != DW_OP_call_frame_cfa || nops > 2 || (nops == 2 && ops[1].atom != DW_OP_plus_uconst))
		return -1;
	if (nops == 2)
		v = (int64_t)ops[1].number;
	if (v < INT16_MIN || v > INT16_MAX)
		return -1;
	*off = (int16_t)v;
	return BP_SAVED;
}

/* The rule at addr from the module's .eh_frame. Not .debug_frame: loading
 * it means decompressing the debug file's sections, per process. */
static void rule_make(struct proc *p, uint64_t addr, struct rule *ru)
{
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t nops;
	int ra, bp;

	*ru = (struct rule){ .addr = addr, .kind = RULE_SLOW };
	p->u->st.rules_made++;
	if (!report(p, addr) || (mod = dwfl_addrmodule(p->dwfl, addr)) == NULL ||
	    (cfi = dwfl_module_eh_cfi(mod, &bias)) == NULL || dwarf_cfi_addrframe(cfi, addr - bias, &fr) != 0)
		return;
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1)
		goto out;
	if (ops[0].atom == DW_OP_bregx && (ops[0].number == DW_RSP || ops[0].number == DW_RBP)) {
		ru->cfa_bp = ops[0].number == DW_RBP;
		if ((int64_t)ops[0].number2 < INT32_MIN || (int64_t)ops[0].number2 > INT32_MAX)
			goto out;
		ru->cfa_off = (int32_t)(int64_t)ops[0].number2;
	} else if (ops[0].atom == DW_OP_breg0 + DW_RSP || ops[0].atom == DW_OP_breg0 + DW_RBP) {
		ru->cfa_bp = ops[0].atom == DW_OP_breg0 + DW_RBP;
		if ((int64_t)ops[0].number < INT32_MIN || (int64_t)ops[0].number > INT32_MAX)
			goto out;
		ru->cfa_off = (int32_t)(int64_t)ops[0].number;
	} else {
		goto out;
	}
	ra = reg_rule(fr, DW_RA, &ru->ra_off);
	bp = reg_rule(fr, DW_RBP, &ru->bp_off);
	if (ra == BP_LOST && bp >= 0)
		ru->kind = RULE_END;
	else if (ra == BP_SAVED && bp >= 0)
		ru->kind = RULE_STEP;
	ru->bp = (uint8_t)(bp < 0 ? BP_LOST : bp);
out:
	free(fr);
}

static const struct rule *rule_at(struct proc *p, uint64_t addr)
{
	struct rule *ru = &p->rules[(addr * 0x9e3779b97f4a7c15ull) >> 55 & (RULES - 1)];

	if (ru->kind == RULE_NONE || ru->addr != addr)
		rule_make(p, addr, ru);
	else
		p->u->st.rule_hits++;
	return ru;
}

/* The walk with cached rules: the IP, then each return address read at
 * CFA + offset. false when a frame needs libdw (its walk redoes the sample). */
static bool fast_walk(struct proc *p, const struct record *r, uint64_t pc, bool *complete)
{
	uint64_t sp = p->sp, bp = 0;
	bool bp_ok = sample_reg(r, PERF_REG_X86_BP, &bp), activation = true;

	if (p->rules == NULL && (p->rules = calloc(RULES, sizeof(*p->rules))) == NULL)
		return false;
	for (;;) {
		const struct rule *ru;
		uint64_t cfa, ra;

		if (p->n >= p->max) {
			p->full = true;
			return true;
		}
		ru = rule_at(p, activation ? pc : pc - 1);
		if (ru->kind == RULE_SLOW || (ru->cfa_bp && !bp_ok))
			return false;
		p->ips[p->n++] = pc;
		if (ru->kind == RULE_END) {
			*complete = true;
			return true;
		}
		cfa = (ru->cfa_bp ? bp : sp) + (uint64_t)(int64_t)ru->cfa_off;
		if (!stack_word(p, cfa + (uint64_t)(int64_t)ru->ra_off, &ra) ||
		    (ru->bp == BP_SAVED && !stack_word(p, cfa + (uint64_t)(int64_t)ru->bp_off, &bp)))
			return true; /* the copy ends here: cut short */
		bp_ok = bp_ok && ru->bp != BP_LOST;
		sp = cfa;
		pc = ra;
		activation = false;
	}
}
#else
#define FAST_WALK 0
#endif

struct unwind *unwind_new(unwind_map_fn find_map, void *arg, size_t max_procs)
{
	struct unwind *u = calloc(1, sizeof(*u));

	if (u == NULL)
		return NULL;
	u->find_map = find_map;
	u->arg = arg;
	u->max = max_procs ? max_procs : 1;
	u->procs = calloc(u->max, sizeof(*u->procs));
	if (u->procs == NULL) {
		free(u);
		return NULL;
	}
	return u;
}

static void proc_drop(struct unwind *u, size_t i)
{
	struct proc *p = u->procs[i];

	if (p->dwfl) {
		dwfl_end(p->dwfl);
		u->st.dwfl_dropped++;
	}
	free(p->vdso_own);
	free(p->rules);
	free(p);
	u->procs[i] = u->procs[--u->nprocs];
}

void unwind_free(struct unwind *u)
{
	if (u == NULL)
		return;
	while (u->nprocs)
		proc_drop(u, 0);
	free(u->procs);
	free(u->vdso);
	free(u);
}

void unwind_forget(struct unwind *u, pid_t pid)
{
	for (size_t i = 0; u && i < u->nprocs; i++)
		if (u->procs[i]->pid == pid) {
			proc_drop(u, i);
			return;
		}
}

struct span {
	uint64_t start, end;
	bool hit;
};

static int module_overlaps(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr low, void *arg)
{
	struct span *sp = arg;
	Dwarf_Addr lo, hi;

	if (dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL) && lo < sp->end && hi > sp->start) {
		sp->hit = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

void unwind_mapped(struct unwind *u, pid_t pid, uint64_t start, uint64_t end)
{
	struct span sp = { start, end, false };

	for (size_t i = 0; u && i < u->nprocs; i++) {
		struct proc *p = u->procs[i];

		if (p->pid != pid)
			continue;
		/* Rules of code no longer there, even those that said "no CFI". */
		for (size_t k = 0; p->rules && k < RULES; k++)
			if (p->rules[k].kind != RULE_NONE && p->rules[k].addr >= start && p->rules[k].addr < end)
				p->rules[k].kind = RULE_NONE;
		/* A module reported there is another file now: libdw cannot
		 * take a module back, so the Dwfl goes and is made anew. */
		dwfl_getmodules(p->dwfl, module_overlaps, &sp, 0);
		if (sp.hit)
			proc_drop(u, i);
		return;
	}
}

/* The process's entry, made (evicting the least recently used) if new. A
 * few dozen processes at most are unwound at once: a linear scan is enough. */
static struct proc *proc_get(struct unwind *u, pid_t pid)
{
	struct proc *p;
	size_t lru = 0;

	for (size_t i = 0; i < u->nprocs; i++) {
		if (u->procs[i]->pid == pid) {
			u->procs[i]->used = ++u->clock;
			return u->procs[i];
		}
		if (u->procs[i]->used < u->procs[lru]->used)
			lru = i;
	}
	if (u->nprocs == u->max)
		proc_drop(u, lru);
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->pid = pid;
	p->u = u;
	p->used = ++u->clock;
	p->dwfl = dwfl_begin(&dwfl_cbs);
	if (p->dwfl == NULL) {
		free(p);
		return NULL;
	}
	u->procs[u->nprocs++] = p;
	u->st.dwfl_made++;
	return p;
}

static size_t walk(struct unwind *u, pid_t pid, pid_t tid, const struct record *r, uint64_t *ips, size_t max,
		   bool *complete);

size_t unwind_stack(struct unwind *u, pid_t pid, pid_t tid, const struct record *r, uint64_t *ips,
		    size_t max, bool *complete)
{
	size_t n;

	u->last_used = 0;
	u->last_ran_off = false;
	n = walk(u, pid, tid, r, ips, max, complete);
	return n;
}

void unwind_copy_used(const struct unwind *u, uint32_t *bytes, bool *ran_off)
{
	*bytes = u->last_used > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)u->last_used;
	*ran_off = u->last_ran_off;
}

static size_t walk(struct unwind *u, pid_t pid, pid_t tid, const struct record *r, uint64_t *ips, size_t max,
		   bool *complete)
{
	struct proc *p;
	uint64_t ip;
	int rc;

	*complete = false;
	if (max == 0 || r->sample.nregs == 0 || !sample_reg(r, REG_IP, &ip))
		return 0;
	u->st.stacks++;
	p = proc_get(u, pid);
	if (p == NULL || !sample_reg(r, REG_SP, &p->sp)) {
		ips[0] = ip;
		u->st.truncated++;
		return 1;
	}
	p->r = r;
	p->ips = ips;
	p->max = max;
#if FAST_WALK
	p->n = 0;
	p->read_failed = p->full = false;
	if (fast_walk(p, r, ip, complete)) {
		if (!*complete && !p->full)
			u->st.truncated++;
		p->r = NULL;
		return p->n;
	}
	u->st.slow_walks++;
	*complete = false;
#endif
	if (!report(p, ip)) {
		ips[0] = ip;
		u->st.truncated++;
		p->r = NULL;
		return 1;
	}
	/* Attached once; each sample only changes what the callbacks read.
	 * The Dwfl's address of p is stable until the entry is dropped. */
	if (!p->attached) {
		if (!dwfl_attach_state(p->dwfl, NULL, pid, &thread_cbs, p)) {
			ips[0] = ip;
			u->st.truncated++;
			p->r = NULL;
			return 1;
		}
		p->attached = true;
	}
	p->n = 0;
	p->read_failed = p->full = false;
	rc = dwfl_getthread_frames(p->dwfl, tid, on_frame, p);
	/* 0 alone is not enough: libdw also stops quietly where a read fails. */
	*complete = rc == 0 && !p->read_failed;
	if (p->n == 0)
		ips[p->n++] = ip;
	if (!*complete && !p->full)
		u->st.truncated++;
	p->r = NULL;
	return p->n;
}

void unwind_get_stats(const struct unwind *u, struct unwind_stats *st)
{
	*st = u->st;
}
