/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols_bid: a file's GNU build-id for layers above symbols (the
 * recording's BUILD_ID feature), read as the kernel reads it for MMAP2. */
#ifndef PERFTOP_SYMBOLS_BID_H
#define PERFTOP_SYMBOLS_BID_H

#include <stdint.h>

#define SYMBOLS_BID_MAX 20

/* The build-id of the file at path (not following a last symlink is not
 * asked: /proc paths are links): its length, 0 for none, or -errno. */
int symbols_bid_file(const char *path, uint8_t out[SYMBOLS_BID_MAX]);
/* The running kernel's, from /sys/kernel/notes. */
int symbols_bid_kernel(uint8_t out[SYMBOLS_BID_MAX]);

#endif
