/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfsys: the one line an open's errno becomes; the engine's notice
 * carrying several fallbacks at once, and its enabled flags. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "engine_int.h"
#include "perfsys.h"

#define HAS(buf, s) (strstr((buf), (s)) != NULL)

int main(void)
{
	char buf[512];
	struct perfsys_what sys = { "event cycles (CPU 0)", 0, -1, 0, 2 };
	struct perfsys_what task = { "event cycles (CPU 1, TID 42)", 1, 42, 0, 2 };
	struct engine e;

	perfsys_strerror(buf, sizeof(buf), EACCES, &sys);
	CHECK(HAS(buf, "event cycles (CPU 0): permission denied") && HAS(buf, "perf_event_paranoid is 2") &&
	      HAS(buf, "CAP_PERFMON") && HAS(buf, "kernel.perf_event_paranoid=0") && HAS(buf, "-p PID"),
	      "system-wide EACCES: level, CAP_PERFMON, paranoid 0, -p: %s", buf);
	perfsys_strerror(buf, sizeof(buf), EPERM, &task);
	CHECK(HAS(buf, "TID 42): permission denied") && HAS(buf, "perf_event_paranoid is 2") &&
	      HAS(buf, "own processes") && HAS(buf, "kernel.perf_event_paranoid=1"),
	      "per-task EPERM: own processes, paranoid 1 for kernel samples: %s", buf);
	perfsys_strerror(buf, sizeof(buf), ENOENT, &task);
	CHECK(HAS(buf, "not supported") && HAS(buf, "ENOENT") && HAS(buf, "--list-events"), "ENOENT: %s", buf);
	perfsys_strerror(buf, sizeof(buf), ENODEV, &task);
	CHECK(HAS(buf, "CPU 1 is offline"), "ENODEV names the CPU: %s", buf);
	perfsys_strerror(buf, sizeof(buf), ESRCH, &task);
	CHECK(HAS(buf, "no such process or thread 42"), "ESRCH names the PID: %s", buf);

	/* -G of a plain directory: said as such, with where cgroup2 is, not
	 * as perf_event_open's EBADF. */
	int fd = perfsys_cgroup_open("/tmp", buf, sizeof(buf));

	CHECK(fd == -ENOTDIR && HAS(buf, "-G /tmp: not a cgroup v2 directory") &&
	      (HAS(buf, "cgroup2 is mounted at /") || HAS(buf, "no cgroup2 is mounted")),
	      "-G /tmp: not a cgroup v2 directory, and where one is: %s", buf);
	fd = perfsys_cgroup_open("/nonexistent-cgroup", buf, sizeof(buf));
	CHECK(fd == -ENOENT && HAS(buf, "-G /nonexistent-cgroup: cannot open it"), "-G of nothing: %s", buf);
	task.fds_needed = 1234;
	perfsys_strerror(buf, sizeof(buf), EMFILE, &task);
	CHECK(HAS(buf, "out of file descriptors: 1234 needed") && HAS(buf, "ulimit -n 1234"), "EMFILE: %s", buf);
	perfsys_strerror(buf, sizeof(buf), EINVAL, &task);
	CHECK(HAS(buf, "EINVAL") && HAS(buf, "kernel.perf_event_max_sample_rate"), "EINVAL: %s", buf);
	perfsys_strerror(buf, sizeof(buf), EBUSY, &task);
	CHECK(HAS(buf, "perf_event_open failed") && HAS(buf, strerror(EBUSY)), "other errno: %s", buf);
	CHECK(perfsys_open(NULL, 0, -1, -1, 0) < 0, "the wrapper returns -errno");

	memset(&e, 0, sizeof(e));
	CHECK(engine_notice(&e) == NULL, "no fallback, no notice");
	engine_events_notice(&e, "kernel sampling not permitted (kernel.perf_event_paranoid=%d): sampling user "
			  "space only (%s:u)", 2, "cycles");
	engine_events_notice(&e, "cycles not supported here (ENOENT: no hardware PMU): sampling cpu-clock instead");
	CHECK(engine_notice(&e) && HAS(engine_notice(&e), "user space only (cycles:u); cycles not supported"),
	      "both fallbacks in one notice: %s", engine_notice(&e));
	{
		bool en[2] = { true, false };

		e.o.nevents = 2;
		e.enabled = en;
		CHECK(engine_event_enabled(&e, 0) && !engine_event_enabled(&e, 1) && !engine_event_enabled(&e, 2),
		      "engine_event_enabled: the engine's own flags, false past the end");
	}
	return check_done();
}
