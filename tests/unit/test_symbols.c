/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Symbol resolution: ELF tables of the fixture binaries, live fixture
 * processes read through /proc as perftop reads them, the record-driven
 * flows (mmap, fork, comm, exit), and the kernel's kallsyms.
 *
 * usage: test_symbols PIE NOPIE STRIPPED LIB STRIPPED_LIB FIXTURES_DIR DEBUGLINK DEBUG_ROOT CXX
 *                     MINIDEBUG
 *
 * DEBUGLINK is the PIE stripped with a .gnu_debuglink to its debug file;
 * DEBUG_ROOT holds the PIE's debug file by build-id (STRIPPED has the same).
 * CXX is a C++ program ("-" when there was no C++ compiler); MINIDEBUG the
 * library stripped, its hidden functions kept in .gnu_debugdata. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "elfsym.h"
#include "elfsym_build.h"
#include "symcache.h"
#include "symbols.h"
#include "symtest.h"

enum { A_PIE, A_NOPIE, A_STRIPPED, A_LIB, A_LIB_STRIPPED, A_DIR, A_DEBUGLINK, A_DEBUG_ROOT, A_CXX, A_MINIDEBUG, A_N };

static const char *const fn_names[] = {
	"fixture_alpha", "fixture_beta", "fixture_static", "fixture_lib_function", "fixture_lib_hidden",
};
#define NFN (sizeof(fn_names) / sizeof(fn_names[0]))

/* pids above pid_max: never in /proc, so only records speak of them. */
#define FAKE_PID 0x7ffff000

static char abs_path[A_N][PATH_MAX];


static struct elfsym *load_with(const char *path, int (*fn)(struct elfsym **, int, const char *),
				 const char *label)
{
	struct elfsym *t = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		fn ? fn(&t, fd, label) : elfsym_load_debug_fd(&t, fd);
		close(fd);
	}
	return t;
}

/* Stripped binaries: function starts from .eh_frame_hdr, named LABEL+0xVADDR
 * at the addresses the symbols had; separate debug files. */
static void test_stripped(char **argv, const struct elfsym *pie, const struct elfsym *lib)
{
	const struct elfsym_sym *a = sym_named(pie, "fixture_alpha"), *st = sym_named(pie, "fixture_static");
	const struct elfsym_sym *h = sym_named(lib, "fixture_lib_hidden"), *f;
	struct elfsym *t, *dbg;
	char want[64];

	t = load_with(argv[A_STRIPPED], elfsym_load_fd_label, "prog");
	CHECK(t && t->from_dynsym && t->nsynth > 0 && t->nsynth == t->nsyms, "stripped: %zu starts from .eh_frame_hdr",
	      t ? t->nsynth : 0);
	if (t && a && st) {
		snprintf(want, sizeof(want), "prog+0x%" PRIx64, a->addr);
		f = elfsym_find(t, a->addr + 1);
		CHECK(f && strcmp(elfsym_name(t, f), want) == 0, "stripped: %s at fixture_alpha", f ? elfsym_name(t, f) : "-");
		snprintf(want, sizeof(want), "prog+0x%" PRIx64, st->addr);
		f = elfsym_find(t, st->addr);
		CHECK(f && strcmp(elfsym_name(t, f), want) == 0, "stripped: static function has its own start");
	}
	elfsym_free(t);
	t = load_with(argv[A_LIB_STRIPPED], elfsym_load_fd_label, "lib");
	f = t ? sym_named(t, "fixture_lib_function") : NULL;
	CHECK(f && elfsym_find(t, f->addr) == f, "stripped library: .dynsym names win over starts");
	if (t && h) {
		snprintf(want, sizeof(want), "lib+0x%" PRIx64, h->addr);
		f = elfsym_find(t, h->addr);
		CHECK(f && strcmp(elfsym_name(t, f), want) == 0, "stripped library: hidden function by its start");
	}
	elfsym_free(t);

	t = load_with(argv[A_DEBUGLINK], elfsym_load_fd_label, "x");
	CHECK(t && t->debuglink && strcmp(t->debuglink, "fixture_debuglink.debug") == 0, "debuglink read: %s",
	      t && t->debuglink ? t->debuglink : "-");
	dbg = load_with("", NULL, NULL);
	CHECK(dbg == NULL, "no debug file: nothing");
	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s.debug", argv[A_DEBUGLINK]);
		dbg = load_with(path, NULL, NULL);
	}
	CHECK(dbg && !dbg->from_dynsym && sym_named(dbg, "fixture_static") && dbg->build_id_len == 20,
	      "debug file: .symtab and build-id, no segment bytes needed");
	if (t && dbg) {
		elfsym_adopt_symbols(t, dbg);
		f = sym_named(t, "fixture_alpha");
		CHECK(f && a && f->addr == a->addr && f->size == a->size && !t->from_dynsym && t->nsynth == 0,
		      "adopted: the debug file's symbols");
	} else {
		elfsym_free(dbg);
	}
	elfsym_free(t);
}

static void test_minidebug(char **argv, const struct elfsym *lib);

static void test_elfsym(char **argv)
{
	struct elfsym *pie = NULL, *nopie = NULL, *lib = NULL, *t = NULL;
	const struct elfsym_sym *a, *b;
	int rc;

	rc = elfsym_load(&pie, argv[A_PIE]);
	CHECK(rc == 0 && pie && pie->type == ET_DYN && !pie->from_dynsym, "PIE loads from .symtab, ET_DYN (%d)", rc);
	rc = elfsym_load(&nopie, argv[A_NOPIE]);
	CHECK(rc == 0 && nopie && nopie->type == ET_EXEC, "non-PIE loads, ET_EXEC (%d)", rc);
	rc = elfsym_load(&lib, argv[A_LIB]);
	CHECK(rc == 0 && lib && lib->type == ET_DYN, "library loads (%d)", rc);
	if (!pie || !nopie || !lib)
		goto out;
	CHECK(pie->nloads >= 2 && pie->build_id_len == 20, "PT_LOADs and the build id recorded");
	a = sym_named(pie, "fixture_alpha");
	b = sym_named(pie, "fixture_static");
	CHECK(a && b && a->size > 0, "global and static functions present");
	if (a) {
		CHECK(elfsym_find(pie, a->addr) == a, "start of fixture_alpha");
		CHECK(elfsym_find(pie, a->addr + a->size - 1) == a, "last byte of fixture_alpha");
		CHECK(elfsym_find(pie, a->addr - 1) != a, "byte before is not fixture_alpha");
	}
	a = sym_named(nopie, "fixture_beta");
	CHECK(a && a->addr >= 0x400000 && elfsym_find(nopie, a->addr + 2) == a, "non-PIE: absolute addresses");
	a = sym_named(lib, "fixture_lib_function");
	CHECK(a && sym_named(lib, "fixture_lib_function_local") == NULL, "global name wins over its local alias");
	CHECK(sym_named(lib, "fixture_lib_hidden") != NULL, "hidden function in .symtab");
	CHECK(elfsym_find(lib, 0) == NULL && elfsym_find(lib, UINT64_MAX) == NULL, "outside: nothing");

	rc = elfsym_load(&t, argv[A_STRIPPED]);
	CHECK(rc == 0 && t && sym_named(t, "fixture_alpha") == NULL, "stripped program: loads, no own symbols");
	elfsym_free(t);
	rc = elfsym_load(&t, argv[A_LIB_STRIPPED]);
	CHECK(rc == 0 && t && t->from_dynsym && sym_named(t, "fixture_lib_function") &&
	      !sym_named(t, "fixture_lib_hidden"), "stripped library: exported functions from .dynsym");
	elfsym_free(t);
	test_stripped(argv, pie, lib);
	test_minidebug(argv, lib);
	CHECK(elfsym_load(&t, "/nonexistent") == -ENOENT && t == NULL, "missing file: -ENOENT");
	CHECK(elfsym_load(&t, argv[A_DIR]) == -ENOEXEC && t == NULL, "a directory: -ENOEXEC");
	CHECK(elfsym_load_buf(&t, "hello", 5) == -ENOEXEC && t == NULL, "not ELF: -ENOEXEC");
out:
	elfsym_free(pie);
	elfsym_free(nopie);
	elfsym_free(lib);
}

