/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The annotate layer against a fixture of known shape (fixture_annot.c):
 * the instructions where objdump puts them, AT&T and Intel text, branch
 * targets and callees, source lines from the DWARF (the file's own, a
 * debuglink's, none), a deleted binary run by a live process, JIT code from
 * memory, kernel code from a kcore-shaped file and, as root, /proc/kcore.
 * usage: test_annotate FIXTURE STRIPPED SOURCE */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "annot_int.h"
#include "annotate.h"
#include "check.h"
#include "srcline.h"

static const char *fix, *stripped, *src;
static char tmp[] = "/tmp/perftop-annot-XXXXXX";
static unsigned asm_line, div_line;
static uint64_t hot_addr, hot_size, leaf_addr;

static bool nm_sym(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	char cmd[PATH_MAX + 32], line[512], n[256], type;
	unsigned long long a, s;
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S '%s'", path);
	if ((p = popen(cmd, "r")) == NULL)
		return false;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, n) == 4 && strcmp(n, name) == 0) {
			*addr = a;
			*size = s;
			found = true;
		}
	pclose(p);
	return found;
}

/* Instruction addresses objdump finds in [start, end). */
static size_t objdump_addrs(const char *path, uint64_t start, uint64_t end, uint64_t *out, size_t max)
{
	char cmd[PATH_MAX + 128], line[512];
	unsigned long long a;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d --start-address=0x%" PRIx64 " --stop-address=0x%" PRIx64 " '%s'",
		 start, end, path);
	if ((p = popen(cmd, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " %llx:\t", &a) == 1 && strchr(line, '\t') && n < max)
			out[n++] = a;
	pclose(p);
	return n;
}

static unsigned line_of(const char *marker)
{
	FILE *f = fopen(src, "r");
	char line[1024];
	unsigned n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	if (f)
		fclose(f);
	return 0;
}

static const struct annot_insn *find_text(const struct annot_func *f, const char *prefix)
{
	for (size_t i = 0; f && i < f->ninsn; i++)
		if (strncmp(f->insn[i].text, prefix, strlen(prefix)) == 0)
			return &f->insn[i];
	return NULL;
}

static bool base_is(const char *file, const char *base)
{
	const char *b = file ? strrchr(file, '/') : NULL;

	return b && strcmp(b + 1, base) == 0;
}

static struct annot_target hot_target(const char *dso)
{
	return (struct annot_target){ .sym = "annot_hot", .dso = dso, .start = hot_addr, .size = hot_size };
}

static struct annot_cache *cache(bool intel, bool source)
{
	char root[PATH_MAX];

	/* No system debug files: the test's own only. */
	snprintf(root, sizeof(root), "%s/nodebug", tmp);
	return annot_cache_new(&(struct annot_opts){ .intel = intel, .source = source, .debug_root = root });
}

static void test_att(void)
{
	struct annot_cache *c = cache(false, true);
	struct annot_target t = hot_target(fix);
	char why[512];
	const struct annot_func *f = annot_get(c, &t, why, sizeof(why));
	const struct annot_insn *mov, *div, *call = NULL, *back = NULL, *ret = NULL;
	uint64_t want[256];
	size_t n = objdump_addrs(fix, hot_addr, hot_addr + hot_size, want, 256);
	bool same;

	CHECK(f != NULL, "annot_hot of the fixture annotated (%s)", f ? "" : why);
	if (f == NULL)
		return;
	same = f->ninsn == n;
	for (size_t i = 0; same && i < n; i++)
		same = f->insn[i].addr == want[i] && f->insn[i].offset == want[i] - hot_addr;
	CHECK(n > 10 && same, "instructions where objdump has them (%zu, objdump %zu)", f->ninsn, n);
	mov = find_text(f, "movl   $0x2a, %eax");
	CHECK(mov != NULL, "AT&T text of the fixed asm: movl   $0x2a, %%eax");
	CHECK(mov && base_is(mov->file, "fixture_annot.c") && mov->line == asm_line, "its source line %s:%u (want %u)",
	      mov && mov->file ? mov->file : "(none)", mov ? mov->line : 0, asm_line);
	div = find_text(f, "idiv");
	CHECK(div && strchr(div->text, '%') && div->line == div_line && base_is(div->file, "fixture_annot.c"),
	      "the divide (%s) at fixture_annot.c:%u (want %u)", div ? div->text : "none", div ? div->line : 0,
	      div_line);
	for (size_t i = 0; i < f->ninsn; i++) {
		const struct annot_insn *in = &f->insn[i];

		if (in->kind == ANNOT_CALL)
			call = in;
		if (in->kind == ANNOT_JUMP && in->target_in_func && in->target_off < in->offset)
			back = in;
		if (in->kind == ANNOT_RET)
			ret = in;
	}
	CHECK(call && call->has_target && call->target_addr == leaf_addr && !call->target_in_func &&
	      call->callee && strcmp(call->callee, "annot_leaf") == 0,
	      "the call: target 0x%" PRIx64 " (want 0x%" PRIx64 "), callee %s", call ? call->target_addr : 0, leaf_addr,
	      call && call->callee ? call->callee : "(null)");
	CHECK(back && annot_insn_at(f, back->target_off) && annot_insn_at(f, back->target_off)->offset == back->target_off &&
	      back->target_addr == hot_addr + back->target_off, "the loop's jump back lands on an instruction (+0x%" PRIx64 ")",
	      back ? back->target_off : 0);
	CHECK(ret && strncmp(ret->text, "ret", 3) == 0, "a return classified");
	CHECK(f->lacks == NULL, "nothing lacking (%s)", f->lacks ? f->lacks : "");
	CHECK(annot_get(c, &t, why, sizeof(why)) == f, "a second annot_get is the cached one");
	CHECK(div && annot_source_text(c, div->file, div->line) &&
	      strstr(annot_source_text(c, div->file, div->line), "ANNOT_DIV_LINE"), "the divide's source text");
	CHECK(div && annot_source_text(c, div->file, 100000) == NULL, "a line past the file's end: NULL");
	annot_cache_free(c);
}

