#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "cpumap.h"
#include "perfsys.h"
#include "httpq.h"
#include "push.h"

#define DEFAULT_FREQ 4000

enum {
	OPT_EXCLUDE = 256,
	OPT_FORMAT,
	OPT_LIST_EVENTS,
	OPT_NO_COLOR,
	OPT_STATS,
	OPT_VERSION,
	OPT_COUNTERS,
	OPT_THREADS,
	OPT_NO_DEMANGLE,
	OPT_CALL_GRAPH,
	OPT_MAX_STACK,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_LISTEN,
	OPT_TEXTFILE,
	OPT_METRICS_COMMS,
	OPT_METRICS_SYMBOLS,
	OPT_PUSH,
	OPT_PUSH_EVERY,
	OPT_NO_KALLSYMS_CACHE,
	OPT_NO_SYMBOL_CACHE,
};

static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "counters", required_argument, NULL, OPT_COUNTERS },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "batch", no_argument, NULL, 'b' },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "entries", required_argument, NULL, 'E' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "list-events", no_argument, NULL, OPT_LIST_EVENTS },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "no-kallsyms-cache", no_argument, NULL, OPT_NO_KALLSYMS_CACHE },
	{ "no-symbol-cache", no_argument, NULL, OPT_NO_SYMBOL_CACHE },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "textfile", required_argument, NULL, OPT_TEXTFILE },
	{ "metrics-comms", required_argument, NULL, OPT_METRICS_COMMS },
	{ "metrics-symbols", required_argument, NULL, OPT_METRICS_SYMBOLS },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "push-every", required_argument, NULL, OPT_PUSH_EVERY },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: perftop [options]\n"
	      "  -e, --event LIST        events to sample, perf syntax (default: cycles,\n"
	      "                          falling back to cpu-clock without a hardware PMU)\n"
	      "      --exclude LIST      default filters: user,kernel,hv,idle,host,guest\n"
	      "  -F, --freq HZ           samples per second per CPU (default 4000)\n"
	      "  -c, --count PERIOD      sample every PERIOD events instead of -F\n"
	      "  -m, --mmap-pages N      ring size per CPU in pages (power of two)\n"
	      "  -C, --cpu LIST          only these CPUs (0-3,8)\n"
	      "  -p, --pid PID[,PID]     only these processes, their threads and children\n"
	      "  -t, --tid TID[,TID]     only these threads\n"
	      "  -G, --cgroup DIR        only this cgroup (v2 directory, e.g. a container's)\n"
	      "      --counters LIST     exact counters for -p/-t/-G (default: task-clock,\n"
	      "                          context-switches, cpu-migrations, page-faults and\n"
	      "                          the hardware ones the PMU has)\n"
	      "      --threads           per-thread rows too\n"
	      "  -g                      call graphs (frame pointers): who calls the hot code\n"
	      "      --call-graph MODE   fp, dwarf[,SIZE] (user stack bytes, default 8192) or lbr\n"
	      "      --max-stack N       frames per stack at most (default kernel.perf_event_max_stack)\n"
	      "      --children          sort by time spent in a function and its callees\n"
	      "                          (the default with call graphs); --no-children: self\n"
	      "  -b, --batch             headless dump instead of the live view\n"
	      "  -d, --delay SECS        refresh interval (live view 2, dump 1; fractions allowed)\n"
	      "  -n, --iterations N      stop after N intervals or frames (default: until a signal or q)\n"
	      "  -E, --entries N         rows per table in the dump (default 20)\n"
	      "  -o, --output FILE       write the dump to FILE\n"
	      "      --format FMT        dump format: text, csv, json (JSON Lines); folded\n"
	      "                          or svg (call paths of the whole run, implies -g);\n"
	      "                          pprof (the whole run as one profile, needs -o FILE)\n"
	      "      --listen [ADDR:]PORT  serve /metrics and /debug/pprof/profile (address\n"
	      "                          127.0.0.1 unless given); alone, runs headless\n"
	      "      --textfile DIR      write DIR/perftop.prom each interval (node_exporter)\n"
	      "      --metrics-comms N   comms named in /metrics, the rest as \"other\" (20)\n"
	      "      --metrics-symbols N symbols in /metrics (default 50)\n"
	      "      --push URL          send a pprof profile every --push-every seconds to a\n"
	      "                          Pyroscope server's /ingest (http:// only)\n"
	      "      --push-every SECS   seconds of samples per pushed profile (default 10)\n"
	      "      --list-events       events this host supports, probed\n"
	      "      --stats             add engine and symbol-table figures to the dump\n"
	      "      --no-color          monochrome live view (also NO_COLOR)\n"
	      "      --no-demangle       raw C++/Rust symbol names (_ZN3foo3barEv)\n"
	      "      --no-kallsyms-cache read /proc/kallsyms whole, neither reading nor\n"
	      "                          writing the cache in $XDG_CACHE_HOME/perftop\n"
	      "      --no-symbol-cache   parse every program's and library's symbols, neither\n"
	      "                          reading nor writing their cache there\n"
	      "  -h, --help              this text\n"
	      "      --version           the version\n", f);
}

