/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options_parse, options_free, options_target: defaults, valid and invalid
 * combinations, the usage errors (2) and their one line, -F against the
 * kernel's maximum, --exclude, -p/-t lists; the option table and the
 * --help made from it. */
#include <getopt.h>
#include <stdarg.h>
#include <unistd.h>

#include "check.h"
#include "options.h"
#include "options_table.h"

static char err_text[16384];
static int err_lines; /* lines in err_text, whose last newline is dropped */

/* Parses "perftop ARGS..." into o with a fresh getopt; stdout and stderr
 * (usage text, the error line) land in err_text instead of the TAP stream. */
static int parse_argv(struct options *o, int argc, char **argv)
{
	FILE *tmp = tmpfile();
	int save_out, save_err, rc;
	size_t n;

	fflush(stdout);
	fflush(stderr);
	save_out = dup(1);
	save_err = dup(2);
	dup2(fileno(tmp), 1);
	dup2(fileno(tmp), 2);
	optind = 0; /* glibc: start over */
	rc = options_parse(o, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	rewind(tmp);
	n = fread(err_text, 1, sizeof(err_text) - 1, tmp);
	err_text[n] = '\0';
	fclose(tmp);
	err_lines = 0;
	for (char *p = err_text; (p = strchr(p, '\n')) != NULL; p++)
		err_lines++;
	if (n && err_text[n - 1] == '\n')
		err_text[n - 1] = '\0';
	return rc;
}

/* parse(o, "-b", "-d", "2", NULL) */
static int parse(struct options *o, ...)
{
	char *argv[32] = { "perftop" };
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	return parse_argv(o, argc, argv);
}

#define PARSE(o, ...) parse((o), __VA_ARGS__, (char *)NULL)

/* A usage error: 2, and one line naming the culprit. */
static void bad(int rc, const char *word, const char *what)
{
	CHECK(rc == 2 && strncmp(err_text, "perftop: ", 9) == 0 && err_lines == 1 &&
	      strstr(err_text, word) != NULL,
	      "%s: exit 2, one line naming '%s' (rc %d: %s)", what, word, rc, err_text);
}

static long max_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void defaults(void)
{
	struct options o;
	char *argv[] = { "perftop", NULL };
	char buf[128];
	int rc;

	unsetenv("NO_COLOR");
	optind = 0;
	rc = parse_argv(&o, 1, argv);
	CHECK(rc == 0, "no options parse (rc %d: %s)", rc, err_text);
	CHECK(o.freq == 4000 && o.period == 0, "default -F 4000, no period (%llu, %llu)",
	      (unsigned long long)o.freq, (unsigned long long)o.period);
	CHECK(o.interval == 1.0 && o.iterations == 0 && o.rows == 20, "default -d 1, -n none, -E 20");
	CHECK(o.format == DUMP_TEXT && !o.batch && !o.output && !o.stats && !o.threads &&
	      !o.no_demangle && !o.list_events && !o.no_color, "default text format, live view, no flags");
	CHECK(o.default_event && o.nevents == 1 && strcmp(o.events[0].name, "cycles") == 0,
	      "default event: cycles, marked as the default (for the cpu-clock fallback)");
	CHECK(o.exclude == 0 && !o.events[0].attr.exclude_kernel && !o.events[0].attr.exclude_user,
	      "no exclude by default");
	CHECK(!o.pids && !o.cpus && !o.cgroup && !options_focused(&o), "system-wide, no focus");
	CHECK(o.ncounters >= 4 && strcmp(o.counters[0].name, "task-clock") == 0,
	      "the default counters ready for a focus taken later (Enter in the live view)");
	options_target(&o, 4, buf, sizeof(buf));
	CHECK_STR(buf, "system-wide (4 CPUs)", "target of the defaults");
	options_free(&o);
	CHECK(o.events == NULL && o.nevents == 0, "options_free clears");
	options_free(&o); /* twice: harmless */

	setenv("NO_COLOR", "1", 1);
	rc = PARSE(&o, "-b");
	CHECK(rc == 0 && o.no_color, "NO_COLOR set: monochrome");
	options_free(&o);
	setenv("NO_COLOR", "", 1);
	rc = PARSE(&o, "-b");
	CHECK(rc == 0 && !o.no_color, "NO_COLOR empty: colour");
	options_free(&o);
	unsetenv("NO_COLOR");
}

static void valid(void)
{
	struct options o;
	char buf[128];
	int rc;

	rc = PARSE(&o, "-b", "-d", "0.5", "-n", "3", "-E", "5", "--format", "json", "-o", "/tmp/x",
		   "--stats", "--threads", "--no-demangle", "-F", "100", "-m", "8");
	CHECK(rc == 0 && o.batch && o.interval == 0.5 && o.iterations == 3 && o.rows == 5 &&
	      o.format == DUMP_JSON && o.output && strcmp(o.output, "/tmp/x") == 0 && o.stats &&
	      o.threads && o.no_demangle && o.freq == 100 && o.mmap_pages == 8,
	      "a full headless command line (rc %d: %s)", rc, err_text);
	options_free(&o);

	rc = PARSE(&o, "--batch", "--delay=0.01", "--iterations=1", "--entries=100000", "--format=csv");
	CHECK(rc == 0 && o.interval == 0.01 && o.rows == 100000 && o.format == DUMP_CSV,
	      "long options and the bounds -d 0.01, -E 100000 (rc %d: %s)", rc, err_text);
	options_free(&o);

	rc = PARSE(&o, "-d", "3600", "--format", "text");
	CHECK(rc == 0 && o.interval == 3600 && o.format == DUMP_TEXT, "-d 3600, --format text");
	options_free(&o);

	rc = PARSE(&o, "-c", "100000");
	CHECK(rc == 0 && o.period == 100000, "-c PERIOD");
	options_free(&o);

	rc = PARSE(&o, "-e", "cpu-clock,page-faults");
	CHECK(rc == 0 && !o.default_event && o.nevents == 2 && strcmp(o.events[0].name, "cpu-clock") == 0 &&
	      strcmp(o.events[1].name, "page-faults") == 0, "-e LIST: two events, not the default");
	options_free(&o);

	rc = PARSE(&o, "-C", "0");
	options_target(&o, 4, buf, sizeof(buf));
	CHECK(rc == 0 && o.ncpus == 1 && o.cpus[0] == 0, "-C 0 (rc %d: %s)", rc, err_text);
	CHECK_STR(buf, "CPU 0", "target of -C 0");
	options_free(&o);

	rc = PARSE(&o, "-G", "/sys/fs/cgroup/x");
	options_target(&o, 4, buf, sizeof(buf));
	CHECK(rc == 0 && options_focused(&o) && o.ncounters >= 4, "-G: focused, default counters");
	CHECK_STR(buf, "cgroup /sys/fs/cgroup/x", "target of -G");
	options_free(&o);

	rc = PARSE(&o, "--list-events", "-F", "9999999");
	CHECK(rc == 0 && o.list_events, "--list-events needs nothing else checked");
	options_free(&o);

	rc = PARSE(&o, "-h");
	CHECK(rc == 1 && strstr(err_text, "usage: perftop"), "-h: the usage, done (1)");
	options_free(&o);
	rc = PARSE(&o, "--version");
	CHECK(rc == 1 && strncmp(err_text, "perftop ", 8) == 0, "--version: done (1): %s", err_text);
	options_free(&o);
}

static void pid_lists(void)
{
	static const char *const wrong[] = { "", "1,", ",1", "1,,2", "0", "-1", "abc", "1a",
					     "4194305", "99999999999999999999" };
	struct options o;
	char buf[128];
	int rc;

	rc = PARSE(&o, "-p", "1,22,333");
	options_target(&o, 4, buf, sizeof(buf));
	CHECK(rc == 0 && o.npids == 3 && o.pids[0] == 1 && o.pids[1] == 22 && o.pids[2] == 333 &&
	      !o.tids && options_focused(&o), "-p 1,22,333: three PIDs, focused (rc %d: %s)", rc, err_text);
	CHECK_STR(buf, "PID 1,22,333", "target of -p 1,22,333");
	CHECK(o.ncounters >= 4, "-p: the default counters (%zu)", o.ncounters);
	options_free(&o);

	rc = PARSE(&o, "-p", "4194304");
	CHECK(rc == 0 && o.npids == 1 && o.pids[0] == 4194304, "-p PID_MAX_LIMIT");
	options_free(&o);

	rc = PARSE(&o, "-p", "12", "-p", "34");
	CHECK(rc == 0 && o.npids == 1 && o.pids[0] == 34, "-p twice: the last one counts");
	options_free(&o);

	rc = PARSE(&o, "-t", "5,6");
	options_target(&o, 4, buf, sizeof(buf));
	CHECK(rc == 0 && o.tids && o.npids == 2, "-t 5,6: threads");
	CHECK_STR(buf, "TID 5,6", "target of -t 5,6");
	options_free(&o);

	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		char what[64];

		rc = PARSE(&o, "-p", (char *)wrong[i]);
		snprintf(what, sizeof(what), "-p '%s'", wrong[i]);
		bad(rc, "-p wants PID", what);
		options_free(&o);
	}
	rc = PARSE(&o, "-t", "x");
	bad(rc, "-t wants TID", "-t x");
	options_free(&o);
}

