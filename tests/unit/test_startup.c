/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The start-up path of symbols: the kernel's table from the cache (and
 * whole reads on demand for what it lacks), and processes read from /proc
 * at their first sample rather than all at start.
 * usage: test_startup FIXTURES_DIR */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/resource.h>

#include "check.h"
#include "heapwarm.h"
#include "proctab.h"
#include "symbols.h"

#define FAKE_PID 0x7ffff100

static char tmp[] = "/tmp/perftop-startup-XXXXXX";
static char ksyms[PATH_MAX], notes[PATH_MAX], modules[PATH_MAX], cache[PATH_MAX];

static int write_file(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);
	int rc = 0;

	if (f == NULL)
		return -1;
	if (fputs(text, f) < 0)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

static int copy_text(const char *from, const char *to)
{
	char buf[65536];
	FILE *f = fopen(from, "re");
	size_t n;
	int rc;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rc = write_file(to, buf, "we");
	return rc;
}

static int write_notes(const char *path)
{
	unsigned char buf[36] = { 0 };
	uint32_t w[3] = { 4, 20, 3 }; /* "GNU\0", 20 bytes, NT_GNU_BUILD_ID */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), rc = 0;

	memcpy(buf, w, sizeof(w));
	memcpy(buf + 12, "GNU", 4);
	memset(buf + 16, 0x5a, 20);
	if (fd < 0)
		return -1;
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		rc = -1;
	if (close(fd) != 0)
		rc = -1;
	return rc;
}

static struct symbols *open_syms(bool cached, const char *notes_path)
{
	struct symbols_opts o = { .proc_root = "/proc", .kallsyms_path = ksyms };
	struct symbols *s = symbols_new(&o);

	if (s && cached && symbols_set_kcache(s, cache, notes_path, modules) != 0) {
		symbols_free(s);
		return NULL;
	}
	return s;
}

static const char *ksym(struct symbols *s, uint64_t ip, uint64_t *key)
{
	static char buf[2][128];
	static int i;
	struct sym_result r;

	symbols_resolve(s, -1, ip, true, &r);
	if (key)
		*key = r.key;
	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s %s", r.sym, r.dso);
	return buf[i];
}

static void test_cache(const char *fix)
{
	struct symbols *plain, *first, *again;
	struct symbols_stats st;
	char path[PATH_MAX + 16];
	static const uint64_t probe[] = { 0xffffffff81000000, 0xffffffff81001234, 0xffffffff81002010,
					  0xffffffffc0001010, 0xffffffffc0002000, 0xffffffffc0003000,
					  0xffffffff80ffffff };
	bool same = true;

	snprintf(path, sizeof(path), "%s/kallsyms.txt", fix);
	if (copy_text(path, ksyms) != 0 || write_notes(notes) != 0 ||
	    write_file(modules, "mymod 16384 0 - Live 0xffffffffc0001000\n"
				"othermod 4096 0 - Live 0xffffffffc0002000\n", "we") != 0) {
		CHECK(0, "cannot prepare the cache tests");
		return;
	}
	plain = open_syms(false, notes);
	first = open_syms(true, notes);
	CHECK(plain && first && symbols_load_kernel(plain) == 0 && symbols_load_kernel(first) == 0, "loaded");
	if (plain == NULL || first == NULL)
		goto out;
	symbols_stats(first, &st);
	snprintf(path, sizeof(path), "%s/kallsyms", cache);
	CHECK(!st.kernel_cached && access(path, F_OK) == 0, "first run: read whole, cache written");
	again = open_syms(true, notes);
	CHECK(again && symbols_load_kernel(again) == 0, "second run loaded");
	if (again == NULL)
		goto out;
	symbols_stats(again, &st);
	CHECK(st.kernel_cached && st.kernel_reloads == 0, "second run: from the cache, no whole read");
	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		const char *a = ksym(plain, probe[i], NULL), *b = ksym(again, probe[i], NULL);

		if (strcmp(a, b) != 0) {
			CHECK(0, "at %#llx: %s without the cache, %s with it", (unsigned long long)probe[i], a, b);
			same = false;
		}
	}
	CHECK(same, "the cached table names what the text does");
	symbols_free(again);

	/* No build-id: nothing to key a cache on. */
	snprintf(path, sizeof(path), "%s/empty-notes", tmp);
	if (write_file(path, "", "we") == 0 && (again = open_syms(true, path)) != NULL) {
		CHECK(symbols_load_kernel(again) == 0, "no build-id: loaded");
		symbols_stats(again, &st);
		CHECK(!st.kernel_cached && strcmp(ksym(again, 0xffffffff81001234, NULL),
						  "do_one_thing [kernel.kallsyms]") == 0,
		      "a kernel without a build-id: read whole");
		symbols_free(again);
	}

	/* An unprivileged view: nothing cached, the usual notice. */
	snprintf(path, sizeof(path), "%s/kallsyms-restricted.txt", fix);
	if (copy_text(path, ksyms) == 0 && (again = open_syms(true, notes)) != NULL) {
		CHECK(symbols_load_kernel(again) == 0 && symbols_notice(again) &&
		      strstr(symbols_notice(again), "kptr_restrict"), "restricted: the kptr_restrict notice");
		symbols_stats(again, &st);
		CHECK(!st.kernel_cached, "restricted: never from a cache");
		symbols_free(again);
	}
