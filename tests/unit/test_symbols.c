/* Symbol resolution on real processes: the fixture programs (PIE, non-PIE,
 * stripped) print their functions' runtime addresses; we read their maps as
 * perftop does and resolve those addresses.
 *
 * usage: test_symbols FIXTURE_PIE FIXTURE_NOPIE FIXTURE_STRIPPED */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "elfsym.h"
#include "symbols.h"

struct child {
	pid_t pid;
	FILE *out;
	int in;
	uint64_t addr[3];
};

static const char *const fn_names[] = { "fixture_alpha", "fixture_beta", "fixture_lib_function" };

static int spawn(const char *path, struct child *c)
{
	int to[2], from[2];
	char line[256];

	if (pipe(to) || pipe(from))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = to[1];
	c->out = fdopen(from[0], "r");
	for (int i = 0; i < 3; i++) {
		char name[64];
		unsigned long long a;

		if (!fgets(line, sizeof(line), c->out) || sscanf(line, "%63s %llx", name, &a) != 2)
			return -1;
		c->addr[i] = a;
	}
	return fgets(line, sizeof(line), c->out) && strncmp(line, "ready", 5) == 0 ? 0 : -1;
}

static void reap(struct child *c)
{
	if (write(c->in, "x\n", 2) < 0)
		kill(c->pid, SIGKILL);
	close(c->in);
	fclose(c->out);
	waitpid(c->pid, NULL, 0);
}

static void test_binary(const char *path, const char *label, bool stripped)
{
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	struct symbols *s = symbols_new(&o);
	struct sym_result r, r2;
	struct child c;

	if (spawn(path, &c)) {
		CHECK(0, "%s: fixture started", label);
		return;
	}
	CHECK(symbols_synthesize(s, c.pid) == 0, "%s: maps read", label);
	CHECK_STR(symbols_comm_of(s, c.pid), stripped ? "fixture_strippe" : strrchr(path, '/') + 1, "comm from /proc");
	for (int i = 0; i < 3; i++) {
		symbols_resolve(s, c.pid, c.addr[i] + 2, false, &r);
		if (stripped && i < 2) {
			CHECK_STR(r.sym, "[unknown]", "stripped: no name");
			CHECK(strstr(r.dso, "fixture_stripped") != NULL, "%s: grouped by its DSO (%s)", label, r.dso);
			continue;
		}
		CHECK_STR(r.sym, fn_names[i], label);
		CHECK(!r.kernel && strstr(r.dso, i == 2 ? "libfixture.so" : strrchr(path, '/') + 1) != NULL,
		      "%s: %s in %s", label, fn_names[i], r.dso);
		symbols_resolve(s, c.pid, c.addr[i], false, &r2);
		CHECK(r2.key == r.key && r2.sym == r.sym, "%s: same key for two addresses of %s", label, fn_names[i]);
	}
	symbols_resolve(s, c.pid, c.addr[0], false, &r);
	symbols_resolve(s, c.pid, c.addr[1], false, &r2);
	CHECK(stripped ? r.key == r2.key : r.key != r2.key,
	      stripped ? "%s: one [unknown] row per DSO" : "%s: different functions, different keys", label);
	symbols_resolve(s, c.pid, 0x10, false, &r);
	CHECK_STR(r.dso, "[unknown]", "unmapped address: unknown DSO");
	reap(&c);
	symbols_free(s);
}

