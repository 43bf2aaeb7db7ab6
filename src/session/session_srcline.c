/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_srcline: --sort srcline's addresses named "file:line" from the
 * DWARF line table of the file a process mapped (through its
 * /proc/PID/root, as the annotations open it; a replay names the recorded
 * path only), or its separate debug file. agg asks at the read after an
 * address's first sample, never on the sample path; srcline.c keeps one
 * open DWARF per file identity and a bounded memo of addresses. */
#include <limits.h>
#include <unistd.h>

#include "session.h"
#include "srcline.h"
#include "util.h"

static bool name_line(void *ctx, const struct agg_srcline_q *q, char *out, size_t len)
{
	struct session *s = ctx;
	char path[PATH_MAX];
	const char *at = q->dso;

	if (q->dso == NULL || q->dso[0] != '/')
		return false; /* [unknown], //anon, JIT maps: no file to read */
	if (s->lines == NULL && (s->lines = srcline_cache_new(NULL)) == NULL)
		return false;
	if (s->replay == NULL && q->pid > 0 &&
	    util_pathf(path, sizeof(path), "/proc/%d/root%s", (int)q->pid, q->dso) == 0 && access(path, R_OK) == 0)
		at = path;
	return srcline_addr(s->lines, at, q->build_id, q->build_id_len, q->addr, false, out, len);
}

void session_srcline_on(struct session *s)
{
	if (s->agg)
		agg_group_srcline_fn(s->agg, name_line, s);
}

void session_srcline_free(struct session *s)
{
	srcline_cache_free(s->lines);
	s->lines = NULL;
}
