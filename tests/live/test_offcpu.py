#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--off-cpu against truths perftop does not compute: waitwork's threads
time their own waits (wall time less CPU time), perf sched timehist on the
same run, and a ring too small to keep every switch record.
usage: test_offcpu.py PERFTOP WAITWORK PINGPONG"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402
from tap import ok, skip, diag, done  # noqa: E402

PERFTOP, WAITWORK, PINGPONG = sys.argv[1:4]
LINKDIR = None


def own_name():
    """waitwork under a name of this run's own (its comm): the checks that
    sum a comm's stacks (folded, pprof, /metrics) then see only this run's,
    not another waitwork running on the machine at the same time."""
    global WAITWORK, LINKDIR
    LINKDIR = tempfile.mkdtemp(prefix="perftop-offcpu-ww-")
    link = os.path.join(LINKDIR, "ww%d" % os.getpid())
    os.symlink(os.path.abspath(WAITWORK), link)
    WAITWORK = link
SANITIZED = os.environ.get("PERFTOP_SANITIZED", "none") not in ("", "none")
SECS = 3.0
THREADS = ["wait_sleep", "wait_pipe", "feed_pipe", "wait_lock", "hold_lock", "wait_disk"]
procs = []


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    if LINKDIR:
        shutil.rmtree(LINKDIR, ignore_errors=True)


def tracefs_ok():
    for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        if os.path.exists(os.path.join(d, "events/sched/sched_switch/id")):
            return True
    try:
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"], check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return False
    return os.path.exists("/sys/kernel/tracing/events/sched/sched_switch/id")


def run(fmt, args, focus=False, alongside=None, disk=True, via="auto"):
    """waitwork SECS behind its gate (with wait_disk unless not disk),
    perftop -b --format fmt watching it (system-wide, or -p when focus);
    alongside(pid) may start a process
    that watches too (returned, stopped after). Returns (waitwork's own
    figures, perftop's stdout, stderr, rc, what alongside returned)."""
    d = tempfile.mkdtemp(prefix="perftop-offcpu-", dir="/var/tmp")
    wl = subprocess.Popen([WAITWORK, "gate", str(SECS), *([d] if disk else [])], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True)
    procs.append(wl)
    pid = int(wl.stdout.readline().split()[1])
    argv = [PERFTOP, "-b", "--format", fmt, "-d", "1", "--off-cpu", "--off-cpu-via", via,
            *(["-p", str(pid)] if focus else []), *args]
    top = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(top)
    # Read as it writes: a full pipe would hold its loop (and -d 1's
    # intervals) for seconds, which is the harness's doing, not perftop's.
    outs = {}
    readers = [threading.Thread(target=lambda k=k, f=f: outs.__setitem__(k, f.read()), daemon=True)
               for k, f in (("out", top.stdout), ("err", top.stderr))]
    for t in readers:
        t.start()
    side = alongside(pid) if alongside else None
    time.sleep(2.5)  # perftop's tables read and its events on (folded writes nothing before its end)
    wl.stdin.write("go\n")
    wl.stdin.flush()
    own = wl.stdout.readline()
    wl.wait()
    time.sleep(1.5)
    if top.poll() is None:
        top.send_signal(signal.SIGINT)
    try:
        top.wait(timeout=120)
    except subprocess.TimeoutExpired:
        top.kill()
        top.wait()
    for t in readers:
        t.join(timeout=30)
    out, err = outs.get("out", ""), outs.get("err", "")
    shutil.rmtree(d, ignore_errors=True)
    try:
        own = json.loads(own)
    except ValueError:
        own = {}
    return own, out, err, top.returncode, side


def json_threads(out):
    """Per tid: offcpu_ms and offcpu_state summed over the intervals; the last offcpu object."""
    got, last = {}, {}
    for line in out.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        last = rec.get("offcpu", last)
        for t in rec.get("tasks", []):
            if "tid" not in t or "offcpu_ms" not in t:
                continue
            g = got.setdefault(t["tid"], {"ms": 0.0, "S": 0.0, "D": 0.0, "R": 0.0})
            g["ms"] += t["offcpu_ms"]
            for k, v in t["offcpu_state"].items():
                g[k] += v
    return got, last


