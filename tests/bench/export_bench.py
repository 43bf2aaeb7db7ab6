#!/usr/bin/env python3
"""Exporter benchmark: perftop's own CPU time at 4 kHz on busy CPUs, plain
(-b, the JSON dump to /dev/null) against the same with --listen while a
client fetches /metrics every second and keeps a 15 s profile request open
(one every 15 s). Alternating runs, medians; CPU from schedstat (all threads,
the HTTP server's included), over a window after a warm-up.

usage: export_bench.py PERFTOP WORKLOAD [--secs 20] [--reps 3] [--rate 4000]
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
from live_bench import proc_cpu, start_load, stop_load  # noqa: E402

WARMUP = 3.0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def client(port, stop, counts):
    def profiles():
        while not stop.is_set():
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/debug/pprof/profile?seconds=15" % port,
                                       timeout=60).read()
                counts["profiles"] += 1
            except OSError:
                time.sleep(0.5)
    t = threading.Thread(target=profiles, daemon=True)
    t.start()
    while not stop.is_set():
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()
            counts["metrics"] += 1
        except OSError:
            pass
        stop.wait(1.0)


def run(perftop, rate, secs, export):
    args = [perftop, "-b", "--format", "json", "-o", "/dev/null", "-e", "cpu-clock", "-F", str(rate), "-d", "1"]
    port = free_port()
    if export:
        args += ["--listen", "127.0.0.1:%d" % port]
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop, counts = threading.Event(), {"metrics": 0, "profiles": 0}
    t = None
    time.sleep(WARMUP)
    if export:
        t = threading.Thread(target=client, args=(port, stop, counts), daemon=True)
        t.start()
    c0, t0 = proc_cpu(p.pid), time.time()
    time.sleep(secs)
    c1, t1 = proc_cpu(p.pid), time.time()
    stop.set()
    p.terminate()
    p.wait(timeout=60)
    return (c1 - c0) / (t1 - t0), counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perftop")
    ap.add_argument("workload")
    ap.add_argument("--secs", type=float, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rate", type=int, default=4000)
    a = ap.parse_args()
    plain, export = [], []
    load = start_load(a.workload, int((a.secs + WARMUP + 5) * a.reps * 2 + 30))
    try:
        for _ in range(a.reps):
            plain.append(run(a.perftop, a.rate, a.secs, False)[0])
            cpu, counts = run(a.perftop, a.rate, a.secs, True)
            export.append(cpu)
            print("plain %.4f  export %.4f CPU s/s  (%d /metrics, %d profiles)"
                  % (plain[-1], export[-1], counts["metrics"], counts["profiles"]), flush=True)
    finally:
        stop_load(load)
    mp, me = statistics.median(plain), statistics.median(export)
    print("median perftop CPU at %d Hz x %d CPUs: plain %.4f, with --listen and clients %.4f CPU s/s: %+.1f%%"
          % (a.rate, os.cpu_count(), mp, me, 100 * (me - mp) / mp))


if __name__ == "__main__":
    main()
