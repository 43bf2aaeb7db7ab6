/* SPDX-License-Identifier: GPL-2.0-or-later */
/* httpgate: the --listen server's front door. It accepts the connections
 * and holds each until its request line has come (peeked, left in the
 * socket): a well-formed one is handed to libmicrohttpd, junk is answered
 * 400 and closed at once. libmicrohttpd takes a line that starts with a NUL
 * for an empty one and waits, silent, until its idle timeout. */
#ifndef PERFTOP_HTTPGATE_H
#define PERFTOP_HTTPGATE_H

#include <stddef.h>
#include <sys/socket.h>

struct httpgate;

struct httpgate_ops {
	/* A connection whose request line came whole: the callee owns fd. */
	void (*pass)(void *arg, int fd, const struct sockaddr *sa, socklen_t len);
	/* A connection answered 400 and closed. */
	void (*rejected)(void *arg);
};

/* Over the listening socket listen_fd (nonblocking; the gate closes it),
 * holding a connection timeout_secs at most, peeking max_bytes, and no
 * more than max_conns connections counting the server's. NULL: -errno. */
struct httpgate *httpgate_new(int listen_fd, double timeout_secs, size_t max_bytes, unsigned max_conns,
			      const struct httpgate_ops *ops, void *arg, int *err);
void httpgate_free(struct httpgate *g);
/* An epoll fd that turns readable when the gate has work: put it in the
 * server thread's epoll. */
int httpgate_fd(const struct httpgate *g);
/* Accepts what waits and reads what came, without blocking; busy: the
 * server's own connections now. The nearest time (now's clock) a held
 * connection times out, 0 with none held. */
double httpgate_run(struct httpgate *g, double now, unsigned busy);

#endif