/* The radix sort's tables are the comparison sort's, alias for alias:
 * the fixtures (aliases of every rank), stripped files (synthetic starts
 * from .eh_frame_hdr) and whatever libc and its debug file hold here. */
static void test_sort_same(char **argv)
{
	const char *paths[] = { argv[A_PIE], argv[A_NOPIE], argv[A_LIB], argv[A_LIB_STRIPPED], argv[A_STRIPPED],
				argv[A_CXX], argv[A_MINIDEBUG], "/proc/self/exe", "/lib/x86_64-linux-gnu/libc.so.6",
				"/lib/x86_64-linux-gnu/libm.so.6" };
	char debug[PATH_MAX] = "";
	size_t compared = 0;

	for (size_t i = 0; i <= sizeof(paths) / sizeof(paths[0]); i++) {
		const char *path = i < sizeof(paths) / sizeof(paths[0]) ? paths[i] : debug;
		struct elfsym *a = NULL, *b = NULL;
		bool same;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		elfsym_build_qsort = false;
		if (path == debug)
			elfsym_load_debug_fd(&a, fd);
		else
			elfsym_load_fd_label(&a, fd, "x");
		elfsym_build_qsort = true;
		if (path == debug)
			elfsym_load_debug_fd(&b, fd);
		else
			elfsym_load_fd_label(&b, fd, "x");
		elfsym_build_qsort = false;
		close(fd);
		/* libc's debug file, where libc6-dbg is installed */
		if (a && strstr(path, "/libc.so.6") && a->build_id_len > 1) {
			int n = snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%02x/", a->build_id[0]);

			for (size_t k = 1; k < a->build_id_len && n > 0 && (size_t)n + 3 < sizeof(debug); k++)
				n += snprintf(debug + n, sizeof(debug) - (size_t)n, "%02x", a->build_id[k]);
			strlcat(debug, ".debug", sizeof(debug));
		}
		same = (a == NULL) == (b == NULL) && (!a || a->nsyms == b->nsyms);
		for (size_t k = 0; same && a && k < a->nsyms; k++)
			same = a->syms[k].addr == b->syms[k].addr && a->syms[k].size == b->syms[k].size &&
			       strcmp(elfsym_name(a, &a->syms[k]), elfsym_name(b, &b->syms[k])) == 0;
		CHECK(same, "%s: the radix sort's table is the comparison sort's (%zu symbols)", path,
		      a ? a->nsyms : 0);
		compared += a ? a->nsyms : 0;
		elfsym_free(a);
		elfsym_free(b);
	}
	CHECK(compared > 100, "tables compared (%zu symbols)", compared);
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*len = buf ? (size_t)n : 0;
	return buf;
}

/* Truncated and corrupted copies: "no symbols" or an error, never a crash. */
static void test_elf_damage(const char *lib_path)
{
	char tmpl[] = "/tmp/perftop-trunc-XXXXXX";
	size_t len, bad = 0, rounds = 0;
	unsigned char *img = read_all(lib_path, &len), *copy;
	uint64_t x = 88172645463325252ull;
	struct elfsym *t;
	int fd, rc;

	if (img == NULL || len < 4096) {
		CHECK_SKIP("cannot read the library");
		free(img);
		return;
	}
	fd = mkstemp(tmpl);
	if (fd >= 0 && write(fd, img, 200) == 200) {
		rc = elfsym_load(&t, tmpl);
		CHECK(rc < 0 && t == NULL, "first 200 bytes in a file: error, no symbols (%d)", rc);
	} else {
		CHECK_SKIP("cannot write a temporary file");
	}
	if (fd >= 0) {
		close(fd);
		unlink(tmpl);
	}
	for (size_t cut = 0; cut < len; cut += 61) {
		rc = elfsym_load_buf(&t, img, cut);
		bad += rc == 0 && t->nsyms > 0 && cut < 64;
		elfsym_free(t);
		rounds++;
	}
	CHECK(bad == 0, "%zu truncations: nothing from a header-less image", rounds);
	copy = malloc(len);
	for (int r = 0; copy && r < 2000; r++) {
		memcpy(copy, img, len);
		for (int k = 0; k < 8; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* Mostly the headers, where lies do harm. */
			copy[(x >> 8) % (k < 6 ? 1024 : len)] = (unsigned char)x;
		}
		if (elfsym_load_buf(&t, copy, len) == 0) {
			for (int q = 0; q < 8; q++)
				(void)elfsym_find(t, x + (uint64_t)q * 16);
			elfsym_free(t);
		}
	}
	CHECK(copy != NULL, "2000 corrupted images: no crash");
	free(copy);
	free(img);
}

static void check_child(struct symbols *s, const struct fixture *c, const char *exe, const char *lib,
			bool stripped, const char *what)
{
	struct sym_result r, r2;

	char synth[PATH_MAX];

	snprintf(synth, sizeof(synth), "%s+0x", what);
	for (size_t i = 0; i < NFN; i++) {
		bool in_lib = i >= 3;
		bool ok;

		symbols_resolve(s, c->pid, c->addr[i], false, &r);
		/* Stripped: named by .eh_frame_hdr's function start. */
		ok = stripped && !in_lib ? strncmp(r.sym, synth, strlen(synth)) == 0 : strcmp(r.sym, fn_names[i]) == 0;
		CHECK(ok && strcmp(r.dso, in_lib ? lib : exe) == 0 && !r.kernel,
		      "%s: %s -> %s in %s", what, fn_names[i], r.sym, r.dso);
		symbols_resolve(s, c->pid, c->addr[i] + 4, false, &r2);
		CHECK(r2.key == r.key && strcmp(r2.sym, r.sym) == 0, "%s: inside %s, same key", what, fn_names[i]);
		/* For annotation: the function's start, size and the offset (again from the cache). */
		CHECK(r.sym_off == 0 && r2.sym_off == 4 && r2.sym_start == r.sym_start && r.sym_size > 4 &&
		      r.sym_start != 0, "%s: %s starts at %#" PRIx64 " (%" PRIu64 " bytes), +4 is offset %" PRIu64,
		      what, fn_names[i], r.sym_start, r.sym_size, r2.sym_off);
		symbols_resolve(s, c->pid, c->addr[i] + 4, false, &r2);
		CHECK(r2.sym_off == 4 && r2.sym_start == r.sym_start, "%s: the cache keeps the offset", what);
	}
	symbols_resolve(s, c->pid, c->addr[0], false, &r);
	symbols_resolve(s, c->pid, c->addr[1], false, &r2);
	CHECK(r.key != r2.key, "%s: alpha and beta keys differ", what);
	symbols_resolve(s, c->pid, 0x1000, false, &r);
	CHECK(strcmp(r.sym, "[unknown]") == 0 && strcmp(r.dso, "[unknown]") == 0, "%s: unmapped address", what);
}

