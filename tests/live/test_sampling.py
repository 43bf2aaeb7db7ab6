# SPDX-License-Identifier: GPL-2.0-or-later
"""Live tests: run a workload of ours and check what perftop reports about it.

usage: test_sampling.py PERFTOP WORKLOAD
"""
import fcntl
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import (diag, done, finish_workload, ok, perftop_json, skip, start_workload, tracefs,  # noqa: E402
                 symbol_samples, hardware_pmu, is_root)

PERFTOP, WORKLOAD = sys.argv[1], sys.argv[2]
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
SANITIZED = os.environ.get("PERFTOP_SANITIZED", "none") not in ("", "none")
WL = os.path.basename(WORKLOAD)
HOT = ["hot_a", "hot_b", "hot_c"]


def check_split(label, recs, measured, tolerance):
    tot = symbol_samples(recs, WL)
    diag("%s: samples %r, workload measured %r" % (label, {k: tot.get(k) for k in HOT}, measured))
    ok(all(tot.get(h, 0) > 0 for h in HOT), "%s: all three hot functions seen by name" % label)
    if not all(tot.get(h, 0) > 0 for h in HOT) or not measured:
        return
    ok(tot["hot_a"] > tot["hot_b"] > tot["hot_c"], "%s: ranked hot_a > hot_b > hot_c" % label)
    s = sum(tot[h] for h in HOT)
    for h in HOT:
        got = 100.0 * tot[h] / s
        ok(abs(got - measured[h]) <= tolerance,
           "%s: %s share %.1f%% within %d points of the measured %.1f%%"
           % (label, h, got, tolerance, measured[h]))


def test_focus():
    p, pid = start_workload(WORKLOAD, "split", "6,3,1", "3")
    rc, recs, err = perftop_json(PERFTOP, "-p", str(pid), "-d", "1", "-n", "2", "-F", "2000")
    measured = finish_workload(p)
    ok(rc == 0, "-p run exits 0 (%s)" % err.strip())
    ok(len(recs) == 2, "-n 2 gives two JSON records")
    if recs:
        r = recs[0]
        ok(all(k in r for k in ("time", "interval", "events", "symbols", "tasks")),
           "record has time, interval, events, symbols, tasks")
        ev = r["events"][0]
        ok(all(k in ev for k in ("name", "samples", "lost", "throttled", "exclude")),
           "event has name, samples, lost, throttled, exclude")
        # A software event owns its time slice: never multiplexed.
        ok(ev.get("running_pct") == 100, "cpu-clock ran 100%% of the interval (%r)" % ev.get("running_pct"))
        syms = r["symbols"]
        ok(syms and all(k in syms[0] for k in ("symbol", "dso", "kernel", "samples", "share", "counts")),
           "symbol rows have symbol, dso, kernel, samples, share, counts")
        shares = [s["share"] for s in syms]
        ok(shares == sorted(shares, reverse=True), "symbol rows sorted by share")
        ok(all(t["pid"] == pid for t in r["tasks"]), "-p shows only the focused process")
    check_split("-p", recs, measured, 8)


def test_system_wide():
    p, pid = start_workload(WORKLOAD, "split", "6,3,1", "3")
    rc, recs, err = perftop_json(PERFTOP, "-d", "1", "-n", "2", "-E", "200")
    measured = finish_workload(p)
    ok(rc == 0, "system-wide run exits 0 (%s)" % err.strip())
    check_split("system-wide", recs, measured, 8)
    tasks = [t for r in recs for t in r["tasks"] if t["pid"] == pid]
    ok(tasks and tasks[0]["comm"] == WL[:15], "the workload's task row carries its comm")


def test_kernel_symbols():
    p, pid = start_workload(WORKLOAD, "syscalls", "2")
    rc, recs, err = perftop_json(PERFTOP, "-p", str(pid), "-d", "1", "-n", "1")
    finish_workload(p)
    ok(rc == 0, "syscall workload run exits 0 (%s)" % err.strip())
    ks = [s for r in recs for s in r["symbols"] if s["kernel"]]
    kshare = sum(s["share"] for r in recs for s in r["symbols"] if s["kernel"])
    named = [s for s in ks if not s["symbol"].startswith("[")]
    diag("kernel rows: %r" % [(s["symbol"], s["share"]) for s in ks[:5]])
    ok(kshare > 30, "a syscall-heavy workload is mostly kernel time (%.1f%%)" % kshare)
    ok(len(named) > 0 and all(s["dso"].startswith("[") for s in ks),
       "kernel samples resolve to named kallsyms symbols")


