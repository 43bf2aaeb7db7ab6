#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A process whose comm holds escape sequences: the live view shows them
escaped and nothing of them reaches the terminal."""
import subprocess
import sys

import tuitest
from tuitest import tap

# OSC 2 would set the pane title; ED would clear the screen.
HOSTILE = r"""
import sys, time
with open('/proc/self/comm', 'w') as f:
    f.write('\x1b]2;PWNED\x07\x1b[2J')
print('ready', flush=True)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    pass
"""


def main(t):
    perftop = sys.argv[1]
    p = t.own(subprocess.Popen([sys.executable, "-c", HOSTILE, "60"], stdout=subprocess.PIPE,
                               text=True))
    p.stdout.readline()
    with open("/proc/%d/comm" % p.pid, "rb") as f:
        tap.ok(f.read().startswith(b"\x1b]2;PWNED"), "the hostile comm is set")
    title = t.fmt("#{pane_title}")
    t.start(perftop, "-d", "0.5")
    t.wait_re(r"^Target: ", 10)
    t.keys("Tab")
    t.keys("/")
    t.tmux("send-keys", "-t", "t", "-l", "PWNED")
    t.keys("Enter")
    s = t.wait_re(r"^\s+%d\s.*PWNED" % p.pid, 15)
    tap.ok(s is not None, "the hostile task is listed")
    s = s or ""
    tap.ok("\\033]2;PWNED\\a\\033[2J" in s, "its comm is drawn escaped: \\033]2;PWNED\\a\\033[2J")
    raw = t.screen(escapes=True)
    tap.ok("\x1b]2;PWNED" not in raw and "\x07" not in raw, "no OSC or BEL reached the terminal")
    tap.ok(t.fmt("#{pane_title}") == title, "the pane title is unchanged (%r)" % t.fmt("#{pane_title}"))
    tap.ok("Target:" in s and "Tasks" in s, "the screen was not cleared by ESC [2J")
    t.keys("q")
    t.clean_exit("q")


tuitest.run("live view in tmux", main)
