# SPDX-License-Identifier: GPL-2.0-or-later
"""Live symbol tests: code perftop must name although no ELF file holds it.

usage: test_symbols_live.py PERFTOP WORKLOAD
The fixture programs are in ../fixtures of the workload's build directory.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import diag, done, ok, perftop_json, skip, is_root  # noqa: E402

PERFTOP, WORKLOAD = sys.argv[1], sys.argv[2]
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(WORKLOAD))), "fixtures")


def test_jit():
    """A JIT's hot function appears by the name its perf-PID.map gives."""
    jit = os.path.join(FIXTURES, "fixture_jit")
    p = subprocess.Popen([jit, "4"], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().split()
    if line == ["skip"]:
        p.wait()
        skip("JIT symbols", "not x86-64")
        return
    if len(line) != 2 or line[0] != "ready":
        ok(False, "fixture_jit started (%r)" % line)
        p.kill()
        p.wait()
        return
    pid = int(line[1])
    rc, recs, err = perftop_json(PERFTOP, "-p", str(pid), "-d", "1", "-n", "2", "-F", "1000")
    p.wait()
    ok(rc == 0, "perftop -p on the JIT exits 0 (%s)" % err.strip())
    rows = {}
    for rec in recs:
        for s in rec.get("symbols", []):
            key = (s["symbol"], s["dso"])
            rows[key] = rows.get(key, 0) + s["samples"]
    top = sorted(rows.items(), key=lambda kv: -kv[1])[:5]
    diag("top rows: %r" % top)
    want = ("jit_spin_loop", "perf-%d.map" % pid)
    ok(rows.get(want, 0) > 0, "the JIT function is named from /tmp/perf-%d.map" % pid)
    ok(top and top[0][0] == want, "and it is the hottest row")


if not is_root() and open("/proc/sys/kernel/perf_event_paranoid").read().strip() not in ("-1", "0", "1"):
    skip("symbols live", "needs root or perf_event_paranoid <= 1")
else:
    test_jit()
done()
