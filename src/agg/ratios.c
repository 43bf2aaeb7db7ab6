/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ratios.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *key, *title;
	const char *num[2], *den[2];    /* names, then their aliases */
	double scale;
} defs[RATIO_COUNT] = {
	[RATIO_IPC] = { "ipc", "IPC", { "instructions", NULL }, { "cycles", "cpu-cycles" }, 1.0 },
	[RATIO_CACHE_MISS] = { "cache_miss_pct", "Miss%", { "cache-misses", NULL },
			       { "cache-references", NULL }, 100.0 },
	[RATIO_BRANCH_MISS] = { "branch_miss_pct", "BrMiss%", { "branch-misses", NULL },
				{ "branches", "branch-instructions" }, 100.0 },
};

/* "cycles:u" is cycles: a modifier changes what is counted, not what it is. */
static bool name_is(const char *name, const char *const alias[2])
{
	size_t len = strcspn(name, ":");

	for (size_t i = 0; i < 2 && alias[i]; i++)
		if (strlen(alias[i]) == len && strncmp(name, alias[i], len) == 0)
			return true;
	return false;
}

static const struct ratio_part *find(const struct ratio_part *parts, size_t n,
				     const char *const alias[2])
{
	for (size_t i = 0; i < n; i++)
		if (parts[i].name && name_is(parts[i].name, alias))
			return &parts[i];
	return NULL;
}

void ratios_compute(const struct ratio_part *parts, size_t n, struct ratio out[RATIO_COUNT])
{
	for (size_t k = 0; k < RATIO_COUNT; k++) {
		const struct ratio_part *num = find(parts, n, defs[k].num);
		const struct ratio_part *den = find(parts, n, defs[k].den);

		memset(&out[k], 0, sizeof(out[k]));
		if (!num || !den || !num->usable || !den->usable || den->count == 0)
			continue;
		out[k].valid = true;
		out[k].estimate = num->estimate || den->estimate;
		out[k].value = defs[k].scale * (double)num->count / (double)den->count;
	}
}

void ratios_from_samples(const struct agg_event *ev, const bool *enabled, size_t nev,
			 const struct agg_counts *c, struct ratio out[RATIO_COUNT])
{
	struct ratio_part parts[AGG_MAX_EVENTS];
	size_t n = nev < AGG_MAX_EVENTS ? nev : AGG_MAX_EVENTS;

	for (size_t i = 0; i < n; i++) {
		parts[i].name = ev[i].name;
		parts[i].count = c->period[i];
		/* An event turned off has sums from another time span. */
		parts[i].usable = enabled[i];
		parts[i].estimate = true;
	}
	ratios_compute(parts, n, out);
}

void ratios_from_counters(const char (*names)[EVSPEC_NAME_MAX], size_t n, const struct counter_row *r,
			  bool total, struct ratio out[RATIO_COUNT])
{
	struct ratio_part parts[COUNTERS_MAX];

	if (n > COUNTERS_MAX)
		n = COUNTERS_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct counter_value *v = &r->v[i];

		parts[i].name = names[i];
		parts[i].count = total ? v->total : v->value;
		parts[i].usable = v->state == COUNTER_OK || v->state == COUNTER_SCALED;
		parts[i].estimate = v->state == COUNTER_SCALED;
	}
	ratios_compute(parts, n, out);
}

void ratios_task(const struct agg_event *ev, const bool *enabled, size_t nev, const struct agg_counts *c,
		 const char (*names)[EVSPEC_NAME_MAX], size_t ncnt, const struct counter_row *cr,
		 bool total, struct ratio out[RATIO_COUNT])
{
	struct ratio exact[RATIO_COUNT];

	if (c)
		ratios_from_samples(ev, enabled, nev, c, out);
	else
		memset(out, 0, sizeof(*out) * RATIO_COUNT);
	if (cr == NULL)
		return;
	ratios_from_counters(names, ncnt, cr, total, exact);
	for (size_t k = 0; k < RATIO_COUNT; k++)
		if (exact[k].valid)
			out[k] = exact[k];
}

const char *ratios_key(enum ratio_kind k)
{
	return k < RATIO_COUNT ? defs[k].key : "";
}

const char *ratios_title(enum ratio_kind k)
{
	return k < RATIO_COUNT ? defs[k].title : "";
}

void ratios_format(const struct ratio *r, enum ratio_kind k, char *buf, size_t len)
{
	const char *mark = r->estimate ? "~" : "";

	if (!r->valid)
		snprintf(buf, len, "-");
	else if (k == RATIO_IPC)
		snprintf(buf, len, "%s%.2f", mark, r->value);
	else
		snprintf(buf, len, "%s%.1f%%", mark, r->value);
}

bool ratios_any(const struct ratio r[RATIO_COUNT])
{
	for (size_t k = 0; k < RATIO_COUNT; k++)
		if (r[k].valid)
			return true;
	return false;
}
