#!/usr/bin/env python3
"""Exporter benchmark: what serving /metrics every second and a 15 s profile
back to back (as a profile scraper does) costs perftop at 4 kHz on busy CPUs.

Two measurements, both of CPU time, never of wall time:
- A/B: plain runs (-b, the JSON dump to /dev/null) alternate with the same
  plus --listen and the clients; each run is -n N intervals and its CPU is
  the whole process's, every thread's, exited ones too (wait4's rusage).
  Medians of each arm; their difference is the exporter's cost plus noise
  (the machine's other load changes what perftop samples).
- In-process: perftop's own perftop_export_cpu_seconds_total (the exporter's
  thread CPU: each interval's pass, page rendering, the HTTP connection
  threads, profile building) against perftop_process_cpu_seconds_total in
  the same run: immune to what the other arm's run saw.

usage: export_bench.py PERFTOP WORKLOAD [--secs 20] [--reps 5] [--rate 4000] [--focus]
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from live_bench import start_load, stop_load  # noqa: E402


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def scrape(port):
    try:
        page = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read().decode()
    except OSError:
        return None
    vals = {}
    for line in page.splitlines():
        if not line.startswith("#") and " " in line:
            k, v = line.rsplit(" ", 1)
            vals[k] = float(v)
    return vals


WARMUP_SCRAPES = 3


def client(port, stop, state):
    def profiles():
        while not stop.is_set():
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/debug/pprof/profile?seconds=15" % port,
                                       timeout=60).read()
                state["profiles"] += 1
            except OSError:
                time.sleep(0.5)
    threading.Thread(target=profiles, daemon=True).start()
    while not stop.is_set():
        v = scrape(port)
        if v:
            state["metrics"] += 1
            state["last"] = v
            # The share is taken from here on: the start-up's /proc scan is
            # perftop's, not the exporter's, and would dilute it.
            if state["metrics"] == WARMUP_SCRAPES:
                state["first"] = v
        stop.wait(1.0)


def run(perftop, rate, secs, export, focus):
    """(whole run's CPU per second of -n x -d, exporter's share after warm-up or None, client state)"""
    args = [perftop, "-b", "--format", "json", "-o", "/dev/null", "-e", "cpu-clock", "-F", str(rate),
            "-d", "1", "-n", str(int(secs))] + (["-p", ",".join(str(p) for p in focus)] if focus else [])
    port = free_port()
    if export:
        args += ["--listen", "127.0.0.1:%d" % port]
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stop, state = threading.Event(), {"metrics": 0, "profiles": 0, "last": {}, "first": {}}
    if export:
        threading.Thread(target=client, args=(port, stop, state), daemon=True).start()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    stop.set()
    cpu = ru.ru_utime + ru.ru_stime
    first, last = state["first"], state["last"]
    share = None
    if first and last.get("perftop_process_cpu_seconds_total", 0) > first.get("perftop_process_cpu_seconds_total", 0):
        share = ((last["perftop_export_cpu_seconds_total"] - first["perftop_export_cpu_seconds_total"]) /
                 (last["perftop_process_cpu_seconds_total"] - first["perftop_process_cpu_seconds_total"]))
    return cpu / secs, share, state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perftop")
    ap.add_argument("workload")
    ap.add_argument("--secs", type=float, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rate", type=int, default=4000)
    # The load's processes only: what perftop samples (and so what the
    # exporter has to carry) no longer depends on whatever else the machine runs.
    ap.add_argument("--focus", action="store_true", help="perftop -p the load's PIDs rather than system-wide")
    a = ap.parse_args()
    plain, export, shares = [], [], []
    # Generous: on a loaded machine perftop's start-up (the /proc scan) and
    # its intervals stretch well past -n x -d.
    load = start_load(a.workload, int((a.secs + 5) * a.reps * 2 * 4 + 60))
    try:
        for _ in range(a.reps):
            focus = [p.pid for p in load] if a.focus else None
            plain.append(run(a.perftop, a.rate, a.secs, False, focus)[0])
            cpu, share, st = run(a.perftop, a.rate, a.secs, True, focus)
            export.append(cpu)
            if share is not None:
                shares.append(share)
            print("plain %.2f  export %.2f ms/s  in-process exporter share %s  (%d /metrics, %d profiles)"
                  % (plain[-1] * 1e3, export[-1] * 1e3, "%.1f%%" % (100 * share) if share is not None else "-",
                     st["metrics"], st["profiles"]), flush=True)
    finally:
        stop_load(load)
    mp, me = statistics.median(plain), statistics.median(export)
    print("median perftop CPU at %d Hz x %d CPUs over %d runs each: plain %.2f ms/s, with --listen and clients "
          "%.2f ms/s: %+.1f%%" % (a.rate, os.cpu_count(), a.reps, mp * 1e3, me * 1e3, 100 * (me - mp) / mp))
    if shares:
        print("in-process: the exporter's share of perftop's CPU, median %.1f%% (min %.1f%%, max %.1f%%)"
              % (100 * statistics.median(shares), 100 * min(shares), 100 * max(shares)))


if __name__ == "__main__":
    main()
