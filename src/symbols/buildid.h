/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buildid: the GNU build-id note of an ELF file, read as the kernel reads it
 * for MMAP2 records (PT_NOTE segments), so that a file found in /proc gets
 * the identity a record would give it. */
#ifndef PERFTOP_BUILDID_H
#define PERFTOP_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define BUILDID_MAX 20 /* the kernel's BUILD_ID_SIZE_MAX */

/* Its length (1..BUILDID_MAX) into out, 0 when there is none, or -errno. */
int buildid_read_fd(int fd, uint8_t out[BUILDID_MAX]);
/* The same from a run of ELF notes (/sys/kernel/notes): its length or 0. */
int buildid_find_notes(const void *notes, size_t len, uint8_t out[BUILDID_MAX]);
/* The same from a file of bare notes, as /sys/kernel/notes is. */
int buildid_read_notes(int fd, uint8_t out[BUILDID_MAX]);

#endif
