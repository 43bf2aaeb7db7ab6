/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_source: the text of source files the line tables name, each read
 * once (bounded), tabs expanded and every line sanitised: a source file
 * is another party's text. A file that cannot be read is remembered too. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annot_int.h"
#include "sanitize.h"
#include "util.h"

#define SOURCE_MAX_BYTES (16u << 20)
#define SOURCE_LINE_MAX 1024 /* a line's first characters shown */

struct annot_src {
	char *name;
	char **lines;   /* sanitised; NULL: unreadable */
	size_t n;
};

/* One line, tabs to spaces (8 columns), sanitised, into a new string. */
static char *clean_line(const char *s, size_t len)
{
	char raw[SOURCE_LINE_MAX + 1], out[4 * SOURCE_LINE_MAX + 1];
	size_t w = 0;

	for (size_t i = 0; i < len && w < SOURCE_LINE_MAX; i++) {
		if (s[i] == '\t') {
			do
				raw[w++] = ' ';
			while (w % 8 && w < SOURCE_LINE_MAX);
		} else if (s[i] != '\r' && s[i] != '\0') {
			raw[w++] = s[i];
		}
	}
	raw[w] = '\0';
	sanitize(out, sizeof(out), raw);
	return strdup(out);
}

static void load(struct annot_src *src)
{
	int fd = open(src->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf = NULL;
	ssize_t len;
	size_t cap = 0;

	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > SOURCE_MAX_BYTES ||
	    (buf = malloc((size_t)st.st_size + 1)) == NULL || (len = util_read_full(fd, buf, (size_t)st.st_size)) < 0) {
		free(buf);
		close(fd);
		return;
	}
	close(fd);
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		char *line;

		if (src->n == cap) {
			char **nv = reallocarray(src->lines, cap ? 2 * cap : 256, sizeof(*nv));

			if (nv == NULL)
				break;
			src->lines = nv;
			cap = cap ? 2 * cap : 256;
		}
		if ((line = clean_line(p, (size_t)(eol - p))) == NULL)
			break;
		src->lines[src->n++] = line;
		p = eol + 1;
	}
	free(buf);
}

const char *annot_source_text(struct annot_cache *c, const char *file, unsigned line)
{
	uint64_t key;
	struct annot_src *src = NULL;

	if (c == NULL || file == NULL || line == 0)
		return NULL;
	key = util_hash64(file, strlen(file), 0);
	for (size_t i = htab_first(&c->sources, key); i != SIZE_MAX; i = htab_next(&c->sources, key, i)) {
		struct annot_src *s = (struct annot_src *)c->sources.tab[i].val;

		if (strcmp(s->name, file) == 0) {
			src = s;
			break;
		}
	}
	if (src == NULL) {
		if ((src = calloc(1, sizeof(*src))) == NULL || (src->name = strdup(file)) == NULL ||
		    htab_put(&c->sources, key, (uintptr_t)src)) {
			if (src)
				free(src->name);
			free(src);
			return NULL;
		}
		load(src);
	}
	return line <= src->n ? src->lines[line - 1] : NULL;
}

void annot_source_free(struct annot_cache *c)
{
	for (size_t i = 0; c->sources.tab && i <= c->sources.mask; i++) {
		struct annot_src *s = (struct annot_src *)c->sources.tab[i].val;

		if (s == NULL)
			continue;
		for (size_t j = 0; j < s->n; j++)
			free(s->lines[j]);
		free(s->lines);
		free(s->name);
		free(s);
	}
	htab_free(&c->sources);
}
