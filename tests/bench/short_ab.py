#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Short whole runs of two perftop builds, taking turns, each started at the
same moment as a fresh perf top (both in tmux, 160x50, on WORKLOAD split
load on every CPU): what a start, its first frames and its quit cost where
perftop is measured, beside a starting perf top whose first seconds name
dozens of programs.

Each run is `PERFTOP ARGS` (give it -n, e.g. `-F 4000 -n 2 -d 1`, or -b)
under a small parent reporting its rusage once it exited (all threads,
exec to exit) and its minor faults. A then B, then B then A, and so on,
so that the machine's drift falls on both. Medians, and in how many pairs
B was lower. --no-perf leaves perf top out.

usage: short_ab.py REPS PERFTOP_A PERFTOP_B WORKLOAD [--no-perf] -- ARGS...
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

WRAPPER = r"""
import os, sys
out = sys.argv[1]
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, ru = os.wait4(pid, 0)
with open(out + ".tmp", "w") as f:
    f.write("%.6f %.6f %d %d\n" % (ru.ru_utime, ru.ru_stime, ru.ru_minflt, status))
os.rename(out + ".tmp", out)
"""


def tmux(*args):
    return subprocess.run(["tmux", *args], capture_output=True)


def one(perftop, args, with_perf):
    out = "/tmp/short_ab.%d.out" % os.getpid()
    if os.path.exists(out):
        os.unlink(out)
    if with_perf:
        tmux("new-session", "-d", "-s", "short-ab-pt", "-x", "160", "-y", "50", "perf top -e cpu-clock -F 4000")
    tmux("new-session", "-d", "-s", "short-ab", "-x", "160", "-y", "50",
         " ".join(shlex.quote(x) for x in ["python3", "-c", WRAPPER, out, perftop] + args) + " 2>/dev/null")
    deadline = time.time() + 120
    while not os.path.exists(out) and time.time() < deadline:
        time.sleep(0.05)
    tmux("kill-session", "-t", "short-ab")
    if with_perf:
        tmux("send-keys", "-t", "short-ab-pt", "q")
        time.sleep(0.7)
        tmux("kill-session", "-t", "short-ab-pt")
    if not os.path.exists(out):
        raise RuntimeError("%s did not end: give it -n" % perftop)
    with open(out) as f:
        ut, st, flt, status = f.read().split()
    os.unlink(out)
    return 1e3 * (float(ut) + float(st)), int(flt), int(status)


def main():
    argv = sys.argv[1:]
    if "--" not in argv or len(argv[:argv.index("--")]) < 4:
        print(__doc__.strip().splitlines()[-1])
        return 2
    head, args = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    with_perf = "--no-perf" not in head
    head = [h for h in head if h != "--no-perf"]
    reps, bins, workload = int(head[0]), head[1:3], head[3]
    load = []
    for _ in range(os.cpu_count() or 1):
        p = subprocess.Popen([workload, "split", "6,3,1", "3600"], stdout=subprocess.PIPE, text=True)
        p.stdout.readline()
        load.append(p)
    ms, flt = [[], []], [[], []]
    try:
        for i in range(reps):
            for k in ((0, 1) if i % 2 == 0 else (1, 0)):
                t, f, status = one(bins[k], args, with_perf)
                if status != 0:
                    print("# %s exited with status %d" % (bins[k], status))
                ms[k].append(t)
                flt[k].append(f)
                time.sleep(0.3)
    finally:
        for p in load:
            p.kill()
            p.wait()
    for k in range(2):
        print("%s %s: median %.1f ms, %d minor faults  [%s]" % ("AB"[k], bins[k], statistics.median(ms[k]),
              statistics.median(flt[k]), " ".join("%.1f" % x for x in ms[k])))
    print("B/A %.3f; B lower in %d of %d pairs" % (statistics.median(ms[1]) / statistics.median(ms[0]),
          sum(b < a for a, b in zip(*ms)), reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
