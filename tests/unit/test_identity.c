/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Identity in the symbol tables: a file is what its build-id (or device,
 * inode and generation) says, not its path; a pid or tid reused after an
 * exit is a new task; a resolve hands out the task's names.
 *
 * usage: test_identity BUILD1 BUILD2 PIE NOPIE DEBUG_ROOT
 *
 * BUILD1 and BUILD2 are one program in two builds whose function is named
 * build1_hot in one, build2_hot in the other. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "elfsym.h"
#include "symbols.h"
#include "symtest.h"

enum { A_BUILD1, A_BUILD2, A_PIE, A_NOPIE, A_DEBUG_ROOT, A_N };

/* pids above pid_max: never in /proc, so only records speak of them. */
#define FAKE_PID 0x7ffff000

struct child {
	struct fixture f;
	uint64_t start, len, pgoff, ino; /* its program's executable mapping */
	uint32_t maj, min;
};

/* The executable mapping of path (as the kernel names it then) in pid. */
static bool exec_map(struct child *c, const char *path)
{
	char file[64], line[PATH_MAX + 128], perms[8], name[PATH_MAX];
	bool found = false;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)c->f.pid);
	if ((f = fopen(file, "re")) == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t start, end;

		name[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %4095[^\n]", &start, &end,
			   perms, &c->pgoff, &c->maj, &c->min, &c->ino, name) == 8 &&
		    strchr(perms, 'x') && strncmp(name, path, strlen(path)) == 0) {
			c->start = start;
			c->len = end - start;
			found = true;
		}
	}
	fclose(f);
	return found;
}

static int spawn(const char *path, const char *fn, struct child *c)
{
	int rc = fixture_spawn(&c->f, path, &fn, 1);

	return rc ? rc : exec_map(c, path) ? 0 : -EIO;
}

static struct symbols *new_symbols(void)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };

	return symbols_new(&o);
}

/* One path, two builds, each run by a process: records and /proc. */
static void test_two_builds(char **argv)
{
	char dir[] = "/tmp/perftop-ident-XXXXXX", prog[PATH_MAX], tmp[PATH_MAX];
	struct child a = { .f = FIXTURE_NONE }, b = { .f = FIXTURE_NONE };
	struct elfsym *t1 = NULL, *t2 = NULL;
	struct symbols *s = NULL;
	struct sym_result r, r2;

	if (geteuid() != 0) {
		CHECK_SKIP("two builds at one path: /proc/PID/map_files needs root");
		return;
	}
	if (mkdtemp(dir) == NULL || elfsym_load(&t1, argv[A_BUILD1]) || elfsym_load(&t2, argv[A_BUILD2]) ||
	    t1->build_id_len == 0 || t2->build_id_len == 0) {
		CHECK(0, "cannot prepare the two builds");
		goto out;
	}
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(tmp, sizeof(tmp), "%s/prog.new", dir);
	if (copy_file(argv[A_BUILD1], prog, 0755) || spawn(prog, "build1_hot", &a) ||
	    copy_file(argv[A_BUILD2], tmp, 0755) || rename(tmp, prog) || spawn(prog, "build2_hot", &b)) {
		CHECK(0, "cannot run the two builds at %s", prog);
		goto out;
	}

	/* Build-id records: each process keeps its own build's names. */
	s = new_symbols();
	map_bid(s, a.f.pid, a.start, a.len, a.pgoff, t1->build_id, t1->build_id_len, PROT_EXEC, prog);
	map_bid(s, b.f.pid, b.start, b.len, b.pgoff, t2->build_id, t2->build_id_len, PROT_EXEC, prog);
	symbols_resolve(s, b.f.pid, b.f.addr[0], false, &r);
	CHECK_STR(r.sym, "build2_hot", "build-id records: the new build's names");
	symbols_resolve(s, a.f.pid, a.f.addr[0], false, &r);
	CHECK_STR(r.sym, "build1_hot", "build-id records: the old build still running keeps its names");
	symbols_free(s);

	/* Inode records: device, inode and generation tell them apart too. */
	s = new_symbols();
	map_ino(s, a.f.pid, a.start, a.len, a.pgoff, a.maj, a.min, a.ino, 0, PROT_EXEC, prog);
	map_ino(s, b.f.pid, b.start, b.len, b.pgoff, b.maj, b.min, b.ino, 0, PROT_EXEC, prog);
	symbols_resolve(s, a.f.pid, a.f.addr[0], false, &r);
	symbols_resolve(s, b.f.pid, b.f.addr[0], false, &r2);
	CHECK(strcmp(r.sym, "build1_hot") == 0 && strcmp(r2.sym, "build2_hot") == 0,
	      "inode records: each build its names (%s, %s)", r.sym, r2.sym);
	symbols_free(s);

	/* /proc: the same identity as a record's, so one DSO for both. */
	s = new_symbols();
	CHECK(symbols_synthesize(s, a.f.pid) == 0 && symbols_synthesize(s, b.f.pid) == 0, "synthesized both");
	symbols_resolve(s, a.f.pid, a.f.addr[0], false, &r);
	symbols_resolve(s, b.f.pid, b.f.addr[0], false, &r2);
	CHECK(strcmp(r.sym, "build1_hot") == 0 && strcmp(r2.sym, "build2_hot") == 0,
	      "/proc: each build its names (%s, %s)", r.sym, r2.sym);
	map_bid(s, FAKE_PID, a.start, a.len, a.pgoff, t1->build_id, t1->build_id_len, PROT_EXEC, prog);
	symbols_resolve(s, FAKE_PID, a.f.addr[0], false, &r2);
	CHECK(strcmp(r2.sym, "build1_hot") == 0 && r2.key == r.key,
	      "a file read in /proc and its build-id record: one DSO, one key (%s)", r2.sym);
out:
	fixture_reap(&a.f);
	fixture_reap(&b.f);
	unlink(prog);
	unlink(tmp);
	rmdir(dir);
	elfsym_free(t1);
	elfsym_free(t2);
	symbols_free(s);
}

