# SPDX-License-Identifier: GPL-2.0-or-later
"""Live symbol tests of a process's life after perftop attached: code that
only MMAP2 and COMM records tell of, never /proc/PID/maps.

  - a library dlopened once perftop watches: its function by name, the
    library as DSO;
  - a process execing into another binary (non-PIE into non-PIE, code at
    the same addresses; then into the PIE workload): the new image's
    function by name, in the new DSO, and the new comm.

usage: test_symbols_proc.py PERFTOP WORKLOAD
The fixtures (fixture_dlopen, libhot.so, fixture_exec, fixture_exec2) are
built beside the workload.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import collect, diag, done, is_root, ok, skip  # noqa: E402

PERFTOP, WORKLOAD = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(WORKLOAD))
WL = os.path.basename(WORKLOAD)


def watch(argv):
    """Starts a gated fixture, attaches perftop -p to it, opens the gate once
    perftop has read /proc, and returns (pid, rc, records, stderr) when the
    fixture has exited."""
    fx = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = fx.stdout.readline().split()
    if len(line) != 2 or line[0] != "ready":
        fx.kill()
        fx.wait()
        raise RuntimeError("%s did not start: %r" % (argv[0], line))
    pid = int(line[1])
    top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-p", str(pid), "-d", "0.5", "-F", "1000"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)  # attached, /proc read: what follows comes as records
    maps = open("/proc/%d/maps" % pid).read()
    fx.stdin.write("go\n")
    fx.stdin.flush()
    fx.stdout.read()
    fx.wait()
    _, out, err = collect(top, 20)
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    return pid, maps, top.returncode, recs, err


def rows(recs, first=0):
    """{(symbol, dso): samples} over the records from index first on."""
    tot = {}
    for rec in recs[first:]:
        for s in rec.get("symbols", []):
            key = (s["symbol"], s["dso"])
            tot[key] = tot.get(key, 0) + s["samples"]
    return tot


def hottest(tot):
    return max(tot.items(), key=lambda kv: kv[1])[0] if tot else None


def comms(recs, pid):
    """The focused process's comm, record by record."""
    return [t["comm"] for rec in recs for t in rec.get("tasks", []) if t["pid"] == pid]


def test_dlopen():
    lib = os.path.join(HERE, "libhot.so")
    pid, maps, rc, recs, err = watch([os.path.join(HERE, "fixture_dlopen"), lib, "2"])
    ok(rc == 0, "dlopen: perftop -p exits 0 when the fixture exits (%s)" % err.strip())
    ok("libhot.so" not in maps, "dlopen: the library was not mapped when perftop attached")
    tot = rows(recs)
    diag("dlopen: top rows %r" % sorted(tot.items(), key=lambda kv: -kv[1])[:5])
    want = ("libhot_spin", lib)
    ok(tot.get(want, 0) > 0, "dlopen: libhot_spin is named, with %s as its DSO" % lib)
    ok(hottest(tot) == want, "dlopen: and it is the hottest row (%r)" % (hottest(tot),))
    unknown = sum(v for k, v in tot.items() if "libhot" in k[1] and k[0] != "libhot_spin")
    ok(unknown * 20 < tot.get(want, 0) + 1, "dlopen: no more than 5%% of the library's samples elsewhere (%d)"
       % unknown)


def test_exec_same_addresses():
    """fixture_exec (non-PIE) spins, then execs fixture_exec2 (non-PIE, its
    code at the same addresses): a map left from the old image would name
    the new code spin_before_exec."""
    exe1, exe2 = os.path.join(HERE, "fixture_exec"), os.path.join(HERE, "fixture_exec2")
    pid, maps, rc, recs, err = watch([exe1, "gate", "1.5", exe2, "2"])
    ok(rc == 0, "exec: perftop -p exits 0 when the exec'd program exits (%s)" % err.strip())
    tot = rows(recs)
    diag("exec: rows %r" % sorted(tot.items(), key=lambda kv: -kv[1])[:6])
    ok(tot.get(("spin_before_exec", exe1), 0) > 0, "exec: before it, spin_before_exec in fixture_exec")
    ok(tot.get(("spin_after_exec", exe2), 0) > 0, "exec: after it, spin_after_exec in fixture_exec2")
    # The last full interval is all after the exec.
    late = rows(recs[-3:-1]) if len(recs) >= 3 else {}
    diag("exec: last intervals %r" % sorted(late.items(), key=lambda kv: -kv[1])[:4])
    ok(hottest(late) == ("spin_after_exec", exe2), "exec: the last intervals' hottest row is the new code")
    ok(late.get(("spin_before_exec", exe1), 0) == 0, "exec: no sample of the new image goes to the old one")
    names = comms(recs, pid)
    diag("exec: comms %r" % names)
    ok(names[:1] == ["fixture_exec"], "exec: the task is first fixture_exec")
    ok(names[-1:] == ["fixture_exec2"], "exec: and then fixture_exec2")


def test_exec_workload():
    """Into the PIE workload: its hot functions by name, in its DSO."""
    exe1 = os.path.join(HERE, "fixture_exec")
    pid, maps, rc, recs, err = watch([exe1, "gate", "1", WORKLOAD, "split", "6,3,1", "2"])
    ok(rc == 0, "exec into the workload: perftop exits 0 (%s)" % err.strip())
    tot = rows(recs)
    diag("exec workload: rows %r" % sorted(tot.items(), key=lambda kv: -kv[1])[:6])
    hot = [tot.get((h, os.path.abspath(WORKLOAD)), 0) for h in ("hot_a", "hot_b", "hot_c")]
    ok(all(hot), "exec into the workload: hot_a, hot_b, hot_c named in %s (%r)" % (WL, hot))
    ok(hot[0] > hot[1] > hot[2], "exec into the workload: ranked hot_a > hot_b > hot_c")
    names = comms(recs, pid)
    ok(names[:1] == ["fixture_exec"] and names[-1:] == [WL[:15]],
       "exec into the workload: comm goes from fixture_exec to %s (%r)" % (WL, sorted(set(names))))


if not is_root() and open("/proc/sys/kernel/perf_event_paranoid").read().strip() not in ("-1", "0", "1"):
    skip("symbols of a process's life", "needs root or perf_event_paranoid <= 1")
else:
    test_dlopen()
    test_exec_same_addresses()
    test_exec_workload()
done()