static void test_live(char **argv)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s;
	struct fixture c;
	struct sym_result r;
	/* The last: STRIPPED again, with the debug root holding its debug file. */
	static const int which[] = { A_PIE, A_NOPIE, A_STRIPPED, A_DEBUGLINK, A_STRIPPED };
	const size_t n = sizeof(which) / sizeof(which[0]);

	for (size_t k = 0; k < n; k++) {
		int w = which[k];
		bool synth = w == A_STRIPPED && k != n - 1;

		if (fixture_spawn(&c, argv[w], fn_names, NFN) != 0) {
			CHECK(0, "cannot run %s", argv[w]);
			fixture_reap(&c);
			continue;
		}
		s = symbols_new(&o);
		if (k == n - 1)
			CHECK(symbols_set_debug_root(s, argv[A_DEBUG_ROOT]) == 0, "debug root set");
		/* Half the time through an explicit synthesize, half lazily. */
		if (k != 1)
			CHECK(symbols_synthesize(s, c.pid) == 0, "synthesize %s", argv[w]);
		check_child(s, &c, argv[w], argv[A_LIB], synth, strrchr(argv[w], '/') ? strrchr(argv[w], '/') + 1 : argv[w]);
		CHECK(symbols_comm_of(s, c.pid) && strncmp(symbols_comm_of(s, c.pid), "fixture_", 8) == 0,
		      "comm from /proc");
		if (k == 0) {
			struct symbols_stats st;

			symbols_stats(s, &st);
			CHECK(st.processes >= 1 && st.dsos >= 2 && st.tables >= 2 && st.symbols >= 5 &&
			      st.bytes > 4096, "stats: %zu procs %zu dsos %zu tables %zu syms %zu bytes",
			      st.processes, st.dsos, st.tables, st.symbols, st.bytes);
		}
		pid_t pid = c.pid;

		fixture_reap(&c);
		/* Late samples of an exited process resolve until reaped twice. */
		symbols_exit(s, pid, pid);
		symbols_reap(s);
		symbols_resolve(s, pid, c.addr[3], false, &r);
		CHECK(strcmp(r.sym, "fixture_lib_function") == 0, "exited, reaped once: still resolves");
		symbols_reap(s);
		symbols_resolve(s, pid, c.addr[3], false, &r);
		CHECK(strcmp(r.sym, "[unknown]") == 0, "reaped twice: gone (%s)", r.sym);
		symbols_free(s);
	}
}

/* The vDSO: the same image in every process, ours gives the offsets. */
static void test_vdso(const char *exe)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	char path[64], line[512];
	uint64_t start = 0, end = 0, mine = 0, mend = 0, off = 0;
	const struct elfsym_sym *cg;
	struct elfsym *t = NULL;
	struct sym_result r;
	struct symbols *s;
	struct fixture c;
	FILE *f;

	if ((f = fopen("/proc/self/maps", "r")) != NULL) {
		while (fgets(line, sizeof(line), f))
			if (strstr(line, "[vdso]"))
				sscanf(line, "%" SCNx64 "-%" SCNx64, &mine, &mend);
		fclose(f);
	}
	if (mine == 0 || elfsym_load_buf(&t, (void *)(uintptr_t)mine, (size_t)(mend - mine)) != 0 ||
	    ((cg = sym_named(t, "clock_gettime")) == NULL && (cg = sym_named(t, "__vdso_clock_gettime")) == NULL) ||
	    !vaddr_to_offset(t, cg->addr, &off)) {
		CHECK_SKIP("no vDSO with __vdso_clock_gettime here");
		elfsym_free(t);
		return;
	}
	elfsym_free(t);
	t = NULL;
	{
		bool named = true;

		CHECK(elfsym_load_vdso(&t) == 0 && t, "our vDSO loads");
		for (size_t i = 0; t && i < t->nsyms; i++)
			if (t->syms[i].size && strncmp(elfsym_name(t, &t->syms[i]), "[vdso]+0x", 9) != 0 &&
			    strchr(elfsym_name(t, &t->syms[i]), '+') != NULL)
				named = false;
		CHECK(named, "vDSO helpers without a symbol are [vdso]+0xVADDR (%zu of them)", t ? t->nsynth : 0);
		elfsym_free(t);
	}
	if (fixture_spawn(&c, exe, fn_names, NFN) != 0) {
		CHECK(0, "cannot run %s", exe);
		fixture_reap(&c);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)c.pid);
	if ((f = fopen(path, "r")) != NULL) {
		while (fgets(line, sizeof(line), f))
			if (strstr(line, "[vdso]"))
				sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end);
		fclose(f);
	}
	s = symbols_new(&o);
	symbols_synthesize(s, c.pid);
	symbols_resolve(s, c.pid, start + off + 1, false, &r);
	CHECK(start && strstr(r.sym, "clock_gettime") && strcmp(r.dso, "[vdso]") == 0, "vDSO: %s in %s", r.sym,
	      r.dso);
	symbols_free(s);
	fixture_reap(&c);
}

/* Records alone (no /proc): a fake pid maps the PIE fixture by hand. */
static void test_records(char **argv)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s = symbols_new(&o);
	const uint64_t base = 0x10000000, len = 0x100000;
	const pid_t p1 = FAKE_PID, p2 = FAKE_PID + 1, p3 = FAKE_PID + 2;
	uint64_t ip, off_a, off_b;
	struct elfsym *t = NULL;
	const struct elfsym_sym *a, *b;
	struct sym_result r;

	if (s == NULL || elfsym_load(&t, argv[A_PIE]) != 0 || (a = sym_named(t, "fixture_alpha")) == NULL ||
	    (b = sym_named(t, "fixture_beta")) == NULL || !vaddr_to_offset(t, a->addr, &off_a) ||
	    !vaddr_to_offset(t, b->addr, &off_b) || off_a < 0x1000) {
		CHECK(0, "cannot prepare the record tests");
		symbols_free(s);
		elfsym_free(t);
		return;
	}
	ip = base + off_a + 1;
	symbols_comm(s, p1, p1, "parent", false);
	map_ino(s, p1, base, len, 0, 0, 0, 0, 0, PROT_READ | PROT_EXEC, argv[A_PIE]);
	symbols_resolve(s, p1, ip, false, &r);
	CHECK_STR(r.sym, "fixture_alpha", "mmap record: PIE at a chosen base");
	CHECK_STR(r.dso, argv[A_PIE], "dso is the mapped file");
	CHECK_STR(symbols_comm_of(s, p1), "parent", "comm record");
	symbols_comm(s, p1, p1 + 5, "a-thread", false);
	CHECK_STR(symbols_comm_of(s, p1), "parent", "a thread's name is not the process's");

	/* Only the page before alpha replaced: the tail keeps its offsets. */
	map_ino(s, p1, base + (off_a & ~0xfffull) - 0x1000, 0x1000, 0, 0, 0, 0, 0, PROT_EXEC, "//anon");
	symbols_resolve(s, p1, ip, false, &r);
	CHECK_STR(r.sym, "fixture_alpha", "partial overlap: the rest of the mapping stays right");
	symbols_resolve(s, p1, base + (off_a & ~0xfffull) - 0x800, false, &r);
	CHECK(strcmp(r.sym, "[anon]+0x0") == 0 && strcmp(r.dso, "//anon") == 0,
	      "anonymous code: its page in //anon (%s)", r.sym);

	symbols_fork(s, p2, p1, p2, p1);
	symbols_resolve(s, p2, base + off_b, false, &r);
	CHECK_STR(r.sym, "fixture_beta", "fork: the child has the parent's maps");
	CHECK_STR(symbols_comm_of(s, p2), "parent", "fork: and its comm");
	symbols_fork(s, p1, p1, p1 + 7, p1);
	CHECK_STR(symbols_comm_of(s, p1), "parent", "a new thread changes nothing");

	/* Cached, then a new file over the same range: the cache must see it. */
	symbols_resolve(s, p1, ip, false, &r);
	map_ino(s, p1, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_NOPIE]);
	symbols_resolve(s, p1, ip, false, &r);
	CHECK_STR(r.dso, argv[A_NOPIE], "mmap over a cached range: the new file");
	map_ino(s, p1, base, len, 0, 0, 0, 0, 0, PROT_READ, "/data");
	symbols_resolve(s, p1, ip, false, &r);
	CHECK_STR(r.dso, "[unknown]", "data mapped over code removes it");
	symbols_resolve(s, p2, base + off_b, false, &r);
	CHECK_STR(r.sym, "fixture_beta", "the child's maps are its own");

	symbols_comm(s, p2, p2, "newimage", true);
	CHECK_STR(symbols_comm_of(s, p2), "newimage", "exec: new comm");
	symbols_resolve(s, p2, base + off_b, false, &r);
	CHECK_STR(r.sym, "[unknown]", "exec: old maps gone");
	/* Same file under two pids: one DSO, one key. */
	map_ino(s, p2, base, len, 0, 8, 1, 4242, 0, PROT_EXEC, argv[A_PIE]);
	map_ino(s, p3, base + 0x200000, len, 0, 8, 1, 4242, 0, PROT_EXEC, argv[A_PIE]);
	{
		struct sym_result r3;

		symbols_resolve(s, p2, base + off_a, false, &r);
		symbols_resolve(s, p3, base + 0x200000 + off_a, false, &r3);
		CHECK(strcmp(r.sym, "fixture_alpha") == 0 && r.key == r3.key && r.dso == r3.dso,
		      "one file in two processes: one DSO, one key");
	}
	symbols_exit(s, p2, p2 + 1);
	symbols_reap(s);
	symbols_reap(s);
	symbols_resolve(s, p2, base + off_a, false, &r);
	CHECK_STR(r.sym, "fixture_alpha", "a thread's exit leaves the process");
	symbols_exit(s, p2, p2);
	map_ino(s, p2, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_NOPIE]);
	symbols_resolve(s, p2, base + off_a, false, &r);
	CHECK_STR(r.dso, argv[A_NOPIE], "records after exit: a new process under the old pid");
	symbols_resolve(s, FAKE_PID + 99, base, false, &r);
	CHECK(strcmp(r.sym, "[unknown]") == 0 && strcmp(r.dso, "[unknown]") == 0, "unknown pid: [unknown]");
	CHECK(symbols_synthesize(s, FAKE_PID + 99) < 0, "synthesize a missing pid: error");
	symbols_free(s);
	elfsym_free(t);
}

