/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "clock.h"
#include "push.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PUSH_CONNECT_MS 2000
#define PUSH_IO_SECS 5
#define PUSH_BACKOFF_MAX 5.0
#define PUSH_BOUNDARY "perftop-profile-boundary-7f3a"

struct push_item {
	struct pprof *prof;
	struct pprof_meta m;
	double from, until;
	char comm[64];               /* the focused process's, label-safe; "" none */
};

struct push {
	char host[256], port[16], prefix[512], label_host[128];
	uint64_t rate;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct push_item q[PUSH_QUEUE];
	size_t head, n;
	bool stopping;
	double deadline;             /* when stopping: give up then */
	struct push_stats st;
};

int push_parse_url(const char *url, char *host, size_t hostlen, char *port, size_t portlen, char *path,
		   size_t pathlen)
{
	const char *h, *end, *colon, *slash;
	size_t hl;

	if (strncmp(url, "http://", 7) != 0)
		return -1;
	h = url + 7;
	slash = strchr(h, '/');
	end = slash ? slash : h + strlen(h);
	colon = memchr(h, ':', (size_t)(end - h));
	hl = (size_t)((colon ? colon : end) - h);
	if (hl == 0 || hl >= hostlen || strpbrk(url, " \r\n\t?#") != NULL)
		return -1;
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (colon) {
		size_t pl = (size_t)(end - colon - 1);
		char *e;
		long v;

		if (pl == 0 || pl >= portlen)
			return -1;
		memcpy(port, colon + 1, pl);
		port[pl] = '\0';
		v = strtol(port, &e, 10);
		if (*e || v < 1 || v > 65535)
			return -1;
	} else {
		if (portlen < 3)
			return -1;
		strcpy(port, "80");
	}
	/* The prefix without a trailing slash; /ingest goes after it. */
	if (snprintf(path, pathlen, "%s", slash ? slash : "") >= (int)pathlen)
		return -1;
	while (path[0] && path[strlen(path) - 1] == '/')
		path[strlen(path) - 1] = '\0';
	return 0;
}

/* Pyroscope's key syntax has no escapes ({ } , = end a value): anything
 * but [-._0-9A-Za-z] becomes '_', as comm and host names need nothing else. */
void push_label_value(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	if (len == 0)
		return;
	for (; *src && o + 1 < len; src++)
		dst[o++] = (strchr("-._", *src) || (*src >= '0' && *src <= '9') || (*src >= 'a' && *src <= 'z') ||
			    (*src >= 'A' && *src <= 'Z')) ? *src : '_';
	dst[o] = '\0';
}

/* Pyroscope's name: app{label=value,...}, percent-encoded as a query value. */
int push_target(char *buf, size_t len, const char *prefix, const char *host, const char *comm, uint64_t from,
		uint64_t until, uint64_t sample_rate)
{
	char name[256];
	size_t o = 0;
	int n;

	n = comm && *comm ? snprintf(name, sizeof(name), "perftop{host=%s,comm=%s}", host, comm)
			  : snprintf(name, sizeof(name), "perftop{host=%s}", host);
	if (n < 0 || (size_t)n >= sizeof(name))
		return -1;
	n = snprintf(buf, len, "%s/ingest?name=", prefix);
	if (n < 0 || (size_t)n >= len)
		return -1;
	o = (size_t)n;
	for (const char *c = name; *c; c++) {
		bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			     strchr("-._~", *c);

		n = snprintf(buf + o, len - o, plain ? "%c" : "%%%02X", (unsigned char)*c);
		if (n < 0 || (size_t)n >= len - o)
			return -1;
		o += (size_t)n;
	}
	n = snprintf(buf + o, len - o, "&from=%llu&until=%llu&format=pprof&sampleRate=%llu&spyName=perftop",
		     (unsigned long long)from, (unsigned long long)until, (unsigned long long)sample_rate);
	return n < 0 || (size_t)n >= len - o ? -1 : 0;
}

