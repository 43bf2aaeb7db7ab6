#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 13, point 10: perftop asks for mouse reports itself; a click on a
tab switches the view, on a title sorts, on a row selects it, the wheel
scrolls, a click on the function bar's F10Quit quits."""
import re
import sys
import time

import tuitest
from tuitest import tap


def main():
    perftop, workload = sys.argv[1], sys.argv[2]

    def body(t, wpid, w, h):
        sz = "%dx%d" % (w, h)
        # xterm-256color: SGR mouse reports (screen's terminfo knows only X10)
        pid, s = t.live("TERM=xterm-256color " + perftop, "-d", "0.5", ready=r"\[\.\] hot_a")
        s = s or ""
        lines = s.splitlines()
        tabs = next((i for i, l in enumerate(lines) if l.startswith(" Symbols ")), None)
        tap.ok(tabs is not None, "%s: the tabs line" % sz)
        tabs = tabs or 0
        t.click(lines[tabs].index("Tasks"), tabs)
        s = t.wait(lambda sc: re.search(r"^\s+PID\s", sc, re.M) is not None, 5)
        tap.ok(s is not None, "%s: a click on Tasks shows the task table" % sz)
        t.click(2, tabs + 1)  # the PID title
        s = t.wait_re(r"sort: PID", 5) or ""
        time.sleep(0.5)
        # The second row, found on the screen as it is now: a tick may
        # re-sort under the pointer or a row above it age out (CI, an ASan
        # build at 60x12: twice "row 1 of 26"), so up to three tries.
        for _ in range(3):
            now = t.screen().splitlines()
            head = next((i for i, l in enumerate(now) if re.match(r"\s+PID\s", l)), tabs + 1)
            t.click(5, head + 2)
            s = t.wait_re(r"row ([2-9]|\d\d+) of \d+", 3)
            if s is not None:
                break
        tap.ok(s is not None, "%s: a click on the second row selects it" % sz)
        t.click(5, tabs + 3, 65)  # wheel down
        s = t.wait(lambda sc: re.search(r"row [3-9]\d* of|row (\d+) of \1\b", sc) is not None, 5)
        tap.ok(s is not None, "%s: the wheel moves the selection" % sz)
        s = t.screen()
        bar = s.splitlines()[-1]
        # press only: a release after the exit would be typed into the shell
        t.click(bar.index("F10Quit") + 1, len(s.splitlines()) - 1, release=False)
        t.clean_exit("%s: a click on F10Quit" % sz)
    tuitest.each_size(workload, body)


main()
