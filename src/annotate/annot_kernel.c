/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_kernel: the kernel's and modules' code: from -k's vmlinux (moved
 * by the running kernel's KASLR offset), else from /proc/kcore, the
 * running kernel's own memory, which needs no vmlinux at all. Source lines
 * from -k's vmlinux, or from the distribution's debug vmlinux of this
 * kernel when it is installed (Debian's linux-image-*-dbg). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "annot_int.h"
#include "util.h"

/* The running kernel's addresses less the file's (KASLR), by _stext;
 * false when either side does not know it. */
static bool kaslr_of(struct annot_cache *c, const char *path, int64_t *shift)
{
	const struct annot_sym *run = annot_syms_named(annot_syms_kernel(c), "_stext");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t v = fd >= 0 ? annot_syms_elf_value(fd, "_stext") : 0;

	if (fd >= 0)
		close(fd);
	*shift = run && v ? (int64_t)(run->addr - v) : 0;
	return run && v;
}

/* The debug vmlinux of the running kernel, found once. */
static const char *debug_vmlinux(struct annot_cache *c)
{
	struct utsname u;
	char cand[3][PATH_MAX];
	size_t n = 0;

	if (c->kdebug_tried)
		return c->kdebug;
	c->kdebug_tried = true;
	if (uname(&u))
		return NULL;
	if (!util_pathf(cand[n], PATH_MAX, "%s/boot/vmlinux-%s", c->debug_root, u.release))
		n++;
	if (!util_pathf(cand[n], PATH_MAX, "%s/lib/modules/%s/vmlinux", c->debug_root, u.release))
		n++;
	for (size_t i = 0; i < n; i++)
		if (access(cand[i], R_OK) == 0 && kaslr_of(c, cand[i], &c->kdebug_kaslr)) {
			c->kdebug = strdup(cand[i]);
			break;
		}
	return c->kdebug;
}

/* Lines for kcore's code of the core kernel from the debug vmlinux, when
 * the address is in it. */
static void kcore_lines(struct annot_cache *c, struct annot_code *code)
{
	const char *dbg = c->o.source ? debug_vmlinux(c) : NULL;
	void *hdr;
	ssize_t hlen;
	uint64_t off, avail;
	int fd, rc = -1;

	if (dbg == NULL || (fd = open(dbg, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if ((hlen = annot_phdr_read(fd, &hdr)) >= 0) {
		rc = annot_phdr_map(hdr, (size_t)hlen, code->start - (uint64_t)c->kdebug_kaslr, 1, &off, &avail);
		free(hdr);
	}
	close(fd);
	if (rc != 0)
		return;
	strlcpy(code->path, dbg, sizeof(code->path));
	code->file_bias = (uint64_t)c->kdebug_kaslr;
	code->lacks[0] = '\0';
}

int annot_kernel_bytes(struct annot_cache *c, const struct annot_target *t, struct annot_code *code, char *why,
		       size_t whylen)
{
	uint64_t len = t->size;
	int fd, rc = -ENOENT;

	code->kernel = true;
	if (len == 0)
		len = annot_syms_len(annot_syms_kernel(c), t->start);
	if (c->vmlinux && (fd = open(c->vmlinux, O_RDONLY | O_CLOEXEC)) >= 0) {
		if (!c->kaslr_known) {
			kaslr_of(c, c->vmlinux, &c->kaslr);
			c->kaslr_known = true;
		}
		rc = annot_phdr_read_at(fd, t->start - (uint64_t)c->kaslr, annot_phdr_bound(len ? len : ANNOT_GUESS_BYTES),
					 len == 0, code);
		close(fd);
		if (rc == 0) {
			strlcpy(code->path, c->vmlinux, sizeof(code->path));
			snprintf(code->origin, sizeof(code->origin), "%s", c->vmlinux);
			code->file_bias = (uint64_t)c->kaslr;
		}
	}
	/* Not in the vmlinux (a module), or none given: the kernel's memory. */
	if (rc && (fd = open(c->kcore, O_RDONLY | O_CLOEXEC)) >= 0) {
		rc = annot_phdr_read_at(fd, t->start, annot_phdr_bound(len ? len : ANNOT_GUESS_BYTES), len == 0, code);
		close(fd);
		if (rc == 0) {
			snprintf(code->origin, sizeof(code->origin), "%s", c->kcore);
			snprintf(code->lacks, sizeof(code->lacks), "code from %s: no source lines (-k VMLINUX gives them)",
				 c->kcore);
			if (code->machine == 0)
				code->machine = ANNOT_HOST_MACHINE;
			kcore_lines(c, code);
		}
	} else if (rc) {
		rc = -errno;
		if (c->vmlinux)
			snprintf(why, whylen, "cannot read the kernel's code of %s: not in %s, and %s: %s (run as root)",
				 t->sym, c->vmlinux, c->kcore, strerror(errno));
		else
			snprintf(why, whylen, "cannot read kernel code: %s: %s (run as root, or give -k VMLINUX)",
				 c->kcore, strerror(errno));
		return rc;
	}
	if (rc) {
		snprintf(why, whylen, "cannot read the kernel's code of %s at 0x%" PRIx64 ": %s", t->sym, t->start,
			 rc == -EFAULT ? "no segment of /proc/kcore or the vmlinux holds it" : strerror(-rc));
		return rc;
	}
	if (len == 0)
		snprintf(code->lacks, sizeof(code->lacks), "size of %s unknown: its first %zu bytes", t->sym,
			 code->len);
	return 0;
}