static void test_intel(void)
{
	struct annot_cache *c = cache(true, true);
	struct annot_target t = hot_target(fix);
	char why[512];
	const struct annot_func *f = annot_get(c, &t, why, sizeof(why));
	const struct annot_insn *div = find_text(f, "idiv");

	CHECK(find_text(f, "mov    eax, 0x2a") != NULL, "Intel text of the fixed asm: mov    eax, 0x2a");
	CHECK(div && !strchr(div->text, '%'), "Intel divide without %% (%s)", div ? div->text : "none");
	annot_cache_free(c);
}

static void test_no_source(void)
{
	struct annot_cache *c = cache(false, false);
	struct annot_target t = hot_target(fix);
	char why[512];
	const struct annot_func *f = annot_get(c, &t, why, sizeof(why));
	bool none = f != NULL;

	for (size_t i = 0; f && i < f->ninsn; i++)
		none = none && f->insn[i].file == NULL && f->insn[i].line == 0;
	CHECK(none && f->lacks == NULL && !annot_source_on(c), "--no-source: no lines, nothing said lacking");
	annot_cache_free(c);
}

static int run(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_stripped(void)
{
	struct annot_cache *c = cache(false, true);
	struct annot_target t = hot_target(stripped);
	char why[512], want[PATH_MAX + 64];
	const struct annot_func *f = annot_get(c, &t, why, sizeof(why));

	snprintf(want, sizeof(want), "no debug info for %s: no source lines", stripped);
	CHECK(f && f->ninsn > 10 && find_text(f, "idiv"), "stripped: still disassembled (%s)", f ? "" : why);
	CHECK(f && f->lacks && strcmp(f->lacks, want) == 0, "stripped: lacks says \"%s\" (%s)", want,
	      f && f->lacks ? f->lacks : "(null)");
	annot_cache_free(c);
}

/* A copy without DWARF whose .gnu_debuglink names a debug file beside it:
 * lines from there; and once that file is gone, a line saying so. */
static void test_debuglink(void)
{
	char cmd[4 * PATH_MAX], bin[PATH_MAX], dbg[PATH_MAX], why[512], want[PATH_MAX + 64];
	struct annot_cache *c;
	struct annot_target t;
	const struct annot_func *f;
	const struct annot_insn *div;

	snprintf(bin, sizeof(bin), "%s/linked", tmp);
	snprintf(dbg, sizeof(dbg), "%s/linked.debug", tmp);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --only-keep-debug '%s' '%s' && objcopy --strip-debug --add-gnu-debuglink='%s' '%s' '%s'", fix,
		 dbg, dbg, fix, bin);
	if (run(cmd) != 0) {
		CHECK_SKIP("objcopy failed: no debuglink copy");
		return;
	}
	t = hot_target(bin);
	c = cache(false, true);
	f = annot_get(c, &t, why, sizeof(why));
	div = find_text(f, "idiv");
	CHECK(f && f->lacks == NULL && div && div->line == div_line, "debuglink: lines from linked.debug (%u, lacks %s)",
	      div ? div->line : 0, f && f->lacks ? f->lacks : "nothing");
	annot_cache_free(c);
	unlink(dbg);
	c = cache(false, true);
	f = annot_get(c, &t, why, sizeof(why));
	snprintf(want, sizeof(want), "no debug info for %s: no source lines", bin);
	CHECK(f && f->lacks && strcmp(f->lacks, want) == 0 && find_text(f, "idiv") && !find_text(f, "idiv")->file,
	      "debug file missing: lacks says so (%s)", f && f->lacks ? f->lacks : "(null)");
	annot_cache_free(c);
	unlink(bin);
}

