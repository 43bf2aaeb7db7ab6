/* SPDX-License-Identifier: GPL-2.0-or-later */
/* baseline_json: one line of perftop's JSON Lines dump read for its rows'
 * shares. A small strict scanner: the top object's "symbols" (or "groups")
 * array of objects is read, every other value skipped; nesting is bounded. */
#include "baseline.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_DEPTH 32
#define JSON_STR 512

struct scan {
	const char *p, *end;
};

static void ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool eat(struct scan *s, char c)
{
	ws(s);
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return true;
	}
	return false;
}

static int hex4(const char *p, const char *end)
{
	int v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string into buf (cut to fit, never mid-way past it; NULL: skipped). */
static bool str(struct scan *s, char *buf, size_t len)
{
	size_t n = 0;

	if (!eat(s, '"'))
		return false;
	while (s->p < s->end && *s->p != '"') {
		char tmp[4];
		size_t k = 1;
		unsigned cp;
		int v;

		if ((unsigned char)*s->p < 0x20)
			return false;
		if (*s->p != '\\') {
			tmp[0] = *s->p++;
		} else {
			if (++s->p >= s->end)
				return false;
			switch (*s->p++) {
			case '"': tmp[0] = '"'; break;
			case '\\': tmp[0] = '\\'; break;
			case '/': tmp[0] = '/'; break;
			case 'b': tmp[0] = '\b'; break;
			case 'f': tmp[0] = '\f'; break;
			case 'n': tmp[0] = '\n'; break;
			case 'r': tmp[0] = '\r'; break;
			case 't': tmp[0] = '\t'; break;
			case 'u':
				if ((v = hex4(s->p, s->end)) < 0)
					return false;
				s->p += 4;
				cp = (unsigned)v;
				if (cp >= 0xd800 && cp < 0xdc00 && s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u' &&
				    (v = hex4(s->p + 2, s->end)) >= 0xdc00 && v < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned)v - 0xdc00);
					s->p += 6;
				} else if (cp >= 0xd800 && cp < 0xe000) {
					cp = 0xfffd; /* a lone surrogate */
				}
				k = put_utf8(tmp, cp);
				break;
			default:
				return false;
			}
		}
		if (buf && n + k < len) {
			memcpy(buf + n, tmp, k);
			n += k;
		}
	}
	if (buf && len)
		buf[n] = '\0';
	return eat(s, '"');
}

static bool num(struct scan *s, double *out)
{
	char tmp[64];
	size_t n = 0;
	char *end;

	ws(s);
	while (s->p < s->end && n + 1 < sizeof(tmp) && strchr("+-0123456789.eE", *s->p))
		tmp[n++] = *s->p++;
	tmp[n] = '\0';
	if (n == 0)
		return false;
	*out = strtod(tmp, &end);
	return *end == '\0';
}

static bool word(struct scan *s, const char *w)
{
	size_t l = strlen(w);

	ws(s);
	if ((size_t)(s->end - s->p) < l || memcmp(s->p, w, l) != 0)
		return false;
	s->p += l;
	return true;
}

static bool skip(struct scan *s, int depth)
{
	double d;

	if (depth > JSON_DEPTH)
		return false;
	ws(s);
	if (s->p >= s->end)
		return false;
	switch (*s->p) {
	case '"':
		return str(s, NULL, 0);
	case '{':
		s->p++;
		if (eat(s, '}'))
			return true;
		do {
			if (!str(s, NULL, 0) || !eat(s, ':') || !skip(s, depth + 1))
				return false;
		} while (eat(s, ','));
		return eat(s, '}');
	case '[':
		s->p++;
		if (eat(s, ']'))
			return true;
		do {
			if (!skip(s, depth + 1))
				return false;
		} while (eat(s, ','));
		return eat(s, ']');
	case 't':
		return word(s, "true");
	case 'f':
		return word(s, "false");
	case 'n':
		return word(s, "null");
	default:
		return num(s, &d);
	}
}

struct row {
	char symbol[JSON_STR], dso[JSON_STR], comm[JSON_STR], srcline[JSON_STR];
	double pid, cpu, share, level;
	bool has_share;
};

