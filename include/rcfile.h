/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rcfile: a settings file of "key = value" lines, as a person edits it.
 * Every line is kept as it was read (comments, blank lines, keys perftop
 * does not know, lines it cannot read), so that writing it back changes
 * only the values set; each setting knows its line, for warnings. A file
 * is replaced whole (a temporary file in its directory, fsync, rename),
 * never changed in place. No perf, no curses; names nothing it reads. */
#ifndef PERFTOP_RCFILE_H
#define PERFTOP_RCFILE_H

#include <stdbool.h>
#include <stddef.h>

#define RCFILE_MAX_BYTES (64 * 1024)

struct rcfile;

/* A line that is neither blank nor a comment: a setting, or (key NULL) a
 * line without '=' or without a key. */
struct rcfile_entry {
	const char *key, *value;
	unsigned line;             /* 1 the first */
};

/* An empty file (nothing read yet); NULL without memory. */
struct rcfile *rcfile_new(void);
/* Lines of text appended (the fuzzer's and the tests' way in). 0 or -ENOMEM. */
int rcfile_parse(struct rcfile *rc, const char *text, size_t len);
/* path read into a new rcfile: 0, -ENOENT (none there; *out is an empty
 * one), -EFBIG past RCFILE_MAX_BYTES, or -errno (then *out is NULL). */
int rcfile_load(const char *path, struct rcfile **out);
void rcfile_free(struct rcfile *rc);

/* The i-th line that is not blank nor a comment; false past the last. */
bool rcfile_entry(const struct rcfile *rc, size_t i, struct rcfile_entry *out);
/* The value of key's last line (the one that counts), or NULL; *line its
 * number when line is not NULL. */
const char *rcfile_get(const struct rcfile *rc, const char *key, unsigned *line);
/* key's last line gets value (the line rewritten as "key = value"), or a
 * line is added at the end. 0, -EINVAL (a key or value that would not
 * read back the same), -ENOMEM. */
int rcfile_set(struct rcfile *rc, const char *key, const char *value);
/* Whether a set changed a value since the load (or the last save). */
bool rcfile_dirty(const struct rcfile *rc);

/* The whole text, as it will be written: malloc'ed, NUL-terminated. */
char *rcfile_text(const struct rcfile *rc, size_t *len);
/* Written to path whole (a temporary file in its directory, fsync,
 * rename), created 0600; missing directories made 0700. 0 or -errno. */
int rcfile_save(struct rcfile *rc, const char *path);

/* $var/rel if var is set and absolute, else $HOME/home_rel/rel:
 * ("XDG_CONFIG_HOME", ".config", "perftop/perftoprc"). 0, -ENOENT
 * (neither usable) or -ENAMETOOLONG. */
int rcfile_path(char *buf, size_t len, const char *var, const char *home_rel, const char *rel);

#endif
