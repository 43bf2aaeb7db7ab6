/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsec: the parts of an ELF file elfsym reads besides its symbols. */
#include "elfsec.h"

#include <errno.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"

/* .gnu_debugdata: what its decompression may take and give. */
#define MINIDEBUG_MAX_OUT ((size_t)64 << 20)
#define MINIDEBUG_MEMLIMIT ((uint64_t)128 << 20)

bool elfsec_libelf_ready(void)
{
	static int state; /* 0 unknown, 1 ok, -1 unusable */

	if (state == 0)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

/* off + len within a file of size, without overflow. */
bool elfsec_in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

int elfsec_segments(struct elfsym *t, Elf *e, const GElf_Ehdr *eh, uint64_t fsize, bool debug)
{
	size_t phnum, i;

	if (elf_getphdrnum(e, &phnum) != 0)
		return -ENOEXEC;
	if (phnum && !elfsec_in_file(eh->e_phoff, (uint64_t)phnum * eh->e_phentsize, fsize))
		return -ENOEXEC;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) == NULL)
			return -ENOEXEC;
		if (ph.p_type != PT_LOAD)
			continue;
		/* A segment the file does not hold is a truncated file. */
		if ((!debug && !elfsec_in_file(ph.p_offset, ph.p_filesz, fsize)) || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			return -ENOEXEC;
		if (t->nloads == ELFSYM_MAX_LOADS)
			continue;
		t->loads[t->nloads++] = (struct elfsym_load){
			.vaddr = ph.p_vaddr, .offset = ph.p_offset, .filesz = ph.p_filesz,
			.memsz = ph.p_memsz, .flags = ph.p_flags,
		};
	}
	return 0;
}

void elfsec_build_id(struct elfsym *t, Elf *e, uint64_t fsize)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE ||
		    !elfsec_in_file(sh.sh_offset, sh.sh_size, fsize) || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz > 0 && nh.n_descsz <= ELFSYM_BUILD_ID_MAX) {
				memcpy(t->build_id, (char *)d->d_buf + doff, nh.n_descsz);
				t->build_id_len = nh.n_descsz;
				return;
			}
		}
	}
}

/* The section called name, its header in *sh, when the file holds it. */
Elf_Scn *elfsec_find(Elf *e, const char *name, uint64_t fsize, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, sh) == NULL || sh->sh_type == SHT_NOBITS ||
		    (n = elf_strptr(e, shstrndx, sh->sh_name)) == NULL || strcmp(n, name) != 0)
			continue;
		return elfsec_in_file(sh->sh_offset, sh->sh_size, fsize) ? scn : NULL;
	}
	return NULL;
}

/* .gnu_debuglink: a file name, NUL, padding, CRC32. A name with a '/'
 * could point anywhere: ignored. */
int elfsec_debuglink(struct elfsym *t, Elf *e, uint64_t fsize)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elfsec_find(e, ".gnu_debuglink", fsize, &sh);
	Elf_Data *d;
	size_t len;

	if (scn == NULL || (d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL || d->d_size < 2)
		return 0;
	len = strnlen(d->d_buf, d->d_size);
	if (len == 0 || len == d->d_size || len > 255 || memchr(d->d_buf, '/', len) ||
	    strcmp(d->d_buf, ".") == 0 || strcmp(d->d_buf, "..") == 0)
		return 0;
	t->debuglink = strndup(d->d_buf, len);
	return t->debuglink ? 0 : -ENOMEM;
}

/* A symbol table we can trust as far as the file goes: inside the file,
 * entries of the right size, names in a string table also inside it. */
Elf_Scn *elfsec_symtab(Elf *e, uint32_t type, uint64_t fsize, size_t *strndx)
{
	size_t entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Scn *scn = NULL, *str;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh, ssh;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != type)
			continue;
		if (entsize == 0 || sh.sh_entsize != entsize || !elfsec_in_file(sh.sh_offset, sh.sh_size, fsize))
			return NULL;
		str = elf_getscn(e, sh.sh_link);
		if (str == NULL || gelf_getshdr(str, &ssh) == NULL || ssh.sh_type != SHT_STRTAB ||
		    !elfsec_in_file(ssh.sh_offset, ssh.sh_size, fsize))
			return NULL;
		*strndx = sh.sh_link;
		return scn;
	}
	return NULL;
}

bool elfsec_is_code(Elf *e, size_t shndx)
{
	Elf_Scn *scn = shndx && shndx < SHN_LORESERVE ? elf_getscn(e, shndx) : NULL;
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

int elfsec_minidebug(Elf *e, uint64_t fsize, unsigned char **out, size_t *len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elfsec_find(e, ".gnu_debugdata", fsize, &sh);
	lzma_stream zs = LZMA_STREAM_INIT;
	Elf_Data *d;
	unsigned char *buf = NULL, *nbuf;
	size_t cap = 0;
	lzma_ret lr = LZMA_OK;
	int rc = 0;

	*out = NULL;
	*len = 0;
	if (scn == NULL || (d = elf_rawdata(scn, NULL)) == NULL || d->d_buf == NULL || d->d_size == 0)
		return 0;
	if (lzma_stream_decoder(&zs, MINIDEBUG_MEMLIMIT, 0) != LZMA_OK)
		return 0;
	zs.next_in = d->d_buf;
	zs.avail_in = d->d_size;
	while (lr == LZMA_OK) {
		if (zs.avail_out == 0) {
			if (cap == MINIDEBUG_MAX_OUT)
				goto out; /* bigger than any real one: not worth it */
			cap = cap ? cap * 2 : 256 * 1024;
			if (cap > MINIDEBUG_MAX_OUT)
				cap = MINIDEBUG_MAX_OUT;
			if ((nbuf = realloc(buf, cap)) == NULL) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nbuf;
			zs.next_out = buf + zs.total_out;
			zs.avail_out = cap - zs.total_out;
		}
		lr = lzma_code(&zs, LZMA_FINISH);
	}
	if (lr != LZMA_STREAM_END || zs.total_out == 0)
		goto out;
	*out = buf;
	*len = zs.total_out;
	buf = NULL;
out:
	lzma_end(&zs);
	free(buf);
	return rc;
}
