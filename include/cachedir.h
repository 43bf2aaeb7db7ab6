/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cachedir: perftop's own cache directory, where parsed symbol tables are
 * kept between runs. Read only when we own it and no one else may write to
 * it, and its files only when they are ours and 0600: else another user
 * could put a table of their choosing where we read. Files are replaced
 * whole by a rename, never changed in place, so a reader sees one whole
 * version. Internal to the symbol modules. */
#ifndef PERFTOP_CACHEDIR_H
#define PERFTOP_CACHEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* $XDG_CACHE_HOME/perftop, else $HOME/.cache/perftop. 0 or -ENOENT
 * (neither set, or not absolute) or -ENAMETOOLONG. */
int cachedir_path(char *buf, size_t len);

/* The directory dir, as an O_DIRECTORY fd, if it is ours and not open to
 * others (-EPERM otherwise). create: made (0700) if missing, and its
 * parent ($HOME/.cache) too, only in a parent of ours. fd or -errno. */
int cachedir_open(const char *dir, bool create);
/* The subdirectory name of the cache directory dfd, with the same checks. */
int cachedir_sub(int dfd, const char *name, bool create);

/* name in dfd, opened for reading if it is a regular file of ours, mode
 * 0600, of at most max bytes; *st gets its stat. fd or -errno. */
int cachedir_open_file(int dfd, const char *name, size_t max, struct stat *st);

/* Writes name in dfd through a temporary file and a rename: a reader sees
 * the old file or the new one, whole. 0 or -errno. */
int cachedir_replace(int dfd, const char *name, const void *buf, size_t len);

#endif
