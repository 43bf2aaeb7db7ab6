/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare: the Symbols view against a baseline (B keeps the table shown;
 * --baseline FILE gives one from the start): a Delta column, the change in
 * share, coloured, sortable as any column. Rows are matched by symbol and
 * DSO, --sort's rows by their keys (baseline.h). */
#include <stdio.h>
#include <stdlib.h>

#include "baseline.h"
#include "ui.h"

bool compare_on(const struct ui *u)
{
	return u->baseline != NULL;
}

double compare_delta(const struct ui *u, const void *row)
{
	const struct agg_sym *r = row;
	const struct agg_counts *c = ui_scope(u) == AGG_INTERVAL ? &r->iv : &r->total;
	uint64_t base = ui_base(u, ui_primary(u));
	double share = base ? 100.0 * (double)c->samples[ui_primary(u)] / (double)base : 0.0;

	return share - baseline_share(u->baseline, r->sym, r->dso);
}

void compare_text(const struct ui *u, const void *row, char *buf, size_t len)
{
	double d = compare_delta(u, row);

	/* -0.00 and +0.00 read as no change */
	snprintf(buf, len, d > -0.005 && d < 0.005 ? "%.2f" : "%+.2f", d > -0.005 && d < 0.005 ? 0.0 : d);
}

enum ui_role compare_role(const struct ui *u, const void *row)
{
	double d = compare_delta(u, row);

	return d >= 0.005 ? R_WARN : d <= -0.005 ? R_METER : R_NORMAL;
}

/* B: the table shown now becomes the baseline (the interval's, or since
 * start with c), every row of the frame, filtered or not. */
unsigned compare_key(struct ui *u, int key)
{
	uint64_t base = ui_base(u, ui_primary(u));
	size_t ev = ui_primary(u);

	if (u->own_baseline == NULL && (u->own_baseline = baseline_new()) == NULL) {
		ui_message(u, true, "B: no memory for a baseline");
		return UI_DRAW;
	}
	baseline_clear(u->own_baseline);
	for (size_t i = 0; i < u->fr.nsyms; i++) {
		const struct agg_sym *r = &u->fr.syms[i];
		const struct agg_counts *c = ui_scope(u) == AGG_INTERVAL ? &r->iv : &r->total;

		if (c->samples[ev] && base &&
		    baseline_add(u->own_baseline, r->sym, r->dso, 100.0 * (double)c->samples[ev] / (double)base)) {
			ui_message(u, true, "B: no memory for the baseline's rows");
			baseline_clear(u->own_baseline);
			return UI_DRAW;
		}
	}
	u->baseline = u->own_baseline;
	u->view = VIEW_SYMBOLS;
	ui_message(u, false, "baseline: this table (%zu rows); Delta is the change in share since (B: again)",
		   baseline_len(u->baseline));
	return UI_RESORT;
}

void compare_free(struct ui *u)
{
	baseline_free(u->own_baseline);
	u->own_baseline = NULL;
	u->baseline = NULL;
}
