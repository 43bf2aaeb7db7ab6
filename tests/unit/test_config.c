/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perftoprc under the command line: its delay, freq, event and call-graph
 * where the command line gave none; a bad line one warning naming file and
 * line, its default kept; --config FILE and --no-config. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "options.h"

static char err_text[8192];
static int err_lines;

/* options_parse of "perftop ARGS...", stderr caught in err_text. */
static int parse(struct options *o, ...)
{
	char *argv[16] = { "perftop" };
	FILE *tmp = tmpfile();
	int argc = 1, save, rc;
	va_list ap;
	size_t n;

	va_start(ap, o);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	fflush(stderr);
	save = dup(2);
	dup2(fileno(tmp), 2);
	optind = 0;
	rc = options_parse(o, argc, argv);
	fflush(stderr);
	dup2(save, 2);
	close(save);
	rewind(tmp);
	n = fread(err_text, 1, sizeof(err_text) - 1, tmp);
	err_text[n] = '\0';
	fclose(tmp);
	err_lines = 0;
	for (char *p = err_text; (p = strchr(p, '\n')) != NULL; p++)
		err_lines++;
	return rc;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/perftop-config-XXXXXX", rc[256], other[256], cmd[300];
	struct options o;

	if (mkdtemp(dir) == NULL)
		return 1;
	setenv("XDG_CONFIG_HOME", dir, 1);
	snprintf(rc, sizeof(rc), "%s/perftop", dir);
	mkdir(rc, 0700);
	snprintf(rc, sizeof(rc), "%s/perftop/perftoprc", dir);
	snprintf(other, sizeof(other), "%s/other.rc", dir);

	CHECK(parse(&o, "-b", NULL) == 0 && err_lines == 0 && o.freq == 4000 && o.live_delay == 2.0,
	      "no file: defaults, nothing said (%s)", err_text);
	CHECK(o.rc != NULL && strcmp(o.rc_path, rc) == 0, "the path under XDG_CONFIG_HOME (%s)", o.rc_path);
	options_free(&o);

	put(rc, "# mine\ndelay = 5\nfreq = 999\nevent = cpu-clock,task-clock\ncall-graph = fp\nview = tasks\n");
	CHECK(parse(&o, "-b", NULL) == 0 && err_lines == 0, "a good file: nothing said (%s)", err_text);
	CHECK(o.freq == 999 && o.live_delay == 5.0, "freq and the live view's delay from the file");
	CHECK(o.nevents == 2 && strcmp(o.events[1].name, "task-clock") == 0, "events from the file");
	CHECK(o.cg.mode == CALLGRAPH_FP, "call graphs from the file");
	CHECK(!o.interval_given && o.interval == 1.0, "the dump's interval is not the live view's delay");
	options_free(&o);

	CHECK(parse(&o, "-b", "-F", "123", "-e", "cpu-clock", "-d", "3", "--call-graph", "dwarf", NULL) == 0,
	      "the command line over the file");
	CHECK(o.freq == 123 && o.nevents == 1 && o.interval == 3.0 && o.cg.mode == CALLGRAPH_DWARF,
	      "the command line wins");
	options_free(&o);

	put(rc, "delay = 5\nfreq = lots\nwhat = 1\njunk line\ncolors = plaid\ncall-graph = sideways\n");
	CHECK(parse(&o, "-b", NULL) == 0, "a bad file is no usage error");
	CHECK(err_lines == 5, "one warning a bad line (%d: %s)", err_lines, err_text);
	CHECK(strstr(err_text, "perftoprc:2: freq wants") && strstr(err_text, "perftoprc:3: unknown key \"what\"") &&
	      strstr(err_text, "perftoprc:4: not \"key = value\"") && strstr(err_text, "perftoprc:5: colors wants") &&
	      strstr(err_text, "perftoprc:6: call-graph wants"), "each names file and line: %s", err_text);
	CHECK(o.freq == 4000 && o.live_delay == 5.0 && o.cg.mode == CALLGRAPH_NONE,
	      "bad values: defaults; good ones kept");
	CHECK(strstr(o.rc_warning, "perftoprc:2:") != NULL, "the first kept for the live view (%s)", o.rc_warning);
	options_free(&o);

	put(other, "freq = 77\n");
	CHECK(parse(&o, "-b", "--config", other, NULL) == 0 && o.freq == 77 && err_lines == 0,
	      "--config FILE read instead");
	options_free(&o);
	CHECK(parse(&o, "-b", "--no-config", NULL) == 0 && o.freq == 4000 && o.rc == NULL && err_lines == 0,
	      "--no-config: none read");
	options_free(&o);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return check_done();
}
