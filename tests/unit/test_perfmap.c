/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JIT perf maps (/tmp/perf-PID.map): parsing, growth, replacement, the
 * trust checks and the bounds. Files live in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/mman.h>

#include "check.h"
#include "perfmap.h"
#include "symbols.h"

static char dir[] = "/tmp/perftop-perfmap-XXXXXX";

static void write_file(const char *path, const char *text, bool append)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		CHECK(0, "cannot write %s", path);
	if (fd >= 0)
		close(fd);
}

static const char *name_at(const struct perfmap *pm, uint64_t addr)
{
	const struct perfmap_sym *s = perfmap_find(pm, addr);

	return s ? s->name : "(none)";
}

static void test_parse(const char *path)
{
	struct perfmap pm = { 0 };
	const char *before;
	int rc;

	write_file(path, "1000 10 jit_one\n0x2000 0x20 LazyCompile:*foo /app/x.js:1\r\n"
			 "garbage line\n3000 0 zero_size\nffffffffffffffff 10 wraps\n"
			 "4000 10 \n5000 10 partial", false);
	rc = perfmap_refresh(&pm, path, getuid());
	CHECK(rc == 1 && pm.nsyms == 2, "two good lines of six (%d, %zu)", rc, pm.nsyms);
	CHECK_STR(name_at(&pm, 0x1000), "jit_one", "start");
	CHECK_STR(name_at(&pm, 0x100f), "jit_one", "last byte");
	CHECK_STR(name_at(&pm, 0x1010), "(none)", "past the end");
	CHECK_STR(name_at(&pm, 0x2004), "LazyCompile:*foo /app/x.js:1", "spaces in names, CR dropped");
	CHECK_STR(name_at(&pm, 0x5000), "(none)", "an unfinished last line waits");
	before = perfmap_find(&pm, 0x1000)->name;
	CHECK(perfmap_refresh(&pm, path, getuid()) == 0, "unchanged: nothing new");
	write_file(path, "_done\n1000 8 jit_one_recompiled\n", true);
	rc = perfmap_refresh(&pm, path, getuid());
	CHECK(rc == 1 && pm.nsyms == 4, "grown: read from where it stopped (%d, %zu)", rc, pm.nsyms);
	CHECK_STR(name_at(&pm, 0x5001), "partial_done", "the finished line");
	CHECK_STR(name_at(&pm, 0x1004), "jit_one_recompiled", "a later entry at the same address wins");
	CHECK_STR(before, "jit_one", "names handed out stay valid");
	write_file(path, "9000 10 replaced\n", false);
	rc = perfmap_refresh(&pm, path, getuid());
	CHECK(rc == 1 && pm.nsyms == 1 && strcmp(name_at(&pm, 0x9000), "replaced") == 0 &&
	      strcmp(name_at(&pm, 0x1000), "(none)") == 0, "truncated and rewritten: read afresh");
	CHECK(perfmap_bytes(&pm) > 0, "bytes counted");
	perfmap_free(&pm);
}

static void test_trust(const char *path)
{
	struct perfmap pm = { 0 };
	char link[PATH_MAX];

	write_file(path, "1000 10 f\n", false);
	snprintf(link, sizeof(link), "%s/link.map", dir);
	CHECK(symlink(path, link) == 0, "symlink made");
	CHECK(perfmap_refresh(&pm, link, getuid()) == -ELOOP, "a symlink: refused");
	unlink(link);
	chmod(path, 0666);
	CHECK(perfmap_refresh(&pm, path, getuid()) == -EPERM, "world-writable: refused");
	chmod(path, 0644);
	if (getuid() == 0) {
		CHECK(chown(path, 4242, 4242) == 0, "chown");
		CHECK(perfmap_refresh(&pm, path, 4343) == -EPERM, "owned by another user: refused");
		CHECK(perfmap_refresh(&pm, path, 4242) == 1, "owned by the target's user: read");
		CHECK(chown(path, 0, 0) == 0, "chown back");
		CHECK(perfmap_refresh(&pm, path, 4343) == 0, "owned by root: trusted");
	} else {
		CHECK_SKIP("not root: cannot chown");
	}
	CHECK(perfmap_refresh(&pm, dir, getuid()) == -EPERM, "a directory: refused");
	CHECK(perfmap_refresh(&pm, "/nonexistent/perf-1.map", getuid()) == -ENOENT, "missing: -ENOENT");
	perfmap_free(&pm);
}