/* A process running a binary deleted since: its bytes (and lines) through
 * /proc/PID/map_files. */
static void test_deleted(void)
{
	char cmd[3 * PATH_MAX], bin[PATH_MAX], why[512], ready[16] = "";
	int in[2], out[2];
	pid_t pid;
	struct annot_cache *c;
	struct annot_target t;
	const struct annot_func *f;
	const struct annot_insn *div;

	snprintf(bin, sizeof(bin), "%s/deleted-prog", tmp);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fix, bin);
	if (run(cmd) != 0 || pipe(in) || pipe(out)) {
		CHECK(0, "cannot set up the deleted-file case");
		return;
	}
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(bin, bin, "wait", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (read(out[0], ready, sizeof(ready) - 1) <= 0 || strncmp(ready, "ready", 5)) {
		CHECK(0, "the fixture did not start");
	} else {
		unlink(bin);
		t = hot_target(bin);
		t.pid = pid;
		c = cache(false, true);
		f = annot_get(c, &t, why, sizeof(why));
		div = find_text(f, "idiv");
		CHECK(f && strstr(f->origin, "deleted") && f->ninsn > 10, "deleted binary: read through map_files (%s)",
		      f ? f->origin : why);
		CHECK(div && div->line == div_line, "deleted binary: its source lines too");
		annot_cache_free(c);
		/* Gone and no process: one line why. */
		t.pid = 0;
		c = cache(false, true);
		CHECK(annot_get(c, &t, why, sizeof(why)) == NULL && strstr(why, "cannot read the code of") &&
		      strstr(why, "No such file"), "deleted, no process: \"%s\"", why);
		annot_cache_free(c);
	}
	close(in[1]);
	close(out[0]);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	unlink(bin);
}

/* A binary replaced at its path (the old one kept by another link, so the
 * mapping is not "(deleted)"): the process's file by its inode, through
 * map_files, not the new one at the path. */