/* file's bytes in a new memfd called name, mapped executable here;
 * MAP_FAILED if that cannot be done. */
static void *map_in_memfd(const char *file, const char *name, int *mfd, size_t *len)
{
	struct stat st;
	char path[64];

	if ((*mfd = memfd_create(name, MFD_CLOEXEC)) < 0)
		return MAP_FAILED;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *mfd);
	if (copy_file(file, path, 0) != 0 || fstat(*mfd, &st) != 0)
		return MAP_FAILED;
	*len = (size_t)st.st_size;
	return mmap(NULL, *len, PROT_READ | PROT_EXEC, MAP_PRIVATE, *mfd, 0);
}

/* A binary deleted while it runs: maps say "(deleted)" and the path is
 * gone; /proc/PID/map_files still reaches the file. So does a memfd. */
static void test_deleted(char **argv)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	char tmpl[] = "/tmp/perftop-del-XXXXXX", exe[PATH_MAX];
	struct symbols *s = symbols_new(&o);
	struct fixture c = FIXTURE_NONE;
	struct elfsym *t = NULL;
	const struct elfsym_sym *a;
	struct sym_result r;
	uint64_t off;
	void *code = MAP_FAILED;
	size_t len = 0;
	int mfd = -1;

	if (s == NULL || mkdtemp(tmpl) == NULL) {
		CHECK(0, "setup");
		goto out;
	}
	snprintf(exe, sizeof(exe), "%s/fixture_copy", tmpl);
	if (copy_file(argv[A_PIE], exe, 0755) != 0 || fixture_spawn(&c, exe, fn_names, NFN) != 0) {
		CHECK(0, "cannot run a copy of %s", argv[A_PIE]);
		unlink(exe);
		goto out_dir;
	}
	CHECK(unlink(exe) == 0, "deleted while running");
	CHECK(symbols_synthesize(s, c.pid) == 0, "synthesized");
	symbols_resolve(s, c.pid, c.addr[0], false, &r);
	CHECK_STR(r.sym, fn_names[0], "deleted binary: still named");
	CHECK(r.dso && strstr(r.dso, "(deleted)") != NULL, "its dso says so: %s", r.dso ? r.dso : "-");
	/* The same path again, another file: the running one keeps its table. */
	if (copy_file(argv[A_NOPIE], exe, 0755) == 0) {
		symbols_resolve(s, c.pid, c.addr[1], false, &r);
		CHECK_STR(r.sym, fn_names[1], "replaced binary: the old image's symbols");
		unlink(exe);
	}
	fixture_reap(&c);
	c = FIXTURE_NONE;

	/* An ELF image in a memfd, mapped executable into this very process:
	 * only map_files reaches it, and it wants CAP_SYS_ADMIN. */
	if (geteuid() != 0) {
		CHECK_SKIP("memfd-backed code: /proc/PID/map_files needs root");
		goto out_dir;
	}
	if (elfsym_load(&t, argv[A_LIB]) != 0 || (a = sym_named(t, "fixture_lib_function")) == NULL ||
	    !vaddr_to_offset(t, a->addr, &off)) {
		CHECK(0, "memfd setup");
		goto out_dir;
	}
	if ((code = map_in_memfd(argv[A_LIB], "perftop-test", &mfd, &len)) == MAP_FAILED) {
		CHECK(0, "memfd mapping");
		goto out_dir;
	}
	CHECK(symbols_synthesize(s, getpid()) == 0, "synthesized ourselves");
	symbols_resolve(s, getpid(), (uint64_t)(uintptr_t)code + off, false, &r);
	CHECK_STR(r.sym, "fixture_lib_function", "memfd-backed code: named");
	CHECK(r.dso && strncmp(r.dso, "/memfd:perftop-test", 19) == 0, "memfd dso: %s", r.dso ? r.dso : "-");
out_dir:
	rmdir(tmpl);
out:
	if (code != MAP_FAILED)
		munmap(code, len);
	if (mfd >= 0)
		close(mfd);
	fixture_reap(&c);
	elfsym_free(t);
	symbols_free(s);
}

/* MiniDebugInfo: .dynsym's functions plus the compressed .symtab's. */
static void test_minidebug(char **argv, const struct elfsym *lib)
{
	const char *fns[] = { "fixture_lib_function", "fixture_lib_hidden" };
	struct elfsym *t = load_with(argv[A_MINIDEBUG], elfsym_load_fd_label, "mini");

	CHECK(t && t->from_dynsym && t->minidebug, "MiniDebugInfo read");
	for (size_t i = 0; i < 2; i++) {
		const struct elfsym_sym *want = sym_named(lib, fns[i]), *got;

		got = t && want ? elfsym_find(t, want->addr + 1) : NULL;
		CHECK(got && strcmp(elfsym_name(t, got), fns[i]) == 0, "%s from %s", fns[i],
		      i ? ".gnu_debugdata" : ".dynsym");
	}
	elfsym_free(t);
}

/* The bound on table bytes: what no sample hit in an interval goes, least
 * recently hit first; cache hits count as hits; keys survive a reload. */
