/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options: the command line, parsed and checked. Usage errors exit 2. */
#ifndef PERFTOP_OPTIONS_H
#define PERFTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "evspec.h"

/* --sym-annotate's symbols at most (agg's AGG_ANNOT_WANT). */
#define OPTIONS_SYM_ANNOTATE_MAX 16

/* -d's defaults: the live view's is perf top's and tiptop's. */
#define OPTIONS_LIVE_DELAY 2.0
#define OPTIONS_DUMP_DELAY 1.0

/* folded and svg: the whole run's call paths; pprof: the whole run as a
 * profile; written when it ends. */
enum dump_format { DUMP_TEXT, DUMP_CSV, DUMP_JSON, DUMP_FOLDED, DUMP_SVG, DUMP_PPROF };

/* --off-cpu-via: summed in the kernel by BPF where it can be, or always, or
 * never (sched_switch records through the rings). */
enum { OFFCPU_VIA_AUTO, OFFCPU_VIA_BPF, OFFCPU_VIA_RECORDS };

struct options {
	struct evspec *events;
	size_t nevents;
	bool default_event;      /* no -e: cycles, with the cpu-clock fallback */
	unsigned exclude;        /* --exclude, applied to events without modifiers */
	uint64_t freq, period;
	size_t mmap_pages;
	int *cpus;
	size_t ncpus;
	pid_t *pids;
	size_t npids;
	bool tids;               /* -t rather than -p */
	const char *cgroup;      /* -G: a cgroup v2 directory */
	struct evspec *counters; /* exact counters in focus mode (--counters) */
	size_t ncounters;
	bool threads;            /* --threads: per-thread rows too */
	bool batch;
	double interval;
	bool interval_given;     /* -d: else the mode's default (OPTIONS_*_DELAY) */
	long iterations;         /* 0: until a signal (and q in the live view) */
	size_t rows;
	const char *output;
	const char *input;       /* -i FILE: replay a perf.data file ("-": stdin) */
	enum dump_format format;
	bool list_events;
	bool no_color;
	bool no_demangle;        /* --no-demangle: raw C++/Rust symbol names */
	bool no_kallsyms_cache;  /* --no-kallsyms-cache: read kallsyms whole */
	bool no_symbol_cache;    /* --no-symbol-cache: parse every ELF table */
	bool stats;
	/* annotate (include/annotate.h) */
	bool annot_intel;        /* -M intel: Intel syntax, else AT&T */
	const char *vmlinux;     /* -k FILE: kernel code from it, else /proc/kcore */
	bool no_source;          /* --no-source: no source lines */
	/* --sym-annotate SYM[,SYM]: the arguments as given (comma lists), and
	 * the names in them, OPTIONS_SYM_ANNOTATE_MAX at most in all. */
	const char *sym_annotate[OPTIONS_SYM_ANNOTATE_MAX];
	size_t nsym_annotate, nsym_annotate_names;
	struct callgraph_opts cg; /* -g, --call-graph, --max-stack */
	bool children;            /* --children (the default with call graphs) */
	/* export (src/export.c) */
	const char *listen;      /* --listen [ADDR:]PORT */
	const char *textfile;    /* --textfile DIR */
	size_t metrics_comms, metrics_symbols;
	const char *push;        /* --push URL (Pyroscope) */
	double push_every;       /* --push-every SECS */
	/* the settings file (src/cli/config.c) */
	const char *config;      /* --config FILE */
	bool no_config;          /* --no-config */
	struct rcfile *rc;       /* as read (NULL: none); the live view writes it back */
	char rc_path[512];       /* where it is (or would be) */
	char rc_warning[256];    /* the first complaint about it, for the live view */
	double live_delay;       /* the live view's -d default: the file's delay, else OPTIONS_LIVE_DELAY */
	/* --record FILE ("-": stdout, perf's pipe format), --max-size */
	const char *record;
	uint64_t max_size;       /* bytes; 0: no bound */
	int argc;                /* the command line, for the recording's header */
	char **argv;
	/* --off-cpu: where threads wait (sched:sched_switch spans) */
	bool offcpu;
	double offcpu_thresh_ms; /* --off-cpu-thresh MS: shorter spans dropped */
	int offcpu_via;          /* --off-cpu-via: OFFCPU_VIA_* */
	const char *sort_keys;   /* --sort KEYS: perf's keys, checked (agg_group_parse) */
	bool hierarchy;          /* --hierarchy: --sort's rows folded by the first key */
	const char *baseline;    /* --baseline FILE: a JSON Lines dump or a pprof profile */
};

/* Fills o from argv. Returns 0, 1 when the run is done (--help, --version),
 * or 2 for a usage error (already reported on stderr). */
int options_parse(struct options *o, int argc, char **argv);
void options_free(struct options *o);

/* --listen, --textfile or --push: an exporter that may run headless. */
bool options_exporting(const struct options *o);

/* True when a focus (-p, -t, -G) asks for exact counters. */
bool options_focused(const struct options *o);

/* "system-wide (2 CPUs)", "PID 123,456", "TID 7", "CPU 0", "cgroup /x" */
void options_target(const struct options *o, size_t ncpus, char *buf, size_t len);

#endif
