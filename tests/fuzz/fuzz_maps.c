/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary text as /proc/PID/maps, a line at a time,
 * through proctab_parse_maps_line. A line it takes must be an executable
 * mapping with end above start and a path inside the line with no newline,
 * and the line written back from what it found must parse to the same. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proctab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const char *text, size_t len)
{
	struct proctab_maps_line m, again;
	char *line = malloc(len + 1), *back;
	size_t blen;

	if (line == NULL)
		abort();
	memcpy(line, text, len);
	line[len] = '\0';
	if (!proctab_parse_maps_line(line, &m)) {
		free(line);
		return;
	}
	if (m.end <= m.start || m.path < line || m.path > line + len || strchr(m.path, '\n'))
		abort();
	blen = strlen(m.path) + 128;
	if ((back = malloc(blen)) == NULL)
		abort();
	snprintf(back, blen, "%" PRIx64 "-%" PRIx64 " r-xp %" PRIx64 " %x:%x %" PRIu64 " %s\n", m.start, m.end, m.off,
		 m.maj, m.min, m.ino, m.path);
	/* A path with leading blanks loses them: scanf's blank skips them too. */
	if (!proctab_parse_maps_line(back, &again) || again.start != m.start || again.end != m.end ||
	    again.off != m.off || again.maj != m.maj || again.min != m.min || again.ino != m.ino ||
	    strcmp(again.path, m.path) != 0)
		abort();
	free(back);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		one(p, len);
		p += len;
	}
	return 0;
}
