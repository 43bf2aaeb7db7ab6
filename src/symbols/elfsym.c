/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsym: a file's table, read (elfsec.c: its segments and notes;
 * elfsym_build.c: its symbols) or taken from its debug file, and the
 * lookups in it. */
#include "elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addrsearch.h"
#include "demangle.h"
#include "elfsec.h"
#include "elfsym_build.h"

/* MiniDebugInfo (.gnu_debugdata, Fedora): an xz-compressed ELF whose
 * .symtab holds the functions .dynsym lacks, its symbols added to b's. A
 * damaged one is ignored. */
static int load_minidebug(struct elfsym_build *b, Elf *e, uint64_t fsize)
{
	unsigned char *buf;
	size_t len, strndx = 0;
	Elf_Scn *sym;
	GElf_Ehdr eh;
	Elf *mini;
	int rc = elfsec_minidebug(e, fsize, &buf, &len);

	if (rc != 0 || buf == NULL)
		return rc;
	if ((mini = elf_memory((char *)buf, len)) != NULL) {
		if (elf_kind(mini) == ELF_K_ELF && gelf_getehdr(mini, &eh) != NULL &&
		    (sym = elfsec_symtab(mini, SHT_SYMTAB, len, &strndx)) != NULL &&
		    (rc = elfsym_build_symbols(b, mini, sym, strndx)) == 0)
			b->t->minidebug = true;
		elf_end(mini);
	}
	free(buf);
	return rc;
}

