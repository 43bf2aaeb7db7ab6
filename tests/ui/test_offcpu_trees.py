#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Waits view's call trees (issue 50): --off-cpu -g system-wide, Enter
focuses on waitwork (its waits only), Tab to the Waits view; Enter on the
kernel's sleep function opens its callers by blocked ms, Right walks them
down to waitwork's wait_sleep; r shows callees and back; the tree stays
under its row through a resize (80x24 to 200x50); Esc closes it, Esc again
clears the filter; F5 in the Waits view is the wait agg's whole tree (only
the focused task's comm) and Esc goes back; W on the pipe's wait shows its waker
(feed_pipe) past "-- woken by --"; the help tells both.
usage: test_offcpu_trees.py PERFTOP WAITWORK"""
import os
import re
import sys
import time

import tuitest
from tuitest import tap

PERFTOP, WAITWORK = sys.argv[1:3]
SLEEP = r"do_nanosleep"
CALLERS = r"^\s+callers of " + SLEEP + r"\s+\(blocked ms/s"
# A tree line: marker, blocked ms/s, % of the line above, name, file.
WAIT_SLEEP = r"^\s+[-+ ] +[\d.]+ +[\d.]+%  wait_sleep  waitwork"


def walk_to(t, pattern, presses=30):
    """Right, again and again (into the tree, expand, down to the first
    child) until pattern shows; the screen, or None."""
    for _ in range(presses):
        t.keys("Right")
        end = time.time() + 1
        while time.time() < end:
            s = t.screen()
            if re.search(pattern, s, re.M):
                return s
            time.sleep(0.2)
    tap.diag("not found; the screen was:\n" + t.screen())
    return None


def body(t):
    wl, wpid = t.workload(WAITWORK, "90")
    t.live(PERFTOP, "--off-cpu", "-g", "-d", "0.5")
    t.keys("Tab")  # Tasks
    t.wait_re(r"^\s*PID\s", 10)
    t.prompt("/", "waitwork")
    s = t.wait_re(r"^\s*%d\s.*waitwork" % wpid, 15)
    tap.ok(s is not None, "Tasks: waitwork's row")
    t.keys("Enter")
    s = t.wait_re(r"^Target: PID %d" % wpid, 15)
    tap.ok(s is not None, "Enter: focused on waitwork")
    t.keys("Tab", "Tab")  # CPUs, Waits
    s = t.wait_re(r"Off/s\s+Self/s\s+Shared Object\s+Wait symbol", 10)
    tap.ok(s is not None, "Tab reaches the Waits view")
    t.prompt("/", "do_nanosleep")
    s = t.wait_re(r"\[k\]\s+do_nanosleep\s*$", 15)
    tap.ok(s is not None, "Waits view: the kernel's sleep function (filter do_nanosleep)")
    t.keys("Enter")
    s = t.wait_re(CALLERS, 10)
    tap.ok(s is not None, "Enter on a wait row: its callers, in blocked ms/s")
    s = walk_to(t, WAIT_SLEEP)
    tap.ok(s is not None, "Right: waitwork's wait_sleep among the callers of the kernel's sleep")
    tap.ok(tuitest.fits(s, 80), "80x24: no line past 80 columns")
    t.resize(200, 50)
    s = t.wait(lambda sc: len(sc.splitlines()) >= 50 and re.search(CALLERS, sc, re.M)
               and re.search(WAIT_SLEEP, sc, re.M), 10)
    tap.ok(s is not None, "resized to 200x50: the tree still open, wait_sleep on it")
    tap.ok(tuitest.fits(s, 200), "200x50: no line past 200 columns")
    t.keys("r")
    s = t.wait_re(r"^\s+callees of " + SLEEP + r"\s+\(blocked ms/s", 10)
    tap.ok(s is not None, "r: the callees")
    t.keys("r")
    s = t.wait_re(CALLERS, 10)
    tap.ok(s is not None, "r again: the callers")
    t.keys("Escape")
    s = t.wait(lambda sc: re.search(r"\[k\]\s+" + SLEEP, sc, re.M) and not re.search(CALLERS, sc, re.M), 10)
    tap.ok(s is not None and "filter: do_nanosleep" in s, "Esc: the tree closed, the filter kept")
    t.keys("Escape")
    s = t.wait(lambda sc: "filter: do_nanosleep" not in sc and re.search(r"Wait symbol", sc), 10)
    tap.ok(s is not None, "Esc again: the filter cleared, still the Waits view")
    t.keys("F5")
    s = t.wait_re(r"^ Wait paths \(F5\): blocked ms", 10)
    tap.ok(s is not None and re.search(r"all waits \(blocked ms/s\)", s), "F5 in the Waits view: the wait paths")
    comms = re.findall(r"\bcomm (\S+)", s or "")
    tap.ok(comms != [] and all(c == "waitwork" for c in comms),
           "F5 after Enter-focus: the focused task's waits only (comms %s)" % comms)
    t.resize(80, 24)
    s = t.wait(lambda sc: len(sc.splitlines()) <= 24 and sc.startswith(" Wait paths"), 10)
    tap.ok(tuitest.fits(s, 80), "resized back to 80x24 with F5 open: no line past 80 columns")
    t.keys("Escape")
    s = t.wait_re(r"Off/s\s+Self/s\s+Shared Object\s+Wait symbol", 10)
    tap.ok(s is not None, "Esc: back to the Waits view")
    # W: who woke it. wait_pipe blocks in the kernel's pipe read until
    # feed_pipe writes: its waker's stack, past the separator (25 lines:
    # seen whole at 200x50).
    t.prompt("/", "pipe_read")
    s = t.wait_re(r"\[k\]\s+\S*pipe_read\s*$", 15)
    tap.ok(s is not None, "Waits view: the kernel's pipe read (filter pipe_read)")
    t.resize(200, 50)
    t.keys("W")
    s = t.wait(lambda sc: re.search(r"^\s+who woke: callers of \S*pipe_read\s+\(blocked ms/s", sc, re.M)
               and re.search(r"-- woken by --  \[waker\]\n(.*\n)*.*[-+ ] +[\d.]+ +[\d.]+%  feed_pipe  waitwork", sc),
               15)
    tap.ok(s is not None, "W on the pipe's wait: -- woken by --, then feed_pipe (the waker's stack)")
    tap.ok(s is not None and re.search(r"wait_pipe  waitwork\n(.*\n)*.*-- woken by --", s) is not None,
           "W: the woken's own callers (wait_pipe) above the separator")
    tap.ok(tuitest.fits(s, 200), "W's tree at 200x50: no line past 200 columns")
    t.resize(80, 24)
    s = t.wait(lambda sc: len(sc.splitlines()) <= 24 and re.search(r"^\s+who woke: callers", sc, re.M), 10)
    tap.ok(tuitest.fits(s, 80), "W's tree at 80x24: still open, no line past 80 columns")
    t.keys("W")
    s = t.wait(lambda sc: not re.search(r"^\s+who woke: callers", sc, re.M), 10)
    tap.ok(s is not None, "W again: closed")
    t.keys("Escape")
    s = tuitest.help_find(t, r"^\s*Waits view\s+a wait's trees too")
    tap.ok(s is not None, "the help tells the Waits view's trees")
    tap.ok(s is not None and re.search(r"^\s*W\s+Waits: who woke it", s, re.M) is not None, "the help tells W")
    t.keys("Escape")
    t.quit()
    wl.kill()


why = None if tuitest.tracepoint("sched/sched_switch") else "no tracefs with sched:sched_switch (mount -t tracefs nodev /sys/kernel/tracing)"
tuitest.run("the Waits view's call trees", body, width=80, height=24, why=why)
