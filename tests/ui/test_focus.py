#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Enter on a task focuses on it (as -p): only that task in the table;
Esc goes back to system-wide. The Tasks view's CPU% is each row's own:
a thread row shows its thread's time, not its process's; a row come on
screen shows it well before the next interval. The first table comes
early, not after a whole interval. u keeps exited tasks of the user (by
the uid they had)."""
import re
import sys
import time

import tuitest
from tuitest import tap


def task_pids(screen):
    pids = []
    for r in tuitest.table_rows(screen):
        tok = r.split()
        if tok and tok[0].isdigit():
            pids.append(int(tok[0]))
    return pids


def cpu_of(screen, comm):
    """The CPU% of the row named comm, or None ('-' or not shown)."""
    titles = tuitest.column_titles(screen).split()
    if "CPU%" not in titles:
        return None
    k = titles.index("CPU%")
    for r in tuitest.table_rows(screen):
        tok = r.split()
        if tok and tok[-1] == comm and len(tok) == len(titles):
            try:
                return float(tok[k])
            except ValueError:
                return None
    return None


def thread_cpu(t, perftop, workload):
    """H: two threads of one process, one spinning all the time and one a
    quarter of it, show CPU% in the proportion of their own CPU times (as
    the workload measured them), not both their process's figure."""
    wl, wpid = t.workload(workload, "duty", "12")
    t.start(perftop, "-d", "1", "-p", str(wpid))
    t.wait_re(r"^Target: PID", 15)
    t.keys("Tab")
    t.keys("H")
    full = quarter = 0.0
    seen = alike = 0
    end = time.monotonic() + 8
    last = None
    while time.monotonic() < end and seen < 6:
        s = t.screen()
        f, q = cpu_of(s, "busy_full"), cpu_of(s, "busy_quarter")
        if f is not None and q is not None and (f, q) != last:
            last = (f, q)
            full += f
            quarter += q
            seen += 1
            alike += f == q
        time.sleep(0.3)
    t.keys("q")
    t.clean_exit("q")
    measured = tap.finish_workload(wl)
    tap.diag("thread rows' CPU%% summed: busy_full %.1f, busy_quarter %.1f over %d frames; the workload's "
             "own CPU times: %r" % (full, quarter, seen, measured))
    tap.ok(seen >= 3, "H: both thread rows show a CPU%% (%d frames)" % seen)
    mf, mq = measured.get("busy_full", 0), measured.get("busy_quarter", 0)
    if seen < 3 or mq <= 0 or quarter <= 0:
        tap.ok(False, "the workload's and the rows' figures to compare (%r)" % measured)
        return
    want, got = mf / mq, full / quarter
    tap.ok(alike < seen, "the two thread rows are not one figure (alike in %d of %d frames)" % (alike, seen))
    # Generous: the rows are of one-second intervals on a loaded machine,
    # the workload's of the whole run; equal figures (their process's)
    # read 1, and busy_full ran more than half again busy_quarter's time.
    if want >= 1.5:
        tap.ok(want ** 0.5 <= got <= want ** 2,
               "the rows' ratio %.2f is the threads' own %.2f (within a square)" % (got, want))
    else:
        tap.skip("the rows' ratio is the threads' own",
                 "the machine gave both threads alike (%.2f): nothing to tell apart" % want)


def row_of(screen, pid):
    for r in tuitest.table_rows(screen):
        tok = r.split()
        if tok and tok[0] == str(pid):
            return r
    return None


def cpu_soon(t, perftop, workload):
    """-d 30: the first table comes early, and a row on it shows its CPU%
    long before the interval's end (a second reading soon after the first),
    not '-' for 30 s."""
    wl, wpid = t.workload(workload, "split", "6,3,1", "60")
    t.start(perftop, "-d", "30", "-p", str(wpid))
    t.wait_re(r"^Target: PID", 15)
    t.keys("Tab")
    s = t.wait(lambda sc: row_of(sc, wpid) is not None, 12)
    tap.ok(s is not None, "-d 30: the workload's row is on screen before the interval's end")
    titles = tuitest.column_titles(s or "").split()
    k = titles.index("CPU%") if "CPU%" in titles else None

    def has_pct(sc):
        r = row_of(sc, wpid)
        return r is not None and k is not None and re.match(r"^\d+\.\d$", r.split()[k]) is not None
    s = t.wait(has_pct, 12)
    tap.ok(s is not None, "-d 30: its CPU%% shows before the interval's end (%r)" % row_of(s or t.screen(), wpid))
    t.keys("q")
    t.clean_exit("q")
    wl.kill()