out:
	symbols_free(plain);
	symbols_free(first);
}

/* Kernel samples where nothing is known: whole reads, backed off. */
static void test_reload(const char *fix)
{
	struct symbols *s;
	struct symbols_stats st;
	char path[PATH_MAX + 16];
	uint64_t key_before, key_after;
	const char *r;

	snprintf(path, sizeof(path), "%s/kallsyms.txt", fix);
	if (copy_text(path, ksyms) != 0 || (s = open_syms(true, notes)) == NULL || symbols_load_kernel(s) != 0) {
		CHECK(0, "cannot prepare the reload tests");
		return;
	}
	symbols_stats(s, &st);
	CHECK(st.kernel_cached, "from the cache");
	ksym(s, 0xffffffff81001234, &key_before);
	/* A module loaded after the cache was written (and a BPF program);
	 * beyond the last known symbol's KALLSYMS_TAIL_SPAN. */
	CHECK(write_file(ksyms, "ffffffffc0100000 t late_func\t[latemod]\n"
				"ffffffffa0001000 t bpf_prog_1234_x\t[bpf]\n", "ae") == 0, "a module loads");
	r = ksym(s, 0xffffffffc0100010, NULL);
	symbols_stats(s, &st);
	CHECK(strcmp(r, "late_func [latemod]") == 0 && st.kernel_reloads == 1,
	      "a sample in it: one whole read names it (%s, %zu reads)", r, st.kernel_reloads);
	CHECK_STR(ksym(s, 0xffffffffa0001008, NULL), "bpf_prog_1234_x [bpf]", "and the BPF program");
	ksym(s, 0xffffffff81001234, &key_after);
	CHECK(key_before == key_after, "the core's symbols keep their keys (their rows stay one)");

	/* An address no read names: the reads back off. */
	r = ksym(s, 0xffffffffb0000000, NULL);
	symbols_stats(s, &st);
	CHECK(strcmp(r, "[unknown] [kernel.kallsyms]") == 0 && st.kernel_reloads == 1,
	      "within the interval of a read that found something: no other (%zu)", st.kernel_reloads);
	symbols_reap(s);
	ksym(s, 0xffffffffb0000000, NULL);
	ksym(s, 0xffffffffb0000100, NULL);
	symbols_stats(s, &st);
	CHECK(st.kernel_reloads == 2, "next interval: one read, not one per sample (%zu)", st.kernel_reloads);
	symbols_reap(s);
	ksym(s, 0xffffffffb0000000, NULL);
	symbols_stats(s, &st);
	CHECK(st.kernel_reloads == 2, "a read that found nothing: the next waits two intervals (%zu)",
	      st.kernel_reloads);
	symbols_reap(s);
	ksym(s, 0xffffffffb0000000, NULL);
	symbols_stats(s, &st);
	CHECK(st.kernel_reloads == 3, "then reads again (%zu)", st.kernel_reloads);
	for (int i = 0; i < 200; i++) {
		symbols_reap(s);
		ksym(s, 0xffffffffb0000000, NULL);
	}
	symbols_stats(s, &st);
	/* At epochs 7, 15, 31, 63, then every 64: 127 and 191. */
	CHECK(st.kernel_reloads == 9, "200 intervals of misses: the wait doubles to 64 intervals (%zu reads)",
	      st.kernel_reloads);
	symbols_free(s);
}

