#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Exporter benchmark: what serving /metrics every second and a 15 s profile
back to back (as a profile scraper does) costs perftop at 4 kHz on busy CPUs.

Two measurements, both of CPU time, never of wall time:
- A/B: plain runs (-b, the JSON dump to /dev/null) alternate with the same
  plus --listen and the clients; each run is -n N intervals and its CPU is
  the whole process's, every thread's, exited ones too (wait4's rusage).
  Medians of each arm; their difference is the exporter's cost plus noise
  (the machine's other load changes what perftop samples).
- In-process: perftop's own perftop_export_cpu_seconds_total (the exporter's
  thread CPU: each interval's pass, page rendering, the HTTP server's
  thread, profile building) against perftop_process_cpu_seconds_total in
  the same run: immune to what the other arm's run saw.

The client scrapes as Prometheus does: one kept-alive HTTP/1.1 connection
for /metrics and one for the profiles, Prometheus's Accept header;
--new-conn opens a connection per request instead (each costs perftop an
accept and a connection's setup on its server thread). --share-only skips the plain runs.

--request-cost measures one thing only: the server thread's CPU per /metrics
request over a kept-alive connection (its on-CPU time from
/proc/PID/task/TID/schedstat), requests back to back and then spaced as a
scraper spaces them: what a request costs once the thread and the caches
have gone cold.

usage: export_bench.py PERFTOP WORKLOAD [--secs 20] [--reps 5] [--rate 4000] [--focus] [--new-conn]
                       [--share-only | --request-cost]
"""
import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_bench import start_load, stop_load  # noqa: E402


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# What Prometheus 2.x sends when scraping.
PROM_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
               "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


class Getter:
    """GETs over one kept-alive connection (or a new one each time)."""

    def __init__(self, port, timeout, new_conn):
        self.port, self.timeout, self.new_conn, self.conn = port, timeout, new_conn, None

    def get(self, path, headers):
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self.conn.request("GET", path, headers=headers)
                r = self.conn.getresponse()
                body = r.read()
            except (OSError, http.client.HTTPException):
                # The server may close an idle connection: reconnect once.
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
                continue
            if self.new_conn or r.will_close:
                self.conn.close()
                self.conn = None
            if r.status != 200:
                raise OSError("HTTP %d" % r.status)
            return body
        raise OSError("unreachable")


def scrape(getter):
    try:
        page = getter.get("/metrics", {"Accept": PROM_ACCEPT}).decode()
    except OSError:
        return None
    vals = {}
    for line in page.splitlines():
        if not line.startswith("#") and " " in line and not line.startswith("perftop_info"):
            k, v = line.rsplit(" ", 1)
            try:
                vals[k] = float(v)
            except ValueError:
                pass
    return vals


WARMUP_SCRAPES = 3


def client(port, stop, state, new_conn):
    def profiles():
        g = Getter(port, 60, new_conn)
        while not stop.is_set():
            try:
                g.get("/debug/pprof/profile?seconds=15", {"Accept-Encoding": "gzip"})
                state["profiles"] += 1
            except OSError:
                time.sleep(0.5)
    threading.Thread(target=profiles, daemon=True).start()
    g = Getter(port, 10, new_conn)
    while not stop.is_set():
        v = scrape(g)
        if v:
            state["metrics"] += 1
            state["last"] = v
            # The share is taken from here on: the start-up's /proc scan is
            # perftop's, not the exporter's, and would dilute it.
            if state["metrics"] == WARMUP_SCRAPES:
                state["first"] = v
        stop.wait(1.0)


def run(perftop, rate, secs, export, focus, new_conn=False):
    """(whole run's CPU per second of -n x -d, exporter's share after warm-up or None, client state)"""
    args = [perftop, "-b", "--format", "json", "-o", "/dev/null", "-e", "cpu-clock", "-F", str(rate),
            "-d", "1", "-n", str(int(secs))] + (["-p", ",".join(str(p) for p in focus)] if focus else [])
    port = free_port()
    if export:
        args += ["--listen", "127.0.0.1:%d" % port]
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stop, state = threading.Event(), {"metrics": 0, "profiles": 0, "last": {}, "first": {}}
    if export:
        threading.Thread(target=client, args=(port, stop, state, new_conn), daemon=True).start()
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


def on_cpu_ns(pid):
    """Each thread's on-CPU nanoseconds (schedstat: exact, not tick-sampled)."""
    out = {}
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                out[t] = int(f.read().split()[0])
        except OSError:
            pass
    return out


def request_cost(perftop, rate, focus):
    """Server-thread CPU per /metrics request, back to back and spaced."""
    port = free_port()
    args = [perftop, "-b", "--format", "json", "-o", "/dev/null", "-e", "cpu-clock", "-F", str(rate), "-d", "1",
            "-n", "60", "--listen", "127.0.0.1:%d" % port] + \
        (["-p", ",".join(str(p) for p in focus)] if focus else [])
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        g = Getter(port, 10, False)
        end = time.time() + 30
        while time.time() < end:
            try:
                g.get("/metrics", {"Accept": PROM_ACCEPT})
                break
            except OSError:
                time.sleep(0.2)
        main_tid = str(p.pid)
        for n, gap in ((2000, 0), (10, 0.5), (10, 1.0)):
            before = on_cpu_ns(p.pid)
            for _ in range(n):
                g.get("/metrics", {"Accept": PROM_ACCEPT})
                if gap:
                    time.sleep(gap)
            after = on_cpu_ns(p.pid)
            # The server thread: the one besides the main loop that grew most.
            grown = sorted((after[t] - before.get(t, 0), t) for t in after if t != main_tid)
            print("requests %s: the server thread %.1f us a request (%d requests)"
                  % ("%.1f s apart" % gap if gap else "back to back", grown[-1][0] / 1e3 / n, n), flush=True)
    finally:
        p.terminate()
        p.wait()


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
    ap.add_argument("--new-conn", action="store_true", help="a new connection per request (not Prometheus's way)")
    ap.add_argument("--share-only", action="store_true", help="no plain runs: the in-process share only")
    ap.add_argument("--request-cost", action="store_true",
                    help="only the server thread's CPU per /metrics request, back to back and spaced")
    a = ap.parse_args()
    if a.request_cost:
        load = start_load(a.workload, 200)
        try:
            request_cost(a.perftop, a.rate, [p.pid for p in load] if a.focus else None)
        finally:
            stop_load(load)
        return
    plain, export, shares = [], [], []
    # Generous: on a loaded machine perftop's start-up (the /proc scan) and
    # its intervals stretch well past -n x -d.
    load = start_load(a.workload, int((a.secs + 5) * a.reps * 2 * 4 + 60))
    try:
        for _ in range(a.reps):
            focus = [p.pid for p in load] if a.focus else None
            plain.append(run(a.perftop, a.rate, a.secs, False, focus)[0] if not a.share_only else float("nan"))
            cpu, share, st = run(a.perftop, a.rate, a.secs, True, focus, a.new_conn)
            export.append(cpu)
            if share is not None:
                shares.append(share)
            print("plain %.2f  export %.2f ms/s  in-process exporter share %s  (%d /metrics, %d profiles)"
                  % (plain[-1] * 1e3, export[-1] * 1e3, "%.1f%%" % (100 * share) if share is not None else "-",
                     st["metrics"], st["profiles"]), flush=True)
    finally:
        stop_load(load)
    mp, me = statistics.median(plain), statistics.median(export)
    print("client: %s" % ("a new connection per request" if a.new_conn else "kept-alive connections"))
    if not a.share_only:
        print("median perftop CPU at %d Hz x %d CPUs over %d runs each: plain %.2f ms/s, with --listen and clients "
              "%.2f ms/s: %+.1f%%" % (a.rate, os.cpu_count(), a.reps, mp * 1e3, me * 1e3, 100 * (me - mp) / mp))
    if shares:
        print("in-process: the exporter's share of perftop's CPU, median %.1f%% (min %.1f%%, max %.1f%%)"
              % (100 * statistics.median(shares), 100 * min(shares), 100 * max(shares)))


if __name__ == "__main__":
    main()
