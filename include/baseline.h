/* SPDX-License-Identifier: GPL-2.0-or-later */
/* baseline: a table of shares to compare the rows with (B in the live
 * view, --baseline FILE): a row is known by its name and its DSO's file
 * name (a symbol row: the symbol; a --sort row: its keys' values but the
 * DSO, as agg_group_label joins them). Read from a perftop JSON Lines dump
 * (its last interval's "symbols", or "groups" with --sort) or from a pprof
 * profile (gzip'd or not: samples of each leaf function). Parsers of
 * untrusted bytes: bounded, never trusting a length. */
#ifndef PERFTOP_BASELINE_H
#define PERFTOP_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

struct baseline;

struct baseline *baseline_new(void);
void baseline_free(struct baseline *b);
void baseline_clear(struct baseline *b);
size_t baseline_len(const struct baseline *b);
/* name and dso (a path: its file name is kept; NULL or ""); share in
 * percent, added to what the key has. 0 or -ENOMEM. */
int baseline_add(struct baseline *b, const char *name, const char *dso, double share);
/* The key's share, 0 when the baseline has no such row. */
double baseline_share(const struct baseline *b, const char *name, const char *dso);

/* One line of a JSON Lines dump: its "groups" rows when keys are given
 * (n > 0, the --sort keys in order), else its "symbols" rows; refused, the
 * table is left empty. 0, -EINVAL
 * (not such a line), -ENOMEM. */
int baseline_parse_json(struct baseline *b, const char *text, size_t len, const enum agg_gkey *keys, size_t n);
/* A serialized pprof Profile (not gzip'd). 0, -EINVAL or -ENOMEM. */
int baseline_parse_pprof(struct baseline *b, const uint8_t *buf, size_t len);
/* A file of either kind (a gzip'd one is a pprof profile; else the last
 * line of a JSON Lines dump that parses); on failure err holds the user's
 * one line. 0 or -errno. */
int baseline_load(struct baseline *b, const char *path, const enum agg_gkey *keys, size_t n, char *err,
		  size_t errlen);

#endif
