/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "buildid.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define PHNUM_MAX 64      /* more program headers than any linker writes */
#define NOTE_MAX 4096     /* a PT_NOTE longer than this holds no build-id of ours */

/* A few preads, not libelf: /proc holds hundreds of files to identify at
 * start, and libelf's set-up costs several times these. Native byte order
 * only, as the kernel's own reader (build_id_parse). */
static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = off > (uint64_t)INT64_MAX ? -1 : pread(fd, buf, len, (off_t)off);

	return n >= 0 && (size_t)n == len;
}

/* The GNU build-id among the notes of buf, walked as the kernel walks them. */
static int notes_find(const unsigned char *buf, size_t len, uint8_t out[BUILDID_MAX])
{
	size_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh; /* the same three words as Elf32_Nhdr */
		size_t name, desc;

		memcpy(&nh, buf + off, sizeof(nh));
		off += sizeof(nh);
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name > len - off || desc > len - off - name)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(buf + off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= BUILDID_MAX) {
			memcpy(out, buf + off + name, nh.n_descsz);
			return (int)nh.n_descsz;
		}
		off += name + desc;
	}
	return 0;
}

int buildid_find_notes(const void *notes, size_t len, uint8_t out[BUILDID_MAX])
{
	return notes_find(notes, len, out);
}

int buildid_read_notes(int fd, uint8_t out[BUILDID_MAX])
{
	unsigned char notes[NOTE_MAX];
	ssize_t len = util_read_full(fd, notes, sizeof(notes));

	return len < 0 ? (int)len : buildid_find_notes(notes, (size_t)len, out);
}

int buildid_read_fd(int fd, uint8_t out[BUILDID_MAX])
{
	unsigned char notes[NOTE_MAX];
	union { unsigned char ident[EI_NIDENT]; Elf64_Ehdr e64; Elf32_Ehdr e32; } eh;
	union { Elf64_Phdr p64[PHNUM_MAX]; Elf32_Phdr p32[PHNUM_MAX]; } ph;
	size_t phnum, phsize;
	uint64_t phoff;
	bool is64;
	int n;

	/* An ELF32 header is shorter than an ELF64 one: read what it needs. */
	if (!read_at(fd, &eh, sizeof(eh.e32), 0) || memcmp(eh.ident, ELFMAG, SELFMAG) != 0 ||
	    eh.ident[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB) ||
	    (eh.ident[EI_CLASS] != ELFCLASS64 && eh.ident[EI_CLASS] != ELFCLASS32))
		return -ENOEXEC;
	is64 = eh.ident[EI_CLASS] == ELFCLASS64;
	if (is64 && !read_at(fd, &eh, sizeof(eh.e64), 0))
		return -ENOEXEC;
	phoff = is64 ? eh.e64.e_phoff : eh.e32.e_phoff;
	phnum = is64 ? eh.e64.e_phnum : eh.e32.e_phnum;
	phsize = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if ((is64 ? eh.e64.e_phentsize : eh.e32.e_phentsize) != phsize)
		return -ENOEXEC;
	if (phnum > PHNUM_MAX)
		phnum = PHNUM_MAX;
	if (phnum && !read_at(fd, &ph, phnum * phsize, phoff))
		return -ENOEXEC;
	for (size_t i = 0; i < phnum; i++) {
		uint32_t type = is64 ? ph.p64[i].p_type : ph.p32[i].p_type;
		uint64_t off = is64 ? ph.p64[i].p_offset : ph.p32[i].p_offset;
		uint64_t size = is64 ? ph.p64[i].p_filesz : ph.p32[i].p_filesz;

		if (type != PT_NOTE || size > NOTE_MAX || !read_at(fd, notes, (size_t)size, off))
			continue;
		if ((n = notes_find(notes, (size_t)size, out)) > 0)
			return n;
	}
	return 0;
}