/* --sym-annotate: repeated or comma lists, OPTIONS_SYM_ANNOTATE_MAX names at most. */
static void sym_annotate(void)
{
	static const char *const wrong[] = { "", "a,", ",a", "a,,b" };
	char many[64] = "a";
	struct options o;
	int rc;

	rc = PARSE(&o, "-b", "--sym-annotate", "hotfn,main", "--sym-annotate", "x");
	CHECK(rc == 0 && o.nsym_annotate == 2 && o.nsym_annotate_names == 3 &&
	      strcmp(o.sym_annotate[0], "hotfn,main") == 0 && strcmp(o.sym_annotate[1], "x") == 0,
	      "--sym-annotate twice: two arguments, three names (rc %d: %s)", rc, err_text);
	options_free(&o);
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		rc = PARSE(&o, "--sym-annotate", wrong[i]);
		bad(rc, "--sym-annotate", wrong[i]);
		options_free(&o);
	}
	for (int i = 1; i <= OPTIONS_SYM_ANNOTATE_MAX; i++)
		strcat(many, ",a");
	rc = PARSE(&o, "--sym-annotate", many);
	bad(rc, "--sym-annotate", "17 names");
	options_free(&o);
}

static void exclude(void)
{
	struct options o;
	int rc;

	rc = PARSE(&o, "--exclude", "kernel");
	CHECK(rc == 0 && o.exclude == EXCL_KERNEL && o.events[0].attr.exclude_kernel &&
	      !o.events[0].attr.exclude_user, "--exclude kernel: on the event (rc %d: %s)", rc, err_text);
	options_free(&o);

	rc = PARSE(&o, "--exclude", "user,hv,idle", "-e", "cpu-clock,task-clock");
	CHECK(rc == 0 && o.exclude == (EXCL_USER | EXCL_HV | EXCL_IDLE) &&
	      o.events[0].attr.exclude_user && o.events[0].attr.exclude_hv && o.events[0].attr.exclude_idle &&
	      o.events[1].attr.exclude_user && !o.events[1].attr.exclude_kernel,
	      "--exclude user,hv,idle: on every event without modifiers");
	options_free(&o);

	rc = PARSE(&o, "--exclude", "kernel", "-e", "cpu-clock:k,task-clock");
	CHECK(rc == 0 && !o.events[0].attr.exclude_kernel && o.events[1].attr.exclude_kernel,
	      "an event's own modifiers win over --exclude");
	options_free(&o);

	rc = PARSE(&o, "--exclude", "kernel", "-p", "1");
	CHECK(rc == 0 && o.ncounters > 0, "--exclude kernel -p 1 (rc %d: %s)", rc, err_text);
	if (rc == 0) {
		size_t n = 0;

		for (size_t i = 0; i < o.ncounters; i++)
			n += o.counters[i].attr.exclude_kernel;
		CHECK(n == o.ncounters, "--exclude kernel reaches every focus counter (%zu of %zu)", n,
		      o.ncounters);
	}
	options_free(&o);

	rc = PARSE(&o, "--exclude", "user,host,guest,kernel,hv,idle");
	CHECK(rc == 0 && o.exclude == EXCL_ALL, "--exclude every word");
	options_free(&o);

	rc = PARSE(&o, "--exclude", "kernal");
	bad(rc, "kernal", "--exclude kernal");
	options_free(&o);
	rc = PARSE(&o, "--exclude", "user,bogus");
	bad(rc, "bogus", "--exclude user,bogus");
	options_free(&o);
}

