/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "json.h"

#include <inttypes.h>
#include <math.h>

#include "sanitize.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
}

/* Runs of bytes that need no escape go out whole: the dump writes a
 * string per field, and a locked putc per byte was 4 % of a -g dump's CPU. */
void json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run;

	flockfile(f);
	putc_unlocked('"', f);
	while (*p) {
		size_t n;

		for (run = p; *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\'; p++)
			;
		if (p > run)
			fwrite_unlocked(run, 1, (size_t)(p - run), f);
		if (*p == '\0')
			break;
		n = sanitize_utf8_len(p);
		if (n == 0) {
			fputs_unlocked("\\ufffd", f);
			p++;
			continue;
		}
		if (n > 1) {
			fwrite_unlocked(p, 1, n, f);
			p += n;
			continue;
		}
		switch (*p) {
		case '"': fputs_unlocked("\\\"", f); break;
		case '\\': fputs_unlocked("\\\\", f); break;
		case '\n': fputs_unlocked("\\n", f); break;
		case '\t': fputs_unlocked("\\t", f); break;
		case '\r': fputs_unlocked("\\r", f); break;
		default: {
			/* The rest below 0x20, and DEL. */
			static const char hex[] = "0123456789abcdef";
			char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };

			fwrite_unlocked(u, 1, sizeof(u), f);
		}
		}
		p++;
	}
	putc_unlocked('"', f);
	funlockfile(f);
}

static void json_key(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		putc(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		json_write_string(j->f, key);
		putc(':', j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_key(j, key);
	putc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void json_close(struct json *j, char c)
{
	putc(c, j->f);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0) {
		putc('\n', j->f);
		j->need_comma[0] = false;
	}
}

void json_obj_begin(struct json *j, const char *key) { json_open(j, key, '{'); }
void json_obj_end(struct json *j) { json_close(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { json_open(j, key, '['); }
void json_arr_end(struct json *j) { json_close(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	json_key(j, key);
	json_write_string(j->f, val ? val : "");
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	char buf[20], *p = buf + sizeof(buf);

	json_key(j, key);
	do
		*--p = (char)('0' + val % 10);
	while (val /= 10);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), j->f);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void json_double(struct json *j, const char *key, double val, int decimals)
{
	json_key(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.*f", decimals, val);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool val)
{
	json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->f);
}
