/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "httpgate.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "httpq.h"

#define GATE_LISTEN UINT64_MAX
#define GATE_BODY_LEN 34

struct gate_conn {
	int fd;
	double deadline;
	struct sockaddr_storage ss;
	socklen_t len;
};

struct httpgate {
	int listen_fd, ep;
	double timeout;
	size_t max_bytes;
	unsigned max_conns;
	const struct httpgate_ops *ops;
	void *arg;
	char *peek;                       /* max_bytes */
	size_t n;
	struct gate_conn conn[];          /* max_conns of them */
};

struct httpgate *httpgate_new(int listen_fd, double timeout_secs, size_t max_bytes, unsigned max_conns,
			      const struct httpgate_ops *ops, void *arg, int *err)
{
	struct httpgate *g = calloc(1, sizeof(*g) + max_conns * sizeof(g->conn[0]));
	char *peek = malloc(max_bytes);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = GATE_LISTEN };

	if (g == NULL || peek == NULL) {
		free(g);
		free(peek);
		*err = -ENOMEM;
		return NULL;
	}
	/* conn[] stays as calloc left it: assignment copies no flexible array. */
	*g = (struct httpgate){ .listen_fd = listen_fd, .timeout = timeout_secs, .max_bytes = max_bytes,
				.max_conns = max_conns, .ops = ops, .arg = arg, .peek = peek };
	g->ep = epoll_create1(EPOLL_CLOEXEC);
	if (g->ep < 0 || epoll_ctl(g->ep, EPOLL_CTL_ADD, listen_fd, &ev)) {
		*err = -errno;
		if (g->ep >= 0)
			close(g->ep);
		free(g->peek);
		free(g);
		return NULL;
	}
	return g;
}

void httpgate_free(struct httpgate *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++)
		close(g->conn[i].fd);
	close(g->ep);
	close(g->listen_fd);
	free(g->peek);
	free(g);
}

int httpgate_fd(const struct httpgate *g)
{
	return g->ep;
}

/* Leaves the gate's hands (handed over or closed): the last one moves in. */
static void drop(struct httpgate *g, size_t i)
{
	epoll_ctl(g->ep, EPOLL_CTL_DEL, g->conn[i].fd, NULL);
	g->conn[i] = g->conn[--g->n];
}

/* What came is read first: closing with unread bytes would reset the
 * connection, and the client could lose the reply. */
static void refuse(struct httpgate *g, int fd)
{
#define GATE_BODY "perftop: not an HTTP request line\n"
#define GATE_STR(x) GATE_STR2(x)
#define GATE_STR2(x) #x
	static const char reply[] = "HTTP/1.1 400 Bad Request\r\n"
				    "Content-Type: text/plain; charset=utf-8\r\n"
				    "Content-Length: " GATE_STR(GATE_BODY_LEN) "\r\n"
				    "Connection: close\r\n\r\n" GATE_BODY;
	_Static_assert(sizeof(GATE_BODY) - 1 == GATE_BODY_LEN, "Content-Length is the body's");

	while (recv(fd, g->peek, g->max_bytes, MSG_DONTWAIT) > 0)
		;
	if (send(fd, reply, sizeof(reply) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		errno = 0; /* gone already: nothing to answer */
	shutdown(fd, SHUT_WR);
	close(fd);
	g->ops->rejected(g->arg);
}

static void accept_all(struct httpgate *g, double now, unsigned busy)
{
	for (;;) {
		struct gate_conn c = { .len = sizeof(c.ss), .deadline = now + g->timeout };
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET }; /* each new byte wakes once */

		c.fd = accept4(g->listen_fd, (struct sockaddr *)&c.ss, &c.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c.fd < 0)
			return; /* EAGAIN: none left; else the next readiness retries */
		ev.data.u64 = (uint64_t)c.fd;
		if (busy + g->n >= g->max_conns || epoll_ctl(g->ep, EPOLL_CTL_ADD, c.fd, &ev)) {
			close(c.fd); /* over the limit: closed at once, as the server did */
			continue;
		}
		g->conn[g->n++] = c;
	}
}

/* Held connection i is readable: handed over, refused, or kept waiting. */
static void look(struct httpgate *g, size_t i)
{
	struct gate_conn c = g->conn[i];
	ssize_t n = recv(c.fd, g->peek, g->max_bytes, MSG_PEEK | MSG_DONTWAIT);
	int line;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) { /* closed before a request, or failed */
		drop(g, i);
		close(c.fd);
		return;
	}
	line = httpq_request_line(g->peek, (size_t)n);
	if (line == 0 && (size_t)n < g->max_bytes)
		return; /* more to come; a line past max_bytes is the server's to refuse */
	drop(g, i);
	if (line < 0)
		refuse(g, c.fd);
	else
		g->ops->pass(g->arg, c.fd, (const struct sockaddr *)&c.ss, c.len);
}

double httpgate_run(struct httpgate *g, double now, unsigned busy)
{
	struct epoll_event ev[16];
	double nearest = 0;
	int n;

	while ((n = epoll_wait(g->ep, ev, sizeof(ev) / sizeof(ev[0]), 0)) > 0) {
		for (int k = 0; k < n; k++) {
			if (ev[k].data.u64 == GATE_LISTEN) {
				accept_all(g, now, busy);
				continue;
			}
			for (size_t i = 0; i < g->n; i++)
				if ((uint64_t)g->conn[i].fd == ev[k].data.u64) {
					look(g, i);
					break;
				}
		}
		if (n < (int)(sizeof(ev) / sizeof(ev[0])))
			break;
	}
	for (size_t i = 0; i < g->n;) {
		if (g->conn[i].deadline <= now) { /* idle as long as the server allows */
			int fd = g->conn[i].fd;

			drop(g, i);
			close(fd);
			continue;
		}
		if (nearest == 0 || g->conn[i].deadline < nearest)
			nearest = g->conn[i].deadline;
		i++;
	}
	return nearest;
}
