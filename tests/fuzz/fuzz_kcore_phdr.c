/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as the start of /proc/kcore (or a
 * vmlinux, or a program): the ELF64 header and program headers that
 * annot_phdr reads by hand, through annot_phdr_read (a memfd holding the
 * bytes) and annot_phdr_map for addresses taken from the input; and the
 * same bytes as a perf-PID.map for annot_jitmap_parse. Whatever the
 * headers say: no read outside the buffer, a mapped range wholly inside
 * the segment that holds it, a partial answer never longer than asked. */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "annot_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;

static uint64_t word(const uint8_t *data, size_t size, size_t at)
{
	uint64_t v = 0;

	if (at + sizeof(v) <= size)
		memcpy(&v, data + at, sizeof(v));
	return v;
}

static void probe(const void *hdr, size_t hlen, uint64_t addr, uint64_t len)
{
	uint64_t off = 0, avail = 0;
	int rc = annot_phdr_map(hdr, hlen, addr, len, &off, &avail);

	if (rc == 0 && avail != len)
		abort();
	if (rc != 0 && rc != -ENOENT && rc != -ENOEXEC)
		abort();
	if (avail > len)
		abort();
	(void)annot_phdr_machine(hdr, hlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *hdr = NULL;
	ssize_t hlen;
	/* Addresses the input names: its own words, and the ends of ranges. */
	uint64_t a = word(data, size, 0), b = word(data, size, 8);

	probe(data, size, a, b & 0xffff);
	probe(data, size, b, 1);
	probe(data, size, UINT64_MAX, 1);
	probe(data, size, a, UINT64_MAX);
	if (memfd < 0 && (memfd = memfd_create("fuzz-kcore", 0)) < 0)
		abort();
	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	hlen = annot_phdr_read(memfd, &hdr);
	if (hlen >= 0) {
		if (hdr == NULL)
			abort();
		probe(hdr, (size_t)hlen, a, b & 0xffff);
		probe(hdr, (size_t)hlen, b, 16);
		free(hdr);
	} else if (hdr != NULL) {
		abort();
	}
	(void)annot_jitmap_parse((const char *)data, size, a);
	(void)annot_jitmap_parse((const char *)data, size, 0x1000);
	return 0;
}