static void test_replaced(void)
{
	char cmd[4 * PATH_MAX], bin[PATH_MAX], why[512], ready[16] = "";
	int in[2], out[2];
	pid_t pid;
	struct annot_cache *c;
	struct annot_target t;
	const struct annot_func *f;

	snprintf(bin, sizeof(bin), "%s/replaced-prog", tmp);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && ln '%s' '%s.keep'", fix, bin, bin, bin);
	if (run(cmd) != 0 || pipe(in) || pipe(out)) {
		CHECK(0, "cannot set up the replaced-file case");
		return;
	}
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(bin, bin, "wait", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	snprintf(cmd, sizeof(cmd), "cp /bin/true '%s.new' && mv '%s.new' '%s'", bin, bin, bin);
	if (read(out[0], ready, sizeof(ready) - 1) <= 0 || strncmp(ready, "ready", 5) || run(cmd) != 0) {
		CHECK(0, "the fixture did not start, or cannot replace it");
	} else {
		t = hot_target(bin);
		t.pid = pid;
		c = cache(false, true);
		f = annot_get(c, &t, why, sizeof(why));
		CHECK(f && find_text(f, "idiv") && strstr(f->origin, "process's mapping"),
		      "replaced binary: the process's own file (%s)", f ? f->origin : why);
		annot_cache_free(c);
	}
	close(in[1]);
	close(out[0]);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -f '%s' '%s.keep'", bin, bin);
	run(cmd);
}

/* JIT code: this process's own memory named in a perf-PID.map. */
static void test_jit(void)
{
	/* push %rbp; mov %rsp,%rbp; call +0 (the next one); pop %rbp; ret */
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x5d, 0xc3 };
	uint8_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[PATH_MAX], dso[64], line[128], why[512];
	struct annot_cache *c;
	const struct annot_func *f;
	FILE *m;

	if (mem == MAP_FAILED) {
		CHECK(0, "mmap");
		return;
	}
	memcpy(mem, code, sizeof(code));
	snprintf(dso, sizeof(dso), "perf-%d.map", (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", tmp, dso);
	snprintf(line, sizeof(line), "%" PRIxPTR " %zx jitted_fn\n", (uintptr_t)mem, sizeof(code));
	if ((m = fopen(path, "w")) == NULL || fputs(line, m) < 0 || fclose(m)) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	c = annot_cache_new(&(struct annot_opts){ .source = true, .jit_dir = tmp });
	f = annot_get(c, &(struct annot_target){ .sym = "jitted_fn", .dso = dso, .pid = getpid(),
						 .start = (uintptr_t)mem },
		      why, sizeof(why));
	CHECK(f && f->jit && f->ninsn == 5 && f->insn[2].kind == ANNOT_CALL && f->insn[2].target_in_func &&
	      f->insn[2].target_off == 9 && f->insn[4].kind == ANNOT_RET, "JIT code: 5 instructions from memory (%s)",
	      f ? "" : why);
	CHECK(f && f->lacks && strstr(f->lacks, "JIT code from perf-") && strstr(f->lacks, "live process"),
	      "JIT code: marked as such (%s)", f && f->lacks ? f->lacks : "(null)");
	f = annot_get(c, &(struct annot_target){ .sym = "jitted_fn", .dso = dso, .start = (uintptr_t)mem }, why,
		      sizeof(why));
	CHECK(f && f->jit && f->ninsn == 5, "JIT code: the process named by the map when the caller names none (%s)",
	      f ? "" : why);
	annot_cache_free(c);
	unlink(path);
	munmap(mem, 4096);
}

/* A kcore of our own: one PT_LOAD at a kernel address, and kallsyms. */
static void test_kcore_file(void)
{
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3, 0xcc, 0xcc };
	const uint64_t base = 0xffffffff81000000ULL;
	char kcore[PATH_MAX], ksyms[PATH_MAX], why[512];
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
			  .e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2 };
	Elf64_Phdr ph[2] = {
		{ .p_type = PT_NOTE, .p_offset = 0, .p_filesz = 0 },
		{ .p_type = PT_LOAD, .p_offset = 4096, .p_vaddr = base, .p_filesz = 4096, .p_memsz = 4096 },
	};
	uint8_t page[4096] = { 0 };
	struct annot_cache *c;
	const struct annot_func *f;
	FILE *k;
	int fd;

	snprintf(kcore, sizeof(kcore), "%s/kcore", tmp);
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", tmp);
	memcpy(page + 0x40, code, sizeof(code));
	fd = open(kcore, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	k = fopen(ksyms, "w");
	if (fd < 0 || !k || pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pwrite(fd, ph, sizeof(ph), sizeof(eh)) != sizeof(ph) || pwrite(fd, page, sizeof(page), 4096) != sizeof(page) ||
	    fprintf(k, "%" PRIx64 " T _stext\n%" PRIx64 " T fake_fn\n%" PRIx64 " t next_fn\t[mod]\n", base, base + 0x40,
		    base + 0x46) < 0) {
		CHECK(0, "cannot write the fake kcore");
		return;
	}
	close(fd);
	fclose(k);
	c = annot_cache_new(&(struct annot_opts){ .source = true, .kcore = kcore, .kallsyms = ksyms });
	f = annot_get(c, &(struct annot_target){ .sym = "fake_fn", .dso = "[kernel.kallsyms]", .kernel = true,
						 .start = base + 0x40 },
		      why, sizeof(why));
	CHECK(f && f->kernel && f->ninsn == 4 && f->size == 6 && f->insn[3].kind == ANNOT_RET &&
	      strcmp(f->insn[1].text, "movq   %rsp, %rbp") == 0,
	      "kcore: fake_fn's 4 instructions, its size from kallsyms (%s)", f ? f->insn[1].text : why);
	CHECK(f && f->lacks && strstr(f->lacks, "code from ") && strstr(f->lacks, "no source lines"),
	      "kcore: lacks says where the code came from (%s)", f && f->lacks ? f->lacks : "(null)");
	CHECK(annot_get(c, &(struct annot_target){ .sym = "x", .dso = "[kernel.kallsyms]", .kernel = true,
						   .start = base + 8192, .size = 16 },
			why, sizeof(why)) == NULL && strstr(why, "no segment"),
	      "kcore: an address outside every segment (%s)", why);
	annot_cache_free(c);
	c = annot_cache_new(&(struct annot_opts){ .source = true, .kcore = "/nonexistent/kcore", .kallsyms = ksyms });
	CHECK(annot_get(c, &(struct annot_target){ .sym = "fake_fn", .dso = "[kernel.kallsyms]", .kernel = true,
						   .start = base + 0x40 },
			why, sizeof(why)) == NULL && strstr(why, "run as root, or give -k VMLINUX"),
	      "no kcore: one line with the fix (%s)", why);
	annot_cache_free(c);
	unlink(kcore);
	unlink(ksyms);
}

/* No -k: the code from a kcore (here one made of the vmlinux's text, at the
 * shifted address), its lines from the debug vmlinux installed under the
 * debug root as the distribution puts it (boot/vmlinux-RELEASE). */
static void kcore_debug_vmlinux(const char *vm, const char *ksyms, uint64_t kfn, uint64_t shift, uint64_t kfn_size)
{
	char kcore[PATH_MAX], root[PATH_MAX], dbg[PATH_MAX + 128], cmd[3 * PATH_MAX + 512], why[512];
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
			  .e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_offset = 4096, .p_filesz = 4096, .p_memsz = 4096 };
	uint8_t page[4096] = { 0 };
	uint64_t page_addr = kfn & ~4095ULL, foff = 0;
	struct annot_cache *c;
	const struct annot_func *f;
	const struct annot_insn *div;
	struct utsname u;
	Elf *e;
	size_t nph;
	int fd = open(vm, O_RDONLY);

	/* The vmlinux's page holding kfn, by its program headers. */
	elf_version(EV_CURRENT);
	if (fd >= 0 && (e = elf_begin(fd, ELF_C_READ, NULL)) != NULL) {
		for (size_t i = 0; elf_getphdrnum(e, &nph) == 0 && i < nph; i++) {
			GElf_Phdr p;

			if (gelf_getphdr(e, (int)i, &p) && p.p_type == PT_LOAD && kfn >= p.p_vaddr &&
			    kfn < p.p_vaddr + p.p_filesz)
				foff = p.p_offset + (page_addr - p.p_vaddr);
		}
		elf_end(e);
	}
	if (fd < 0 || foff == 0 || pread(fd, page, sizeof(page), (off_t)foff) <= 0 || uname(&u)) {
		CHECK(0, "cannot read the vmlinux's text");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	ph.p_vaddr = page_addr + shift;
	snprintf(kcore, sizeof(kcore), "%s/kcore-vm", tmp);
	snprintf(root, sizeof(root), "%s/dbgroot", tmp);
	snprintf(dbg, sizeof(dbg), "%s/boot/vmlinux-%s", root, u.release);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/boot' && cp '%s' '%s'", root, vm, dbg);
	fd = open(kcore, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || run(cmd) != 0 || pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pwrite(fd, &ph, sizeof(ph), sizeof(eh)) != sizeof(ph) || pwrite(fd, page, sizeof(page), 4096) != sizeof(page)) {
		CHECK(0, "cannot write the vmlinux's kcore");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	c = annot_cache_new(&(struct annot_opts){ .source = true, .kcore = kcore, .kallsyms = ksyms, .debug_root = root });
	f = annot_get(c, &(struct annot_target){ .sym = "kfn", .dso = "[kernel.kallsyms]", .kernel = true,
						 .start = kfn + shift },
		      why, sizeof(why));
	div = find_text(f, "idiv");
	CHECK(f && strcmp(f->origin, kcore) == 0 && f->size == kfn_size && !f->lacks && div && base_is(div->file, "vm.c") &&
	      div->line == 6, "kcore's code with lines from the debug vmlinux (%s, %s:%u, lacks %s)", f ? f->origin : why,
	      div && div->file ? div->file : "-", div ? div->line : 0, f && f->lacks ? f->lacks : "nothing");
	annot_cache_free(c);
}

/* -k: a vmlinux of our own (linked at a kernel address, with DWARF), the
 * running "kernel" 2 MiB above it as its kallsyms says (KASLR). */
static void test_vmlinux(void)
{
	char cmd[4 * PATH_MAX], vsrc[PATH_MAX], vm[PATH_MAX], ksyms[PATH_MAX], why[512];
	const uint64_t shift = 0x200000;
	uint64_t stext, kfn, kfn_size;
	struct annot_cache *c;
	const struct annot_func *f;
	const struct annot_insn *div;
	FILE *k;

	snprintf(vsrc, sizeof(vsrc), "%s/vm.c", tmp);
	snprintf(vm, sizeof(vm), "%s/vmlinux", tmp);
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms-vm", tmp);
	if ((k = fopen(vsrc, "w")) == NULL ||
	    fputs("void _stext(void);\nlong kfn(long a, long b);\nvoid _stext(void) {}\n"
		  "long kfn(long a, long b)\n{\n\treturn a / b;\n}\n", k) < 0 || fclose(k)) {
		CHECK(0, "cannot write %s", vsrc);
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "cc -O1 -g -mcmodel=kernel -fno-pie -nostdlib -static -no-pie -Wl,-Ttext-segment=0xffffffff81000000 "
		 "-Wl,-e,kfn -o '%s' '%s' 2>/dev/null", vm, vsrc);
	if (run(cmd) != 0 || !nm_sym(vm, "_stext", &stext, &(uint64_t){ 0 }) || !nm_sym(vm, "kfn", &kfn, &kfn_size)) {
		CHECK_SKIP("cc cannot link a kernel-address ELF here");
		return;
	}
	if ((k = fopen(ksyms, "w")) == NULL ||
	    fprintf(k, "%" PRIx64 " T _stext\n%" PRIx64 " T kfn\n%" PRIx64 " T after_kfn\n", stext + shift, kfn + shift,
		    kfn + shift + kfn_size) < 0 || fclose(k)) {
		CHECK(0, "cannot write %s", ksyms);
		return;
	}
	c = annot_cache_new(&(struct annot_opts){ .source = true, .vmlinux = vm, .kcore = "/nonexistent/kcore",
						  .kallsyms = ksyms });
	f = annot_get(c, &(struct annot_target){ .sym = "kfn", .dso = "[kernel.kallsyms]", .kernel = true,
						 .start = kfn + shift },
		      why, sizeof(why));
	div = find_text(f, "idiv");
	CHECK(f && f->kernel && f->size == kfn_size && div && div->addr == f->start + div->offset &&
	      strcmp(f->origin, vm) == 0, "-k: kfn from the vmlinux under a 2 MiB KASLR shift (%s)", f ? f->origin : why);
	CHECK(f && !f->lacks && div && base_is(div->file, "vm.c") && div->line == 6,
	      "-k: its divide at vm.c:6 from the vmlinux's DWARF (%s:%u, lacks %s)", div && div->file ? div->file : "-",
	      div ? div->line : 0, f && f->lacks ? f->lacks : "nothing");
	CHECK(annot_get(c, &(struct annot_target){ .sym = "mod_fn", .dso = "[mod]", .kernel = true,
						   .start = 0xffffffffc0000000ULL, .size = 16 },
			why, sizeof(why)) == NULL && strstr(why, "not in ") && strstr(why, "run as root"),
	      "-k, a module's code and no kcore: \"%s\"", why);
	annot_cache_free(c);
	kcore_debug_vmlinux(vm, ksyms, kfn, shift, kfn_size);
}

/* The real /proc/kcore (root): a kernel function's bytes as libelf finds
 * them in kcore at its kallsyms address. */
static void test_kcore_live(void)
{
	struct annot_cache *c;
	const struct annot_func *f;
	const struct annot_symtab *k;
	const struct annot_sym *s;
	char why[512];
	Elf *e;
	int fd = open("/proc/kcore", O_RDONLY);
	size_t nph;
	bool same = false;

	if (fd < 0) {
		CHECK_SKIP("/proc/kcore unreadable here (not root, or a kernel without CONFIG_PROC_KCORE)");
		return;
	}
	c = annot_cache_new(&(struct annot_opts){ .source = true });
	k = annot_syms_kernel(c);
	s = annot_syms_named(k, "schedule");
	if (s == NULL) {
		CHECK_SKIP("no schedule in /proc/kallsyms (addresses hidden?)");
		goto out;
	}
	f = annot_get(c, &(struct annot_target){ .sym = "schedule", .dso = "[kernel.kallsyms]", .kernel = true,
						 .start = s->addr },
		      why, sizeof(why));
	CHECK(f != NULL && f->ninsn > 3, "schedule annotated from /proc/kcore (%s)", f ? "" : why);
	elf_version(EV_CURRENT);
	if (f && (e = elf_begin(fd, ELF_C_READ, NULL)) != NULL && elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			uint8_t buf[64];
			size_t n = 0;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || s->addr < ph.p_vaddr ||
			    s->addr >= ph.p_vaddr + ph.p_filesz)
				continue;
			if (pread(fd, buf, sizeof(buf), (off_t)(ph.p_offset + s->addr - ph.p_vaddr)) != sizeof(buf))
				break;
			same = true;
			for (size_t j = 0; j < f->ninsn && n + f->insn[j].len <= sizeof(buf); n += f->insn[j].len, j++)
				same = same && memcmp(f->insn[j].bytes, buf + n, f->insn[j].len) == 0;
			break;
		}
		elf_end(e);
	}
	CHECK(same, "its instructions' bytes are kcore's at the kallsyms address");
out:
	annot_cache_free(c);
	close(fd);
}

