/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: what a client or the command line sends the exporter —
 * the --listen spec, the URL route, ?seconds= — and label values through
 * promtext_escape, whose output must be valid UTF-8 with no bare quote,
 * newline or lone backslash (else a scraper rejects the whole page). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httpq.h"
#include "promtext.h"
#include "sanitize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_escaped(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		size_t n;

		if (*u == '\\') {
			if (u[1] != '\\' && u[1] != '"' && u[1] != 'n')
				abort();
			u += 2;
			continue;
		}
		if (*u == '"' || *u == '\n' || *u < 0x20)
			abort();
		n = sanitize_utf8_len(u);
		if (n == 0)
			abort();
		u += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned secs;
	struct promtext p;
	char *out;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (httpq_parse_listen(s, &ss, &len, err, sizeof(err)) == 0 && len > sizeof(ss))
		abort();
	if (httpq_parse_seconds(s, &secs, err, sizeof(err)) == 0 && (secs < 1 || secs > HTTPQ_SECONDS_MAX))
		abort();
	(void)httpq_route(s);
	promtext_init(&p, PROMTEXT_OPENMETRICS);
	promtext_escape(&p, s);
	out = promtext_take(&p, NULL);
	if (out)
		check_escaped(out);
	free(out);
	free(s);
	return 0;
}
