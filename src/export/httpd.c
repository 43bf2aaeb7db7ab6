/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "clock.h"
#include "httpd.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "httpgate.h"
#include "httpq.h"
#include "promtext.h"

/* libmicrohttpd is loaded by --listen, not linked: it brings gnutls,
 * p11-kit and nettle, whose relocations and constructors would make
 * ~2 MiB of every run resident, most runs serving nothing. The names
 * below stay libmicrohttpd's, so the handlers read as its API. */
static struct {
	void *lib;
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_buffer_with_free_callback_cls) *create_response_with_free;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_suspend_connection) *suspend_connection;
	__typeof__(MHD_resume_connection) *resume_connection;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_add_connection) *add_connection;
} mhd;

#define MHD_start_daemon mhd.start_daemon
#define MHD_stop_daemon mhd.stop_daemon
#define MHD_create_response_from_buffer mhd.create_response_from_buffer
#define MHD_create_response_from_buffer_with_free_callback_cls mhd.create_response_with_free
#define MHD_add_response_header mhd.add_response_header
#define MHD_queue_response mhd.queue_response
#define MHD_destroy_response mhd.destroy_response
#define MHD_lookup_connection_value mhd.lookup_connection_value
#define MHD_suspend_connection mhd.suspend_connection
#define MHD_resume_connection mhd.resume_connection
#define MHD_run mhd.run
#define MHD_get_timeout mhd.get_timeout
#define MHD_get_daemon_info mhd.get_daemon_info
#define MHD_add_connection mhd.add_connection

