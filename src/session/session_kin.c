/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_kin: the parents the agg does not know yet, read from
 * /proc/PID/stat at the interval's end (never on the sample path): the
 * process rows' and, a level a round, their ancestors' up to a root. */
#include "session.h"
#include "procstat.h"

#define KIN_BATCH 64
#define KIN_ROUNDS 16   /* levels read an interval at most */

void session_kin_update(struct session *s)
{
	pid_t miss[KIN_BATCH];
	struct procstat_task pt;

	for (int r = 0; r < KIN_ROUNDS; r++) {
		size_t n = agg_kin_missing(s->agg, miss, KIN_BATCH);

		if (n == 0)
			break;
		for (size_t i = 0; i < n; i++) {
			/* Gone: a root from now on, not read again. */
			if (procstat_task(miss[i], 0, &pt) != 0)
				agg_kin_note(s->agg, miss[i], 0, NULL);
			else
				agg_kin_note(s->agg, miss[i], pt.ppid, pt.comm);
		}
	}
}
