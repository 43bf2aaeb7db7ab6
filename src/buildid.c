#include "buildid.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>

int buildid_read_fd(int fd, uint8_t out[BUILDID_MAX])
{
	size_t phnum;
	Elf *e;
	int len = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	/* Plain reads: mapping the file for a few hundred bytes costs more. */
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e == NULL)
		return -ENOEXEC;
	if (elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &phnum) != 0) {
		elf_end(e);
		return -ENOEXEC;
	}
	for (size_t i = 0; i < phnum && len == 0; i++) {
		GElf_Phdr ph;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (gelf_getphdr(e, (int)i, &ph) == NULL || ph.p_type != PT_NOTE ||
		    (d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR)) == NULL)
			continue;
		while (len == 0 && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 && nh.n_descsz > 0 &&
			    nh.n_descsz <= BUILDID_MAX) {
				memcpy(out, (char *)d->d_buf + doff, nh.n_descsz);
				len = (int)nh.n_descsz;
			}
	}
	elf_end(e);
	return len;
}
