/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rcfile: "key = value" lines kept as they were read, so that a hand edit
 * (comments, order, keys of a newer version) survives perftop writing the
 * file back; replaced whole through a rename. */
#include "rcfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct rc_line {
	char *text;                /* as read (or as set), without its newline */
	char *key, *value;         /* a setting's; key NULL otherwise */
	bool setting, other;       /* other: not blank, not a comment, not a setting */
};

struct rcfile {
	struct rc_line *lines;
	size_t n, cap;
	bool dirty;
};

struct rcfile *rcfile_new(void)
{
	return calloc(1, sizeof(struct rcfile));
}

void rcfile_free(struct rcfile *rc)
{
	if (rc == NULL)
		return;
	for (size_t i = 0; i < rc->n; i++) {
		free(rc->lines[i].text);
		free(rc->lines[i].key);
		free(rc->lines[i].value);
	}
	free(rc->lines);
	free(rc);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* s[0..n) without the blanks around it, as a new string. */
static char *trimmed(const char *s, size_t n)
{
	while (n && blank(*s)) {
		s++;
		n--;
	}
	while (n && blank(s[n - 1]))
		n--;
	return strndup(s, n);
}

/* The key and value of a line's text; a line that is not a setting keeps
 * none. 0 or -ENOMEM. */
static int line_read(struct rc_line *l)
{
	const char *t = l->text, *eq;

	while (blank(*t))
		t++;
	l->setting = l->other = false;
	if (*t == '\0' || *t == '#' || *t == ';')
		return 0;
	eq = strchr(t, '=');
	if (eq == NULL) {
		l->other = true;
		return 0;
	}
	l->key = trimmed(t, (size_t)(eq - t));
	l->value = trimmed(eq + 1, strlen(eq + 1));
	if (l->key == NULL || l->value == NULL)
		return -ENOMEM;
	if (l->key[0] == '\0') {
		free(l->key);
		free(l->value);
		l->key = l->value = NULL;
		l->other = true;
		return 0;
	}
	l->setting = true;
	return 0;
}

static struct rc_line *add_line(struct rcfile *rc)
{
	if (rc->n == rc->cap) {
		size_t cap = rc->cap ? 2 * rc->cap : 16;
		struct rc_line *p = reallocarray(rc->lines, cap, sizeof(*p));

		if (p == NULL)
			return NULL;
		rc->lines = p;
		rc->cap = cap;
	}
	memset(&rc->lines[rc->n], 0, sizeof(rc->lines[0]));
	return &rc->lines[rc->n++];
}

int rcfile_parse(struct rcfile *rc, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		struct rc_line *l = add_line(rc);

		if (l == NULL)
			return -ENOMEM;
		/* A NUL ends what the line says: as written back, it ends there. */
		l->text = malloc(n + 1);
		if (l->text == NULL)
			return -ENOMEM;
		memcpy(l->text, text + i, n);
		l->text[n] = '\0';
		if (line_read(l))
			return -ENOMEM;
		i += n + 1;
	}
	return 0;
}

int rcfile_load(const char *path, struct rcfile **out)
{
	struct rcfile *rc = rcfile_new();
	char *buf = NULL;
	struct stat st;
	ssize_t got;
	size_t len = 0;
	int fd, rc_err = 0;

	*out = NULL;
	if (rc == NULL)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc_err = -errno;
		if (rc_err == -ENOENT)
			*out = rc;
		else
			rcfile_free(rc);
		return rc_err;
	}
	if (fstat(fd, &st) != 0) {
		rc_err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc_err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (st.st_size > RCFILE_MAX_BYTES) {
		rc_err = -EFBIG;
		goto out;
	}
	buf = malloc(RCFILE_MAX_BYTES + 1);
	if (buf == NULL) {
		rc_err = -ENOMEM;
		goto out;
	}
	/* The size may have changed since fstat: read to the end, bounded. */
	while ((got = read(fd, buf + len, RCFILE_MAX_BYTES + 1 - len)) > 0)
		len += (size_t)got;
	if (got < 0)
		rc_err = -errno;
	else if (len > RCFILE_MAX_BYTES)
		rc_err = -EFBIG;
	else
		rc_err = rcfile_parse(rc, buf, len);
out:
	free(buf);
	close(fd);
	if (rc_err) {
		rcfile_free(rc);
		return rc_err;
	}
	*out = rc;
	return 0;
}

