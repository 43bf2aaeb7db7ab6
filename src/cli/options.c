/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options: the command line parsed with the rows of options_table.c, then
 * checked as a whole. */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "counters.h"
#include "cpumap.h"
#include "options_table.h"
#include "perfsys.h"

#define DEFAULT_FREQ 4000

/* One line: the problem, then where to look, unless it already says. */
static int bad(const char *fmt, const char *arg)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), fmt, arg);
	fprintf(stderr, "perftop: %s%s\n", msg, strstr(msg, "(see ") ? "" : " (see perftop --help)");
	return 2;
}
/* kernel.perf_event_max_stack, the kernel's own bound (127 by default). */
static uint16_t max_stack_default(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	unsigned v = 0;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v >= 1 && v <= UINT16_MAX ? (uint16_t)v : 127;
}

static int check_cpus(const struct options *o)
{
	int *online = NULL;
	size_t n = 0;

	if (cpumap_online("/sys", &online, &n))
		return 0; /* the engine will name the CPU that fails */
	for (size_t i = 0; i < o->ncpus; i++) {
		bool found = false;

		for (size_t j = 0; j < n; j++)
			found |= online[j] == o->cpus[i];
		if (!found) {
			fprintf(stderr, "perftop: CPU %d is offline or does not exist "
				"(online: see /sys/devices/system/cpu/online)\n", o->cpus[i]);
			free(online);
			return 2;
		}
	}
	free(online);
	return 0;
}

/* getopt's view of the rows: a row's letter, else 256 + its index. */
static int row_val(size_t i)
{
	return options_rows[i].letter ? options_rows[i].letter : 256 + (int)i;
}

static const struct options_row *row_of(int val)
{
	for (size_t i = 0; i < options_nrows; i++)
		if (row_val(i) == val)
			return &options_rows[i];
	return NULL;
}