static void usage_errors(void)
{
	static const struct {
		const char *args[4];
		const char *word;
	} cases[] = {
		{ { "-F", "0" }, "-F wants" },
		{ { "-F", "10000001" }, "-F wants" },
		{ { "-F", "fast" }, "-F wants" },
		{ { "-c", "0" }, "-c wants" },
		{ { "-c", "-5" }, "-c wants" },
		{ { "-m", "3" }, "power of two" },
		{ { "-m", "0" }, "power of two" },
		{ { "-m", "2097152" }, "power of two" },
		{ { "-d", "0.001" }, "-d wants" },
		{ { "-d", "3601" }, "-d wants" },
		{ { "-d", "1x" }, "-d wants" },
		{ { "-d", "nan" }, "-d wants" },
		{ { "-n", "0" }, "-n wants" },
		{ { "-n", "2147483648" }, "-n wants" },
		{ { "-E", "0" }, "-E wants" },
		{ { "-E", "100001" }, "-E wants" },
		{ { "--format", "xml" }, "--format wants" },
		{ { "-C", "x" }, "-C wants" },
		{ { "-C", "99999" }, "-C wants" },
		{ { "-C", "1000" }, "CPU 1000 is offline or does not exist" },
		{ { "-e", "no-such-event" }, "no-such-event" },
		{ { "-e", "cpu-clock:q" }, "modifier 'q'" },
		{ { "-G", "/x", "-p", "1" }, "-G cannot be combined" },
		{ { "-t", "1", "-G", "/x" }, "-G cannot be combined" },
		{ { "--counters", "task-clock" }, "--counters needs a focus" },
		{ { "-p", "1", "--counters", "no-such" }, "--counters" },
		{ { "-b", "stray" }, "unexpected argument 'stray'" },
	};
	struct options o;
	char many[512] = "cpu-clock";
	int rc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[6] = { "perftop" };
		char what[128] = "";
		int argc = 1;

		for (int k = 0; k < 4 && cases[i].args[k]; k++) {
			argv[argc++] = (char *)cases[i].args[k];
			strlcat(what, cases[i].args[k], sizeof(what));
			strlcat(what, " ", sizeof(what));
		}
		rc = parse_argv(&o, argc, argv);
		bad(rc, cases[i].word, what);
		options_free(&o);
	}

	for (int i = 0; i < 16; i++)
		strlcat(many, ",cpu-clock", sizeof(many));
	rc = PARSE(&o, "-e", many);
	bad(rc, "at most 16 events", "17 events");
	options_free(&o);

}

