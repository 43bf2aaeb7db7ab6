#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 49, htop's keys, at 80x24 and 200x50: Space tags the selected task
and moves down (in the Symbols view it says where it works, and no longer
pauses); Z pauses; Ctrl-U untags; F9 with two tagged processes of ours ends
both; Y tags a process with its child, and F9 ends both; P writes the table
as the text dump to perftop.hist.0, then .1 (never over one); the setup
screen (F2, C) hides a column and picks a colour scheme at once, and q
writes both to perftoprc."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import tuitest
from tuitest import tap

PERFTOP, WORKLOAD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])


def row(screen, pid):
    """The Tasks row of pid ('' if not shown)."""
    return tuitest.line_of(screen, r"^[* ]\s*%d\s" % pid)


def tagged(screen, pid):
    return row(screen, pid).startswith("*")


def gone(pid, secs=10):
    end = time.time() + secs
    while time.time() < end:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (OSError, IndexError):
            return True
        time.sleep(0.1)
    return False


def body(t, w, h, extra):
    sz = "%dx%d" % (w, h)
    name = "hta%d" % (os.getpid() % 1000000)  # our own comm: never another test's workload
    path = os.path.join(t.tmp, name)
    shutil.copy(WORKLOAD, path)
    a, apid = t.workload(path, "split", "6,3,1", "120")
    b, bpid = t.workload(path, "split", "6,3,1", "120")
    t.line("cd %s" % t.tmp)
    _, s = t.live(PERFTOP, "-e", "cpu-clock", "-d", "0.5")
    tap.ok(s is not None, "%s: live view up" % sz)

    # Space in the Symbols view: tags nothing, pauses nothing, says where it works.
    t.keys("Space")
    s = t.wait_re(r"Space tags tasks: Tab to the Tasks view", 5)
    tap.ok(s is not None and "PAUSED" not in s, "%s: Space in Symbols: a hint, no pause" % sz)
    t.keys("Z")
    tap.ok(t.wait_re(r"^ PAUSED  Target:", 5) is not None, "%s: Z pauses" % sz)
    t.keys("Z")
    tap.ok(t.wait(lambda sc: "PAUSED" not in sc, 5) is not None, "%s: Z again resumes" % sz)

    # P: the table as the text dump lays it out, in a new file each time.
    t.keys("P")
    s = t.wait_re(r"table saved to perftop\.hist\.0", 10)
    tap.ok(s is not None, "%s: P names perftop.hist.0 in the message line" % sz)
    try:
        with open(os.path.join(t.tmp, "perftop.hist.0")) as f:
            text = f.read()
    except OSError:
        text = ""
    tap.ok(re.search(r"^perftop - \d\d:\d\d:\d\d  interval", text, re.M) is not None and
           re.search(r"^\s+Overhead\s+Samples\s+Shared Object\s+Symbol", text, re.M) is not None and
           re.search(r"^\s+PID\s", text, re.M) is not None,
           "%s: perftop.hist.0 holds the text dump's header and tables" % sz)
    t.keys("P")
    tap.ok(t.wait_re(r"table saved to perftop\.hist\.1", 10) is not None and
           os.path.getsize(os.path.join(t.tmp, "perftop.hist.0")) == len(text.encode()),
           "%s: P again: perftop.hist.1, the first left as it was" % sz)

    # Tasks, our workloads only, by PID (by share, two equal ones swap places).
    t.keys("Tab")
    t.keys("<")
    t.prompt("/", name)
    s = t.wait(lambda sc: row(sc, apid) and row(sc, bpid), 20)
    tap.ok(s is not None, "%s: both workloads in the Tasks view" % sz)
    t.keys("Home")
    first = [p for p in (apid, bpid) if row(s, p) == tuitest.table_rows(s)[0]] if s else []
    t.keys("Space")
    s = t.wait(lambda sc: tagged(sc, apid) or tagged(sc, bpid), 5)
    tap.ok(s is not None and (not first or tagged(s, first[0])), "%s: Space tags the first row" % sz)
    t.keys("Space")
    s = t.wait(lambda sc: tagged(sc, apid) and tagged(sc, bpid), 5)
    tap.ok(s is not None, "%s: Space again (it moved down): both rows tagged (marked *)" % sz)
    tap.ok(s is not None and re.search(r"filter: %s\s+2 tagged\s+row" % name, s) is not None,
           "%s: the tab line counts them" % sz)
    t.keys("C-u")
    s = t.wait(lambda sc: "2 tags cleared" in sc and not tagged(sc, apid) and not tagged(sc, bpid), 5)
    tap.ok(s is not None, "%s: Ctrl-U untags both" % sz)
    t.keys("Home")
    t.keys("Space")
    t.keys("Space")
    t.wait(lambda sc: tagged(sc, apid) and tagged(sc, bpid), 5)
    t.keys("F9")
    s = t.wait_re(r"(Send 2 tagged tasks which signal \(Enter: 15 TERM|Signal to 2 tagged \(Enter: TERM)", 5)
    tap.ok(s is not None, "%s: F9 asks for the signal of the 2 tagged, TERM by default" % sz)
    t.keys("Enter")
    s = t.wait_re(r"signal 15 \(Terminated\) sent to 2 tagged tasks", 5)
    tap.ok(s is not None, "%s: the message line says both were signalled" % sz)
    tap.ok(gone(apid) and gone(bpid), "%s: both tagged workloads ended" % sz)
    t.keys("C-u")

    # Y: a workload and its child (the shell execs the parent after starting the child).
    fam = t.own(subprocess.Popen(["bash", "-c", "%s split 6,3,1 120 & exec %s split 6,3,1 120" % (path, path)],
                                 stdout=subprocess.PIPE, text=True))
    pids = [int(fam.stdout.readline().split()[1]) for _ in range(2)]
    parent, child = fam.pid, [p for p in pids if p != fam.pid][0]
    extra.append(child)
    s = t.wait(lambda sc: row(sc, parent) and row(sc, child), 20)
    tap.ok(s is not None, "%s: the parent and its child in the Tasks view" % sz)
    t.prompt("F3", str(parent))
    t.keys("Y")
    s = t.wait(lambda sc: tagged(sc, parent) and tagged(sc, child), 5)
    tap.ok(s is not None and "PID %d and its children: 2 rows tagged" % parent in s,
           "%s: Y tags the parent and its child" % sz)
    t.keys("F9")
    t.wait_re(r"2 tagged", 5)
    t.keys("Enter")
    tap.ok(gone(parent) and gone(child), "%s: F9 ends the parent and its child" % sz)
    t.keys("C-u")

    # Setup: hide Samples in the Tasks view, pick monochrome; both at once.
    t.keys("Escape")  # the filter
    t.keys("F2")
    s = t.wait_re(r"perftop setup: changes apply at once", 5)
    tap.ok(s is not None and re.search(r"^Setup\s+Tasks columns$", s, re.M) is not None and
           re.search(r"^Symbols columns\s+\[x\] PID$", s, re.M) is not None,
           "%s: F2 opens the setup on the Tasks columns" % sz)
    t.keys("Down", "Down", "Down", "Space")
    s = t.wait_re(r"\[ \] Samples", 5)
    tap.ok(s is not None, "%s: Space hides Samples" % sz)
    t.keys("Escape")
    s = t.wait_re(r"^\s+PID\s", 5) or ""
    tap.ok("Samples" not in tuitest.line_of(s, r"^\s+PID\s") and "CPU%" in s,
           "%s: the Tasks table without Samples at once" % sz)
    before = t.screen(escapes=True)
    t.keys("C")
    tap.ok(t.wait_re(r"perftop setup", 5) is not None, "%s: C opens the setup too" % sz)
    t.keys("Tab", "Tab", "Down", "Space")
    s = t.wait_re(r"\(\*\) Monochrome", 5)
    tap.ok(s is not None, "%s: Monochrome picked" % sz)
    t.keys("Escape")
    t.wait_re(r"^\s+PID\s", 5)
    after = t.screen(escapes=True)
    colours = re.compile(r"\x1b\[[0-9;]*(3[0-7]|4[0-7])[;m]")
    tap.ok(colours.search(before) is not None and colours.search(after) is None,
           "%s: colours drawn before, none after Monochrome" % sz)
    t.keys("q")
    t.clean_exit("%s: q" % sz)
    try:
        with open(os.path.join(os.environ["XDG_CONFIG_HOME"], "perftop", "perftoprc")) as f:
            rc = f.read()
    except OSError:
        rc = ""
    tap.ok(re.search(r"^colors = monochrome$", rc, re.M) is not None and
           re.search(r"^columns\.tasks = PID,events,CPU%,(?!.*Samples).*COMM$", rc, re.M) is not None,
           "%s: q wrote the scheme and the Tasks columns to perftoprc: %r" % (sz, rc))
    shutil.rmtree(os.environ["XDG_CONFIG_HOME"], ignore_errors=True)


def main():
    why = tuitest.can_run()
    if why:
        tap.skip("htop's keys in tmux", why)
        tap.done()
    for w, h in ((80, 24), (200, 50)):
        # Each size from the start: no last view kept by the one before.
        shutil.rmtree(os.environ["XDG_STATE_HOME"], ignore_errors=True)
        t = tuitest.Tmux(w, h)
        extra = []
        try:
            body(t, w, h, extra)
        finally:
            t.close()
            for pid in extra:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    tap.done()


main()
