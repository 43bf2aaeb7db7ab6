/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define CHUNK_SIZE 65536

struct perfmap_chunk {
	struct perfmap_chunk *next;
	size_t used;
	char data[CHUNK_SIZE];
};

/* Names go into chunks that never move: the strings are handed out. */
static const char *name_put(struct perfmap *pm, const char *s, size_t len)
{
	struct perfmap_chunk *c = pm->chunks;
	char *p;

	if (len + 1 > CHUNK_SIZE)
		len = CHUNK_SIZE - 1;
	if (c == NULL || CHUNK_SIZE - c->used < len + 1) {
		if (pm->name_bytes >= PERFMAP_MAX_BYTES || (c = malloc(sizeof(*c))) == NULL)
			return NULL;
		c->used = 0;
		c->next = pm->chunks;
		pm->chunks = c;
		pm->name_bytes += sizeof(*c);
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

/* "START SIZE name": hex numbers, optionally 0x-prefixed; the name is the
 * rest of the line. 1 added, 0 skipped, -ENOMEM. */
static int add_line(struct perfmap *pm, char *line)
{
	uint64_t addr, size;
	char *end, *name;
	struct perfmap_sym *n;
	size_t len;

	errno = 0;
	addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || errno)
		return 0;
	line = end + 1;
	size = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || errno || size == 0 || addr + size < addr)
		return 0;
	name = end + 1;
	len = strcspn(name, "\r");
	if (len == 0 || pm->nsyms >= PERFMAP_MAX_SYMS)
		return 0;
	if (pm->nsyms == pm->cap) {
		size_t cap = pm->cap ? pm->cap * 2 : 256;

		if ((n = reallocarray(pm->syms, cap, sizeof(*n))) == NULL)
			return -ENOMEM;
		pm->syms = n;
		pm->cap = cap;
	}
	if ((name = (char *)(uintptr_t)name_put(pm, name, len)) == NULL)
		return -ENOMEM;
	pm->syms[pm->nsyms++] = (struct perfmap_sym){ .addr = addr, .size = size, .name = name };
	return 1;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct perfmap_sym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static void reset(struct perfmap *pm, const struct stat *st, bool *changed)
{
	*changed = pm->nsyms > 0;
	pm->nsyms = 0; /* names stay: strings handed out must stay valid */
	pm->pos = 0;
	pm->skipping = false;
	pm->dev = st->st_dev;
	pm->ino = st->st_ino;
}

int perfmap_refresh(struct perfmap *pm, const char *path, uid_t uid)
{
	char buf[PERFMAP_MAX_LINE + 1];
	size_t have = 0, before;
	bool skipping, changed = false;
	struct stat st;
	off_t pos;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != uid && st.st_uid != 0) || (st.st_mode & S_IWOTH)) {
		rc = -EPERM;
		goto out_close;
	}
	if ((uint64_t)st.st_dev != pm->dev || (uint64_t)st.st_ino != pm->ino || st.st_size < pm->pos)
		reset(pm, &st, &changed);
	before = pm->nsyms;
	if (st.st_size == pm->pos || pm->pos >= (off_t)PERFMAP_MAX_BYTES)
		goto out_close;
	pos = pm->pos;
	/* A too-long line may have been cut by the end of the file last time:
	 * its tail is not a line of its own. */
	skipping = pm->skipping;
	while (pos < (off_t)PERFMAP_MAX_BYTES) {
		ssize_t r = pread(fd, buf + have, sizeof(buf) - 1 - have, pos + (off_t)have);
		size_t start = 0;
		char *nl;

		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = '\0';
		while ((nl = memchr(buf + start, '\n', have - start)) != NULL) {
			*nl = '\0';
			if (!skipping && (rc = add_line(pm, buf + start)) < 0)
				goto out_sort;
			skipping = false;
			start = (size_t)(nl - buf) + 1;
		}
		pos += (off_t)start;
		have -= start;
		memmove(buf, buf + start, have);
		if (have == sizeof(buf) - 1) {
			/* A line too long: drop what we have, skip to its end. */
			pos += (off_t)have;
			have = 0;
			skipping = true;
		}
	}
	rc = 0;
out_sort:
	pm->pos = pos;
	pm->skipping = skipping;
	/* Stable (libbsd's mergesort): of equal addresses, the later entry,
	 * the newer code, stays last. */
	if (pm->nsyms > before || changed) {
		if (pm->nsyms > 1 && mergesort(pm->syms, pm->nsyms, sizeof(*pm->syms), sym_cmp) != 0)
			qsort(pm->syms, pm->nsyms, sizeof(*pm->syms), sym_cmp);
		if (rc == 0)
			rc = 1;
	}
out_close:
	close(fd);
	return rc == 0 && changed ? 1 : rc;
}

const struct perfmap_sym *perfmap_find(const struct perfmap *pm, uint64_t addr)
{
	/* The last entry starting at or before addr; an older, longer one
	 * that a newer entry overlaps does not count. */
	size_t i = util_upper_bound(pm->syms, pm->nsyms, sizeof(*pm->syms), offsetof(struct perfmap_sym, addr), addr);

	if (i == 0)
		return NULL;
	return addr - pm->syms[i - 1].addr < pm->syms[i - 1].size ? &pm->syms[i - 1] : NULL;
}

void perfmap_free(struct perfmap *pm)
{
	struct perfmap_chunk *c, *next;

	if (pm == NULL)
		return;
	for (c = pm->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(pm->syms);
	memset(pm, 0, sizeof(*pm));
}

size_t perfmap_bytes(const struct perfmap *pm)
{
	return pm ? pm->cap * sizeof(*pm->syms) + pm->name_bytes : 0;
}
