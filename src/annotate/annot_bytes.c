/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_bytes: a function's code bytes from where the symbols found it:
 * the file the process maps (through /proc/PID/root, or
 * /proc/PID/map_files when it was deleted or replaced), the build-id's
 * copy in ~/.debug, the kernel's memory (/proc/kcore) or a vmlinux (-k),
 * and a JIT's code from the live process's memory. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "annot_int.h"
#include "srcline.h"
#include "util.h"

/* What /proc/PID/maps says of the file's executable mapping. */
struct mapping {
	uint64_t start, end;
	uint64_t dev, ino;
	bool found, deleted;
};

static void find_mapping(const char *proc_root, pid_t pid, const char *dso, struct mapping *m)
{
	char path[PATH_MAX], line[PATH_MAX + 128];
	size_t dlen = strlen(dso);
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (pid <= 0 || util_pathf(path, sizeof(path), "%s/%d/maps", proc_root, (int)pid) ||
	    (f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, ino;
		unsigned maj, min;
		char perms[8];
		int n = 0;
		const char *p;
		size_t plen;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &s, &e, perms, &off, &maj, &min, &ino, &n) < 7 ||
		    n == 0 || perms[2] != 'x')
			continue;
		p = line + n;
		plen = strcspn(p, "\n");
		if (plen < dlen || memcmp(p, dso, dlen) || (plen != dlen && strncmp(p + dlen, " (deleted)", plen - dlen)))
			continue;
		*m = (struct mapping){ s, e, makedev(maj, min), ino, true, plen != dlen };
		break;
	}
	fclose(f);
}

bool annot_bytes_ident(struct annot_cache *c, const struct annot_target *t, uint64_t *dev, uint64_t *ino)
{
	char path[PATH_MAX];
	struct mapping m;
	struct stat st;

	find_mapping(c->proc_root, t->pid, t->dso, &m);
	if (m.found && m.ino) {
		*dev = m.dev;
		*ino = m.ino;
		return true;
	}
	if (t->dso[0] != '/' ||
	    (t->pid > 0 ? util_pathf(path, sizeof(path), "%s/%d/root%s", c->proc_root, (int)t->pid, t->dso)
			: util_pathf(path, sizeof(path), "%s", t->dso)) ||
	    stat(path, &st))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/* Whether the file open at fd is the one t names: its build-id when t has
 * one, else the device and inode the mapping says (when known). */
static bool same_file(int fd, const struct annot_target *t, const struct mapping *m)
{
	uint8_t bid[SRCLINE_BUILD_ID_MAX];
	struct stat st;
	int n;

	if (t->build_id_len) {
		n = srcline_build_id(fd, bid);
		return n > 0 && (size_t)n == t->build_id_len && memcmp(bid, t->build_id, (size_t)n) == 0;
	}
	if (m->found && m->ino)
		return fstat(fd, &st) == 0 && st.st_ino == m->ino && st.st_dev == m->dev;
	return true;
}

/* The file to read for t, open, its path in code->path: -errno when none. */
static int open_file(struct annot_cache *c, const struct annot_target *t, struct annot_code *code)
{
	char cand[5][PATH_MAX], hex[2 * SRCLINE_BUILD_ID_MAX + 1];
	const char *home = getenv("HOME");
	struct mapping m;
	size_t n = 0;
	int fd, err = -ENOENT;

	find_mapping(c->proc_root, t->pid, t->dso, &m);
	if (t->pid > 0 && t->dso[0] == '/' && !m.deleted &&
	    !util_pathf(cand[n], PATH_MAX, "%s/%d/root%s", c->proc_root, (int)t->pid, t->dso))
		n++;
	if (m.found && !util_pathf(cand[n], PATH_MAX, "%s/%d/map_files/%" PRIx64 "-%" PRIx64, c->proc_root,
				   (int)t->pid, m.start, m.end))
		n++;
	if (t->dso[0] == '/' && !util_pathf(cand[n], PATH_MAX, "%s", t->dso))
		n++;
	if (t->build_id_len >= 2 && t->build_id_len <= SRCLINE_BUILD_ID_MAX && home && home[0] == '/') {
		for (size_t i = 0; i < t->build_id_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", t->build_id[i]);
		/* perf buildid-cache's layouts, newer then older. */
		if (!util_pathf(cand[n], PATH_MAX, "%s/.debug/.build-id/%.2s/%s/elf", home, hex, hex + 2))
			n++;
		if (!util_pathf(cand[n], PATH_MAX, "%s/.debug/.build-id/%.2s/%s", home, hex, hex + 2))
			n++;
	}
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if ((fd = open(cand[i], O_RDONLY | O_CLOEXEC)) < 0) {
			if (err == -ENOENT)
				err = -errno;
			continue;
		}
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !same_file(fd, t, &m)) {
			close(fd);
			err = err == -ENOENT ? -ESTALE : err;
			continue;
		}
		strlcpy(code->path, cand[i], sizeof(code->path));
		code->dev = st.st_dev;
		code->ino = st.st_ino;
		snprintf(code->origin, sizeof(code->origin), "%s%s", t->dso,
			 strstr(cand[i], "/map_files/") ? (m.deleted ? " (deleted: the process's mapping)" : " (replaced: the process's mapping)") : "");
		return fd;
	}
	return err;
}

