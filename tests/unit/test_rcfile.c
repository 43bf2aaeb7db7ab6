/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rcfile: lines kept as read, the last of a key counting, a set rewriting
 * only its line, a save replacing the file whole (0600), the XDG path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "rcfile.h"

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_parse(void)
{
	static const char text[] = "# mine\n\n  delay = 5 \nview=tasks\r\nnonsense line\n = novalue\nview = cpus\nlast=x";
	struct rcfile *rc = rcfile_new();
	struct rcfile_entry e;
	unsigned line = 0;
	char *out;
	size_t n = 0;

	CHECK(rc && rcfile_parse(rc, text, sizeof(text) - 1) == 0, "parse");
	CHECK_STR(rcfile_get(rc, "delay", &line), "5", "value without blanks");
	CHECK(line == 3, "delay on line 3 (%u)", line);
	CHECK_STR(rcfile_get(rc, "view", &line), "cpus", "the last line of a key counts");
	CHECK(line == 7, "view on line 7 (%u)", line);
	CHECK_STR(rcfile_get(rc, "last", NULL), "x", "a last line without newline");
	CHECK(rcfile_get(rc, "nonsense line", NULL) == NULL, "a line without '=' is no setting");
	while (rcfile_entry(rc, n, &e))
		n++;
	CHECK(n == 6, "six entries, comments and blanks left out (%zu)", n);
	CHECK(rcfile_entry(rc, 2, &e) && e.key == NULL && e.line == 5, "line 5: not a setting, named by line");
	CHECK(rcfile_entry(rc, 3, &e) && e.key == NULL && e.line == 6, "line 6: no key");
	CHECK(!rcfile_dirty(rc), "not dirty after a parse");
	CHECK(rcfile_set(rc, "view", "cpus") == 0 && !rcfile_dirty(rc), "setting the same value: not dirty");
	CHECK(rcfile_set(rc, "view", "symbols") == 0 && rcfile_dirty(rc), "a new value: dirty");
	CHECK(rcfile_set(rc, "sort.tasks", "PID") == 0, "a new key");
	CHECK(rcfile_set(rc, "bad", "two\nlines") == -EINVAL, "a value with a newline refused");
	CHECK(rcfile_set(rc, "a=b", "x") == -EINVAL, "a key with '=' refused");
	CHECK(rcfile_set(rc, "#x", "x") == -EINVAL, "a key that reads as a comment refused");
	CHECK(rcfile_set(rc, "x", " padded") == -EINVAL, "a value with blanks around refused");
	out = rcfile_text(rc, NULL);
	CHECK_STR(out, "# mine\n\n  delay = 5 \nview=tasks\r\nnonsense line\n = novalue\nview = symbols\nlast=x\n"
		  "sort.tasks = PID\n", "only the set lines changed; the new one at the end");
	free(out);
	rcfile_free(rc);
}

static void test_save(const char *dir)
{
	char path[512], sub[512];
	struct rcfile *rc;
	struct stat st;
	int err;

	snprintf(path, sizeof(path), "%s/a/b/perftoprc", dir);
	err = rcfile_load(path, &rc);
	CHECK(err == -ENOENT && rc != NULL, "a missing file: -ENOENT and an empty rcfile (%d)", err);
	CHECK(rcfile_set(rc, "delay", "3") == 0 && rcfile_save(rc, path) == 0, "saved, directories made");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "the file is 0600 (%o)", st.st_mode & 0777);
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	CHECK(stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700, "its directory 0700 (%o)", st.st_mode & 0777);
	CHECK(!rcfile_dirty(rc), "clean after the save");
	rcfile_free(rc);
	CHECK_STR(slurp(path), "delay = 3\n", "the text written");
	/* A hand edit between: kept by the next write. */
	{
		FILE *f = fopen(path, "w");

		fputs("# my comment\ndelay = 7\nfuture-key = yes\n", f);
		fclose(f);
	}
	CHECK(rcfile_load(path, &rc) == 0, "loaded again");
	CHECK_STR(rcfile_get(rc, "delay", NULL), "7", "the hand edit read");
	CHECK(rcfile_set(rc, "view", "tasks") == 0 && rcfile_save(rc, path) == 0, "saved again");
	rcfile_free(rc);
	CHECK_STR(slurp(path), "# my comment\ndelay = 7\nfuture-key = yes\nview = tasks\n",
		  "comment and unknown key kept");
	{
		char link[512];

		snprintf(link, sizeof(link), "%s/link", dir);
		CHECK(symlink(path, link) == 0, "a link to it");
		CHECK(rcfile_load(link, &rc) == 0 && rcfile_set(rc, "view", "cpus") == 0 &&
		      rcfile_save(rc, link) == 0, "saved through the link");
		rcfile_free(rc);
		CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is still a link");
		CHECK(strstr(slurp(path), "view = cpus") != NULL, "its target written");
	}
	{
		FILE *f = fopen(path, "w");

		for (int i = 0; i < RCFILE_MAX_BYTES / 8 + 10; i++)
			fputs("k = vvv\n", f);
		fclose(f);
		CHECK(rcfile_load(path, &rc) == -EFBIG && rc == NULL, "a file too big: -EFBIG");
	}
	CHECK(rcfile_load(dir, &rc) == -EISDIR, "a directory: -EISDIR");
}

static void test_path(void)
{
	char buf[256];

	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	setenv("HOME", "/home/me", 1);
	CHECK(rcfile_path(buf, sizeof(buf), "XDG_CONFIG_HOME", ".config", "perftop/perftoprc") == 0, "path");
	CHECK_STR(buf, "/x/conf/perftop/perftoprc", "XDG_CONFIG_HOME first");
	setenv("XDG_CONFIG_HOME", "relative", 1);
	rcfile_path(buf, sizeof(buf), "XDG_CONFIG_HOME", ".config", "perftop/perftoprc");
	CHECK_STR(buf, "/home/me/.config/perftop/perftoprc", "a relative XDG_CONFIG_HOME is ignored (the spec)");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	CHECK(rcfile_path(buf, sizeof(buf), "XDG_CONFIG_HOME", ".config", "perftop/perftoprc") == -ENOENT,
	      "neither: -ENOENT");
	setenv("HOME", "/h", 1);
	CHECK(rcfile_path(buf, 8, "XDG_STATE_HOME", ".local/state", "perftop/state") == -ENAMETOOLONG,
	      "too long");
}

int main(void)
{
	char dir[] = "/tmp/perftop-rcfile-XXXXXX";
	char cmd[64];

	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_parse();
	test_save(dir);
	test_path();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return check_done();
}