def test_cpu_filter():
    if os.cpu_count() < 2:
        skip("-C 0 sees only CPU 0", "needs two CPUs")
        return
    p, pid = start_workload(WORKLOAD, "cpu", "1", "split", "6,3,1", "2")
    rc, recs, err = perftop_json(PERFTOP, "-C", "0", "-d", "1", "-n", "1", "-E", "500")
    finish_workload(p)
    ok(rc == 0, "-C 0 run exits 0 (%s)" % err.strip())
    cpus = {c["cpu"] for r in recs for c in r["cpus"]}
    ok(cpus == {0}, "-C 0 reports only CPU 0 (%r)" % cpus)
    mine = [t for r in recs for t in r["tasks"] if t["pid"] == pid]
    ok(not mine or mine[0]["samples"] < 5,
       "a workload pinned to CPU 1 is (almost) absent from -C 0 (%r)" % mine)


def test_fallback():
    rc, recs, err = perftop_json(PERFTOP, "-d", "0.2", "-n", "1")
    ok(rc == 0 and recs, "default event run exits 0")
    if not recs:
        return
    name = recs[0]["events"][0]["name"]
    notices = " ".join(recs[0]["notices"])
    if hardware_pmu():
        ok(name == "cycles", "with a PMU the default event is cycles")
    else:
        ok(name == "cpu-clock" and "cycles" in notices and "cpu-clock" in notices,
           "without a PMU cycles falls back to cpu-clock and says so (%r)" % notices)


def test_tracepoint():
    why = tracefs()
    if why:
        skip("tracepoint sampling", why)
        return
    p, pid = start_workload(WORKLOAD, "syscalls", "2")
    rc, recs, err = perftop_json(PERFTOP, "-e", "raw_syscalls:sys_enter", "-p", str(pid), "-d", "1", "-n", "1")
    finish_workload(p)
    ev = recs[0]["events"][0] if recs else {}
    ok(rc == 0 and ev.get("name") == "raw_syscalls:sys_enter" and ev.get("samples", 0) > 1000,
       "a tracepoint samples every syscall of a syscall-heavy workload (%r, %s)" % (ev.get("samples"), err.strip()))


def test_stalled_reader(ring, stall, label):
    """A reader that stops reading blocks perftop's writes for seconds,
    longer than a kernel ring holds at this rate: the ring reader thread
    spills into memory, so no sample is lost and every interval arrives.
    With -m 8 the reader is woken by the ring's watermark; with -g's
    default ring, read in place, only by its guard timer once the main loop
    is late."""
    procs = [start_workload(WORKLOAD, "split", "6,3,1", str(int(stall) + 4))[0] for _ in range(os.cpu_count() or 1)]
    top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-e", "cpu-clock", "-F", "4000", *ring,
                            "-d", "0.2", "-n", "30", "-E", "400", "--stats"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(stall)  # the pipe (64 KiB) fills within a second or two
    out, err = top.communicate(timeout=60)
    for p in procs:
        finish_workload(p)
    recs = [json.loads(x) for x in out.decode().splitlines() if x.strip()]
    lost = sum(r["events"][0]["lost"] for r in recs)
    samples = sum(r["events"][0]["samples"] for r in recs)
    diag("%s: %d records, %d samples, %d lost, wakeups %r" % (label, len(recs), samples, lost,
         recs[-1]["stats"]["wakeups"] if recs else None))
    ok(top.returncode == 0 and len(recs) == 30, "%s: all 30 intervals written after the stall (%d, rc %r: %s)"
       % (label, len(recs), top.returncode, err.decode().strip()))
    ok(lost == 0, "%s: no sample lost while the writer was blocked (%d lost)" % (label, lost))
    st = recs[-1]["stats"] if recs else {}
    ok(st.get("spilled_bytes", 0) > 0, "%s: the stall's records went through the spill (%r bytes spilled, %r read "
       "in place)" % (label, st.get("spilled_bytes"), st.get("read_in_place_bytes")))
    # 6 s at 4 kHz on every CPU; cpu-clock fires on idle CPUs too.
    want = 4000 * (os.cpu_count() or 1) * 6
    ok(samples >= 0.7 * want, "%s: the samples of the stall are all there (%d of about %d)" % (label, samples, want))


