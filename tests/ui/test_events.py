#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The event panel: Space turns an event off (its column stops growing) and
on again; a per-event exclude flag is flipped there; x shows all six flags."""
import re
import sys
import time

import tuitest
from tuitest import tap


def count(tok):
    m = re.match(r"^(\d+(?:\.\d+)?)([kMG]?)$", tok)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def hot_a(screen):
    """(cpu-clock, task-clock) samples of hot_a in the symbol table."""
    titles = tuitest.column_titles(screen).split()
    if titles[:4] != ["Overhead", "Samples", "cpu-clock", "task-clock"]:
        return None
    for r in tuitest.table_rows(screen):
        tok = r.split()
        if len(tok) >= 7 and tok[6] == "hot_a":
            return count(tok[2]), count(tok[3])
    return None


def event_line(screen, name):
    m = re.search(r"^%s\s+(on|OFF)\s+(\S+)/s\s+excl: (\S+)" % re.escape(name), screen, re.M)
    return m.groups() if m else None


def main(t):
    perftop, workload = sys.argv[1], sys.argv[2]
    _, wpid = t.workload(workload, "split", "6,3,1", "60")
    t.start(perftop, "-d", "0.5", "-e", "cpu-clock,task-clock")
    s = t.wait(lambda sc: hot_a(sc) is not None, 15)
    tap.ok(s is not None, "a column per event: cpu-clock and task-clock")
    t.keys("c")
    tap.ok(t.wait_re(r"cumulative\s+sort:", 5) is not None, "c: cumulative counts")

    t.keys("e")
    s = t.wait_re(r"Events.*\n.*Event\s+State", 5)
    tap.ok(s is not None, "e: the event panel opens")
    tap.ok(s is not None and re.search(r"task-clock\s+on\s", s) is not None, "it lists task-clock, on")
    t.keys("Down")
    t.keys("Space")
    s = t.wait_re(r"task-clock switched off", 5)
    tap.ok(s is not None and re.search(r"task-clock\s+OFF\s", s) is not None, "Space: task-clock OFF")
    t.keys("Escape")
    time.sleep(1.2)  # let the interval in progress end
    a = hot_a(t.screen())
    time.sleep(2.0)
    s = t.screen()
    b = hot_a(s)
    tap.ok(a is not None and b is not None, "hot_a's counts read twice")
    if a and b:
        tap.diag("cpu-clock %s -> %s, task-clock %s -> %s" % (a[0], b[0], a[1], b[1]))
        tap.ok(b[1] == a[1], "task-clock's column stopped growing")
        tap.ok(b[0] > a[0], "cpu-clock's column goes on growing")
    ev = event_line(s, "task-clock")
    tap.ok(ev is not None and ev[0] == "OFF" and ev[1] == "0", "header: task-clock OFF, 0/s (%r)" % (ev,))

    t.keys("e")
    t.wait_re(r"Event\s+State", 5)
    t.keys("Down")
    t.keys("Space")
    tap.ok(t.wait_re(r"task-clock switched on", 5) is not None, "Space again: task-clock on")
    t.keys("k")
    s = t.wait_re(r"task-clock: kernel samples excluded", 5)
    tap.ok(s is not None, "k in the panel: task-clock excludes kernel")
    t.keys("Escape")
    time.sleep(1.2)
    a = hot_a(t.screen())
    time.sleep(1.5)
    s = t.screen()
    b = hot_a(s)
    tap.ok(a and b and b[1] > a[1], "task-clock's column grows again")
    ev = event_line(s, "task-clock")
    tap.ok(ev is not None and ev[0] == "on" and ev[2] == "kernel", "header: task-clock on, excl: kernel")
    ev = event_line(s, "cpu-clock")
    tap.ok(ev is not None and ev[2] == "-", "cpu-clock keeps its own flags")

    t.keys("x")
    s = t.wait_re(r"Exclude \(all events\)", 5) or ""
    flags = re.findall(r"\[(.)\]\s+([ukviog])\s+(\w+)", s)
    tap.ok([f[1] for f in flags] == list("ukviog"), "x: all six flags listed (%s)" %
           " ".join(f[1] for f in flags))
    tap.ok(("~", "k", "kernel") in flags, "x: kernel shown as set on some events")
    t.keys("Escape")
    t.keys("q")
    t.clean_exit("q")


tuitest.run("live view in tmux", main)
