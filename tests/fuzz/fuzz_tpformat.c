/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary text as a tracefs format file through
 * tpformat_parse, then every field it found read from a raw payload made
 * of the same bytes. Fields must stay within the table, names terminated,
 * and no read may leave the payload (ASan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpformat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tpformat f;
	unsigned char *raw;
	int64_t v;

	if (tpformat_parse((const char *)data, size, &f) != 0)
		return 0;
	if (f.nfields == 0 || f.nfields > TPFORMAT_FIELDS_MAX)
		abort();
	raw = malloc(size ? size : 1); /* exactly size bytes: ASan sees a read past them */
	if (raw == NULL)
		abort();
	memcpy(raw, data, size);
	for (size_t i = 0; i < f.nfields; i++) {
		if (memchr(f.fields[i].name, '\0', sizeof(f.fields[i].name)) == NULL || f.fields[i].name[0] == '\0')
			abort();
		if (tpformat_find(&f, f.fields[i].name) == NULL)
			abort();
		(void)tpformat_int(&f.fields[i], raw, size, &v);
	}
	free(raw);
	return 0;
}
