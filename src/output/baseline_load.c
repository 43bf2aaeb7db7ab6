/* SPDX-License-Identifier: GPL-2.0-or-later */
/* baseline_load: --baseline's file read whole and handed to the parser of
 * its kind (gzip: a pprof profile; else a JSON Lines dump's last line that
 * parses, or an unpacked profile). */
#include "baseline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#define BASELINE_MAX_FILE ((size_t)256 << 20)   /* a baseline file read whole, at most */
#define BASELINE_MAX_PB ((size_t)512 << 20)     /* a pprof profile unpacked, at most */

/* gzip'd bytes unpacked, up to BASELINE_MAX_PB; NULL on a bad stream. */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *outlen, int *rc)
{
	z_stream z = { 0 };
	size_t cap = len * 4 + 4096, n = 0;
	uint8_t *out = NULL;
	int zr;

	*rc = -EINVAL;
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return NULL;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)(len > UINT32_MAX ? UINT32_MAX : len);
	do {
		if (n == cap || out == NULL) {
			uint8_t *p;

			if (out && cap >= BASELINE_MAX_PB)
				goto fail;
			cap = out ? 2 * cap : cap;
			if ((p = realloc(out, cap)) == NULL) {
				*rc = -ENOMEM;
				goto fail;
			}
			out = p;
		}
		z.next_out = out + n;
		z.avail_out = (uInt)(cap - n > UINT32_MAX ? UINT32_MAX : cap - n);
		zr = inflate(&z, Z_NO_FLUSH);
		n = (size_t)(z.next_out - out);
	} while (zr == Z_OK);
	if (zr != Z_STREAM_END)
		goto fail;
	inflateEnd(&z);
	*outlen = n;
	*rc = 0;
	return out;
fail:
	inflateEnd(&z);
	free(out);
	return NULL;
}

static int read_all(const char *path, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > BASELINE_MAX_FILE) {
		rc = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		close(fd);
		return rc;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return -ENOMEM;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : 0;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int baseline_load(struct baseline *b, const char *path, const enum agg_gkey *keys, size_t n, char *err,
		  size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = read_all(path, &buf, &len);

	if (rc) {
		snprintf(err, errlen, "--baseline %s: %s", path,
			 rc == -EFBIG ? "larger than 256 MiB" : rc == -EINVAL ? "not a regular file" : strerror(-rc));
		return rc;
	}
	baseline_clear(b);
	if (len >= 2 && (uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b) {
		size_t pl = 0;
		uint8_t *pb = gunzip((const uint8_t *)buf, len, &pl, &rc);

		if (pb)
			rc = baseline_parse_pprof(b, pb, pl);
		free(pb);
		if (rc)
			snprintf(err, errlen, "--baseline %s: %s", path,
				 rc == -ENOMEM ? "out of memory" : "not a pprof profile (gzip'd profile.proto)");
	} else {
		/* The last line that is a dump's interval. */
		size_t end = len;

		rc = -EINVAL;
		while (end > 0 && rc == -EINVAL) {
			size_t start = end;

			while (start > 0 && buf[start - 1] != '\n')
				start--;
			if (end > start)
				rc = baseline_parse_json(b, buf + start, end - start, keys, n);
			end = start ? start - 1 : 0;
		}
		if (rc == -EINVAL && len > 0)
			rc = baseline_parse_pprof(b, (const uint8_t *)buf, len); /* an unpacked profile */
		if (rc)
			snprintf(err, errlen, "--baseline %s: %s", path,
				 rc == -ENOMEM ? "out of memory"
					       : n ? "neither a perftop --sort JSON dump with these keys nor a pprof profile"
						   : "neither a perftop JSON Lines dump nor a pprof profile");
	}
	free(buf);
	return rc;
}
