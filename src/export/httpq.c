/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "httpq.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "sanitize.h"

static int port_of(const char *s, unsigned *port)
{
	const char *errstr;
	long long v = strtonum(s, 1, 65535, &errstr);

	if (errstr)
		return -1;
	*port = (unsigned)v;
	return 0;
}

int httpq_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err, size_t errlen)
{
	char host[64], shown[128];
	const char *colon, *port_s;
	unsigned port;

	memset(ss, 0, sizeof(*ss));
	sanitize(shown, sizeof(shown), s);
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (end == NULL || end[1] != ':' || (size_t)(end - s - 1) >= sizeof(host))
			goto bad;
		memcpy(host, s + 1, (size_t)(end - s - 1));
		host[end - s - 1] = '\0';
		port_s = end + 2;
	} else if ((colon = strrchr(s, ':')) != NULL) {
		if ((size_t)(colon - s) >= sizeof(host) || strchr(s, ':') != colon)
			goto bad;
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port_s = colon + 1;
	} else {
		strcpy(host, "127.0.0.1");
		port_s = s;
	}
	if (port_of(port_s, &port)) {
		snprintf(err, errlen, "--listen wants [ADDR:]PORT with a port from 1 to 65535, not '%s'", shown);
		return -1;
	}
	if (host[0] == '\0')
		strcpy(host, "0.0.0.0");
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*len = sizeof(*a);
	}
	return 0;
bad:
	snprintf(err, errlen, "--listen wants [ADDR:]PORT (ADDR an IPv4 address or [IPv6]), not '%s'", shown);
	return -1;
}

enum httpq_route httpq_route(const char *url)
{
	if (url == NULL)
		return HTTPQ_NOT_FOUND;
	if (strcmp(url, "/metrics") == 0)
		return HTTPQ_METRICS;
	if (strcmp(url, "/debug/pprof/profile") == 0)
		return HTTPQ_PROFILE;
	if (strcmp(url, "/") == 0)
		return HTTPQ_INDEX;
	return HTTPQ_NOT_FOUND;
}

int httpq_parse_seconds(const char *arg, unsigned *secs, char *err, size_t errlen)
{
	char shown[64];
	const char *errstr;
	long long v;

	if (arg == NULL) {
		*secs = HTTPQ_SECONDS_DEFAULT;
		return 0;
	}
	v = strtonum(arg, 1, HTTPQ_SECONDS_MAX, &errstr);
	if (errstr == NULL) {
		*secs = (unsigned)v;
		return 0;
	}
	sanitize(shown, sizeof(shown), arg);
	snprintf(err, errlen, "seconds must be a whole number from 1 to %d, not '%s'\n",
		 HTTPQ_SECONDS_MAX, shown);
	return -1;
}

/* RFC 9110's token characters, a method's. */
static bool tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

int httpq_request_line(const char *buf, size_t len)
{
	static const char version[] = "HTTP/#.#";
	const unsigned char *b = (const unsigned char *)buf;
	size_t i = 0, n;

	while (i < len && (b[i] == '\r' || b[i] == '\n'))
		i++; /* empty lines before a request are allowed (RFC 9112 2.2) */
	for (n = 0; i < len && tchar(b[i]); i++)
		n++;
	if (i == len)
		return 0;
	if (n == 0 || b[i++] != ' ')
		return -1;
	for (n = 0; i < len && b[i] > ' ' && b[i] < 0x7f; i++)
		n++;
	if (i == len)
		return 0;
	if (n == 0 || b[i++] != ' ')
		return -1;
	for (n = 0; n < sizeof(version) - 1; n++, i++) {
		if (i == len)
			return 0;
		if (version[n] == '#' ? b[i] < '0' || b[i] > '9' : b[i] != (unsigned char)version[n])
			return -1;
	}
	if (i < len && b[i] == '\r')
		i++;
	if (i == len)
		return 0;
	return b[i] == '\n' ? 1 : -1;
}
