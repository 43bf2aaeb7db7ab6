/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary text as an -e list and as an --exclude list.
 * PMU terms and tracepoints are looked up in the fixture trees only, so the
 * parser reads files but never the host's sysfs/tracefs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evspec.h"

#ifndef FUZZ_FIXTURES
#error "FUZZ_FIXTURES must name tests/fixtures"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	evspec_set_roots(FUZZ_FIXTURES "/sysfs", FUZZ_FIXTURES "/tracefs");
	return 0;
}

/* A failure always says why: a non-empty string within the buffer. (It
 * quotes the user's own text, so newlines in that text may show up.) */
static void check_err(const char *err, size_t len)
{
	if (err[0] == '\0' || memchr(err, '\0', len) == NULL)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256], fmt[64];
	struct evspec *evs = NULL;
	size_t n = 0;
	unsigned bits;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	err[0] = '\0';
	if (evspec_parse_list(text, &evs, &n, err, sizeof(err)) == 0) {
		if (evs == NULL || n == 0)
			abort();
		for (size_t i = 0; i < n; i++) {
			struct perf_event_attr a = evs[i].attr;

			if (memchr(evs[i].name, '\0', sizeof(evs[i].name)) == NULL ||
			    a.size != sizeof(a) || a.precise_ip > 3)
				abort();
			/* The exclude bits survive a round trip through EXCL_*. */
			evspec_set_exclude(&a, evspec_exclude_bits(&evs[i].attr));
			if (memcmp(&a, &evs[i].attr, sizeof(a)) != 0)
				abort();
		}
		free(evs);
	} else {
		if (evs != NULL || n != 0)
			abort();
		check_err(err, sizeof(err));
	}

	err[0] = '\0';
	if (evspec_exclude_parse(text, &bits, err, sizeof(err)) == 0) {
		unsigned again;

		if (bits & ~(unsigned)EXCL_ALL)
			abort();
		/* What evspec_exclude_format writes, evspec_exclude_parse reads back the same. */
		evspec_exclude_format(bits, fmt, sizeof(fmt));
		if (evspec_exclude_parse(fmt, &again, err, sizeof(err)) != 0 || again != bits)
			abort();
	} else {
		check_err(err, sizeof(err));
	}
	free(text);
	return 0;
}
