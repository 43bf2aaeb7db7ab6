/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as a settings file. The parse must
 * stay within the text (ASan); what it writes back must read back as the
 * same settings (a save never changes what a hand edit said), and a set
 * must read back as set. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rcfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct rcfile *a, const struct rcfile *b)
{
	struct rcfile_entry x, y;

	for (size_t i = 0; rcfile_entry(a, i, &x); i++) {
		if (!rcfile_entry(b, i, &y) || x.line != y.line || (x.key == NULL) != (y.key == NULL))
			abort();
		if (x.key && (strcmp(x.key, y.key) || strcmp(x.value, y.value)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rcfile *rc = rcfile_new(), *again = rcfile_new();
	struct rcfile_entry e;
	char *text;
	size_t len;

	if (rc == NULL || again == NULL || rcfile_parse(rc, (const char *)data, size))
		abort();
	text = rcfile_text(rc, &len);
	if (text == NULL || rcfile_parse(again, text, len))
		abort();
	same(rc, again);
	free(text);
	/* Each key set to a new value: it reads back so. */
	for (size_t i = 0; rcfile_entry(rc, i, &e) && i < 8; i++)
		if (e.key) {
			char *key = strdup(e.key); /* the set frees the line's own */
			const char *v;

			if (key == NULL)
				abort();
			if (rcfile_set(rc, key, "v 1") == 0 && ((v = rcfile_get(rc, key, NULL)) == NULL || strcmp(v, "v 1")))
				abort();
			free(key);
		}
	rcfile_free(rc);
	rcfile_free(again);
	return 0;
}
