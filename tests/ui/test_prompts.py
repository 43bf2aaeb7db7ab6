#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 13, points 2 and 3: Enter on a task gives what -p gives (its exact
counters); the d and F prompts replace the value (shown as a hint), they do
not append to it. Issue 46, item 12: Esc closes the filter, then keeps a
-p target given on the command line (S leaves it, the help says so); a
focus entered with Enter is still left with Esc."""
import re
import sys

import tuitest
from tuitest import tap


def main():
    perftop, workload = sys.argv[1], sys.argv[2]

    def body(t, wpid, w, h):
        pid, s = t.live(perftop, "-d", "0.1")
        tap.ok(s is not None, "%dx%d: live view up" % (w, h))
        t.keys("d")
        s = t.wait_re(r"now 0\.1\b", 5)
        tap.ok(s is not None, "%dx%d: d shows the value now as a hint" % (w, h))
        t.raw("5")
        t.keys("Enter")
        s = t.wait_re(r"Delay: 5s|refresh every 5 s", 5)
        tap.ok(s is not None, "%dx%d: d 5 Enter: 5 s, not 0.15" % (w, h))
        t.keys("d")
        t.keys("Enter")
        t.keys("d")
        s = t.wait_re(r"now 5\)", 5)
        t.keys("Escape")
        tap.ok(s is not None, "%dx%d: d Enter with nothing typed keeps 5 s" % (w, h))
        t.prompt("F", "1000")
        s = t.wait_re(r"Rate: 1000 Hz|sampling at 1000 Hz\b", 10)
        tap.ok(s is not None, "%dx%d: F 1000 Enter: 1000 Hz, not appended" % (w, h))
        t.prompt("d", "0.5")
        # Enter on the workload's task: the counters of -p.
        t.keys("Tab")
        t.prompt("/", str(wpid))
        t.wait(lambda sc: any(r.split()[:1] == [str(wpid)] for r in tuitest.table_rows(sc)), 10)
        t.keys("Enter")
        if h >= 24:
            s = t.wait_re(r"Counters PID %d\b" % wpid, 15)
            tap.ok(s is not None, "%dx%d: Enter: the focus shows exact counters" % (w, h))
        else:
            s = t.wait_re(r"Target: PID %d\b" % wpid, 15)
            tap.ok(s is not None, "%dx%d: Enter: the focus" % (w, h))
        t.quit("q")

    def focus_keys(t, wpid, w, h):
        focus = r"Target: PID %d\b" % wpid
        pid, s = t.live(perftop, "-d", "0.5", "-p", str(wpid), ready=focus)
        tap.ok(s is not None, "%dx%d: -p focus up" % (w, h))
        t.keys("Tab")
        t.prompt("/", str(wpid))
        s = t.wait_re(r"filter: %d" % wpid, 10)
        t.keys("Escape")
        s = t.wait(lambda sc: "filter: %d" % wpid not in sc, 10)
        tap.ok(s is not None and re.search(focus, s) is not None,
               "%dx%d: Esc clears the filter, the -p target stays" % (w, h))
        t.keys("Escape")
        s = t.wait_re(r"target stays \(S: system-wide\)", 10)
        tap.ok(s is not None and re.search(focus, s) is not None,
               "%dx%d: Esc again keeps the command line's -p and names S" % (w, h))
        s = tuitest.help_find(t, r"^\s*S\s+system-wide: leave a -p")
        tap.ok(s is not None, "%dx%d: the help shows S" % (w, h))
        t.keys("Escape")
        t.wait_re(r"^Target: ", 10)
        t.keys("S")
        s = t.wait_re(r"Target: system-wide", 15)
        tap.ok(s is not None, "%dx%d: S: system-wide" % (w, h))
        # A focus entered with Enter: Esc leaves it.
        t.prompt("/", str(wpid))
        t.wait(lambda sc: any(r.split()[:1] == [str(wpid)] for r in tuitest.table_rows(sc)), 10)
        t.keys("Enter")
        s = t.wait_re(focus, 15)
        tap.ok(s is not None, "%dx%d: Enter: the focus" % (w, h))
        t.keys("Escape")  # the filter
        t.wait(lambda sc: "filter: %d" % wpid not in sc, 10)
        t.keys("Escape")  # the focus
        s = t.wait_re(r"Target: system-wide", 15)
        tap.ok(s is not None, "%dx%d: Esc leaves a focus entered with Enter" % (w, h))
        t.quit("q")

    def both(t, wpid, w, h):
        body(t, wpid, w, h)
        focus_keys(t, wpid, w, h)
    tuitest.each_size(workload, both)


main()
