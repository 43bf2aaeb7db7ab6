# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 11, case 4: an ordinary user under perf_event_paranoid=2 runs
perftop -b -p PID on a process of its own, without --exclude: perftop exits
0, names the workload's functions and says that only user space is sampled
(the event's JSON exclude has "kernel" and a notice says why).

The test makes its own throwaway user (useradd, removed at the end) and
sets perf_event_paranoid to 2 for the run, restoring it on every path;
perftop and the workload are copied where that user may run them.

usage: test_unprivileged.py PERFTOP WORKLOAD
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tap import diag, done, ok, skip  # noqa: E402

PERFTOP, WORKLOAD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PARANOID = "/proc/sys/kernel/perf_event_paranoid"
USER = "perftop-t11"


def why_not():
    if os.geteuid() != 0:
        return "needs root to make a user and set perf_event_paranoid"
    for tool in ("useradd", "userdel", "setpriv"):
        if shutil.which(tool) is None:
            return "%s is not installed" % tool
    if not os.access(PARANOID, os.W_OK):
        return "%s is not writable here" % PARANOID
    return None


def as_user(*cmd):
    return ["setpriv", "--reuid=" + USER, "--regid=" + USER, "--init-groups", "--reset-env", *cmd]


def write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def run(tmp):
    top, wl = os.path.join(tmp, "perftop"), os.path.join(tmp, "workload")
    for src, dst in ((PERFTOP, top), (WORKLOAD, wl)):
        shutil.copy(src, dst)
        os.chmod(dst, 0o755)
    os.chmod(tmp, 0o755)
    p = subprocess.Popen(as_user(wl, "split", "6,3,1", "8"), stdout=subprocess.PIPE, text=True, cwd=tmp)
    try:
        line = p.stdout.readline().split()
        if len(line) != 2 or line[0] != "ready":
            ok(False, "the workload runs as %s (%r)" % (USER, line))
            return
        pid = int(line[1])
        r = subprocess.run(as_user(top, "-b", "--format", "json", "-p", str(pid), "-d", "1", "-n", "3"),
                           capture_output=True, text=True, timeout=120, cwd=tmp)
    finally:
        p.kill()
        p.wait()
    recs = []
    for x in r.stdout.splitlines():
        try:
            recs.append(json.loads(x))
        except ValueError:
            diag("not JSON: %r" % x[:200])
    diag("perftop -p %d as %s -> %d: %s" % (pid, USER, r.returncode, r.stderr.strip()[:300]))
    ok(r.returncode == 0 and len(recs) == 3,
       "as an ordinary user under paranoid 2, -p of its own process runs: exit %d, %d of 3 intervals"
       % (r.returncode, len(recs)))
    if not recs:
        return
    syms = {}
    for rec in recs:
        for s in rec.get("symbols", []):
            syms[s["symbol"]] = syms.get(s["symbol"], 0) + s["samples"]
    top3 = sorted(syms.items(), key=lambda kv: -kv[1])[:5]
    diag("symbols: %s" % top3)
    hot = sum(syms.get(f, 0) for f in ("hot_a", "hot_b", "hot_c"))
    ok(all(syms.get(f, 0) > 0 for f in ("hot_a", "hot_b")) and hot >= 0.8 * sum(syms.values()),
       "the workload's functions are named: hot_a, hot_b, hot_c have %d of %d samples" %
       (hot, sum(syms.values())))
    excl = [e.get("exclude", []) for e in recs[0]["events"]]
    notices = recs[0].get("notices", [])
    diag("exclude %r, notices %r" % (excl, notices))
    ok(excl and all("kernel" in x for x in excl), "every event excludes the kernel (%r)" % excl)
    ok(any("paranoid" in n and "kernel" in n for n in notices),
       "a notice says only user space is sampled and why (%r)" % notices)
    ok(all(not s["kernel"] for rec in recs for s in rec.get("symbols", [])),
       "no kernel symbol among the samples")
    # Issue 46: user-only counting cannot see context switches and
    # migrations (they happen in the kernel): n/a (JSON null), never a 0.
    procs = [t for rec in recs for t in rec.get("tasks", []) if t.get("pid") == pid and "counters" in t
             and "tid" not in t]
    cnt = procs[-1]["counters"] if procs else {}
    diag("counters %r" % {k: (v.get("value"), v.get("state")) for k, v in cnt.items()})
    ok(cnt and all(cnt.get(e, {}).get("value", 0) is None and cnt[e]["total"] is None
                   and cnt[e]["state"] == "unsupported" for e in ("context-switches", "cpu-migrations")),
       "user-only: context-switches and cpu-migrations are null, not a 0 that was not measured")
    ok(cnt and cnt.get("task-clock", {}).get("value"), "task-clock is still measured")
    ok(any("context-switches, cpu-migrations n/a" in n and "paranoid" in n for n in notices),
       "a notice says why they are n/a and how to count them (%r)" % notices)


why = why_not()
if why:
    skip("ordinary user under perf_event_paranoid 2", why)
    done()
with open(PARANOID) as f:
    saved = int(f.read())
made = subprocess.run(["id", USER], capture_output=True).returncode != 0
tmp = tempfile.mkdtemp(prefix="perftop-unpriv-")
try:
    if made:
        r = subprocess.run(["useradd", "--system", "--no-create-home", "--user-group", "--shell",
                            "/usr/sbin/nologin", USER], capture_output=True, text=True)
        if r.returncode != 0:
            skip("ordinary user under perf_event_paranoid 2", "useradd failed: %s" % r.stderr.strip())
            made = False
            raise SystemExit
    write(PARANOID, 2)
    run(tmp)
except SystemExit:
    pass
finally:
    write(PARANOID, saved)
    if made:
        subprocess.run(["userdel", USER], capture_output=True)
    shutil.rmtree(tmp, ignore_errors=True)
with open(PARANOID) as f:
    ok(int(f.read()) == saved, "perf_event_paranoid restored to %d" % saved)
ok(not made or subprocess.run(["id", USER], capture_output=True).returncode != 0,
   "the throwaway user %s is gone" % USER)
done()