/* Same device and inode, another generation: another file. */
static void test_inode_generation(char **argv)
{
	struct symbols *s = new_symbols();
	const uint64_t base = 0x10000000, len = 0x100000;
	const pid_t p1 = FAKE_PID + 10, p2 = FAKE_PID + 11, p3 = FAKE_PID + 12;
	struct sym_result r1, r2, r3;

	if (s == NULL) {
		CHECK(0, "symbols_new");
		return;
	}
	map_ino(s, p1, base, len, 0, 8, 1, 4242, 1, PROT_EXEC, argv[A_PIE]);
	map_ino(s, p2, base, len, 0, 8, 1, 4242, 2, PROT_EXEC, argv[A_NOPIE]);
	map_ino(s, p3, base, len, 0, 8, 1, 4242, 1, PROT_EXEC, "/elsewhere/fixture");
	symbols_resolve(s, p1, base + 0x1000, false, &r1);
	symbols_resolve(s, p2, base + 0x1000, false, &r2);
	symbols_resolve(s, p3, base + 0x1000, false, &r3);
	CHECK_STR(r2.dso, argv[A_NOPIE], "inode reused with another generation: another DSO");
	CHECK(r1.dso == r3.dso && r1.key == r3.key, "same device, inode and generation: one DSO");
	symbols_free(s);
}

