#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""SIGTERM, SIGHUP and SIGINT (Ctrl-C) end the live view with the terminal
restored; F10 quits too; a crash (SIGSEGV, SIGABRT) restores it before dying."""
import os
import signal
import sys

import tuitest
from tuitest import tap


def main(t):
    perftop = sys.argv[1]
    for name, rc in (("SIGTERM", 0), ("SIGHUP", 0), ("SIGINT", 0), ("F10", 0),
                     # under ASan its own report ends the process with 1
                     ("SIGSEGV", (128 + signal.SIGSEGV, 1)), ("SIGABRT", (128 + signal.SIGABRT, 1))):
        pid = t.start(perftop, "-d", "0.5")
        s = t.wait_re(r"^Target: ", 10)
        tap.ok(s is not None and pid is not None, "%s: live view up" % name)
        if name == "SIGINT":
            t.keys("C-c")
        elif name == "F10":
            t.keys("F10")
        elif pid:
            os.kill(pid, getattr(signal, name))
        t.clean_exit(name, rc)


tuitest.run("live view in tmux", main)