static int connect_to(const struct push *p)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	struct timeval tv = { .tv_sec = PUSH_IO_SECS };
	int fd = -1;

	if (getaddrinfo(p->host, p->port, &hints, &res) != 0)
		return -1;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		struct pollfd pfd;
		int err = 0;
		socklen_t el = sizeof(err);

		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)
			goto next;
		pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
		if (poll(&pfd, 1, PUSH_CONNECT_MS) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err)
			goto next;
		if (fcntl(fd, F_SETFL, 0) || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			goto next;
		continue;
next:
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

static int send_all(int fd, const void *b, size_t len)
{
	const char *c = b;

	while (len) {
		ssize_t n = send(fd, c, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The HTTP status, or -1 when the exchange failed (worth a retry). */
static int post(const struct push *p, const char *target, const uint8_t *body, size_t len)
{
	char head[2048], pre[256], status[64];
	static const char post_end[] = "\r\n--" PUSH_BOUNDARY "--\r\n";
	int fd, n, code = -1;
	size_t got = 0;

	n = snprintf(pre, sizeof(pre), "--%s\r\nContent-Disposition: form-data; name=\"profile\"; "
		     "filename=\"profile.pprof\"\r\nContent-Type: application/octet-stream\r\n\r\n", PUSH_BOUNDARY);
	if (n < 0 || (size_t)n >= sizeof(pre))
		return -1;
	n = snprintf(head, sizeof(head), "POST %s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: perftop/" PERFTOP_VERSION
		     "\r\nContent-Type: multipart/form-data; boundary=%s\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n", target, p->host, p->port, PUSH_BOUNDARY,
		     strlen(pre) + len + sizeof(post_end) - 1);
	if (n < 0 || (size_t)n >= sizeof(head))
		return -1;
	fd = connect_to(p);
	if (fd < 0)
		return -1;
	if (send_all(fd, head, (size_t)n) || send_all(fd, pre, strlen(pre)) || send_all(fd, body, len) ||
	    send_all(fd, post_end, sizeof(post_end) - 1))
		goto out;
	while (got < sizeof(status) - 1) {
		ssize_t r = recv(fd, status + got, sizeof(status) - 1 - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (memchr(status, '\n', got))
			break;
	}
	status[got] = '\0';
	if (sscanf(status, "HTTP/1.%*d %d", &code) != 1)
		code = -1;
out:
	close(fd);
	return code;
}

static int send_item(struct push *p, const struct push_item *it)
{
	char target[1024];
	uint8_t *body;
	size_t len;
	int code;

	if (push_target(target, sizeof(target), p->prefix, p->label_host, it->comm, (uint64_t)it->from,
			(uint64_t)(it->until + 0.999), p->rate))
		return 400;
	if (pprof_build(it->prof, &it->m, &body, &len))
		return -1;
	code = post(p, target, body, len);
	free(body);
	return code;
}

static void *push_main(void *arg)
{
	struct push *p = arg;
	double backoff = 0.5;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct push_item it;
		int code;

		while (p->n == 0 && !p->stopping)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->n == 0 || (p->stopping && clock_mono_s() > p->deadline))
			break;
		it = p->q[p->head];
		pthread_mutex_unlock(&p->mu);
		code = send_item(p, &it);
		pthread_mutex_lock(&p->mu);
		/* The queue may have dropped this very item meanwhile. */
		if (p->n && p->q[p->head].prof == it.prof && (code < 0 || code >= 500)) {
			struct timespec ts;
			double wake = clock_mono_s() + backoff;

			p->st.retries++;
			if (p->stopping && wake > p->deadline)
				break;
			backoff = backoff * 2 > PUSH_BACKOFF_MAX ? PUSH_BACKOFF_MAX : backoff * 2;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_sec += (time_t)backoff;
			ts.tv_nsec += (long)((backoff - (double)(time_t)backoff) * 1e9);
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&p->cv, &p->mu, &ts);
			continue;
		}
		if (p->n && p->q[p->head].prof == it.prof) {
			if (code >= 200 && code < 300)
				p->st.sent++;
			else
				p->st.failed++; /* refused: retrying would not help */
			pprof_free(it.prof);
			p->head = (p->head + 1) % PUSH_QUEUE;
			p->n--;
			backoff = 0.5;
		}
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int push_open(struct push **out, const char *url, uint64_t sample_rate, char *err, size_t errlen)
{
	struct push *p = calloc(1, sizeof(*p));
	char hn[128] = "unknown";
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (p == NULL) {
		snprintf(err, errlen, "--push: out of memory");
		return -ENOMEM;
	}
	if (push_parse_url(url, p->host, sizeof(p->host), p->port, sizeof(p->port), p->prefix, sizeof(p->prefix))) {
		snprintf(err, errlen, "--push wants http://HOST[:PORT][/PATH] (http only), not '%.200s'", url);
		free(p);
		return -EINVAL;
	}
	if (gethostname(hn, sizeof(hn) - 1))
		strcpy(hn, "unknown");
	push_label_value(p->label_host, sizeof(p->label_host), hn);
	p->rate = sample_rate;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&p->thread, NULL, push_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "--push: cannot start its thread: %s", strerror(rc));
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return -rc;
	}
	*out = p;
	return 0;
}

void push_window(struct push *p, struct pprof *prof, const struct pprof_meta *m, double from, double until,
		 const char *comm)
{
	struct push_item it = { .prof = prof, .m = *m, .from = from, .until = until };

	if (comm)
		push_label_value(it.comm, sizeof(it.comm), comm);
	pthread_mutex_lock(&p->mu);
	if (p->n == PUSH_QUEUE) {
		/* The oldest goes: recent windows matter more. */
		pprof_free(p->q[p->head].prof);
		p->head = (p->head + 1) % PUSH_QUEUE;
		p->n--;
		p->st.dropped++;
	}
	p->q[(p->head + p->n) % PUSH_QUEUE] = it;
	p->n++;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void push_get_stats(struct push *p, struct push_stats *st)
{
	pthread_mutex_lock(&p->mu);
	*st = p->st;
	pthread_mutex_unlock(&p->mu);
}

size_t push_close(struct push *p, double grace)
{
	size_t left;

	if (p == NULL)
		return 0;
	pthread_mutex_lock(&p->mu);
	p->stopping = true;
	p->deadline = clock_mono_s() + grace;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	left = p->n;
	while (p->n) {
		pprof_free(p->q[p->head].prof);
		p->head = (p->head + 1) % PUSH_QUEUE;
		p->n--;
	}
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
	return left;
}
