/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpformat: the lines of a tracefs format file, as
 *	field:pid_t prev_pid;	offset:24;	size:4;	signed:1;
 * parsed into offsets and sizes; the rest of the file (print fmt) is
 * skipped. Any text may come in (the fuzzer's): every read is bounded. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evspec_fs.h"
#include "tpformat.h"
#include "util.h"

/* The number after key within [p, end), as u32: false if absent or too big. */
static bool attr_u32(const char *p, const char *end, const char *key, uint32_t *out)
{
	size_t klen = strlen(key);
	uint64_t v = 0;
	bool any = false;

	for (; p + klen <= end; p++) {
		if (memcmp(p, key, klen) != 0)
			continue;
		p += klen;
		while (p < end && *p >= '0' && *p <= '9') {
			v = v * 10 + (uint64_t)(*p++ - '0');
			if (v > UINT32_MAX)
				return false;
			any = true;
		}
		if (any)
			*out = (uint32_t)v;
		return any;
	}
	return false;
}

/* "field:TYPE NAME[N];" -> NAME, and whether it is an array. The name is
 * the last identifier before the ';' (or before a '[' if there is one). */
static bool field_name(const char *p, const char *end, struct tpformat_field *fl)
{
	const char *semi = memchr(p, ';', (size_t)(end - p)), *stop, *start;
	size_t n;

	if (semi == NULL)
		return false;
	stop = memchr(p, '[', (size_t)(semi - p));
	fl->is_array = stop != NULL;
	if (stop == NULL)
		stop = semi;
	while (stop > p && stop[-1] == ' ')
		stop--;
	start = stop;
	while (start > p && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
			     (start[-1] >= 'A' && start[-1] <= 'Z') || (start[-1] >= '0' && start[-1] <= '9')))
		start--;
	n = (size_t)(stop - start);
	if (n == 0 || n >= sizeof(fl->name))
		return false;
	memcpy(fl->name, start, n);
	fl->name[n] = '\0';
	return true;
}

int tpformat_parse(const char *text, size_t len, struct tpformat *out)
{
	const char *p = text, *end = text + len;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *q = p;
		struct tpformat_field fl;
		uint32_t signed_v = 0;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t)(le - q) > 3 && memcmp(q, "ID:", 3) == 0)
			(void)attr_u32(q, le, "ID: ", &out->id);
		if ((size_t)(le - q) > 6 && memcmp(q, "field:", 6) == 0 && out->nfields < TPFORMAT_FIELDS_MAX) {
			memset(&fl, 0, sizeof(fl));
			if (field_name(q + 6, le, &fl) && attr_u32(q, le, "offset:", &fl.offset) &&
			    attr_u32(q, le, "size:", &fl.size)) {
				(void)attr_u32(q, le, "signed:", &signed_v);
				fl.is_signed = signed_v != 0;
				out->fields[out->nfields++] = fl;
			}
		}
		p = le + 1;
	}
	return out->nfields ? 0 : -EINVAL;
}

int tpformat_load(const char *sys, const char *name, struct tpformat *out)
{
	char path[PATH_MAX], buf[8192];
	const char *root;
	size_t got = 0;
	ssize_t n;
	int eno = 0, fd;

	if ((root = evspec_fs_tracefs_dir(&eno)) == NULL)
		return -eno;
	if (util_pathf(path, sizeof(path), "%s/events/%s/%s/format", root, sys, name))
		return -ENAMETOOLONG;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	while (got < sizeof(buf) && (n = read(fd, buf + got, sizeof(buf) - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			eno = errno;
			close(fd);
			return -eno;
		}
		got += (size_t)n;
	}
	close(fd);
	return tpformat_parse(buf, got, out);
}

const struct tpformat_field *tpformat_find(const struct tpformat *f, const char *name)
{
	for (size_t i = 0; i < f->nfields; i++)
		if (strcmp(f->fields[i].name, name) == 0)
			return &f->fields[i];
	return NULL;
}

bool tpformat_int(const struct tpformat_field *fl, const unsigned char *raw, size_t len, int64_t *out)
{
	uint64_t u = 0;

	if (fl == NULL || fl->is_array || fl->offset > len || fl->size > len - fl->offset)
		return false;
	switch (fl->size) {
	case 1: { uint8_t v; memcpy(&v, raw + fl->offset, 1); *out = fl->is_signed ? (int8_t)v : v; return true; }
	case 2: { uint16_t v; memcpy(&v, raw + fl->offset, 2); *out = fl->is_signed ? (int16_t)v : v; return true; }
	case 4: { uint32_t v; memcpy(&v, raw + fl->offset, 4); *out = fl->is_signed ? (int32_t)v : (int64_t)v; return true; }
	case 8: memcpy(&u, raw + fl->offset, 8); *out = (int64_t)u; return true;
	default: return false;
	}
}