static void test_srcline(void)
{
	struct srcline_cache *c = srcline_cache_new("/nonexistent");
	const struct annot_insn *div;
	struct annot_cache *ac = cache(false, false);
	struct annot_target t = hot_target(fix);
	char why[256], buf[PATH_MAX], want[64];
	const struct annot_func *f = annot_get(ac, &t, why, sizeof(why));
	uint64_t off = 0;
	Elf *e;
	int fd = open(fix, O_RDONLY);
	size_t nph;

	div = find_text(f, "idiv");
	snprintf(want, sizeof(want), "fixture_annot.c:%u", div_line);
	CHECK(div && srcline_addr(c, fix, NULL, 0, div->addr, false, buf, sizeof(buf)) && strcmp(buf, want) == 0,
	      "srcline_addr: %s (want %s)", buf, want);
	CHECK(div && srcline_addr(c, fix, NULL, 0, div->addr, false, buf, sizeof(buf)) && strcmp(buf, want) == 0,
	      "srcline_addr remembered: %s", buf);
	CHECK(div && srcline_addr(c, fix, NULL, 0, div->addr, true, buf, sizeof(buf)) && buf[0] == '/' &&
	      strstr(buf, want), "srcline_addr full path: %s", buf);
	/* The file offset of the divide, by the PT_LOAD holding it. */
	elf_version(EV_CURRENT);
	if (div && fd >= 0 && (e = elf_begin(fd, ELF_C_READ, NULL)) && elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && div->addr >= ph.p_vaddr &&
			    div->addr < ph.p_vaddr + ph.p_filesz)
				off = div->addr - ph.p_vaddr + ph.p_offset;
		}
		elf_end(e);
	}
	CHECK(off && srcline_addr_off(c, fix, NULL, 0, off, false, buf, sizeof(buf)) && strcmp(buf, want) == 0,
	      "srcline_addr_off 0x%" PRIx64 ": %s", off, buf);
	CHECK(!srcline_addr(c, stripped, NULL, 0, div ? div->addr : 0, false, buf, sizeof(buf)) && buf[0] == '\0',
	      "srcline_addr in a stripped file: none");
	if (fd >= 0)
		close(fd);
	srcline_cache_free(c);
	annot_cache_free(ac);
}