static int user_bytes(struct annot_cache *c, const struct annot_target *t, struct annot_code *code, char *why,
		      size_t whylen)
{
	int fd = open_file(c, t, code), rc;
	uint64_t len = t->size;

	if (fd < 0) {
		snprintf(why, whylen, "cannot read the code of %s: %s%s", t->dso,
			 fd == -ESTALE ? "the file was replaced and no copy of the one run was found" : strerror(-fd),
			 fd == -ESTALE ? " (perf buildid-cache keeps one)" : "");
		return fd;
	}
	if (len == 0)
		len = annot_syms_len(annot_syms_of_file(c, code->path), t->start);
	rc = annot_phdr_read_at(fd, t->start, annot_phdr_bound(len ? len : ANNOT_GUESS_BYTES), len == 0, code);
	close(fd);
	if (rc) {
		snprintf(why, whylen, "cannot read the code of %s at 0x%" PRIx64 " in %s: %s", t->sym, t->start,
			 t->dso, rc == -EFAULT ? "no segment of the file holds it" :
			 rc == -ENOEXEC ? "not a 64-bit ELF file" : strerror(-rc));
		return rc;
	}
	if (len == 0)
		snprintf(code->lacks, sizeof(code->lacks), "size of %s unknown: its first %zu bytes", t->sym,
			 code->len);
	return 0;
}

/* "perf-PID.map" as the symbols name JIT code, or its path: its PID, 0 when not. */
static pid_t jit_pid(const struct annot_target *t)
{
	const char *b = strrchr(t->dso, '/');
	int pid, n = 0;

	b = b ? b + 1 : t->dso;
	return sscanf(b, "perf-%d.map%n", &pid, &n) == 1 && n > 0 && b[n] == '\0' && pid > 0 ? pid : 0;
}

static int jit_bytes(struct annot_cache *c, const struct annot_target *target, pid_t pid, struct annot_code *code,
		     char *why, size_t whylen)
{
	/* The map's process when the caller named none. */
	struct annot_target tt = *target;
	const struct annot_target *t = &tt;

	char path[PATH_MAX];
	uint64_t len = t->size;
	struct iovec local, remote;
	ssize_t got;
	int fd;

	if (tt.pid <= 0)
		tt.pid = pid;
	code->jit = true;
	code->machine = ANNOT_HOST_MACHINE;
	if (t->pid <= 0) {
		snprintf(why, whylen, "JIT code of %s: no live process to read it from", t->sym);
		return -ESRCH;
	}
	if (len == 0 && !util_pathf(path, sizeof(path), "%s/perf-%d.map", c->jit_dir, (int)t->pid))
		len = annot_jitmap_len(path, t->start);
	if (len == 0) {
		snprintf(why, whylen, "JIT code of %s: its size is not in perf-%d.map", t->sym, (int)t->pid);
		return -ENOENT;
	}
	len = annot_phdr_bound(len);
	if ((code->bytes = malloc(len)) == NULL)
		return -ENOMEM;
	local = (struct iovec){ code->bytes, len };
	remote = (struct iovec){ (void *)(uintptr_t)t->start, len };
	got = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
	if (got <= 0 && !util_pathf(path, sizeof(path), "%s/%d/mem", c->proc_root, (int)t->pid) &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		got = util_pread_full(fd, code->bytes, len, (off_t)t->start);
		close(fd);
	}
	if (got <= 0) {
		snprintf(why, whylen, "JIT code of %s: cannot read process %d's memory: %s", t->sym, (int)t->pid,
			 got < 0 ? strerror(errno) : "gone");
		free(code->bytes);
		code->bytes = NULL;
		return -EIO;
	}
	code->len = (size_t)got;
	snprintf(code->origin, sizeof(code->origin), "memory of process %d", (int)t->pid);
	snprintf(code->lacks, sizeof(code->lacks),
		 "JIT code from perf-%d.map: bytes from the live process, no source lines", (int)t->pid);
	return 0;
}

int annot_bytes_get(struct annot_cache *c, const struct annot_target *t, struct annot_code *code, char *why,
		    size_t whylen)
{
	memset(code, 0, sizeof(*code));
	code->start = t->start;
	if (t->kernel)
		return annot_kernel_bytes(c, t, code, why, whylen);
	if (jit_pid(t))
		return jit_bytes(c, t, jit_pid(t), code, why, whylen);
	if (t->dso[0] != '/') {
		snprintf(why, whylen, "no code file for %s (%s)", t->sym, t->dso);
		return -ENOENT;
	}
	return user_bytes(c, t, code, why, whylen);
}
