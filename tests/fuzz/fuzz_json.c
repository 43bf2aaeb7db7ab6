/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes (up to the first NUL, as C strings
 * reach us) through json_write_string, the JSON object writer and
 * sanitize(). Whatever comes in, what goes out is valid UTF-8 without a
 * raw control byte (C0, DEL or C1), the JSON decodes back to the input with
 * U+FFFD for each invalid byte, and sanitize() output unvis()es back to it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define LIBBSD_OPENBSD_VIS 1
#include <vis.h>

#include "json.h"
#include "sanitize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Strict UTF-8 (RFC 3629), written independently of sanitize.c: length of
 * the sequence at s[0..n), 0 when invalid. C1 controls count as invalid
 * here too: both writers must escape them. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned cp, min;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

/* Valid UTF-8, no C0 control, DEL or C1 control anywhere. */
static bool terminal_safe(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t l = utf8_len(s + i, n - i);

		if (l == 0 || (l == 1 && (s[i] < 0x20 || s[i] == 0x7f)))
			return false;
		i += l;
	}
	return true;
}

/* What JSON decoding must give back: the input with each byte that does not
 * start a valid, non-C1 sequence replaced by U+FFFD. out has 3 * n + 1. */
static size_t json_model(const char *in, size_t n, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		size_t l = utf8_len(s + i, n - i);

		if (l == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, s + i, l);
		o += l;
		i += l;
	}
	return o;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Parses the JSON string literal at *p (< end) into out (room for the
 * literal's length), NUL-terminated. False if it is not one, or if a raw
 * byte in it is not terminal-safe (JSON itself forbids raw C0 controls). */
static bool json_string(const char **p, const char *end, char *out, size_t *olen)
{
	const char *s = *p;

	*olen = 0;
	if (s >= end || *s++ != '"')
		return false;
	while (s < end && *s != '"') {
		unsigned cp = 0;

		if (*s != '\\') {
			size_t l = utf8_len((const unsigned char *)s, (size_t)(end - s));

			if (l == 0 || (l == 1 && ((unsigned char)*s < 0x20 || *s == 0x7f)))
				return false;
			memcpy(out + *olen, s, l);
			*olen += l;
			s += l;
			continue;
		}
		if (++s >= end)
			return false;
		switch (*s++) {
		case '"': out[(*olen)++] = '"'; continue;
		case '\\': out[(*olen)++] = '\\'; continue;
		case '/': out[(*olen)++] = '/'; continue;
		case 'b': out[(*olen)++] = '\b'; continue;
		case 'f': out[(*olen)++] = '\f'; continue;
		case 'n': out[(*olen)++] = '\n'; continue;
		case 'r': out[(*olen)++] = '\r'; continue;
		case 't': out[(*olen)++] = '\t'; continue;
		case 'u': break;
		default: return false;
		}
		if (end - s < 4)
			return false;
		for (int i = 0; i < 4; i++) {
			int h = hexval(s[i]);

			if (h < 0)
				return false;
			cp = cp << 4 | (unsigned)h;
		}
		s += 4;
		/* The writer escapes single bytes and writes U+FFFD; no surrogates,
		 * and no NUL (it never had one to escape). */
		if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		if (cp < 0x80) {
			out[(*olen)++] = (char)cp;
		} else if (cp < 0x800) {
			out[(*olen)++] = (char)(0xc0 | cp >> 6);
			out[(*olen)++] = (char)(0x80 | (cp & 0x3f));
		} else {
			out[(*olen)++] = (char)(0xe0 | cp >> 12);
			out[(*olen)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			out[(*olen)++] = (char)(0x80 | (cp & 0x3f));
		}
	}
	if (s >= end)
		return false;
	out[*olen] = '\0';
	*p = s + 1;
	return true;
}

/* The literal at *p decodes to want; *p moves past it. */
static void expect_string(const char **p, const char *end, char *scratch, const char *want,
			  size_t wantlen)
{
	size_t n;

	if (!json_string(p, end, scratch, &n) || n != wantlen || memcmp(scratch, want, n) != 0)
		abort();
}

static void expect(const char **p, const char *end, const char *lit)
{
	size_t l = strlen(lit);

	if ((size_t)(end - *p) < l || memcmp(*p, lit, l) != 0)
		abort();
	*p += l;
}

static void check_json(const char *in)
{
	size_t inlen = strlen(in), declen, wantlen, len;
	char *buf = NULL, *dec, *scratch, *want;
	const char *p, *end;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	if (f == NULL)
		abort();
	json_write_string(f, in);
	putc('\n', f);
	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, in, in);
	json_arr_begin(&j, "a");
	json_str(&j, NULL, in);
	json_arr_end(&j);
	json_obj_end(&j);
	if (fclose(f) != 0)
		abort();
	dec = malloc(len + 1);
	scratch = malloc(len + 1);
	want = malloc(3 * inlen + 1);
	if (dec == NULL || scratch == NULL || want == NULL)
		abort();
	wantlen = json_model(in, inlen, want);

	p = buf;
	end = buf + len;
	if (!json_string(&p, end, dec, &declen))
		abort();
	if (declen != wantlen || memcmp(dec, want, wantlen) != 0)
		abort();
	/* {"in":"in","a":["in"]} on a line of its own. */
	expect(&p, end, "\n{");
	expect_string(&p, end, scratch, dec, declen);
	expect(&p, end, ":");
	expect_string(&p, end, scratch, dec, declen);
	expect(&p, end, ",");
	expect_string(&p, end, scratch, "a", 1);
	expect(&p, end, ":[");
	expect_string(&p, end, scratch, dec, declen);
	expect(&p, end, "]}\n");
	if (p != end)
		abort();
	free(want);
	free(scratch);
	free(dec);
	free(buf);
}

static void check_sanitize(const char *in, size_t dstlen)
{
	size_t inlen = strlen(in), n;
	char *dst = malloc(dstlen ? dstlen : 1), *back;

	if (dst == NULL)
		abort();
	n = sanitize(dst, dstlen, in);
	if (dstlen == 0) {
		if (n != 0)
			abort();
		free(dst);
		return;
	}
	if (n >= dstlen || strlen(dst) != n || !terminal_safe((const unsigned char *)dst, n))
		abort();
	/* Room for the worst case (every byte \ooo): nothing was cut, and the
	 * escapes undo to the input exactly. */
	if (dstlen > 4 * inlen) {
		back = malloc(n + 1);
		if (back == NULL)
			abort();
		if (strunvis(back, dst) != (int)inlen || memcmp(back, in, inlen) != 0)
			abort();
		free(back);
	}
	free(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1);
	size_t inlen;

	if (in == NULL)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	inlen = strlen(in);
	check_json(in);
	check_sanitize(in, 4 * inlen + 1);
	/* Cut anywhere, even inside an escape or a UTF-8 sequence. */
	check_sanitize(in, size ? data[0] % 64 : 0);
	check_sanitize(in, inlen / 2 + 1);
	free(in);
	return 0;
}
