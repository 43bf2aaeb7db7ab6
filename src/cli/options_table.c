/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options_table: every option as a row (name, letter, argument, help, the
 * handler that takes its argument) and the --help made from them. */
#include "options_table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpumap.h"
#include "httpq.h"
#include "agg.h"
#include "push.h"

/* --help's second column. */
#define HELP_COL 26

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *errstr;
	long long v = strtonum(s, (long long)lo, (long long)hi, &errstr);

	if (errstr)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* Seconds as a decimal fraction within [lo, hi]. */
static int parse_secs(const char *s, double lo, double hi, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || *end || !(d >= lo && d <= hi))
		return -1;
	*out = d;
	return 0;
}

#define FIELD(o, row, type) ((type *)((char *)(o) + (row)->off))

static int set_flag(struct options_state *st, const struct options_row *row, const char *arg)
{
	*FIELD(st->o, row, bool) = true;
	return 0;
}

static int set_str(struct options_state *st, const struct options_row *row, const char *arg)
{
	*FIELD(st->o, row, const char *) = arg;
	return 0;
}

/* --metrics-comms, --metrics-symbols */
static int set_count(struct options_state *st, const struct options_row *row, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, 0, 10000, &v))
		return -1;
	*FIELD(st->o, row, size_t) = (size_t)v;
	return 0;
}

static int set_events(struct options_state *st, const struct options_row *row, const char *arg)
{
	st->events = arg;
	return 0;
}

static int set_counters(struct options_state *st, const struct options_row *row, const char *arg)
{
	st->counters = arg;
	return 0;
}

static int set_exclude(struct options_state *st, const struct options_row *row, const char *arg)
{
	return evspec_exclude_parse(arg, &st->o->exclude, st->err, sizeof(st->err)) ? -1 : 0;
}

static int set_freq(struct options_state *st, const struct options_row *row, const char *arg)
{
	st->freq_given = true;
	return parse_u64(arg, 1, 10000000, &st->o->freq);
}

static int set_period(struct options_state *st, const struct options_row *row, const char *arg)
{
	return parse_u64(arg, 1, INT64_MAX, &st->o->period);
}

static int set_pages(struct options_state *st, const struct options_row *row, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, 1, 1u << 20, &v) || (v & (v - 1)))
		return -1;
	st->o->mmap_pages = (size_t)v;
	return 0;
}

static int set_cpus(struct options_state *st, const struct options_row *row, const char *arg)
{
	free(st->o->cpus);
	st->o->cpus = NULL;
	return cpumap_parse_cpus(arg, &st->o->cpus, &st->o->ncpus) ? -1 : 0;
}

/* -p and -t: the last one given counts. */
static int set_pids(struct options_state *st, const struct options_row *row, const char *arg)
{
	free(st->o->pids);
	st->o->pids = NULL;
	st->o->tids = row->letter == 't';
	return cpumap_parse_pids(arg, &st->o->pids, &st->o->npids) ? -1 : 0;
}

static int set_delay(struct options_state *st, const struct options_row *row, const char *arg)
{
	if (parse_secs(arg, 0.01, 3600, &st->o->interval))
		return -1;
	st->o->interval_given = true;
	return 0;
}

static int set_iterations(struct options_state *st, const struct options_row *row, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, 1, INT32_MAX, &v))
		return -1;
	st->o->iterations = (long)v;
	return 0;
}

static int set_entries(struct options_state *st, const struct options_row *row, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, 1, 100000, &v))
		return -1;
	st->o->rows = (size_t)v;
	return 0;
}

static int set_format(struct options_state *st, const struct options_row *row, const char *arg)
{
	static const char *const names[] = {
		[DUMP_TEXT] = "text", [DUMP_CSV] = "csv", [DUMP_JSON] = "json",
		[DUMP_FOLDED] = "folded", [DUMP_SVG] = "svg", [DUMP_PPROF] = "pprof",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(arg, names[i]) == 0) {
			st->o->format = (enum dump_format)i;
			return 0;
		}
	return -1;
}

static int set_fp(struct options_state *st, const struct options_row *row, const char *arg)
{
	st->o->cg.mode = CALLGRAPH_FP;
	st->cg_given = true;
	return 0;
}

