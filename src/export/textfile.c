/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics.h"

struct textfile {
	int dirfd;
	uint64_t errors;
};

int textfile_open(struct textfile **out, const char *dir, char *err, size_t errlen)
{
	struct textfile *t = calloc(1, sizeof(*t));
	int e;

	*out = NULL;
	if (t == NULL) {
		snprintf(err, errlen, "--textfile: out of memory");
		return -ENOMEM;
	}
	t->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0 || faccessat(t->dirfd, ".", W_OK, AT_EACCESS)) {
		e = errno;
		snprintf(err, errlen, "--textfile %s: %s: give a writable directory (node_exporter's "
			 "--collector.textfile.directory)", dir, strerror(e));
		if (t->dirfd >= 0)
			close(t->dirfd);
		free(t);
		return -e;
	}
	*out = t;
	return 0;
}

void textfile_close(struct textfile *t)
{
	if (t == NULL)
		return;
	close(t->dirfd);
	free(t);
}

/* The collector reads *.prom only: the temp name ends otherwise. */
int textfile_write(struct textfile *t, const char *text, size_t len)
{
	char tmp[64];
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", TEXTFILE_NAME, (int)getpid());
	fd = openat(t->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		t->errors++;
		return -errno;
	}
	while (len && rc == 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else {
			text += n;
			len -= (size_t)n;
		}
	}
	if (rc == 0 && fsync(fd))
		rc = -errno;
	if (close(fd) && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(t->dirfd, tmp, t->dirfd, TEXTFILE_NAME))
		rc = -errno;
	if (rc) {
		unlinkat(t->dirfd, tmp, 0); /* best effort: the error is counted */
		t->errors++;
	}
	return rc;
}

void textfile_figures(const struct textfile *t, struct metrics_figures *f)
{
	if (t)
		f->textfile_errors = t->errors;
}
