#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A/B of two perftop builds' own CPU in steady state (issue 47: the cost of
per-instruction counts, this build against one without them).

Each round runs A then B (then B then A next round, so neither always goes
first) as perftop -b --format json -e cpu-clock -F RATE system-wide while
the workload keeps every CPU busy; each one's CPU (schedstat of its threads)
is read over SECS after a WARM-second warm-up, per sample it took. Prints
each run, then the medians and the median of the rounds' B/A ratios.

usage: annot_ab.py PERFTOP_A PERFTOP_B WORKLOAD [--rate 4000] [--secs 10] [--warm 2] [--rounds 9] [--args ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_bench import proc_cpu, proc_hwm_kib, start_load, stop_load  # noqa: E402


def run(perftop, rate, secs, warm, extra):
    p = subprocess.Popen([perftop, "-b", "--format", "json", "-e", "cpu-clock", "-F", str(rate), "-d", "1",
                          "-E", "5", *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(warm)
    c0 = proc_cpu(p.pid)
    r0 = time.time()
    time.sleep(secs)
    c1 = proc_cpu(p.pid)
    hwm = proc_hwm_kib(p.pid)
    p.send_signal(2)
    out = p.stdout.read()
    p.wait()
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    # Samples of the window: the intervals that ended in it, scaled to its length.
    samples = sum(x["events"][0]["samples"] for x in recs[int(warm):])
    span = max(len(recs) - int(warm), 1)
    per_sample = (c1 - c0) / max(samples * secs / span, 1)
    return c1 - c0, per_sample * 1e6, hwm / 1024, time.time() - r0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("workload")
    ap.add_argument("--rate", type=int, default=4000)
    ap.add_argument("--secs", type=float, default=10)
    ap.add_argument("--warm", type=float, default=2)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--args", nargs=argparse.REMAINDER, default=[])
    a = ap.parse_args()
    res = {"A": [], "B": []}
    ratios = []
    for i in range(a.rounds):
        load = start_load(a.workload, int(2 * (a.secs + a.warm) + 30))
        try:
            order = [("A", a.a), ("B", a.b)] if i % 2 == 0 else [("B", a.b), ("A", a.a)]
            got = {}
            for name, exe in order:
                got[name] = run(exe, a.rate, a.secs, a.warm, a.args)
                res[name].append(got[name])
                print("round %d %s: cpu %.3f s, %.2f us/sample, HWM %.1f MiB" % (i, name, got[name][0], got[name][1],
                                                                               got[name][2]), flush=True)
            ratios.append(got["B"][0] / got["A"][0])
        finally:
            stop_load(load)
    med = {k: [statistics.median(x[j] for x in v) for j in range(3)] for k, v in res.items()}
    print("A %s: cpu %.3f s, %.2f us/sample, HWM %.1f MiB (medians of %d)" % (a.a, *med["A"], a.rounds))
    print("B %s: cpu %.3f s, %.2f us/sample, HWM %.1f MiB" % (a.b, *med["B"]))
    print("B/A: ratio of medians %.3f, median of round ratios %.3f (%.3f-%.3f)"
          % (med["B"][0] / med["A"][0], statistics.median(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