/* "fp", "dwarf", "dwarf,SIZE", "lbr" */
static int set_call_graph(struct options_state *st, const struct options_row *row, const char *arg)
{
	struct callgraph_opts *cg = &st->o->cg;
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t size = CALLGRAPH_DWARF_SIZE;

	if (n == 2 && strncmp(arg, "fp", 2) == 0 && !comma)
		cg->mode = CALLGRAPH_FP;
	else if (n == 3 && strncmp(arg, "lbr", 3) == 0 && !comma)
		cg->mode = CALLGRAPH_LBR;
	else if (n == 5 && strncmp(arg, "dwarf", 5) == 0)
		cg->mode = CALLGRAPH_DWARF;
	else
		return -1;
	/* The kernel takes a multiple of 8 below 64 KiB (u16 dyn_size). */
	if (comma && (parse_u64(comma + 1, 8, 65528, &size) || size % 8))
		return -1;
	cg->stack_size = (uint32_t)size;
	st->cg_given = true;
	return 0;
}

static int set_max_stack(struct options_state *st, const struct options_row *row, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, 1, UINT16_MAX, &v))
		return -1;
	st->o->cg.max_stack = (uint16_t)v;
	return 0;
}

/* --sort: perf's key names, checked here so a typo is a usage error. */
static int set_sort(struct options_state *st, const struct options_row *row, const char *arg)
{
	enum agg_gkey keys[AGG_GK_COUNT];

	int n = agg_group_parse(arg, keys, AGG_GK_COUNT);

	if (n < 0)
		return -1;
	st->o->sort_keys = arg;
	return 0;
}

static int set_children(struct options_state *st, const struct options_row *row, const char *arg)
{
	st->children = strcmp(row->name, "children") == 0;
	return 0;
}

static int set_listen(struct options_state *st, const struct options_row *row, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	if (httpq_parse_listen(arg, &ss, &sl, st->err, sizeof(st->err)))
		return -1;
	st->o->listen = arg;
	return 0;
}

static int set_push(struct options_state *st, const struct options_row *row, const char *arg)
{
	char host[256], port[16], path[512];

	if (push_parse_url(arg, host, sizeof(host), port, sizeof(port), path, sizeof(path)))
		return -1;
	st->o->push = arg;
	return 0;
}

static int set_push_every(struct options_state *st, const struct options_row *row, const char *arg)
{
	return parse_secs(arg, 0.1, 3600, &st->o->push_every);
}

/* -M att|intel, as perf's --disassembler-style */
static int set_disasm_style(struct options_state *st, const struct options_row *row, const char *arg)
{
	if (strcmp(arg, "att") && strcmp(arg, "intel"))
		return -1;
	st->o->annot_intel = strcmp(arg, "intel") == 0;
	return 0;
}

/* -k: said now rather than when the first kernel symbol is annotated. */
static int set_vmlinux(struct options_state *st, const struct options_row *row, const char *arg)
{
	if (access(arg, R_OK)) {
		snprintf(st->err, sizeof(st->err), "-k: cannot read %s: %s (give a readable vmlinux)", arg,
			 strerror(errno));
		return -1;
	}
	st->o->vmlinux = arg;
	return 0;
}

static int set_source(struct options_state *st, const struct options_row *row, const char *arg)
{
	st->o->no_source = strcmp(row->name, "no-source") == 0;
	return 0;
}

/* --max-size: perf record's N[BKMG]. */
static int set_max_size(struct options_state *st, const struct options_row *row, const char *arg)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *arg == '-')
		return -1;
	switch (*end) {
	case 'G': case 'g': shift = 30; break;
	case 'M': case 'm': shift = 20; break;
	case 'K': case 'k': shift = 10; break;
	case 'B': case 'b': case '\0': break;
	default: return -1;
	}
	if (*end && end[1])
		return -1;
	if (v == 0 || v > (UINT64_MAX >> shift))
		return -1;
	st->o->max_size = (uint64_t)v << shift;
	return 0;
}

