#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 49, items 4 and 5 in the dump: --sort comm,dso's rows add up to the
symbol rows' total of the same interval (and to the event's samples), each
row carrying its keys; --sort sym,dso's rows are the symbol rows again;
the JSON task rows carry "ppid", /proc's own for a workload forked by a
parent that only waits (figwork fork).

usage: test_grouping.py PERFTOP FIGWORK
"""
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402
from tap import diag, done, ok, skip  # noqa: E402

PERFTOP, FIG = sys.argv[1], sys.argv[2]


def can_sample():
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read())
    except (OSError, ValueError):
        paranoid = 2
    return os.geteuid() == 0 or paranoid <= 0


def sums():
    rc, recs, err = tap.perftop_json(PERFTOP, "-e", "cpu-clock", "-d", "0.5", "-n", "4", "-E", "100000",
                                     "--sort", "comm,dso")
    ok(rc == 0 and len(recs) == 4, "--sort comm,dso: four intervals (rc %d, %s)" % (rc, err.strip()[:200]))
    checked = 0
    for r in recs:
        groups, syms = r.get("groups"), r.get("symbols", [])
        if groups is None:
            ok(False, "interval %s has a \"groups\" array" % r.get("iteration"))
            continue
        g = sum(x["samples"] for x in groups)
        s = sum(x["samples"] for x in syms)
        e = r["events"][0]["samples"]
        diag("interval %d: groups %d, symbols %d, event %d samples; %d groups, %d symbols"
             % (r["iteration"], g, s, e, len(groups), len(syms)))
        ok(g == s == e and g > 0, "interval %d: the comm,dso rows add up to the symbol rows' total (%d, %d, %d)"
           % (r["iteration"], g, s, e))
        keyed = all("comm" in x and "dso" in x and "symbol" not in x and "cpu" not in x for x in groups)
        ok(keyed, "interval %d: each row carries its keys comm and dso, and no other" % r["iteration"])
        pairs = [(x["comm"], x["dso"]) for x in groups]
        ok(len(pairs) == len(set(pairs)), "interval %d: one row per (comm, dso)" % r["iteration"])
        checked += 1
    ok(checked == 4, "all intervals checked")


def same_as_symbols():
    rc, recs, err = tap.perftop_json(PERFTOP, "-e", "cpu-clock", "-d", "0.5", "-n", "2", "-E", "100000",
                                     "--sort", "sym,dso")
    for r in recs:
        g = sorted(x["samples"] for x in r.get("groups", []))
        s = sorted(x["samples"] for x in r["symbols"])
        ok(g == s, "interval %d: --sort sym,dso's rows are the symbol rows (%d, %d rows)"
           % (r["iteration"], len(g), len(s)))


def ppid():
    p = subprocess.Popen([FIG, "fork", "2", "8"], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = p.stdout.readline().split()
        parent = int(line[1])
        kids = []
        for _ in range(50):
            try:
                with open("/proc/%d/task/%d/children" % (parent, parent)) as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                pass
            if len(kids) == 2:
                break
            subprocess.run(["sleep", "0.1"])
        rc, recs, err = tap.perftop_json(PERFTOP, "-e", "cpu-clock", "-d", "1", "-n", "2", "-E", "100000")
        rows = {t["pid"]: t for r in recs[-1:] for t in r["tasks"] if "tid" not in t}
        seen = [k for k in kids if k in rows]
        diag("children %r; their rows %r" % (kids, [rows[k] for k in seen]))
        ok(len(kids) == 2 and len(seen) == 2, "both spinning children have task rows")
        ok(all(rows[k].get("ppid") == parent for k in seen),
           "their \"ppid\" is the parent that forked them (%d), which took no samples" % parent)
    finally:
        os.killpg(p.pid, signal.SIGKILL)  # the spinners with their parent
        p.wait()


if not can_sample():
    skip("grouping in the dump", "needs root or perf_event_paranoid <= 0")
    done()
sums()
same_as_symbols()
ppid()
done()
