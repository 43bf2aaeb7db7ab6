/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evspec_fs: where sysfs and tracefs are (roots tests can move) and the
 * one-line reads of their files, shared by the parser (evspec.c) and the
 * listing (evspec_tables.c). */
#include "evspec_fs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static char sysfs_root[256] = "/sys";
static char tracefs_root[256]; /* "" = the usual mount points */

const char *evspec_fs_sysfs_root(void)
{
	return sysfs_root;
}

void evspec_fs_set_roots(const char *sysfs, const char *tracefs)
{
	strlcpy(sysfs_root, sysfs ? sysfs : "/sys", sizeof(sysfs_root));
	strlcpy(tracefs_root, tracefs ? tracefs : "", sizeof(tracefs_root));
}

/* First bytes of a sysfs/tracefs file, trailing whitespace dropped. */
int evspec_fs_read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

/* Where tracefs is; NULL with *eno when it is not there or not readable. */
const char *evspec_fs_tracefs_dir(int *eno)
{
	static const char *const usual[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[300];
	struct stat st;

	*eno = ENOENT;
	for (size_t i = 0; i < NELEM(usual); i++) {
		const char *root = tracefs_root[0] ? tracefs_root : usual[i];

		if (util_pathf(path, sizeof(path), "%s/events", root) == 0 && stat(path, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			return root;
		if (errno == EACCES || errno == EPERM)
			*eno = errno;
		if (tracefs_root[0])
			break;
	}
	return NULL;
}