/* --sym-annotate SYM[,SYM]: repeated or a comma list, perf top's. */
static int set_sym_annotate(struct options_state *st, const struct options_row *row, const char *arg)
{
	size_t n = 1;

	for (const char *p = arg; *p; p++)
		n += *p == ',';
	if (*arg == '\0' || *arg == ',' || strstr(arg, ",,") || arg[strlen(arg) - 1] == ',')
		return -1;
	if (st->o->nsym_annotate_names + n > OPTIONS_SYM_ANNOTATE_MAX) {
		snprintf(st->err, sizeof(st->err), "--sym-annotate: %d symbols at most (give fewer)",
			 OPTIONS_SYM_ANNOTATE_MAX);
		return -1;
	}
	st->o->sym_annotate[st->o->nsym_annotate++] = arg;
	st->o->nsym_annotate_names += n;
	return 0;
}

static int set_offcpu_via(struct options_state *st, const struct options_row *row, const char *arg)
{
	static const char *const names[] = { "auto", "bpf", "records" };

	(void)row;
	for (int i = 0; i < 3; i++)
		if (strcmp(arg, names[i]) == 0) {
			st->o->offcpu_via = i;
			return 0;
		}
	return -1;
}

static int set_offcpu_thresh(struct options_state *st, const struct options_row *row, const char *arg)
{
	return parse_secs(arg, 0, 3600000, &st->o->offcpu_thresh_ms);
}

static int set_help(struct options_state *st, const struct options_row *row, const char *arg)
{
	options_usage(stdout);
	return OPTIONS_DONE;
}

static int set_version(struct options_state *st, const struct options_row *row, const char *arg)
{
	puts("perftop " PERFTOP_VERSION);
	return OPTIONS_DONE;
}

#define AT(field) offsetof(struct options, field)

