/* SPDX-License-Identifier: GPL-2.0-or-later */
/* W under -p/-t: sched:sched_waking opened per CPU with a filter on the
 * woken's pid, the target's threads as ranges of consecutive tids. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engine.h"

int main(void)
{
	const pid_t one[] = { 42 };
	const pid_t mixed[] = { 107, 100, 101, 102, 200, 103, 300, 301, 101, -1, 0 };
	pid_t many[2000];
	char buf[4096], tiny[16];
	size_t n;

	n = engine_offcpu_waking_filter(one, 1, buf, sizeof(buf));
	CHECK_STR(buf, "pid == 42", "one thread");
	CHECK(n == strlen(buf), "its length told");
	engine_offcpu_waking_filter(mixed, sizeof(mixed) / sizeof(mixed[0]), buf, sizeof(buf));
	CHECK_STR(buf, "(pid >= 100 && pid <= 103) || pid == 107 || pid == 200 || (pid >= 300 && pid <= 301)",
		  "sorted, runs as ranges, twins once, -1 and 0 (no thread) left out");
	CHECK(engine_offcpu_waking_filter(mixed + 9, 2, buf, sizeof(buf)) == 0 && buf[0] == '\0',
	      "no thread: no filter (0)");
	CHECK(engine_offcpu_waking_filter(one, 1, tiny, 9) == 0 && tiny[0] == '\0',
	      "a filter that needs the whole buffer: 0, nothing half written");
	CHECK(engine_offcpu_waking_filter(one, 1, tiny, 10) == 9, "one byte more: it fits");
	for (size_t i = 0; i < 2000; i++)
		many[i] = (pid_t)(1000 + 2 * i); /* none consecutive */
	CHECK(engine_offcpu_waking_filter(many, 2000, buf, sizeof(buf)) == 0,
	      "2000 scattered threads: past the kernel's page, 0 (the caller opens per task)");
	for (size_t i = 0; i < 2000; i++)
		many[i] = (pid_t)(5000 + i);
	engine_offcpu_waking_filter(many, 2000, buf, sizeof(buf));
	CHECK_STR(buf, "(pid >= 5000 && pid <= 6999)", "2000 consecutive threads: one range");
	return check_done();
}