static void getopt_tables(struct option *longopts, char *shortopts)
{
	size_t n = 0, k = 0;

	shortopts[k++] = ':'; /* a missing argument returns ':', not '?' */
	for (size_t i = 0; i < options_nrows; i++) {
		const struct options_row *r = &options_rows[i];

		if (r->name)
			longopts[n++] = (struct option){ r->name, r->arg ? required_argument : no_argument,
							 NULL, row_val(i) };
		if (r->letter) {
			shortopts[k++] = r->letter;
			if (r->arg)
				shortopts[k++] = ':';
		}
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[k] = '\0';
}

/* "--no" when several options start with it: name them. */
static bool ambiguous(const char *name, size_t len)
{
	char list[512] = "";
	int n = 0;

	for (size_t i = 0; i < options_nrows; i++) {
		const char *o = options_rows[i].name;

		if (o && strncmp(o, name, len) == 0 && o[len] != '\0' && n++ < 8) {
			strlcat(list, n > 1 ? ", --" : "--", sizeof(list));
			strlcat(list, o, sizeof(list));
		}
	}
	if (n < 2)
		return false;
	fprintf(stderr, "perftop: option --%.*s is ambiguous: %s; see --help\n", (int)len, name, list);
	return true;
}

/* getopt's '?' or ':' as one line naming the option (argv[optind - 1] is
 * the word it was in) and what it wants. */
static int bad_option(int c, char **argv)
{
	const char *word = argv[optind - 1];
	bool is_long = strncmp(word, "--", 2) == 0;
	const struct options_row *r = row_of(optopt);

	if (c == ':' && r) {
		if (is_long)
			fprintf(stderr, "perftop: --%s needs %s; see --help\n", r->name, r->arg);
		else
			fprintf(stderr, "perftop: -%c needs %s; see --help\n", r->letter, r->arg);
	} else if (r && r->name) {
		fprintf(stderr, "perftop: --%s takes no argument; see --help\n", r->name);
	} else if (optopt) {
		fprintf(stderr, "perftop: option -%c is unknown; see --help\n", optopt);
	} else if (is_long && !ambiguous(word + 2, strcspn(word + 2, "="))) {
		fprintf(stderr, "perftop: option --%.*s is unknown; see --help\n",
			(int)strcspn(word + 2, "="), word + 2);
	}
	return 2;
}

/* Each word of argv to its row's handler: 0, 1 when done, or 2. */
static int read_args(struct options_state *st, int argc, char **argv)
{
	struct option longopts[OPTIONS_MAX_ROWS + 1];
	char shortopts[3 * OPTIONS_MAX_ROWS + 2];
	const struct options_row *r;
	int c, rc;

	getopt_tables(longopts, shortopts);
	opterr = 0; /* bad_option says it, in one line */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?' || c == ':' || (r = row_of(c)) == NULL)
			return bad_option(c, argv);
		st->err[0] = '\0';
		rc = r->set(st, r, optarg);
		if (rc == OPTIONS_DONE)
			return 1;
		if (rc)
			return st->err[0] ? bad("%s", st->err) : bad(r->complaint, optarg);
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Call graphs, --children and --max-stack, which need each other. */
static int finish_call_graph(struct options *o, int children)
{
	/* Call paths are what folded stacks and flame graphs draw. */
	if ((o->format == DUMP_FOLDED || o->format == DUMP_SVG) && o->cg.mode == CALLGRAPH_NONE && !o->offcpu)
		o->cg.mode = CALLGRAPH_FP;
	if (o->cg.mode != CALLGRAPH_NONE) {
		if (o->cg.max_stack == 0)
			o->cg.max_stack = max_stack_default();
		if (o->cg.mode == CALLGRAPH_DWARF && o->cg.stack_size == 0)
			o->cg.stack_size = CALLGRAPH_DWARF_SIZE;
	} else if (children == 1 || o->cg.max_stack) {
		return bad("%s", "--children and --max-stack need call graphs: add -g or --call-graph");
	}
	o->children = children != 0 && o->cg.mode != CALLGRAPH_NONE;
	return 0;
}

static int check_rate(const struct options *o)
{
	uint64_t max = o->period ? 0 : perfsys_max_sample_rate();

	if (max && o->freq > max) {
		fprintf(stderr, "perftop: -F %llu is above kernel.perf_event_max_sample_rate (%llu): "
			"lower -F or raise it with sysctl kernel.perf_event_max_sample_rate=%llu\n",
			(unsigned long long)o->freq, (unsigned long long)max, (unsigned long long)o->freq);
		return 2;
	}
	return 0;
}

/* --exclude on every event and counter given without modifiers: under
 * perf_event_paranoid=2 an unprivileged -p PID needs --exclude kernel on
 * every event it opens. */
static void apply_exclude(struct evspec *ev, size_t n, unsigned exclude)
{
	for (size_t i = 0; i < n; i++)
		if (!ev[i].has_modifiers)
			evspec_set_exclude(&ev[i].attr, evspec_exclude_bits(&ev[i].attr) | exclude);
}

static int finish_events(struct options *o, const struct options_state *st)
{
	char err[512];

	o->default_event = st->events == NULL;
	if (evspec_parse_list(st->events ? st->events : "cycles", &o->events, &o->nevents, err, sizeof(err)))
		return bad("%s", err);
	if (o->nevents > 16)
		return bad("%s", "at most 16 events at once");
	if (o->format == DUMP_PPROF && (!o->batch || !o->output))
		return bad("%s", "--format pprof writes one file at the end: give -b and -o FILE");
	if (o->record && strcmp(o->record, "-") == 0 && !o->batch && !options_exporting(o))
		return bad("%s", "--record - writes perf.data to stdout: give -b (and -o FILE for the dump) or --listen");
	if (o->record && strcmp(o->record, "-") == 0 && o->batch && !o->output && o->format != DUMP_PPROF)
		return bad("%s", "--record - writes perf.data to stdout: give -o FILE for the dump");
	if (o->max_size && !o->record)
		return bad("%s", "--max-size bounds --record FILE: give --record too");
	if (o->cgroup && o->pids)
		return bad("%s", "-G cannot be combined with -p or -t");
	if (o->input && (st->events || o->pids || o->cgroup || o->cpus || st->counters))
		return bad("%s", "-i replays the file's events, tasks and CPUs: -e, -p, -t, -G, -C and --counters do not apply");
	if (st->counters && !o->pids && !o->cgroup)
		return bad("%s", "--counters needs a focus: -p, -t or -G");
	/* Parsed for every run: a focus taken later in the live view (Enter)
	 * counts as -p does; the session counts only with a focus. */
	if (evspec_parse_list(st->counters ? st->counters : COUNTERS_DEFAULT, &o->counters, &o->ncounters,
			      err, sizeof(err)))
		return bad("--counters: %s", err);
	if (o->ncounters > COUNTERS_MAX)
		return bad("%s", "--counters: at most 16 counters");
	apply_exclude(o->events, o->nevents, o->exclude);
	apply_exclude(o->counters, o->ncounters, o->exclude);
	return 0;
}

static void set_defaults(struct options *o)
{
	const char *nc = getenv("NO_COLOR"); /* set and not empty, as no-color.org says */

	memset(o, 0, sizeof(*o));
	o->freq = DEFAULT_FREQ;
	o->interval = OPTIONS_DUMP_DELAY;
	o->rows = 20;
	o->format = DUMP_TEXT;
	o->metrics_comms = 20;
	o->metrics_symbols = 50;
	o->push_every = 10;
	o->no_color = nc && *nc;
}

int options_parse(struct options *o, int argc, char **argv)
{
	struct options_state st = { .o = o, .children = -1 };
	int rc;

	set_defaults(o);
	o->argc = argc;
	o->argv = argv;
	if ((rc = read_args(&st, argc, argv)) != 0)
		return rc;
	config_apply(&st); /* under the command line: what it left unset */
	if ((rc = finish_call_graph(o, st.children)) != 0)
		return rc;
	if (o->list_events)
		return 0;
	if (o->hierarchy && o->sort_keys == NULL)
		return bad("%s", "--hierarchy folds --sort's rows: add --sort KEYS (e.g. --sort comm,dso)");
	if ((rc = check_rate(o)) != 0 || (o->cpus && (rc = check_cpus(o)) != 0))
		return rc;
	return finish_events(o, &st);
}
