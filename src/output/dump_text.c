/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump_text: a cell of the text dump, for every table's lines. */
#include "dump_rows.h"

#include <stdlib.h>
#include <string.h>

#include "sanitize.h"

/* Columns of UTF-8 text (sanitised: valid UTF-8 only), one a code point. */
static size_t text_cols(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* s made safe and set in a column of width (0: as long as it is): never
 * cut silently — what does not fit ends in an ellipsis; padded to width
 * unless last. A name sanitize would have cut is whole here (malloc'd). */
void dump_text_cell(FILE *f, const char *s, size_t width, bool last)
{
	size_t cap = 4 * strlen(s) + 1, len, cols; /* a byte's escape is 4 at most */
	char small[256], *buf = cap <= sizeof(small) ? small : malloc(cap);

	if (buf == NULL) {
		fputs("?", f); /* out of memory: a mark, not a cut name */
		return;
	}
	len = sanitize(buf, cap, s);
	cols = text_cols(buf, len);
	if (width && cols > width) {
		size_t i = 0;

		for (size_t k = 0; k + 1 < width; k++) /* width - 1 code points, then the mark */
			for (i++; i < len && ((unsigned char)buf[i] & 0xc0) == 0x80; i++)
				;
		fprintf(f, "%.*s\xe2\x80\xa6", (int)i, buf); /* U+2026, the ellipsis */
		cols = width;
	} else {
		fputs(buf, f);
	}
	if (buf != small)
		free(buf);
	for (; !last && cols < width; cols++)
		fputc(' ', f);
}