bool rcfile_entry(const struct rcfile *rc, size_t i, struct rcfile_entry *out)
{
	for (size_t k = 0; rc && k < rc->n; k++) {
		const struct rc_line *l = &rc->lines[k];

		if (!l->setting && !l->other)
			continue;
		if (i-- == 0) {
			*out = (struct rcfile_entry){ l->key, l->value, (unsigned)(k + 1) };
			return true;
		}
	}
	return false;
}

static struct rc_line *last_of(const struct rcfile *rc, const char *key)
{
	for (size_t k = rc ? rc->n : 0; k-- > 0;)
		if (rc->lines[k].setting && strcmp(rc->lines[k].key, key) == 0)
			return &rc->lines[k];
	return NULL;
}

const char *rcfile_get(const struct rcfile *rc, const char *key, unsigned *line)
{
	struct rc_line *l = last_of(rc, key);

	if (l && line)
		*line = (unsigned)(l - rc->lines) + 1;
	return l ? l->value : NULL;
}

/* Reads back as itself: no newline, no blanks around it, key without '='
 * and not starting as a comment. */
static bool storable(const char *s, bool key)
{
	size_t n = strlen(s);

	if (strchr(s, '\n') || (n && (blank(s[0]) || blank(s[n - 1]))))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20)
			return false;
	return !key || (n && !strchr(s, '=') && s[0] != '#' && s[0] != ';');
}

int rcfile_set(struct rcfile *rc, const char *key, const char *value)
{
	struct rc_line *l;
	char *text, *k, *v;

	if (!storable(key, true) || !storable(value, false))
		return -EINVAL;
	l = last_of(rc, key);
	if (l && strcmp(l->value, value) == 0)
		return 0;
	if (asprintf(&text, "%s = %s", key, value) < 0)
		return -ENOMEM;
	k = strdup(key);
	v = strdup(value);
	if (k == NULL || v == NULL || (l == NULL && (l = add_line(rc)) == NULL)) {
		free(text);
		free(k);
		free(v);
		return -ENOMEM;
	}
	free(l->text);
	free(l->key);
	free(l->value);
	*l = (struct rc_line){ text, k, v, true, false };
	rc->dirty = true;
	return 0;
}

bool rcfile_dirty(const struct rcfile *rc)
{
	return rc && rc->dirty;
}

char *rcfile_text(const struct rcfile *rc, size_t *len)
{
	size_t n = 0, o = 0;
	char *s;

	for (size_t k = 0; k < rc->n; k++)
		n += strlen(rc->lines[k].text) + 1;
	s = malloc(n + 1);
	if (s == NULL)
		return NULL;
	for (size_t k = 0; k < rc->n; k++) {
		size_t l = strlen(rc->lines[k].text);

		memcpy(s + o, rc->lines[k].text, l);
		o += l;
		s[o++] = '\n';
	}
	s[o] = '\0';
	if (len)
		*len = o;
	return s;
}

/* mkdir -p of path's directory, each made 0700. */
static int make_dirs(const char *path)
{
	char dir[PATH_MAX];

	if (strlcpy(dir, path, sizeof(dir)) >= sizeof(dir))
		return -ENAMETOOLONG;
	for (char *p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int rcfile_save(struct rcfile *rc, const char *path)
{
	char real[PATH_MAX], tmp[PATH_MAX + 16], *text, *slash;
	struct stat st;
	size_t len;
	int fd, err;

	/* A link (a dotfiles repository's) stays a link: its target is written. */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real))
		path = real;
	if ((err = make_dirs(path)) != 0)
		return err;
	slash = strrchr(path, '/');
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	text = rcfile_text(rc, &len);
	if (text == NULL)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC); /* 0600 */
	if (fd < 0) {
		err = -errno;
		free(text);
		return err;
	}
	err = write_all(fd, text, len);
	free(text);
	if (err == 0 && fsync(fd) != 0)
		err = -errno;
	if (close(fd) != 0 && err == 0)
		err = -errno;
	if (err == 0 && rename(tmp, path) != 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	/* The rename itself on disk. */
	if (slash) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
	}
	rc->dirty = false;
	return 0;
}

int rcfile_path(char *buf, size_t len, const char *var, const char *home_rel, const char *rel)
{
	const char *x = getenv(var), *home = getenv("HOME");
	int n;

	if (x && x[0] == '/')
		n = snprintf(buf, len, "%s/%s", x, rel);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/%s/%s", home, home_rel, rel);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