def test_flat_in_place():
    """Flat, read in place: a watermark that wakes the reader while the main
    loop keeps up finds its ring with room and leaves it to the next pass,
    so nothing is copied into the spill (it was copied at every watermark:
    the copy and the spill pages' faults were most of the reader's time).
    Then the main loop stops reading for longer than the ring holds: the
    guard the passes and the watermark set has the reader spill, and no
    sample is lost."""
    if SANITIZED:
        skip("a flat ring left to the main loop, and the guard when it stalls",
             "a sanitized build's first symbol tables can hold its main loop past the ring's half")
        return
    ncpu = os.cpu_count() or 1
    procs = [start_workload(WORKLOAD, "split", "6,3,1", "24")[0] for _ in range(ncpu)]
    # -m 256: a 1 MiB ring, about 4.5 s at 4 kHz, its watermark every 4 s
    # or so; a pass every 0.5 s reads it in place.
    top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-e", "cpu-clock", "-F", "4000", "-m", "256",
                            "-d", "0.5", "-n", "24", "--stats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # One page of pipe: perftop's writes block as soon as we stop reading.
    fcntl.fcntl(top.stdout.fileno(), F_SETPIPE_SZ, 4096)
    first = [top.stdout.readline() for _ in range(20)]
    time.sleep(8.0)
    out, err = top.communicate(timeout=60)
    for p in procs:
        finish_workload(p)
    recs = [json.loads(x) for x in first + out.splitlines() if x.strip()]
    st = recs[19]["stats"] if len(recs) >= 20 else {}
    ok(st.get("wakeups", 0) >= 1 and st.get("spilled_bytes") == 0 and st.get("read_in_place_bytes", 0) > 0,
       "flat, 10 s read in place: the reader woken %r times, nothing spilled (%r bytes), %r bytes read in place"
       % (st.get("wakeups"), st.get("spilled_bytes"), st.get("read_in_place_bytes")))
    lost = sum(r["events"][0]["lost"] for r in recs)
    last = recs[-1]["stats"] if recs else {}
    diag("flat stall: %d records, %d lost, wakeups %r, spilled %r" % (len(recs), lost, last.get("wakeups"),
                                                                     last.get("spilled_bytes")))
    ok(top.returncode == 0 and len(recs) == 24 and lost == 0,
       "flat, an 8 s stall of a 4.5 s ring: all 24 intervals, no sample lost (%d, %d lost, rc %r: %s)"
       % (len(recs), lost, top.returncode, err.decode().strip()))
    ok(last.get("spilled_bytes", 0) > 0, "flat, the stall's records went through the spill (%r bytes)"
       % last.get("spilled_bytes"))


