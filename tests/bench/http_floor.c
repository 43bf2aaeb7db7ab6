/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The floor under issue 15's cost goal: what one HTTP request over a
 * kept-alive loopback connection costs the thread that answers it when it
 * does nothing else: an epoll loop, one recv, one send of a canned page of
 * BODY bytes (perftop's /metrics is ~10 KB). No parsing, no rendering, no
 * library. Requests come from a child process (its CPU is not counted)
 * back to back, then GAP seconds apart as a scraper sends them, with BUSY
 * spinning children (one per CPU by default, as the export bench's load)
 * so that the server's caches go cold between requests as they do there.
 * Thread CPU time of the server only.
 * usage: http_floor [REQUESTS] [GAP] [BODY] [BUSY] */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct server {
	int listen_fd;
	const char *resp;
	size_t resp_len;
	double cpu; /* the thread's CPU seconds when the client hung up */
	int err;
};

static double thread_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One connection at a time; returns when it closes. */
static void *serve(void *arg)
{
	struct server *s = arg;
	struct epoll_event ev = { .events = EPOLLIN }, got;
	char buf[8192];
	int ep = epoll_create1(EPOLL_CLOEXEC), c = -1;

	if (ep < 0 || (c = accept(s->listen_fd, NULL, NULL)) < 0) {
		s->err = errno;
		goto out;
	}
	ev.data.fd = c;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev) != 0) {
		s->err = errno;
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (epoll_wait(ep, &got, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			s->err = errno;
			break;
		}
		r = recv(c, buf, sizeof(buf), 0);
		if (r <= 0)
			break;
		if (send(c, s->resp, s->resp_len, MSG_NOSIGNAL) != (ssize_t)s->resp_len) {
			s->err = errno ? errno : EIO;
			break;
		}
	}
out:
	s->cpu = thread_cpu();
	if (c >= 0)
		close(c);
	if (ep >= 0)
		close(ep);
	return NULL;
}

static int client(const struct sockaddr_in *a, int n, double gap, size_t resp_len)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n";
	struct timespec ts = { (time_t)gap, (long)((gap - (double)(time_t)gap) * 1e9) };
	char *buf = malloc(65536);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (buf == NULL || s < 0 || connect(s, (const struct sockaddr *)a, sizeof(*a)) != 0)
		return 1;
	for (int i = 0; i < n; i++) {
		size_t got = 0;

		if (send(s, req, sizeof(req) - 1, 0) != (ssize_t)sizeof(req) - 1)
			return 1;
		while (got < resp_len) {
			ssize_t r = recv(s, buf, 65536, 0);

			if (r <= 0)
				return 1;
			got += (size_t)r;
		}
		if (gap > 0)
			nanosleep(&ts, NULL);
	}
	close(s);
	free(buf);
	return 0;
}

/* Server thread CPU per request, in microseconds; < 0 on failure. */
static double run(int n, double gap, const char *resp, size_t resp_len)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	struct server s = { .resp = resp, .resp_len = resp_len };
	pthread_t t;
	pid_t pid;
	int status;

	s.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s.listen_fd < 0 || bind(s.listen_fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(s.listen_fd, 1) != 0 || getsockname(s.listen_fd, (struct sockaddr *)&a, &alen) != 0) {
		perror("http_floor: listen on 127.0.0.1");
		return -1;
	}
	if (pthread_create(&t, NULL, serve, &s) != 0) {
		fprintf(stderr, "http_floor: cannot start the server thread\n");
		return -1;
	}
	pid = fork();
	if (pid == 0)
		_exit(client(&a, n, gap, resp_len));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "http_floor: the client failed\n");
		return -1;
	}
	pthread_join(t, NULL);
	close(s.listen_fd);
	if (s.err) {
		fprintf(stderr, "http_floor: server: %s\n", strerror(s.err));
		return -1;
	}
	/* The thread's start and its accept are in it too: a few µs over n. */
	return s.cpu * 1e6 / n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	double gap = argc > 2 ? atof(argv[2]) : 1.0;
	size_t body = argc > 3 ? strtoul(argv[3], NULL, 10) : 10240;
	long busy = argc > 4 ? atol(argv[4]) : sysconf(_SC_NPROCESSORS_ONLN);
	pid_t spin[256];
	long nspin = 0;
	char *resp = malloc(body + 128);
	size_t len;
	double warm, cold;

	if (resp == NULL || n <= 0 || gap < 0 || busy < 0) {
		fprintf(stderr, "usage: http_floor [REQUESTS] [GAP] [BODY] [BUSY]\n");
		return 2;
	}
	len = (size_t)snprintf(resp, 128, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
				      "Content-Length: %zu\r\n\r\n", body);
	memset(resp + len, 'x', body);
	len += body;
	for (; nspin < busy && nspin < 256; nspin++) {
		spin[nspin] = fork();
		if (spin[nspin] == 0)
			for (volatile unsigned long i = 0;; i++)
				;
		if (spin[nspin] < 0) {
			perror("http_floor: fork");
			break;
		}
	}
	warm = run(2000, 0, resp, len);
	cold = warm < 0 ? -1 : run(n, gap, resp, len);
	for (long i = 0; i < nspin; i++)
		if (spin[i] > 0) {
			kill(spin[i], SIGKILL);
			waitpid(spin[i], NULL, 0);
		}
	free(resp);
	if (cold < 0)
		return 1;
	printf("server thread CPU a request, %zu-byte page, %ld busy CPUs: back to back %.1f us, "
	       "%g s apart %.1f us (%d requests)\n", body, nspin, warm, gap, cold, n);
	return 0;
}