def points(got, want):
    """The difference as points of the run's length."""
    return abs(got - want) / (SECS * 1000.0) * 100.0


# The thread's clocks stop and start where the scheduler reads its clock,
# perftop's spans where the sched_switch tracepoint fires, a few µs later
# (2-4 µs a switch measured here). wait_disk's fsyncs switch ~13 000 times
# a second, so that adds up: allowed for, as points, per switch it counted.
SWITCH_US = 8.0


def slack(th):
    return th.get("switches", 0) * SWITCH_US / 1000.0 / (SECS * 1000.0) * 100.0


def test_json_and_perf_sched(via):
    """Per thread against its own clock and perf sched, by the way asked
    (bpf: summed in the kernel; records: sched_switch through the rings)."""
    def say(cond, msg):
        ok(cond, "[%s] %s" % (via, msg))

    def not_here(what, why):
        skip("[%s] %s" % (via, what), why)

    perf = shutil.which("perf")
    data = os.path.join(tempfile.gettempdir(), "perftop-offcpu-sched.data")

    def start_perf(pid):
        if not perf:
            return None
        p = subprocess.Popen([perf, "sched", "record", "-a", "-o", data], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        procs.append(p)
        return p

    own, out, err, rc, sched = run("json", ["--threads", "-E", "100000"], alongside=start_perf, via=via)
    if rc != 0 and "--off-cpu in BPF" in err:
        if sched is not None and sched.poll() is None:
            sched.kill()
            sched.wait()
        not_here("--off-cpu against its own clock and perf sched", "this kernel refuses the BPF program: %s"
                 % err.strip()[-300:])
        return
    say(rc == 0 and own, "--off-cpu -b --format json ran (rc %r, stderr %r)" % (rc, err.strip()[-300:]))
    got, last = json_threads(out)
    for name in THREADS:
        if name not in own:
            continue
        want, tid = own[name]["offcpu_ms"], own[name]["tid"]
        g = got.get(tid, {"ms": 0.0, "S": 0, "D": 0, "R": 0})
        most = 5 + slack(own[name])
        say(points(g["ms"], want) <= most, "%s: off-CPU %.1f ms, its own measure %.1f ms (%.1f points apart, <= %.1f)"
           % (name, g["ms"], want, points(g["ms"], want), most))
        if name in ("wait_sleep", "wait_pipe", "wait_lock"):
            say(g["ms"] > 0 and g["S"] >= 0.9 * g["ms"], "%s: its waits are sleeping, S %.1f of %.1f ms"
               % (name, g["S"], g["ms"]))
    disk = own.get("wait_disk")
    if disk and disk["offcpu_ms"] > 0.3 * SECS * 1000:
        g = got.get(disk["tid"], {"ms": 0.0, "D": 0.0})
        say(g["D"] >= 0.5 * g["ms"] > 0, "wait_disk: fsync's waits are uninterruptible, D %.1f of %.1f ms"
           % (g["D"], g["ms"]))
    else:
        not_here("wait_disk: fsync's waits in D", "fsync on /var/tmp hardly blocks here (%.1f ms off-CPU in %.0f s)"
             % (disk["offcpu_ms"] if disk else 0, SECS))
    say(last.get("switches", 0) > 0 and "lost_records" in last and "lost_spans" in last and last.get("via") == via,
        "the offcpu object counts switches and lost records, and says the way: %r" % last)
    # perf sched on the same run: wait time plus scheduling delay per thread.
    if sched is None:
        not_here("per-thread wait time against perf sched timehist", "no perf in PATH")
        return
    sched.send_signal(signal.SIGINT)
    try:
        sched.wait(timeout=60)
    except subprocess.TimeoutExpired:
        sched.kill()
        sched.wait()
    r = subprocess.run([perf, "sched", "timehist", "-i", data], capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or not os.path.exists(data):
        not_here("per-thread wait time against perf sched timehist", "perf sched failed: %s"
             % (r.stderr.strip()[-200:] or sched.stderr.read()[-200:]))
        return
    theirs = {}
    row = re.compile(r"^\s*[\d.]+\s+\[\d+\]\s+(\S.*?)\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
    for line in r.stdout.splitlines():
        m = row.match(line)
        if m:
            tid = int(m.group(2))
            theirs[tid] = theirs.get(tid, 0.0) + float(m.group(3)) + float(m.group(4))
    os.unlink(data)
    for name in ("wait_sleep", "wait_pipe", "wait_lock", "wait_disk"):
        if name not in own:
            continue
        tid = own[name]["tid"]
        mine, perfs = got.get(tid, {"ms": 0.0})["ms"], theirs.get(tid, 0.0)
        ownms = own[name]["offcpu_ms"]
        if abs(perfs - ownms) > 0.05 * ownms:
            # perf's figure is not the thread's own: perf 6.1's timehist adds
            # an uninterruptible wait to both its sleep and its I/O wait, and
            # a switch perf lost (its rings on a busy machine) joins two spans.
            not_here("%s: against perf sched timehist" % name, "timehist gives %.0f ms, the thread's own clock %.0f ms"
                 % (perfs, ownms))
            continue
        # Both hook the same tracepoint, each taking its time at its own
        # place in it (perf's after our program's stack walk, or before):
        # a few µs a switch apart, as against the thread's own clock.
        most = 0.05 * perfs + own[name].get("switches", 0) * SWITCH_US / 1000.0
        say(perfs > 0 and abs(mine - perfs) <= most,
            "%s: off-CPU %.1f ms, perf sched timehist's wait + delay %.1f ms (within 5 %% and %.0f µs a switch: "
            "%.1f ms)" % (name, mine, perfs, SWITCH_US, most))


def folded_shares(out, comm):
    """Microseconds of the stacks of comm through each waitwork function."""
    us = {}
    for line in out.splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        if not frames or frames[0] != comm or not n.isdigit():
            continue
        for f in set(frames[1:]):
            us[f] = us.get(f, 0) + int(n)
    return us


def test_folded(mode, names, focus=False, disk=True, via="auto"):
    own, out, err, rc, _ = run("folded", mode, focus=focus, disk=disk, via=via)
    ok(rc == 0 and own and out, "--off-cpu --format folded %s ran (rc %r, stderr %r)"
       % (" ".join(mode), rc, err.strip()[-300:]))
    us = folded_shares(out, os.path.basename(WAITWORK)[:15])
    for name in names:
        if name not in own:
            continue
        got = us.get(name, 0) / 1000.0
        ok(points(got, own[name]["offcpu_ms"]) <= 5, "folded %s (via %s): %s weighs %.1f ms, its own measure %.1f ms"
           % (" ".join(mode) or "(fp)", via, name, got, own[name]["offcpu_ms"]))
    ok(us.get("do_nanosleep_[k]", 0) > 0 and us.get("pipe_read_[k]", us.get("anon_pipe_read_[k]", 0)) > 0,
       "folded: the kernel's wait functions are named (do_nanosleep, pipe_read)")
    if "dwarf" in mode:
        # The kernel's frames at a switch-out are all named: an unnamed
        # "kernel" frame is a user frame of the walk taken for the kernel's.
        total = sum(int(n) for _, _, n in (l.rpartition(" ") for l in out.splitlines()) if n.isdigit())
        unk = us.get("[unknown]_[k]", 0)
        ok(total > 0 and unk <= 0.01 * total, "folded %s: no user frame taken for an unnamed kernel one "
           "(%d of %d us)" % (" ".join(mode), unk, total))


def test_focus():
    own, out, err, rc, _ = run("json", ["--threads", "-E", "100000"], focus=True)
    got, _ = json_threads(out)
    for name in ("wait_sleep", "wait_pipe"):
        if name in own:
            want = own[name]["offcpu_ms"]
            g = got.get(own[name]["tid"], {"ms": 0.0})["ms"]
            ok(points(g, want) <= 5, "-p: %s off-CPU %.1f ms, its own measure %.1f ms (switch-ins from "
               "PERF_RECORD_SWITCH)" % (name, g, want))
    # The spans are charged to the waits summed, once per stack and thread:
    # each interval's waits table holds its own, charged before it is dumped.
    waits = {}
    for line in out.splitlines():
        try:
            rows = json.loads(line).get("waits", [])
        except ValueError:
            continue
        for w in rows:
            waits[w["symbol"]] = waits.get(w["symbol"], 0.0) + w["children_ms"]
    if "wait_sleep" in own:
        want = own["wait_sleep"]["offcpu_ms"]
        ok(points(waits.get("wait_sleep", 0.0), want) <= 5,
           "-p: the intervals' waits give wait_sleep %.1f ms, its own measure %.1f ms"
           % (waits.get("wait_sleep", 0.0), want))


def test_thresh():
    own, out, err, rc, _ = run("json", ["--threads", "-E", "100000", "--off-cpu-thresh", "30"])
    got, last = json_threads(out)
    if "wait_sleep" in own:
        g = got.get(own["wait_sleep"]["tid"], {"ms": 0.0})["ms"]
        ok(g < 0.1 * own["wait_sleep"]["offcpu_ms"] and last.get("short_spans", 0) > 0,
           "--off-cpu-thresh 30: wait_sleep's 10 ms spans dropped (%.1f ms left, %d short spans)"
           % (g, last.get("short_spans", 0)))


def test_lost():
    load = subprocess.Popen([PINGPONG, str(SECS + 6)], stdout=subprocess.DEVNULL)
    procs.append(load)
    # The records' way: the kernel's sums do not go through the rings.
    own, out, err, rc, _ = run("json", ["--threads", "-E", "100000", "-m", "1"], via="records")
    load.kill()
    load.wait()
    got, last = json_threads(out)
    if last.get("lost_records", 0) == 0:
        skip("lost switch records dropped their spans", "a one-page ring lost nothing here: %r" % last)
        return
    ok(last.get("lost_spans", 0) > 0, "a one-page ring under a ping-pong: %d records lost, %d open spans "
       "dropped" % (last["lost_records"], last.get("lost_spans", 0)))
    worst = max((points(got.get(own[n]["tid"], {"ms": 0})["ms"], own[n]["offcpu_ms"]) - slack(own[n])
                 if got.get(own[n]["tid"], {"ms": 0})["ms"] > own[n]["offcpu_ms"] else 0) for n in own)
    ok(worst <= 5, "no thread gets more off-CPU time than it measured (worst %.1f points over, its switches' "
       "few µs each allowed)" % worst)
    _, text, _, _, _ = run("text", ["-m", "1"], via="records")
    ok(re.search(r"Off-CPU: on  switches \d+  spans \d+  lost records \d+", text) is not None,
       "the text dump shows the lost records")


def test_in_place():
    """Switch records at a fraction of the rate the rings are sized for:
    the passes read them where the kernel wrote them. The reader's guard
    timer, set from that full rate, used to come before every tick and
    copy them into the spill (60-70 % of the bytes at -d 2)."""
    if SANITIZED:
        skip("--off-cpu's rings read in place", "a sanitized build's first symbol tables can hold its main loop "
             "past the ring's half")
        return
    load = subprocess.Popen([PINGPONG, "12", "2000"], stdout=subprocess.DEVNULL)
    procs.append(load)
    top = subprocess.run([PERFTOP, "-b", "--format", "json", "--off-cpu", "--off-cpu-via", "records", "--stats",
                          "-d", "2", "-n", "4"],
                         capture_output=True, text=True, timeout=60)
    load.kill()
    load.wait()
    recs = [json.loads(x) for x in top.stdout.splitlines() if x.strip()]
    st = recs[-1].get("stats", {}) if recs else {}
    off = recs[-1].get("offcpu", {}) if recs else {}
    ok(top.returncode == 0 and off.get("switches", 0) > 1000 and off.get("lost_records", -1) == 0,
       "--off-cpu -d 2 on a ping-pong: %r switches, %r lost (%s)" % (off.get("switches"), off.get("lost_records"),
                                                                   top.stderr.strip()))
    ok(st.get("spilled_bytes", -1) == 0 and st.get("read_in_place_bytes", 0) > 0,
       "--off-cpu's rings read in place, not through the spill (%r bytes spilled, %r read in place)"
       % (st.get("spilled_bytes"), st.get("read_in_place_bytes")))


def test_bpf():
    """Summed in the kernel: the switches never cross into user space. On
    a ping-pong (-p: its own switches, not the machine's), the rings carry
    no switch record, each distinct stack is read once, nothing is lost;
    the offcpu object says so."""
    load = subprocess.Popen([PINGPONG, "10", "4000"], stdout=subprocess.DEVNULL)
    procs.append(load)
    top = subprocess.run([PERFTOP, "-b", "--no-config", "--format", "json", "--off-cpu", "--off-cpu-via", "bpf",
                          "--stats", "-d", "1", "-n", "4", "-F", "99", "-p", str(load.pid)],
                         capture_output=True, text=True, timeout=60)
    load.kill()
    load.wait()
    if top.returncode != 0 and "--off-cpu in BPF" in top.stderr:
        skip("--off-cpu-via bpf", top.stderr.strip()[-300:])
        return
    recs = [json.loads(x) for x in top.stdout.splitlines() if x.strip()]
    off = recs[-1].get("offcpu", {}) if recs else {}
    st = recs[-1].get("stats", {}) if recs else {}
    ok(top.returncode == 0 and off.get("via") == "bpf" and off.get("switches", 0) > 5000,
       "--off-cpu-via bpf on a ping-pong: summed in the kernel (%r, %s)" % (off, top.stderr.strip()[-200:]))
    ok(off.get("spans", 0) > 0.9 * off.get("switches", 1) and off.get("lost_spans", -1) == 0
       and off.get("stacks_lost", -1) == 0, "every span charged, none lost (%r spans of %r switches, %r lost, "
       "%r stacks lost)" % (off.get("spans"), off.get("switches"), off.get("lost_spans"), off.get("stacks_lost")))
    ok(0 < off.get("stacks_read", 0) < off.get("switches", 0) / 50,
       "each distinct stack read once: %r stacks read for %r switches" % (off.get("stacks_read"), off.get("switches")))
    # 99 Hz of cpu-clock samples on two CPUs, a few hundred bytes each:
    # the switches' records would be a hundred times that.
    ring = st.get("read_in_place_bytes", 0) + st.get("spilled_bytes", 0)
    ok(0 < ring < off.get("switches", 0) * 8, "the rings carry samples only, no switch record: %r bytes for %r "
       "switches" % (ring, off.get("switches")))


def test_pprof():
    go = shutil.which("go")
    out = os.path.join(tempfile.gettempdir(), "perftop-offcpu-%d.pb.gz" % os.getpid())
    own, _, err, rc, _ = run("pprof", ["-o", out])
    if not go:
        skip("pprof: off_cpu/nanoseconds", "no go in PATH for go tool pprof")
        return
    d = tempfile.mkdtemp(prefix="perftop-offcpu-go-")
    env = dict(os.environ, PPROF_TMPDIR=d, HOME=d, GOCACHE=os.path.join(d, "gocache"))
    # This run's waitwork only (its comm label), not another on the machine.
    r = subprocess.run([go, "tool", "pprof", "-top", "-cum", "-sample_index=off_cpu", "-unit=ms",
                        "-nodecount=100000", "-tagfocus=comm=%s" % os.path.basename(WAITWORK)[:15], out],
                       capture_output=True, text=True, timeout=240, env=env)
    shutil.rmtree(d, ignore_errors=True)
    if os.path.exists(out):
        os.unlink(out)
    ok(r.returncode == 0 and re.search(r"^Type: off_cpu$", r.stdout, re.M) is not None,
       "--off-cpu --format pprof: sample type off_cpu (rc %d, %s)" % (r.returncode, r.stderr.strip()[-200:]))
    cum = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*\S+\s+\S+\s+\S+\s+([\d.]+)ms\s+\S+\s+(\S+)$", line)
        if m:
            cum[m.group(2)] = float(m.group(1))
    for name in ("wait_sleep", "wait_pipe"):
        if name in own:
            ok(points(cum.get(name, 0), own[name]["offcpu_ms"]) <= 5, "pprof: %s's off_cpu %.1f ms, its own "
               "measure %.1f ms" % (name, cum.get(name, 0), own[name]["offcpu_ms"]))


def test_metrics():
    import socket
    import urllib.request
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        port = so.getsockname()[1]
    top = subprocess.Popen([PERFTOP, "--off-cpu", "--listen", "127.0.0.1:%d" % port, "-d", "1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    procs.append(top)
    time.sleep(2.5)
    wl = subprocess.Popen([WAITWORK, str(SECS)], stdout=subprocess.PIPE, text=True)
    procs.append(wl)
    wl.stdout.readline()
    own = json.loads(wl.stdout.readline() or "{}")
    wl.wait()
    time.sleep(2.5)
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=20) as f:
            text = f.read().decode()
    except OSError as e:
        text = ""
        diag("scrape: %r" % e)
    top.send_signal(signal.SIGINT)
    top.wait(timeout=30)
    comm = os.path.basename(WAITWORK)[:15]
    got = {}
    for line in text.splitlines():
        m = re.match(r'^perftop_comm_offcpu_seconds_total\{comm="([^"]*)",state="([SDR])"\} (\S+)$', line)
        if m and m.group(1) == comm:
            got[m.group(2)] = float(m.group(3)) * 1000
    # Its threads' own measures, and the main thread's wait for them (SECS).
    want = sum(v["offcpu_ms"] for v in own.values()) + SECS * 1000
    have = sum(got.values())
    ok(got and abs(have - want) <= 0.05 * want, "/metrics: perftop_comm_offcpu_seconds_total{comm=%s} %.0f ms "
       "(S %.0f, D %.0f, R %.0f), its threads' own measures and main's %.0f ms (within 5 %%)"
       % (comm, have, got.get("S", 0), got.get("D", 0), got.get("R", 0), want))


def test_unprivileged():
    """Without the privilege to read tracefs: one notice says what is
    missing and how to get it; sampling runs on."""
    if not shutil.which("setpriv"):
        skip("--off-cpu unprivileged", "no setpriv")
        return
    sl = subprocess.Popen(["sleep", "30"])
    procs.append(sl)
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c",
                        "sleep 5 & exec %s -b --format json --off-cpu -p $! -n 1 -d 0.5" % PERFTOP],
                       capture_output=True, text=True, timeout=60)
    sl.kill()
    sl.wait()
    notices = []
    for line in r.stdout.splitlines():
        try:
            notices += json.loads(line).get("notices", [])
        except ValueError:
            pass
    hit = [n for n in notices if "--off-cpu" in n]
    # Asked for the kernel's way without the privilege: one line, and an exit.
    rb = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c",
                         "sleep 5 & exec %s -b --no-config -n 1 -d 0.5 --off-cpu --off-cpu-via bpf -p $!"
                         % PERFTOP],
                        capture_output=True, text=True, timeout=60)
    lines = rb.stderr.strip().splitlines()
    ok(rb.returncode != 0 and len(lines) == 1 and "CAP_BPF" in lines[0],
       "unprivileged --off-cpu-via bpf: one line naming the privilege, non-zero exit (rc %d, %r)"
       % (rb.returncode, rb.stderr.strip()[-300:]))
    ok(r.returncode == 0 and hit and ("run as root" in hit[0] or "mount -t tracefs" in hit[0]),
       "unprivileged --off-cpu: runs on (rc %d) with a notice naming what is missing and how: %r"
       % (r.returncode, [h for n in hit for h in n.split("; ") if "--off-cpu" in h][:1] or r.stderr[-200:]))


