# SPDX-License-Identifier: GPL-2.0-or-later
"""perftop's symbols against perf report's on the same run.

The workload waits at a gate until perftop -p and perf record -p are both
attached, then works and exits; both tools sample cpu-clock at 1 kHz until it
exits, so they see the same seconds. The top symbols must have the same names
(user-space aliases of one address count as the same name: perf and perftop
may pick different aliases), the same order where perf's shares are clearly
apart, and shares within a few points. A system-wide run of a syscall-heavy
workload compares the top kernel symbols' names and order.

usage: test_vs_perf.py PERFTOP WORKLOAD
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import collect, diag, done, is_root, ok, skip  # noqa: E402

PERFTOP, WORKLOAD = sys.argv[1], sys.argv[2]
WL = os.path.basename(WORKLOAD)
TMP = tempfile.mkdtemp(prefix="perftop-vs-perf-")
SHARE_POINTS = 5     # shares of the same run by two samplers
APART_POINTS = 4     # rows whose perf shares differ by more must keep their order
MIN_SHARE = 3        # rows below this in both tools are noise
SYSWIDE_APART_POINTS = 10  # system-wide: the two samplers disturb each other
# A kernel-heavy loop of short syscalls, -p: the two tools' cpu-clock timers
# start at the same wake-up and mostly fire in one interrupt, giving the
# same samples (here: within 0.7 point in 10 runs, idle or beside CPU hogs
# and a 20 kHz perftop). Each context switch saves and restarts the timers
# a few nanoseconds apart, and under CI's load they can drift into separate
# interrupts microseconds apart: the later one samples the loop at another
# phase, or where the kernel turns interrupts back on after the earlier
# one's handler. Each tool is right about its own samples; the samples
# differ (CI: two rows 5.6 and 5.5 points apart with both tools attached
# first, names and counts agreeing; before that gate, 8 points once in CI
# and 5.1 in a CI-style run here).
# split -p (long user-space loops) keeps SHARE_POINTS.
SYSCALL_POINTS = 10


def perf_can_record():
    """None when perf records here, else why not."""
    if shutil.which("perf") is None:
        return "perf is not installed"
    r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-o", os.path.join(TMP, "probe.data"),
                        "--", "true"], capture_output=True, text=True)
    if r.returncode != 0:
        return "perf record fails here: %s" % r.stderr.strip().splitlines()[-1:]
    return None


def perf_rows(data, *extra):
    """perf report's rows as {(symbol, dso, kernel): samples}."""
    r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,sym",
                        "-F", "sample,dso,sym", "-t", "|", *extra], capture_output=True, text=True)
    rows = {}
    for line in r.stdout.splitlines():
        f = [x.strip() for x in line.split("|")]
        if line.startswith("#") or len(f) != 3 or not f[0].isdigit():
            continue
        kernel = f[2].startswith("[k] ")
        sym = f[2][4:] if f[2][:1] == "[" and f[2][2:4] == "] " else f[2]
        key = (sym, f[1], kernel)
        rows[key] = rows.get(key, 0) + int(f[0])
    if not rows:
        diag("perf report gave nothing: %s" % r.stderr.strip()[-300:])
    return rows


def perftop_rows(recs):
    """perftop's rows summed over intervals, keyed as perf_rows'; also the
    full DSO paths by basename (for alias look-ups)."""
    rows, paths = {}, {}
    for rec in recs:
        for s in rec.get("symbols", []):
            dso = os.path.basename(s["dso"]) if s["dso"].startswith("/") else s["dso"]
            if s["dso"].startswith("/"):
                paths[dso] = s["dso"]
            key = (s["symbol"], dso, s["kernel"])
            rows[key] = rows.get(key, 0) + s["samples"]
    return rows, paths


def shares(rows):
    tot = sum(rows.values()) or 1
    return {k: 100.0 * v / tot for k, v in rows.items()}


_aliases = {}


