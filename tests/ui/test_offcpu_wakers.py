#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""W under -p (issue 50): the waker of a -p target is often outside it.
waitwork xproc reads its pipe in wait_pipe while another process
(feed_proc, forked before perftop attaches, so not inherited) writes it:
sched_waking fires in feed_proc's context, which a per-task event on the
target never sees. W on the pipe's wait shows "-- woken by --", then
feed_pipe under comm feed_proc; at 80x24 and 200x50. W on the sleep's wait
reaches past the separator too (its timer fires in whatever task runs).
A thread born after W (waitwork xproc late) is woken by feed_proc too.
usage: test_offcpu_wakers.py PERFTOP WAITWORK"""
import os
import re
import subprocess
import sys

import tuitest
from tuitest import tap

PERFTOP, WAITWORK = sys.argv[1:3]
WHO = r"^\s+who woke: callers of \S*%s\s+\(blocked ms/s"
# A tree line: marker, blocked ms/s, % of the line above, name (, file).
LINE = r"[-+ ] +([\d.]+) +[\d.]+%%  %s"


def body(t):
    wl, wpid = t.workload(WAITWORK, "xproc", "90")
    t.live(PERFTOP, "--off-cpu", "-g", "-p", str(wpid), "-d", "0.5")
    t.keys("Tab", "Tab", "Tab")  # Tasks, CPUs, Waits
    s = t.wait_re(r"Off/s\s+Self/s\s+Shared Object\s+Wait symbol", 10)
    tap.ok(s is not None, "-p: Tab reaches the Waits view")
    t.prompt("/", "pipe_read")
    s = t.wait_re(r"\[k\]\s+\S*pipe_read\s*$", 15)
    tap.ok(s is not None, "Waits view: the kernel's pipe read (filter pipe_read)")
    t.resize(200, 50)
    t.keys("W")
    s = t.wait(lambda sc: re.search(WHO % "pipe_read", sc, re.M)
               and re.search(r"-- woken by --  \[waker\]\n(.*\n)*.*" + LINE % r"feed_pipe  waitwork", sc)
               and re.search(LINE % r"comm feed_proc", sc), 20)
    tap.ok(s is not None, "W under -p: -- woken by --, then feed_pipe of another process (comm feed_proc)")
    tap.ok(s is not None and re.search(r"wait_pipe  waitwork\n(.*\n)*.*-- woken by --", s) is not None,
           "W: the woken's own callers (wait_pipe) above the separator")
    tap.ok(s is not None and not re.search(r"comm waitwork", s),
           "the target's pipe has no waker of its own process (feed_pipe is feed_proc's)")
    tap.ok(tuitest.fits(s, 200), "200x50: no line past 200 columns")
    t.resize(80, 24)
    s = t.wait(lambda sc: len(sc.splitlines()) <= 24 and re.search(WHO % "pipe_read", sc, re.M), 10)
    tap.ok(tuitest.fits(s, 80), "80x24: the tree still open, no line past 80 columns")
    t.keys("W", "Escape")
    t.prompt("/", "do_nanosleep")
    s = t.wait_re(r"\[k\]\s+do_nanosleep\s*$", 15)
    tap.ok(s is not None, "Waits view: the kernel's sleep (filter do_nanosleep)")
    t.resize(200, 50)
    t.keys("W")
    # The sleeps' timers fire mostly while another task (or none) runs: a
    # per-task sched_waking saw a few of them, the wake tree a sliver of
    # the row's blocked time (56 of 3083 ms/s here); filtered per CPU, most.
    row_re = re.compile(r"^\s+([\d.]+)\s+[\d.]+ \[kernel\]\s+\[k\] do_nanosleep\s*$", re.M)
    top_re = re.compile(r"^\s+[-+ ]\s+([\d.]+) +100.00%  hrtimer_nanosleep", re.M)

    def most(sc):
        row, top = row_re.search(sc), top_re.search(sc)
        return re.search(WHO % "do_nanosleep", sc, re.M) and row and top and \
            float(top.group(1)) >= 0.5 * float(row.group(1))
    s = t.wait(most, 20)
    last = t.screen()
    row, top = row_re.search(s or last), top_re.search(s or last)
    tap.ok(s is not None, "W on do_nanosleep under -p: most of its blocked time has its waker (%s of %s ms/s)"
           % (top.group(1) if top else "-", row.group(1) if row else "-"))
    t.keys("W")
    t.quit()
    wl.kill()
    late(t)


def late(t):
    """A thread born after W opened sched_waking (its filter lists the
    target's threads): wait_pipe and its feeding start at a line on
    waitwork's stdin; the engine re-opens the filter at the next tick."""
    wl = subprocess.Popen([WAITWORK, "xproc", "late", "90"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True)
    t.own(wl)
    wpid = int(wl.stdout.readline().split()[1])
    t.live(PERFTOP, "--off-cpu", "-g", "-p", str(wpid), "-d", "0.5")
    t.keys("Tab", "Tab", "Tab")
    t.prompt("/", "do_nanosleep")
    s = t.wait_re(r"\[k\]\s+do_nanosleep\s*$", 15)
    t.keys("W")
    s = t.wait_re(WHO % "do_nanosleep", 10)
    tap.ok(s is not None and not re.search(r"pipe_read", s), "late: W opened before wait_pipe is born")
    t.keys("W", "Escape")
    wl.stdin.write("late\n")
    wl.stdin.flush()
    t.prompt("/", "pipe_read")
    s = t.wait_re(r"\[k\]\s+\S*pipe_read\s*$", 15)
    tap.ok(s is not None, "late: wait_pipe born, its pipe read a wait row")
    t.keys("W")
    s = t.wait(lambda sc: re.search(WHO % "pipe_read", sc, re.M) and re.search(LINE % r"comm feed_proc", sc), 20)
    tap.ok(s is not None, "late: W shows feed_proc waking a thread born after sched_waking was opened")
    t.keys("W")
    t.quit()
    wl.kill()


why = None if tuitest.tracepoint("sched/sched_waking") else "no tracefs with sched:sched_waking (mount -t tracefs nodev /sys/kernel/tracing)"
tuitest.run("W under -p: wakers outside the target", body, width=80, height=24, why=why)
