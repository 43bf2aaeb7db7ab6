#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 13, point 1: Ctrl-Z then fg gives the whole terminal back (keypad
mode: Down moves, it does not leave a -p focus); an escape sequence the
terminal description does not know is swallowed, not taken as Esc.
Issue 46, item 13: Ctrl-S does not freeze the screen (flow control off in
the live view, back on after it), before Ctrl-Z and after fg."""
import sys
import time

import tuitest
from tuitest import tap


def ctrl_s(t, what, focus):
    """Ctrl-S, then keys that change the screen: they must still show."""
    t.keys("C-s")
    t.keys("h")
    s = t.wait_re(r"keys\s+\(more in man perftop\)", 10)
    tap.ok(s is not None, "%s: after Ctrl-S, h still opens the help" % what)
    t.keys("Escape")
    s = t.wait_re(focus, 10)
    tap.ok(s is not None and "more in man perftop" not in s, "%s: and Esc closes it" % what)
    t.keys("C-q")  # a terminal left frozen by a failure goes on


def main():
    perftop, workload = sys.argv[1], sys.argv[2]

    def body(t, wpid, w, h):
        focus = r"Target: PID %d\b" % wpid
        # xterm-256color, as the issue had it: keypad sequences differ from screen's
        pid, s = t.live("TERM=xterm-256color " + perftop, "-d", "0.5", "-p", str(wpid), ready=focus)
        tap.ok(s is not None, "%dx%d: -p focus up" % (w, h))
        ctrl_s(t, "%dx%d" % (w, h), focus)
        t.keys("C-z")
        s = t.wait_re(r"Stopped", 10)
        tap.ok(s is not None and "Target:" not in s, "%dx%d: Ctrl-Z stops it, the shell's screen back" % (w, h))
        # the stopped command's '; echo rc' ran already: fg says its own
        t.line("clear; fg; echo rc=$?")
        s = t.wait_re(focus, 10)
        tap.ok(s is not None, "%dx%d: fg: the live view again" % (w, h))
        ctrl_s(t, "%dx%d after fg" % (w, h), focus)
        t.keys("Tab")
        t.keys("Down")
        time.sleep(1.5)
        s = t.screen()
        tap.ok(tuitest.line_of(s, focus) != "", "%dx%d: after fg, Down keeps the focus" % (w, h))
        t.raw("\x1b[99~")   # no terminal's key
        t.raw("\x1b[1;9Z")
        time.sleep(1.5)
        s = t.screen()
        tap.ok(tuitest.line_of(s, focus) != "", "%dx%d: unknown sequences do not act as Esc" % (w, h))
        tap.ok("~" not in tuitest.line_of(s, r"^(Filter|F1)"),
               "%dx%d: nor as keys (no prompt opened, nothing typed)" % (w, h))
        t.quit("q after fg")
    tuitest.each_size(workload, body)


main()
