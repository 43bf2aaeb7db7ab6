/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as a mapped file whose build-id note
 * buildid_read_fd looks for (what /proc identification reads from every
 * file at start). The bytes go into a memfd; whatever it finds must be a
 * GNU build-id of a sane length. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buildid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	uint8_t id[BUILDID_MAX];
	int n;

	if (fd < 0 && (fd = memfd_create("fuzz-buildid", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	n = buildid_read_fd(fd, id);
	if (n > BUILDID_MAX)
		abort();
	return 0;
}