def func_addrs(path):
    """{name: address} of the functions of an ELF file and of its build-id
    debug file, so that two names of one function can be told apart from
    two functions."""
    if path in _aliases:
        return _aliases[path]
    files = [path]
    r = subprocess.run(["readelf", "-nW", path], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if "Build ID:" in line:
            bid = line.split()[-1]
            files.append("/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]))
    names = {}
    for f in files:
        if not os.path.exists(f):
            continue
        r = subprocess.run(["readelf", "-sW", f], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            c = line.split()
            if len(c) >= 8 and c[3] in ("FUNC", "IFUNC") and c[1] != "0000000000000000":
                names[c[7].split("@")[0]] = c[1]
    _aliases[path] = names
    return names


def same(a, b, paths):
    """Rows a and b (symbol, dso, kernel) name the same function."""
    if a == b:
        return True
    if a[1:] != b[1:] or a[2] or a[1] not in paths:
        return False
    names = func_addrs(paths[a[1]])
    return names.get(a[0]) is not None and names.get(a[0]) == names.get(b[0])


def find(key, rows, paths):
    for k in rows:
        if same(key, k, paths):
            return k
    return None


def compare(label, perf, top, paths, want_top=None, strict=True, apart=APART_POINTS, points=SHARE_POINTS):
    """perf's rows of at least MIN_SHARE are in perftop's, in the same order
    where perf's shares are more than `apart` points apart, and in the same
    DSOs. strict: perftop's rows of MIN_SHARE are in perf's too, and the
    shares agree within `points`."""
    ps, ts = shares(perf), shares(top)
    diag("%s: perf    %r" % (label, sorted(((round(v, 1), k[0]) for k, v in ps.items()), reverse=True)[:8]))
    diag("%s: perftop %r" % (label, sorted(((round(v, 1), k[0]) for k, v in ts.items()), reverse=True)[:8]))
    ok(sum(perf.values()) > 500 and sum(top.values()) > 500,
       "%s: both tools took samples (perf %d, perftop %d)" % (label, sum(perf.values()), sum(top.values())))
    big = [k for k, v in sorted(ps.items(), key=lambda kv: -kv[1]) if v >= MIN_SHARE]
    if want_top:
        ok([k[0] for k in big[:len(want_top)]] == want_top,
           "%s: perf report's top symbols are %s" % (label, ", ".join(want_top)))
    pairs, missing = [], []
    for k in big:
        t = find(k, ts, paths)
        if t is None:
            missing.append(k[0])
        else:
            pairs.append((k, t))
    ok(pairs and not missing, "%s: perf's symbols of %d%% or more are perftop's too (missing: %r)"
       % (label, MIN_SHARE, missing))
    swapped = [(a[0][0], b[0][0]) for i, a in enumerate(pairs) for b in pairs[i + 1:]
               if ps[a[0]] - ps[b[0]] > apart and ts[a[1]] <= ts[b[1]]]
    ok(pairs and not swapped, "%s: in the same order (swapped: %r)" % (label, swapped))
    dsos = [(k[0], k[1], t[1]) for k, t in pairs if k[1] != t[1]]
    ok(pairs and not dsos, "%s: in the same DSOs (%r)" % (label, dsos))
    if not strict:
        return
    extra = [k[0] for k in ts if ts[k] >= MIN_SHARE and find(k, ps, paths) is None]
    ok(not extra, "%s: perftop's symbols of %d%% or more are perf's too (extra: %r)" % (label, MIN_SHARE, extra))
    far = [(k[0], round(ps[k], 1), round(ts[t], 1)) for k, t in pairs if abs(ps[k] - ts[t]) > points]
    ok(pairs and not far, "%s: shares agree within %d points (%r)" % (label, points, far))


def perf_fds(pid):
    """How many perf events process pid has open."""
    n = 0
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                n += os.readlink("/proc/%d/fd/%s" % (pid, fd)) == "anon_inode:[perf_event]"
            except OSError:
                pass
    except OSError:
        pass
    return n


def run_both(perftop_args, perf_args, wl_args):
    """Starts the gated workload, attaches both tools, opens the gate, and
    returns (workload pid, perftop rc, records, stderr, perf data path,
    whether perf record succeeded)."""
    data = os.path.join(TMP, "perf.data")
    pin = 2 if wl_args[0] == "cpu" else 0  # "cpu N" comes before "gate"
    wl = subprocess.Popen([WORKLOAD, *wl_args[:pin], "gate", *wl_args[pin:]], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    pid = int(wl.stdout.readline().split()[1])
    args = [a.replace("PID", str(pid)) for a in perftop_args]
    top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-F", "1000", *args],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rec = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", "1000", "-o", data,
                            *[a.replace("PID", str(pid)) for a in perf_args]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Both attached before the gate opens, or one sees fewer of the same
    # seconds (neither says when it is ready): their events open, then a
    # second to enable them. A fixed second was not enough for a perftop
    # that starts slowly (1.5 s late: 2 433 samples against perf's 2 956).
    deadline = time.time() + 30
    while time.time() < deadline and not (perf_fds(top.pid) and perf_fds(rec.pid)):
        time.sleep(0.05)
    time.sleep(1.0)
    wl.stdin.write("go\n")
    wl.stdin.flush()
    wl.stdout.read()
    wl.wait()
    _, out, err = collect(top, 20)
    _, _, rerr = collect(rec, 60)
    if rec.returncode != 0:
        diag("perf record: %s" % rerr.strip()[-300:])
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    return pid, top.returncode, recs, err, data, rec.returncode == 0


def run_tries(label, perftop_args, perf_args, wl_args):
    """run_both, again when perf record itself failed: perf 6.1 aborts at
    times on what other programs map ("assertion failed at
    util/build-id.c:1010", then a smashed stack). None (a skip said) when
    it failed three times: the reference is missing, not perftop wrong."""
    for _ in range(3):
        pid, rc, recs, err, data, perf_ok = run_both(perftop_args, perf_args, wl_args)
        if perf_ok:
            return pid, rc, recs, err, data
    skip("%s against perf report" % label, "perf record failed three times (perf's own abort)")
    return None


def same_seconds(label, recs, perf):
    """With -p both tools sample the same task's cpu-clock: they see the
    same samples, so the counts agree (they are equal when both were
    attached before the work began)."""
    mine = sum(x["events"][0]["samples"] for x in recs)
    theirs = sum(perf.values())
    ok(abs(mine - theirs) <= 0.03 * theirs,
       "%s: perftop took the samples perf did, within 3 %% (perftop %d, perf %d)" % (label, mine, theirs))


def test_split():
    """Three functions of known 60/30/10 cost in one process."""
    r = run_tries("split -p", ["-p", "PID", "-d", "0.5"], ["-p", "PID"], ["split", "6,3,1", "3"])
    if r is None:
        return
    pid, rc, recs, err, data = r
    ok(rc == 0, "perftop -p exits 0 when the workload exits (%s)" % err.strip())
    top, paths = perftop_rows(recs)
    perf = perf_rows(data)
    same_seconds("split -p", recs, perf)
    compare("split -p", perf, top, paths, want_top=["hot_a", "hot_b", "hot_c"])
    first = [k[0] for k, _ in sorted(top.items(), key=lambda kv: -kv[1])[:3]]
    ok(first == ["hot_a", "hot_b", "hot_c"], "split -p: perftop's top three are hot_a, hot_b, hot_c (%r)" % first)
    ok(all(k[1] == WL for k in top if k[0] in first), "split -p: perftop puts them in %s" % WL)


def test_syscalls():
    """Mostly kernel time, in read/write of /dev/zero and /dev/null, and
    libc's syscall wrappers (whose names have aliases)."""
    r = run_tries("syscalls -p", ["-p", "PID", "-d", "0.5"], ["-p", "PID"], ["syscalls", "3"])
    if r is None:
        return
    pid, rc, recs, err, data = r
    ok(rc == 0, "perftop -p on the syscall workload exits 0 (%s)" % err.strip())
    top, paths = perftop_rows(recs)
    perf = perf_rows(data)
    same_seconds("syscalls -p", recs, perf)
    compare("syscalls -p", perf, top, paths, apart=SYSCALL_POINTS, points=SYSCALL_POINTS)
    kern = [k for k, v in sorted(shares(perf).items(), key=lambda kv: -kv[1]) if k[2] and v >= MIN_SHARE]
    ok(len(kern) >= 2, "syscalls -p: perf report sees kernel symbols to compare (%r)" % [k[0] for k in kern])


def test_system_wide():
    """Both tools see the whole machine for the same seconds (other work
    included); the syscall workload, pinned, makes the kernel rows stand out."""
    r = run_tries("system-wide", ["-d", "0.5", "-n", "8", "-E", "500"], ["-a", "--", "sleep", "4"],
                  ["cpu", "0", "syscalls", "4"])
    if r is None:
        return
    pid, rc, recs, err, data = r
    ok(rc == 0, "system-wide perftop exits 0 (rc %r, %s)" % (rc, err.strip()))
    top, paths = perftop_rows(recs)
    perf = perf_rows(data)
    ktop = {k: v for k, v in top.items() if k[2]}
    kperf = {k: v for k, v in perf.items() if k[2]}
    # Names and order only: two cpu-clock timers on one CPU of a VM disturb
    # each other (up to 10 points apart on where interrupts are re-enabled),
    # and perftop samples its own kallsyms load, which perf does not see at
    # the same weight. So order is asked of rows that perf puts more than
    # those 10 points apart (CI saw the two interrupt-enable rows 4.4 apart
    # in perf and 0.5 the other way in perftop).
    compare("system-wide kernel", kperf, ktop, paths, strict=False, apart=SYSWIDE_APART_POINTS)


if not is_root():
    skip("perftop against perf report", "needs root")
else:
    why = perf_can_record()
    if why:
        skip("perftop against perf report", why)
    else:
        test_split()
        test_syscalls()
        test_system_wide()
shutil.rmtree(TMP, ignore_errors=True)
done()