/* A pid or tid whose owner's exit was seen starts afresh on FORK or exec. */
static void test_pid_reuse(char **argv)
{
	struct symbols *s = new_symbols();
	const uint64_t base = 0x10000000, len = 0x100000, ip = base + 0x1000;
	const pid_t p = FAKE_PID + 30, t = p + 1, q = FAKE_PID + 40, x = FAKE_PID + 50;
	struct sym_result r;

	if (s == NULL) {
		CHECK(0, "symbols_new");
		return;
	}
	symbols_comm(s, p, p, "oldprog", false);
	map_ino(s, p, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_PIE]);
	CHECK(!symbols_fork(s, p, p, t, p), "a new thread: no reuse");
	symbols_comm(s, p, t, "oldthread", false);
	symbols_resolve_thread(s, p, t, ip, false, &r);
	CHECK(r.comm && r.thread_comm && strcmp(r.comm, "oldprog") == 0 && strcmp(r.thread_comm, "oldthread") == 0,
	      "process and thread names (%s, %s)", r.comm ? r.comm : "-", r.thread_comm ? r.thread_comm : "-");
	symbols_exit(s, p, t);
	symbols_exit(s, p, p);

	symbols_comm(s, q, q, "newparent", false);
	map_ino(s, q, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_NOPIE]);
	CHECK(symbols_fork(s, p, q, p, q), "fork under an exited, unreaped pid: reused");
	symbols_resolve_thread(s, p, p, ip, false, &r);
	CHECK_STR(r.comm, "newparent", "the new process's name is its parent's");
	CHECK_STR(r.dso, argv[A_NOPIE], "and its maps are its parent's, none of the old ones");
	CHECK(symbols_fork(s, p, p, t, p), "a thread under an exited tid: reused");
	symbols_resolve_thread(s, p, t, ip, false, &r);
	CHECK_STR(r.thread_comm, "newparent", "the new thread's name is its creator's, not the old thread's");
	CHECK(!symbols_fork(s, q + 1, q, q + 1, q), "fork of a pid never seen: no reuse");

	symbols_comm(s, x, x, "before", false);
	map_ino(s, x, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_PIE]);
	symbols_exit(s, x, x);
	CHECK(symbols_comm(s, x, x, "after", true), "exec under an exited pid: reused");
	symbols_resolve(s, x, ip, false, &r);
	CHECK(strcmp(r.dso, "[unknown]") == 0 && r.comm && strcmp(r.comm, "after") == 0,
	      "exec under a reused pid: the old maps are gone (%s, %s)", r.dso, r.comm ? r.comm : "-");
	CHECK(!symbols_comm(s, x, x, "again", true), "exec of a live process: no reuse");
	symbols_free(s);
}

/* Rings are drained one CPU after another: a child's exec and mmaps (on
 * its CPU) may be applied before its FORK (on its parent's). */
static void test_late_fork(char **argv)
{
	struct symbols *s = new_symbols();
	const uint64_t base = 0x10000000, len = 0x100000, ip = base + 0x1000;
	const pid_t c = FAKE_PID + 70, parent = FAKE_PID + 71;
	struct sym_result r;

	if (s == NULL) {
		CHECK(0, "symbols_new");
		return;
	}
	symbols_comm(s, parent, parent, "sh", false);
	map_ino(s, parent, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_NOPIE]);
	symbols_comm(s, c, c, "prog", true);
	map_ino(s, c, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_PIE]);
	CHECK(!symbols_fork(s, c, parent, c, parent), "a late fork: no reuse");
	symbols_resolve(s, c, ip, false, &r);
	CHECK(strcmp(r.dso, argv[A_PIE]) == 0 && r.comm && strcmp(r.comm, "prog") == 0,
	      "a late fork leaves the child's own image and name (%s, %s)", r.dso, r.comm ? r.comm : "-");
	symbols_free(s);
}

static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t named_cond = PTHREAD_COND_INITIALIZER;
static pid_t named_tid;
static bool named_done;

static void *named_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "idthread");
	pthread_mutex_lock(&named_lock);
	named_tid = gettid();
	pthread_cond_broadcast(&named_cond);
	while (!named_done)
		pthread_cond_wait(&named_cond, &named_lock);
	pthread_mutex_unlock(&named_lock);
	return arg;
}

/* sym_result's comm and thread_comm. */
static void test_comm_fields(char **argv)
{
	struct symbols *s = new_symbols();
	const uint64_t base = 0x10000000, len = 0x100000, ip = base + 0x1000;
	const pid_t p = FAKE_PID + 60;
	struct sym_result r;
	pthread_t th;

	if (s == NULL) {
		CHECK(0, "symbols_new");
		return;
	}
	symbols_resolve(s, 0, 0xffffffff81000000ull, true, &r);
	CHECK_STR(r.comm, "swapper", "pid 0 is swapper");
	symbols_resolve(s, FAKE_PID + 99, ip, false, &r);
	CHECK(r.comm == NULL && r.thread_comm == NULL, "an unknown pid has no name");

	symbols_comm(s, p, p, "named", false);
	map_ino(s, p, base, len, 0, 0, 0, 0, 0, PROT_EXEC, argv[A_PIE]);
	symbols_resolve_thread(s, p, p, ip, false, &r);
	CHECK(r.comm && strcmp(r.comm, "named") == 0 && r.thread_comm == r.comm, "main thread: comm, same pointer");
	symbols_comm(s, p, p, "renamed", false);
	symbols_resolve_thread(s, p, p, ip, false, &r); /* a cache hit */
	CHECK_STR(r.comm, "renamed", "a cached address: the name of now");
	symbols_resolve_thread(s, p, p, 0xffffffff81000000ull, true, &r);
	CHECK_STR(r.comm, "renamed", "a kernel sample: its task's name");
	symbols_resolve_thread(s, p, p + 1, ip, false, &r);
	CHECK(r.thread_comm == r.comm, "a thread without a name of its own: its process's");

	/* A thread older than us: its name from /proc, once. */
	if (pthread_create(&th, NULL, named_thread, NULL) != 0) {
		CHECK(0, "pthread_create");
		goto out;
	}
	pthread_mutex_lock(&named_lock);
	while (named_tid == 0)
		pthread_cond_wait(&named_cond, &named_lock);
	pthread_mutex_unlock(&named_lock);
	symbols_resolve_thread(s, getpid(), named_tid, (uint64_t)(uintptr_t)test_comm_fields, false, &r);
	CHECK(r.comm && strncmp(r.comm, "test_identity", 13) == 0, "our comm from /proc (%s)", r.comm ? r.comm : "-");
	CHECK_STR(r.thread_comm, "idthread", "a thread's own name from /proc");
	pthread_mutex_lock(&named_lock);
	named_done = true;
	pthread_cond_broadcast(&named_cond);
	pthread_mutex_unlock(&named_lock);
	pthread_join(th, NULL);
out:
	symbols_free(s);
}

