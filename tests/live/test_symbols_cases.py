# SPDX-License-Identifier: GPL-2.0-or-later
"""Live symbol tests for code whose file is gone: a binary deleted while it
runs, and a binary run from a memfd. Both must still be named by function.

usage: test_symbols_cases.py PERFTOP WORKLOAD
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tap import diag, done, finish_workload, is_root, ok, perftop_json, skip  # noqa: E402

PERFTOP, WORKLOAD = sys.argv[1], sys.argv[2]


def start_gated(argv, **kw):
    """Starts a gated workload; returns (Popen, pid) once it said ready."""
    p = subprocess.Popen(argv + ["gate", "split", "1,0,0", "4"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, **kw)
    line = p.stdout.readline().split()
    if len(line) != 2 or line[0] != "ready":
        p.kill()
        p.wait()
        raise RuntimeError("workload did not start: %r" % line)
    return p, int(line[1])


def sample(p, pid, what):
    """Lets the workload run, samples it; returns {(symbol, dso): samples}."""
    p.stdin.write("go\n")
    p.stdin.flush()
    rc, recs, err = perftop_json(PERFTOP, "-p", str(pid), "-d", "1", "-n", "2", "-F", "1000")
    finish_workload(p)
    ok(rc == 0, "%s: perftop -p exits 0 (%s)" % (what, err.strip()))
    rows = {}
    for rec in recs:
        for s in rec.get("symbols", []):
            key = (s["symbol"], s["dso"])
            rows[key] = rows.get(key, 0) + s["samples"]
    diag("%s: top rows %r" % (what, sorted(rows.items(), key=lambda kv: -kv[1])[:4]))
    return rows


def hot_rows(rows):
    return sorted(((n, k) for k, n in rows.items() if k[0] == "hot_a"), reverse=True)


def test_deleted():
    """A copy of the workload, deleted once it runs: maps say "(deleted)"."""
    d = tempfile.mkdtemp(prefix="perftop-cases-")
    exe = os.path.join(d, "workload-copy")
    try:
        shutil.copy2(WORKLOAD, exe)
        p, pid = start_gated([exe])
        os.unlink(exe)
        rows = sample(p, pid, "deleted binary")
        hot = hot_rows(rows)
        ok(hot, "deleted binary: hot_a named")
        ok(hot and hot[0][1][1].endswith("(deleted)"), "deleted binary: its dso says (deleted)")
        total = sum(rows.values())
        ok(hot and total and hot[0][0] * 2 > total, "deleted binary: hot_a is most of the samples")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_memfd():
    """The workload run from a memfd (fexecve): no path at all."""
    if not hasattr(os, "memfd_create"):
        skip("memfd binary", "no os.memfd_create")
        return
    fd = os.memfd_create("perftop-wl", 0)
    try:
        with open(WORKLOAD, "rb") as f:
            os.write(fd, f.read())
        p, pid = start_gated(["/proc/self/fd/%d" % fd], pass_fds=(fd,))
    finally:
        os.close(fd)
    rows = sample(p, pid, "memfd binary")
    hot = hot_rows(rows)
    ok(hot, "memfd binary: hot_a named")
    ok(hot and hot[0][1][1].startswith("/memfd:perftop-wl"), "memfd binary: its dso is the memfd")


if not is_root() and open("/proc/sys/kernel/perf_event_paranoid").read().strip() not in ("-1", "0", "1"):
    skip("symbols cases", "needs root or perf_event_paranoid <= 1")
else:
    test_deleted()
    test_memfd()
done()
