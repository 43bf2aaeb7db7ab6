#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perftop --sym-annotate against perf record + perf annotate --stdio on the
same run (issue 47).

divwork's hot loop spends its time on one 64-bit divide whose result the
next iteration needs. The workload waits at a gate until perftop -b --format
json --sym-annotate hotfn -p PID and perf record -e cpu-clock -p PID are
both attached, then works and exits; both sample the same seconds. The
annotation perftop dumps each interval (summed over the run) must give the
same hottest instruction as perf annotate and per-instruction shares within
SHARE_TV points of total variation; the hot instruction's source line
(file:line) must be the divide's line, and the JSON's offsets and addresses
must agree with the symbol table.

usage: test_annotate_vs_perf.py PERFTOP DIVWORK DIVWORK_SOURCE
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import collect, diag, done, is_root, ok, skip  # noqa: E402

PERFTOP, DIVWORK, SOURCE = sys.argv[1:4]
TMP = tempfile.mkdtemp(prefix="perftop-annotate-vs-perf-")
SHARE_TV = 5.0       # total variation of two samplers' shares of one run, points
SECS = "5"
MIN_SAMPLES = 1000   # of 10 000 at 2 kHz: a loaded machine gives the workload less;
# fewer would let chance alone (two samplers' draws) near SHARE_TV


def divide_line():
    with open(SOURCE) as f:
        for n, line in enumerate(f, 1):
            if "DIVIDE" in line and "/" in line.split("/*")[0]:
                return n
    return 0


def hotfn_symbol():
    """(st_value, st_size) of hotfn in divwork."""
    r = subprocess.run(["readelf", "-sW", DIVWORK], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        c = line.split()
        if len(c) >= 8 and c[7] == "hotfn" and c[3] == "FUNC":
            return int(c[1], 16), int(c[2], 0)
    return None, None


def run_both():
    data = os.path.join(TMP, "perf.data")
    wl = subprocess.Popen([DIVWORK, "gate", SECS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    pid = int(wl.stdout.readline().split()[1])
    top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-F", "2000", "-d", "0.5", "--sym-annotate", "hotfn",
                            "--stats", "-p", str(pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # -B: no build-ids collected at the end (perf 6.1 may abort there).
    rec = subprocess.Popen(["perf", "record", "-q", "-B", "-e", "cpu-clock", "-F", "2000", "-o", data,
                            "-p", str(pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)  # both attached (perf record says nothing when it is)
    wl.stdin.write("go\n")
    wl.stdin.flush()
    wl.stdout.read()
    wl.wait()
    _, out, err = collect(top, 20)
    _, _, rerr = collect(rec, 60)
    if rec.returncode != 0:
        diag("perf record: %s" % rerr.strip()[-300:])
    recs = []
    for line in out.splitlines():
        try:
            recs.append(__import__("json").loads(line))
        except ValueError:
            diag("not JSON: %r" % line[:200])
    return top.returncode, recs, err, data


def perftop_annotation(recs):
    """{addr: samples} summed over the intervals, {addr: (offset, asm, source)}, and the entries."""
    counts, lines, entries = {}, {}, []
    for rec in recs:
        for a in rec.get("annotate", []):
            if a.get("symbol") != "hotfn":
                continue
            entries.append(a)
            for l in a.get("lines", []):
                addr = int(l["addr"], 16)
                counts[addr] = counts.get(addr, 0) + l["samples"]
                lines[addr] = (l["offset"], l["asm"], l["source"])
    return counts, lines, entries


def perf_annotation(data):
    """{addr: percent} from perf annotate --stdio, and its raw text."""
    r = subprocess.run(["perf", "annotate", "--stdio", "-i", data, "-s", "hotfn"], capture_output=True, text=True)
    shares = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*([0-9.]+)\s*:\s+([0-9a-f]+):\s", line)
        if m:
            shares[int(m.group(2), 16)] = float(m.group(1))
    if not shares:
        diag("perf annotate gave nothing: %s" % r.stderr.strip()[-300:])
    return shares, r.stdout


def main():
    if not is_root():
        skip("annotate against perf", "needs root to sample another process")
        return done()
    if shutil.which("perf") is None:
        skip("annotate against perf", "perf is not installed")
        return done()
    line = divide_line()
    start, size = hotfn_symbol()
    ok(line > 0 and start, "divwork's divide at line %d, hotfn at %s" % (line, start and hex(start)))
    rc, recs, err, data = run_both()
    ok(rc == 0 and recs, "perftop exits 0 when the workload exits (%s)" % err.strip()[:200])
    counts, lines, entries = perftop_annotation(recs)
    pshares, ptext = perf_annotation(data)
    total = sum(counts.values())
    ok(entries and total > MIN_SAMPLES and pshares, "both annotated hotfn (perftop %d samples, perf %d lines)"
       % (total, len(pshares)))
    if not entries or not total or not pshares:
        diag(ptext[-1500:])
        return done()
    ok(all(a["dso"].endswith("divwork") and sum(l["samples"] for l in a["lines"]) == a["samples"]
           for a in entries), "each entry names divwork and its lines add up to its samples")
    ok(all(addr == start + off for addr, (off, _, _) in lines.items()) and min(o for o, _, _ in lines.values()) == 0,
       "offsets are bytes from hotfn's start (%#x) and addr = start + offset" % start)
    ok(set(lines) == set(pshares), "the same instructions as perf annotate (%d vs %d)" % (len(lines), len(pshares)))
    tshares = {a: 100.0 * n / total for a, n in counts.items()}
    diag("perf    %r" % sorted(((round(v, 1), hex(a)) for a, v in pshares.items() if v >= 0.5), reverse=True))
    diag("perftop %r" % sorted(((round(v, 1), hex(a)) for a, v in tshares.items() if v >= 0.5), reverse=True))
    thot = max(tshares, key=tshares.get)
    phot = max(pshares, key=pshares.get)
    ok(thot == phot, "the same hottest instruction: perftop %#x (%.1f%%), perf %#x (%.1f%%)"
       % (thot, tshares[thot], phot, pshares[phot]))
    tv = 0.5 * sum(abs(tshares.get(a, 0.0) - pshares.get(a, 0.0)) for a in set(tshares) | set(pshares))
    ok(tv <= SHARE_TV, "per-instruction shares within %.0f points of total variation: %.2f" % (SHARE_TV, tv))
    src = lines[thot][2] or ""
    ok(re.search(r"(^|/)divwork\.c:%d$" % line, src) is not None,
       "the hot instruction's source is the divide's line: %s (want divwork.c:%d)" % (src, line))
    ok(any(re.match(r"div", asm) for _, asm, _ in lines.values()), "the divide is among the instructions")
    st = [r["annotate_counts"] for r in recs if "annotate_counts" in r]
    ok(st and st[-1]["symbols"] >= 1 and all(s["bytes"] <= s["bytes_max"] and s["dropped"] == 0 for s in st),
       "--stats: the counts' records within their bound (%r)" % (st[-1] if st else None))
    return done()


try:
    main()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
