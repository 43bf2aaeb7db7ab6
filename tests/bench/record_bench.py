#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--record's cost (issue 48): perftop watching (-b, a dump each second)
and recording, perf record on the same run beside it (started together,
same event, rate and length, system-wide), then perftop watching without
recording beside perf record again (so that both perftop runs bear the
same sampling interrupts), each on the same workload. Reports each tool's CPU (user +
system, its whole run, from wait4) and file size, medians of REPS.

usage: record_bench.py PERFTOP WORKLOAD [--rates 4000,20000] [--secs 10] [--reps 3] [--callgraph]
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import tempfile
import time


def start(cmd):
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=os.setsid)


def stop(p):
    """SIGINT, as a user ends both tools; the CPU of the whole run."""
    os.killpg(p.pid, signal.SIGINT)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def samples(f):
    """The samples in a file, as perf counts them (perf report --stats)."""
    out = subprocess.run(["perf", "report", "-i", f, "--stats"], capture_output=True, text=True).stdout
    m = re.search(r"^\s*SAMPLE events:\s+(\d+)", out, re.M)
    return int(m.group(1)) if m else 0


def one(perftop, workload, rate, secs, cg, tmp):
    wl = subprocess.Popen([workload, "split", "6,3,1", str(secs + 4)], stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    g = ["-g"] if cg else []
    pt_file, pr_file = os.path.join(tmp, "pt.data"), os.path.join(tmp, "pr.data")
    for f in (pt_file, pr_file):
        if os.path.exists(f):
            os.unlink(f)
    pt = start([perftop, "-b", "-F", str(rate), "-d", "1", "-o", os.devnull, "--record", pt_file] + g)
    pr = start(["perf", "record", "-a", "-q", "-e", "cpu-clock", "-F", str(rate), "-o", pr_file] + g)
    time.sleep(secs)
    cpu_pt, cpu_pr = stop(pt), stop(pr)
    res = {}
    res["n_pt"], res["n_pr"] = samples(pt_file), samples(pr_file)
    res.update({"cpu_pt": cpu_pt, "cpu_pr": cpu_pr, "size_pt": os.path.getsize(pt_file),
                "size_pr": os.path.getsize(pr_file)})
    # perftop watching without recording, beside perf record again (the
    # same interrupt load): what recording adds to watching.
    pw = start([perftop, "-b", "-F", str(rate), "-d", "1", "-o", os.devnull] + g)
    pr = start(["perf", "record", "-a", "-q", "-e", "cpu-clock", "-F", str(rate), "-o", pr_file] + g)
    time.sleep(secs)
    res["cpu_watch"], _ = stop(pw), stop(pr)
    wl.kill()
    wl.wait()
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perftop")
    ap.add_argument("workload")
    ap.add_argument("--rates", default="4000,20000")
    ap.add_argument("--secs", type=float, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--callgraph", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("rate  | perftop -b --record CPU s | perf record CPU s | ratio | perftop -b without --record CPU s | "
              "file perftop / perf (bytes a sample)")
        for rate in [int(x) for x in a.rates.split(",")]:
            runs = [one(a.perftop, a.workload, rate, a.secs, a.callgraph, tmp) for _ in range(a.reps)]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print("%5d | %.3f | %.3f | %.2f | %.3f | %.0f / %.0f B (%.1f / %.1f)" % (
                rate, med["cpu_pt"], med["cpu_pr"], med["cpu_pt"] / med["cpu_pr"] if med["cpu_pr"] else 0,
                med["cpu_watch"], med["size_pt"], med["size_pr"],
                med["size_pt"] / med["n_pt"] if med["n_pt"] else 0,
                med["size_pr"] / med["n_pr"] if med["n_pr"] else 0))


main()
