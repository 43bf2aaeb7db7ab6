/* SPDX-License-Identifier: GPL-2.0-or-later */
/* httpq: the pure parsing behind the HTTP server — the listen address, the
 * route, the profile's seconds. No sockets here; fuzzed (tests/fuzz). */
#ifndef PERFTOP_HTTPQ_H
#define PERFTOP_HTTPQ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define HTTPQ_SECONDS_DEFAULT 30
#define HTTPQ_SECONDS_MAX 3600

enum httpq_route { HTTPQ_NOT_FOUND, HTTPQ_METRICS, HTTPQ_PROFILE, HTTPQ_INDEX };

/* "[ADDR:]PORT", ADDR an IPv4 address or [IPv6]; 127.0.0.1 when absent.
 * 0 or -1 with err naming the problem. */
int httpq_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err, size_t errlen);

enum httpq_route httpq_route(const char *url);

/* ?seconds=N of /debug/pprof/profile: NULL gives the default. 0, or -1 with
 * err the body of a 400 reply. */
int httpq_parse_seconds(const char *arg, unsigned *secs, char *err, size_t errlen);

/* The first bytes a connection sent (len of them): 1 when they hold a
 * whole, well-formed request line ("METHOD TARGET HTTP/d.d", CRLF or LF,
 * after any empty lines), 0 while they may still become one, -1 when they
 * cannot (junk: the server answers 400 and closes). */
int httpq_request_line(const char *buf, size_t len);

#endif