/* An unknown option, a missing argument: one line naming the option and
 * what it wants, not the whole --help. */
static void option_errors(void)
{
	static const struct {
		const char *args[3];
		const char *line;
	} cases[] = {
		{ { "--bogus" }, "perftop: option --bogus is unknown; see --help" },
		{ { "--bogus=3", "-b" }, "perftop: option --bogus is unknown; see --help" },
		{ { "-x" }, "perftop: option -x is unknown; see --help" },
		{ { "-bx" }, "perftop: option -x is unknown; see --help" },
		{ { "-b", "-d" }, "perftop: -d needs SECS; see --help" },
		{ { "--delay" }, "perftop: --delay needs SECS; see --help" },
		{ { "-bp" }, "perftop: -p needs PID[,PID]; see --help" },
		{ { "--listen" }, "perftop: --listen needs [ADDR:]PORT; see --help" },
		{ { "--batch=1" }, "perftop: --batch takes no argument; see --help" },
		{ { "--no-c" }, "perftop: option --no-c is ambiguous: --no-children, --no-color; see --help" },
	};
	struct options o;
	int rc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[5] = { "perftop" };
		int argc = 1;

		for (int k = 0; k < 3 && cases[i].args[k]; k++)
			argv[argc++] = (char *)cases[i].args[k];
		rc = parse_argv(&o, argc, argv);
		CHECK(rc == 2 && err_lines == 1 && strcmp(err_text, cases[i].line) == 0,
		      "%s: exit 2 and one line '%s' (rc %d: %s)", cases[i].args[0], cases[i].line, rc, err_text);
		options_free(&o);
	}
}

