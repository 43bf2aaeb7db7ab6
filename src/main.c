/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perftop: a top-like live view of perf_event samples. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "clock.h"
#include "dump.h"
#include "flame.h"
#include "heapwarm.h"
#include "export.h"
#include "options.h"
#include "session.h"
#include "baseline.h"
#include "tui.h"

struct batch {
	struct session *s;
	const struct options *o;
	FILE *out;         /* NULL: no dump (headless exporter, pprof file) */
	struct exporter *x;
	unsigned long iteration;
	int rc;            /* exit code once stopped */
	int write_rc;      /* of the last dump_interval */
	const char *pending_final;
	char final[128];
};

/* --baseline FILE, read once before anything opens. */
static struct baseline *baseline;

static int baseline_open(const struct options *o)
{
	enum agg_gkey keys[AGG_GK_COUNT];
	int n = o->sort_keys ? agg_group_parse(o->sort_keys, keys, AGG_GK_COUNT) : 0;
	char err[1024];

	if (o->baseline == NULL)
		return 0;
	if ((baseline = baseline_new()) == NULL) {
		fputs("perftop: --baseline: out of memory\n", stderr);
		return 1;
	}
	if (baseline_load(baseline, o->baseline, keys, n > 0 ? (size_t)n : 0, err, sizeof(err))) {
		fprintf(stderr, "perftop: %s\n", err);
		return 1;
	}
	return 0;
}

static void batch_show(void *arg, double lap)
{
	struct batch *b = arg;
	struct dump_meta m = {
		.time = clock_wall_s(),
		.interval = lap,
		.iteration = ++b->iteration,
		.freq = b->o->freq,
		.period = b->o->period,
		.final = b->pending_final,
		.threads = b->o->threads,
		.stats = b->o->stats,
		.children = b->o->children,
		.hierarchy = b->o->hierarchy,
		.baseline = baseline,
	};

	m.push = export_push_stats(b->x, &m.push_sent, &m.push_failed, &m.push_dropped);
	export_interval(b->x, b->s->agg, b->s);
	/* Folded stacks and flame graphs show the whole run, once, at its end;
	 * without b->out (a headless exporter, a pprof file) there is no dump. */
	if (b->out == NULL || b->o->format == DUMP_FOLDED || b->o->format == DUMP_SVG)
		b->write_rc = 0;
	else
		b->write_rc = dump_interval(b->out, b->o->format, b->s, &m, b->o->rows);
}

/* The run's call paths, when it ends (-n, a signal, the focus exiting). */
static int batch_paths(struct batch *b)
{
	/* --off-cpu: the stacks threads waited in, weighed in microseconds. */
	struct agg *a = b->o->offcpu && b->s->wait ? b->s->wait : b->s->agg;
	char title[300];
	int rc;

	snprintf(title, sizeof(title), "%s%s", a == b->s->wait ? "off-CPU: " : "", b->s->target);
	if (b->o->format == DUMP_FOLDED)
		rc = flame_folded(b->out, a, AGG_TOTAL, 0);
	else if (b->o->format == DUMP_SVG)
		rc = flame_svg(b->out, a, AGG_TOTAL, 0, title);
	else
		return 0;
	if (rc == -EPIPE)
		return 0;
	if (rc) {
		fprintf(stderr, "perftop: cannot write the call paths: %s\n", strerror(-rc));
		return 1;
	}
	if (b->o->stats)
		fprintf(stderr, "perftop: %llu samples in the call paths written (%s)\n",
			(unsigned long long)agg_event(a, 0)->samples_total, agg_event(a, 0)->name);
	return 0;
}

/* Writes the interval so far; false when the reader is gone or writing failed. */
static bool batch_write(struct batch *b, const char *final)
{
	b->pending_final = final;
	session_interval_end(b->s, 0, batch_show, b);
	if (b->write_rc == -EPIPE) {
		b->rc = 0; /* perftop -b | head: the reader had enough */
		return false;
	}
	if (b->write_rc) {
		fprintf(stderr, "perftop: cannot write the dump: %s\n", strerror(-b->write_rc));
		b->rc = 1;
		return false;
	}
	return true;
}