/* Once, from the main thread (httpd_start); kept loaded for the run. */
static int mhd_load(const char *spec, char *err, size_t errlen)
{
	struct { void **fn; const char *name; } want[] = {
		{ (void **)&mhd.start_daemon, "MHD_start_daemon" },
		{ (void **)&mhd.stop_daemon, "MHD_stop_daemon" },
		{ (void **)&mhd.create_response_from_buffer, "MHD_create_response_from_buffer" },
		{ (void **)&mhd.create_response_with_free, "MHD_create_response_from_buffer_with_free_callback_cls" },
		{ (void **)&mhd.add_response_header, "MHD_add_response_header" },
		{ (void **)&mhd.queue_response, "MHD_queue_response" },
		{ (void **)&mhd.destroy_response, "MHD_destroy_response" },
		{ (void **)&mhd.lookup_connection_value, "MHD_lookup_connection_value" },
		{ (void **)&mhd.suspend_connection, "MHD_suspend_connection" },
		{ (void **)&mhd.resume_connection, "MHD_resume_connection" },
		{ (void **)&mhd.run, "MHD_run" },
		{ (void **)&mhd.get_timeout, "MHD_get_timeout" },
		{ (void **)&mhd.get_daemon_info, "MHD_get_daemon_info" },
		{ (void **)&mhd.add_connection, "MHD_add_connection" },
	};
	void *lib;

	if (mhd.lib)
		return 0;
	if ((lib = dlopen(PERFTOP_MHD_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(err, errlen, "--listen %s: cannot load the HTTP library (%s): install libmicrohttpd (Debian: libmicrohttpd12)",
			 spec, dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if ((*want[i].fn = dlsym(lib, want[i].name)) == NULL) {
			snprintf(err, errlen, "--listen %s: %s lacks %s", spec, PERFTOP_MHD_SONAME, want[i].name);
			dlclose(lib);
			return -ENOENT;
		}
	mhd.lib = lib;
	return 0;
}

/* A request that waits (a profile's window, a page not rendered yet) is
 * suspended, not blocked: the one server thread goes on serving the others,
 * and the main loop resumes it at the interval that makes it ready, or the
 * server thread at its limit (libmicrohttpd never times a suspended
 * connection out: a stalled main loop would hold it for ever). */
struct waiter {
	struct MHD_Connection *c;
	enum httpq_route kind;            /* HTTPQ_METRICS or HTTPQ_PROFILE */
	enum promtext_fmt fmt;            /* metrics: the page asked for */
	int win;                          /* profile: its window, -1 once taken */
	bool suspended;                   /* in h->waiting; under h->mu */
	double limit;                     /* monotonic time it is answered with what there is */
	LIST_ENTRY(waiter) link;
};

struct httpd {
	struct MHD_Daemon *d;
	const struct httpd_ops *ops;
	struct exporter *x;
	struct httpgate *gate;             /* accepts, and refuses junk, before libmicrohttpd */
	int ep, wake;                     /* the server thread's epoll; eventfd that wakes it (a resume, the stop) */
	pthread_t thread;
	pthread_mutex_t mu;               /* taken before the exporter's */
	bool stopping;                    /* under mu */
	LIST_HEAD(, waiter) waiting;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, void *body,
			     size_t len, bool must_free)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (r == NULL) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) == MHD_NO) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *msg)
{
	char *b = strdup(msg);

	if (b == NULL)
		return MHD_NO;
	return reply(c, status, "text/plain; charset=utf-8", b, strlen(b), true);
}

static bool ready(struct httpd *h, const struct waiter *w)
{
	return w->kind == HTTPQ_PROFILE ? h->ops->profile_ready(h->x, w->win) : h->ops->page_ready(h->x, w->fmt);
}

/* Suspends c until httpd_wake finds w ready, or secs of intervals (0: the
 * next one) and a stalled loop's grace have passed. Under h->mu, so the
 * main loop can never resume it before it is suspended. */
static enum MHD_Result wait_for(struct httpd *h, struct MHD_Connection *c, struct waiter *w, unsigned secs)
{
	w->limit = clock_mono_s() + h->ops->wait_limit(h->x, secs);
	pthread_mutex_lock(&h->mu);
	MHD_suspend_connection(c);
	w->suspended = true;
	LIST_INSERT_HEAD(&h->waiting, w, link);
	pthread_mutex_unlock(&h->mu);
	return MHD_YES;
}

/* Under h->mu. libmicrohttpd (0.9.75, external polling) does not wake its
 * epoll set on a resume: the eventfd wakes the server thread, whose next
 * run answers the request. */
static void resume(struct httpd *h, struct waiter *w)
{
	uint64_t one = 1;

	LIST_REMOVE(w, link);
	w->suspended = false;
	MHD_resume_connection(w->c);
	if (write(h->wake, &one, sizeof(one)) < 0)
		return; /* only when the counter is full: the thread is being woken anyway */
}

void httpd_wake(struct httpd *h)
{
	struct waiter *w, *next;

	if (h == NULL)
		return;
	pthread_mutex_lock(&h->mu);
	LIST_FOREACH_SAFE(w, &h->waiting, link, next)
		if (ready(h, w))
			resume(h, w);
	pthread_mutex_unlock(&h->mu);
}

/* Resumes the waiters past their limit (answered with what there is: the
 * profile's window so far, the last page); under h->mu. The nearest limit
 * left, or 0 with none. */
static double expire(struct httpd *h, double now)
{
	struct waiter *w, *next;
	double nearest = 0;

	LIST_FOREACH_SAFE(w, &h->waiting, link, next) {
		if (w->limit <= now)
			resume(h, w);
		else if (nearest == 0 || w->limit < nearest)
			nearest = w->limit;
	}
	return nearest;
}

static struct waiter *waiter_new(struct MHD_Connection *c, enum httpq_route kind, void **state)
{
	struct waiter *w = calloc(1, sizeof(*w));

	if (w) {
		w->c = c;
		w->kind = kind;
		w->win = -1;
		*state = w;
	}
	return w;
}

static enum MHD_Result serve_metrics(struct httpd *h, struct MHD_Connection *c, void **state)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	bool om = promtext_wants_openmetrics(accept);
	enum promtext_fmt fmt = om ? PROMTEXT_OPENMETRICS : PROMTEXT_PROM;
	struct MHD_Response *r;
	enum MHD_Result rc;
	struct waiter *w;
	const char *page;
	void *pg;
	size_t len;

	/* Not rendered at the last interval (nobody asked lately): the next one will be. */
	if (*state == NULL && !h->ops->page_ready(h->x, fmt)) {
		if ((w = waiter_new(c, HTTPQ_METRICS, state)) == NULL)
			return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "perftop: out of memory\n");
		w->fmt = fmt;
		return wait_for(h, c, w, 0);
	}
	h->ops->page_now(h->x, fmt, &pg, &page, &len);
	/* The published page itself, no copy: the response lets go of it when sent. */
	r = MHD_create_response_from_buffer_with_free_callback_cls(len, (void *)page, h->ops->page_put, pg);
	if (r == NULL) {
		h->ops->page_put(pg);
		return MHD_NO;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				    om ? PROMTEXT_CT_OPENMETRICS : PROMTEXT_CT_PROM) == MHD_NO) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result serve_profile(struct httpd *h, struct MHD_Connection *c, void **state)
{
	const char *arg;
	struct waiter *w = *state;
	char err[256];
	uint8_t *body;
	unsigned secs;
	size_t len;
	int rc;

	if (w) { /* resumed: the window is over */
		rc = h->ops->profile_take(h->x, w->win, &body, &len);
		w->win = -1;
		if (rc)
			return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "perftop: cannot build the profile\n");
		return reply(c, MHD_HTTP_OK, "application/octet-stream", body, len, true);
	}
	arg = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	if (httpq_parse_seconds(arg, &secs, err, sizeof(err))) {
		h->ops->count_request(h->x, true);
		return text(c, MHD_HTTP_BAD_REQUEST, err);
	}
	if ((w = waiter_new(c, HTTPQ_PROFILE, state)) == NULL)
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "perftop: out of memory\n");
	rc = h->ops->profile_open(h->x, secs);
	if (rc == -EBUSY) {
		h->ops->count_request(h->x, true);
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "too many profiles are being taken at once: retry later\n");
	}
	if (rc < 0)
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "perftop: cannot build the profile\n");
	w->win = rc;
	return wait_for(h, c, w, secs);
}

