# SPDX-License-Identifier: GPL-2.0-or-later
"""Focus mode's exact counters against perf stat on the same workload.

The workload waits at a gate until both tools are attached, then starts its
threads (so every thread is created after focus began) and exits; both tools
count until it exits.

usage: test_counters.py PERFTOP WORKLOAD
"""
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import (collect, diag, done, finish_workload, hardware_pmu, is_root, ok, skip,  # noqa: E402
                 start_workload)

PERFTOP, WORKLOAD = sys.argv[1], sys.argv[2]
EVENTS = ["task-clock", "context-switches", "page-faults"]


def perf_stat_counts(text):
    counts = {}
    for line in text.splitlines():
        f = line.split(",")
        if len(f) >= 3 and f[2] in EVENTS + ["task-clock:u"]:
            try:
                counts[f[2]] = float(f[0])
            except ValueError:
                pass
    return counts


def run_pair():
    wl = subprocess.Popen([WORKLOAD, "gate", "threads", "4", "2"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    pid = int(wl.stdout.readline().split()[1])
    top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-p", str(pid), "-d", "0.5",
                            "--counters", ",".join(EVENTS + ["cycles"])],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stat = subprocess.Popen(["perf", "stat", "-x,", "-e", ",".join(EVENTS), "-p", str(pid)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)  # both attached
    wl.stdin.write("go\n")
    wl.stdin.flush()
    own = wl.stdout.read()
    wl.wait()
    exited, out, err = collect(top, 15, signal.SIGKILL)
    rc = top.returncode if exited else None
    if stat.poll() is None:
        stat.send_signal(2)
    _, serr = stat.communicate(timeout=15)
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    try:
        own_ms = json.loads(own)["cpu_ms"]
    except (ValueError, KeyError):
        own_ms = None
    return pid, rc, recs, err, perf_stat_counts(serr), own_ms


def check_csv():
    """The CSV dump carries the same counters, as table=counter lines."""
    p, pid = start_workload(WORKLOAD, "split", "6,3,1", "2")
    r = subprocess.run([PERFTOP, "-b", "--format", "csv", "-p", str(pid), "-d", "0.5", "-n", "2",
                        "--threads"], capture_output=True, text=True, timeout=60)
    finish_workload(p)
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    ok(r.returncode == 0, "CSV focus run exits 0 (%s)" % r.stderr.strip())
    hdr = r.stdout.splitlines()[0].split(",") if r.stdout else []
    ok(hdr[-7:] == ["tid", "value", "total", "enabled_ns", "running_ns", "scaled", "state"],
       "the CSV header ends in the counter columns")
    width = {len(x) for x in csv.reader(io.StringIO(r.stdout))}
    ok(width == {len(hdr)}, "every CSV line has the header's %d columns (%r)" % (len(hdr), width))
    tc = [x for x in rows if x["table"] == "counter" and x["name"] == "task-clock"
          and x["pid"] == str(pid)]
    proc = [x for x in tc if not x["tid"]]
    ok(len(proc) == 2 and all(int(x["value"]) > 0 and x["state"] in ("ok", "scaled") for x in proc),
       "each interval has the process's task-clock value (%r)" % proc)
    ok(any(x["tid"] == str(pid) for x in tc), "--threads adds the thread rows")
    cyc = [x for x in rows if x["table"] == "counter" and x["name"] == "cycles"]
    if not hardware_pmu():
        ok(not cyc, "cycles without a PMU: not shown, no n/a rows (%d rows)" % len(cyc))


if not is_root():
    skip("counters against perf stat", "needs root")
    done()
check_csv()
pid, rc, recs, err, ref, own_ms = run_pair()
ok(rc == 0, "perftop -p exits 0 when the focused process exits (%s)" % err.strip())
ok(recs and "final" in recs[-1], "the last record is marked final")
rows = [t for r in recs for t in r["tasks"] if t["pid"] == pid and "counters" in t and "tid" not in t]
ok(len(rows) == len(recs), "every interval has the focused process's counters")
if rows:
    last = rows[-1]["counters"]
    ok(all(k in last["task-clock"] for k in ("value", "total", "enabled_ns", "running_ns", "scaled")),
       "a counter has value, total, enabled_ns, running_ns, scaled")
    tot = {e: last[e]["total"] for e in EVENTS}
    summed = {e: sum(r["counters"][e]["value"] or 0 for r in rows) for e in EVENTS}
    diag("perftop totals %r, interval sums %r, perf stat %r" % (tot, summed, ref))
    ok(all(abs(summed[e] - tot[e]) <= max(2, tot[e] * 0.001) for e in EVENTS),
       "interval values add up to the total")
    # task-clock: perf stat prints msec, we count ns.
    if "task-clock" in ref:
        mine = tot["task-clock"] / 1e6
        ok(abs(mine - ref["task-clock"]) <= 0.02 * ref["task-clock"],
           "task-clock %.1f ms within 2%% of perf stat's %.1f ms" % (mine, ref["task-clock"]))
        # The workload's own getrusage covers all its threads. What this asks is that
        # threads created after focus are counted: one of the four missed would leave
        # a quarter out. Only a shortfall says so: task-clock ran 11 % over the
        # workload's rusage once (2722 ms against 2459, perf stat's figure to the ms,
        # on a fresh machine beside a compile), and it also counts the exit after
        # the workload's getrusage. perf stat's 2 % above holds the exact figure,
        # over-counting included.
        ok(own_ms is not None and mine >= 0.9 * own_ms - 30,
           "threads created after focus began are counted: %.0f ms against the workload's own %s ms"
           % (mine, own_ms))
    else:
        ok(False, "perf stat gave no task-clock: %r" % ref)
    for e in ("context-switches", "page-faults"):
        if e in ref:
            ok(abs(tot[e] - ref[e]) <= max(5, 0.02 * ref[e]),
               "%s %d within 2%% of perf stat's %d" % (e, tot[e], ref[e]))
        else:
            ok(False, "perf stat gave no %s" % e)
    cyc = last.get("cycles")
    if hardware_pmu():
        ok(cyc and cyc["value"] is not None and cyc["state"] in ("ok", "scaled"), "cycles counted with a PMU")
    else:
        # Issue 46: only what opened is listed; a notice says once what not, and why.
        notes = [n for r in recs for n in r.get("notices", [])]
        ok(cyc is None and any("not shown: cycles" in n and "no hardware PMU" in n for n in notes),
           "without a PMU cycles is not listed (no made-up 0, no n/a row); a notice says it could not "
           "be counted, and why (%r)" % notes)
        ok(all("ipc" not in r.get("ratios", {}) for r in rows),
           "no IPC without a PMU (never a ratio of made-up counts)")
        skip("IPC and miss % from exact counters", "no hardware PMU here (cycles unsupported)")
done()
