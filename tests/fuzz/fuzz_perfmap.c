/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as a /tmp/perf-PID.map through
 * perfmap_refresh, which reads a path (and refuses symlinks, so no
 * /proc/self/fd trick): each run writes a real file in a private tmpfs
 * directory. The first byte picks where to cut the rest in two; the file is
 * read once with the first part, again after the second is appended (a JIT
 * still writing), then afresh in one go, and must come out the same both
 * ways; last it is replaced by a new file holding only the second part.
 * After every read: sorted, bounded, and every lookup lands inside. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[96], tmp[96];

static void cleanup(void)
{
	unlink(path);
	unlink(tmp);
	rmdir(dir);
}

static void setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(dir, sizeof(dir), "%s/perftop-fuzz-perfmap-XXXXXX", base);
	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	snprintf(tmp, sizeof(tmp), "%s/perf-1.map.new", dir);
	atexit(cleanup);
}

static void put(int fd, const uint8_t *p, size_t n)
{
	if (n && write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

/* A new file (a new inode) renamed over the map, as a restarted JIT would. */
static void replace(const uint8_t *p, size_t n)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		abort();
	put(fd, p, n);
	if (rename(tmp, path) != 0)
		abort();
}

static void append(const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0)
		abort();
	put(fd, p, n);
}

static int refresh(struct perfmap *pm)
{
	int rc = perfmap_refresh(pm, path, getuid());

	if (rc != 0 && rc != 1)
		abort();
	return rc;
}

/* Whatever find returns contains addr. */
static void check_find(const struct perfmap *pm, uint64_t addr)
{
	const struct perfmap_sym *s = perfmap_find(pm, addr);

	if (s && (s < pm->syms || s >= pm->syms + pm->nsyms || s->addr > addr ||
		  addr - s->addr >= s->size))
		abort();
}

/* Every lookup on a big map would make the checks, not the parser, what
 * the fuzzer spends its time on: at most LOOKUPS symbols are looked up. */
#define LOOKUPS 64

static void check(const struct perfmap *pm, size_t file_len)
{
	size_t step = pm->nsyms / LOOKUPS + 1;

	if (pm->nsyms > pm->cap || pm->nsyms > PERFMAP_MAX_SYMS || pm->pos < 0 ||
	    (uint64_t)pm->pos > file_len || perfmap_bytes(pm) < pm->nsyms * sizeof(*pm->syms))
		abort();
	for (size_t i = 0; i < pm->nsyms; i++) {
		const struct perfmap_sym *s = &pm->syms[i];
		size_t len = strlen(s->name);

		if (s->size == 0 || s->addr + s->size < s->addr || len == 0 ||
		    len > PERFMAP_MAX_LINE || memchr(s->name, '\n', len) || memchr(s->name, '\r', len))
			abort();
		/* Sorted, so the binary search works; of equal addresses the
		 * last (the newest) is the one found. */
		if (i && pm->syms[i - 1].addr > s->addr)
			abort();
		if ((i + 1 == pm->nsyms || pm->syms[i + 1].addr != s->addr) &&
		    (i % step == 0 || i + 1 == pm->nsyms)) {
			if (perfmap_find(pm, s->addr) != s)
				abort();
			check_find(pm, s->addr - 1);
			check_find(pm, s->addr + s->size - 1);
			check_find(pm, s->addr + s->size);
		}
	}
	check_find(pm, 0);
	check_find(pm, UINT64_MAX);
}

static void check_same(const struct perfmap *a, const struct perfmap *b)
{
	if (a->nsyms != b->nsyms || a->pos != b->pos)
		abort();
	for (size_t i = 0; i < a->nsyms; i++)
		if (a->syms[i].addr != b->syms[i].addr || a->syms[i].size != b->syms[i].size ||
		    strcmp(a->syms[i].name, b->syms[i].name) != 0)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap grown = { 0 }, whole = { 0 };
	const uint8_t *body = data + 1;
	const char *first = NULL;
	size_t n, cut;

	if (size < 1)
		return 0;
	if (dir[0] == '\0')
		setup();
	n = size - 1;
	cut = (size_t)data[0] * n / 255;

	replace(body, cut);
	refresh(&grown);
	check(&grown, cut);
	if (grown.nsyms)
		first = grown.syms[0].name;
	append(body + cut, n - cut);
	refresh(&grown);
	check(&grown, n);
	if (refresh(&grown) != 0) /* nothing new */
		abort();

	refresh(&whole);
	check(&whole, n);
	check_same(&grown, &whole);
	perfmap_free(&whole);

	replace(body + cut, n - cut);
	refresh(&grown);
	check(&grown, n - cut);
	/* Names handed out stay valid until perfmap_free (ASan watches). */
	if (first && strlen(first) == 0)
		abort();
	perfmap_free(&grown);
	return 0;
}