static void test_parsers(void)
{
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB },
			  .e_machine = EM_AARCH64, .e_phoff = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_offset = 0x1000, .p_vaddr = 0x400000, .p_filesz = 0x100 };
	uint8_t hdr[sizeof(eh) + sizeof(ph)];
	uint64_t off = 0, avail = 0;
	const char *map = "400 10 a\n0x500 20 b\nzz 10 c\n500 30 b again\n600 10\n700 fffffffffffffffff big\n";

	memcpy(hdr, &eh, sizeof(eh));
	memcpy(hdr + sizeof(eh), &ph, sizeof(ph));
	CHECK(annot_phdr_machine(hdr, sizeof(hdr)) == EM_AARCH64, "e_machine read");
	CHECK(annot_phdr_map(hdr, sizeof(hdr), 0x400010, 0x10, &off, &avail) == 0 && off == 0x1010,
	      "a range in the segment: offset 0x%" PRIx64, off);
	CHECK(annot_phdr_map(hdr, sizeof(hdr), 0x4000f0, 0x20, &off, &avail) == -ENOENT && avail == 0x10,
	      "a range past its end: -ENOENT, 0x10 bytes there");
	CHECK(annot_phdr_map(hdr, sizeof(hdr) - 1, 0x400010, 1, &off, &avail) == -ENOEXEC,
	      "program headers cut short: -ENOEXEC");
	hdr[0] = 0;
	CHECK(annot_phdr_map(hdr, sizeof(hdr), 0x400010, 1, &off, &avail) == -ENOEXEC, "not ELF: -ENOEXEC");
	CHECK(annot_jitmap_parse(map, strlen(map), 0x400) == 0x10, "perf map: a size");
	CHECK(annot_jitmap_parse(map, strlen(map), 0x500) == 0x30, "perf map: the latest line wins");
	CHECK(annot_jitmap_parse(map, strlen(map), 0x600) == 0 && annot_jitmap_parse(map, strlen(map), 0x700) == 0,
	      "perf map: a line without a name, a size of 17 digits: none");
}

