# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 11, case 3: a PID reused. Process A (comm "oldowner", 4 threads)
runs under perftop, is sampled and exits; then process B (comm "newowner",
one thread) is made to get A's PID: a helper of ours writes PID-1 to
/proc/sys/kernel/ns_last_pid (the root namespace's: perftop sees global
PIDs) right before each fork until a child gets it. In every interval
that lies wholly within B's life, the PID's live task row is B's: comm
newowner, one thread, and no sampled row or thread of that PID says
oldowner.

usage: test_pidreuse.py PERFTOP WORKLOAD
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import LineReader, diag, done, ok, skip  # noqa: E402

PERFTOP = os.path.abspath(sys.argv[1])
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pidreuse.c")
NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"
PERIOD = 0.5
A_SECS, B_SECS = 2, 4
MARGIN = 0.1   # seconds between an interval's edge and B's start or end


def why_not():
    if os.geteuid() != 0:
        return "needs root: system-wide sampling and writing %s" % NS_LAST_PID
    if not os.access(NS_LAST_PID, os.W_OK):
        return "%s is not writable here" % NS_LAST_PID
    if shutil.which("gcc") is None:
        return "gcc is not installed"
    return None


def build(tmp):
    for out, extra in (("oldowner", ["-pthread"]), ("pidfork", ["-DFORKER"])):
        r = subprocess.run(["gcc", "-O1", *extra, "-o", os.path.join(tmp, out), SRC],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("gcc failed: %s" % r.stderr.strip()[-300:])
    shutil.copy(os.path.join(tmp, "oldowner"), os.path.join(tmp, "newowner"))


def ready(p):
    line = p.stdout.readline().split()
    if len(line) != 2 or line[0] != "ready":
        raise RuntimeError("no ready line: %r" % line)
    return int(line[1])


def main(tmp):
    build(tmp)
    procs = []
    try:
        n = int((A_SECS + B_SECS + 4) / PERIOD)
        top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-e", "cpu-clock", "-F", "1000",
                                "-d", str(PERIOD), "-n", str(n), "-E", "2000", "--threads"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(top)
        reader = LineReader(top)
        reader.first.wait(timeout=60)
        a = subprocess.Popen([os.path.join(tmp, "oldowner"), "4", str(A_SECS)], stdout=subprocess.PIPE,
                             text=True)
        procs.append(a)
        pid = ready(a)
        a.communicate(timeout=A_SECS + 60)  # exited and reaped: its PID is free
        b = subprocess.Popen([os.path.join(tmp, "pidfork"), str(pid), os.path.join(tmp, "newowner"),
                              "1", str(B_SECS)], stdout=subprocess.PIPE, text=True)
        procs.append(b)
        try:
            b_pid = ready(b)
        except RuntimeError:
            b.wait(timeout=60)
            skip("PID reuse", "could not make a new process get PID %d (helper exit %d)" %
                 (pid, b.returncode))
            return
        b_start = time.time()
        b.communicate(timeout=B_SECS + 60)
        b_end = time.time()
        err = top.stderr.read()
        top.wait(timeout=n * PERIOD + 120)
        reader.join()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    diag("A and B had PID %d (B %d); B ran %.2f s" % (pid, b_pid, b_end - b_start))
    recs = reader.records()
    ok(top.returncode == 0 and len(recs) == n,
       "perftop wrote %d of %d intervals, exit %d (%s)" % (len(recs), n, top.returncode, err.strip()[:200]))
    ok(b_pid == pid, "B got A's PID %d" % pid)
    a_rows = [t for r in recs for t in r.get("tasks", []) if t["pid"] == pid and t["comm"] == "oldowner"
              and "tid" not in t]
    ok(any(t["samples"] > 0 and t["threads"] >= 2 for t in a_rows),
       "A was seen: sampled as oldowner with more than one thread (%d rows)" % len(a_rows))
    inside = [r for r in recs if r["time"] - r["interval"] >= b_start + MARGIN and r["time"] <= b_end - MARGIN]
    if not inside:
        skip("B's rows carry nothing of A", "no interval lies wholly within B's life")
        return
    bad, good = [], 0
    for r in inside:
        # Sampled rows only; --threads adds thread rows (with a tid) to the tasks.
        rows = [t for t in r.get("tasks", []) if t["pid"] == pid and "tid" not in t]
        live = [t for t in rows if not t["exited"]]
        threads = [t for t in r.get("tasks", []) if t["pid"] == pid and "tid" in t and t["samples"] > 0]
        diag("interval at %.2f: rows of PID %d: %s; sampled threads: %s" % (
            r["time"], pid,
            "; ".join("%s threads %d samples %d%s" % (t["comm"], t["threads"], t["samples"],
                                                      " exited" if t["exited"] else "") for t in rows),
            "; ".join("%d %s %d" % (t["tid"], t["comm"], t["samples"]) for t in threads)))
        if len(live) == 1 and live[0]["comm"] == "newowner" and live[0]["threads"] == 1 and \
                live[0]["samples"] > 0:
            good += 1
        else:
            bad.append("%.2f: live rows %s" % (r["time"], [(t["comm"], t["threads"], t["samples"])
                                                          for t in live]))
        if any(t["comm"] == "oldowner" and t["samples"] > 0 for t in rows) or \
                any(t["comm"] != "newowner" or t["tid"] != pid for t in threads):
            bad.append("%.2f: a sampled row of A" % r["time"])
    ok(not bad and good == len(inside),
       "in the %d intervals within B's life, PID %d's row is B's alone (newowner, 1 thread): %s"
       % (len(inside), pid, "; ".join(bad[:4]) or "all"))


why = why_not()
if why:
    skip("PID reuse", why)
else:
    d = tempfile.mkdtemp(prefix="perftop-pidreuse-")
    try:
        main(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
done()
