/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cachedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int cachedir_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	/* The spec says a relative XDG_CACHE_HOME is to be ignored. */
	if (x && x[0] == '/')
		return util_pathf(buf, len, "%s/perftop", x);
	if (home && home[0] == '/')
		return util_pathf(buf, len, "%s/.cache/perftop", home);
	return -ENOENT;
}

static int checked(int fd)
{
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* One we create goes only into a parent of ours ($HOME/.cache, made if
 * missing): never root's files in the home of the user sudo came from. */
int cachedir_open(const char *dir, bool create)
{
	char parent[4096];
	struct stat st;
	char *slash;

	if (create && stat(dir, &st) != 0) {
		if (util_pathf(parent, sizeof(parent), "%s", dir) != 0 || (slash = strrchr(parent, '/')) == NULL ||
		    slash == parent)
			return -ENAMETOOLONG;
		*slash = '\0';
		if (mkdir(parent, 0700) != 0 && errno != EEXIST)
			return -errno;
		if (stat(parent, &st) != 0)
			return -errno;
		if (st.st_uid != geteuid())
			return -EPERM;
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -errno;
	}
	return checked(open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

int cachedir_sub(int dfd, const char *name, bool create)
{
	if (create && mkdirat(dfd, name, 0700) != 0 && errno != EEXIST)
		return -errno;
	return checked(openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

int cachedir_open_file(int dfd, const char *name, size_t max, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), rc;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) != 0)
		rc = -errno;
	else if (!S_ISREG(st->st_mode) || st->st_uid != geteuid() || (st->st_mode & 077))
		rc = -EPERM;
	else if ((uint64_t)st->st_size > max)
		rc = -EFBIG;
	else
		return fd;
	close(fd);
	return rc;
}

int cachedir_replace(int dfd, const char *name, const void *buf, size_t len)
{
	char tmp[256];
	int fd, rc;

	if (util_pathf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid()) != 0)
		return -ENAMETOOLONG;
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && unlinkat(dfd, tmp, 0) == 0) /* a crashed run of this pid's */
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = util_write_full(fd, buf, len);
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dfd, tmp, dfd, name) != 0)
		rc = -errno;
	if (rc)
		unlinkat(dfd, tmp, 0);
	return rc;
}
