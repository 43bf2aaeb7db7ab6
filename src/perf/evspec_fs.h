/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evspec_fs: private to the perf layer (evspec.c, evspec_tables.c). */
#ifndef PERFTOP_EVSPEC_FS_H
#define PERFTOP_EVSPEC_FS_H

#include <stddef.h>

/* Roots: "/sys" and "" (the usual tracefs mount points) unless set. */
void evspec_fs_set_roots(const char *sysfs, const char *tracefs);
const char *evspec_fs_sysfs_root(void);
/* tracefs root with a readable events/, or NULL with *eno (ENOENT: not mounted). */
const char *evspec_fs_tracefs_dir(int *eno);
/* First line-ish of a sysfs/tracefs file, trailing whitespace dropped; 0 or -errno. */
int evspec_fs_read_line(const char *path, char *buf, size_t len);

#endif
