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
#include "options.h"
#include "session.h"
#include "tui.h"

struct batch {
	struct session *s;
	const struct options *o;
	FILE *out;
	unsigned long iteration;
	int rc;            /* exit code once stopped */
	int write_rc;      /* of the last dump_interval */
	const char *pending_final;
	char final[128];
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void batch_show(void *arg, double lap)
{
	struct batch *b = arg;
	struct dump_meta m = {
		.time = wall_now(),
		.interval = lap,
		.iteration = ++b->iteration,
		.freq = b->o->freq,
		.period = b->o->period,
		.final = b->pending_final,
		.threads = b->o->threads,
		.stats = b->o->stats,
	};

	b->write_rc = dump_interval(b->out, b->o->format, b->s, &m, b->o->rows);
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

static int run_batch(struct session *s, const struct options *o)
{
	struct batch b = { .s = s, .o = o, .out = stdout };
	struct engine_handlers h = {
		.arg = &b, .tick = batch_tick, .signal = batch_signal, .pid_exit = batch_pid_exit,
	};
	int rc;

	if (o->output) {
		b.out = fopen(o->output, "we");
		if (b.out == NULL) {
			fprintf(stderr, "perftop: cannot open %s: %s\n", o->output, strerror(errno));
			return 1;
		}
	}
	if (dump_begin(b.out, o->format, s, o->threads)) {
		fprintf(stderr, "perftop: cannot write the dump: %s\n", strerror(errno));
		return 1;
	}
	rc = session_run(s, &h);
	if (rc) {
		fprintf(stderr, "perftop: event loop failed: %s\n", strerror(-rc));
		b.rc = 1;
	}
	if (b.out != stdout && fclose(b.out) == EOF && b.rc == 0) {
		fprintf(stderr, "perftop: cannot write %s: %s\n", o->output, strerror(errno));
		b.rc = 1;
	}
	return b.rc;
}

int main(int argc, char **argv)
{
	struct options o;
	struct session s;
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
	if (!o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		/* The command line is right; where it runs is not: a runtime error. */
		fputs("perftop: the live view needs a terminal: use -b for a headless dump\n", stderr);
		options_free(&o);
		return 1;
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
	rc = o.batch ? run_batch(&s, &o) : tui_run(&s, &o);
	session_close(&s);
	options_free(&o);
	return rc;
}
