/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the symbol tests (test_symbols, test_identity). */
#ifndef PERFTOP_SYMTEST_H
#define PERFTOP_SYMTEST_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfsym.h"
#include "symbols.h"

static inline const struct elfsym_sym *sym_named(const struct elfsym *t, const char *name)
{
	for (size_t i = 0; t && i < t->nsyms; i++)
		if (strcmp(elfsym_name(t, &t->syms[i]), name) == 0)
			return &t->syms[i];
	return NULL;
}

/* Inverse of elfsym_offset_to_vaddr, for building mappings by hand. */
static inline bool vaddr_to_offset(const struct elfsym *t, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < t->nloads; i++)
		if (vaddr >= t->loads[i].vaddr && vaddr - t->loads[i].vaddr < t->loads[i].filesz) {
			*off = vaddr - t->loads[i].vaddr + t->loads[i].offset;
			return true;
		}
	return false;
}

/* An MMAP2 record of the inode form (all 0: a plain MMAP). */
static inline void map_ino(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
			   uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen, uint32_t prot,
			   const char *file)
{
	struct sym_map m = { .pid = pid, .start = start, .len = len, .pgoff = pgoff, .prot = prot,
			     .filename = file, .maj = maj, .min = min, .ino = ino, .ino_generation = gen };

	symbols_mmap(s, &m);
}

/* An MMAP2 record of the build-id form. */
static inline void map_bid(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
			   const uint8_t *bid, size_t bidlen, uint32_t prot, const char *file)
{
	struct sym_map m = { .pid = pid, .start = start, .len = len, .pgoff = pgoff, .prot = prot,
			     .filename = file, .build_id = bid, .build_id_len = bidlen };

	symbols_mmap(s, &m);
}

/* A fixture program run as a child: it prints "NAME ADDR" lines, then
 * "ready", and exits at EOF on its stdin. */
#define FIXTURE_MAX_FN 8
struct fixture {
	pid_t pid;
	FILE *out;
	int in;
	uint64_t addr[FIXTURE_MAX_FN]; /* addr[i]: where names[i] said it is */
};

#define FIXTURE_NONE ((struct fixture){ .pid = -1, .in = -1 })

/* 0 once each of names[0..n) has said where it is, else -errno / -EIO. */
static inline int fixture_spawn(struct fixture *c, const char *path, const char *const *names, size_t n)
{
	int to[2], from[2];
	char line[256], name[64];
	size_t got = 0;
	uint64_t addr;

	*c = FIXTURE_NONE;
	if (n > FIXTURE_MAX_FN)
		return -EINVAL;
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = to[1];
	c->out = fdopen(from[0], "r");
	while (c->out && fgets(line, sizeof(line), c->out) && strncmp(line, "ready", 5) != 0)
		for (size_t i = 0; i < n; i++)
			if (sscanf(line, "%63s %" SCNx64, name, &addr) == 2 && strcmp(name, names[i]) == 0) {
				c->addr[i] = addr;
				got++;
			}
	return got == n ? 0 : -EIO;
}

static inline void fixture_reap(struct fixture *c)
{
	if (c->in >= 0)
		close(c->in); /* EOF on its stdin: it exits */
	if (c->out)
		fclose(c->out);
	if (c->pid > 0 && waitpid(c->pid, NULL, 0) < 0)
		kill(c->pid, SIGKILL);
	/* Addresses stay: tests resolve them after the exit. */
	c->pid = -1;
	c->in = -1;
	c->out = NULL;
}

static inline int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	ssize_t n;

	if (in < 0 || (out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)) < 0)
		goto out;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto out;
	rc = n == 0 ? 0 : -1;
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		rc = -1;
	return rc;
}

#endif
