/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "clock.h"
#include "export.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "httpd.h"
#include "metrics.h"
#include "offmetrics.h"
#include "pprof.h"
#include "profadd.h"
#include "push.h"
#include "session.h"
#include "textfile.h"
#include "util.h"

#define EXPORT_WINDOWS 8
/* A format is rendered each interval while asked for within this many
 * seconds (Prometheus asks for one of the two), else only once asked. */
#define EXPORT_FORMAT_IDLE 60.0
#define EXPORT_PUSH_GRACE 3.0

/* A profile being taken: the main loop adds each interval into it until
 * `want` seconds have passed, then the waiting request takes it. */
struct export_window {
	struct pprof *prof;
	double start, want;
	bool busy, done;
	bool started;                     /* counting: the baseline was current when it began */
};

/* A rendered page, shared by the exporter and the responses that send it:
 * served without a copy, freed by whoever lets go of it last. */
struct export_page {
	unsigned refs;                    /* atomic */
	size_t len;
	char *text;
};

struct exporter {
	const struct options *o;
	struct metrics *met;
	struct offmetrics *off;           /* --off-cpu's family */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct export_page *page[2];      /* PROMTEXT_PROM, PROMTEXT_OPENMETRICS; under mu */
	uint64_t page_pub[2];             /* the publish that rendered each; under mu */
	uint64_t published;               /* publishes so far; under mu */
	double asked[2];                  /* monotonic time a client last asked for each; under mu */
	struct export_window win[EXPORT_WINDOWS];
	struct pprof *spare;              /* a taken window's, names kept for the next; under mu */
	struct pprof *whole;              /* -b --format pprof: the whole run */
	bool whole_stacks;                /* -g: whole stacks, from the call-path tree at the end */
	struct session *s;                /* owns the interval (session_interval) */
	double whole_start;
	struct httpd *http;
	bool stopping;
	uint64_t intervals, http_requests, http_rejected;
	uint64_t renders;                 /* pages rendered so far (tests: none unasked) */
	double cpu;                       /* seconds spent exporting, all threads; under mu */
	double last_end;                  /* monotonic time of the last interval's end */
	bool clock_event;                 /* event 0 counts nanoseconds (cpu-clock, task-clock) */
	struct textfile *tf;
	struct push *push;                /* --push: the window being filled */
	struct pprof *push_win;
	double push_start, push_start_wall;
	char focus_comm[AGG_COMM_MAX];    /* -p or -t of one task: its comm, for --push's name */
	int statm;                        /* /proc/self/statm, -1 until opened */
};

void export_count_cpu(struct exporter *x, double secs)
{
	pthread_mutex_lock(&x->mu);
	x->cpu += secs;
	pthread_mutex_unlock(&x->mu);
}

static bool is_clock(const char *name)
{
	return strncmp(name, "cpu-clock", 9) == 0 || strncmp(name, "task-clock", 10) == 0;
}

/* pprof's sample period, in nanoseconds (sample_type cpu). */
static int64_t period_ns(const struct exporter *x)
{
	if (x->o->period)
		return x->clock_event ? (int64_t)x->o->period : 0;
	return x->o->freq ? (int64_t)(1e9 / (double)x->o->freq) : 0;
}

/* CPU nanoseconds of n samples: a clock event's period is nanoseconds;
 * otherwise at -F each sample stands for 1/F s of a CPU; with -c on another
 * event there is no time to give (0). */
static uint64_t nanos_of(const struct exporter *x, uint64_t samples, uint64_t period)
{
	if (x->clock_event)
		return period;
	if (x->o->period == 0 && x->o->freq)
		return (uint64_t)((double)samples * 1e9 / (double)x->o->freq);
	return 0;
}

