#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Start-up benchmark: what a repeat start of perftop costs, with 0 and with
many (10 000) other processes running.

For each process count, SLEEPERS forks that many sleeping processes; then
each perftop given (this one, and --base, e.g. a build of an older commit)
runs `-b --format json -F FREQ -d DELAY -n 1` once to warm up (its
kernel-symbol cache is then written: the runs measured are repeat starts),
then RUNS times, the binaries taking turns so that the machine's noise
falls on both. Per run: perftop's own CPU (user + system, from wait4's
rusage: all its threads, start to exit) and the wall time from exec to its
first frame (the first JSON record; DELAY of it is the interval itself).
Medians and minimums; "named" counts the frames that name a symbol and,
of those, a kernel one. Each FREQ is run: at a low rate the figures are
perftop's own start-up; at the default 4000 Hz they include naming what
the machine runs (reading its programs' symbol tables), which on a busy
shared machine is most of it.
--callgrind adds one run of each under valgrind: the instructions of the
start-up alone (session_open and the kernel-symbol thread), in user space
(kernel work, such as formatting /proc/kallsyms or /proc/PID/maps, is not
counted there: see the sys column).

usage: startup_bench.py PERFTOP SLEEPERS [--base OLD_PERFTOP] [--procs 0,10000]
                        [--freqs 10,4000] [--runs 7] [--delay 0.05] [--callgrind]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time


class Sleepers:
    """N sleeping processes, killed (and reaped) on exit however it goes."""

    def __init__(self, path, n):
        self.p = subprocess.Popen([path, str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline().split()
        if len(line) != 2 or line[0] != "ready" or int(line[1]) != n:
            self.close()
            raise RuntimeError("sleepers did not start %d processes (%r): see ulimit -u and "
                               "kernel.pid_max" % (n, line))

    def close(self):
        try:
            self.p.stdin.close()  # EOF: it kills and reaps them
            self.p.wait(timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()  # its children die with it (PR_SET_PDEATHSIG)
            self.p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def named(rec):
    """(any symbol named, a kernel symbol named) in a JSON record."""
    syms = [s for s in rec.get("symbols", []) if s.get("symbol") != "[unknown]"]
    return bool(syms), any(s.get("kernel") for s in syms)


def run(perftop, delay, freq):
    """One run, forked here so that wait4 hands back its own rusage."""
    argv = [perftop, "-b", "--format", "json", "-F", str(freq), "-d", str(delay), "-n", "1", "-E", "50"]
    r, w = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(w, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.execv(perftop, argv)
    os.close(w)
    with os.fdopen(r) as f:
        line = f.readline()
        first = (time.monotonic() - t0) * 1000
        f.read()
    _, status, ru = os.wait4(pid, 0)
    rec = json.loads(line) if line.strip() else {}
    return {"cpu": (ru.ru_utime + ru.ru_stime) * 1000, "user": ru.ru_utime * 1000, "sys": ru.ru_stime * 1000,
            "first": first, "named": named(rec), "ok": os.waitstatus_to_exitcode(status) == 0 and rec}


def callgrind(perftop, delay, freq):
    """User-space instructions of the start-up alone (session_open, and the
    thread that loads the kernel's symbols), not of naming the samples."""
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        "--toggle-collect=session_open", "--toggle-collect=load_kernel", perftop, "-b",
                        "--format", "json", "-F", str(freq), "-d", str(delay), "-n", "1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    return int(m.group(1)) if m else None


def measure(bins, n, freq, a, summary):
    for _, path in bins:
        run(path, a.delay, freq)  # warm-up: the cache is written, pages are in
    res = {label: [] for label, _ in bins}
    for _ in range(a.runs):
        for label, path in bins:
            res[label].append(run(path, a.delay, freq))
    for label, path in bins:
        rs = [x for x in res[label] if x["ok"]]
        if not rs:
            print("%7d %5d %-5s: no run succeeded" % (n, freq, label))
            continue
        cpu = [x["cpu"] for x in rs]
        first = [x["first"] for x in rs]
        ir = callgrind(path, a.delay, freq) if a.callgrind else None
        summary[(n, freq, label)] = (statistics.median(cpu), statistics.median(first), ir)
        print("%7d %5d %-5s %8.1f (%5.1f) %7.1f %7.1f %9.1f (%5.1f) %3d/%-3d %14s" % (
            n, freq, label, statistics.median(cpu), min(cpu), statistics.median(x["user"] for x in rs),
            statistics.median(x["sys"] for x in rs), statistics.median(first), min(first),
            sum(1 for x in rs if x["named"][0]), sum(1 for x in rs if x["named"][1]),
            "{:,}".format(ir) if ir else "-"))
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perftop")
    ap.add_argument("sleepers")
    ap.add_argument("--base", help="another perftop to compare with (e.g. an older build)")
    ap.add_argument("--procs", default="0,10000")
    ap.add_argument("--freqs", default="10,4000")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    bins = [("this", os.path.abspath(a.perftop))]
    if a.base:
        bins.append(("base", os.path.abspath(a.base)))
    print("start-up: -b --format json -F HZ -d %g -n 1, repeat starts; medians (min) of %d runs; %d CPUs, "
          "load %s" % (a.delay, a.runs, os.cpu_count(), open("/proc/loadavg").read().split()[0]))
    print("%7s %5s %-5s %15s %7s %7s %17s %7s %14s" % ("procs", "Hz", "bin", "CPU ms", "user", "sys",
                                                       "first frame ms", "named", "callgrind Ir"))
    summary = {}
    for n in [int(x) for x in a.procs.split(",")]:
        with Sleepers(a.sleepers, n):
            time.sleep(1.0)
            for freq in [int(x) for x in a.freqs.split(",")]:
                measure(bins, n, freq, a, summary)
    if a.base:
        for n, freq, _ in sorted(k for k in summary if k[2] == "this" and (k[0], k[1], "base") in summary):
            t, b = summary[(n, freq, "this")], summary[(n, freq, "base")]
            print("%d processes, %d Hz: CPU %.2f of base's, first frame %.2f%s" % (
                n, freq, t[0] / b[0], t[1] / b[1],
                ", instructions %.2f" % (t[2] / b[2]) if t[2] and b[2] else ""))


if __name__ == "__main__":
    main()
