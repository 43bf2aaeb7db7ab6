#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 46, the tried-as-a-new-user pass: what it found on screen.
At 60x12 a panel keeps its bottom border (the message line hid it) and a
comm too long for its column ends in '~'; in an empty Tasks view Enter does
not say "Tab to the Tasks view"; F5's title at 80x24 is cut after a whole
word, marked, not mid-word; --threads starts the Tasks view with thread rows."""
import re
import subprocess
import sys

import tuitest
from tuitest import tap


def small(t, perftop, wpid):
    """60x12, -p on the duty workload (threads busy_full, busy_quarter)."""
    pid, s = t.live(perftop, "-d", "0.5", "-p", str(wpid), ready=r"Target: PID %d\b" % wpid)
    tap.ok(s is not None, "60x12: -p focus up")
    t.keys("x")
    s = t.wait_re(r"Exclude \(all events\)", 10)
    lines = (s or "").splitlines()
    border = [i for i, l in enumerate(lines) if "\u2514" in l or re.search(r"^\s*\+-+\+", l)]
    tap.ok(bool(border) and border[-1] < len(lines) - 2,
           "60x12: the exclude panel's bottom border shows above the message line")
    t.keys("Escape")
    t.keys("Tab")
    t.keys("H")
    s = t.wait(lambda sc: any("busy_qua" in r for r in tuitest.table_rows(sc)), 15)
    row = [r for r in tuitest.table_rows(s or "") if "busy_qua" in r]
    tap.ok(bool(row) and (row[0].rstrip().endswith("busy_quarter") or row[0].rstrip().endswith("~")),
           "60x12: a comm cut short ends in ~ (%r)" % (row[0] if row else None))
    t.prompt("/", "no-such-task-here")
    s = t.wait_re(r"no rows match", 10)
    t.keys("Enter")
    s = t.wait_re(r"^Enter focuses on a task", 10)
    tap.ok(s is not None and "Tab to the Tasks view" not in s,
           "60x12: Enter on an empty Tasks view says why, not 'Tab to the Tasks view'")
    t.quit("q")


def threads_option(t, perftop, wpid):
    """--threads: the Tasks view starts with a row per thread, as H gives."""
    pid, s = t.live(perftop, "--threads", "-d", "0.5", "-p", str(wpid), ready=r"Target: PID %d\b" % wpid)
    tap.ok(s is not None, "--threads: -p focus up")
    t.keys("Tab")
    s = t.wait(lambda sc: any("busy_qua" in r for r in tuitest.table_rows(sc)), 15)
    tap.ok(s is not None, "--threads: the thread rows show without H (busy_quarter's row)")
    t.quit("q")


def paths(t, perftop, cgwork):
    p = t.own(subprocess.Popen([cgwork, "120"], stdout=subprocess.DEVNULL))
    pid, s = t.live(perftop, "-g", "-d", "0.5", "-p", str(p.pid), ready=r"Target: PID %d\b" % p.pid)
    tap.ok(s is not None, "80x24: -g focus up")
    t.wait_re(r"\] hot\b", 15)
    t.keys("F5")
    s = t.wait_re(r"^ Call paths \(F5\)", 10)
    title = (s or "").splitlines()[0].rstrip() if s else ""
    tap.ok(title.endswith("Esc back") or title.endswith("~"),
           "80x24: F5's title is whole or cut after a word and marked (%r)" % title[-20:])
    t.keys("Escape")
    t.quit("q")


def main():
    perftop, workload, cgwork = sys.argv[1], sys.argv[2], sys.argv[3]
    why = tuitest.can_run()
    if why:
        tap.skip("live view in tmux", why)
        tap.done()
    t, wl, wpid = tuitest.workload_session(workload, 60, 12, "duty", "120")
    try:
        small(t, perftop, wpid)
        threads_option(t, perftop, wpid)
    finally:
        tuitest.teardown(t, wl)
    t = tuitest.Tmux(80, 24)
    try:
        paths(t, perftop, cgwork)
    finally:
        t.close()
    tap.done()


main()