/* arm64 by e_machine: calls, jumps, returns and their targets. */
static void test_arm64(void)
{
	static uint8_t bytes[] = {
		0x1f, 0x20, 0x03, 0xd5, /* nop */
		0x02, 0x00, 0x00, 0x94, /* bl 0x100c */
		0xff, 0xff, 0xff, 0x17, /* b 0x1004 */
		0x40, 0x00, 0x00, 0xb4, /* cbz x0, 0x1014 (past the end) */
		0xc0, 0x03, 0x5f, 0xd6, /* ret */
	};
	struct annot_code code = { .bytes = bytes, .len = sizeof(bytes), .start = 0x1000, .machine = EM_AARCH64 };
	struct annot_cache *c = cache(false, true);
	struct annot_insn *in = NULL;
	long n = annot_disasm(c, &code, NULL, 0, &in);

	CHECK(n == 5 && strcmp(in[0].text, "nop") == 0 && in[0].kind == ANNOT_PLAIN, "arm64: 5 instructions, nop first (%ld)", n);
	CHECK(n == 5 && in[1].kind == ANNOT_CALL && in[1].target_in_func && in[1].target_off == 0xc,
	      "arm64: bl to +0xc (%s)", n == 5 ? in[1].text : "");
	CHECK(n == 5 && in[2].kind == ANNOT_JUMP && in[2].target_in_func && in[2].target_off == 4,
	      "arm64: b back to +4 (%s)", n == 5 ? in[2].text : "");
	CHECK(n == 5 && in[3].kind == ANNOT_JUMP && in[3].has_target && !in[3].target_in_func &&
	      in[3].target_addr == 0x1014, "arm64: cbz past the end (%s)", n == 5 ? in[3].text : "");
	CHECK(n == 5 && in[4].kind == ANNOT_RET, "arm64: ret");
	free(in);
	annot_cache_free(c);
}

