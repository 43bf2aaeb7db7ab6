/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ratios: what two counts say together — IPC (instructions/cycles), cache
 * miss % (cache-misses/cache-references), branch miss % (branch-misses/
 * branches). From exact counters they are exact unless a part was scaled;
 * from sampled period sums they are estimates, and say so. */
#ifndef PERFTOP_RATIOS_H
#define PERFTOP_RATIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

enum ratio_kind { RATIO_IPC, RATIO_CACHE_MISS, RATIO_BRANCH_MISS, RATIO_COUNT };

struct ratio {
	bool valid;             /* both parts known and the denominator non-zero */
	bool estimate;          /* from samples, or from a scaled counter */
	double value;           /* IPC as is; the others in percent */
};

/* One count by event name: usable false when it was never counted. */
struct ratio_part {
	const char *name;
	uint64_t count;
	bool usable;
	bool estimate;
};

/* The one place the arithmetic lives: the first part whose name (modifiers
 * after ':' ignored) is each ratio's numerator or denominator is used. */
void ratios_compute(const struct ratio_part *parts, size_t n, struct ratio out[RATIO_COUNT]);

/* From a row's sampled period sums: estimates. enabled[i]: event i was on
 * (an event turned off has sums from another time span). */
void ratios_from_samples(const struct agg_event *ev, const bool *enabled, size_t nev,
			 const struct agg_counts *c, struct ratio out[RATIO_COUNT]);

/* From a focus-mode counter row: the interval's values or the totals. */
void ratios_from_counters(const char (*names)[EVSPEC_NAME_MAX], size_t n, const struct counter_row *r,
			  bool total, struct ratio out[RATIO_COUNT]);

/* A task row's ratios, the one merge the dump and the screen share: exact
 * counters (cr, may be NULL) win over the estimates from samples (c, may be
 * NULL). */
void ratios_task(const struct agg_event *ev, const bool *enabled, size_t nev, const struct agg_counts *c,
		 const char (*names)[EVSPEC_NAME_MAX], size_t ncnt, const struct counter_row *cr,
		 bool total, struct ratio out[RATIO_COUNT]);

/* "ipc", "cache_miss_pct", "branch_miss_pct": JSON keys. */
const char *ratios_key(enum ratio_kind k);
/* "IPC", "Miss%", "BrMiss%": column and line titles. */
const char *ratios_title(enum ratio_kind k);
/* "1.23", "~1.23", "4.5%", "~4.5%", or "-" when not valid. */
void ratios_format(const struct ratio *r, enum ratio_kind k, char *buf, size_t len);
/* True when any ratio is valid. */
bool ratios_any(const struct ratio r[RATIO_COUNT]);

#endif
