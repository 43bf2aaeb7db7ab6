/* SPDX-License-Identifier: GPL-2.0-or-later */
/* push: sends profile windows to a Pyroscope server (POST /ingest,
 * format=pprof) from a thread of its own, through a bounded queue, so a
 * server that is down or slow never slows sampling. A small HTTP/1.1 client
 * of ours over a socket, http:// only: one POST with Content-Length and
 * Connection: close is all it needs, and libcurl would bring TLS and a
 * dozen protocols we do not use. */
#ifndef PERFTOP_PUSH_H
#define PERFTOP_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "pprof.h"

#define PUSH_QUEUE 16

struct push;

struct push_stats {
	uint64_t sent, failed, dropped; /* failed: refused by the server (4xx); dropped: queue full */
	uint64_t retries;
};

/* url: http://HOST[:PORT][/PREFIX]; /ingest is appended. 0, or -errno with err set. */
int push_open(struct push **out, const char *url, uint64_t sample_rate, char *err, size_t errlen);
/* Takes prof (freed by push). from/until: wall-clock seconds; comm: the
 * focused process's (a comm label on the name), or NULL. Never blocks on
 * the network; when the queue is full the oldest window is dropped. */
void push_window(struct push *p, struct pprof *prof, const struct pprof_meta *m, double from, double until,
		 const char *comm);
void push_get_stats(struct push *p, struct push_stats *st);
/* Tries what is queued for up to `grace` seconds (plus one request in
 * flight), then stops. Returns how many windows were never sent. */
size_t push_close(struct push *p, double grace);

/* Pure parts, unit-tested. */
int push_parse_url(const char *url, char *host, size_t hostlen, char *port, size_t portlen, char *path,
		   size_t pathlen);
/* The request line's target: PATH/ingest?name=perftop{host=H[,comm=C]}&from=..&until=..&format=pprof&...
 * host and comm already label-safe (push_label_value); comm NULL or "": none. */
int push_target(char *buf, size_t len, const char *prefix, const char *host, const char *comm, uint64_t from,
		uint64_t until, uint64_t sample_rate);
/* A label value Pyroscope's name syntax takes: [-._0-9A-Za-z], the rest '_'. */
void push_label_value(char *dst, size_t len, const char *src);

#endif