/* statm stays open: reread each interval, not reopened (fewer syscalls). */
static void own_usage(struct exporter *x, struct metrics_figures *f)
{
	struct rusage ru;
	unsigned long size, rss;
	char buf[128];
	ssize_t n;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		f->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
				 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	if (x->statm < 0)
		x->statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (x->statm < 0)
		return;
	n = pread(x->statm, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu", &size, &rss) == 2)
		f->rss_bytes = (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

void export_page_put(void *pg)
{
	struct export_page *p = pg;

	if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		free(p->text);
		free(p);
	}
}

/* Renders the pages asked for and swaps them in. Nothing asked (no client
 * lately, no textfile): perftop's own figures are not even read. */
static void publish(struct exporter *x, struct agg *a, const struct session *s, double interval)
{
	struct metrics_figures f = {
		.interval = interval,
		.intervals = x->intervals,
	};
	struct session_stats st;
	struct export_page *page[2] = { NULL, NULL };
	bool want[2];

	pthread_mutex_lock(&x->mu);
	for (int i = 0; i < 2; i++)
		want[i] = x->page[i] == NULL || clock_mono_s() - x->asked[i] < EXPORT_FORMAT_IDLE ||
			  (i == PROMTEXT_PROM && x->tf);
	f.http_requests = x->http_requests;
	f.http_rejected = x->http_rejected;
	f.export_cpu_seconds = x->cpu;
	f.off = x->off;
	pthread_mutex_unlock(&x->mu);
	if (want[0] || want[1]) {
		own_usage(x, &f);
		session_stats(s, &st);
		f.backlog_bytes = st.eng.backlog;
		f.records = st.eng.records;
		f.tracking_lost = st.tracking_lost;
		textfile_figures(x->tf, &f);
		if (x->push) {
			struct push_stats ps;

			push_get_stats(x->push, &ps);
			f.push_sent = ps.sent;
			f.push_failed = ps.failed;
			f.push_dropped = ps.dropped;
		}
	}
	for (int i = 0; i < 2; i++) {
		if (!want[i] || (page[i] = calloc(1, sizeof(*page[i]))) == NULL)
			continue;
		if (metrics_render(x->met, a, &f, (enum promtext_fmt)i, &page[i]->text, &page[i]->len)) {
			free(page[i]);
			page[i] = NULL; /* the old page stays */
			continue;
		}
		page[i]->refs = 1;
		x->renders++;
	}
	if (x->tf && page[PROMTEXT_PROM])
		textfile_write(x->tf, page[PROMTEXT_PROM]->text, page[PROMTEXT_PROM]->len);
	pthread_mutex_lock(&x->mu);
	x->published++;
	for (int i = 0; i < 2; i++) {
		if (page[i] == NULL)
			continue;
		export_page_put(x->page[i]);
		x->page[i] = page[i];
		x->page_pub[i] = x->published;
	}
	pthread_cond_broadcast(&x->cv); /* pages waited for */
	pthread_mutex_unlock(&x->mu);
}

static bool windows_open(struct exporter *x)
{
	bool any = (x->whole != NULL && !x->whole_stacks) || x->push_win != NULL;

	for (size_t i = 0; i < EXPORT_WINDOWS && !any; i++)
		any = x->win[i].busy && !x->win[i].done;
	return any;
}

/* What each (process, symbol) pair took this interval goes into every
 * started window, with the process's comm as a label; under mu, so a request
 * never sees a half-added interval. agg keeps the pairs only while a window
 * is open: one opened now starts at this interval's end, once they are kept. */
static void add_symbols(struct exporter *x, struct agg *a)
{
	const struct agg_pair *pairs;
	double now = clock_mono_s();
	size_t n = agg_pairs(a, &pairs);
	bool open;

	pthread_mutex_lock(&x->mu);
	open = windows_open(x);
	for (size_t i = 0; i < n && open; i++) {
		const struct agg_sym *r = pairs[i].sym;
		const char *comm = pairs[i].task->comm;
		uint64_t ds = pairs[i].samples, ns = nanos_of(x, ds, pairs[i].period);

		for (size_t w = 0; w < EXPORT_WINDOWS; w++)
			if (x->win[w].busy && x->win[w].started && !x->win[w].done)
				profadd_pair(x->win[w].prof, r, comm, ds, ns);
		if (x->whole)
			profadd_pair(x->whole, r, comm, ds, ns);
		if (x->push_win)
			profadd_pair(x->push_win, r, comm, ds, ns);
	}
	if (agg_pairs_keep(a, open) == 0) {
		for (size_t w = 0; w < EXPORT_WINDOWS; w++) {
			struct export_window *win = &x->win[w];

			if (win->busy && !win->started) {
				win->started = true;
				win->start = now;
			}
		}
	}
	for (size_t w = 0; w < EXPORT_WINDOWS; w++) {
		struct export_window *win = &x->win[w];

		/* Within half a tick of the wish: the next tick would overshoot more. */
		if (win->busy && win->started && !win->done && now - win->start >= win->want - session_interval(x->s) / 2)
			win->done = true;
	}
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

static void window_meta(const struct exporter *x, double dur, struct pprof_meta *m);

/* Hands the push window to the push thread and opens the next one. */
static void push_flush(struct exporter *x, bool force)
{
	double now = clock_mono_s(), wall = clock_wall_s();
	struct pprof_meta m;
	struct pprof *next;

	if (!x->push || !x->push_win || (!force && now - x->push_start < x->o->push_every - session_interval(x->s) / 2))
		return;
	next = force ? NULL : pprof_new();
	if (!force && next == NULL)
		return; /* out of memory: the window goes on */
	window_meta(x, now - x->push_start, &m);
	push_window(x->push, x->push_win, &m, x->push_start_wall, wall, x->focus_comm[0] ? x->focus_comm : NULL);
	x->push_win = next;
	x->push_start = now;
	x->push_start_wall = wall;
}

/* One process focused: its name as it is now (an exec renames it). */
static void focus_comm(struct exporter *x, const struct session *s)
{
	const char *c = x->o->npids == 1 ? session_comm(s, x->o->pids[0]) : NULL;

	if (c)
		strlcpy(x->focus_comm, c, sizeof(x->focus_comm));
}

void export_interval(struct exporter *x, struct agg *a, const struct session *s)
{
	double now, len, cpu0;

	if (x == NULL)
		return;
	cpu0 = clock_thread_cpu_s();
	now = clock_mono_s();
	len = now - x->last_end;
	x->last_end = now;
	x->intervals++;
	focus_comm(x, s);
	metrics_update(x->met, a);
	offmetrics_update(x->off, s);
	add_symbols(x, a);
	push_flush(x, false);
	publish(x, a, s, len);
	export_count_cpu(x, clock_thread_cpu_s() - cpu0);
	/* After the count: resuming is the server's work, counted by its thread. */
	httpd_wake(x->http);
}

static void page_get(struct exporter *x, enum promtext_fmt fmt, bool wait, void **pg, const char **text,
		     size_t *len)
{
	static const char empty[] = "";
	struct export_page *p;
	struct timespec deadline;

	pthread_mutex_lock(&x->mu);
	x->asked[fmt] = clock_mono_s();
	/* Not rendered at the last interval's end (nobody asked for it lately):
	 * the next one renders it. The deadline guards a loop that stopped. */
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 2 + (time_t)(2 * session_interval(x->s));
	while (wait && x->page_pub[fmt] != x->published && !x->stopping)
		if (pthread_cond_timedwait(&x->cv, &x->mu, &deadline) == ETIMEDOUT)
			break;
	p = x->page[fmt];
	if (p)
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&x->mu);
	*pg = p;
	*text = p ? p->text : empty;
	*len = p ? p->len : 0;
}

int export_page(struct exporter *x, enum promtext_fmt fmt, void **pg, const char **text, size_t *len)
{
	page_get(x, fmt, true, pg, text, len);
	return 0;
}

void export_page_now(struct exporter *x, enum promtext_fmt fmt, void **pg, const char **text, size_t *len)
{
	page_get(x, fmt, false, pg, text, len);
}

bool export_page_ready(struct exporter *x, enum promtext_fmt fmt)
{
	bool r;

	pthread_mutex_lock(&x->mu);
	x->asked[fmt] = clock_mono_s();
	r = x->page_pub[fmt] == x->published || x->stopping;
	pthread_mutex_unlock(&x->mu);
	return r;
}

uint64_t export_renders(struct exporter *x)
{
	uint64_t n;

	pthread_mutex_lock(&x->mu);
	n = x->renders;
	pthread_mutex_unlock(&x->mu);
	return n;
}

void export_count_request(struct exporter *x, bool rejected)
{
	pthread_mutex_lock(&x->mu);
	if (rejected)
		x->http_rejected++;
	else
		x->http_requests++;
	pthread_mutex_unlock(&x->mu);
}

static void window_meta(const struct exporter *x, double dur, struct pprof_meta *m)
{
	m->time_nanos = (int64_t)((clock_wall_s() - dur) * 1e9);
	m->duration_nanos = (int64_t)(dur * 1e9);
	m->period = period_ns(x);
	m->time_type = NULL;
}

int export_profile_open(struct exporter *x, unsigned secs)
{
	struct export_window *win = NULL;
	size_t i;

	pthread_mutex_lock(&x->mu);
	for (i = 0; i < EXPORT_WINDOWS && win == NULL; i++)
		if (!x->win[i].busy)
			win = &x->win[i];
	if (win == NULL || x->stopping) {
		pthread_mutex_unlock(&x->mu);
		return -EBUSY;
	}
	/* The last window's names: most of its symbols come again, found by
	 * key rather than interned anew (system-wide, most of the pairs' cost). */
	win->prof = x->spare ? x->spare : pprof_new();
	x->spare = NULL;
	if (win->prof == NULL) {
		pthread_mutex_unlock(&x->mu);
		return -ENOMEM;
	}
	win->busy = true;
	win->done = false;
	win->started = false;
	win->start = clock_mono_s();
	win->want = secs;
	pthread_mutex_unlock(&x->mu);
	return (int)(i - 1);
}

bool export_profile_ready(struct exporter *x, int id)
{
	bool r;

	pthread_mutex_lock(&x->mu);
	r = x->win[id].done || x->stopping;
	pthread_mutex_unlock(&x->mu);
	return r;
}

int export_profile_take(struct exporter *x, int id, uint8_t **out, size_t *len)
{
	struct export_window *win = &x->win[id];
	struct pprof *spare;
	struct pprof_meta m;
	int rc;

	pthread_mutex_lock(&x->mu);
	win->done = true;
	pthread_mutex_unlock(&x->mu);
	/* Done: the main loop no longer touches this window. */
	window_meta(x, clock_mono_s() - win->start, &m);
	rc = out ? pprof_build(win->prof, &m, out, len) : 0;
	spare = pprof_recycle(win->prof);
	pthread_mutex_lock(&x->mu);
	if (x->spare == NULL) {
		x->spare = spare;
		spare = NULL;
	}
	win->prof = NULL;
	win->busy = false;
	pthread_mutex_unlock(&x->mu);
	pprof_free(spare); /* one kept is enough */
	return rc;
}

/* Ticks end a window, and render a page; the limit only guards against a
 * loop that stopped ticking (then the profile holds what came). */
double export_wait_limit(struct exporter *x, unsigned secs)
{
	return secs ? (double)secs + 10 + 2 * session_interval(x->s) : 2 + 2 * session_interval(x->s);
}

int export_profile(struct exporter *x, unsigned secs, uint8_t **out, size_t *len)
{
	struct timespec deadline;
	int id = export_profile_open(x, secs);

	if (id < 0)
		return id;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (time_t)export_wait_limit(x, secs);
	pthread_mutex_lock(&x->mu);
	while (!x->win[id].done && !x->stopping)
		if (pthread_cond_timedwait(&x->cv, &x->mu, &deadline) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&x->mu);
	return export_profile_take(x, id, out, len);
}

/* The server reaches the exporter through this table alone. */
static const struct httpd_ops http_ops = {
	.page_ready = export_page_ready,
	.page_now = export_page_now,
	.page_put = export_page_put,
	.profile_open = export_profile_open,
	.profile_ready = export_profile_ready,
	.profile_take = export_profile_take,
	.wait_limit = export_wait_limit,
	.count_request = export_count_request,
	.count_cpu = export_count_cpu,
};

int export_open(struct exporter **out, struct session *s, const struct options *o, char *err, size_t errlen)
{
	struct exporter *x;
	int rc;

	*out = NULL;
	if (!options_exporting(o) && !(o->batch && o->format == DUMP_PPROF))
		return 0;
	x = calloc(1, sizeof(*x));
	if (x == NULL || (x->met = metrics_new(o->metrics_comms, o->metrics_symbols)) == NULL ||
	    (x->off = offmetrics_new(o->metrics_comms)) == NULL) {
		if (x) {
			metrics_free(x->met);
			offmetrics_free(x->off);
		}
		free(x);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->statm = -1;
	x->o = o;
	x->s = s;
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	x->clock_event = is_clock(agg_event(s->agg, 0)->name);
	x->last_end = clock_mono_s();
	x->whole_start = x->last_end;
	x->whole_stacks = o->cg.mode != CALLGRAPH_NONE || o->offcpu; /* --off-cpu: its stacks alone */
	if (o->batch && o->format == DUMP_PPROF && (x->whole = pprof_new()) == NULL) {
		snprintf(err, errlen, "out of memory");
		export_close(x);
		return -ENOMEM;
	}
	if (o->textfile && (rc = textfile_open(&x->tf, o->textfile, err, errlen)) != 0) {
		export_close(x);
		return rc;
	}
	if (o->push) {
		focus_comm(x, s);
		x->push_start = clock_mono_s();
		x->push_start_wall = clock_wall_s();
		if ((x->push_win = pprof_new()) == NULL) {
			snprintf(err, errlen, "out of memory");
			export_close(x);
			return -ENOMEM;
		}
		rc = push_open(&x->push, o->push, o->period ? 0 : o->freq, err, errlen);
		if (rc) {
			export_close(x);
			return rc;
		}
	}
	/* The whole run and the pushed windows start with the first interval. */
	if (windows_open(x) && agg_pairs_keep(s->agg, true)) {
		snprintf(err, errlen, "out of memory");
		export_close(x);
		return -ENOMEM;
	}
	/* A page before the first interval ends: Prometheus may scrape at once. */
	publish(x, s->agg, s, 0);
	if (o->listen && (rc = httpd_start(&x->http, o->listen, &http_ops, x, err, errlen)) != 0) {
		export_close(x);
		return rc;
	}
	*out = x;
	return 0;
}

/* With call graphs, a stack's CPU nanoseconds are its share of the run's:
 * the tree counts samples, not their periods. */
static double stack_nanos(const struct exporter *x, struct agg *a)
{
	const struct agg_event *e = agg_event(a, 0);

	if (x->clock_event)
		return e->samples_total ? (double)e->period_total / (double)e->samples_total : 0;
	return x->o->period == 0 && x->o->freq ? 1e9 / (double)x->o->freq : 0;
}

static int write_whole(struct exporter *x, int fd, char *err, size_t errlen)
{
	struct pprof_meta m;
	uint8_t *buf;
	size_t len;
	int rc;

	window_meta(x, clock_mono_s() - x->whole_start, &m);
	if (x->o->offcpu && x->s->wait) {
		/* Blocked time: the wait agg counts a span as its microseconds. */
		m.time_type = "off_cpu";
		rc = profadd_stacks(x->whole, x->s->wait, 0, 1000.0);
	} else {
		rc = x->whole_stacks ? profadd_stacks(x->whole, x->s->agg, 0, stack_nanos(x, x->s->agg)) : 0;
	}
	if (rc == 0)
		rc = pprof_build(x->whole, &m, &buf, &len);
	if (rc) {
		snprintf(err, errlen, "cannot build the profile: %s", strerror(-rc));
		return rc;
	}
	/* Opened before the run, emptied only now: a run that fails leaves
	 * what the file held. */
	rc = ftruncate(fd, 0) ? -errno : util_write_full(fd, buf, len);
	free(buf);
	if (rc)
		snprintf(err, errlen, "cannot write %s: %s", x->o->output, strerror(-rc));
	return rc;
}

/* The last window goes, queued ones get a few seconds; what never went
 * out is said once on stderr (/metrics counted it meanwhile). */
static void push_finish(struct exporter *x)
{
	struct push_stats ps;
	size_t left;

	if (x->push == NULL)
		return;
	pthread_mutex_lock(&x->mu);
	push_flush(x, true);
	pthread_mutex_unlock(&x->mu);
	push_get_stats(x->push, &ps);
	left = push_close(x->push, EXPORT_PUSH_GRACE);
	x->push = NULL;
	if (left + ps.failed + ps.dropped)
		fprintf(stderr, "perftop: --push: %zu profiles not sent (%llu refused, %llu dropped with the queue "
			"full, %zu unsent at exit): is the server at %s up?\n", (size_t)(left + ps.failed + ps.dropped),
			(unsigned long long)ps.failed, (unsigned long long)ps.dropped, left, x->o->push);
}

int export_finish(struct exporter *x, int pprof_fd, char *err, size_t errlen)
{
	if (x == NULL)
		return 0;
	pthread_mutex_lock(&x->mu);
	x->stopping = true;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	httpd_wake(x->http); /* waiting requests take what they have */
	push_finish(x);
	if (x->whole && pprof_fd < 0) {
		snprintf(err, errlen, "the pprof file was not opened");
		return -EBADF;
	}
	return x->whole ? write_whole(x, pprof_fd, err, errlen) : 0;
}

void export_close(struct exporter *x)
{
	if (x == NULL)
		return;
	pthread_mutex_lock(&x->mu);
	x->stopping = true;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	httpd_wake(x->http);
	httpd_stop(x->http); /* joins the server's thread */
	push_finish(x);
	pprof_free(x->push_win);
	textfile_close(x->tf);
	for (int i = 0; i < 2; i++)
		export_page_put(x->page[i]);
	pprof_free(x->whole);
	pprof_free(x->spare);
	/* Windows no request took (the server is stopped): theirs to free. */
	for (int i = 0; i < EXPORT_WINDOWS; i++)
		pprof_free(x->win[i].prof);
	metrics_free(x->met);
	offmetrics_free(x->off);
	if (x->statm >= 0)
		close(x->statm);
	pthread_cond_destroy(&x->cv);
	pthread_mutex_destroy(&x->mu);
	free(x);
}

bool export_push_stats(struct exporter *x, uint64_t *sent, uint64_t *failed, uint64_t *dropped)
{
	struct push_stats ps;

	if (x == NULL || x->push == NULL)
		return false;
	push_get_stats(x->push, &ps);
	*sent = ps.sent;
	*failed = ps.failed;
	*dropped = ps.dropped;
	return true;
}