/* One server thread, which runs this once a request is done (answered, or
 * dropped): the CPU it used since the last time (accepting, parsing, our
 * replies, sending, building profiles) is the exporter's. */
static __thread double conn_counted;

/* A request's state between the call with its headers and the one that
 * answers it (a waiter's address once it waits). */
static char headers_seen;

static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why)
{
	struct httpd *h = cls;
	struct waiter *w = *state == &headers_seen ? NULL : *state;
	double now = clock_thread_cpu_s();

	if (w) {
		/* Only at the server's stop can a request end while suspended. */
		pthread_mutex_lock(&h->mu);
		if (w->suspended)
			LIST_REMOVE(w, link);
		pthread_mutex_unlock(&h->mu);
		if (w->win >= 0)
			h->ops->profile_take(h->x, w->win, NULL, NULL);
		free(w);
		*state = NULL;
	}
	h->ops->count_cpu(h->x, now - conn_counted);
	conn_counted = now;
}

static bool has_body(struct MHD_Connection *c)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	return (cl && strcmp(cl, "0") != 0) ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **state)
{
	static const char index_page[] = "perftop\n/metrics\n/debug/pprof/profile?seconds=N\n";
	struct httpd *h = cls;

	if (*state && *state != &headers_seen) /* resumed */
		return ((struct waiter *)*state)->kind == HTTPQ_PROFILE ? serve_profile(h, c, state)
									: serve_metrics(h, c, state);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		h->ops->count_request(h->x, true);
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET is served\n");
	}
	/* libmicrohttpd closes the connection after a reply queued at the
	 * headers (it cannot tell the body was read): answer at the call after
	 * the request is whole, so a scraper's connection is kept alive and
	 * costs no accept and teardown per scrape. A GET with a body is no
	 * scraper's: answered at once, the body never read, the connection closed. */
	if (*upload_size) /* cannot happen: a body is announced by its headers */
		return MHD_NO;
	if (*state == NULL && !has_body(c)) {
		*state = &headers_seen;
		return MHD_YES;
	}
	*state = NULL;
	h->ops->count_request(h->x, false);
	switch (httpq_route(url)) {
	case HTTPQ_METRICS:
		return serve_metrics(h, c, state);
	case HTTPQ_PROFILE:
		return serve_profile(h, c, state);
	case HTTPQ_INDEX:
		return reply(c, MHD_HTTP_OK, "text/plain; charset=utf-8", (void *)index_page,
			     sizeof(index_page) - 1, false);
	default:
		return text(c, MHD_HTTP_NOT_FOUND, "not found: try /metrics or /debug/pprof/profile\n");
	}
}

