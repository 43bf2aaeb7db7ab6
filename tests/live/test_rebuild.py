# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 11, case 2: a program rebuilt at the same path while an old copy
still runs. Build v1 (its hot function alpha_hot) to DIR/prog and start it,
before perftop (found by the /proc scan) or after (by its records); with
perftop sampling system-wide, rebuild v2 (beta_hot) at the same path and run
it beside the old one. The new run's samples must be named beta_hot, the
old one's alpha_hot. Two ways to rebuild: to a temporary file renamed over
the path, and unlinking the path then writing the new file in its place.

Truth is measured, not assumed: each run prints the CPU time it used, so
each function's share of the program's samples must match its process's
share of the CPU time (within 10 points), whatever the machine gives them.

usage: test_rebuild.py PERFTOP WORKLOAD
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
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rebuild.c")
NEW_AFTER, NEW_SECS = 2, 3   # after perftop's first interval, the new run starts, runs
OLD_AFTER = 1                 # and after it, the old one is stopped (SIGTERM)
OLD_SECS = 120                # (the old run's limit: the test stops it)
POINTS = 10


def compile_to(hot, out):
    r = subprocess.run(["gcc", "-O1", "-DHOT=" + hot, "-o", out, SRC], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError("gcc failed: %s" % r.stderr.strip()[-300:])


def run_prog(path, secs):
    p = subprocess.Popen([path, str(secs)], stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("%s did not start" % path)
    return p


def cpu_ns(pid):
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0])


def case(name, tmp, rebuild, old_first):
    """old_first: the old run is found by perftop's /proc scan, else by
    its exec's records."""
    path = os.path.join(tmp, "prog")
    compile_to("alpha_hot", path)
    procs = []
    try:
        before = 0
        if old_first:
            old = run_prog(path, OLD_SECS)
            procs.append(old)
        n = 1 + NEW_AFTER + NEW_SECS + OLD_AFTER + 12  # room for two gcc runs on a busy machine
        top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-e", "cpu-clock", "-F", "1000",
                                "-d", "1", "-n", str(n), "-E", "2000"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(top)
        reader = LineReader(top)
        # The first interval holds perftop's start-up (long in an ASan
        # build): it is left out, and the old run's CPU time counts from its
        # end on.
        reader.first.wait(timeout=120)
        if old_first:
            before = cpu_ns(old.pid)
        else:  # perftop is up: the exec comes as records
            old = run_prog(path, OLD_SECS)
            procs.append(old)
        time.sleep(NEW_AFTER)
        rebuild(path)
        new = run_prog(path, NEW_SECS)
        procs.append(new)
        new_ns = int(new.communicate(timeout=NEW_SECS + 120)[0].strip() or 0)
        time.sleep(OLD_AFTER)
        old.terminate()
        old_ns = int(old.communicate(timeout=120)[0].strip() or 0) - before
        covered = top.poll() is None  # both runs ended while perftop sampled
        err = top.stderr.read()
        top.wait(timeout=n + 120)
        reader.join()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    recs = reader.records()
    ok(top.returncode == 0 and len(recs) == n,
       "%s: perftop wrote %d of %d intervals, exit %d (%s)" % (name, len(recs), n, top.returncode,
                                                               err.strip()[:200]))
    rows = {}
    for r in recs[1:]:
        for s in r.get("symbols", []):
            if s["dso"].startswith(path):
                k = "%s (%s)" % (s["symbol"], os.path.basename(s["dso"]))
                rows[k] = rows.get(k, 0) + s["samples"]
    total = sum(rows.values())
    alpha = sum(v for k, v in rows.items() if k.startswith("alpha_hot "))
    beta = sum(v for k, v in rows.items() if k.startswith("beta_hot "))
    diag("%s: rows of %s: %s" % (name, path, ", ".join("%s %d" % kv for kv in
                                                         sorted(rows.items(), key=lambda x: -x[1]))))
    want_new = 100.0 * new_ns / (new_ns + old_ns) if new_ns + old_ns else 0
    diag("%s: CPU time in perftop's window: old run %.2f s, new run %.2f s (new: %.1f%%)" %
         (name, old_ns / 1e9, new_ns / 1e9, want_new))
    if not covered:
        skip("%s: each build's samples named after its own code" % name,
             "perftop's %d intervals ended before the runs did (a very slow machine)" % n)
        return
    if total < 200 or new_ns < 0.2e9:
        skip("%s: each build's samples named after its own code" % name,
             "too little CPU time here: %d samples, new run %.2f s" % (total, new_ns / 1e9))
        return
    got_new, got_old = 100.0 * beta / total, 100.0 * alpha / total
    ok(abs(got_new - want_new) <= POINTS,
       "%s: the new build's samples carry beta_hot: %.1f%% of the program's samples, its CPU "
       "share %.1f%%" % (name, got_new, want_new))
    ok(abs(got_old - (100 - want_new)) <= POINTS,
       "%s: the old run still carries alpha_hot: %.1f%% of the program's samples, its CPU "
       "share %.1f%%" % (name, got_old, 100 - want_new))


def renamed_over(path):
    tmp = path + ".new"
    compile_to("beta_hot", tmp)
    os.rename(tmp, path)


def unlinked_rewritten(path):
    os.unlink(path)
    compile_to("beta_hot", path)


if os.geteuid() != 0:
    skip("rebuilt program", "needs root for system-wide sampling")
elif shutil.which("gcc") is None:
    skip("rebuilt program", "gcc is not installed")
else:
    for label, how in (("renamed over", renamed_over), ("unlinked, written in place", unlinked_rewritten)):
        for old_first, when in ((True, "old run before perftop"), (False, "old run after perftop")):
            d = tempfile.mkdtemp(prefix="perftop-rebuild-")
            try:
                case("%s, %s" % (label, when), d, how, old_first)
            finally:
                shutil.rmtree(d, ignore_errors=True)
done()