/* In --help's order. Defaults said here are those options.c sets. */
const struct options_row options_rows[] = {
	{ "event", 'e', "LIST", "events to sample, perf syntax (default: cycles,\n"
	  "falling back to cpu-clock without a hardware PMU);\n"
	  "modifiers :u :k :h :I :G :H :p :pp :ppp :P", set_events, NULL, 0 },
	{ "exclude", 0, "LIST", "default filters: user,kernel,hv,idle,host,guest", set_exclude, NULL, 0 },
	{ "freq", 'F', "HZ", "samples per second per CPU (default 4000)", set_freq,
	  "-F wants a rate in Hz from 1 to 10000000, not '%s'", 0 },
	{ "count", 'c', "PERIOD", "sample every PERIOD events instead of -F", set_period,
	  "-c wants a positive period, not '%s'", 0 },
	{ "mmap-pages", 'm', "N", "ring size per CPU in pages (power of two; default:\n"
	  "8 s of samples, 16 to 2048 pages, up to 4096 with -g)", set_pages,
	  "-m wants a power of two number of pages, not '%s'", 0 },
	{ "cpu", 'C', "LIST", "only these CPUs (0-3,8)", set_cpus, "-C wants a CPU list like 0-3,8, not '%s'", 0 },
	{ "pid", 'p', "PID[,PID]", "only these processes, their threads and children", set_pids,
	  "-p wants PID[,PID...], not '%s'", 0 },
	{ "tid", 't', "TID[,TID]", "only these threads", set_pids, "-t wants TID[,TID...], not '%s'", 0 },
	{ "cgroup", 'G', "DIR", "only this cgroup (v2 directory, e.g. a container's)", set_str, NULL, AT(cgroup) },
	{ "counters", 0, "LIST", "exact counters for -p/-t/-G (default: task-clock,\n"
	  "context-switches, cpu-migrations, page-faults and\n"
	  "the hardware ones the PMU has)", set_counters, NULL, 0 },
	{ "threads", 0, NULL, "per-thread rows too", set_flag, NULL, AT(threads) },
	{ NULL, 'g', NULL, "call graphs (frame pointers): who calls the hot code", set_fp, NULL, 0 },
	{ "call-graph", 0, "MODE", "fp, dwarf[,SIZE] (user stack bytes, default 8192) or lbr", set_call_graph,
	  "--call-graph wants fp, dwarf[,SIZE] (SIZE a multiple of 8 below 65536) or lbr, not '%s'", 0 },
	{ "max-stack", 0, "N", "frames per stack at most (default kernel.perf_event_max_stack)", set_max_stack,
	  "--max-stack wants a frame count from 1 to 65535, not '%s'", 0 },
	{ "children", 0, NULL, "sort by time spent in a function and its callees\n"
	  "(the default with call graphs)", set_children, NULL, 0 },
	{ "no-children", 0, NULL, "sort by the time spent in a function itself (self)", set_children, NULL, 0 },
	{ "sort", 's', "KEYS", "main table's rows by perf's keys (comma list): comm,\n"
	  "pid, dso, sym, cpu, srcline (file:line of the IP)", set_sort,
	  "--sort wants perf's keys comm,pid,dso,sym,cpu,srcline (each once), not '%s'", 0 },
	{ "hierarchy", 0, NULL, "--sort's rows folded under their first key", set_flag, NULL, AT(hierarchy) },
	{ "baseline", 0, "FILE", "rows show the change in share against FILE: a perftop\n"
	  "JSON Lines dump or a pprof profile", set_str, NULL, AT(baseline) },
	{ "batch", 'b', NULL, "headless dump instead of the live view", set_flag, NULL, AT(batch) },
	{ "delay", 'd', "SECS", "refresh interval (live view 2, dump 1; 0.01 to 3600)", set_delay,
	  "-d wants seconds from 0.01 to 3600, not '%s'", 0 },
	{ "iterations", 'n', "N", "stop after N intervals or frames (default: until a signal or q)",
	  set_iterations, "-n wants a positive count, not '%s'", 0 },
	{ "entries", 'E', "N", "rows per table in the dump (default 20)", set_entries,
	  "-E wants a row count from 1 to 100000, not '%s'", 0 },
	{ "output", 'o', "FILE", "write the dump to FILE", set_str, NULL, AT(output) },
	{ "input", 'i', "FILE", "replay a perf.data file (perf record's or perftop's;\n"
	  "- reads perf's pipe format on stdin): its events,\n"
	  "tasks and symbols; -b as fast as it reads, the live\n"
	  "view at the recorded pace (Z pause, . step, ] [ speed)", set_str, NULL, AT(input) },
	{ "format", 0, "FMT", "dump format: text, csv, json (JSON Lines); folded\n"
	  "or svg (call paths of the whole run, implies -g);\n"
	  "pprof (the whole run as one profile, needs -o FILE)", set_format,
	  "--format wants text, csv, json, folded, svg or pprof, not '%s'", 0 },
	{ "listen", 0, "[ADDR:]PORT", "serve /metrics and /debug/pprof/profile (address\n"
	  "127.0.0.1 unless given); alone, runs headless", set_listen, NULL, 0 },
	{ "textfile", 0, "DIR", "write DIR/perftop.prom each interval (node_exporter)", set_str, NULL,
	  AT(textfile) },
	{ "metrics-comms", 0, "N", "comms named in /metrics, the rest as \"other\" (20)", set_count,
	  "--metrics-comms wants a count from 0 to 10000, not '%s'", AT(metrics_comms) },
	{ "metrics-symbols", 0, "N", "symbols in /metrics (default 50)", set_count,
	  "--metrics-symbols wants a count from 0 to 10000, not '%s'", AT(metrics_symbols) },
	{ "push", 0, "URL", "send a pprof profile every --push-every seconds to a\n"
	  "Pyroscope server's /ingest (http:// only)", set_push,
	  "--push wants http://HOST[:PORT][/PATH] (http only), not '%s'", 0 },
	{ "push-every", 0, "SECS", "seconds of samples per pushed profile (default 10)", set_push_every,
	  "--push-every wants seconds from 0.1 to 3600, not '%s'", 0 },
	{ "record", 0, "FILE", "also write what is sampled to FILE in perf.data format\n"
	  "(perf report, perf script; - : perf's pipe format\n"
	  "to stdout); an existing FILE becomes FILE.old", set_str, NULL, AT(record) },
	{ "max-size", 0, "SIZE", "stop recording at SIZE bytes (N, NK, NM, NG)", set_max_size,
	  "--max-size wants a size like 100M (B, K, M or G), not '%s'", 0 },
	{ "off-cpu", 0, NULL, "where threads wait too: sched:sched_switch spans\n"
	  "by stack and state (S, D, R); folded/svg/pprof\n"
	  "then write the off-CPU stacks (live: O)", set_flag, NULL, AT(offcpu) },
	{ "off-cpu-thresh", 0, "MS", "drop off-CPU spans shorter than MS (default 0)", set_offcpu_thresh,
	  "--off-cpu-thresh wants milliseconds from 0 to 3600000, not '%s'", 0 },
	{ "off-cpu-via", 0, "WAY", "bpf: sum the spans in the kernel (fast; root or\n"
	  "CAP_BPF); records: sched_switch records; auto\n"
	  "(default): bpf where it can, else records", set_offcpu_via,
	  "--off-cpu-via wants auto, bpf or records, not '%s'", 0 },
	{ "list-events", 0, NULL, "events this host supports, probed", set_flag, NULL, AT(list_events) },
	{ "stats", 0, NULL, "add engine and symbol-table figures to the dump", set_flag, NULL, AT(stats) },
	{ "no-color", 0, NULL, "monochrome live view (also NO_COLOR)", set_flag, NULL, AT(no_color) },
	{ "no-demangle", 0, NULL, "raw C++/Rust symbol names (_ZN3foo3barEv)", set_flag, NULL, AT(no_demangle) },
	{ "no-kallsyms-cache", 0, NULL, "read /proc/kallsyms whole, neither reading nor\n"
	  "writing the cache in $XDG_CACHE_HOME/perftop", set_flag, NULL, AT(no_kallsyms_cache) },
	{ "no-symbol-cache", 0, NULL, "parse every program's and library's symbols, neither\n"
	  "reading nor writing their cache there", set_flag, NULL, AT(no_symbol_cache) },
	{ "disassembler-style", 'M', "STYLE", "annotate's assembly: att (default) or intel", set_disasm_style,
	  "-M wants att or intel, not '%s'", 0 },
	{ "vmlinux", 'k', "FILE", "annotate kernel code from this vmlinux (default:\n"
	  "/proc/kcore, as root)", set_vmlinux, NULL, 0 },
	{ "source", 0, NULL, "annotate with source lines (the default)", set_source, NULL, 0 },
	{ "no-source", 0, NULL, "annotate without source lines", set_source, NULL, 0 },
	{ "config", 0, "FILE", "settings from FILE, not $XDG_CONFIG_HOME/perftop/perftoprc\n"
	  "(the command line wins; the live view writes changes back)", set_str, NULL, AT(config) },
	{ "no-config", 0, NULL, "neither read nor write a settings or state file", set_flag, NULL,
	  AT(no_config) },
	{ "sym-annotate", 0, "SYM[,SYM]", "the dump adds these symbols' annotation each\n"
	  "interval (hot instructions, source lines); repeatable", set_sym_annotate,
	  "--sym-annotate wants symbol names, comma-separated, not '%s'", 0 },
	{ "help", 'h', NULL, "this text", set_help, NULL, 0 },
	{ "version", 'V', NULL, "the version", set_version, NULL, 0 },
};
const size_t options_nrows = sizeof(options_rows) / sizeof(options_rows[0]);
_Static_assert(sizeof(options_rows) / sizeof(options_rows[0]) <= OPTIONS_MAX_ROWS,
	       "getopt's arrays in options.c hold every row");

/* "  -e, --event LIST", "      --threads", "  -g" */
static int usage_left(FILE *f, const struct options_row *r)
{
	int n;

	if (r->letter && r->name)
		n = fprintf(f, "  -%c, --%s", r->letter, r->name);
	else if (r->letter)
		n = fprintf(f, "  -%c", r->letter);
	else
		n = fprintf(f, "      --%s", r->name);
	if (r->arg)
		n += fprintf(f, " %s", r->arg);
	return n;
}

void options_usage(FILE *f)
{
	fputs("usage: perftop [options]\n", f);
	for (size_t i = 0; i < options_nrows; i++) {
		const struct options_row *r = &options_rows[i];
		int n = usage_left(f, r);

		/* A long left part keeps two spaces before the help. */
		fprintf(f, "%*s", n < HELP_COL ? HELP_COL - n : 2, "");
		for (const char *p = r->help; *p; p++) {
			fputc(*p, f);
			if (*p == '\n')
				fprintf(f, "%*s", HELP_COL, "");
		}
		fputc('\n', f);
	}
}