/* libmicrohttpd's own complaints (bad requests from clients) are not ours
 * to print over the live view or into a dump's stderr. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
}

static int listen_on(const char *spec, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	if (httpq_parse_listen(spec, &ss, &len, err, errlen))
		return -EINVAL;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "--listen %s: cannot open a socket: %s", spec, strerror(errno));
		return -errno;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		int e = errno;

		snprintf(err, errlen, e == EADDRINUSE ? "--listen %s: the port is in use: choose another one"
			 : e == EADDRNOTAVAIL ? "--listen %s: no such local address: %s"
			 : "--listen %s: %s", spec, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

static unsigned connections(struct httpd *h)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	return di ? di->num_connections : 0;
}

/* The server's thread: libmicrohttpd's epoll set, the gate's and our
 * eventfd in one epoll, waited on no longer than libmicrohttpd's own
 * timeouts, the gate's and the nearest waiter's limit. */
static void *serve(void *arg)
{
	struct httpd *h = arg;
	struct epoll_event ev[4];
	MHD_UNSIGNED_LONG_LONG mt;
	uint64_t v;

	for (;;) {
		double now = clock_mono_s(), nearest, gate;
		int ms = -1, n;

		/* Connections the gate hands over are served by the run after it. */
		gate = httpgate_run(h->gate, now, connections(h));
		MHD_run(h->d);
		now = clock_mono_s();
		pthread_mutex_lock(&h->mu);
		if (h->stopping) {
			pthread_mutex_unlock(&h->mu);
			break;
		}
		nearest = expire(h, now);
		pthread_mutex_unlock(&h->mu);
		if (gate > 0 && (nearest == 0 || gate < nearest))
			nearest = gate;
		if (nearest > 0)
			ms = nearest <= now ? 0 : nearest - now < INT_MAX / 1000 ? (int)((nearest - now) * 1e3) + 1 : INT_MAX;
		if (MHD_get_timeout(h->d, &mt) == MHD_YES && (ms < 0 || mt < (MHD_UNSIGNED_LONG_LONG)ms))
			ms = (int)(mt < INT_MAX ? mt : INT_MAX);
		n = epoll_wait(h->ep, ev, sizeof(ev) / sizeof(ev[0]), ms);
		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == h->wake && read(h->wake, &v, sizeof(v)) < 0)
				continue; /* drained already: nothing to do */
	}
	return NULL;
}

