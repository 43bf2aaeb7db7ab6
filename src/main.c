/* perftop: a top-like live view of perf_event samples. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dump.h"
#include "export.h"
#include "options.h"
#include "session.h"
#include "tui.h"

struct batch {
	struct session *s;
	const struct options *o;
	FILE *out;         /* NULL: no dump (headless exporter, pprof file) */
	struct exporter *x;
	unsigned long iteration;
	int rc;            /* exit code once stopped */
	char final[128];
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes the interval so far; false when the reader is gone or writing failed. */
static bool batch_write(struct batch *b, const char *final)
{
	struct dump_meta m = {
		.time = wall_now(),
		.interval = session_lap(b->s),
		.iteration = ++b->iteration,
		.target = b->s->target,
		.freq = b->o->freq,
		.period = b->o->period,
		.notices = b->s->notices,
		.nnotices = b->s->nnotices,
		.final = final,
		.stats = b->o->stats,
		.cnt = b->s->cnt,
		.threads = b->o->threads,
		.comm_of = session_comm,
		.comm_arg = b->s,
		.tracking_lost = b->s->tracking_lost,
	};
	int rc;

	if (b->s->cnt)
		counters_read(b->s->cnt);
	session_sample(b->s);
	engine_get_stats(b->s->eng, &m.est);
	m.push = export_push_stats(b->x, &m.push_sent, &m.push_failed, &m.push_dropped);
	symbols_stats(b->s->syms, &m.sst);
	export_interval(b->x, b->s->agg, b->s);
	rc = b->out ? dump_interval(b->out, b->o->format, b->s->agg, &m, b->o->rows) : 0;
	session_roll(b->s, 0);
	if (rc == -EPIPE) {
		b->rc = 0; /* perftop -b | head: the reader had enough */
		return false;
	}
	if (rc) {
		fprintf(stderr, "perftop: cannot write the dump: %s\n", strerror(-rc));
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
		engine_flush(b->s->eng);
	if (!batch_write(b, NULL) || (b->o->iterations && (long)b->iteration >= b->o->iterations))
		engine_stop(b->s->eng);
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

	if (b->s->focus_left > 0)
		b->s->focus_left--;
	if (b->s->focus_left == 0) {
		snprintf(b->final, sizeof(b->final), "process %d exited", (int)pid);
		batch_write(b, b->final);
		engine_stop(b->s->eng);
	}
}

static int run_batch(struct session *s, const struct options *o, struct exporter *x)
{
	bool dumping = o->batch && o->format != DUMP_PPROF;
	struct batch b = { .s = s, .o = o, .out = dumping ? stdout : NULL, .x = x };
	char err[1024];
	struct engine_handlers h = {
		.record = session_record, .record_arg = s,
		.arg = &b, .tick = batch_tick, .signal = batch_signal,
		.pid_exit = batch_pid_exit,
	};
	int rc;

	if (dumping && o->output) {
		b.out = fopen(o->output, "we");
		if (b.out == NULL) {
			fprintf(stderr, "perftop: cannot open %s: %s\n", o->output, strerror(errno));
			return 1;
		}
	}
	if (b.out && dump_begin(b.out, o->format, s->agg, s->cnt)) {
		fprintf(stderr, "perftop: cannot write the dump: %s\n", strerror(errno));
		return 1;
	}
	rc = engine_run(s->eng, &h);
	if (rc) {
		fprintf(stderr, "perftop: event loop failed: %s\n", strerror(-rc));
		b.rc = 1;
	}
	if (export_finish(x, err, sizeof(err))) {
		fprintf(stderr, "perftop: %s\n", err);
		b.rc = 1;
	}
	if (b.out && b.out != stdout && fclose(b.out) == EOF && b.rc == 0) {
		fprintf(stderr, "perftop: cannot write %s: %s\n", o->output, strerror(errno));
		b.rc = 1;
	}
	return b.rc;
}

int main(int argc, char **argv)
{
	struct options o;
	struct session s;
	struct exporter *x = NULL;
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
		fputs("perftop: the live view needs a terminal: use -b for a headless dump\n", stderr);
		options_free(&o);
		return 2;
	}
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
	if (session_open(&s, &o, err, sizeof(err))) {
		fprintf(stderr, "perftop: %s\n", err);
		session_close(&s);
		options_free(&o);
		return 1;
	}
	if (export_open(&x, &s, &o, err, sizeof(err))) {
		fprintf(stderr, "perftop: %s\n", err);
		session_close(&s);
		options_free(&o);
		return 1;
	}
	rc = o.batch || headless ? run_batch(&s, &o, x) : tui_run(&s, &o, x);
	export_close(x);
	session_close(&s);
	options_free(&o);
	return rc;
}
