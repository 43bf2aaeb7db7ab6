/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump_annot: --sym-annotate's annotations in the dump (dump_annot.c). */
#ifndef PERFTOP_DUMP_ANNOT_H
#define PERFTOP_DUMP_ANNOT_H

#include "dump_rows.h"

struct json;

/* Wants the names (agg_annot_want_name) before the first sample: 0 or -ENOMEM. */
int dump_annot_begin(const struct session *s);
/* The interval's annotations, after the tables: text as perf annotate
 * --stdio, JSON as the top-level "annotate" list (nothing without
 * --sym-annotate). */
void dump_annot_text(struct dctx *c);
void dump_annot_json(struct dctx *c, struct json *j);
/* --stats: what the per-instruction counts hold (agg_annot_stats); in JSON
 * dump_annot_json writes them as "annotate_counts". */
void dump_annot_stats_text(struct dctx *c);

#endif