static void test_errors(void)
{
	struct annot_cache *c = cache(false, true);
	char why[512];

	CHECK(annot_get(c, &(struct annot_target){ .sym = "f", .dso = "/nonexistent/bin" }, why, sizeof(why)) == NULL &&
	      strcmp(why, "cannot read the code of /nonexistent/bin: No such file or directory") == 0,
	      "a missing file: \"%s\"", why);
	CHECK(annot_get(c, &(struct annot_target){ .sym = "f", .dso = "[vdso]" }, why, sizeof(why)) == NULL &&
	      strstr(why, "no code file"), "[vdso]: \"%s\"", why);
	CHECK(annot_get(c, &(struct annot_target){ .sym = "f", .dso = fix, .start = 0x10000000, .size = 8 }, why, sizeof(why)) ==
		      NULL && strstr(why, "no segment"), "an address no segment holds: \"%s\"", why);
	annot_cache_free(c);
}

int main(int argc, char **argv)
{
	char cmd[PATH_MAX + 16];

	if (argc < 4) {
		fprintf(stderr, "usage: test_annotate FIXTURE STRIPPED SOURCE\n");
		return 2;
	}
	fix = argv[1];
	stripped = argv[2];
	src = argv[3];
	if (!mkdtemp(tmp) || !nm_sym(fix, "annot_hot", &hot_addr, &hot_size) ||
	    !nm_sym(fix, "annot_leaf", &leaf_addr, &(uint64_t){ 0 })) {
		printf("1..0 # SKIP no temporary directory or nm\n");
		return 0;
	}
	asm_line = line_of("ANNOT_ASM_" "LINE");
	div_line = line_of("ANNOT_DIV_" "LINE");
	test_att();
	test_intel();
	test_no_source();
	test_stripped();
	test_debuglink();
	test_deleted();
	test_replaced();
	test_jit();
	test_kcore_file();
	test_vmlinux();
	test_kcore_live();
	test_srcline();
	test_parsers();
	test_arm64();
	test_errors();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
	return check_done();
}