def main():
    if os.geteuid() != 0:
        skip("--off-cpu", "needs root (sched:sched_switch system-wide)")
        done()
    if not tracefs_ok():
        skip("--off-cpu", "no tracefs with sched:sched_switch: mount -t tracefs nodev /sys/kernel/tracing")
        done()
    try:
        own_name()
        test_json_and_perf_sched("bpf")
        test_json_and_perf_sched("records")
        test_folded([], ["wait_sleep", "wait_pipe"])
        test_folded([], ["wait_sleep", "wait_pipe"], via="records")
        # dwarf copies 8 KiB of stack at every switch: system-wide on a busy
        # machine its rings overflow (spans dropped, as they must be), so on -p.
        # wait_lock is what frame pointers cannot name (two frameless libc
        # levels); wait_pipe sits right under its read wrapper (the first
        # user frames the walk adds: once read as the kernel's, unnamed).
        # Not wait_disk: its 13 000 switches a second, 8 KiB each, overflow
        # the rings of a slow (ASan) build.
        test_folded(["--call-graph", "dwarf"], ["wait_sleep", "wait_pipe", "wait_lock"], focus=True, disk=False)
        test_focus()
        test_thresh()
        test_lost()
        test_in_place()
        test_bpf()
        test_pprof()
        test_metrics()
        test_unprivileged()
    finally:
        cleanup()
    done()


main()
