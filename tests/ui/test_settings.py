#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 49, settings kept: what is set in the live view (d, c, the sort, a
view) is written to perftoprc at q and read at the next start, the last
view kept apart in the state file; a quit that changed nothing writes
nothing; a hand edit is read and kept (its comment too) when perftop writes
again; a corrupt value is one warning naming file and line, its default
used; --no-config reads and writes none."""
import os
import re
import sys
import time

import tuitest
from tuitest import tap

PERFTOP = os.path.abspath(sys.argv[1])
RC = os.path.join(os.environ["XDG_CONFIG_HOME"], "perftop", "perftoprc")
STATE = os.path.join(os.environ["XDG_STATE_HOME"], "perftop", "state")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def body(t):
    # 1. Set in the live view, quit: kept.
    _, s = t.live(PERFTOP, "-e", "cpu-clock", keep=True)
    tap.ok(s is not None and "Delay: 2s" in s, "no file: the default delay")
    t.prompt("d", "3")
    t.keys("Tab")
    t.keys("c")
    t.keys("<")  # Tasks by PID
    s = t.wait(lambda sc: "Delay: 3s" in sc and re.search(r"cumulative\s+sort: PID", sc), 10)
    tap.ok(s is not None, "d 3, Tab, c, <: Tasks by PID, cumulative, every 3 s")
    t.quit()
    rc = read(RC)
    tap.ok(all(re.search(p, rc, re.M) for p in (r"^delay = 3$", r"^cumulative = yes$", r"^sort\.tasks = PID$")),
           "q wrote delay, cumulative and the Tasks sort: %r" % rc)
    tap.ok(not re.search(r"^(view|select)", rc, re.M), "the last view is not in perftoprc")
    tap.ok(os.path.exists(RC) and os.stat(RC).st_mode & 0o777 == 0o600, "perftoprc is 0600")
    tap.ok(re.search(r"^view = tasks$", read(STATE), re.M) is not None, "the state file keeps the last view")

    # 2. Start again: as left; a quit without change writes nothing.
    mtime = os.stat(RC).st_mtime_ns
    _, s = t.live(PERFTOP, "-e", "cpu-clock", keep=True)
    s = t.wait(lambda sc: "Delay: 3s" in sc and re.search(r"cumulative\s+sort: PID", sc), 10)
    tap.ok(s is not None, "started again: Tasks by PID, cumulative, every 3 s")
    time.sleep(0.05)
    t.quit()
    tap.ok(os.stat(RC).st_mtime_ns == mtime and read(RC) == rc, "q with nothing changed: perftoprc untouched")

    # 3. A hand edit: read, and kept when perftop writes again.
    write(RC, "# mine: keep this\ndelay = 5\nview = cpus\n")
    _, s = t.live(PERFTOP, "-e", "cpu-clock", keep=True)
    s = t.wait(lambda sc: "Delay: 5s" in sc and re.search(r"^\s*CPU\s+Overhead", sc, re.M), 10)
    tap.ok(s is not None, "a hand edit read: every 5 s, in the CPUs view (view = cpus over the last view)")
    t.keys("z")
    t.quit()
    tap.ok(read(RC) == "# mine: keep this\ndelay = 5\nview = cpus\ndecay = yes\n",
           "z, q: the edit and its comment kept, the change added: %r" % read(RC))

    # 3b. What the setup screen writes, read at the start: columns, colours, meters.
    write(RC, "view = tasks\ncolumns.tasks = COMM,PID\ncolors = monochrome\nmeters = cpus\n")
    _, s = t.live(PERFTOP, "-e", "cpu-clock", keep=True)
    s = t.wait_re(r"^\s*COMM\s+PID\s*$", 10)
    tap.ok(s is not None, "columns.tasks = COMM,PID: those two, in that order")
    tap.ok(s is not None and "Load average" not in s and not re.search(r"^cpu-clock\s+on", s, re.M) and
           re.search(r"^\s+0\[", s, re.M) is not None, "meters = cpus: the CPU meters only")
    colours = re.compile(r"\x1b\[[0-9;]*(3[0-7]|4[0-7])[;m]")
    tap.ok(colours.search(t.screen(escapes=True)) is None, "colors = monochrome: no colour drawn")
    t.quit()

    # 3c. Columns of a mode that is off (--off-cpu's Off/s, S/s): read back without
    # a warning, kept in the order, left out of the setup's list.
    write(RC, "view = tasks\ncolumns.tasks = PID,Off/s,S/s,Samples,COMM\n")
    _, s = t.live(PERFTOP, "-e", "cpu-clock", keep=True)
    s = t.wait_re(r"^\s*PID\s+Samples\s+COMM\s*$", 10)
    tap.ok(s is not None and "no column" not in s, "columns.tasks with Off/s, S/s, no --off-cpu: PID Samples COMM")
    t.keys("F2")
    s = t.wait_re(r"\[x\] PID\s*\n.*\[x\] Samples\s*\n.*\[x\] COMM", 5)
    tap.ok(s is not None and "Off/s" not in s and "S/s" not in s,
           "the setup lists PID, Samples, COMM shown, no off-CPU column without --off-cpu")
    t.keys("Down", "Space")
    tap.ok(t.wait_re(r"\[ \] Samples", 5) is not None, "Down, Space: the second listed (Samples) hidden")
    t.keys("Escape")
    t.quit()
    tap.ok(re.search(r"^columns\.tasks = PID,Off/s,S/s,COMM$", read(RC), re.M) is not None,
           "q: the off-CPU columns kept in columns.tasks, Samples gone: %r" % read(RC))

    # 4. A corrupt value: one warning naming file and line, the default used.
    write(RC, "# broken\ndelay = soon\n")
    err = os.path.join(t.tmp, "stderr")
    _, s = t.live(PERFTOP, "-e", "cpu-clock", "2>" + err, keep=True)
    s = t.wait(lambda sc: "Delay: 2s" in sc and "perftoprc:2: delay wants" in sc, 10)
    tap.ok(s is not None, "delay = soon: the default, and the message line names perftoprc:2")
    t.quit()
    lines = read(err).splitlines()
    tap.ok(len(lines) == 1 and re.match(r"perftop: %s:2: delay wants seconds" % re.escape(RC), lines[0]),
           "one warning line on stderr, file and line: %r" % lines)

    # 5. --no-config: the file neither read nor written.
    write(RC, "delay = 5\n")
    _, s = t.live(PERFTOP, "-e", "cpu-clock", "--no-config", keep=True)
    tap.ok(s is not None and t.wait(lambda sc: "Delay: 2s" in sc, 5) is not None, "--no-config: the file not read")
    t.keys("c")
    t.quit()
    tap.ok(read(RC) == "delay = 5\n", "--no-config: nothing written")


tuitest.run("settings kept", body)