def test_reader_sleeps():
    """-g read in place: while the main loop keeps up, the kernel rings wake
    it and it reads them in place; the reader thread is not woken (before,
    it was woken at every watermark only to wake the main loop: about 6
    times a second at 4 kHz on two CPUs)."""
    if SANITIZED:
        skip("the reader sleeps while the main loop keeps up",
             "a sanitized build's first symbol tables can hold its main loop past the guard")
        return
    procs = [start_workload(WORKLOAD, "split", "6,3,1", "12")[0] for _ in range(os.cpu_count() or 1)]
    rc, recs, err = perftop_json(PERFTOP, "-g", "-e", "cpu-clock", "-F", "4000", "-d", "0.5", "-n", "16", "--stats")
    for p in procs:
        finish_workload(p)
    st = recs[-1]["stats"] if recs else {}
    lost = sum(r["events"][0]["lost"] for r in recs)
    # The guard fires only when no pass has read the rings for ~3 s (a
    # 16 MiB ring); two such stalls allowed for a loaded machine.
    ok(rc == 0 and lost == 0 and st.get("wakeups", 99) <= 2,
       "-g, 8 s at 4 kHz: the reader woken %r times (at most 2), %d lost, %r read in place, %r spilled (%s)"
       % (st.get("wakeups"), lost, st.get("read_in_place_bytes"), st.get("spilled_bytes"), err.strip()))
    # One ring armed at a time: every CPU's ring (cpu-clock samples idle
    # CPUs as well) fills at the rate, and a watermark (a quarter of the
    # ring) of the armed one calls the pass that reads them all. With
    # every ring armed the main loop was woken once per watermark of each.
    ncpus = len(recs[-1].get("cpus", [])) if recs else 0
    woken = st.get("ring_wakeups", 0)
    ring, watermark = st.get("ring_bytes", 0), st.get("watermark_bytes", 0)
    # 16 MiB while all rings stay within 64 MiB of locked memory (engine_cg_pages).
    want = (16 << 20) if 0 < ncpus <= 4 else (8 << 20) if ncpus <= 8 else (4 << 20)
    ok(ring == want and watermark == ring // 4,
       "-g at 4 kHz on %d CPUs: %r-byte rings woken at %r bytes (%d MiB rings woken at a quarter: each "
       "wakeup costs the main loop a context switch, ~0.35 ms in a VM)" % (ncpus, ring, watermark, want >> 20))
    per_watermark = (st.get("read_in_place_bytes", 0) + st.get("spilled_bytes", 0)) / max(watermark, 1)
    if ncpus < 2:
        skip("one ring armed at a time", "needs two CPUs or more (%d here)" % ncpus)
    else:
        ok(rc == 0 and 0 < woken <= 0.75 * per_watermark,
           "-g, 8 s at 4 kHz on %d CPUs: the rings woke the main loop %r times for %.1f watermarks' worth "
           "of records (at most 3/4 of that)" % (ncpus, woken, per_watermark))


def test_fixed_period():
    """-c PERIOD: one sample per PERIOD events, for every kind of event.

    The workload counts its own page faults, context switches and CPU time
    (getrusage). perftop watches its whole life after the start, so a sample
    per PERIOD can never exceed count / PERIOD, give or take one period a
    thread; each sample's period is PERIOD (the header's)."""
    cases = [("page-faults", 1000, "minflt", 1.0), ("context-switches", 10, "csw", 1.0),
             ("cpu-clock", 10000000, "cpu_ms", 1e6)]
    for ev, period, key, unit in cases:
        p, pid = start_workload(WORKLOAD, "threads", "2", "2")
        rc, recs, err = perftop_json(PERFTOP, "-c", str(period), "-e", ev, "-p", str(pid), "-d", "0.5",
                                     "-n", "12")
        own = finish_workload(p)
        samples = sum(e["samples"] for r in recs for e in r["events"])
        periods = sum(e["period"] for r in recs for e in r["events"])
        count = own.get(key, 0) * unit
        diag("-c %d -e %s: %d samples, the workload's own count %r" % (period, ev, samples, count))
        ok(rc == 0 and recs and own, "-c %d -e %s runs (%s)" % (period, ev, err.strip()))
        ok(periods == samples * period, "-c %d -e %s: every sample carries the period %d" % (period, ev, period))
        ok(samples <= count / period + 2,
           "-c %d -e %s: %d samples for %d events, one per %d at most" % (period, ev, samples, count, period))
        ok(count < 20 * period or samples > 0, "-c %d -e %s: %d events gave samples" % (period, ev, count))


if not is_root():
    skip("live sampling", "needs root (perf_event_paranoid)")
    done()
test_focus()
test_system_wide()
test_kernel_symbols()
test_cpu_filter()
test_fallback()
test_tracepoint()
test_fixed_period()
# -m 8: a 32 KiB kernel ring holds well under a second here, so without
# the spill the stall surely overflows it. -g's default ring holds about 5
# seconds at 4 kHz (16 MiB): an 8 s stall overflows it unless the reader's guard wakes.
test_stalled_reader(["-m", "8"], 4.0, "-m 8")
test_stalled_reader(["-g"], 8.0, "-g")
test_reader_sleeps()
test_flat_in_place()
done()
