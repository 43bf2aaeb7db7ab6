#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 49, item 5's srcline and the dump's sides of items 5 and 6.

- --sort srcline against perf report --sort srcline of a perf record of the
  same run: divwork (built -g) waits at a gate until both are attached;
  perftop's hottest line of the workload is the divide's line (found in its
  source), perf's is the same, and the lines' shares agree within SHARE_PTS;
  perftop -i of perf's file (the same samples) within a point.
- The text dump names the line under "Source:Line"; JSON rows carry
  "srcline" and no other key.
- CSV with --sort comm,srcline: the group rows add up to the symbol rows'
  total (and the event's samples); their comm and srcline columns are
  filled, symbol and cpu empty; the header's first columns are as before.
- JSON with --hierarchy: parents ("level": 0) sum their rows ("level": 1).
- Text with --baseline: Delta columns, each row's share minus the baseline's
  (a baseline file written here: hotfn at 10 %, divwork.c:LINE at 10 %).

usage: test_srcline.py PERFTOP DIVWORK DIVWORK_SOURCE
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import collect, diag, done, is_root, ok, skip  # noqa: E402
import tap  # noqa: E402

PERFTOP, DIVWORK, SOURCE = sys.argv[1:4]
TMP = tempfile.mkdtemp(prefix="perftop-srcline-")
SHARE_PTS = 8.0     # two samplers of one run on a loaded machine: points apart at most
MIN_SAMPLES = 500   # of the workload's, each sampler
SECS = "4"
CSV_HEAD = "time,iteration,table,rank,name,dso,kernel,pid,samples,share,lost,throttled,cpu-clock"


def divide_line():
    with open(SOURCE) as f:
        for n, line in enumerate(f, 1):
            if "DIVIDE" in line and "/" in line.split("/*")[0]:
                return n
    return 0


def start_workload(secs):
    wl = subprocess.Popen([DIVWORK, "gate", secs], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return wl, int(wl.stdout.readline().split()[1])


def go(wl, wait=True):
    wl.stdin.write("go\n")
    wl.stdin.flush()
    if wait:
        finish(wl)


def finish(wl):
    wl.stdout.read()
    wl.wait()


def perftop_json(*args):
    return tap.perftop_json(PERFTOP, *args, timeout=120)


def perf_lines(data):
    """{srcline: percent} of perf report --sort srcline (the workload's only: -p)."""
    r = subprocess.run(["perf", "report", "--stdio", "-i", data, "--sort", "srcline"], capture_output=True,
                       text=True, timeout=120)
    shares = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*([0-9.]+)%\s+(\S.*?)\s*$", line)
        if m:
            shares[m.group(2)] = shares.get(m.group(2), 0.0) + float(m.group(1))
    if not shares:
        diag("perf report gave nothing: %s" % r.stderr.strip()[-300:])
    return shares


def against_perf(line):
    data = os.path.join(TMP, "perf.data")
    wl, pid = start_workload(SECS)
    top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-e", "cpu-clock", "-F", "2000", "-d", "0.5",
                            "-E", "100000", "--sort", "srcline", "-p", str(pid)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # -B: no build-ids collected at the end (perf 6.1 may abort there).
    rec = subprocess.Popen(["perf", "record", "-q", "-B", "-e", "cpu-clock", "-F", "2000", "-o", data,
                            "-p", str(pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)  # both attached
    go(wl)
    _, out, err = collect(top, 30)
    _, _, rerr = collect(rec, 60)
    if rec.returncode != 0:
        diag("perf record: %s" % rerr.strip()[-300:])
    recs = []
    for l in out.splitlines():
        try:
            recs.append(json.loads(l))
        except ValueError:
            diag("not JSON: %r" % l[:200])
    ok(top.returncode == 0 and recs, "perftop --sort srcline -p exits 0 with the workload (%s)" % err.strip()[:200])
    counts = {}
    keyed = True
    for r in recs:
        for g in r.get("groups", []):
            keyed = keyed and "srcline" in g and not ({"comm", "pid", "dso", "symbol", "cpu"} & set(g))
            counts[g.get("srcline")] = counts.get(g.get("srcline"), 0) + g["samples"]
    total = sum(counts.values())
    ok(keyed and total >= MIN_SAMPLES, "each row carries \"srcline\" and no other key (%d samples)" % total)
    if total == 0:
        return
    mine = {k: 100.0 * v / total for k, v in counts.items()}
    perf = perf_lines(data)
    want = "%s:%d" % (os.path.basename(SOURCE), line)
    diag("perftop %r" % sorted(((round(v, 1), k) for k, v in mine.items() if v >= 0.5), reverse=True))
    diag("perf    %r" % sorted(((round(v, 1), k) for k, v in perf.items() if v >= 0.5), reverse=True))
    hot = max(mine, key=mine.get)
    ok(hot == want, "perftop's hottest line is the divide's: %s (%.1f%%), want %s" % (hot, mine[hot], want))
    if not perf:
        return
    phot = max(perf, key=perf.get)
    ok(phot == hot, "perf report --sort srcline's hottest is the same: %s (%.1f%%)" % (phot, perf[phot]))
    tops = [k for k in set(mine) | set(perf) if mine.get(k, 0) >= 2 or perf.get(k, 0) >= 2]
    worst = max(abs(mine.get(k, 0) - perf.get(k, 0)) for k in tops)
    ok(worst <= SHARE_PTS, "the lines of 2%% or more agree with perf's within %.0f points (worst %.1f: %r)"
       % (SHARE_PTS, worst, [(k, round(mine.get(k, 0), 1), round(perf.get(k, 0), 1)) for k in tops]))
    # The same file replayed (-i): the same samples, so the same lines' shares.
    rc, recs, err = perftop_json("-i", data, "-E", "100000", "--sort", "srcline")
    counts = {}
    for r in recs:
        for g in r.get("groups", []):
            counts[g["srcline"]] = counts.get(g["srcline"], 0) + g["samples"]
    total = sum(counts.values())
    if total:
        worst = max(abs(100.0 * counts.get(k, 0) / total - perf.get(k, 0)) for k in tops)
        ok(rc == 0 and worst <= 1.0, "-i of perf record's file --sort srcline: perf report's shares within "
           "1 point (worst %.2f; %s)" % (worst, err.strip()[:200]))
    else:
        ok(False, "-i of perf record's file --sort srcline gave rows (%s)" % err.strip()[:300])


def text_names_line(line):
    wl, pid = start_workload("3")
    top = subprocess.Popen([PERFTOP, "-b", "-e", "cpu-clock", "-d", "1", "-n", "2", "--sort", "srcline",
                            "-p", str(pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    go(wl)
    _, out, _ = collect(top, 30)
    want = "%s:%d" % (os.path.basename(SOURCE), line)
    ok("Source:Line" in out and re.search(r"^\s+[0-9.]+%\s+\d+\s+" + re.escape(want) + r"\s*$", out, re.M),
       "the text dump's table is by Source:Line and names %s" % want)


def csv_groups():
    wl, pid = start_workload("3")
    r = subprocess.Popen([PERFTOP, "-b", "--format", "csv", "-e", "cpu-clock", "-d", "0.5", "-n", "3",
                          "-E", "100000", "--sort", "comm,srcline"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    go(wl, False)
    _, out, err = collect(r, 60)
    finish(wl)
    lines = out.splitlines()
    ok(r.returncode == 0 and lines and lines[0].startswith(CSV_HEAD + ",comm,symbol,cpu,srcline"),
       "CSV header: the columns as before, then comm,symbol,cpu,srcline (%r %s)"
       % (lines[0] if lines else "", err.strip()[:200]))
    rows = list(csv.DictReader(io.StringIO(out)))
    its = sorted({x["iteration"] for x in rows})
    good = 0
    for it in its:
        g = [x for x in rows if x["iteration"] == it and x["table"] == "group"]
        s = [x for x in rows if x["iteration"] == it and x["table"] == "symbol"]
        e = [x for x in rows if x["iteration"] == it and x["table"] == "event"]
        gs, ss, es = (sum(int(x["samples"]) for x in t) for t in (g, s, e))
        keys_ok = all(x.get("comm") and x.get("srcline") and not x.get("symbol") and not x.get("cpu")
                      and not x["pid"] for x in g)
        others_empty = all(not x.get("comm") and not x.get("srcline") for x in s)
        diag("iteration %s: group %d, symbol %d, event %d samples; %d group rows" % (it, gs, ss, es, len(g)))
        good += gs == ss == es and gs > 0 and keys_ok and others_empty
    ok(len(its) == 3 and good == 3, "each interval: the group rows add up to the symbol rows' total and the "
       "event's, carry comm and srcline only; symbol rows leave them empty (%d of %d)" % (good, len(its)))


def hierarchy_levels():
    wl, pid = start_workload("3")
    r = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-e", "cpu-clock", "-d", "0.5", "-n", "2",
                          "-E", "100000", "--sort", "comm,srcline", "--hierarchy"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    go(wl, False)
    _, out, err = collect(r, 60)
    finish(wl)
    good = n = 0
    for l in out.splitlines():
        rec = json.loads(l)
        n += 1
        gs, parent, kids, fine = rec.get("groups", []), None, 0, True
        for g in gs + [{"level": 0, "samples": 0}]:
            if g.get("level") == 0:
                if parent is not None:
                    fine = fine and kids == parent["samples"] and "srcline" not in parent
                parent, kids = g, 0
            elif g.get("level") == 1 and parent is not None and g.get("comm") == parent.get("comm"):
                kids += g["samples"]
            else:
                fine = False
        total = sum(g["samples"] for g in gs if g.get("level") == 0)
        good += fine and gs and total == rec["events"][0]["samples"]
    ok(r.returncode == 0 and n == 2 and good == 2, "--hierarchy's JSON: each parent (level 0) sums its rows (level 1) under "
       "it, the parents the event's samples (%d of %d; %s)" % (good, n, err.strip()[:200]))


def baseline_delta(line):
    want = "%s:%d" % (os.path.basename(SOURCE), line)
    sym_base = os.path.join(TMP, "sym.json")
    line_base = os.path.join(TMP, "line.json")
    with open(sym_base, "w") as f:
        f.write(json.dumps({"symbols": [{"symbol": "hotfn", "dso": DIVWORK, "share": 10.0}]}) + "\n")
    with open(line_base, "w") as f:
        f.write(json.dumps({"groups": [{"srcline": want, "share": 10.0}]}) + "\n")
    found = []
    for args, base, pat in ((["-E", "5"], sym_base, r"^\s+([0-9.]+)%\s+\d+\s+([-+]?[0-9.]+)\s+divwork\s+\[\.\] hotfn$"),
                            (["-E", "5", "--sort", "srcline"], line_base,
                             r"^\s+([0-9.]+)%\s+\d+\s+([-+]?[0-9.]+)\s+" + re.escape(want) + "$")):
        wl, pid = start_workload("3")
        top = subprocess.Popen([PERFTOP, "-b", "-e", "cpu-clock", "-d", "1", "-n", "1", "-p", str(pid),
                                "--baseline", base] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)
        go(wl)
        _, out, err = collect(top, 30)
        m = re.search(pat, out, re.M)
        heads = re.findall(r"^\s+Overhead\s+Samples\s+Delta\s+", out, re.M)
        good = m is not None and len(heads) == 1 and abs(float(m.group(2)) - (float(m.group(1)) - 10.0)) <= 0.011
        if not good:
            diag(out[-1500:] + err[-300:])
        found.append(good)
    ok(all(found), "--baseline: the text's symbols and srcline tables have Delta, the row's share - 10 "
       "(the baseline's) (%r)" % found)


def main():
    if not is_root():
        skip("srcline and the grouped dumps", "needs root to sample another process and system-wide")
        return done()
    line = divide_line()
    ok(line > 0, "divwork's divide at line %d" % line)
    if shutil.which("perf"):
        against_perf(line)
    else:
        skip("--sort srcline against perf report", "perf is not installed")
    text_names_line(line)
    csv_groups()
    hierarchy_levels()
    baseline_delta(line)
    shutil.rmtree(TMP, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