/* A line longer than the limit is skipped whole; lines after it count. */
static void test_bounds(const char *path)
{
	struct perfmap pm = { 0 };
	size_t n = PERFMAP_MAX_LINE * 3;
	char *big = malloc(n + 64);
	int rc;

	if (big == NULL)
		return;
	strcpy(big, "1000 10 ");
	memset(big + 8, 'x', n);
	strcpy(big + 8 + n, "\n2000 10 after_long\n");
	write_file(path, big, false);
	rc = perfmap_refresh(&pm, path, getuid());
	CHECK(rc == 1 && pm.nsyms == 1 && strcmp(name_at(&pm, 0x2000), "after_long") == 0,
	      "an over-long line skipped (%d, %zu)", rc, pm.nsyms);
	free(big);
	perfmap_free(&pm);
}

/* An over-long line that the end of the file cuts at the limit, while a
 * JIT is still writing it: its tail, appended later, is not a line. */
static void test_long_line_grown(const char *path)
{
	struct perfmap pm = { 0 };
	size_t n = PERFMAP_MAX_LINE;
	char *big = malloc(n + 1);
	int rc;

	if (big == NULL)
		return;
	memset(big, 'x', n);
	big[n] = '\0';
	write_file(path, "1000 10 before\n", false);
	write_file(path, big, true);
	rc = perfmap_refresh(&pm, path, getuid());
	CHECK(rc == 1 && pm.nsyms == 1, "the head of a long line read (%d, %zu)", rc, pm.nsyms);
	write_file(path, "3000 10 tail_of_long\n4000 10 after\n", true);
	rc = perfmap_refresh(&pm, path, getuid());
	CHECK(rc == 1 && pm.nsyms == 2 && strcmp(name_at(&pm, 0x3000), "(none)") == 0 &&
	      strcmp(name_at(&pm, 0x4000), "after") == 0,
	      "the tail of a long line is skipped, the next line read (%d, %zu, 0x3000 is %s)", rc, pm.nsyms,
	      name_at(&pm, 0x3000));
	free(big);
	perfmap_free(&pm);
}

/* Through symbols: our own anonymous executable mapping, named by a map
 * in a test directory; growth seen at the next interval. */
static void test_symbols_jit(void)
{
	struct symbols_opts o = { .proc_root = "/proc", .kallsyms_path = "/proc/kallsyms" };
	struct symbols *s = symbols_new(&o);
	char path[PATH_MAX], line[128];
	struct sym_result r, r2;
	void *code = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t base = (uint64_t)(uintptr_t)code;

	if (s == NULL || code == MAP_FAILED) {
		CHECK(0, "setup");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/perf-%d.map", dir, (int)getpid());
	snprintf(line, sizeof(line), "%" PRIx64 " 100 jit_hot\n", base);
	write_file(path, line, false);
	CHECK(symbols_set_jit_dir(s, dir) == 0 && symbols_synthesize(s, getpid()) == 0, "synthesized");
	symbols_resolve(s, getpid(), base + 0x10, false, &r);
	CHECK_STR(r.sym, "jit_hot", "JIT code by name");
	CHECK(r.dso && strncmp(r.dso, "perf-", 5) == 0, "dso %s", r.dso ? r.dso : "-");
	symbols_resolve(s, getpid(), base + 0x1000, false, &r2);
	CHECK_STR(r2.sym, "[anon]+0x1000", "not in the map: its page of anonymous code");
	snprintf(line, sizeof(line), "%" PRIx64 " 100 jit_later\n", base + 0x1000);
	write_file(path, line, true);
	symbols_resolve(s, getpid(), base + 0x1000, false, &r2);
	CHECK_STR(r2.sym, "[anon]+0x1000", "same interval: not re-read");
	symbols_reap(s);
	symbols_resolve(s, getpid(), base + 0x1000, false, &r2);
	CHECK_STR(r2.sym, "jit_later", "next interval: the grown map");
	CHECK(r2.key != r.key, "keys differ");
	unlink(path);
out:
	if (code != MAP_FAILED)
		munmap(code, 8192);
	symbols_free(s);
}

int main(void)
{
	char path[PATH_MAX];

	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return check_done();
	}
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	test_parse(path);
	test_trust(path);
	test_bounds(path);
	test_long_line_grown(path);
	unlink(path);
	test_symbols_jit();
	rmdir(dir);
	return check_done();
}
