#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 49, items 4 to 6 in the live view, at 80x24 and 200x50: t shows
the Tasks view as a tree, the children of a parent that took no samples
(figwork fork: a parent that waits, children that spin) under it with tree
lines, the parent's share their sum; - folds its subtree and + opens it
(neither then changes the refresh interval); g takes perf's sort keys
(comm,dso: the keys' titles, a row per program); B keeps the table as the
baseline (a Delta column of signed changes).

usage: test_tree_group.py PERFTOP FIGWORK WORKLOAD
"""
import os
import re
import signal
import subprocess
import sys

import tuitest
from tuitest import tap

PERFTOP, FIG, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
TREE = r"(\u251c\u2500|\u2514\u2500|\|-|`-) "


def rows(screen):
    """PID -> (share, the text after the numbers) of the Tasks view's rows."""
    out = {}
    for r in tuitest.table_rows(screen):
        m = re.match(r"^\s*(\d+)\s+([\d.]+)%\s+\S+\s+\S+\s+\S+\s(.*)$", r)
        if m:
            out[int(m.group(1))] = (float(m.group(2)), m.group(3))
    return out


def group_pair(row):
    """(Shared Object, Command) of a g comm,dso row, None if it has not that shape."""
    m = re.match(r"^\s*[\d.]+%\s+\d+\s+(\S.*?)\s+\[[.k]\]\s+(\S+)\s*$", row)
    return (m.group(1), m.group(2)) if m else None


def tree_ok(screen, parent, kids):
    r = rows(screen)
    if parent not in r or any(k not in r for k in kids):
        return False
    return all(re.search(TREE + r"figwork", r[k][1]) for k in kids)


def body(t, w, h):
    # Three hot functions in one DSO (workload.c's split): one (comm, dso) row under g.
    t.own(subprocess.Popen([WORK, "split", "1,1,1", "120"], stdout=subprocess.DEVNULL,
                           start_new_session=True))
    # Its own process group: the spinners go with their parent (killpg below).
    fw = t.own(subprocess.Popen([FIG, "fork", "2", "120"], stdout=subprocess.PIPE, text=True,
                                start_new_session=True))
    parent = int(fw.stdout.readline().split()[1])
    kids = []
    for _ in range(50):
        try:
            with open("/proc/%d/task/%d/children" % (parent, parent)) as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            pass
        if len(kids) == 2:
            break
        subprocess.run(["sleep", "0.1"])
    tap.ok(len(kids) == 2, "%dx%d: the workload forked its two spinners (%r)" % (w, h, kids))
    t.live(PERFTOP, "-d", "1", "-e", "cpu-clock")
    t.keys("Tab")
    t.keys("t")
    t.prompt("/", "figwork")
    s = t.wait(lambda sc: tree_ok(sc, parent, kids), 20)
    tap.ok(s is not None, "%dx%d: t: the children %r under their parent %d (which took no samples), "
           "with tree lines" % (w, h, kids, parent))
    if s:
        r = rows(s)
        order = [int(x.split()[0]) for x in tuitest.table_rows(s) if x.split() and x.split()[0].isdigit()]
        tap.ok(order.index(parent) < min(order.index(k) for k in kids),
               "%dx%d: the parent's row comes before its children's" % (w, h))
        ksum = sum(r[k][0] for k in kids)
        tap.ok(ksum - 0.05 <= r[parent][0] <= ksum + 0.5,
               "%dx%d: the parent's share %.2f%% is its subtree's total (children %.2f%%)" % (w, h, r[parent][0], ksum))
    delay = tuitest.line_of(t.screen(), r"Delay: ")
    t.prompt("F3", "figwork")
    t.keys("-")
    s = t.wait(lambda sc: parent in rows(sc) and not any(k in rows(sc) for k in kids) and
               re.search(r"\+ figwork", rows(sc)[parent][1]), 10)
    tap.ok(s is not None, "%dx%d: - folds the parent's subtree (its children hidden, '+' marks it)" % (w, h))
    t.keys("+")
    s = t.wait(lambda sc: tree_ok(sc, parent, kids), 10)
    tap.ok(s is not None, "%dx%d: + opens it again" % (w, h))
    tap.ok(s is not None and tuitest.line_of(s, r"Delay: ") == delay,
           "%dx%d: on the tree + and - leave the refresh interval (%s)" % (w, h, delay.strip()[:60]))
    # g: perf's sort keys on the Symbols view.
    t.keys("Tab")
    t.keys("Tab")
    t.prompt("g", "comm,dso")
    s = t.wait(lambda sc: re.search(r"Shared Object\s+Command", tuitest.column_titles(sc)) is not None and
               any(re.search(r"\bfigwork\s*$", x) for x in tuitest.table_rows(sc)), 20)
    tap.ok(s is not None, "%dx%d: g comm,dso: the keys' titles, a row of the program figwork" % (w, h))
    if s:
        # The spinners' clock_gettime enters the kernel by several functions:
        # a screen with a [kernel] row of figwork's tells (comm, dso) from symbol.
        s = t.wait(lambda sc: any(re.search(r"\[k\]\s+figwork\s*$", x) for x in tuitest.table_rows(sc)),
                   10) or t.screen()
        fig = [x for x in tuitest.table_rows(s) if re.search(r"\bfigwork\s*$", x)]
        tap.diag("figwork's rows: %r" % fig)
        # How many DSOs figwork's samples touch (its binary, [kernel], [vdso],
        # libc...) is the machine's; perftop's guarantee is one row a pair.
        pairs = [group_pair(x) for x in fig]
        tap.ok(bool(fig) and None not in pairs and len(set(pairs)) == len(pairs),
               "%dx%d: rows by (comm, dso), not by symbol: each figwork row its own "
               "Shared Object (%r)" % (w, h, pairs))
        s = t.wait(lambda sc: ("workload", "workload") in map(group_pair, tuitest.table_rows(sc)), 10)
        wl = [p for p in map(group_pair, tuitest.table_rows(s or t.screen())) if p and p[1] == "workload"]
        tap.ok(s is not None and wl.count(("workload", "workload")) == 1,
               "%dx%d: workload's hot_a, hot_b and hot_c: one row, its (comm, dso) (%r)" % (w, h, wl))
    # B: the table as the baseline, Delta beside it.
    t.keys("B")
    s = t.wait(lambda sc: "Delta" in tuitest.column_titles(sc) and
               any(re.search(r"%\s+\S+\s+[+-]?\d+\.\d\d\s", x) for x in tuitest.table_rows(sc)), 10)
    tap.ok(s is not None, "%dx%d: B: a Delta column of changes in share" % (w, h))
    s = t.wait(lambda sc: any(re.search(r"%\s+\S+\s+[+-]\d+\.\d\d\s", x) for x in tuitest.table_rows(sc)), 10)
    tap.ok(s is not None, "%dx%d: the next interval's rows show signed changes" % (w, h))
    t.quit()
    os.killpg(fw.pid, signal.SIGKILL)


def main():
    why = tuitest.can_run()
    if why:
        tap.skip("task tree, sort keys and baseline in tmux", why)
        tap.done()
    for w, h in ((80, 24), (200, 50)):
        t = tuitest.Tmux(w, h)
        try:
            body(t, w, h)
        finally:
            for p in t.procs:  # the spinners too, however body ended
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
            t.close()
    tap.done()


main()