/* A callchain resolved whole is cached while what it was resolved under
 * holds: another file mapped at its addresses, an exec, the next interval
 * or another mode of an address must not be served the old frames. */
static void test_chain_cache(char **argv)
{
	struct symbols *s = new_symbols();
	const uint64_t base = 0x10000000, len = 0x100000;
	const pid_t pid = FAKE_PID + 30;
	struct elfsym *t1 = NULL, *t2 = NULL;
	const struct elfsym_sym *hot, *mn;
	struct sym_result out[2], one;
	const struct sym_result *f;
	struct symbols_stats st;
	uint64_t addrs[2], off, kmask = 0, hits;

	if (s == NULL || elfsym_load(&t1, argv[A_BUILD1]) || elfsym_load(&t2, argv[A_BUILD2]) ||
	    (hot = sym_named(t1, "build1_hot")) == NULL || !vaddr_to_offset(t1, hot->addr, &off) ||
	    (mn = sym_named(t1, "main")) == NULL) {
		CHECK(0, "cannot prepare the chain-cache tests");
		goto out;
	}
	addrs[0] = base + off + 1;
	if (!vaddr_to_offset(t1, mn->addr, &off)) {
		CHECK(0, "main has no file offset");
		goto out;
	}
	addrs[1] = base + off + 3;
	map_ino(s, pid, base, len, 0, 8, 1, 5001, 0, PROT_EXEC, argv[A_BUILD1]);
	symbols_comm(s, pid, pid, "chainer", false);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	CHECK(strcmp(f[0].sym, "build1_hot") == 0 && strcmp(f[1].sym, "main") == 0, "a chain resolved (%s, %s)",
	      f[0].sym, f[1].sym);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == 1 && st.chain_misses == 1, "the same chain again: from the cache (%" PRIu64 " hits)",
	      st.chain_hits);
	CHECK(strcmp(f[0].sym, "build1_hot") == 0 && f[0].comm && strcmp(f[0].comm, "chainer") == 0,
	      "a cached chain: the same frames, the task's name on the leaf");

	/* Another file at the same addresses (an mmap over it). */
	map_ino(s, pid, base, len, 0, 8, 1, 5002, 0, PROT_EXEC, argv[A_BUILD2]);
	symbols_resolve(s, pid, addrs[0], false, &one);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	CHECK(strcmp(f[0].sym, one.sym) == 0 && strcmp(f[0].sym, "build1_hot") != 0 &&
	      strcmp(f[0].dso, argv[A_BUILD2]) == 0,
	      "a new mapping at the chain's addresses: the new file's frames (%s, want %s)", f[0].sym, one.sym);
	hits = (symbols_stats(s, &st), st.chain_hits);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == hits + 1 && strcmp(f[0].sym, one.sym) == 0, "then cached again, with the new frames");

	/* exec: the process becomes another program, its maps go. */
	symbols_comm(s, pid, pid, "other", true);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == hits + 1 && strcmp(f[0].sym, "[unknown]") == 0,
	      "after an exec the old frames are not served (%s)", f[0].sym);

	/* The next interval: still cached, but resolved again in the interval
	 * before tables may be evicted (each table hit is marked then). */
	map_ino(s, pid, base, len, 0, 8, 1, 5001, 0, PROT_EXEC, argv[A_BUILD1]);
	symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	hits = st.chain_hits;
	symbols_reap(s);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == hits + 1 && strcmp(f[0].sym, "build1_hot") == 0, "after a reap: still cached");
	{
		int reaps = 1; /* the epoch, as the object was new */

		do {
			hits = st.chain_hits;
			symbols_reap(s);
			reaps++;
			f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
			symbols_stats(s, &st);
		} while (st.chain_hits == hits + 1 && reaps < SYMBOLS_TABLE_IDLE);
		CHECK(reaps == SYMBOLS_TABLE_IDLE - 1 && st.chain_hits == hits && strcmp(f[0].sym, "build1_hot") == 0,
		      "resolved again in the interval before the first idle check (reap %d)", reaps);
	}

	/* Same addresses in another process, or in kernel mode: other chains. */
	f = symbols_resolve_chain(s, pid + 1, pid + 1, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == hits && strcmp(f[0].sym, "[unknown]") == 0, "another pid: not its chain");
	kmask = 1;
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == hits && f[0].kernel && !f[1].kernel, "the leaf in kernel mode: not the user chain");
out:
	elfsym_free(t1);
	elfsym_free(t2);
	symbols_free(s);
}

