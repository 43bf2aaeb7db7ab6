#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--off-cpu live, at 80x24: O turns it on in a run started without it (no
re-open; on -p, the focused task's waits only), the Tasks view gains Off/s and S/D/R columns, Tab reaches the
Waits view (only while off-CPU is on), which names where waitwork's threads
block; O again turns it off (also right after Esc); the help lists O.
usage: test_offcpu.py PERFTOP WAITWORK"""
import os
import re
import sys

import tuitest
from tuitest import tap

PERFTOP, WAITWORK = sys.argv[1:3]


def body(t):
    wl, wpid = t.workload(WAITWORK, "60")
    t.live(PERFTOP, "-d", "0.5", "-p", str(wpid))
    s = t.screen()
    tap.ok(s is not None and " Waits " not in s, "no Waits tab while off-CPU is off")
    t.keys("O")
    s = t.wait_re(r"off-CPU on", 10)
    tap.ok(s is not None, "O: off-CPU on, said on the message line")
    t.keys("Tab")  # Tasks
    s = t.wait_re(r"Off/s\s+S/s\s+D/s\s+R/s", 10)
    tap.ok(s is not None, "Tasks: the Off/s, S/s, D/s and R/s columns beside CPU%")
    t.keys("Tab", "Tab")  # CPUs, Waits
    s = t.wait_re(r"Off/s\s+Self/s\s+Shared Object\s+Wait symbol", 10)
    tap.ok(s is not None and re.search(r" Waits ", s) is not None, "Tab reaches the Waits view")
    s = t.wait_re(r"\[k\]\s+(do_nanosleep|pipe_read|anon_pipe_read|futex_wait\S*)", 15)
    tap.ok(s is not None, "Waits view: the kernel's wait functions listed by blocked time")
    t.prompt("/", "wait_")
    s = t.wait_re(r"^\s*[\d.]+\s+[\d.]+\s+\S+\s+\[\.\]\s+wait_(sleep|pipe|lock)", 15)
    tap.ok(s is not None, "Waits view: waitwork's wait functions (filter wait_)")
    t.keys("Escape")
    t.prompt("/", "epoll_wait")
    s = t.wait_re(r"0 rows", 10)
    tap.ok(s is not None, "-p: only the focused task's waits (no other process's epoll_wait)")
    t.keys("Escape")
    tap.ok(all(len(line) <= 80 for line in s.splitlines()), "80x24: no line past 80 columns")
    t.keys("O")
    s = t.wait_re(r"off-CPU off", 10)
    tap.ok(s is not None, "O again: off-CPU off")
    t.raw("\x1bO")  # Esc, then O typed at once: one write, no final byte
    s = t.wait_re(r"off-CPU on", 10)
    tap.ok(s is not None, "Esc then O in one write: Esc, then O (not an unknown sequence)")
    s = tuitest.help_find(t, r"^\s*O\s+off-CPU on/off")
    tap.ok(s is not None, "the help lists O")
    t.keys("q")
    t.quit()
    wl.kill()


why = None if tuitest.tracepoint("sched/sched_switch") else "no tracefs with sched:sched_switch (mount -t tracefs nodev /sys/kernel/tracing)"
tuitest.run("--off-cpu in the live view", body, width=80, height=24, why=why)
