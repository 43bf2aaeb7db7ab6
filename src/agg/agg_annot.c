/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_annot: per-instruction counts of the hottest and the wanted symbols
 * (include/agg.h). Stub: the API only, counting comes next. */
#include "agg_int.h"

#include <errno.h>

void agg_annot_keep(struct agg *a, size_t nsyms)
{
	(void)a;
	(void)nsyms;
}

int agg_annot_want(struct agg *a, uint64_t key, bool on)
{
	(void)a;
	(void)key;
	(void)on;
	return 0;
}

size_t agg_annot_counts(struct agg *a, uint64_t key, size_t ev, enum agg_scope scope,
			const struct agg_annot_count **out, bool *counting_since_open)
{
	(void)a;
	(void)key;
	(void)ev;
	(void)scope;
	*out = NULL;
	if (counting_since_open)
		*counting_since_open = false;
	return 0;
}

void agg_annot_stats(const struct agg *a, struct agg_annot_stats *st)
{
	(void)a;
	*st = (struct agg_annot_stats){ 0 };
}

size_t agg_annot_bytes_max(size_t nevents)
{
	return (size_t)(AGG_ANNOT_SYMS + AGG_ANNOT_WANT) * 2 * AGG_ANNOT_OFFSETS * (4 + 16 * nevents);
}