/* One line: the problem, then where to look, unless it already says. */
static int bad(const char *fmt, const char *arg)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), fmt, arg);
	fprintf(stderr, "perftop: %s%s\n", msg, strstr(msg, "(see ") ? "" : " (see perftop --help)");
	return 2;
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *errstr;
	long long v = strtonum(s, (long long)lo, (long long)hi, &errstr);

	if (errstr)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* "fp", "dwarf", "dwarf,SIZE", "lbr": 0 or -1. */
static int parse_call_graph(const char *s, struct callgraph_opts *cg)
{
	const char *comma = strchr(s, ',');
	size_t n = comma ? (size_t)(comma - s) : strlen(s);
	uint64_t size = CALLGRAPH_DWARF_SIZE;

	if (n == 2 && strncmp(s, "fp", 2) == 0 && !comma)
		cg->mode = CALLGRAPH_FP;
	else if (n == 3 && strncmp(s, "lbr", 3) == 0 && !comma)
		cg->mode = CALLGRAPH_LBR;
	else if (n == 5 && strncmp(s, "dwarf", 5) == 0)
		cg->mode = CALLGRAPH_DWARF;
	else
		return -1;
	/* The kernel takes a multiple of 8 below 64 KiB (u16 dyn_size). */
	if (comma && (parse_u64(comma + 1, 8, 65528, &size) || size % 8))
		return -1;
	cg->stack_size = (uint32_t)size;
	return 0;
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

int options_parse(struct options *o, int argc, char **argv)
{
	const char *events = NULL, *counters = NULL, *nc;
	char err[512];
	uint64_t v;
	int c, children = -1;

	memset(o, 0, sizeof(*o));
	o->freq = DEFAULT_FREQ;
	o->interval = OPTIONS_DUMP_DELAY;
	o->rows = 20;
	o->format = DUMP_TEXT;
	o->metrics_comms = 20;
	o->metrics_symbols = 50;
	o->push_every = 10;
	nc = getenv("NO_COLOR"); /* set and not empty, as no-color.org says */
	o->no_color = nc && *nc;

	while ((c = getopt_long(argc, argv, "e:F:c:m:C:p:t:G:bd:n:E:o:ghV", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = optarg;
			break;
		case OPT_EXCLUDE:
			if (exclude_parse(optarg, &o->exclude, err, sizeof(err)))
				return bad("%s", err);
			break;
		case 'F':
			if (parse_u64(optarg, 1, 10000000, &o->freq))
				return bad("-F wants a rate in Hz from 1 to 10000000, not '%s'", optarg);
			break;
		case 'c':
			if (parse_u64(optarg, 1, INT64_MAX, &o->period))
				return bad("-c wants a positive period, not '%s'", optarg);
			break;
		case 'm':
			if (parse_u64(optarg, 1, 1u << 20, &v) || (v & (v - 1)))
				return bad("-m wants a power of two number of pages, not '%s'", optarg);
			o->mmap_pages = (size_t)v;
			break;
		case 'C':
			free(o->cpus);
			o->cpus = NULL;
			if (cpulist_parse(optarg, &o->cpus, &o->ncpus))
				return bad("-C wants a CPU list like 0-3,8, not '%s'", optarg);
			break;
		case 'p':
		case 't':
			free(o->pids);
			o->pids = NULL;
			if (pidlist_parse(optarg, &o->pids, &o->npids))
				return bad(c == 'p' ? "-p wants PID[,PID...], not '%s'"
					   : "-t wants TID[,TID...], not '%s'", optarg);
			o->tids = c == 't';
			break;
		case 'G':
			o->cgroup = optarg;
			break;
		case OPT_COUNTERS:
			counters = optarg;
			break;
		case OPT_THREADS:
			o->threads = true;
			break;
		case 'b':
			o->batch = true;
			break;
		case 'd': {
			char *end;
			double d;

			errno = 0;
			d = strtod(optarg, &end);
			if (errno || *end || !(d >= 0.01 && d <= 3600))
				return bad("-d wants seconds from 0.01 to 3600, not '%s'", optarg);
			o->interval = d;
			o->interval_given = true;
			break;
		}
		case 'n':
			if (parse_u64(optarg, 1, INT32_MAX, &v))
				return bad("-n wants a positive count, not '%s'", optarg);
			o->iterations = (long)v;
			break;
		case 'E':
			if (parse_u64(optarg, 1, 100000, &v))
				return bad("-E wants a row count from 1 to 100000, not '%s'", optarg);
			o->rows = (size_t)v;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				o->format = DUMP_TEXT;
			else if (strcmp(optarg, "csv") == 0)
				o->format = DUMP_CSV;
			else if (strcmp(optarg, "json") == 0)
				o->format = DUMP_JSON;
			else if (strcmp(optarg, "folded") == 0)
				o->format = DUMP_FOLDED;
			else if (strcmp(optarg, "svg") == 0)
				o->format = DUMP_SVG;
			else if (strcmp(optarg, "pprof") == 0)
				o->format = DUMP_PPROF;
			else
				return bad("--format wants text, csv, json, folded, svg or pprof, not '%s'", optarg);
			break;
		case 'g':
			o->cg.mode = CALLGRAPH_FP;
			break;
		case OPT_CALL_GRAPH:
			if (parse_call_graph(optarg, &o->cg))
				return bad("--call-graph wants fp, dwarf[,SIZE] (SIZE a multiple of 8 below 65536) "
					   "or lbr, not '%s'", optarg);
			break;
		case OPT_MAX_STACK:
			if (parse_u64(optarg, 1, UINT16_MAX, &v))
				return bad("--max-stack wants a frame count from 1 to 65535, not '%s'", optarg);
			o->cg.max_stack = (uint16_t)v;
			break;
		case OPT_CHILDREN:
		case OPT_NO_CHILDREN:
			children = c == OPT_CHILDREN;
			break;
		case OPT_LISTEN: {
			struct sockaddr_storage ss;
			socklen_t sl;

			if (httpq_parse_listen(optarg, &ss, &sl, err, sizeof(err)))
				return bad("%s", err);
			o->listen = optarg;
			break;
		}
		case OPT_PUSH: {
			char host[256], port[16], path[512];

			if (push_parse_url(optarg, host, sizeof(host), port, sizeof(port), path, sizeof(path)))
				return bad("--push wants http://HOST[:PORT][/PATH] (http only), not '%s'", optarg);
			o->push = optarg;
			break;
		}
		case OPT_PUSH_EVERY: {
			char *end;
			double d;

			errno = 0;
			d = strtod(optarg, &end);
			if (errno || *end || !(d >= 0.1 && d <= 3600))
				return bad("--push-every wants seconds from 0.1 to 3600, not '%s'", optarg);
			o->push_every = d;
			break;
		}
		case OPT_TEXTFILE:
			o->textfile = optarg;
			break;
		case OPT_METRICS_COMMS:
		case OPT_METRICS_SYMBOLS:
			if (parse_u64(optarg, 0, 10000, &v))
				return bad(c == OPT_METRICS_COMMS ? "--metrics-comms wants a count from 0 to 10000, not '%s'"
					   : "--metrics-symbols wants a count from 0 to 10000, not '%s'", optarg);
			*(c == OPT_METRICS_COMMS ? &o->metrics_comms : &o->metrics_symbols) = (size_t)v;
			break;
		case OPT_LIST_EVENTS:
			o->list_events = true;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
			break;
		case OPT_NO_KALLSYMS_CACHE:
			o->no_kallsyms_cache = true;
			break;
		case OPT_NO_SYMBOL_CACHE:
			o->no_symbol_cache = true;
			break;
		case OPT_STATS:
			o->stats = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
		case 'V':
			puts("perftop " PERFTOP_VERSION);
			return 1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	/* Call paths are what folded stacks and flame graphs draw. */
	if ((o->format == DUMP_FOLDED || o->format == DUMP_SVG) && o->cg.mode == CALLGRAPH_NONE)
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
	if (o->list_events)
		return 0;
	if (!o->period) {
		uint64_t max = perf_max_sample_rate();

		if (max && o->freq > max) {
			fprintf(stderr, "perftop: -F %llu is above kernel.perf_event_max_sample_rate (%llu): "
				"lower -F or raise it with sysctl kernel.perf_event_max_sample_rate=%llu\n",
				(unsigned long long)o->freq, (unsigned long long)max,
				(unsigned long long)o->freq);
			return 2;
		}
	}
	if (o->cpus && (c = check_cpus(o)) != 0)
		return c;

	o->default_event = events == NULL;
	if (evspec_parse_list(events ? events : "cycles", &o->events, &o->nevents, err, sizeof(err)))
		return bad("%s", err);
	if (o->nevents > 16)
		return bad("%s", "at most 16 events at once");
	if (o->format == DUMP_PPROF && (!o->batch || !o->output))
		return bad("%s", "--format pprof writes one file at the end: give -b and -o FILE");
	if (o->cgroup && o->pids)
		return bad("%s", "-G cannot be combined with -p or -t");
	if (counters && !o->pids && !o->cgroup)
		return bad("%s", "--counters needs a focus: -p, -t or -G");
	/* Parsed for every run: a focus taken later in the live view (Enter)
	 * counts as -p does; the session counts only with a focus. */
	{
		if (evspec_parse_list(counters ? counters : COUNTERS_DEFAULT, &o->counters, &o->ncounters,
				      err, sizeof(err)))
			return bad("--counters: %s", err);
		if (o->ncounters > COUNTERS_MAX)
			return bad("%s", "--counters: at most 16 counters");
	}
	for (size_t i = 0; i < o->nevents; i++)
		if (!o->events[i].has_modifiers)
			evspec_set_exclude(&o->events[i].attr,
					   evspec_exclude_bits(&o->events[i].attr) | o->exclude);
	/* The focus counters too: under perf_event_paranoid=2 an unprivileged
	 * -p PID needs --exclude kernel on every event it opens. */
	for (size_t i = 0; i < o->ncounters; i++)
		if (!o->counters[i].has_modifiers)
			evspec_set_exclude(&o->counters[i].attr,
					   evspec_exclude_bits(&o->counters[i].attr) | o->exclude);
	return 0;
}
