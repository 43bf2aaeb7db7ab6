/* SPDX-License-Identifier: GPL-2.0-or-later */
/* textfile: DIR/perftop.prom for node_exporter's textfile collector,
 * replaced atomically (a temp file in DIR, fsync, rename) each interval. */
#ifndef PERFTOP_TEXTFILE_H
#define PERFTOP_TEXTFILE_H

#include <stddef.h>

struct textfile;
struct metrics_figures;

#define TEXTFILE_NAME "perftop.prom"

/* Checks that DIR takes files now: a mistake shows at start, not later. */
int textfile_open(struct textfile **out, const char *dir, char *err, size_t errlen);
void textfile_close(struct textfile *t);
/* Failures after the start are counted (perftop_textfile_errors_total),
 * not printed over the live view. */
int textfile_write(struct textfile *t, const char *text, size_t len);
/* Adds its own figures (t may be NULL). */
void textfile_figures(const struct textfile *t, struct metrics_figures *f);

#endif