static bool row(struct scan *s, struct row *r)
{
	memset(r, 0, sizeof(*r));
	r->pid = r->cpu = r->level = -1;
	if (!eat(s, '{'))
		return false;
	if (eat(s, '}'))
		return true;
	do {
		char key[32];

		if (!str(s, key, sizeof(key)) || !eat(s, ':'))
			return false;
		if (strcmp(key, "symbol") == 0 || strcmp(key, "dso") == 0 || strcmp(key, "comm") == 0) {
			char *to = key[0] == 's' ? r->symbol : key[0] == 'd' ? r->dso : r->comm;

			if (!str(s, to, JSON_STR))
				return false;
		} else if (strcmp(key, "srcline") == 0) {
			if (!str(s, r->srcline, JSON_STR))
				return false;
		} else if (strcmp(key, "level") == 0) {
			if (!num(s, &r->level))
				return false;
		} else if (strcmp(key, "pid") == 0 || strcmp(key, "cpu") == 0 || strcmp(key, "share") == 0) {
			double *to = key[0] == 'p' ? &r->pid : key[0] == 'c' ? &r->cpu : &r->share;

			if (!num(s, to))
				return false;
			r->has_share = r->has_share || key[0] == 's';
		} else if (!skip(s, 2)) {
			return false;
		}
	} while (eat(s, ','));
	return eat(s, '}');
}

/* A pid or CPU as the dump wrote it; out of range: -1 (no such key). */
static int as_int(double d)
{
	return d >= INT_MIN && d <= INT_MAX ? (int)d : -1;
}

/* A --sort row's name: its keys' values but the DSO, as agg_group_label. */
static void group_name(const struct row *r, const enum agg_gkey *keys, size_t n, char *buf, size_t len)
{
	char num[32];
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *v = "";

		switch (keys[i]) {
		case AGG_GK_COMM: v = r->comm; break;
		case AGG_GK_PID: snprintf(num, sizeof(num), "%d", as_int(r->pid)); v = num; break;
		case AGG_GK_SYM: v = r->symbol; break;
		case AGG_GK_CPU: snprintf(num, sizeof(num), "%d", as_int(r->cpu)); v = num; break;
		case AGG_GK_SRCLINE: v = r->srcline; break;
		default: continue; /* the DSO has its own place */
		}
		if (at++)
			strlcat(buf, "  ", len);
		strlcat(buf, v, len);
	}
}

static int rows(struct scan *s, struct baseline *b, const enum agg_gkey *keys, size_t n)
{
	bool dso_key = false;

	for (size_t i = 0; i < n; i++)
		dso_key = dso_key || keys[i] == AGG_GK_DSO;
	if (!eat(s, '['))
		return -EINVAL;
	if (eat(s, ']'))
		return 0;
	do {
		struct row r;
		char name[1024];
		int rc;

		if (!row(s, &r) || !r.has_share || !isfinite(r.share))
			return -EINVAL;
		if (r.level == 0) /* --hierarchy's parent: its rows follow */
			continue;
		if (n)
			group_name(&r, keys, n, name, sizeof(name));
		if ((rc = baseline_add(b, n ? name : r.symbol, n && !dso_key ? "" : r.dso, r.share)) != 0)
			return rc;
	} while (eat(s, ','));
	return eat(s, ']') ? 0 : -EINVAL;
}

int baseline_parse_json(struct baseline *b, const char *text, size_t len, const enum agg_gkey *keys, size_t n)
{
	struct scan s = { text, text + len };
	const char *want = n ? "groups" : "symbols";
	bool found = false;

	if (!eat(&s, '{') || eat(&s, '}'))
		goto bad;
	do {
		char key[32];

		if (!str(&s, key, sizeof(key)) || !eat(&s, ':'))
			goto bad;
		if (!found && strcmp(key, want) == 0) {
			int rc = rows(&s, b, keys, n);

			if (rc == -ENOMEM) {
				baseline_clear(b);
				return rc;
			}
			if (rc)
				goto bad;
			found = true;
		} else if (!skip(&s, 1)) {
			goto bad;
		}
	} while (eat(&s, ','));
	if (found && eat(&s, '}'))
		return 0;
bad:
	baseline_clear(b); /* nothing of a line that is not a dump's */
	return -EINVAL;
}
