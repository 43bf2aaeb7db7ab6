/* SPDX-License-Identifier: GPL-2.0-or-later */
/* save: perf top's P. The table goes to a new file in the current
 * directory, perftop.hist.N (never one that is there), laid out as the
 * text dump (perftop -b) lays it out: written by src/output's dump from
 * the aggregation, at the tick, when the agg holds exactly the interval
 * the screen shows (the tick's roll would start the next). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "dump.h"
#include "keys.h"

unsigned save_key(struct ui *u, int key)
{
	if (u->final_taken) { /* no tick comes again: the agg has rolled past the screen's interval */
		ui_message(u, true, "P: the focused processes exited; no interval left to write (perftop -b writes runs)");
		return UI_DRAW;
	}
	u->save_pending = true;
	ui_message(u, false, "P: the table is written at the next refresh");
	return UI_DRAW;
}

/* A new perftop.hist.N; fd or -errno, its name in name. */
static int create_new(char *name, size_t len)
{
	for (unsigned n = 0; n < 100000; n++) {
		int fd;

		snprintf(name, len, "perftop.hist.%u", n);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

void save_write(struct ui *u, double lap)
{
	struct dump_meta m = {
		.time = clock_wall_s(), .interval = lap, .iteration = (unsigned long)u->frame_seq,
		.freq = u->freq, .period = u->period, .threads = u->threads, .children = u->o->children,
	};
	size_t rows = u->o->rows > u->nrows ? u->o->rows : u->nrows;
	char name[64];
	FILE *f;
	int fd, rc;

	u->save_pending = false;
	fd = create_new(name, sizeof(name));
	if (fd < 0) {
		ui_message(u, true, "P: cannot create %s in the current directory: %s", name, strerror(-fd));
		return;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		rc = -errno;
		close(fd);
	} else {
		rc = dump_interval(f, DUMP_TEXT, u->s, &m, rows);
		if (fclose(f) == EOF && rc == 0)
			rc = -errno;
	}
	if (rc) {
		unlink(name);
		ui_message(u, true, "P: cannot write %s: %s", name, strerror(-rc));
		return;
	}
	ui_message(u, false, "table saved to %s%s", name, u->paused ? " (the interval just ended: paused screen older)" : "");
}
