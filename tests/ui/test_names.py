#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""M switches C++ names between demangled and raw, live; --no-demangle
starts raw. On the C++ fixture spinning in ns::Foo<int>::bar."""
import subprocess
import sys

import tuitest
from tuitest import tap

DEMANGLED = r"ns::Foo<int>::bar\b"
RAW = r"_ZN2ns3FooIiE3barEv"


def start_fixture(path):
    fx = subprocess.Popen([path, "60"], stdout=subprocess.PIPE, text=True)
    line = fx.stdout.readline().split()
    if len(line) != 2 or line[0] != "ready":
        fx.kill()
        raise RuntimeError("fixture_cxx did not start: %r" % line)
    return fx, int(line[1])


def main(t):
    perftop, fixture = sys.argv[1], sys.argv[3]
    fx, pid = start_fixture(fixture)
    t.own(fx)
    t.start(perftop, "-d", "0.3", "-p", str(pid))
    s = t.wait_re(DEMANGLED, 15)
    tap.ok(s is not None and RAW not in s, "the hot C++ method is shown demangled")
    t.keys("M")
    s = t.wait_re(r"raw symbol names", 5)
    tap.ok(s is not None, "M: the message line says so")
    s = t.wait_re(RAW, 10)
    tap.ok(s is not None, "M: its raw name appears")
    # Demangled rows age out of the interval view once no sample names them so.
    s = t.wait(lambda sc: RAW in sc and "ns::Foo<int>::bar" not in sc, 10)
    tap.ok(s is not None, "M: the demangled row ages out")
    t.keys("M")
    s = t.wait_re(DEMANGLED, 10)
    tap.ok(s is not None, "M again: demangled once more")
    t.keys("q")
    t.clean_exit("after M")
    t.start(perftop, "-d", "0.3", "--no-demangle", "-p", str(pid))
    s = t.wait_re(RAW, 15)
    tap.ok(s is not None and "ns::Foo<int>::bar" not in s, "--no-demangle: raw from the start")
    t.keys("q")
    t.clean_exit("--no-demangle")


tuitest.run("demangling in the live view", main,
            why="no C++ compiler: fixture_cxx was not built" if sys.argv[3] == "-" else None)
