#!/usr/bin/env python3
"""Issue 13, points 2 and 3: Enter on a task gives what -p gives (its exact
counters); the d and F prompts replace the value (shown as a hint), they do
not append to it."""
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
        t.keys("F")
        t.raw("1000")
        t.keys("Enter")
        s = t.wait_re(r"Rate: 1000 Hz|sampling at 1000 Hz\b", 10)
        tap.ok(s is not None, "%dx%d: F 1000 Enter: 1000 Hz, not appended" % (w, h))
        t.keys("d")
        t.raw("0.5")
        t.keys("Enter")
        # Enter on the workload's task: the counters of -p.
        t.keys("Tab")
        t.keys("/")
        t.raw(str(wpid))
        t.keys("Enter")
        t.wait(lambda sc: any(r.split()[:1] == [str(wpid)] for r in tuitest.table_rows(sc)), 10)
        t.keys("Enter")
        if h >= 24:
            s = t.wait_re(r"Counters PID %d\b" % wpid, 15)
            tap.ok(s is not None, "%dx%d: Enter: the focus shows exact counters" % (w, h))
        else:
            s = t.wait_re(r"Target: PID %d\b" % wpid, 15)
            tap.ok(s is not None, "%dx%d: Enter: the focus" % (w, h))
        t.quit("q")
    tuitest.each_size(workload, body)


main()