static void test_eviction(char **argv)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s = symbols_new(&o);
	const pid_t pid = FAKE_PID + 30;
	const uint64_t base = 0x40000000, lbase = 0x50000000, len = 0x100000;
	struct elfsym *t = NULL, *lt = NULL;
	const struct elfsym_sym *a, *lf;
	struct symbols_stats st;
	struct sym_result r, r2;
	uint64_t off, loff;

	if (s == NULL || elfsym_load(&t, argv[A_PIE]) != 0 || elfsym_load(&lt, argv[A_LIB]) != 0 ||
	    (a = sym_named(t, "fixture_alpha")) == NULL || !vaddr_to_offset(t, a->addr, &off) ||
	    (lf = sym_named(lt, "fixture_lib_function")) == NULL || !vaddr_to_offset(lt, lf->addr, &loff)) {
		CHECK(0, "cannot prepare the eviction tests");
		goto out;
	}
	symbols_set_table_limit(s, 1);
	map_ino(s, pid, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_PIE]);
	map_ino(s, pid, lbase, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_LIB]);
	symbols_resolve(s, pid, base + off, false, &r);
	symbols_reap(s);
	symbols_stats(s, &st);
	CHECK(st.tables == 1 && st.evicted == 0 && st.table_bytes > 1, "hit this interval: kept over the bound");
	symbols_resolve(s, pid, base + off, false, &r2); /* a cache hit */
	symbols_reap(s);
	symbols_stats(s, &st);
	CHECK(st.tables == 1 && st.evicted == 0, "a cache hit counts as a hit");
	symbols_resolve(s, pid, lbase + loff, false, &r2);
	CHECK_STR(r2.sym, "fixture_lib_function", "second table");
	symbols_reap(s);
	symbols_stats(s, &st);
	CHECK(st.tables == 1 && st.evicted == 1 && st.table_limit == 1, "the table not hit is evicted (%zu, %zu)",
	      st.tables, st.evicted);
	symbols_resolve(s, pid, base + off, false, &r2);
	CHECK(strcmp(r2.sym, "fixture_alpha") == 0 && r2.key == r.key, "read again: same name, same key");
	symbols_stats(s, &st);
	CHECK(st.tables == 2, "both loaded again");
	symbols_set_table_limit(s, SYMBOLS_TABLE_LIMIT);
	symbols_reap(s);
	symbols_stats(s, &st);
	CHECK(st.tables == 2 && st.evicted == 1, "under the bound: nothing evicted");
	for (int i = 0; i < SYMBOLS_TABLE_IDLE + SYMBOLS_TABLE_IDLE / 4; i++)
		symbols_reap(s);
	symbols_stats(s, &st);
	CHECK(st.tables == 0 && st.evicted_idle == 2 && st.table_bytes == 0,
	      "tables no sample hit for %d intervals dropped under the bound (%zu left, %zu idle-evicted)",
	      SYMBOLS_TABLE_IDLE, st.tables, st.evicted_idle);
	symbols_resolve(s, pid, base + off, false, &r2);
	CHECK(strcmp(r2.sym, "fixture_alpha") == 0 && r2.key == r.key, "an idle-evicted table read again: same key");
	/* Hit only through the chain cache, which marks no table: the interval
	 * before each idle check resolves it again, and it stays. */
	{
		uint64_t addr = base + off, kmask = 0;
		struct sym_result out[1];
		const struct sym_result *f = NULL;
		size_t evicted = (symbols_stats(s, &st), st.evicted_idle);
		uint64_t hits = st.chain_hits;

		for (int i = 0; i < 3 * SYMBOLS_TABLE_IDLE; i++) {
			f = symbols_resolve_chain(s, pid, pid, &addr, &kmask, 1, out);
			symbols_reap(s);
		}
		symbols_stats(s, &st);
		CHECK(st.evicted_idle == evicted && st.tables == 1 && f && strcmp(f[0].sym, "fixture_alpha") == 0,
		      "a table hit only through the chain cache is not idle (%zu idle-evicted, %zu tables)",
		      st.evicted_idle - evicted, st.tables);
		CHECK(st.chain_hits > hits + 2 * SYMBOLS_TABLE_IDLE, "those hits were the cache's (%" PRIu64 ")",
		      st.chain_hits - hits);
	}
out:
	elfsym_free(t);
	elfsym_free(lt);
	symbols_free(s);
}

/* MMAP2 records with build-ids: the DSO is keyed by it, and a file at the
 * path with another build-id is not read for it. */
static void test_build_id(char **argv)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s = symbols_new(&o);
	const uint64_t base = 0x30000000, len = 0x100000;
	struct elfsym *t = NULL;
	const struct elfsym_sym *a;
	struct sym_result r, r2;
	uint8_t wrong[20];
	uint64_t off;

	if (s == NULL || elfsym_load(&t, argv[A_PIE]) != 0 || t->build_id_len == 0 ||
	    (a = sym_named(t, "fixture_alpha")) == NULL || !vaddr_to_offset(t, a->addr, &off)) {
		CHECK(0, "cannot prepare the build-id tests");
		goto out;
	}
	map_bid(s, FAKE_PID + 20, base, len, 0, t->build_id, t->build_id_len, PROT_EXEC,
			      argv[A_PIE]);
	symbols_resolve(s, FAKE_PID + 20, base + off, false, &r);
	CHECK_STR(r.sym, "fixture_alpha", "build-id keyed: resolves");
	/* Same build-id at another path (the stripped copy): the same DSO. */
	map_bid(s, FAKE_PID + 21, base, len, 0, t->build_id, t->build_id_len, PROT_EXEC,
			      argv[A_STRIPPED]);
	symbols_resolve(s, FAKE_PID + 21, base + off, false, &r2);
	CHECK(r2.key == r.key && r2.dso == r.dso, "same build-id: one DSO, one key");
	memcpy(wrong, t->build_id, sizeof(wrong));
	wrong[0] ^= 0xff;
	map_bid(s, FAKE_PID + 22, base, len, 0, wrong, t->build_id_len, PROT_EXEC,
			      argv[A_PIE]);
	symbols_resolve(s, FAKE_PID + 22, base + off, false, &r);
	CHECK_STR(r.sym, "[unknown]", "the path holds another build-id: not taken for it");
	map_bid(s, FAKE_PID + 23, base, len, 0, NULL, 0, PROT_EXEC, argv[A_PIE]);
	symbols_resolve(s, FAKE_PID + 23, base + off, false, &r);
	CHECK_STR(r.sym, "fixture_alpha", "no build-id: by path");
out:
	elfsym_free(t);
	symbols_free(s);
}

/* C++ names come out demangled, once per symbol, and raw on request. */
static void test_cxx(const char *exe)
{
	static const char *const names[][2] = {
		{ "_ZN2ns3FooIiE3barEv", "ns::Foo<int>::bar" },
		{ "_ZN2ns3FooIlE3barEv", "ns::Foo<long>::bar" },
		{ "_ZN2ns5twiceIiEET_S1_", "ns::twice<int>" },
	};
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s = NULL;
	const uint64_t base = 0x20000000, len = 0x100000;
	struct elfsym *t = NULL;
	struct sym_result r, r2;

	if (strcmp(exe, "-") == 0) {
		CHECK_SKIP("no C++ compiler: fixture_cxx was not built");
		return;
	}
	if (elfsym_load(&t, exe) != 0 || (s = symbols_new(&o)) == NULL) {
		CHECK(0, "cannot load %s", exe);
		goto out;
	}
	CHECK(symbols_demangle(s), "demangling is on by default");
	map_ino(s, FAKE_PID + 10, base, len, 0, 0, 0, 0, 0, PROT_EXEC, exe);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct elfsym_sym *sym = sym_named(t, names[i][0]);
		uint64_t off;

		if (sym == NULL || !vaddr_to_offset(t, sym->addr, &off)) {
			CHECK(0, "%s is in the fixture", names[i][0]);
			continue;
		}
		symbols_resolve(s, FAKE_PID + 10, base + off, false, &r);
		CHECK_STR(r.sym, names[i][1], "demangled");
		symbols_set_demangle(s, false);
		symbols_resolve(s, FAKE_PID + 10, base + off, false, &r2);
		CHECK_STR(r2.sym, names[i][0], "--no-demangle: raw");
		CHECK(r2.key != r.key, "raw and demangled forms have different keys");
		symbols_set_demangle(s, true);
		symbols_resolve(s, FAKE_PID + 10, base + off + 1, false, &r2);
		CHECK(r2.key == r.key && r2.sym == r.sym, "demangled again: same key, same string (cached)");
	}