/* A child of ours that waits: a live process with our code and name. */
static pid_t spawn_waiter(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "startwaiter");
		for (;;)
			pause();
	}
	return pid;
}

static void stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

__attribute__((noinline)) int startup_marker(int x);
__attribute__((noinline)) int startup_marker(int x)
{
	return x * 3 + 1;
}

static void test_lazy(void)
{
	struct symbols_opts o = { .proc_root = "/proc", .kallsyms_path = "/nonexistent" };
	uint64_t ip = (uint64_t)(uintptr_t)&startup_marker + 1;
	pid_t child = spawn_waiter();
	struct sym_result r;
	struct symbols *s;
	struct sym_map m = { .start = 0x10000, .len = 0x1000, .prot = PROT_READ | PROT_EXEC,
			     .filename = "/nonexistent/records-only" };
	char comm[32] = "";
	int tries = 0;

	if (child < 0 || (s = symbols_new(&o)) == NULL) {
		CHECK(0, "cannot prepare the lazy tests");
		stop(child);
		return;
	}
	/* The child's name is set after the fork: wait until /proc says so. */
	while (strcmp(comm, "startwaiter") != 0 && tries++ < 1000) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)child);
		if ((f = fopen(path, "re")) != NULL) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		if (strcmp(comm, "startwaiter") != 0)
			usleep(1000);
	}
	/* A process older than us that a record told of first (a dlopen):
	 * its first sample, in that very mapping, still reads its /proc. */
	m.pid = child;
	symbols_mmap(s, &m);
	symbols_resolve(s, child, 0x10010, false, &r);
	CHECK_STR(r.comm, "startwaiter", "first told of by a record: named from /proc at its first sample");
	CHECK_STR(r.dso, "/nonexistent/records-only", "and the record's mapping kept");
	symbols_resolve(s, child, ip, false, &r);
	CHECK_STR(r.sym, "startup_marker", "and its other code from /proc");

	/* A FORK by a process never seen: the parent is read then, so a child
	 * gone before its first sample still has the parent's code. */
	symbols_fork(s, FAKE_PID, getpid(), FAKE_PID, getpid());
	symbols_resolve(s, FAKE_PID, ip, false, &r);
	CHECK_STR(r.sym, "startup_marker", "a fork of an unseen parent: the child has its code");

	/* After a re-aim, what records said is stale: /proc replaces it. */
	m.start = (uint64_t)(uintptr_t)&startup_marker & ~0xfffull;
	symbols_mmap(s, &m);
	symbols_resolve(s, child, ip, false, &r);
	CHECK_STR(r.dso, "/nonexistent/records-only", "a record over the code");
	symbols_stale(s);
	symbols_resolve(s, child, ip, false, &r);
	CHECK_STR(r.sym, "startup_marker", "stale: its next sample reads /proc again");
	symbols_free(s);
	stop(child);
}

#define HEAP_BLOCKS 1280 /* of 2 KiB: what a -g run's first interval adds, 2.5 MiB */

/* The child's side (a fresh process, its heap untouched): warmed as a
 * flat run, as a call-graph run, or not, the page faults of filling
 * nblocks small blocks; the bytes populated first. */
static int heap_child(const char *how, int nblocks)
{
	struct rusage r0, r1;
	size_t got = strcmp(how, "cold") == 0 ? 0 : heapwarm(heapwarm_size(0, 0, strcmp(how, "callgraph") == 0));
	char *blocks[HEAP_BLOCKS];

	if (nblocks < 1 || nblocks > HEAP_BLOCKS)
		return 1;
	getrusage(RUSAGE_SELF, &r0);
	for (int i = 0; i < nblocks; i++) {
		if ((blocks[i] = malloc(2048)) == NULL)
			return 1;
		memset(blocks[i], i, 2048);
	}
	getrusage(RUSAGE_SELF, &r1);
	printf("%zu %ld\n", got, r1.ru_minflt - r0.ru_minflt);
	for (int i = 0; i < nblocks; i++) /* a leak check runs at exit in sanitizer builds */
		free(blocks[i]);
	return 0;
}

static bool heap_run(const char *how, int nblocks, size_t *got, long *faults)
{
	char cmd[PATH_MAX + 32], self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;
	bool ok;

	if (n <= 0)
		return false;
	self[n] = '\0';
	snprintf(cmd, sizeof(cmd), "'%s' --heap-child %s %d", self, how, nblocks);
	if ((f = popen(cmd, "r")) == NULL)
		return false;
	ok = fscanf(f, "%zu %ld", got, faults) == 2;
	return pclose(f) == 0 && ok;
}

