#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 49, item 5's srcline in the live view, at 80x24 and 200x50: g
srcline makes the Symbols view's rows source lines (divwork's divide line
among them, named as perf does: file:line); --sort sym,srcline --hierarchy
folds the lines under their function (Right opens hotfn: its lines).

usage: test_srcline_ui.py PERFTOP DIVWORK DIVWORK_SOURCE
"""
import os
import re
import signal
import subprocess
import sys

import tuitest
from tuitest import tap

PERFTOP, DIVWORK, SOURCE = sys.argv[1:4]


def divide_line():
    with open(SOURCE) as f:
        for n, line in enumerate(f, 1):
            if "DIVIDE" in line and "/" in line.split("/*")[0]:
                return n
    return 0


def has_row(sc, pattern):
    return any(re.search(pattern, x) for x in tuitest.table_rows(sc))


def body(t, w, h, want):
    wl = t.own(subprocess.Popen([DIVWORK, "120"], stdout=subprocess.PIPE, text=True, start_new_session=True))
    pid = int(wl.stdout.readline().split()[1])
    t.live(PERFTOP, "-d", "1", "-e", "cpu-clock", "-p", str(pid))
    t.prompt("g", "srcline")
    s = t.wait(lambda sc: has_row(sc, re.escape(want) + r"\s*$"), 20)
    tap.ok(s is not None, "%dx%d: g srcline: a row of the divide's line %s" % (w, h, want))
    if s is None:
        tap.diag(t.screen())
    t.quit()
    t.live(PERFTOP, "-d", "1", "-e", "cpu-clock", "-p", str(pid), "--sort", "sym,srcline", "--hierarchy")
    s = t.wait(lambda sc: has_row(sc, r"\bhotfn\s*$"), 20)
    tap.ok(s is not None and not has_row(s, re.escape(want)),
           "%dx%d: --sort sym,srcline --hierarchy: hotfn's line, folded" % (w, h))
    t.prompt("/", "hotfn")
    t.keys("Right")
    s = t.wait(lambda sc: has_row(sc, re.escape(want) + r"\s*$"), 10)
    tap.ok(s is not None, "%dx%d: Right opens hotfn: its line %s under it" % (w, h, want))
    if s is None:
        tap.diag(t.screen())
    t.quit()
    os.killpg(wl.pid, signal.SIGKILL)


def main():
    why = tuitest.can_run()
    if why:
        tap.skip("srcline in the live view", why)
        tap.done()
    want = "%s:%d" % (os.path.basename(SOURCE), divide_line())
    for w, h in ((80, 24), (200, 50)):
        t = tuitest.Tmux(w, h)
        try:
            body(t, w, h, want)
        finally:
            for p in t.procs:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
            t.close()
    tap.done()


if __name__ == "__main__":
    main()
