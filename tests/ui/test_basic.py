#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perftop's live view in tmux: header and table with the workload's symbol,
K hides kernel rows and says so, help, pause, resize to 40x10 and back, q;
monochrome with NO_COLOR; without -d the live view refreshes every 2 s
(perf top's default), and -n N leaves after N frames, as top's does."""
import os
import re
import sys
import time

import tuitest
from tuitest import tap


def syscw(pid):
    with open("/proc/%d/io" % pid) as f:
        for line in f:
            if line.startswith("syscw:"):
                return int(line.split()[1])
    return None


def frame_writes(pid, secs=2.5):
    """A frame reaches the terminal in one write, not a write per cursor
    move (ncurses 6.4 flushes at each move until the screen has been left
    once: ~100 writes a frame here). perftop's write calls over secs at
    -d 0.5 (5 frames), its eventfd wakeups included, against a bound of
    10 a frame and 20 a second for the rest."""
    a = syscw(pid)
    time.sleep(secs)
    b = syscw(pid)
    frames = secs / 0.5
    bound = int(10 * frames + 20 * secs)
    n = None if a is None or b is None else b - a
    tap.ok(n is not None and n <= bound,
           "the live view writes a frame at once: %s write calls in %.1f s (%d frames), at most %d" %
           (n, secs, frames, bound))


def main(t):
    perftop, workload = sys.argv[1], sys.argv[2]
    _, wpid = t.workload(workload, "split", "6,3,1", "60")
    pid = t.start(perftop, "-d", "0.5")
    tap.ok(pid is not None, "perftop started in the pane")
    s = t.wait_re(r"\[\.\] hot_a\b")
    tap.ok(s is not None, "the table shows the workload's hot_a")
    s = s or ""
    frame_writes(pid)
    tap.ok(re.search(r"^perftop \S+ on \S+ \(Linux \S+\).*\d\d:\d\d:\d\d up ", s, re.M) is not None,
           "title line: host, kernel, clock and uptime")
    tap.ok(re.search(r"Target: system-wide \(\d+ CPUs\)\s+Exclude: none\s+Rate: \d+ Hz\s+Delay: 0.5s",
                     s) is not None, "target, exclude flags, rate and delay in the header")
    tap.ok(re.search(r"^(cpu-clock|cycles)\s+on\s+\d+(\.\d+k)?/s\s+excl: -\s+lost \d+", s, re.M)
           is not None, "one line for the event: on, samples/s, excludes, lost")
    tap.ok(re.search(r"^\s+0\[\|*\s*(\d+\.\d% )?\d+(\.\d+k)?/s\]", s, re.M) is not None, "per-CPU meter")
    tap.ok(re.search(r"^Overhead\s+Samples\s+Shared Object\s+Symbol", s, re.M) is not None,
           "symbol table column titles")
    tap.ok("F1Help" in s and "F10Quit" in s, "function bar")

    # K: kernel samples go, the header says so.
    t.keys("K")
    def no_kernel(sc):
        rows = tuitest.table_rows(sc)
        return "Exclude: kernel" in sc and rows and not any("[k]" in r for r in rows) and \
            "hot_a" in sc
    s = t.wait(no_kernel, 10)
    tap.ok(s is not None, "K: no [k] rows and the header shows Exclude: kernel")
    tap.ok(s is not None and re.search(r"excl: kernel", s) is not None, "K: the event line shows it too")
    time.sleep(1.2)
    s = t.screen()
    tap.ok(not any("[k]" in r for r in tuitest.table_rows(s)), "K: still no [k] rows a second later")
    t.keys("K")
    s = t.wait(lambda sc: "Exclude: none" in sc and "included again" in sc, 10)
    tap.ok(s is not None, "K again: kernel samples included again")

    # Help lists the keys; any key goes back.
    t.keys("h")
    s = t.wait_re(r"keys\s+\(more in man perftop\)", 15) or ""
    seen = s
    # Longer than the screen, the help pages (PgDn): the panels' keys further on.
    for _ in range(4):
        if "Exclude panel (x)" in seen:
            break
        t.keys("NPage")
        time.sleep(0.5)
        seen += t.screen()
    tap.ok(all(k in s for k in ("q F10", "Esc Backspace", "Space Z")) and "Exclude panel (x)" in seen,
           "h: help lists the keys")
    t.keys("Escape")
    tap.ok(t.wait_re(r"^Overhead\s+Samples", 5) is not None, "Esc leaves help")

    # Pause: the header says so; sampling goes on.
    t.keys("Space")
    tap.ok(t.wait_re(r"^ PAUSED  Target:", 5) is not None, "Space: PAUSED in the header")
    t.keys("Z")
    tap.ok(t.wait(lambda sc: "PAUSED" not in sc, 5) is not None, "Z: resumed")

    # Resize below the minimum and back.
    t.resize(40, 10)
    s = t.wait_re(r"terminal too small", 5)
    tap.ok(s is not None, "40x10: 'terminal too small'")
    tap.ok(s is not None and "hot_a" not in s, "40x10: nothing else drawn")
    time.sleep(0.6)
    t.resize(120, 40)
    s = t.wait(lambda sc: "hot_a" in sc and "Target:" in sc and len(sc.splitlines()[0]) > 60, 8)
    tap.ok(s is not None, "back to 120x40: header and table again")
    t.resize(80, 24)
    s = t.wait(lambda sc: "hot_a" in sc and "F1Help" in sc.splitlines()[-1], 8)
    tap.ok(s is not None, "80x24: table and function bar fit")
    t.resize(120, 40)
    try:
        os.kill(pid, 0)
        alive = True
    except OSError:
        alive = False
    tap.ok(alive, "perftop survived the resizes")

    colour = re.compile(r"\x1b\[[0-9;]*(3[0-7]|4[0-7])m")
    tap.ok(colour.search(t.screen(escapes=True)) is not None, "colours by default")
    t.keys("q")
    t.clean_exit("q")

    # NO_COLOR (and --no-color): attributes only.
    t.start("NO_COLOR=1", perftop, "-d", "0.5")
    s = t.wait_re(r"^Target: ", 10)
    raw = t.screen(escapes=True)
    tap.ok(s is not None and colour.search(raw) is None, "NO_COLOR: no colour on the screen")
    t.keys("F10")
    t.clean_exit("NO_COLOR run")

    # No -d: perf top's 2 s; -n 2: two frames, then perftop leaves by
    # itself (not before the second tick, 4 s after the start).
    started = time.monotonic()
    pid = t.start(perftop, "-n", "2")
    s = t.wait_re(r"^Target: ", 10)
    tap.ok(s is not None and re.search(r"Delay: 2s\b", s) is not None,
           "without -d the live view refreshes every 2 s (the header says Delay: 2s)")
    time.sleep(max(0.0, started + 2.5 - time.monotonic()))
    try:
        os.kill(pid, 0)
        alive = True
    except (OSError, TypeError):
        alive = False
    tap.ok(alive, "-n 2: still running 2.5 s after the start (its second frame is due at 4 s)")
    t.clean_exit("-n 2 (left by itself)")

    # A terminal that cannot move the cursor (TERM=dumb) draws no table:
    # refused as an unknown TERM is, one line naming -b, exit 1.
    for term, why in (("dumb", "cannot move the cursor"), ("no-such-term-xyz", "")):
        t.start("TERM=%s" % term, perftop, "-d", "0.5")
        s = t.wait_re(r"^rc=\d+", 15) or ""
        lines = s.splitlines()
        cmd = [i for i, l in enumerate(lines) if "TERM=%s" % term in l and "echo rc" in l]
        out = [l for l in lines[cmd[0] + 1:] if l.strip() and not l.startswith(("rc=", "PROMPT"))] if cmd else []
        tap.diag("TERM=%s: %r" % (term, out))
        tap.ok(len(out) == 1 and "use -b" in out[0] and "TERM=%s" % term in out[0] and why in out[0],
               "TERM=%s: one line that names the terminal and -b" % term)
        t.clean_exit("TERM=%s" % term, 1)

tuitest.run("live view in tmux", main)