out:
	symbols_free(s);
	elfsym_free(t);
}

static void test_kernel(const char *dir)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s;
	struct sym_result r, r2;
	char path[PATH_MAX], line[512], name[256], mod[128], type;
	uint64_t sched = 0, maddr = 0, a;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms-restricted.txt", dir);
	o.kallsyms_path = path;
	s = symbols_new(&o);
	CHECK(symbols_load_kernel(s) == 0 && symbols_notice(s) != NULL, "restricted kallsyms: 0 and a notice");
	symbols_resolve(s, 1, 0xffffffff81000000, true, &r);
	CHECK(strcmp(r.sym, "[unknown]") == 0 && strcmp(r.dso, "[kernel.kallsyms]") == 0 && r.kernel,
	      "restricted: kernel samples are [unknown] in [kernel.kallsyms]");
	symbols_free(s);
	o.kallsyms_path = "/nonexistent/kallsyms";
	s = symbols_new(&o);
	CHECK(symbols_load_kernel(s) == -ENOENT && symbols_notice(s) != NULL, "missing kallsyms: -ENOENT, notice");
	symbols_free(s);

	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%" SCNx64 " %c %255s %127s", &a, &type, name, mod);

		if (n >= 3 && strcmp(name, "schedule") == 0)
			sched = a;
		if (n == 4 && maddr == 0 && (type == 't' || type == 'T') && strncmp(name, "__pfx_", 6) != 0)
			maddr = a;
	}
	if (f)
		fclose(f);
	if (sched == 0) {
		CHECK_SKIP("/proc/kallsyms unreadable or restricted (not root, kptr_restrict)");
		return;
	}
	o.kallsyms_path = "/proc/kallsyms";
	s = symbols_new(&o);
	CHECK(symbols_load_kernel(s) == 0 && symbols_notice(s) == NULL, "/proc/kallsyms loads");
	symbols_resolve(s, 1234, sched, true, &r);
	symbols_resolve(s, 4321, sched + 1, true, &r2);
	CHECK(strcmp(r.sym, "schedule") == 0 && strcmp(r.dso, "[kernel.kallsyms]") == 0 && r.kernel,
	      "schedule at %#" PRIx64 ": %s in %s", sched, r.sym, r.dso);
	CHECK(r2.key == r.key && strcmp(r2.sym, "schedule") == 0, "inside schedule, any pid: same key");
	CHECK(r.sym_start == sched && r.sym_off == 0 && r2.sym_off == 1 && r2.sym_start == sched && r.sym_size > 1,
	      "schedule: start %#" PRIx64 ", size %" PRIu64 ", +1 at offset %" PRIu64, r.sym_start, r.sym_size,
	      r2.sym_off);
	if (maddr) {
		symbols_resolve(s, 1, maddr, true, &r);
		CHECK(r.dso[0] == '[' && strcmp(r.dso, "[kernel.kallsyms]") != 0, "module symbol %s in %s", r.sym,
		      r.dso);
	} else {
		CHECK_SKIP("no modules loaded");
	}
	symbols_resolve(s, 1, 16, true, &r);
	CHECK(strcmp(r.sym, "[unknown]") == 0 && strcmp(r.dso, "[kernel.kallsyms]") == 0,
	      "kernel address below all symbols: [unknown]");
	symbols_free(s);
}

/* Every process of the system, ourselves among them. */
static void test_all_processes(void)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s = symbols_new(&o);
	struct symbols_stats st;
	struct sym_result r;

	CHECK(s && symbols_synthesize(s, -1) == 0, "synthesize all of /proc");
	symbols_stats(s, &st);
	CHECK(st.processes > 1 && st.dsos > 1, "%zu processes, %zu DSOs", st.processes, st.dsos);
	symbols_resolve(s, getpid(), (uint64_t)(uintptr_t)test_all_processes, false, &r);
	CHECK_STR(r.sym, "test_all_processes", "this very function, in this very process");
	CHECK(symbols_comm_of(s, 1) != NULL, "pid 1 has a comm");
	symbols_free(s);
}

/* An entry's bytes in a mapping of their own, as symcache_load gives them. */
static int decode_copy(struct elfsym **out, uint64_t *deps, const void *buf, size_t len,
		       const struct symcache_key *k)
{
	void *m = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int rc;

	if (m == MAP_FAILED)
		return -ENOMEM;
	memcpy(m, buf, len);
	if ((rc = symcache_decode(out, deps, m, len, k)) != 0)
		munmap(m, len ? len : 1);
	return rc;
}

static bool same_table(const struct elfsym *a, const struct elfsym *b)
{
	if (a->nsyms != b->nsyms || a->nsynth != b->nsynth || a->nloads != b->nloads || a->type != b->type ||
	    a->from_dynsym != b->from_dynsym || a->searched_debug != b->searched_debug ||
	    (a->debuglink == NULL) != (b->debuglink == NULL) ||
	    (a->debuglink && strcmp(a->debuglink, b->debuglink) != 0) ||
	    memcmp(a->loads, b->loads, a->nloads * sizeof(a->loads[0])) != 0)
		return false;
	for (size_t i = 0; i < a->nsyms; i++)
		if (a->syms[i].addr != b->syms[i].addr || a->syms[i].size != b->syms[i].size ||
		    strcmp(elfsym_name(a, &a->syms[i]), elfsym_name(b, &b->syms[i])) != 0)
			return false;
	return true;
}

/* An entry's file name: the build-id and the file's size in hex. */
static void entry_of(const struct elfsym *t, uint64_t size, char *buf, size_t len)
{
	size_t n = 0;

	for (size_t j = 0; j < t->build_id_len && n < len; j++)
		n += (size_t)snprintf(buf + n, len - n, "%02x", t->build_id[j]);
	if (n < len)
		snprintf(buf + n, len - n, "-%" PRIx64, size);
}

static size_t entries_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* A test's temporary tree, removed whole: only one mkdtemp made from the
 * template prefix (nothing else is ever handed to rm -rf). */
static void remove_tmp_dir(const char *dir, const char *prefix)
{
	char cmd[PATH_MAX + 16];
	size_t n = strlen(prefix);

	if (strncmp(dir, prefix, n) != 0 || dir[n] == '\0' || strchr(dir, '\'') != NULL)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
}

/* The symbol cache: an entry gives back the table it was made of, only
 * under its own key, and nothing damaged; through symbols, a second
 * reader takes the table from it, and a debug file gone since is a miss. */
