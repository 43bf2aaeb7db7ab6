#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 49, item 6: --baseline against a workload whose split changes
halfway (shiftwork.c: shift_a/shift_b 70/30, then 30/70, measured by its
own CPU clock). A dump of the first phase is the baseline of a dump of the
second; each function's "delta" is the change in share the workload itself
measured, within 2 points, and "baseline_share" its first phase's share.
The same with the first phase written as a pprof profile.

usage: test_baseline.py PERFTOP SHIFTWORK
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402
from tap import diag, done, ok, skip  # noqa: E402

PERFTOP, SHIFT = sys.argv[1], sys.argv[2]
# Enough samples that chance stays well inside 2 points: at 8 kHz for 5 s
# a share's standard error is a few tenths of a point even on a loaded machine.
SECS = "5"
FREQ = "8000"
# User samples only: the kernel's work while the workload runs (interrupts,
# preemption on a loaded machine) is time its own clocks give the function
# it interrupted, and samples give the kernel.
EVENT = "cpu-clock:u"


def can_sample():
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read())
    except (OSError, ValueError):
        paranoid = 2
    return os.geteuid() == 0 or paranoid <= 0


def rows_of(rec, names):
    return {s["symbol"]: s for s in rec.get("symbols", []) if s["symbol"] in names}


def run(tmp, fmt):
    base = os.path.join(tmp, "base." + ("json" if fmt == "json" else "pb.gz"))
    p = subprocess.Popen([SHIFT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        pid = p.stdout.readline().split()[1]
        r1 = subprocess.run([PERFTOP, "-b", "--format", fmt, "-o", base, "-e", EVENT, "-F", FREQ, "-p", pid,
                             "-d", SECS, "-n", "1", "-E", "1000"], capture_output=True, text=True, timeout=60)
        ok(r1.returncode == 0, "%s: the first phase's dump written (%s)" % (fmt, r1.stderr.strip()[:200]))
        p.stdin.write("\n")
        p.stdin.flush()
        rc, recs, err = tap.perftop_json(PERFTOP, "-e", EVENT, "-F", FREQ, "-p", pid, "-d", SECS, "-n", "1",
                                         "-E", "1000", "--baseline", base)
        ok(rc == 0 and recs, "%s: the second phase's dump against it (rc %d, %s)" % (fmt, rc, err.strip()[:200]))
        p.stdin.close()
        measured = json.loads(p.stdout.read())
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
    diag("%s: the workload's own split: %r" % (fmt, measured))
    rows = rows_of(recs[-1] if recs else {}, ("shift_a", "shift_b"))
    for f in ("shift_a", "shift_b"):
        r = rows.get(f)
        want = measured["phase2"][f] - measured["phase1"][f]
        if r is None or "delta" not in r or "baseline_share" not in r:
            ok(False, "%s: %s's row has \"baseline_share\" and \"delta\" (%r)" % (fmt, f, r))
            continue
        diag("%s: %s share %.2f, baseline_share %.2f, delta %.2f; the workload's change %.2f"
             % (fmt, f, r["share"], r["baseline_share"], r["delta"], want))
        ok(abs(r["delta"] - want) <= 2.0, "%s: %s's delta %.2f is the workload's own change %.2f within 2 points"
           % (fmt, f, r["delta"], want))
        # Other code (the clock reads, the kernel) takes a little of both phases: the
        # delta cancels it, a share alone does not.
        ok(abs(r["baseline_share"] - measured["phase1"][f]) <= 4.0,
           "%s: %s's baseline_share %.2f is its first phase's %.2f within 4 points"
           % (fmt, f, r["baseline_share"], measured["phase1"][f]))
        ok(abs(r["share"] - r["baseline_share"] - r["delta"]) < 0.02, "%s: delta = share - baseline_share" % fmt)


if not can_sample():
    skip("baseline", "needs root or perf_event_paranoid <= 0")
    done()
with tempfile.TemporaryDirectory() as tmp:
    run(tmp, "json")
    run(tmp, "pprof")
    bad = os.path.join(tmp, "bad")
    with open(bad, "w") as f:
        f.write("not a profile\n")
    r = subprocess.run([PERFTOP, "-b", "-n", "1", "--baseline", bad], capture_output=True, text=True, timeout=30)
    ok(r.returncode == 1 and r.stderr.count("\n") == 1 and "--baseline" in r.stderr,
       "a file of neither kind: one line naming --baseline, exit 1 (%d: %s)" % (r.returncode, r.stderr.strip()))
done()
