#!/usr/bin/env python3
"""Live benchmark: perftop -b against `perf top` on the same workload.

For each rate, alternately runs each tool for SECS seconds while the workload
keeps both CPUs busy, and reports medians over REPS runs of each tool's own
CPU time per sample, peak RSS and lost samples. perf top needs a tty, so it
runs inside tmux. Both sample cpu-clock system-wide: samples = rate x CPUs x
time for perf top (it does not print a count we can read reliably); perftop's
count is its own.

usage: live_bench.py PERFTOP WORKLOAD [--rates 4000,20000,50000] [--secs 5] [--reps 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def proc_hwm_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def start_load(workload, secs):
    procs = []
    for _ in range(os.cpu_count()):
        p = subprocess.Popen([workload, "split", "6,3,1", str(secs)], stdout=subprocess.PIPE, text=True)
        p.stdout.readline()
        procs.append(p)
    return procs


def stop_load(procs):
    for p in procs:
        p.kill()
        p.wait()


def perftop_with_rusage(perftop, rate, secs):
    """Runs perftop and returns (cpu seconds, samples, lost, max rss KiB)."""
    r = subprocess.Popen([perftop, "-b", "--format", "json", "-e", "cpu-clock", "-F", str(rate),
                          "-d", "1", "-n", str(secs), "-E", "5"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = r.stdout.read()
    _, status, ru = os.wait4(r.pid, 0)
    r.returncode = status
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    samples = sum(x["events"][0]["samples"] for x in recs)
    lost = sum(x["events"][0]["lost"] for x in recs)
    return ru.ru_utime + ru.ru_stime, samples, lost, ru.ru_maxrss


def perf_top(rate, secs):
    """Runs perf top in tmux; returns (cpu seconds, expected samples, max rss KiB, lost or None)."""
    name = "bench-perftop-%d" % os.getpid()
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50",
                    "perf top -e cpu-clock -F %d 2>/dev/null" % rate], check=True)
    pid = None
    for _ in range(100):
        r = subprocess.run(["pgrep", "-n", "-x", "perf"], capture_output=True, text=True)
        if r.stdout.strip():
            pid = int(r.stdout.split()[0])
            break
        time.sleep(0.02)
    if pid is None:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        raise RuntimeError("perf top did not start")
    c0 = proc_cpu(pid)
    t0 = time.time()
    time.sleep(secs)
    cpu = proc_cpu(pid) - c0
    elapsed = time.time() - t0
    hwm = proc_hwm_kib(pid)
    screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True,
                            text=True).stdout
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    lost = None
    for line in screen.splitlines():
        if "LOST" in line.upper():
            lost = line.strip()
    return cpu, rate * os.cpu_count() * elapsed, hwm, lost


def first_dump_ms(perftop, reps):
    """Time from exec to the first JSON record that has symbols, with -d 0.1."""
    out = []
    for _ in range(reps):
        t0 = time.time()
        p = subprocess.Popen([perftop, "-b", "--format", "json", "-d", "0.1", "-n", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = p.stdout.readline()
        t = (time.time() - t0) * 1000
        p.wait()
        rec = json.loads(line) if line.strip() else {}
        if rec.get("symbols"):
            out.append(t)
    return statistics.median(out) if out else None


def perf_report_ns(workload, bench_replay, secs=3, reps=3):
    """perf report's cost per sample on a recording of the same workload,
    next to bench_replay's (our decode -> resolve -> aggregate)."""
    data = "/tmp/perftop-bench-%d.data" % os.getpid()
    load = start_load(workload, secs + 5)
    try:
        subprocess.run(["perf", "record", "-q", "-a", "-e", "cpu-clock", "-F", "20000", "-o", data,
                        "sleep", str(secs)], check=True, capture_output=True)
    finally:
        stop_load(load)
    n = int(subprocess.run("perf script -i %s -F ip | wc -l" % data, shell=True, capture_output=True,
                           text=True).stdout.strip() or 0)
    times = []
    for _ in range(reps):
        t0 = time.time()
        subprocess.run(["perf", "report", "--stdio", "-i", data], capture_output=True)
        times.append(time.time() - t0)
    os.unlink(data)
    theirs = statistics.median(times) * 1e9 / max(n, 1)
    mine = None
    if bench_replay:
        out = subprocess.run([bench_replay, "20"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("decode+resolve+agg"):
                mine = float(line.split()[1])
    return n, theirs, mine


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perftop")
    ap.add_argument("workload")
    ap.add_argument("--rates", default="4000,20000,50000")
    ap.add_argument("--secs", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--replay", help="bench_replay binary, to compare with perf report")
    a = ap.parse_args()

    have_perf = subprocess.run(["perf", "--version"], capture_output=True).returncode == 0
    if have_perf:
        n, theirs, mine = perf_report_ns(a.workload, a.replay)
        print("perf report: %.0f ns/sample over %d samples (whole run, start-up included)" % (theirs, n))
        if mine:
            print("perftop replay: %.1f ns/sample -> ratio %.4f" % (mine, mine / theirs))
    print("first dump with symbols (-d 0.1): median %.0f ms" % (first_dump_ms(a.perftop, 5) or -1))
    print("%-7s %-8s %12s %10s %10s %s" % ("rate", "tool", "us/sample", "RSS MiB", "lost", "note"))
    for rate in [int(x) for x in a.rates.split(",")]:
        mine, theirs = [], []
        for _ in range(a.reps):
            load = start_load(a.workload, a.secs * 3 + 5)
            try:
                cpu, samples, lost, rss = perftop_with_rusage(a.perftop, rate, a.secs)
                mine.append((cpu / max(samples, 1) * 1e6, rss / 1024, lost, samples))
                if have_perf:
                    pcpu, psamples, prss, plost = perf_top(rate, a.secs)
                    theirs.append((pcpu / max(psamples, 1) * 1e6, prss / 1024, plost))
            finally:
                stop_load(load)
        m = statistics.median(x[0] for x in mine)
        print("%-7d %-8s %12.3f %10.1f %10d samples %d" % (
            rate, "perftop", m, statistics.median(x[1] for x in mine),
            max(x[2] for x in mine), statistics.median(x[3] for x in mine)))
        if theirs:
            t = statistics.median(x[0] for x in theirs)
            print("%-7d %-8s %12.3f %10.1f %10s %s" % (
                rate, "perf top", t, statistics.median(x[1] for x in theirs), "-",
                "ratio perftop/perf top = %.3f" % (m / t if t else float("nan"))))


if __name__ == "__main__":
    main()