static int load(struct elfsym **out, Elf *e, uint64_t fsize, bool debug, const char *label,
		const struct elfsym_debug_finder *find)
{
	struct elfsym_build b = { 0 };
	struct elfsym *dbg;
	GElf_Ehdr eh;
	Elf_Scn *scn;
	size_t strndx = 0;
	int rc = -ENOEXEC;

	*out = NULL;
	if (e == NULL)
		return -ENOEXEC;
	if (elf_kind(e) != ELF_K_ELF || gelf_getehdr(e, &eh) == NULL ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		goto out_end;
	b.t = calloc(1, sizeof(*b.t));
	if (b.t == NULL) {
		rc = -ENOMEM;
		goto out_end;
	}
	b.t->type = eh.e_type;
	if ((rc = elfsec_segments(b.t, e, &eh, fsize, debug)) != 0)
		goto out_free;
	elfsec_build_id(b.t, e, fsize);
	if ((rc = elfsec_debuglink(b.t, e, fsize)) != 0)
		goto out_free;
	scn = elfsec_symtab(e, SHT_SYMTAB, fsize, &strndx);
	/* Its debug file's symbols would replace what .dynsym, MiniDebugInfo
	 * and .eh_frame_hdr give: looked for before those are built (libc's
	 * table was built twice, the first thrown away). */
	if (scn == NULL && !debug && find)
		b.t->searched_debug = true;
	if (b.t->searched_debug && (dbg = find->fn(find->arg, b.t)) != NULL) {
		elfsym_adopt_symbols(b.t, dbg);
		elf_end(e);
		*out = b.t;
		return 0;
	}
	if (scn == NULL) {
		scn = elfsec_symtab(e, SHT_DYNSYM, fsize, &strndx);
		b.t->from_dynsym = true;
	}
	if (scn && (rc = elfsym_build_symbols(&b, e, scn, strndx)) != 0)
		goto out_free;
	if (b.t->from_dynsym && !debug && (rc = load_minidebug(&b, e, fsize)) != 0)
		goto out_free;
	if (b.t->from_dynsym && label && (rc = elfsym_build_eh_frame(&b, e, &eh, fsize, label)) != 0)
		goto out_free;
	if ((rc = elfsym_build_finish(&b)) != 0)
		goto out_free;
	elfsym_build_free(&b);
	elf_end(e);
	*out = b.t;
	return 0;
out_free:
	elfsym_build_free(&b);
	elfsym_free(b.t);
out_end:
	elf_end(e);
	return rc;
}

static int load_fd(struct elfsym **out, int fd, bool debug, const char *label,
		   const struct elfsym_debug_finder *find)
{
	struct stat st;

	*out = NULL;
	if (!elfsec_libelf_ready())
		return -ENOSYS;
	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	return load(out, elf_begin(fd, ELF_C_READ_MMAP, NULL), (uint64_t)st.st_size, debug, label, find);
}

int elfsym_load_fd(struct elfsym **out, int fd)
{
	return load_fd(out, fd, false, NULL, NULL);
}

int elfsym_load_fd_label(struct elfsym **out, int fd, const char *label)
{
	return load_fd(out, fd, false, label, NULL);
}

int elfsym_load_fd_find(struct elfsym **out, int fd, const char *label, const struct elfsym_debug_finder *find)
{
	return load_fd(out, fd, false, label, find);
}

int elfsym_load_debug_fd(struct elfsym **out, int fd)
{
	return load_fd(out, fd, true, NULL, NULL);
}

/* Marks a symbol whose name is not mangled: its raw name is shown. */
static char not_mangled;

static void free_dnames(struct elfsym *t)
{
	for (size_t i = 0; t->dnames && i < t->nsyms; i++)
		if (t->dnames[i] != &not_mangled)
			free(t->dnames[i]);
	free(t->dnames);
	t->dnames = NULL;
	t->dnames_bytes = 0;
}

const char *elfsym_demangled(struct elfsym *t, const struct elfsym_sym *sym)
{
	const char *raw = elfsym_name(t, sym);
	size_t i = (size_t)(sym - t->syms);
	char *d;

	if (!demangle_candidate(raw))
		return raw;
	if (t->dnames == NULL) {
		t->dnames = calloc(t->nsyms, sizeof(*t->dnames));
		if (t->dnames == NULL)
			return raw;
		t->dnames_bytes = t->nsyms * sizeof(*t->dnames);
	}
	if (t->dnames[i] == NULL) {
		d = demangle(raw);
		t->dnames[i] = d ? d : &not_mangled;
		if (d)
			t->dnames_bytes += strlen(d) + 1;
	}
	return t->dnames[i] == &not_mangled ? raw : t->dnames[i];
}

/* Its symbols and names, wherever they lie, and their demangled forms. */
static void drop_symbols(struct elfsym *t)
{
	free_dnames(t);
	if (t->map) {
		munmap(t->map, t->map_len);
	} else {
		free(t->syms);
		free(t->names);
	}
}

void elfsym_adopt_symbols(struct elfsym *t, struct elfsym *dbg)
{
	drop_symbols(t);
	t->map = dbg->map;
	t->map_len = dbg->map_len;
	dbg->map = NULL;
	t->syms = dbg->syms;
	t->nsyms = dbg->nsyms;
	t->names = dbg->names;
	t->names_len = dbg->names_len;
	t->from_dynsym = dbg->from_dynsym;
	t->nsynth = dbg->nsynth;
	dbg->syms = NULL;
	dbg->names = NULL;
	elfsym_free(dbg);
}

int elfsym_load(struct elfsym **out, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	*out = NULL;
	if (fd < 0)
		return -errno;
	rc = elfsym_load_fd(out, fd);
	close(fd);
	return rc;
}

/* libelf may convert a memory image in place; never the caller's. */
static int load_buf(struct elfsym **out, const void *buf, size_t len, const char *label)
{
	char *copy;
	int rc;

	*out = NULL;
	if (!elfsec_libelf_ready())
		return -ENOSYS;
	copy = malloc(len ? len : 1);
	if (copy == NULL)
		return -ENOMEM;
	memcpy(copy, buf, len);
	rc = load(out, elf_memory(copy, len), len, false, label, NULL);
	free(copy);
	return rc;
}

int elfsym_load_buf(struct elfsym **out, const void *buf, size_t len)
{
	return load_buf(out, buf, len, NULL);
}

/* The vDSO is one image for every 64-bit process of this kernel: read ours,
 * whose extent /proc/self/maps gives. */
int elfsym_load_vdso(struct elfsym **out)
{
	char line[256];
	uint64_t start, end;
	FILE *f = fopen("/proc/self/maps", "re");
	int rc = -ENOENT;

	*out = NULL;
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2 &&
		    end > start) {
			/* Its static helpers (the pvclock read of a VM) have no
			 * symbol: named [vdso]+0xVADDR from .eh_frame_hdr. */
			rc = load_buf(out, (const void *)(uintptr_t)start, (size_t)(end - start), "[vdso]");
			break;
		}
	}
	fclose(f);
	return rc;
}

void elfsym_free(struct elfsym *t)
{
	if (t == NULL)
		return;
	drop_symbols(t);
	free(t->debuglink);
	free(t);
}

bool elfsym_offset_to_vaddr(const struct elfsym *t, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < t->nloads; i++) {
		const struct elfsym_load *l = &t->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

const struct elfsym_sym *elfsym_find(const struct elfsym *t, uint64_t vaddr)
{
	const struct elfsym_sym *base = t->syms;
	size_t n = t->nsyms;

	if (n == 0 || vaddr < base[0].addr)
		return NULL;
	base = addrsearch_floor(base, n, sizeof(*base), vaddr);
	return vaddr - base->addr < base->size ? base : NULL;
}

size_t elfsym_bytes(const struct elfsym *t)
{
	if (t == NULL)
		return 0;
	return sizeof(*t) + t->nsyms * sizeof(*t->syms) + t->names_len + t->dnames_bytes +
	       (t->debuglink ? strlen(t->debuglink) + 1 : 0);
}