/* A chain with a frame in no file (a frame-pointer walk through code built
 * without them ends in such addresses): cached for the interval, so that
 * each sample of it is not resolved frame by frame again; resolved again
 * in the next (a JIT map may name it by then), and at once when a mapping
 * comes over the address. */
static void test_chain_nofile(char **argv)
{
	struct symbols *s = new_symbols();
	const uint64_t base = 0x10000000, len = 0x100000, nofile = 0x30000000;
	const pid_t pid = FAKE_PID + 31;
	struct elfsym *t1 = NULL;
	const struct elfsym_sym *hot;
	struct sym_result out[2], one;
	const struct sym_result *f;
	struct symbols_stats st;
	uint64_t addrs[2], off, kmask = 0, hits, misses;

	if (s == NULL || elfsym_load(&t1, argv[A_BUILD1]) || (hot = sym_named(t1, "build1_hot")) == NULL ||
	    !vaddr_to_offset(t1, hot->addr, &off)) {
		CHECK(0, "cannot prepare the no-file chain tests");
		goto out;
	}
	addrs[0] = base + off + 1;
	addrs[1] = nofile + 0x10;
	map_ino(s, pid, base, len, 0, 8, 1, 5101, 0, PROT_EXEC, argv[A_BUILD1]);
	symbols_comm(s, pid, pid, "nofile", false);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	CHECK(strcmp(f[0].sym, "build1_hot") == 0 && strcmp(f[1].sym, "[unknown]") == 0,
	      "a chain into no file resolved (%s, %s)", f[0].sym, f[1].sym);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == 1 && st.chain_misses == 1 && strcmp(f[1].sym, "[unknown]") == 0,
	      "the same chain again in the interval: from the cache (%" PRIu64 " hits, %" PRIu64 " misses)",
	      st.chain_hits, st.chain_misses);
	CHECK(symbols_resolve_tagged(s, pid, pid, addrs[1], false, &one) == 0 && strcmp(one.sym, "[unknown]") == 0,
	      "the address alone: nothing a memo may keep beyond the interval");

	symbols_reap(s);
	hits = st.chain_hits;
	misses = st.chain_misses;
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == hits && st.chain_misses == misses + 1, "the next interval: resolved again");
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	symbols_stats(s, &st);
	CHECK(st.chain_hits == hits + 1, "then cached for that interval");

	/* A file mapped over the address in the same interval. */
	map_ino(s, pid, nofile, len, 0, 8, 1, 5102, 0, PROT_EXEC, argv[A_BUILD2]);
	f = symbols_resolve_chain(s, pid, pid, addrs, &kmask, 2, out);
	CHECK(f[1].dso && strcmp(f[1].dso, argv[A_BUILD2]) == 0,
	      "a mapping over the address: its file's at once (%s)", f[1].dso ? f[1].dso : "-");
	symbols_resolve(s, pid, addrs[1], false, &one);
	CHECK(one.dso && strcmp(one.dso, argv[A_BUILD2]) == 0, "the address alone too");