static void test_symcache(char **argv)
{
	struct elfsym *lib = NULL, *str = NULL, *t = NULL;
	struct symcache_key k, k2;
	struct stat st;
	uint8_t bid[ELFSYM_BUILD_ID_MAX];
	char dir[] = "/tmp/perftop-symcache-XXXXXX", path[PATH_MAX], empty[64];
	unsigned char *buf = NULL;
	uint64_t deps = 0;
	size_t len = 0;
	int dfd = -1;

	if (elfsym_load(&lib, argv[A_LIB]) != 0 || lib->build_id_len == 0 || stat(argv[A_LIB], &st) != 0 ||
	    (str = load_with(argv[A_STRIPPED], elfsym_load_fd_label, "prog")) == NULL || str->nsynth == 0 ||
	    mkdtemp(dir) == NULL) {
		CHECK(0, "cannot prepare the symbol cache tests");
		goto out;
	}
	k = (struct symcache_key){ lib->build_id, lib->build_id_len, (uint64_t)st.st_size, "libfixture.so" };
	CHECK(symcache_encode(lib, &k, 42, (void **)&buf, &len) == 0, "encoded");
	CHECK(buf && decode_copy(&t, &deps, buf, len, &k) == 0 && same_table(lib, t) && deps == 42,
	      "decoded: the same table, the caller's signature");
	elfsym_free(t);
	t = NULL;
	k2 = k;
	k2.label = "another";
	CHECK(buf && decode_copy(&t, &deps, buf, len, &k2) == 0, "no .eh_frame_hdr starts: the label does not matter");
	elfsym_free(t);
	t = NULL;
	k2.file_size++;
	CHECK(buf && decode_copy(&t, &deps, buf, len, &k2) == -ESTALE, "another size (a stripped copy): stale");
	memcpy(bid, lib->build_id, lib->build_id_len);
	bid[0] ^= 1;
	k2 = k;
	k2.build_id = bid;
	CHECK(buf && decode_copy(&t, &deps, buf, len, &k2) == -ESTALE, "another build-id: stale");
	if (buf) {
		buf[len - 2] ^= 0x20; /* a name's byte */
		CHECK(decode_copy(&t, &deps, buf, len, &k) == -EBADMSG, "a damaged byte: refused");
		symcache_seal(buf, len);
		CHECK(decode_copy(&t, &deps, buf, len, &k) == 0, "sealed again: taken");
		elfsym_free(t);
		t = NULL;
		CHECK(decode_copy(&t, &deps, buf, len - 1, &k) == -EBADMSG, "cut short: refused");
		/* Two symbols swapped (the records follow the 96-byte header and
		 * the segments, 40 bytes each), the checksum made right. */
		if (lib->nsyms >= 2) {
			unsigned char tmp[16], *r = buf + 96 + 40 * lib->nloads;

			memcpy(tmp, r, 16);
			memcpy(r, r + 16, 16);
			memcpy(r + 16, tmp, 16);
			symcache_seal(buf, len);
			CHECK(decode_copy(&t, &deps, buf, len, &k) == -EBADMSG, "addresses out of order: refused");
		}
	}
	free(buf);
	buf = NULL;
	/* A stripped file's starts are named by the label: part of the key. */
	k2 = (struct symcache_key){ str->build_id, str->build_id_len, 1234, "prog" };
	CHECK(symcache_encode(str, &k2, 0, (void **)&buf, &len) == 0, "a stripped table encoded");
	CHECK(buf && decode_copy(&t, &deps, buf, len, &k2) == 0 && same_table(str, t), "under its label: the same");
	elfsym_free(t);
	t = NULL;
	k2.label = "other";
	CHECK(buf && decode_copy(&t, &deps, buf, len, &k2) == -ESTALE, "under another label: stale");
	free(buf);
	buf = NULL;

	/* Files: ours and 0600 only; the oldest pruned. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dfd >= 0 && symcache_store(lib, dfd, &k, 7) == 0, "stored");
	CHECK(dfd >= 0 && symcache_load(&t, &deps, dfd, &k) == 0 && same_table(lib, t) && deps == 7, "loaded");
	elfsym_free(t);
	t = NULL;
	snprintf(path, sizeof(path), "%s/.%s", dir, "leftover.tmp");
	close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	for (int i = 0; dfd >= 0 && i < 5; i++) {
		struct timespec ts[2] = { { 1000 + i, 0 }, { 1000 + i, 0 } };
		char name[64];

		k2 = k;
		k2.file_size = 100 + (uint64_t)i;
		CHECK(symcache_store(lib, dfd, &k2, 0) == 0, "entry %d stored", i);
		entry_of(lib, k2.file_size, name, sizeof(name));
		CHECK(utimensat(dfd, name, ts, 0) == 0, "entry %d aged", i);
	}
	CHECK(dfd >= 0 && symcache_prune(dfd, 2) == 4 && entries_in(dir) == 2, "pruned to the newest 2");
	k2.file_size = 104;
	CHECK(dfd >= 0 && symcache_load(&t, &deps, dfd, &k2) == 0, "the newest kept");
	elfsym_free(t);
	t = NULL;
	CHECK(access(path, F_OK) == 0, "another run's temporary file left alone");
	unlink(path);
	if (dfd >= 0) {
		char name[64];

		entry_of(lib, k2.file_size, name, sizeof(name));
		CHECK(fchmodat(dfd, name, 0644, 0) == 0 && symcache_load(&t, &deps, dfd, &k2) == -EPERM,
		      "an entry others may read: refused");
	}

	/* Through symbols: the stripped PIE by build-id, named from its
	 * debug file under the debug root. */
	{
		struct symbols_opts o = { "/proc", "/proc/kallsyms" };
		const uint64_t base = 0x30000000, mlen = 0x100000;
		struct elfsym *pie = NULL;
		const struct elfsym_sym *pa;
		char cdir[64];
		uint64_t off;

		snprintf(cdir, sizeof(cdir), "%s/c", dir);
		snprintf(empty, sizeof(empty), "%s/empty", dir);
		if (elfsym_load(&pie, argv[A_PIE]) != 0 || (pa = sym_named(pie, "fixture_alpha")) == NULL ||
		    !vaddr_to_offset(pie, pa->addr, &off) || mkdir(empty, 0700) != 0) {
			CHECK(0, "cannot prepare the cached symbols tests");
			elfsym_free(pie);
			goto out;
		}
		for (int round = 0; round < 4; round++) {
			struct symbols *s = symbols_new(&o);
			struct symbols_stats sst;
			struct sym_result r;
			/* 0: parsed, written; 1: from the cache; 2: the debug
			 * file gone: parsed again; 3: back, parsed again. */
			static const bool cached[] = { false, true, false, false };
			static const bool named[] = { true, true, false, true };

			if (s == NULL || symbols_set_symbol_cache(s, cdir) != 0 ||
			    symbols_set_debug_root(s, round == 2 ? empty : argv[A_DEBUG_ROOT]) != 0) {
				CHECK(0, "symbols");
				symbols_free(s);
				break;
			}
			map_bid(s, FAKE_PID + 40, base, mlen, 0, pie->build_id, pie->build_id_len, PROT_EXEC,
				argv[A_STRIPPED]);
			symbols_resolve(s, FAKE_PID + 40, base + off, false, &r);
			symbols_stats(s, &sst);
			CHECK(named[round] ? strcmp(r.sym, "fixture_alpha") == 0 : strncmp(r.sym, "fixture_stripped+0x", 19) == 0,
			      "round %d: %s", round, r.sym);
			CHECK(sst.tables_cached == (cached[round] ? 1u : 0u), "round %d: %s the cache", round,
			      cached[round] ? "from" : "not from");
			symbols_free(s);
		}
		snprintf(path, sizeof(path), "%s/syms", cdir);
		CHECK(entries_in(path) == 1, "one entry for the file");
		elfsym_free(pie);
	}
out:
	if (dfd >= 0)
		close(dfd);
	free(buf);
	elfsym_free(lib);
	elfsym_free(str);
	remove_tmp_dir(dir, "/tmp/perftop-symcache-");
}

/* Code run from a memfd is cached by build-id as a file's is: a second
 * run takes its table from the cache. One whose names are made from the
 * memfd's own name (a stripped image: .eh_frame_hdr starts) gets no entry:
 * the next run's memfd may be named otherwise. */