static void batch_tick(void *arg)
{
	struct batch *b = arg;

	/* The last interval holds everything taken from the kernel so far,
	 * however far behind decoding fell (engine.h: backlog). */
	if (b->o->iterations && (long)b->iteration + 1 >= b->o->iterations)
		session_flush(b->s);
	if (!batch_write(b, NULL) || (b->o->iterations && (long)b->iteration >= b->o->iterations))
		session_stop(b->s);
}

static bool batch_signal(void *arg, int signo)
{
	struct batch *b = arg;

	if (signo == SIGWINCH)
		return false;
	snprintf(b->final, sizeof(b->final), "stopped by %s", sigabbrev_np(signo) ? sigabbrev_np(signo) : "signal");
	batch_write(b, b->final);
	return true;
}

static void batch_pid_exit(void *arg, pid_t pid)
{
	struct batch *b = arg;

	if (session_focus_exit(b->s, pid)) {
		snprintf(b->final, sizeof(b->final), "process %d exited", (int)pid);
		batch_write(b, b->final);
		session_stop(b->s);
	}
}

static int run_batch(struct session *s, const struct options *o, struct exporter *x, FILE *file)
{
	bool dumping = o->batch && o->format != DUMP_PPROF;
	struct batch b = { .s = s, .o = o, .out = dumping ? (file ? file : stdout) : NULL, .x = x };
	char err[1024];
	struct engine_handlers h = {
		.arg = &b, .tick = batch_tick, .signal = batch_signal, .pid_exit = batch_pid_exit,
	};
	int rc;

	if (b.out && dump_begin(b.out, o->format, s, o->threads)) {
		fprintf(stderr, "perftop: cannot write the dump: %s\n", strerror(errno));
		return 1;
	}
	rc = session_run(s, &h);
	if (rc && session_replay_error(s)) {
		fprintf(stderr, "perftop: %s\n", session_replay_error(s)); /* -i: where the file is bad */
		b.rc = 1;
	} else if (rc) {
		fprintf(stderr, "perftop: event loop failed: %s\n", strerror(-rc));
		b.rc = 1;
	}
	if (b.rc == 0 && b.out)
		b.rc = batch_paths(&b);
	if (export_finish(x, file && !dumping ? fileno(file) : -1, err, sizeof(err))) {
		fprintf(stderr, "perftop: %s\n", err);
		b.rc = 1;
	}
	return b.rc;
}

/* The file -o names, opened before the session: a path that cannot be
 * written is said at once, not after a whole run. The pprof file is
 * written whole at the end (export_finish): not emptied before. NULL with
 * *rc 0 when there is none, 1 when it cannot be opened. */
static FILE *open_output(const struct options *o, int *rc)
{
	FILE *f = NULL;
	int fd;

	*rc = 0;
	if (!o->batch || o->output == NULL)
		return NULL;
	if (o->format == DUMP_PPROF) {
		fd = open(o->output, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0 && (f = fdopen(fd, "w")) == NULL)
			close(fd);
	} else {
		f = fopen(o->output, "we");
	}
	if (f == NULL) {
		fprintf(stderr, "perftop: cannot open %s: %s\n", o->output, strerror(errno));
		*rc = 1;
	}
	return f;
}

/* Closes what open_output opened; a write error the close finds fails the run. */
static int close_output(FILE *f, const struct options *o, int rc)
{
	if (f && fclose(f) == EOF && rc == 0) {
		fprintf(stderr, "perftop: cannot write %s: %s\n", o->output, strerror(errno));
		return 1;
	}
	return rc;
}

/* The live view's hook at each interval's end: the exporter's. */
static void tui_export(void *arg, struct agg *a, const struct session *s)
{
	export_interval(arg, a, s);
}

