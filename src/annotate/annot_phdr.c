/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_phdr: an ELF64 file's program headers read by hand, every field
 * checked, for /proc/kcore (whose "file" is the kernel's memory: libelf
 * would size it by its huge segments), a vmlinux and a program alike, and
 * a function's bytes read through them. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annot_int.h"
#include "util.h"

/* The program headers are at the start of a file: a header placing them
 * further is not believed. */
#define PHDR_MAX_BYTES (16u << 20)


static bool header(const void *hdr, size_t hlen, Elf64_Ehdr *eh)
{
	if (hlen < sizeof(*eh))
		return false;
	memcpy(eh, hdr, sizeof(*eh));
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_phentsize == sizeof(Elf64_Phdr);
}

uint16_t annot_phdr_machine(const void *hdr, size_t hlen)
{
	Elf64_Ehdr eh;

	return header(hdr, hlen, &eh) ? eh.e_machine : 0;
}

int annot_phdr_map(const void *hdr, size_t hlen, uint64_t addr, uint64_t len, uint64_t *off,
		   uint64_t *avail)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	*avail = 0;
	if (!header(hdr, hlen, &eh) || eh.e_phoff > hlen ||
	    (uint64_t)eh.e_phnum * sizeof(ph) > hlen - eh.e_phoff)
		return -ENOEXEC;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		uint64_t in;

		memcpy(&ph, (const char *)hdr + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		in = addr - ph.p_vaddr;
		/* The offset must not wrap: a lying header points nowhere. */
		if (ph.p_offset > UINT64_MAX - ph.p_filesz)
			continue;
		if (ph.p_filesz - in >= len) {
			*off = ph.p_offset + in;
			*avail = len;
			return 0;
		}
		if (ph.p_filesz - in > *avail) {
			*avail = ph.p_filesz - in;
			*off = ph.p_offset + in;
		}
	}
	return -ENOENT;
}

ssize_t annot_phdr_read(int fd, void **hdr)
{
	Elf64_Ehdr eh;
	ssize_t n = util_pread_full(fd, &eh, sizeof(eh), 0);
	size_t len;
	void *buf;
	struct stat st;

	*hdr = NULL;
	if (n < 0)
		return n;
	if (!header(&eh, (size_t)n, &eh) || eh.e_phoff > PHDR_MAX_BYTES)
		return -ENOEXEC;
	len = (size_t)eh.e_phoff + (size_t)eh.e_phnum * sizeof(Elf64_Phdr);
	/* Not more than the file holds (kcore's size is the memory's). */
	if (fstat(fd, &st) || (st.st_size > 0 && (uint64_t)st.st_size < len))
		return -ENOEXEC;
	if ((buf = malloc(len)) == NULL)
		return -ENOMEM;
	if ((n = util_pread_full(fd, buf, len, 0)) < 0 || (size_t)n < len) {
		free(buf);
		return n < 0 ? n : -ENOEXEC;
	}
	*hdr = buf;
	return (ssize_t)len;
}

int annot_phdr_read_at(int fd, uint64_t addr, uint64_t len, bool guess, struct annot_code *code)
{
	void *hdr;
	ssize_t hlen = annot_phdr_read(fd, &hdr);
	uint64_t off, avail;
	ssize_t got;
	int rc;

	if (hlen < 0)
		return (int)hlen;
	code->machine = annot_phdr_machine(hdr, (size_t)hlen);
	rc = annot_phdr_map(hdr, (size_t)hlen, addr, len, &off, &avail);
	free(hdr);
	if (rc == -ENOENT && guess && avail)
		len = avail;
	else if (rc)
		return rc == -ENOENT ? -EFAULT : rc;
	if ((code->bytes = malloc(len)) == NULL)
		return -ENOMEM;
	got = util_pread_full(fd, code->bytes, len, (off_t)off);
	if (got <= 0) {
		free(code->bytes);
		code->bytes = NULL;
		return got < 0 ? (int)got : -EIO;
	}
	code->len = (size_t)got;
	return 0;
}

uint64_t annot_phdr_bound(uint64_t len)
{
	return len > ANNOT_MAX_BYTES ? ANNOT_MAX_BYTES : len;
}