static void test_memfd_cache(char **argv)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	char cdir[] = "/tmp/perftop-memfdcache-XXXXXX", syms[PATH_MAX];
	struct elfsym *t = NULL;
	const struct elfsym_sym *a, *h;
	void *code = MAP_FAILED;
	size_t len = 0;
	int mfd = -1;
	uint64_t off, hoff;

	if (geteuid() != 0) {
		CHECK_SKIP("memfd-backed code: /proc/PID/map_files needs root");
		return;
	}
	if (elfsym_load(&t, argv[A_LIB]) != 0 || (a = sym_named(t, "fixture_lib_function")) == NULL ||
	    !vaddr_to_offset(t, a->addr, &off) || (h = sym_named(t, "fixture_lib_hidden")) == NULL ||
	    !vaddr_to_offset(t, h->addr, &hoff) || mkdtemp(cdir) == NULL) {
		CHECK(0, "memfd cache setup");
		goto out;
	}
	snprintf(syms, sizeof(syms), "%s/syms", cdir);
	/* round 0: the stripped image (alone: the same build-id is the same
	 * code, whichever file names it); 1: the full one, parsed; 2: cached. */
	for (int round = 0; round < 3; round++) {
		struct symbols *s = symbols_new(&o);
		struct symbols_stats st;
		struct sym_result r;

		if ((code = map_in_memfd(argv[round ? A_LIB : A_LIB_STRIPPED], "perftop-memfd", &mfd, &len)) ==
			    MAP_FAILED ||
		    s == NULL || symbols_set_symbol_cache(s, cdir) != 0 || symbols_synthesize(s, getpid()) != 0) {
			CHECK(0, "round %d: symbols of a memfd", round);
			symbols_free(s);
			break;
		}
		/* Not in .dynsym: named from .eh_frame_hdr's starts when stripped. */
		symbols_resolve(s, getpid(), (uint64_t)(uintptr_t)code + (round ? off : hoff), false, &r);
		symbols_stats(s, &st);
		if (round == 0)
			CHECK(strstr(r.sym, "perftop-memfd+0x") != NULL && entries_in(syms) == 0,
			      "a name made from the memfd's (%s): no entry (%zu)", r.sym, entries_in(syms));
		else
			CHECK(strcmp(r.sym, "fixture_lib_function") == 0 && st.tables_cached == (round == 2 ? 1u : 0u) &&
				      entries_in(syms) == 1,
			      "round %d: named (%s), %s, one entry (%zu)", round, r.sym,
			      round == 2 ? "from the cache" : "parsed", entries_in(syms));
		symbols_free(s);
		munmap(code, len);
		close(mfd);
		code = MAP_FAILED;
		mfd = -1;
	}
out:
	if (code != MAP_FAILED)
		munmap(code, len);
	if (mfd >= 0)
		close(mfd);
	elfsym_free(t);
	remove_tmp_dir(cdir, "/tmp/perftop-memfdcache-");
}

/* file copied into a memfd with its build-id note made another note type
 * (so that the file has none), sealed against writes and resizing or not,
 * and mapped as code. */
static void *memfd_without_build_id(const char *file, const struct elfsym *t, bool seal, int *mfd, size_t *len)
{
	unsigned char pat[4 + ELFSYM_BUILD_ID_MAX], *buf = NULL;
	const unsigned char *at = NULL;
	uint32_t other = 0x7ff0;
	char path[64];
	struct stat st;

	if ((*mfd = memfd_create("perftop-sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING)) < 0)
		return MAP_FAILED;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *mfd);
	if (copy_file(file, path, 0) != 0 || fstat(*mfd, &st) != 0 || (buf = malloc((size_t)st.st_size)) == NULL ||
	    pread(*mfd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		return MAP_FAILED;
	}
	/* The note: namesz, descsz, type, "GNU\0", the build-id. */
	memcpy(pat, "GNU", 4);
	memcpy(pat + 4, t->build_id, t->build_id_len);
	at = memmem(buf, (size_t)st.st_size, pat, 4 + t->build_id_len);
	if (at == NULL || at - buf < 4 || pwrite(*mfd, &other, 4, at - 4 - buf) != 4 ||
	    (seal && fcntl(*mfd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW) != 0)) {
		free(buf);
		return MAP_FAILED;
	}
	free(buf);
	*len = (size_t)st.st_size;
	return mmap(NULL, *len, PROT_READ | PROT_EXEC, MAP_PRIVATE, *mfd, 0);
}

/* Code in a memfd without a build-id: sealed (its bytes can never change),
 * it is cached under its inode and this boot, and the next symbols object
 * (a next run, the same memfd still mapped) takes it from there; unsealed,
 * it is parsed each time and leaves no entry. */
static void test_sealed_memfd_cache(char **argv)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	char cdir[] = "/tmp/perftop-sealedcache-XXXXXX", syms[PATH_MAX];
	struct elfsym *t = NULL;
	const struct elfsym_sym *a;
	uint64_t off;

	if (geteuid() != 0) {
		CHECK_SKIP("memfd-backed code: /proc/PID/map_files needs root");
		return;
	}
	if (elfsym_load(&t, argv[A_LIB]) != 0 || t->build_id_len == 0 ||
	    (a = sym_named(t, "fixture_lib_function")) == NULL || !vaddr_to_offset(t, a->addr, &off) ||
	    mkdtemp(cdir) == NULL) {
		CHECK(0, "sealed memfd setup");
		elfsym_free(t);
		return;
	}
	snprintf(syms, sizeof(syms), "%s/syms", cdir);
	for (int sealed = 1; sealed >= 0; sealed--) {
		size_t len = 0;
		int mfd = -1;
		void *code = memfd_without_build_id(argv[A_LIB], t, sealed, &mfd, &len);

		CHECK(code != MAP_FAILED, "%s memfd without a build-id mapped", sealed ? "a sealed" : "an unsealed");
		for (int run = 0; run < 2 && code != MAP_FAILED; run++) {
			struct symbols *s = symbols_new(&o);
			struct symbols_stats st;
			struct sym_result r;

			if (s == NULL || symbols_set_symbol_cache(s, cdir) != 0 || symbols_synthesize(s, getpid()) != 0) {
				CHECK(0, "symbols of a memfd");
				symbols_free(s);
				break;
			}
			symbols_resolve(s, getpid(), (uint64_t)(uintptr_t)code + off, false, &r);
			symbols_stats(s, &st);
			CHECK(r.sym && strcmp(r.sym, "fixture_lib_function") == 0, "%s, run %d: named (%s)",
			      sealed ? "sealed" : "unsealed", run, r.sym ? r.sym : "-");
			if (sealed)
				CHECK(st.tables_cached == (run ? 1u : 0u) && entries_in(syms) == 1,
				      "sealed, run %d: %s, one entry (%zu)", run, run ? "from the cache" : "parsed",
				      entries_in(syms));
			else
				CHECK(st.tables_cached == 0 && entries_in(syms) == 1,
				      "unsealed, run %d: parsed, no entry of its own (%zu)", run, entries_in(syms));
			symbols_free(s);
		}
		if (code != MAP_FAILED)
			munmap(code, len);
		if (mfd >= 0)
			close(mfd);
	}
	elfsym_free(t);
	remove_tmp_dir(cdir, "/tmp/perftop-sealedcache-");
}

int main(int argc, char **argv)
{
	if (argc != A_N + 1) {
		fprintf(stderr, "usage: %s PIE NOPIE STRIPPED LIB STRIPPED_LIB FIXTURES_DIR DEBUGLINK DEBUG_ROOT CXX MINIDEBUG\n",
			argv[0]);
		return 2;
	}
	argv++;
	/* Records and /proc speak of absolute paths. */
	for (int i = 0; i < A_N; i++)
		if (realpath(argv[i], abs_path[i]))
			argv[i] = abs_path[i];
	test_elfsym(argv);
	test_sort_same(argv);
	test_elf_damage(argv[A_LIB]);
	test_live(argv);
	test_vdso(argv[A_PIE]);
	test_records(argv);
	test_kernel(argv[A_DIR]);
	test_cxx(argv[A_CXX]);
	test_deleted(argv);
	test_build_id(argv);
	test_eviction(argv);
	test_symcache(argv);
	test_memfd_cache(argv);
	test_sealed_memfd_cache(argv);
	test_all_processes();
	return check_done();
}