/* The pages the run will fill anyway, populated at once (heapwarm.h). */
static void warm_heap(bool live, bool callgraph)
{
	struct winsize ws = { 0 };

	if (live && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0)
		ws.ws_row = ws.ws_col = 0;
	(void)heapwarm(heapwarm_size(live ? ws.ws_row : 0, live ? ws.ws_col : 0, callgraph));
}

int main(int argc, char **argv)
{
	struct options o;
	struct session s;
	struct exporter *x = NULL;
	FILE *out;
	bool headless;
	char err[1024];
	int rc, fd;

	rc = options_parse(&o, argc, argv);
	if (rc) {
		options_free(&o);
		return rc == 1 ? 0 : 2;
	}
	if (o.list_events) {
		evspec_list_print(stdout);
		options_free(&o);
		return 0;
	}
	/* An exporter without a terminal runs headless, as exporters do. */
	headless = !o.batch && options_exporting(&o) && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO));
	if (!o.batch && !headless && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		/* The command line is right; where it runs is not: a runtime error. */
		fputs("perftop: the live view needs a terminal: use -b for a headless dump\n", stderr);
		options_free(&o);
		return 1;
	}
	/* The live view refreshes as perf top and tiptop do; a frame costs
	 * about what a second of samples does at 4 kHz (doc/DESIGN.md). */
	if (!o.batch && !headless && !o.interval_given)
		o.interval = o.live_delay; /* perftoprc's delay, else OPTIONS_LIVE_DELAY */
	warm_heap(!o.batch && !headless, o.cg.mode != CALLGRAPH_NONE);
	if (o.batch && o.output == NULL && fcntl(STDOUT_FILENO, F_GETFD) == -1) {
		fputs("perftop: cannot write the dump: stdout is closed: redirect it or give -o FILE\n", stderr);
		options_free(&o);
		return 1;
	}
	/* A closed 0, 1 or 2 would be taken by a perf or epoll fd and written to. */
	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= STDERR_FILENO)
		;
	if (fd > STDERR_FILENO)
		close(fd);
	signal(SIGPIPE, SIG_IGN); /* a closed pipe shows up as EPIPE from the write */
	if (baseline_open(&o)) {
		baseline_free(baseline);
		options_free(&o);
		return 1;
	}
	tui_baseline(baseline);
	out = open_output(&o, &rc);
	if (rc) {
		options_free(&o);
		return rc;
	}
	/* -i: the file's session, no perf_event_open. */
	if (o.input ? session_replay_open(&s, &o, err, sizeof(err)) : session_open(&s, &o, err, sizeof(err))) {
		fprintf(stderr, "perftop: %s\n", err);
		session_close(&s);
		close_output(out, &o, 1);
		options_free(&o);
		return 1;
	}
	if (export_open(&x, &s, &o, err, sizeof(err))) {
		fprintf(stderr, "perftop: %s\n", err);
		session_close(&s);
		close_output(out, &o, 1);
		options_free(&o);
		return 1;
	}
	if (o.batch || headless) {
		rc = close_output(out, &o, run_batch(&s, &o, x, out));
	} else {
		struct tui_hook hook = { .interval = tui_export, .arg = x };

		rc = tui_run(&s, &o, x ? &hook : NULL);
	}
	/* --record: the file completed, and said so (the terminal is back). */
	if (session_rec_finish(&s, err, sizeof(err)) != 0 && rc == 0)
		rc = 1;
	if (err[0])
		fprintf(stderr, "perftop: %s\n", err);
#ifndef __SANITIZE_ADDRESS__
	/* A live view that quit: the terminal is restored and nothing is
	 * written after. The kernel takes the events, rings and memory back
	 * at once at exit; torn down piece by piece they cost 3-4 ms, each
	 * munmap a TLB shootdown on the other CPUs. (Sanitizer builds free
	 * everything: their leak check covers the live view.) */
	if (!o.batch && !headless && x == NULL) {
		fflush(NULL);
		_exit(rc);
	}
#endif
	export_close(x);
	session_close(&s);
	baseline_free(baseline);
	options_free(&o);
	return rc;
}
