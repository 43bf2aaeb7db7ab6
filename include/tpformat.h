/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpformat: a tracepoint's record layout as the kernel publishes it
 * (tracefs events/SYS/NAME/format). Parsed once per event; a field is then
 * read from a PERF_SAMPLE_RAW payload by offset and size, bounds checked,
 * never looked up by name per record. */
#ifndef PERFTOP_TPFORMAT_H
#define PERFTOP_TPFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TPFORMAT_NAME_MAX 64
#define TPFORMAT_FIELDS_MAX 64

struct tpformat_field {
	char name[TPFORMAT_NAME_MAX];
	uint32_t offset, size;
	bool is_signed, is_array;
};

struct tpformat {
	uint32_t id;                 /* the ID: line, 0 when absent */
	size_t nfields;
	struct tpformat_field fields[TPFORMAT_FIELDS_MAX];
};

/* Parses a format file's text (len bytes, need not be NUL-terminated).
 * 0, or -EINVAL when no field line was understood. */
int tpformat_parse(const char *text, size_t len, struct tpformat *out);
/* Reads tracefs's events/sys/name/format into out: 0 or -errno. */
int tpformat_load(const char *sys, const char *name, struct tpformat *out);
/* The field of that name, or NULL. */
const struct tpformat_field *tpformat_find(const struct tpformat *f, const char *name);
/* An integer field (size 1, 2, 4 or 8) of a raw payload, sign-extended when
 * signed; false when it lies outside the payload's len bytes. */
bool tpformat_int(const struct tpformat_field *fl, const unsigned char *raw, size_t len, int64_t *out);

#endif