def first_table(t, perftop, workload):
    """-d 10: the first table comes as soon as there are samples, not after
    a whole interval (the header alone for 10 s); the interval then runs."""
    wl, wpid = t.workload(workload, "split", "6,3,1", "60")
    t.start(perftop, "-d", "10", "-p", str(wpid))
    s = t.wait_re(r"^Target: ", 15)
    header = time.monotonic()
    s = t.wait(lambda sc: re.search(r"\[\.\] hot_a", sc) is not None, 15)
    took = time.monotonic() - header
    tap.ok(s is not None and took < 5, "-d 10: the first rows %.1f s after the header, "
           "well before the interval's end" % took)
    t.keys("q")
    t.clean_exit("q")
    wl.kill()


def user_exited(t, perftop, workload):
    """u root: a root task that exited still shows (cumulative view), as
    the root's it was; another user's filter still hides it."""
    # -d 3: an exited task's row stays three intervals (AGG_EXIT_GRACE).
    t.start(perftop, "-d", "3")
    t.wait_re(r"^Target: ", 15)
    wl, wpid = t.workload(workload, "split", "6,3,1", "4")
    t.keys("Tab")
    t.keys("c")
    # Only workloads: a busy machine's other tasks would push it off screen.
    t.keys("/")
    t.raw("workload")
    t.keys("Enter")
    s = t.wait(lambda sc: row_of(sc, wpid) is not None, 10)
    tap.ok(s is not None, "the workload's row, alive")
    wl.wait()
    s = t.wait(lambda sc: (row_of(sc, wpid) or "").endswith("(exited)"), 8)
    tap.ok(s is not None, "its row says it exited (%r)" % row_of(s or t.screen(), wpid))
    t.keys("u")
    t.raw("root")
    t.keys("Enter")
    s = t.wait(lambda sc: "user: root" in sc and row_of(sc, wpid) is not None, 4)
    tap.ok(s is not None, "u root: the exited root task still shows")
    t.keys("u")
    t.raw("54321")
    t.keys("Enter")
    s = t.wait(lambda sc: "user: 54321" in sc and row_of(sc, wpid) is None, 4)
    tap.ok(s is not None, "u 54321: it does not")
    t.keys("q")
    t.clean_exit("q")


def main(t):
    perftop, workload = sys.argv[1], sys.argv[2]
    _, wpid = t.workload(workload, "split", "6,3,1", "60")
    t.start(perftop, "-d", "0.5")
    t.wait_re(r"hot_a", 15)
    t.keys("Tab")
    s = t.wait_re(r"^\s+PID\s+\S+\s+(CPU%\s+)?Samples\s+Thr COMM", 5)
    tap.ok(s is not None, "Tab: the task table")
    s = t.wait(lambda sc: wpid in task_pids(sc) and len(task_pids(sc)) > 1, 10)
    tap.ok(s is not None, "system-wide: the workload among other tasks")
    t.keys("/")
    t.tmux("send-keys", "-t", "t", "-l", "workload")
    t.keys("Enter")
    s = t.wait(lambda sc: task_pids(sc)[:1] == [wpid], 10)
    tap.ok(s is not None, "/workload: the workload's row selected")
    t.keys("Enter")
    s = t.wait_re(r"Target: PID %d\b" % wpid, 10)
    tap.ok(s is not None, "Enter: the header's target is PID %d" % wpid)
    t.keys("/")
    t.keys("C-u")
    t.keys("Enter")
    s = t.wait(lambda sc: "filter:" not in sc and task_pids(sc) == [wpid], 10)
    tap.ok(s is not None, "unfiltered, the table shows only that task")
    t.keys("Tab", "Tab")
    s = t.wait(lambda sc: re.search(r"\[\.\] hot_a", sc) is not None, 10) or ""
    rows = tuitest.table_rows(s)
    # The workload's own code, libc, the loader, its vDSO clock_gettime, the
    # sanitizer runtimes of an ASan build (their interceptors), or the kernel.
    foreign = [r for r in rows if not any(w in r for w in ("workload", "[unknown]", "[k]", "ld-linux",
                                                             "libc", "vdso", "libasan", "libubsan"))]
    tap.ok(rows and not foreign, "the symbols are the workload's (foreign rows: %r)" % foreign)
    t.keys("Tab")
    t.keys("Escape")
    s = t.wait_re(r"Target: system-wide", 10)
    tap.ok(s is not None, "Esc: back to system-wide")
    s = t.wait(lambda sc: wpid in task_pids(sc) and len(task_pids(sc)) > 1, 10)
    tap.ok(s is not None, "other tasks are back in the table")
    t.keys("q")
    t.clean_exit("q")
    thread_cpu(t, perftop, workload)
    cpu_soon(t, perftop, workload)
    first_table(t, perftop, workload)
    user_exited(t, perftop, workload)


tuitest.run("live view in tmux", main)
