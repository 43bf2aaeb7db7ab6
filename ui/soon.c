/* SPDX-License-Identifier: GPL-2.0-or-later */
/* soon: what the live view shows before its interval comes round. The
 * first table comes early (htop draws its first figures at once, not after
 * a whole delay): the first tick is brought forward (session_tick_in),
 * again while there is nothing to show. And a row come on screen without
 * a %CPU is read again soon (taskcpu.c): a one-shot timerfd the main loop
 * watches asks for that redraw. */
#include <errno.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "session.h"
#include "ui.h"

/* The first tick's delay: some samples at any rate, and soon enough that
 * the table follows the header at once. */
#define SOON_FIRST 0.2

static int fd = -1;
static double draw_due;    /* CLOCK_MONOTONIC seconds; 0: none */
static double first_until; /* early ticks up to then */
static bool early;         /* the next tick is an early one */

int soon_fd(void)
{
	if (fd < 0)
		fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	return fd;
}

void soon_draw(double secs)
{
	double due = clock_mono_s() + secs;
	long ns = (long)(secs * 1e9);
	struct itimerspec its = { { 0, 0 }, { ns / 1000000000L, ns % 1000000000L } };

	if (fd < 0 || secs <= 0 || (draw_due > 0 && draw_due <= due))
		return;
	if (timerfd_settime(fd, 0, &its, NULL) == 0)
		draw_due = due;
}

bool soon_fire(void)
{
	uint64_t n;

	if (fd < 0 || (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN))
		return false;
	draw_due = 0;
	return true;
}

void soon_start(const struct ui *u)
{
	early = false;
	/* Short intervals come soon enough by themselves. */
	if (session_interval(u->s) < 4 * SOON_FIRST)
		return;
	first_until = clock_mono_s() + session_interval(u->s) / 2;
	early = session_tick_in(u->s, SOON_FIRST) == 0;
}

bool soon_early(void)
{
	bool was = early;

	early = false;
	return was;
}

void soon_again(const struct ui *u)
{
	if (u->fr.nsyms == 0 && u->fr.ntasks == 0 && clock_mono_s() + SOON_FIRST < first_until)
		early = session_tick_in(u->s, SOON_FIRST) == 0;
}