static void test_records(const char *pie)
{
	struct symbols *s = symbols_new(NULL);
	struct sym_result r;
	struct child c;
	struct symbols_stats st;

	if (spawn(pie, &c)) {
		CHECK(0, "fixture started");
		return;
	}
	symbols_synthesize(s, c.pid);
	symbols_resolve(s, c.pid, c.addr[0], false, &r);
	CHECK_STR(r.sym, "fixture_alpha", "before fork");
	/* A forked child gets its parent's maps and comm. */
	symbols_fork(s, 999999, c.pid, 999999, c.pid);
	symbols_resolve(s, 999999, c.addr[0], false, &r);
	CHECK_STR(r.sym, "fixture_alpha", "fork copies the maps");
	CHECK_STR(symbols_comm_of(s, 999999), "fixture_pie", "fork copies the comm");
	/* A new mapping over the function replaces it (and the cache knows). */
	symbols_mmap(s, 999999, c.addr[0] & ~0xfffULL, 0x1000, 0, 0, 0, 0, PROT_EXEC | PROT_READ, "//anon");
	symbols_resolve(s, 999999, c.addr[0], false, &r);
	CHECK_STR(r.dso, "//anon", "mmap over a range replaces it, cache invalidated");
	symbols_mmap(s, 999999, 0x7000000, 0x1000, 0, 0, 0, 0, PROT_READ, "/data");
	symbols_resolve(s, 999999, 0x7000010, false, &r);
	CHECK_STR(r.dso, "[unknown]", "non-exec mappings ignored");
	symbols_resolve(s, c.pid, c.addr[0], false, &r);
	CHECK_STR(r.sym, "fixture_alpha", "the parent keeps its own maps");
	/* exec: the old image is gone */
	symbols_comm(s, 999999, 999999, "newprog", true);
	CHECK_STR(symbols_comm_of(s, 999999), "newprog", "comm renamed");
	symbols_resolve(s, 999999, c.addr[1], false, &r);
	CHECK_STR(r.dso, "[unknown]", "exec drops the old maps");
	/* exit: still resolvable until reaped at the next interval */
	symbols_mmap(s, 999999, 0x400000, 0x1000, 0, 0, 0, 0, PROT_EXEC, "//anon");
	symbols_exit(s, 999999, 999999);
	symbols_resolve(s, 999999, 0x400010, false, &r);
	CHECK_STR(r.dso, "//anon", "an exited process resolves in its last interval");
	symbols_reap(s);
	symbols_reap(s);
	CHECK(symbols_comm_of(s, 999999) == NULL, "reaped after the next interval");
	symbols_stats(s, &st);
	CHECK(st.processes == 1 && st.tables >= 1 && st.symbols > 0 && st.bytes > 0, "stats count processes and tables");
	reap(&c);
	symbols_free(s);
}

static void test_kernel(void)
{
	struct symbols *s = symbols_new(NULL);
	char line[512];
	unsigned long long addr = 0;
	struct sym_result r;
	FILE *f = fopen("/proc/kallsyms", "re");

	while (f && fgets(line, sizeof(line), f)) {
		char t, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &t, name) == 3 && strcmp(name, "schedule") == 0)
			break;
		addr = 0;
	}
	if (f)
		fclose(f);
	if (addr == 0 || symbols_load_kernel(s) != 0 || symbols_notice(s)) {
		CHECK_SKIP("kernel symbols hidden here (not root or kptr_restrict)");
		symbols_free(s);
		return;
	}
	symbols_resolve(s, 1, addr + 1, true, &r);
	CHECK_STR(r.sym, "schedule", "kernel address resolves through kallsyms");
	CHECK(r.kernel && strcmp(r.dso, "[kernel.kallsyms]") == 0, "kernel DSO");
	symbols_resolve(s, 1, 0x1000, true, &r);
	CHECK_STR(r.sym, "[unknown]", "a kernel address below the text is unknown");
	symbols_free(s);
}

static void test_bad_elf(const char *pie)
{
	char tmp[] = "/tmp/perftop-truncXXXXXX";
	unsigned char buf[200];
	struct elfsym t;
	int in = open(pie, O_RDONLY), out = mkstemp(tmp);
	ssize_t n = in >= 0 ? read(in, buf, sizeof(buf)) : -1;

	CHECK(n == (ssize_t)sizeof(buf) && out >= 0 && write(out, buf, sizeof(buf)) == (ssize_t)sizeof(buf),
	      "truncated copy written");
	lseek(out, 0, SEEK_SET);
	CHECK(elfsym_load_fd(&t, out) <= 0 && t.n == 0, "a truncated ELF gives no symbols, no crash");
	elfsym_free(&t);
	CHECK(elfsym_load_mem(&t, "not an elf at all", 17) == -ENOEXEC, "not ELF: -ENOEXEC");
	close(in);
	close(out);
	unlink(tmp);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		CHECK_SKIP("fixture binaries not given");
		return check_done();
	}
	test_binary(argv[1], "PIE", false);
	test_binary(argv[2], "non-PIE", false);
	test_binary(argv[3], "stripped", true);
	test_records(argv[1]);
	test_kernel();
	test_bad_elf(argv[1]);
	return check_done();
}