/* Our epoll over libmicrohttpd's and the stop eventfd. 0 or -errno. */
static int poll_open(struct httpd *h)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct epoll_event ev = { .events = EPOLLIN };

	if (di == NULL)
		return -EIO;
	if ((h->ep = epoll_create1(EPOLL_CLOEXEC)) < 0 || (h->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return -errno;
	ev.data.fd = di->epoll_fd;
	if (epoll_ctl(h->ep, EPOLL_CTL_ADD, di->epoll_fd, &ev))
		return -errno;
	ev.data.fd = h->wake;
	if (epoll_ctl(h->ep, EPOLL_CTL_ADD, h->wake, &ev))
		return -errno;
	ev.data.fd = httpgate_fd(h->gate);
	if (epoll_ctl(h->ep, EPOLL_CTL_ADD, ev.data.fd, &ev))
		return -errno;
	return 0;
}

/* The gate's: a request line came whole, libmicrohttpd takes it from there
 * (and closes fd even when it cannot). */
static void gate_pass(void *arg, int fd, const struct sockaddr *sa, socklen_t len)
{
	struct httpd *h = arg;

	MHD_add_connection(h->d, fd, sa, len);
}

static void gate_rejected(void *arg)
{
	struct httpd *h = arg;

	h->ops->count_request(h->x, true);
}

static const struct httpgate_ops gate_ops = { .pass = gate_pass, .rejected = gate_rejected };

int httpd_start(struct httpd **out, const char *spec, const struct httpd_ops *ops, struct exporter *x,
		char *err, size_t errlen)
{
	struct httpd *h = calloc(1, sizeof(*h));
	sigset_t all, old;
	int rc, fd;

	*out = NULL;
	if (h == NULL) {
		snprintf(err, errlen, "--listen: out of memory");
		return -ENOMEM;
	}
	if ((rc = mhd_load(spec, err, errlen)) != 0) {
		free(h);
		return rc;
	}
	h->ops = ops;
	h->x = x;
	h->ep = h->wake = -1;
	LIST_INIT(&h->waiting);
	fd = listen_on(spec, err, errlen);
	if (fd < 0) {
		free(h);
		return fd;
	}
	h->gate = httpgate_new(fd, HTTPD_TIMEOUT_SECS, HTTPD_REQUEST_BYTES, HTTPD_MAX_CONNECTIONS, &gate_ops, h, &rc);
	if (h->gate == NULL) {
		snprintf(err, errlen, "--listen %s: cannot start the HTTP server: %s", spec, strerror(-rc));
		close(fd);
		free(h);
		return rc;
	}
	pthread_mutex_init(&h->mu, NULL);
	/* One thread of ours polls every connection (epoll): no thread to
	 * start and wake per request, and waiting requests are suspended, not
	 * parked in threads of their own. */
	h->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET,
				0, NULL, NULL, on_request, h,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTPD_MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTPD_TIMEOUT_SECS,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTPD_REQUEST_BYTES,
				MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_END);
	if (h->d == NULL) {
		snprintf(err, errlen, "--listen %s: cannot start the HTTP server (libmicrohttpd)", spec);
		httpgate_free(h->gate);
		pthread_mutex_destroy(&h->mu);
		free(h);
		return -EIO;
	}
	if ((rc = poll_open(h)) != 0) {
		snprintf(err, errlen, "--listen %s: cannot poll the HTTP server: %s", spec, strerror(-rc));
		goto out_daemon;
	}
	/* The thread inherits this mask: signals stay with the main loop's signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&h->thread, NULL, serve, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "--listen %s: cannot start the HTTP server's thread: %s", spec, strerror(-rc));
		goto out_daemon;
	}
	*out = h;
	return 0;
out_daemon:
	MHD_stop_daemon(h->d);
	httpgate_free(h->gate); /* closes the listening socket too */
	if (h->ep >= 0)
		close(h->ep);
	if (h->wake >= 0)
		close(h->wake);
	pthread_mutex_destroy(&h->mu);
	free(h);
	return rc;
}

void httpd_stop(struct httpd *h)
{
	uint64_t one = 1;

	if (h == NULL)
		return;
	pthread_mutex_lock(&h->mu);
	h->stopping = true;
	pthread_mutex_unlock(&h->mu);
	if (write(h->wake, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(h->thread); /* cannot happen: an eventfd this far from full */
	pthread_join(h->thread, NULL);
	MHD_stop_daemon(h->d); /* ends suspended requests */
	httpgate_free(h->gate); /* closes the listening socket too */
	close(h->ep);
	close(h->wake);
	pthread_mutex_destroy(&h->mu);
	free(h);
}
