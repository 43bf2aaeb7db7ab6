/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_jitmap: how long a JIT's function is, from its perf-PID.map line
 * ("START SIZE name", hex), when the caller did not say. The file is the
 * JIT's (another process's): read bounded, every line checked. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annot_int.h"
#include "util.h"

/* Read no further into a map (the symbols bound theirs the same way). */
#define JITMAP_MAX_BYTES (64u << 20)

static bool hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0;

	*v = 0;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end && digits < 17; s++, digits++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			d = (unsigned)((*s | 0x20) - 'a' + 10);
		else
			break;
		*v = *v << 4 | d;
	}
	if (digits == 0 || digits > 16)
		return false;
	*p = s;
	return true;
}

uint64_t annot_jitmap_parse(const char *buf, size_t len, uint64_t addr)
{
	const char *p = buf, *end = buf + len;
	uint64_t found = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;
		const char *eol = nl ? nl : end;
		uint64_t start, size;

		/* The latest line for an address wins: code is reused. */
		if (hex(&q, eol, &start) && q < eol && *q == ' ' && (q++, hex(&q, eol, &size)) && q < eol &&
		    *q == ' ' && start == addr && size && size <= UINT64_MAX - start)
			found = size;
		p = eol + 1;
	}
	return found;
}

uint64_t annot_jitmap_len(const char *path, uint64_t addr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	char *buf;
	ssize_t n;
	uint64_t len = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (st.st_mode & S_IWOTH) || st.st_size <= 0) {
		close(fd);
		return 0;
	}
	size_t want = (uint64_t)st.st_size > JITMAP_MAX_BYTES ? JITMAP_MAX_BYTES : (size_t)st.st_size;
	if ((buf = malloc(want)) != NULL && (n = util_read_full(fd, buf, want)) > 0)
		len = annot_jitmap_parse(buf, (size_t)n, addr);
	free(buf);
	close(fd);
	return len;
}
