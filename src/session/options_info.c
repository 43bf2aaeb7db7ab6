/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options_info: what the parsed options say, for the layers that run them.
 * The parser itself (src/cli/options.c) sits on top, beside main. */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcfile.h"

bool options_exporting(const struct options *o)
{
	return o->listen != NULL || o->textfile != NULL || o->push != NULL;
}

bool options_focused(const struct options *o)
{
	return o->pids != NULL || o->cgroup != NULL;
}

void options_free(struct options *o)
{
	free(o->events);
	free(o->counters);
	free(o->cpus);
	free(o->pids);
	rcfile_free(o->rc);
	memset(o, 0, sizeof(*o));
}

void options_target(const struct options *o, size_t ncpus, char *buf, size_t len)
{
	size_t off;

	if (o->cgroup) {
		snprintf(buf, len, "cgroup %s", o->cgroup);
	} else if (o->pids) {
		off = (size_t)snprintf(buf, len, "%s ", o->tids ? "TID" : "PID");
		for (size_t i = 0; i < o->npids && off < len; i++)
			off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," : "", (int)o->pids[i]);
	} else if (o->cpus) {
		off = (size_t)snprintf(buf, len, "CPU ");
		for (size_t i = 0; i < o->ncpus && off < len; i++)
			off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," : "", o->cpus[i]);
	} else {
		snprintf(buf, len, "system-wide (%zu CPUs)", ncpus);
	}
}
