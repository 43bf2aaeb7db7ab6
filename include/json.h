/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json: the one JSON writer every machine-readable output uses. Writes
 * compact JSON (one object per line for JSON Lines) to a stdio stream. */
#ifndef PERFTOP_JSON_H
#define PERFTOP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f);

/* key is NULL inside arrays and at the top level. */
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
/* Fixed decimals; non-finite values become null (JSON has no NaN). */
void json_double(struct json *j, const char *key, double val, int decimals);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);

/* A JSON string literal for s: control bytes as \uXXXX, invalid UTF-8 as U+FFFD. */
void json_write_string(FILE *f, const char *s);

#endif
