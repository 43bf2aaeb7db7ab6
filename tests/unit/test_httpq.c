/* SPDX-License-Identifier: GPL-2.0-or-later */
/* httpq: --listen addresses, routes, ?seconds= values. */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "check.h"
#include "httpq.h"

static bool listen_ok(const char *s, int family, unsigned port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];

	if (httpq_parse_listen(s, &ss, &len, err, sizeof(err)))
		return false;
	if (ss.ss_family != family)
		return false;
	if (family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port) == port;
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) == port;
}

int main(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];
	unsigned secs;

	CHECK(listen_ok("9100", AF_INET, 9100), "a port alone");
	CHECK(httpq_parse_listen("9100", &ss, &len, err, sizeof(err)) == 0 &&
	      ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_LOOPBACK), "...on 127.0.0.1");
	CHECK(listen_ok("0.0.0.0:80", AF_INET, 80) && listen_ok(":8080", AF_INET, 8080), "ADDR:PORT, :PORT");
	CHECK(listen_ok("[::1]:9100", AF_INET6, 9100), "[IPv6]:PORT");
	CHECK(!listen_ok("0", AF_INET, 0) && !listen_ok("65536", AF_INET, 0) && !listen_ok("x", AF_INET, 0) &&
	      !listen_ok("1.2.3:9", AF_INET, 9) && !listen_ok("::1:9", AF_INET6, 9) && !listen_ok("[::1]9", AF_INET6, 9) &&
	      !listen_ok("", AF_INET, 0) && !listen_ok("localhost:9", AF_INET, 9),
	      "bad ports and addresses refused");
	CHECK(httpq_parse_listen("1.2.3.4:0", &ss, &len, err, sizeof(err)) && strstr(err, "1 to 65535"),
	      "the error says the range: %s", err);

	CHECK(httpq_route("/metrics") == HTTPQ_METRICS && httpq_route("/debug/pprof/profile") == HTTPQ_PROFILE &&
	      httpq_route("/") == HTTPQ_INDEX && httpq_route("/metrics/") == HTTPQ_NOT_FOUND &&
	      httpq_route("/nope") == HTTPQ_NOT_FOUND && httpq_route(NULL) == HTTPQ_NOT_FOUND, "routes");

	CHECK(httpq_parse_seconds(NULL, &secs, err, sizeof(err)) == 0 && secs == 30, "default 30 s");
	CHECK(httpq_parse_seconds("5", &secs, err, sizeof(err)) == 0 && secs == 5, "seconds=5");
	CHECK(httpq_parse_seconds("3600", &secs, err, sizeof(err)) == 0 && secs == 3600, "seconds=3600");
	CHECK(httpq_parse_seconds("-1", &secs, err, sizeof(err)) && strstr(err, "from 1 to 3600") &&
	      strstr(err, "'-1'"), "seconds=-1 refused: %s", err);
	CHECK(httpq_parse_seconds("3601", &secs, err, sizeof(err)) && httpq_parse_seconds("0", &secs, err, sizeof(err)) &&
	      httpq_parse_seconds("", &secs, err, sizeof(err)) && httpq_parse_seconds("1e3", &secs, err, sizeof(err)) &&
	      httpq_parse_seconds("99999999999999999999", &secs, err, sizeof(err)), "out of range and junk refused");
	CHECK(httpq_parse_seconds("\x1b[2J", &secs, err, sizeof(err)) && strchr(err, '\x1b') == NULL,
	      "a hostile value is not echoed raw: %s", err + 0);

	/* Request lines: whole, not yet, never (issue 46 item 17: junk gets 400). */
#define RL(lit) httpq_request_line(lit, sizeof(lit) - 1)
	CHECK(RL("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n") == 1 &&
	      RL("GET / HTTP/1.0\n") == 1 && RL("\r\nHEAD / HTTP/1.1\r\n") == 1,
	      "well-formed request lines, LF alone and a leading empty line allowed");
	CHECK(RL("") == 0 && RL("GE") == 0 &&
	      RL("GET /metr") == 0 && RL("GET / HTTP/1") == 0 &&
	      RL("GET / HTTP/1.1\r") == 0, "a request line still coming");
	CHECK(RL("\x00\xff garbage\r\n\r\n") == -1 && RL("\x00") == -1 &&
	      RL("garbage\r\n\r\n") == -1 && RL("GET\r\n") == -1 &&
	      RL("GET / FTP/1.1\r\n") == -1 && RL("GET  / HTTP/1.1\r\n") == -1 &&
	      RL("GET /\x01 HTTP/1.1\r\n") == -1 &&
	      RL("GET / HTTP/1.1 x\r\n") == -1 && RL("G\xc3\xa9T / HTTP/1.1") == -1,
	      "junk refused as soon as it cannot be a request line");
	return check_done();
}
