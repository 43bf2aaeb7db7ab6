#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 48, --record: perftop's perf.data read back by perf's own tools
(Debian's perf 6.1): perf report's shares against perftop's dump of the
same run, perf script's sample count against perftop's, the features in
perf report --header-only, -g's callers, the pipe format into perf report
-i -, a live view quit with q, SIGTERM, --max-size, a full disk, a
symlink refused, the file's mode.

usage: test_record.py PERFTOP FIGWORK CGWORK_LEAFFP
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import diag, done, is_root, ok, skip, start_workload  # noqa: E402

PERFTOP, FIG, CGW = sys.argv[1], sys.argv[2], sys.argv[3]
TMP = tempfile.mkdtemp(prefix="test_record.")
procs = []


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    subprocess.run(["tmux", "-L", "pdata-write-test", "kill-server"], capture_output=True)
    subprocess.run(["umount", os.path.join(TMP, "small")], capture_output=True)
    shutil.rmtree(TMP, ignore_errors=True)


def path(name):
    return os.path.join(TMP, name)


def perf(*args, stdin=None):
    return subprocess.run(["perf", *args], capture_output=True, text=True, timeout=300, input=stdin)


def recorded(stderr):
    """The sample count perftop says it wrote ("recorded N samples")."""
    m = re.search(r"recorded (\d+) samples", stderr)
    return int(m.group(1)) if m else None


def script_samples(f, *extra):
    r = perf("script", "-i", f, "-F", "event", *extra)
    return r.returncode, sum(1 for line in r.stdout.splitlines() if line.strip())


def report_shares(text):
    """perf report -n --sort sym: symbol -> its share of the samples (by count)."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s+[\d.]+%\s+(\d+)\s+\[.\]\s+(\S.*?)\s*$", line)
        if m:
            rows[m.group(2)] = rows.get(m.group(2), 0) + int(m.group(1))
    tot = sum(rows.values())
    return {k: 100.0 * v / tot for k, v in rows.items()} if tot else {}


def dump_records(f):
    with open(f) as fh:
        return [json.loads(x) for x in fh if x.strip()]


def dump_totals(recs):
    """perftop's own counts over the run: samples per symbol and in all."""
    syms, total = {}, 0
    for r in recs:
        total += sum(e["samples"] for e in r["events"])
        for s in r["symbols"]:
            syms[s["symbol"]] = syms.get(s["symbol"], 0) + s["samples"]
    return syms, total


def flat_run():
    """A system-wide run with a spinning workload: file, dump, stderr."""
    w, pid = start_workload(FIG, "spin", "6")
    procs.append(w)
    r = subprocess.run([PERFTOP, "-b", "-F", "499", "-d", "1", "-n", "3", "-E", "100000", "--format", "json",
                        "-o", path("flat.json"), "--record", path("flat.data")],
                       capture_output=True, text=True, timeout=120)
    w.kill()
    w.wait()
    return r


def test_flat():
    r = flat_run()
    ok(r.returncode == 0, "perftop -b --record exits 0 (%d: %s)" % (r.returncode, r.stderr.strip()[-300:]))
    n = recorded(r.stderr)
    ok(n is not None and n > 0, "it says how many samples it wrote: %s" % r.stderr.strip())
    f = path("flat.data")
    st = os.lstat(f)
    ok(st.st_mode & 0o777 == 0o600, "the file is 0600: %o" % (st.st_mode & 0o777))
    recs = dump_records(path("flat.json"))
    syms, total = dump_totals(recs)
    ok(n == total, "it wrote every sample it counted: %s vs %d in the dump" % (n, total))
    rc, cnt = script_samples(f)
    ok(rc == 0 and total and abs(cnt - total) <= max(1, total // 100),
       "perf script prints as many samples as perftop counted (1 %%): %d vs %d" % (cnt, total))
    rep = perf("report", "-i", f, "--stdio", "-n", "--sort", "sym")
    ok(rep.returncode == 0, "perf report reads it (%s)" % rep.stderr.strip()[-200:])
    shares = report_shares(rep.stdout)
    mine = {k: 100.0 * v / total for k, v in syms.items() if total}
    top = [k for k in sorted(mine, key=mine.get, reverse=True)
           if not k.startswith("[") and not k.startswith("0x")][:5]
    ok("fig_spin" in top, "the workload's function is among perftop's top symbols: %s" % top)
    for k in top:
        if mine[k] < 1.0:
            continue
        ok(k in shares and abs(shares[k] - mine[k]) <= 1.0,
           "%s: perf report %.2f %% vs perftop %.2f %% (within 1 point)" % (k, shares.get(k, -1), mine[k]))
    hdr = perf("report", "-i", f, "--header-only")
    for want in ("hostname :", "os release :", "perf version :", "arch :", "nrcpus online :", "cpudesc :",
                 "cpuid :", "total memory :", "cmdline :", "event : name = cpu-clock", "time of first sample :",
                 "clockid frequency:"):
        ok(want in hdr.stdout, "perf report --header-only shows %r" % want)
    ok(os.path.realpath(FIG) in perf("buildid-list", "-i", f).stdout,
       "perf buildid-list names the workload's file (BUILD_ID)")
    # Run again on the same name: perf record's way, the last one becomes .old.
    r2 = subprocess.run([PERFTOP, "-b", "-n", "1", "-d", "0.3", "-o", os.devnull, "--record", f],
                        capture_output=True, text=True, timeout=60)
    ok(r2.returncode == 0 and os.path.getsize(f + ".old") == st.st_size,
       "an existing file becomes FILE.old (%s)" % r2.stderr.strip())


def test_callgraph():
    w, pid = start_workload_cg()
    if w is None:
        return
    r = subprocess.run([PERFTOP, "-b", "-g", "-p", str(pid), "-F", "999", "-d", "1", "-n", "3", "-E", "100000",
                        "--format", "json", "-o", path("cg.json"), "--record", path("cg.data")],
                       capture_output=True, text=True, timeout=120)
    w.kill()
    w.wait()
    ok(r.returncode == 0, "-g --record exits 0 (%s)" % r.stderr.strip()[-300:])
    mine = {}
    for rec in dump_records(path("cg.json")):
        for s in rec["symbols"]:
            if s["symbol"] == "hot":
                for c in s.get("callers", []):
                    mine[c["symbol"]] = mine.get(c["symbol"], 0) + c["samples"]
    out = perf("script", "-i", path("cg.data"), "-F", "ip,sym").stdout
    theirs = {}
    for block in out.split("\n\n"):
        frames = [ln.split()[1] for ln in block.splitlines() if len(ln.split()) >= 2]
        if len(frames) >= 2 and frames[0] == "hot":
            theirs[frames[1]] = theirs.get(frames[1], 0) + 1
    diag("hot's callers: perftop %s, perf script %s" % (mine, theirs))
    ok(set(k for k in mine if mine[k] * 50 >= sum(mine.values())) == {"caller_a", "caller_b"},
       "perftop shows caller_a and caller_b calling hot")
    ta, tb = theirs.get("caller_a", 0), theirs.get("caller_b", 0)
    ma, mb = mine.get("caller_a", 0), mine.get("caller_b", 0)
    ok(ta + tb and ma + mb and abs(100.0 * ta / (ta + tb) - 100.0 * ma / (ma + mb)) <= 2.0,
       "the file's stacks split hot between its callers as perftop did: %d/%d vs %d/%d" % (ta, tb, ma, mb))
    ev = perf("evlist", "-v", "-i", path("cg.data")).stdout
    ok("CALLCHAIN" in ev and "STACK_USER" not in ev and "REGS_USER" not in ev,
       "-g's samples carry their chain, not the leaf fix's stack copy (as perf record -g): %s"
       % ev.splitlines()[0] if ev else "no evlist")
    rep = perf("report", "-i", path("cg.data"), "--children", "--stdio", "-G")
    ok(rep.returncode == 0 and "caller_a" in rep.stdout and "caller_b" in rep.stdout,
       "perf report --children shows the callers")


def start_workload_cg():
    p = subprocess.Popen([CGW, "4"], stdout=subprocess.DEVNULL)
    procs.append(p)
    time.sleep(0.2)
    if p.poll() is not None:
        skip("-g --record", "cgwork did not start")
        return None, None
    return p, p.pid


def test_pipe():
    w, pid = start_workload(FIG, "spin", "4")
    procs.append(w)
    pt = subprocess.Popen([PERFTOP, "-b", "-F", "499", "-d", "1", "-n", "2", "-o", os.devnull, "--record", "-"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    procs.append(pt)
    rep = subprocess.run(["perf", "report", "-i", "-", "--stdio", "-n", "--sort", "sym"], stdin=pt.stdout,
                         capture_output=True, text=True, timeout=120)
    pt.stdout.close()
    err = pt.stderr.read().decode()
    pt.wait()
    w.kill()
    w.wait()
    n = recorded(err)
    got = sum(int(m.group(1)) for m in re.finditer(r"^\s+[\d.]+%\s+(\d+)\s+\[", rep.stdout, re.M))
    ok(rep.returncode == 0 and "fig_spin" in rep.stdout, "--record - | perf report -i - reads it (%s)"
       % rep.stderr.strip()[-200:])
    ok(n and abs(got - n) <= max(1, n // 100), "the pipe carries every sample: %d vs %s" % (got, n))


def test_sigterm():
    p = subprocess.Popen([PERFTOP, "-b", "-F", "499", "-d", "1", "-o", os.devnull, "--record", path("term.data")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    procs.append(p)
    time.sleep(2.5)
    p.send_signal(signal.SIGTERM)
    err = p.communicate(timeout=60)[1]
    n = recorded(err)
    rc, cnt = script_samples(path("term.data"))
    ok(rc == 0 and n and cnt == n, "SIGTERM leaves a whole file: perf script %d, perftop %s" % (cnt, n))


def test_max_size():
    r = subprocess.run([PERFTOP, "-b", "-F", "2000", "-d", "1", "-n", "3", "-o", path("ms.txt"), "--record",
                        path("ms.data"), "--max-size", "24K"], capture_output=True, text=True, timeout=120)
    size = os.path.getsize(path("ms.data"))
    ok(r.returncode == 0 and "stopped at --max-size" in r.stderr, "--max-size stops and says so: %s"
       % r.stderr.strip())
    with open(path("ms.txt")) as fh:
        ok("Notice: recording stopped at --max-size" in fh.read(), "the dump shows the stop in its notices")
    ok(size < 24 * 1024 + 16 * 1024, "the file stays near the bound: %d bytes" % size)
    rc, cnt = script_samples(path("ms.data"))
    ok(rc == 0 and cnt > 0, "and perf reads what it holds (%d samples)" % cnt)


def test_full_disk():
    d = path("small")
    os.mkdir(d)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d], capture_output=True).returncode:
        skip("a full disk", "cannot mount a small tmpfs")
        return
    r = subprocess.run([PERFTOP, "-b", "-F", "4000", "-d", "1", "-n", "3", "-o", path("full.txt"), "--record",
                        os.path.join(d, "f.data")], capture_output=True, text=True, timeout=120)
    with open(path("full.txt")) as fh:
        text = fh.read()
    ok(text.count("perftop - ") == 3, "the run goes on to its end after the disk filled")
    ok("No space left on device" in text and r.stderr.count("No space left on device") == 1,
       "one line says so (%s)" % r.stderr.strip())
    ok(r.returncode == 1, "and the exit says the recording failed: %d" % r.returncode)
    rc, cnt = script_samples(os.path.join(d, "f.data"))
    n = recorded(r.stderr)
    ok(rc == 0 and cnt > 0 and cnt == n, "perf still reads what it holds: %d samples, as perftop says (%s)"
       % (cnt, n))
    subprocess.run(["umount", d], capture_output=True)


def test_symlink():
    target = path("victim")
    with open(target, "w") as fh:
        fh.write("keep")
    os.symlink(target, path("link.data"))
    r = subprocess.run([PERFTOP, "-b", "-n", "1", "-d", "0.3", "-o", os.devnull, "--record", path("link.data")],
                       capture_output=True, text=True, timeout=60)
    with open(target) as fh:
        kept = fh.read() == "keep"
    ok(r.returncode == 1 and "symbolic link" in r.stderr and kept,
       "a symlink is refused, its target untouched: %d %s" % (r.returncode, r.stderr.strip()))


def test_usage():
    for args, want in ((["--record", "-"], "give -b"), (["-b", "--record", "-"], "give -o FILE"),
                       (["-b", "--max-size", "1M"], "give --record"),
                       (["-b", "--record", path("u.data"), "--max-size", "10X"], "--max-size wants")):
        r = subprocess.run([PERFTOP, *args], capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        ok(r.returncode == 2 and want in r.stderr and r.stdout == "",
           "%s: usage error, %r (%d: %s)" % (" ".join(args), want, r.returncode, r.stderr.strip()))


def test_live_view():
    if shutil.which("tmux") is None:
        skip("live view --record", "no tmux")
        return
    f, err = path("live.data"), path("live.err")
    tm = ["tmux", "-L", "pdata-write-test"]
    subprocess.run(tm + ["new-session", "-d", "-s", "rec", "-x", "160", "-y", "40",
                         "%s -F 499 -d 1 --record %s 2>%s; sleep 30" % (PERFTOP, f, err)], check=True)
    screen = ""
    for _ in range(50):
        time.sleep(0.2)
        screen = subprocess.run(tm + ["capture-pane", "-p", "-t", "rec"], capture_output=True, text=True).stdout
        if "Rec: " in screen:
            break
    ok("Rec: " + f in screen, "the header shows the recording")
    time.sleep(2)
    subprocess.run(tm + ["send-keys", "-t", "rec", "q"])
    n = None
    for _ in range(100):
        time.sleep(0.2)
        with open(err) as fh:
            n = recorded(fh.read())
        if n:
            break
    subprocess.run(tm + ["kill-server"], capture_output=True)
    rc, cnt = script_samples(f)
    ok(rc == 0 and n and cnt == n, "quit with q, the file reads back whole: %d of %s samples" % (cnt, n))


def main():
    if not is_root():
        skip("--record", "needs root (system-wide sampling)")
        done()
    if shutil.which("perf") is None or perf("version").returncode:
        skip("--record", "no perf to read the files")
        done()
    try:
        test_flat()
        test_callgraph()
        test_pipe()
        test_sigterm()
        test_max_size()
        test_full_disk()
        test_symlink()
        test_usage()
        test_live_view()
    finally:
        cleanup()
    done()


main()
