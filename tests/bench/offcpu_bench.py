#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--off-cpu's cost (issue 50). A pipe ping-pong (pingpong.c) paced to about
33 000 context switches a second system-wide; on it, side by side (at once,
the same switches), perftop --off-cpu -b and
`perf record -e sched:sched_switch -g -a`: each one's CPU a second (its own
rusage), perftop's lost switch records (its JSON offcpu object) and its RSS
each second (flat or not), perf's data size. Then the live view's CPU with
--off-cpu against without, on an ordinary load (waitwork and a slow
ping-pong), in tmux. Medians of --reps.

usage: offcpu_bench.py PERFTOP PINGPONG WAITWORK [--secs 8] [--reps 3] [--rounds 8000]
       [--only side|live] [--plain] [--via auto|bpf|records]"""
import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")


def ctxt():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("ctxt "):
                return int(line.split()[1])
    return 0


def cpu_of(pid):
    """Seconds on CPU of every thread of pid: the scheduler's ns
    (schedstat), not clock ticks, whose 10 ms steps were a tenth of perf
    record's whole figure; ticks where schedstat is missing."""
    try:
        ns = 0
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                ns += int(f.read().split()[0])
        return ns / 1e9
    except (OSError, ValueError, IndexError):
        pass
    with open("/proc/%d/stat" % pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    return (int(st[11]) + int(st[12])) / TICK


def rss_of(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def side_by_side(a, secs):
    load = subprocess.Popen([a.pingpong, str(secs + 8), str(a.rounds)], stdout=subprocess.DEVNULL)
    time.sleep(1)
    data = os.path.join(tempfile.mkdtemp(prefix="perftop-offcpu-bench-"), "perf.data")
    top = subprocess.Popen([a.perftop, "-b"] + ([] if a.plain else ["--off-cpu", "--off-cpu-via", a.via]) +
                           ["--format", "json", "-d", "1", "-n", str(secs + 1)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    perf = subprocess.Popen(["perf", "record", "-q", "-e", "sched:sched_switch", "-g", "-a", "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)  # start-ups out of the window
    c0, t0 = ctxt(), time.monotonic()
    top0, perf0 = cpu_of(top.pid), cpu_of(perf.pid)
    rss = []
    for _ in range(secs):
        time.sleep(1)
        rss.append(rss_of(top.pid))
    t1 = time.monotonic()
    top1, perf1, c1 = cpu_of(top.pid), cpu_of(perf.pid), ctxt()
    perf.send_signal(signal.SIGINT)
    perf.wait()
    out, _ = top.communicate(timeout=120)
    load.kill()
    load.wait()
    size = os.path.getsize(data) if os.path.exists(data) else 0
    shutil.rmtree(os.path.dirname(data), ignore_errors=True)
    last = {}
    for line in out.splitlines():
        try:
            last = json.loads(line).get("offcpu", last)
        except ValueError:
            pass
    dt = t1 - t0
    # Per switch too: the load's rate moves with the other work on the
    # machine, and each tool's cost with it.
    return {"switches_s": (c1 - c0) / dt, "perftop_ms_s": (top1 - top0) * 1e3 / dt,
            "perftop_us_switch": (top1 - top0) * 1e6 / max(c1 - c0, 1),
            "perf_us_switch": (perf1 - perf0) * 1e6 / max(c1 - c0, 1),
            "perf_ms_s": (perf1 - perf0) * 1e3 / dt, "lost": last.get("lost_records", -1),
            "via": last.get("via", "-"), "drain_us": last.get("drain_us", -1),
            "quiesce_waits": last.get("quiesce_waits", -1),
            "perftop_switches": last.get("switches", 0), "rss_first_kb": rss[1] if len(rss) > 1 else 0,
            "rss_last_kb": rss[-1] if rss else 0, "perf_mb": size / 1e6}


def live(a, offcpu, secs):
    """The live view in tmux, its CPU a second over secs after a warm-up."""
    live.n = getattr(live, "n", 0) + 1
    sock, name = "offcpu-bench-%d-%d" % (os.getpid(), live.n), "offcpu"
    args = [os.path.abspath(a.perftop), "-d", "2"] + (["--off-cpu", "--off-cpu-via", a.via] if offcpu else [])
    subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-x", "120", "-y", "40", "-s", name,
                    " ".join(args)], check=True)
    try:
        pid = None
        for _ in range(50):
            r = subprocess.run(["pgrep", "-f", "-n", "^" + " ".join(args)], capture_output=True, text=True)
            if r.stdout.strip():
                pid = int(r.stdout.split()[0])
                break
            time.sleep(0.1)
        time.sleep(3)
        c0, t0 = cpu_of(pid), time.monotonic()
        time.sleep(secs)
        return (cpu_of(pid) - c0) * 1e3 / (time.monotonic() - t0)
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("perftop")
    p.add_argument("pingpong")
    p.add_argument("waitwork")
    p.add_argument("--secs", type=int, default=8)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--rounds", type=float, default=8000)
    p.add_argument("--only", choices=("side", "live", "cost"),
                   help="one measure; cost (only when asked): the unpaced ping-pong's round trips a "
                   "second alone and under each tool alone, what each costs the load it watches")
    p.add_argument("--via", default="auto", choices=("auto", "bpf", "records"),
                   help="perftop's --off-cpu-via: the kernel's sums or the records")
    p.add_argument("--plain", action="store_true",
                   help="side by side, perftop without --off-cpu: what its sampling alone costs on the same load")
    a = p.parse_args()
    if a.only == "cost":
        cost_all(a)
        return
    if a.only != "live":
        side_by_side_all(a)
    if a.only != "side":
        live_all(a)


def side_by_side_all(a):
    runs = [side_by_side(a, a.secs) for _ in range(a.reps)]
    for r in runs:
        print(json.dumps(r))
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k not in ("via", "drain_us", "quiesce_waits")}
    what = "(plain)" if a.plain else "--off-cpu"
    print("median: %.0f switches/s; perftop %s %.1f ms/s, perf record %.1f ms/s (ratio %.2f); "
          "a switch: %.2f and %.2f us; lost %d; perftop RSS %d -> %d KB; perf.data %.1f MB"
          % (med["switches_s"], what, med["perftop_ms_s"], med["perf_ms_s"],
             med["perftop_ms_s"] / med["perf_ms_s"] if med["perf_ms_s"] else 0,
             med["perftop_us_switch"], med["perf_us_switch"], med["lost"],
             med["rss_first_kb"], med["rss_last_kb"], med["perf_mb"]))


def load_rate(a, tool, secs):
    """The unpaced ping-pong's round trips a second while tool (argv, or
    None) runs alone beside it."""
    data = tempfile.mkdtemp(prefix="perftop-offcpu-cost-")
    argv = {"perf": ["perf", "record", "-q", "-e", "sched:sched_switch", "-g", "-a", "-o",
                     os.path.join(data, "perf.data")],
            "bpf": [a.perftop, "-b", "--off-cpu", "--off-cpu-via", "bpf", "--format", "json", "-d", "1"],
            "records": [a.perftop, "-b", "--off-cpu", "--off-cpu-via", "records", "--format", "json", "-d", "1"],
            "none": None}[tool]
    t = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if argv else None
    try:
        time.sleep(2 if t else 0)
        r = subprocess.run([a.pingpong, str(secs)], capture_output=True, text=True, check=True)
        got = json.loads(r.stdout.strip().splitlines()[-1])
        return got["rounds"] / got["secs"]
    finally:
        if t:
            t.send_signal(signal.SIGINT)
            t.wait()
        shutil.rmtree(data, ignore_errors=True)


def cost_all(a):
    tools = ("none", "perf", "bpf", "records")
    got = {k: [] for k in tools}
    for _ in range(a.reps):
        for k in tools:  # alternated: the machine's drift spread over all
            got[k].append(load_rate(a, k, a.secs))
    med = {k: statistics.median(v) for k, v in got.items()}
    print(json.dumps(got))
    print("the ping-pong's round trips/s, medians: alone %.0f; beside perf record %.0f (%.0f %%), perftop "
          "--off-cpu-via bpf %.0f (%.0f %%), --off-cpu-via records %.0f (%.0f %%)"
          % (med["none"], med["perf"], 100 * med["perf"] / med["none"], med["bpf"], 100 * med["bpf"] / med["none"],
             med["records"], 100 * med["records"] / med["none"]))


def live_all(a):
    ww = subprocess.Popen([a.waitwork, str(a.reps * 2 * (a.secs + 5) + 10)], stdout=subprocess.DEVNULL)
    pp = subprocess.Popen([a.pingpong, str(a.reps * 2 * (a.secs + 5) + 10), "500"], stdout=subprocess.DEVNULL)
    try:
        off, on = [], []
        for _ in range(a.reps):
            off.append(live(a, False, a.secs))
            on.append(live(a, True, a.secs))
        print("live view: without --off-cpu %s ms/s, with %s ms/s; medians %.1f and %.1f (ratio %.2f)"
              % (["%.1f" % x for x in off], ["%.1f" % x for x in on], statistics.median(off),
                 statistics.median(on), statistics.median(on) / statistics.median(off)))
    finally:
        for q in (ww, pp):
            q.kill()
            q.wait()


if __name__ == "__main__":
    main()