/* Heap pages a run fills anyway come populated in one call instead of a
 * fault each (heapwarm.h). */
static void test_heap_warm(void)
{
	size_t got_cold, got_warm, got_flat, got_cg;
	long cold, warm, flat_big, cg_big;

	if (!heap_run("cold", 256, &got_cold, &cold) || !heap_run("flat", 256, &got_warm, &warm) ||
	    !heap_run("flat", HEAP_BLOCKS, &got_flat, &flat_big) || !heap_run("callgraph", HEAP_BLOCKS, &got_cg, &cg_big)) {
		CHECK(false, "the heap children ran");
		return;
	}
	if (got_warm == 0) {
		/* Sanitizers and valgrind bring their own malloc. */
		CHECK_SKIP("heapwarm did nothing here: a malloc other than glibc's, or a kernel before 5.14 "
			   "(no MADV_POPULATE_WRITE)");
		return;
	}
	CHECK(got_warm >= heapwarm_size(0, 0, false), "the heap's next %zu bytes populated", got_warm);
	CHECK(cold >= 100, "cold: 512 KiB of fresh heap is a fault a page (%ld)", cold);
	CHECK(warm <= 8, "warmed: %ld faults for the same blocks", warm);
	CHECK(flat_big >= 200 && cg_big <= 8,
	      "2.5 MiB, a -g run's first interval: %ld faults warmed as a flat run, %ld as a call-graph run",
	      flat_big, cg_big);
	CHECK(heapwarm_size(50, 160, false) > heapwarm_size(0, 0, false) &&
		      heapwarm_size(100000, 100000, true) <= (size_t)8 << 20,
	      "a live view's terminal adds its windows, within a bound");
}

/* A process's maps are read at its first sample: the lines samples can
 * land in are taken, the rest skipped before any scanf. */
static void test_maps_line(void)
{
	char a[] = "55d0c3a00000-55d0c3a21000 r-xp 00002000 08:01 1234 /usr/bin/with space (deleted)\n";
	char anon[] = "7f0000000000-7f0000002000 r-xp 00000000 00:00 0 \n";
	char data[] = "7f0000000000-7f0000001000 rw-p 00000000 00:00 0                  [heap]\n";
	char none[] = "7f0000000000-7f0000001000 ---p 00000000 00:00 0\n";
	char back[] = "2000-1000 r-xp 0 0:0 0 /x\n", cut[] = "1000-2000 r-xp 0 0:0", shortp[] = "1000-2000 r";
	struct proctab_maps_line m = { .path = "" }; /* set only by a line taken */

	CHECK(proctab_parse_maps_line(a, &m) && m.start == 0x55d0c3a00000ull && m.end == 0x55d0c3a21000ull &&
		      m.off == 0x2000 && m.maj == 8 && m.min == 1 && m.ino == 1234,
	      "an executable mapping's fields");
	CHECK_STR(m.path, "/usr/bin/with space (deleted)", "its path, blanks kept, newline cut");
	CHECK(proctab_parse_maps_line(anon, &m) && m.path[0] == '\0', "anonymous executable memory: no path");
	CHECK(!proctab_parse_maps_line(data, &m) && !proctab_parse_maps_line(none, &m), "data and guard pages skipped");
	CHECK(!proctab_parse_maps_line(back, &m) && !proctab_parse_maps_line(cut, &m) &&
		      !proctab_parse_maps_line(shortp, &m),
	      "an end below its start, a cut line, a cut perms field: refused");
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--heap-child") == 0)
		return heap_child(argv[2], atoi(argv[3]));
	if (argc < 2 || mkdtemp(tmp) == NULL) {
		printf("usage: test_startup FIXTURES_DIR\n1..0\n");
		return 1;
	}
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", tmp);
	snprintf(notes, sizeof(notes), "%s/notes", tmp);
	snprintf(modules, sizeof(modules), "%s/modules", tmp);
	snprintf(cache, sizeof(cache), "%s/cache/perftop", tmp);
	test_cache(argv[1]);
	test_reload(argv[1]);
	test_lazy();
	test_heap_warm();
	test_maps_line();
	{
		char cmd[PATH_MAX];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmp);
	}
	return check_done();
}
