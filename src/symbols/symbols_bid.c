/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols_bid.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "buildid.h"

_Static_assert(SYMBOLS_BID_MAX == BUILDID_MAX, "one bound");

static int read_with(const char *path, int (*fn)(int, uint8_t *), uint8_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int rc;

	if (fd < 0)
		return -errno;
	rc = fn(fd, out);
	close(fd);
	return rc;
}

int symbols_bid_file(const char *path, uint8_t out[SYMBOLS_BID_MAX])
{
	return read_with(path, buildid_read_fd, out);
}

int symbols_bid_kernel(uint8_t out[SYMBOLS_BID_MAX])
{
	return read_with("/sys/kernel/notes", buildid_read_notes, out);
}