/* --help is the table: every row's spellings, its argument and its help's
 * first line, each on the row's own line. */
static void help_rows(void)
{
	struct options o;
	int rc = PARSE(&o, "--help");
	size_t missing = 0;

	CHECK(rc == 1 && strncmp(err_text, "usage: perftop [options]\n", 25) == 0, "--help: the usage, done (1)");
	for (size_t i = 0; i < options_nrows; i++) {
		const struct options_row *r = &options_rows[i];
		char want[256], first[128], *at, *eol;

		if (r->letter && r->name)
			snprintf(want, sizeof(want), "\n  -%c, --%s", r->letter, r->name);
		else if (r->letter)
			snprintf(want, sizeof(want), "\n  -%c", r->letter);
		else
			snprintf(want, sizeof(want), "\n      --%s", r->name);
		if (r->arg)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), " %s", r->arg);
		strlcat(want, " ", sizeof(want)); /* the padding, so --children is not --children-x */
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(r->help, "\n"), r->help);
		at = strstr(err_text, want);
		eol = at ? strchr(at + 1, '\n') : NULL;
		if (!at || !strstr(at, first) || (eol && strstr(at, first) > eol)) {
			missing++;
			CHECK(0, "--help lacks row %s (%s)", want + 1, first);
		}
	}
	CHECK(missing == 0, "--help shows all %zu rows of the table", options_nrows);
	options_free(&o);

	rc = PARSE(&o, "-V");
	CHECK(rc == 1 && strncmp(err_text, "perftop ", 8) == 0, "-V: the version, done (1): %s", err_text);
	options_free(&o);
}

static void max_freq(void)
{
	struct options o;
	char arg[32], want[64];
	long max = max_rate();
	int rc;

	if (max <= 0 || max >= 10000000) {
		CHECK_SKIP("no usable /proc/sys/kernel/perf_event_max_sample_rate");
		CHECK_SKIP("no usable /proc/sys/kernel/perf_event_max_sample_rate");
		return;
	}
	snprintf(arg, sizeof(arg), "%ld", max);
	rc = PARSE(&o, "-F", arg);
	CHECK(rc == 0 && o.freq == (uint64_t)max, "-F at perf_event_max_sample_rate (%ld) is fine", max);
	options_free(&o);
	snprintf(arg, sizeof(arg), "%ld", max + 1);
	rc = PARSE(&o, "-F", arg);
	snprintf(want, sizeof(want), "perf_event_max_sample_rate (%ld)", max);
	bad(rc, want, "-F above perf_event_max_sample_rate");
	CHECK(strstr(err_text, "sysctl kernel.perf_event_max_sample_rate=") != NULL,
	      "and says how to raise it");
	options_free(&o);
}

/* -M, -k, --source/--no-source: the annotations' options (perf's names). */
static void annotate_options(void)
{
	struct options o;
	int rc;

	rc = PARSE(&o, "-b");
	CHECK(rc == 0 && !o.annot_intel && !o.vmlinux && !o.no_source, "annotate defaults: AT&T, kcore, source");
	options_free(&o);
	rc = PARSE(&o, "-M", "intel", "-k", "/proc/self/exe", "--no-source");
	CHECK(rc == 0 && o.annot_intel && o.vmlinux && strcmp(o.vmlinux, "/proc/self/exe") == 0 && o.no_source,
	      "-M intel -k FILE --no-source (rc %d: %s)", rc, err_text);
	options_free(&o);
	rc = PARSE(&o, "--disassembler-style=intel", "--disassembler-style", "att", "--no-source", "--source");
	CHECK(rc == 0 && !o.annot_intel && !o.no_source, "the last of each counts (rc %d: %s)", rc, err_text);
	options_free(&o);
	bad(PARSE(&o, "-M", "masm"), "masm", "-M masm");
	options_free(&o);
	rc = PARSE(&o, "--vmlinux", "/nonexistent/vmlinux");
	bad(rc, "/nonexistent/vmlinux", "-k of a missing file");
	CHECK(strstr(err_text, "No such file") != NULL, "-k says why: %s", err_text);
	options_free(&o);
}

int main(void)
{
	defaults();
	valid();
	pid_lists();
	sym_annotate();
	exclude();
	usage_errors();
	option_errors();
	help_rows();
	max_freq();
	annotate_options();
	return check_done();
}