out:
	elfsym_free(t1);
	symbols_free(s);
}

/* The chain cache sized by the rate of samples with stacks: more slots at
 * a higher rate; a change empties it (the stack resolved again). */
static void test_chain_rate(char **argv)
{
	struct symbols *s = new_symbols();
	const uint64_t base = 0x10000000, len = 0x100000;
	const pid_t pid = FAKE_PID + 32;
	struct elfsym *t1 = NULL;
	const struct elfsym_sym *hot;
	struct sym_result out[1];
	struct symbols_stats a, b, c;
	uint64_t addr, off, kmask = 0;

	if (s == NULL || elfsym_load(&t1, argv[A_BUILD1]) || (hot = sym_named(t1, "build1_hot")) == NULL ||
	    !vaddr_to_offset(t1, hot->addr, &off)) {
		CHECK(0, "cannot prepare the chain-rate tests");
		goto out;
	}
	addr = base + off + 1;
	map_ino(s, pid, base, len, 0, 8, 1, 5201, 0, PROT_EXEC, argv[A_BUILD1]);
	symbols_set_chain_rate(s, 2 * 4000);
	symbols_resolve_chain(s, pid, pid, &addr, &kmask, 1, out);
	symbols_resolve_chain(s, pid, pid, &addr, &kmask, 1, out);
	symbols_stats(s, &a);
	symbols_set_chain_rate(s, 6000); /* within the same size: kept */
	symbols_resolve_chain(s, pid, pid, &addr, &kmask, 1, out);
	symbols_stats(s, &b);
	CHECK(a.chain_hits == 1 && b.chain_hits == 2 && b.bytes == a.bytes, "the same size: the cache kept");
	symbols_set_chain_rate(s, 2 * 20000);
	symbols_resolve_chain(s, pid, pid, &addr, &kmask, 1, out);
	symbols_stats(s, &c);
	CHECK(c.chain_misses == b.chain_misses + 1, "a new size: the cache emptied, the stack resolved again");
	CHECK(c.bytes >= b.bytes + 3 * 1024 * 32, "20 kHz on 2 CPUs: 4 096 slots (%zu more bytes)",
	      c.bytes - b.bytes);
	symbols_set_chain_rate(s, 1000000);
	symbols_resolve_chain(s, pid, pid, &addr, &kmask, 1, out);
	symbols_stats(s, &a);
	CHECK(a.bytes == c.bytes, "no more than 4 096 slots");

	/* Deep stacks in every slot: their frames stay within the bound. */
	{
		static uint64_t deep[128], dk[2];
		static struct sym_result dout[128];
		const struct sym_result *f = NULL;
		bool right = true;

		for (size_t i = 0; i < 128; i++)
			deep[i] = addr;
		for (uint64_t k = 0; k < 4096; k++) {
			deep[0] = addr + 128 + k;
			f = symbols_resolve_chain(s, pid, pid, deep, dk, 128, dout);
			right = right && f[127].sym && strcmp(f[127].sym, "build1_hot") == 0;
		}
		symbols_stats(s, &b);
		CHECK(right, "deep stacks resolved right, kept or not");
		CHECK(b.bytes - a.bytes <= SYMBOLS_CHAIN_BYTES, "4 096 stacks of 128 frames: %zu KiB kept (at most %zu)",
		      (b.bytes - a.bytes) >> 10, SYMBOLS_CHAIN_BYTES >> 10);
		CHECK(b.bytes - a.bytes >= SYMBOLS_CHAIN_BYTES / 2, "and the bound used (%zu KiB)",
		      (b.bytes - a.bytes) >> 10);
	}
out:
	elfsym_free(t1);
	symbols_free(s);
}

int main(int argc, char **argv)
{
	if (argc < 1 + A_N) {
		fprintf(stderr, "usage: test_identity BUILD1 BUILD2 PIE NOPIE DEBUG_ROOT\n");
		return 2;
	}
	argv++;
	test_two_builds(argv);
	test_inode_generation(argv);
	test_pid_reuse(argv);
	test_late_fork(argv);
	test_comm_fields(argv);
	test_chain_cache(argv);
	test_chain_nofile(argv);
	test_chain_rate(argv);
	return check_done();
}
