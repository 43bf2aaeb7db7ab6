#!/usr/bin/env python3
"""Enter on a task focuses on it (as -p): only that task in the table;
Esc goes back to system-wide."""
import re
import sys

import tuitest
from tuitest import tap


def task_pids(screen):
    pids = []
    for r in tuitest.table_rows(screen):
        tok = r.split()
        if tok and tok[0].isdigit():
            pids.append(int(tok[0]))
    return pids


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


tuitest.run("live view in tmux", main)
