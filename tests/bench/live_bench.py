#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live benchmark: perftop -b against `perf top` on the same workload.

For each rate, alternately runs each tool while the workload keeps every CPU
busy, and reports medians over REPS runs of each tool's own CPU time (from
/proc/PID/stat) per sample, in steady state (a window after a warm-up) and
over the whole run (start-up included), peak RSS, and perftop's own sample
and lost counts. perf top needs a tty, so it runs inside tmux. Both sample
cpu-clock system-wide on busy CPUs, so both are charged per expected sample
(rate x CPUs x time): perf top prints no count we can read reliably.
Also: time to the first dump with symbols, and perf report's cost per sample
on a recording of the same workload next to bench_replay's.

usage: live_bench.py PERFTOP WORKLOAD [--rates 4000,20000,50000] [--secs 5] [--reps 3]

Whole runs, start to quit (--whole-live RATE:SECS,... for the live views,
--whole-dump RATE:SECS,... for perftop -b against perf top's live view): each
tool runs under a small parent that exec()s it and reports its rusage
(user+system CPU of all its threads, peak RSS) once it has exited, so start-up
and tear-down are counted; the live views run in tmux and are quit with 'q'.
Ratios come from the same repetition (the tools alternate on the same load);
medians over --whole-reps. --versus PERFTOP2 puts another perftop build in
perf top's place (an A/B of two builds; "perf top" in the output is then it).
Each tool refreshes at its own default (the live views -d 2, perftop -b -d 1) unless
--same-delay SECS gives both the same -d (and perftop -b its interval).

Call graphs (issue 12): --callgraph fp|dwarf gives both tools -g (or
--call-graph dwarf), the load is --cg-workload (cgwork: a known call tree)
instead, and --live runs perftop's live view in tmux as perf top's is run
(as a user would), besides its -b run. perf top's lost samples are read from its
header ("lost: N/M") in the pane at the end.

Side by side (--together): the live views run at once, in two tmux panes on
the same load, and each one's CPU is measured over the same window (steady
state) or from its start to the same 'q' (--whole-live): the issues' own
method ("side by side in tmux"). Each then also samples the other and pays for
the other's sample interrupts while it runs. Without --together the tools take
turns on the same load.
"""
import argparse
import json
import os
import shlex
import re
import signal
import statistics
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    """CPU seconds of pid's live threads, in ns (schedstat): /proc/PID/stat's
    ticks are 10 ms, coarser than what perftop spends in a short window."""
    total = 0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK


def proc_hwm_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


CG_WORKLOAD = None  # --cg-workload: cgwork, whose only argument is the seconds


def start_load(workload, secs):
    procs = []
    for _ in range(os.cpu_count()):
        args = [CG_WORKLOAD, str(secs)] if CG_WORKLOAD else [workload, "split", "6,3,1", str(secs)]
        p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        p.stdout.readline()
        procs.append(p)
    return procs


def stop_load(procs):
    for p in procs:
        p.kill()
        p.wait()


WARMUP = 1.0


CG_ARGS = []  # --callgraph: what both tools are given
DELAY_ARGS = []  # --same-delay: both tools' -d in the whole runs (else their defaults)


def perftop_run(perftop, rate, secs):
    """perftop -b for WARMUP + secs: (steady cpu s, whole-run cpu s, its samples, lost, max rss KiB)."""
    p = subprocess.Popen([perftop, "-b", "--format", "json", "-e", "cpu-clock", "-F", str(rate),
                          "-d", "1", "-E", "5", *CG_ARGS],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(WARMUP)
    c0 = proc_cpu(p.pid)
    time.sleep(secs)
    c1 = proc_cpu(p.pid)
    p.send_signal(2)
    out = p.stdout.read()
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    samples = sum(x["events"][0]["samples"] for x in recs)
    lost = sum(x["events"][0]["lost"] for x in recs)
    return c1 - c0, ru.ru_utime + ru.ru_stime, samples, lost, ru.ru_maxrss


def tmux_start(cmd, comm):
    """cmd in a new tmux pane: (session name, pid of comm) or None."""
    name = "bench-%s-%d" % (comm, os.getpid())
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50", cmd], check=True)
    # The pane's own process (sh may exec it, or run it as a child), not
    # another of that name running on the machine.
    pid = None
    for _ in range(200):
        r = subprocess.run(["tmux", "display-message", "-p", "-t", name, "#{pane_pid}"],
                           capture_output=True, text=True)
        pane = int(r.stdout.strip() or 0)
        for cand in [pane] + [int(x) for x in subprocess.run(
                ["pgrep", "-P", str(pane)], capture_output=True, text=True).stdout.split()]:
            try:
                with open("/proc/%d/comm" % cand) as f:
                    if cand and f.read().strip() == comm:
                        pid = cand
            except OSError:
                pass
        if pid:
            break
        time.sleep(0.01)
    if pid is None:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        print("# %s did not start" % comm)
        return None
    return name, pid


def tmux_together(runs, secs):
    """Commands ([(cmd, comm)]) in tmux panes at once for WARMUP + secs, the
    same window measured for each: [(steady cpu s, whole-run cpu s, max rss
    KiB, the pane's text at the end) or None] in the order of runs."""
    started = [tmux_start(cmd, comm) for cmd, comm in runs]
    res = [None] * len(runs)
    time.sleep(WARMUP)
    c0 = [None] * len(runs)
    for i, st in enumerate(started):
        try:
            c0[i] = proc_cpu(st[1]) if st else None
        except OSError:
            pass
    time.sleep(secs)
    for i, st in enumerate(started):
        if st is None:
            continue
        name, pid = st
        try:
            if c0[i] is not None:
                c1 = proc_cpu(pid)
                res[i] = [c1 - c0[i], c1, proc_hwm_kib(pid)]
        except OSError:
            # It died (perf 6.1 aborts at times here: "assertion failed at
            # util/build-id.c:1010"): that run is left out.
            print("# %s exited during the run" % runs[i][1])
        text = subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        if res[i]:
            res[i] = tuple(res[i] + [text])
    return res


def tmux_run(cmd, comm, secs):
    """cmd in a tmux pane for WARMUP + secs: (steady cpu s, whole-run cpu s,
    max rss KiB, the pane's text at the end)."""
    return tmux_together([(cmd, comm)], secs)[0]


def perf_top_cmd(rate):
    return "perf top -e cpu-clock -F %d %s 2>/dev/null" % (rate, " ".join(CG_ARGS))


def perf_top(rate, secs):
    """perf top in tmux for WARMUP + secs: (steady cpu s, whole-run cpu s, max rss KiB, lost or None)."""
    for _ in range(3):
        r = tmux_run(perf_top_cmd(rate), "perf", secs)
        if r:
            break
    return perf_top_result(r)


def perf_top_result(r):
    """tmux_run's figures of perf top, its lost samples read from its pane."""
    if r is None:
        return None
    steady, whole, hwm, text = r
    m = re.search(r"lost: *(\d+)/(\d+)", text)
    # perf top also drops samples it has no time for ("drop: N/M"): those
    # are lost to its view as well, though not to the kernel.
    d = re.search(r"drop: *(\d+)/(\d+)", text)
    lost = int(m.group(1)) if m else None
    if lost is not None and d:
        lost += int(d.group(1))
    return steady, whole, hwm, lost


def perftop_live_cmd(perftop, rate):
    return "%s -e cpu-clock -F %d %s 2>/dev/null" % (perftop, rate, " ".join(CG_ARGS))


def perftop_live(perftop, rate, secs):
    """perftop's live view in tmux, as perf top: (steady cpu s, whole-run cpu s, max rss KiB)."""
    r = tmux_run(perftop_live_cmd(perftop, rate), "perftop", secs)
    return r[:3] if r else None


def live_together(perftop, rate, secs):
    """perftop's live view and perf top in tmux at once, measured over the
    same window: (perftop's figures as perftop_live, perf top's as perf_top)."""
    r = tmux_together([(perftop_live_cmd(perftop, rate), "perftop"), (perf_top_cmd(rate), "perf")], secs)
    return (r[0][:3] if r[0] else None), perf_top_result(r[1])


def first_dump_ms(perftop, reps):
    """Time from exec to the first JSON record that has symbols, with -d 0.1."""
    out = []
    for _ in range(reps):
        t0 = time.time()
        p = subprocess.Popen([perftop, "-b", "--format", "json", "-d", "0.1", "-n", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = p.stdout.readline()
        t = (time.time() - t0) * 1000
        p.wait()
        rec = json.loads(line) if line.strip() else {}
        if rec.get("symbols"):
            out.append(t)
    return statistics.median(out) if out else None


def perf_report_ns(workload, bench_replay, secs=3, reps=3):
    """perf report's cost per sample on a recording of the same workload,
    next to bench_replay's (our decode -> resolve -> aggregate)."""
    data = "/tmp/perftop-bench-%d.data" % os.getpid()
    load = start_load(workload, secs + 5)
    try:
        subprocess.run(["perf", "record", "-q", "-a", "-e", "cpu-clock", "-F", "20000", "-o", data,
                        "sleep", str(secs)], check=True, capture_output=True)
    finally:
        stop_load(load)
    n = int(subprocess.run("perf script -i %s -F ip | wc -l" % data, shell=True, capture_output=True,
                           text=True).stdout.strip() or 0)
    times = []
    for _ in range(reps):
        t0 = time.time()
        subprocess.run(["perf", "report", "--stdio", "-i", data], capture_output=True)
        times.append(time.time() - t0)
    os.unlink(data)
    theirs = statistics.median(times) * 1e9 / max(n, 1)
    mine = None
    if bench_replay:
        out = subprocess.run([bench_replay, "20"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("decode+resolve+agg"):
                mine = float(line.split()[1])
    return n, theirs, mine


# The parent that reports a tool's whole-run rusage: wait4 sums every thread
# of the child, from exec to exit. Not its ru_maxrss: exec keeps the forking
# parent's high-water mark there, so RSS is the tool's own VmHWM, read just
# before it is told to quit.
RUSAGE_WRAPPER = r"""
import os, sys
out = sys.argv[1]
# posix_spawn (a vfork): a forked copy of this interpreter would be torn
# down by the exec in the child and charged to the tool (/bin/true: 14 ms
# forked, 3 ms spawned, on the 2-CPU VM).
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
with open(out + ".pid", "w") as f:
    f.write(str(pid))
_, status, ru = os.wait4(pid, 0)
with open(out + ".tmp", "w") as f:
    f.write("%.6f %.6f %d\n" % (ru.ru_utime, ru.ru_stime, status))
os.rename(out + ".tmp", out)
"""


def kill_tool(pid):
    """A tool that did not quit on 'q' (perf top at 100 kHz here): killed,
    not left running with its load under the next runs (a tmux
    kill-session's SIGHUP did not end it)."""
    if pid <= 0:
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def whole_in_tmux(cmd, secs, tag):
    """Runs cmd in a tmux pane for secs, quits it with 'q': (cpu s, max rss KiB)."""
    name = "bench-whole-%s-%d" % (tag, os.getpid())
    out = "/tmp/%s.rusage" % name
    if os.path.exists(out):
        os.unlink(out)
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    argv = ["python3", "-c", RUSAGE_WRAPPER, out] + cmd
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50",
                    " ".join(shlex.quote(x) for x in argv) + " 2>/dev/null"], check=True)
    end = time.time() + secs
    while time.time() < end:
        time.sleep(min(0.5, max(end - time.time(), 0)))
        if os.path.exists(out):
            subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
            os.unlink(out)
            raise RuntimeError("%s ended before it was told to quit" % cmd[0])
    hwm = pid = 0
    try:
        with open(out + ".pid") as f:
            pid = int(f.read())
        hwm = proc_hwm_kib(pid)
        os.unlink(out + ".pid")
    except (OSError, ValueError):
        pass
    deadline = time.time() + 60
    while not os.path.exists(out) and time.time() < deadline:
        subprocess.run(["tmux", "send-keys", "-t", name, "q"], capture_output=True)
        time.sleep(0.5)
    killed = not os.path.exists(out)
    if killed:
        kill_tool(pid)
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    if killed or not os.path.exists(out):
        time.sleep(0.5)  # the wrapper's rusage of the killed tool: not a figure
        if os.path.exists(out):
            os.unlink(out)
        raise RuntimeError("%s did not quit" % cmd[0])
    with open(out) as f:
        ut, st, _ = f.read().split()
    os.unlink(out)
    return float(ut) + float(st), hwm


def whole_together(cmds, secs):
    """Live views side by side, started and quit together, so that both
    see the same machine (perftop beside perf top, or an A/B of two builds
    on a busy host): [(cpu s, max rss KiB), or (None, None) for one that
    ended before it was told to quit] in the order of cmds."""
    tags = ["together%d" % i for i in range(len(cmds))]
    names = ["bench-whole-%s-%d" % (t, os.getpid()) for t in tags]
    outs = ["/tmp/%s.rusage" % n for n in names]
    for name, out, cmd in zip(names, outs, cmds):
        for f in (out, out + ".pid"):
            if os.path.exists(f):
                os.unlink(f)
        argv = ["python3", "-c", RUSAGE_WRAPPER, out] + cmd
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50",
                        " ".join(shlex.quote(x) for x in argv) + " 2>/dev/null"], check=True)
    time.sleep(secs)
    # One that ended before 'q' (perf 6.1's top aborts at times) did not last.
    early = [os.path.exists(o) for o in outs]
    hwms, pids = [], []
    for out in outs:
        try:
            with open(out + ".pid") as f:
                pids.append(int(f.read()))
            hwms.append(proc_hwm_kib(pids[-1]))
            os.unlink(out + ".pid")
        except (OSError, ValueError):
            hwms.append(0)
            pids.append(0)
    deadline = time.time() + 60
    while not all(os.path.exists(o) for o in outs) and time.time() < deadline:
        for name in names:
            subprocess.run(["tmux", "send-keys", "-t", name, "q"], capture_output=True)
        time.sleep(0.5)
    killed = [not os.path.exists(o) for o in outs]
    for out, pid, k in zip(outs, pids, killed):
        if k:
            kill_tool(pid)
    if any(killed):
        time.sleep(0.5)  # the wrapper writes its rusage once the tool is reaped
    res = []
    for name, out, hwm, gone, k in zip(names, outs, hwms, early, killed):
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        if k or not os.path.exists(out):
            if os.path.exists(out):
                os.unlink(out)
            res.append((None, None))  # did not quit: no figure
            continue
        with open(out) as f:
            ut, st, _ = f.read().split()
        os.unlink(out)
        res.append((None, None) if gone else (float(ut) + float(st), hwm))
    return res


def whole_dump(perftop, rate, secs):
    """perftop -b for secs, then SIGINT: (cpu s, max rss KiB, samples, lost)."""
    p = subprocess.Popen([perftop, "-b", "--format", "json", "-e", "cpu-clock", "-F", str(rate),
                          *(DELAY_ARGS or ["-d", "1"]), "-E", "5", *CG_ARGS],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(secs)
    hwm = proc_hwm_kib(p.pid)  # not ru_maxrss: see RUSAGE_WRAPPER
    p.send_signal(2)
    out = p.stdout.read()
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    samples = sum(x["events"][0]["samples"] for x in recs)
    lost = sum(x["events"][0]["lost"] for x in recs)
    return ru.ru_utime + ru.ru_stime, hwm, samples, lost


def whole_runs(a, spec, live):
    """One table line per RATE:SECS: perftop (live view or -b) against perf
    top's live view, whole runs, ratios per repetition then medians. perf
    6.1's top can abort (an assertion in util/build-id.c, then a smashed
    stack) on what other programs of a shared machine map: it is tried
    again, and a repetition where it never lasted keeps perftop's figures
    without a ratio."""
    for item in spec.split(","):
        rate, secs = (int(x) for x in item.split(":"))
        rows = []
        for _ in range(a.whole_reps):
            load = start_load(a.workload, 2 * secs + 90)
            theirs = trss = None
            try:
                if a.together and live:
                    (mine, mrss), (theirs, trss) = whole_together(
                        [x + ["-e", "cpu-clock", "-F", str(rate), *DELAY_ARGS, *CG_ARGS]
                         for x in ([a.perftop], [a.versus] if a.versus else ["perf", "top"])], secs)
                    samples = lost = None
                    if mine is None:
                        raise RuntimeError("perftop ended before it was told to quit, or did not quit")
                elif live:
                    mine, mrss = whole_in_tmux([a.perftop, "-e", "cpu-clock", "-F", str(rate), *DELAY_ARGS, *CG_ARGS],
                                               secs, "perftop")
                    samples = lost = None
                else:
                    mine, mrss, samples, lost = whole_dump(a.perftop, rate, secs)
                for _ in range(0 if theirs or (a.together and live) else 1 if a.versus else 3):
                    try:
                        if a.versus and live:
                            theirs, trss = whole_in_tmux([a.versus, "-e", "cpu-clock", "-F", str(rate), *DELAY_ARGS,
                                                          *CG_ARGS], secs, "versus")
                        elif a.versus:
                            theirs, trss, _, _ = whole_dump(a.versus, rate, secs)
                        else:
                            theirs, trss = whole_in_tmux(["perf", "top", "-e", "cpu-clock", "-F", str(rate), *DELAY_ARGS,
                                                          *CG_ARGS], secs, "perf")
                        break
                    except RuntimeError as err:
                        print("  (perf top: %s)" % err, flush=True)
            finally:
                stop_load(load)
            ratio = mine / theirs if theirs else None
            rows.append((mine, theirs, ratio, mrss / 1024, trss / 1024 if trss else None,
                         mrss / trss if trss else None, samples, lost))
            print("  %s %6d Hz %3d s: perftop %.3f s, RSS %.1f MiB%s%s"
                  % ("live" if live else "dump", rate, secs, mine, mrss / 1024,
                     "" if live else ", %d samples, %d lost" % (samples, lost),
                     "; perf top %.3f s, ratio %.3f, RSS %.1f MiB" % (theirs, ratio, trss / 1024) if theirs
                     else "; perf top did not last"), flush=True)

        def med(i):
            v = [x[i] for x in rows if x[i] is not None]
            return statistics.median(v) if v else float("nan")
        ratios = [x[2] for x in rows if x[2] is not None]
        print("%-4s %6d Hz %3d s | perftop %.3f s | perf top %.3f s | ratio %.3f (%s, %d of %d runs) | "
              "RSS %.1f / %.1f MiB (%.2f)%s" % (
                  "live" if live else "dump", rate, secs, med(0), med(1), med(2),
                  "-".join("%.3f" % x for x in (min(ratios), max(ratios))) if ratios else "-", len(ratios),
                  len(rows), med(3), med(4), med(5),
                  "" if live else " | lost %d" % max(x[7] for x in rows)), flush=True)


def main():
    global CG_WORKLOAD, CG_ARGS, DELAY_ARGS, WARMUP
    ap = argparse.ArgumentParser()
    ap.add_argument("perftop")
    ap.add_argument("workload")
    ap.add_argument("--rates", default="4000,20000,50000")
    ap.add_argument("--secs", type=int, default=5)
    # perftop's first interval (its first symbol tables, at 1 s) falls in
    # a 1 s warm-up's window: --warmup 5 measures both tools past start-up.
    ap.add_argument("--warmup", type=float, default=WARMUP,
                    help="seconds before the steady-state window opens (default %(default)s)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--replay", help="bench_replay binary, to compare with perf report")
    ap.add_argument("--callgraph", choices=["fp", "dwarf"], help="both tools with -g / --call-graph dwarf")
    ap.add_argument("--cg-workload", help="the load with --callgraph (cgwork; default WORKLOAD split)")
    ap.add_argument("--live", action="store_true", help="perftop's live view in tmux too")
    ap.add_argument("--whole-live", metavar="RATE:SECS,...",
                    help="whole runs of the live views, start to quit (e.g. 4000:60,20000:20)")
    ap.add_argument("--whole-dump", metavar="RATE:SECS,...",
                    help="whole runs of perftop -b against perf top (e.g. 20000:8,100000:10)")
    ap.add_argument("--whole-reps", type=int, default=3)
    ap.add_argument("--same-delay", type=int, metavar="SECS",
                    help="whole runs: both tools refresh every SECS (-d SECS) instead of at their defaults "
                         "(perftop 1 s, perf top 2 s); whole seconds, as perf 6.1 takes them")
    ap.add_argument("--versus", metavar="PERFTOP",
                    help="whole runs against another perftop build (an A/B) instead of perf top")
    ap.add_argument("--together", action="store_true",
                    help="run both live views at once, side by side, the same window measured for both (the "
                         "issues' method; without it they take turns on the same load); with --versus, the "
                         "two builds")
    a = ap.parse_args()
    WARMUP = a.warmup
    if a.same_delay:
        DELAY_ARGS = ["-d", "%g" % a.same_delay]
    if a.callgraph:
        CG_ARGS = ["-g"] if a.callgraph == "fp" else ["--call-graph", "dwarf"]
        CG_WORKLOAD = a.cg_workload
        a.replay = None  # perf report's comparison is the flat one
    if a.whole_live or a.whole_dump:
        print("whole runs, start to quit: own CPU (rusage of all threads) and peak RSS; medians of %d; %s"
              % (a.whole_reps, "both tools -d %g" % a.same_delay if a.same_delay else
                 "each at its default refresh (live views -d 2, perftop -b -d 1)"))
        if a.whole_live:
            whole_runs(a, a.whole_live, True)
        if a.whole_dump:
            whole_runs(a, a.whole_dump, False)
        return

    have_perf = subprocess.run(["perf", "--version"], capture_output=True).returncode == 0
    if have_perf and not a.callgraph:
        n, theirs, mine = perf_report_ns(a.workload, a.replay)
        print("perf report: %.0f ns/sample over %d samples (whole run, start-up included)" % (theirs, n))
        if mine:
            print("perftop replay: %.1f ns/sample -> ratio %.4f" % (mine, mine / theirs))
    if not a.callgraph:
        print("first dump with symbols (-d 0.1): median %.0f ms" % (first_dump_ms(a.perftop, 5) or -1))
    ncpu = os.cpu_count()
    if a.callgraph:
        print("call graphs: both tools with %s, load %s on every CPU" % (" ".join(CG_ARGS), CG_WORKLOAD or a.workload))
    print("steady state: CPU over %ds after a %.0fs warm-up, per expected sample (rate x %d CPUs x time);"
          % (a.secs, WARMUP, ncpu))
    print("whole run: CPU from start (start-up included) per expected sample. Medians of %d runs." % a.reps)
    print("%-6s %-13s %11s %11s %8s %9s %9s" % ("rate", "tool", "steady us", "whole us", "RSS MiB",
                                               "samples", "lost"))
    for rate in [int(x) for x in a.rates.split(",")]:
        mine, live, theirs = [], [], []
        expected = rate * ncpu * a.secs
        per = lambda steady, whole: (steady / expected * 1e6, whole / (expected * (a.secs + WARMUP) / a.secs) * 1e6)
        for _ in range(a.reps):
            load = start_load(a.workload, int(4 * (a.secs + WARMUP + 2)) + 5)
            try:
                steady, whole, samples, lost, rss = perftop_run(a.perftop, rate, a.secs)
                mine.append((*per(steady, whole), rss / 1024, samples, lost))
                if a.live and a.together and have_perf:
                    r, rt = live_together(a.perftop, rate, a.secs)
                else:
                    r = perftop_live(a.perftop, rate, a.secs) if a.live else None
                    rt = perf_top(rate, a.secs) if have_perf else None
                if r:
                    live.append((*per(r[0], r[1]), r[2] / 1024))
                r = rt
                if r:
                    theirs.append((*per(r[0], r[1]), r[2] / 1024, r[3]))
            finally:
                stop_load(load)
        med = [statistics.median(x[i] for x in mine) for i in range(3)]
        print("%-6d %-13s %11.3f %11.3f %8.1f %9d %9d" % (rate, "perftop -b", med[0], med[1], med[2],
              statistics.median(x[3] for x in mine), max(x[4] for x in mine)))
        lmed = [statistics.median(x[i] for x in live) for i in range(3)] if live else None
        if lmed:
            print("%-6d %-13s %11.3f %11.3f %8.1f %9s %9s" % (rate, "perftop live", lmed[0], lmed[1], lmed[2],
                                                               "-", "-"))
        if theirs:
            tmed = [statistics.median(x[i] for x in theirs) for i in range(3)]
            plost = [x[3] for x in theirs if x[3] is not None]
            print("%-6d %-13s %11.3f %11.3f %8.1f %9s %9s" % (rate, "perf top", tmed[0], tmed[1], tmed[2],
                                                               "-", max(plost) if plost else "-"))
            print("%-6d %-13s %11.3f %11.3f %8.2f" % (rate, "ratio -b", med[0] / tmed[0], med[1] / tmed[1],
                                                        med[2] / tmed[2]))
            if lmed:
                print("%-6d %-13s %11.3f %11.3f %8.2f" % (rate, "ratio live", lmed[0] / tmed[0],
                                                            lmed[1] / tmed[1], lmed[2] / tmed[2]))

if __name__ == "__main__":
    main()
