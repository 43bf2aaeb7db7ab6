/* SPDX-License-Identifier: GPL-2.0-or-later */
/* httpd: the --listen server (libmicrohttpd, one polling thread for all
 * connections, with a connection limit, a request-size limit and a
 * timeout). Serves what the exporter publishes, reached only through the
 * table of functions it is handed (httpd_ops, as libperf's
 * perf_evlist_mmap_ops); never touches the sampler. Requests that wait for
 * intervals (a profile's window, a page not yet rendered) are suspended and
 * resumed by httpd_wake, or by the server's thread past their limit
 * (wait_limit) when the main loop stalls. A connection reaches
 * libmicrohttpd only once its request line is whole and well-formed
 * (httpgate): junk is answered 400 and closed. */
#ifndef PERFTOP_HTTPD_H
#define PERFTOP_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "promtext.h"

struct httpd;
struct exporter;

/* What the server asks of the exporter, from its own thread (export.h
 * says what each does: page_ready is export_page_ready, and so on). */
struct httpd_ops {
	bool (*page_ready)(struct exporter *x, enum promtext_fmt fmt);
	void (*page_now)(struct exporter *x, enum promtext_fmt fmt, void **pg, const char **text, size_t *len);
	void (*page_put)(void *pg);
	int (*profile_open)(struct exporter *x, unsigned secs);
	bool (*profile_ready)(struct exporter *x, int id);
	int (*profile_take)(struct exporter *x, int id, uint8_t **out, size_t *len);
	double (*wait_limit)(struct exporter *x, unsigned secs);
	void (*count_request)(struct exporter *x, bool rejected);
	void (*count_cpu)(struct exporter *x, double secs);
};

#define HTTPD_MAX_CONNECTIONS 64
#define HTTPD_TIMEOUT_SECS 15
#define HTTPD_REQUEST_BYTES 8192

/* spec as --listen takes it; ops and x outlive the server. 0, or -errno
 * with err the user's one line. */
int httpd_start(struct httpd **out, const char *spec, const struct httpd_ops *ops, struct exporter *x,
		char *err, size_t errlen);
/* From the main loop after each interval (and at the run's end): resumes
 * the requests whose wait is over. h may be NULL. */
void httpd_wake(struct httpd *h);
void httpd_stop(struct httpd *h);

#endif
