#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Call graphs in the live view (-g), on the workload of a known tree
(tests/live/cgwork.c: main -> caller_a -> hot 3 parts, main -> caller_b -> hot
1 part, main -> lone 1 part): Children and Self columns, sorting by either,
the inline call tree (Right opens it, callers first, r flips to callees,
levels expand and collapse, Left closes, it follows its symbol across
refreshes), F5's whole call-path tree and back, a click on the marker.

usage: test_callgraph.py PERFTOP WORKLOAD CGWORK_FP"""
import re
import sys
import time

import tuitest
from tuitest import tap

ROW = re.compile(r"^([+-])\s*(\d+\.\d\d)%\s+(\d+\.\d\d)%\s+\S+\s+\S+\s+\[[.k]\] (\S+)")


def rows(screen):
    """(marker, children, self, symbol) of each symbol row, in screen order."""
    out = []
    for l in screen.splitlines():
        m = ROW.match(l)
        if m:
            out.append((m.group(1), float(m.group(2)), float(m.group(3)), m.group(4)))
    return out


def names(screen):
    return [r[3] for r in rows(screen)]


def tree(screen, title):
    """The inline tree under its row: (line above the title, [(indent, name)])."""
    lines = screen.splitlines()
    for i, l in enumerate(lines):
        if l.strip().startswith(title):
            out = []
            for x in lines[i + 1:]:
                m = re.match(r"^(\s+)[-+ ] +\d+\.\d\d% +\d+\.\d\d%  (?:comm )?(\S+)", x)
                if not m:
                    break
                out.append((len(m.group(1)), m.group(2)))
            return lines[i - 1], out
    return None, []


def clock(screen):
    m = re.search(r"(\d\d):(\d\d):(\d\d) up", screen)
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) if m else None


def search(t, text):
    """F3: the first row matching text from the top is selected."""
    t.keys("F3")
    t.raw(text)
    t.keys("Enter")
    time.sleep(0.3)


def main(t):
    perftop, cgwork = sys.argv[1], sys.argv[3]
    _, wpid = t.workload(cgwork, "120")
    # xterm-256color: SGR mouse reports, for the click at the end
    t.start("TERM=xterm-256color " + perftop, "-g", "-d", "1", "-p", str(wpid))
    s = t.wait(lambda sc: {"hot", "caller_a", "caller_b", "main"} <= set(names(sc)), 20) or ""
    tap.ok(s != "", "-g: the workload's hot, caller_a, caller_b and main rows")
    tap.ok(re.search(r"^\s*Children\s+Self\s+Samples\s+Shared Object\s+Symbol", s, re.M) is not None,
           "-g: Children and Self column titles (no Overhead)")
    tap.ok("sort: Children" in s, "-g: sorted by Children by default")
    n = names(s)
    # main's children hold every stack of the workload; hot's only its own.
    tap.ok("main" in n and "hot" in n and n.index("main") < n.index("hot"),
           "Children order: main above hot (%s)" % n[:6])
    main_row = [r for r in rows(s) if r[3] == "main"]
    tap.ok(main_row and main_row[0][2] < 1.0 and main_row[0][1] > 50.0,
           "main: children most of the samples, self almost none (%r)" % main_row)

    t.keys(">")
    s = t.wait(lambda sc: "sort: Self" in sc and names(sc)[:1] == ["hot"], 10)
    tap.ok(s is not None, "> : sorted by Self, hot first")
    t.keys("<")
    s = t.wait(lambda sc: "sort: Children" in sc and "main" in names(sc)[:3], 10)
    tap.ok(s is not None, "< : by Children again")

    search(t, "hot")
    t.keys("Right")
    s = t.wait(lambda sc: len(tree(sc, "callers of hot")[1]) >= 2, 10) or ""
    above, lines = tree(s, "callers of hot")
    callers = [x[1] for x in lines]
    tap.ok(above is not None and ROW.match(above) and ROW.match(above).group(4) == "hot"
           and ROW.match(above).group(1) == "-",
           "Right: the tree opens under hot's row, marked -")
    tap.ok(callers[:2] == ["caller_a", "caller_b"],
           "callers of hot: caller_a (3 parts) above caller_b (1 part) (%s)" % callers)

    # Refreshes: the tree stays under hot, wherever hot sorts.
    c0 = clock(s)
    s = t.wait(lambda sc: clock(sc) is not None and c0 is not None and clock(sc) - c0 >= 3, 15) or ""
    above, lines = tree(s, "callers of hot")
    tap.ok(above is not None and ROW.match(above) and ROW.match(above).group(4) == "hot" and
           [x[1] for x in lines][:2] == ["caller_a", "caller_b"],
           "after refreshes the tree still hangs under hot with both callers")

    # A level deeper: caller_a's own caller is main.
    t.keys("Down", "Down", "Right")
    s = t.wait(lambda sc: any(x[1] == "main" for x in tree(sc, "callers of hot")[1]), 10) or ""
    lines = tree(s, "callers of hot")[1]
    ia = [i for i, x in enumerate(lines) if x[1] == "caller_a"]
    tap.ok(ia and ia[0] + 1 < len(lines) and lines[ia[0] + 1][1] == "main" and
           lines[ia[0] + 1][0] > lines[ia[0]][0],
           "Right on caller_a: main under it, indented (%s)" % lines)
    t.keys("Left")
    s = t.wait(lambda sc: tree(sc, "callers of hot")[1] and
               not any(x[1] == "main" for x in tree(sc, "callers of hot")[1]), 10)
    tap.ok(s is not None, "Left: caller_a collapsed")
    t.keys("Left", "Left")
    s = t.wait(lambda sc: "callers of hot" not in sc and "hot" in names(sc), 10)
    tap.ok(s is not None, "Left, Left: up to the root line, then the tree closes")
    tap.ok(s is not None and [r for r in rows(s) if r[3] == "hot"][0][0] == "+", "hot's marker is + again")

    # Callees: caller_a calls hot.
    search(t, "caller_a")
    t.keys("Enter")
    s = t.wait(lambda sc: "main" in [x[1] for x in tree(sc, "callers of caller_a")[1]], 10)
    tap.ok(s is not None, "Enter on caller_a: its callers tree (main)")
    t.keys("r")
    s = t.wait(lambda sc: "hot" in [x[1] for x in tree(sc, "callees of caller_a")[1]], 10) or ""
    tap.ok(s != "" and "callers of caller_a" not in s, "r: callees of caller_a (hot)")
    t.keys("Left")
    s = t.wait(lambda sc: "callees of caller_a" not in sc and "caller_a" in names(sc), 10)
    tap.ok(s is not None, "Left on the symbol row closes the tree")

    # F5: the whole call-path tree, the hottest path open.
    t.keys("F5")
    s = t.wait(lambda sc: "Call paths (F5)" in sc and re.search(r"comm cgwork", sc) and
               re.search(r"\d%  main\b", sc) and re.search(r"\d%  hot\b", sc), 10) or ""
    tap.ok(s != "", "F5: the call-path tree: the comm, main, down to hot")
    tap.ok("EscBack" in s.splitlines()[-1] if s else False, "F5: its own function bar")
    # hot spends its time in itself: what it calls (an interrupt's kernel
    # frames, say) is a sliver, and the path ends at it, closed.
    hot = re.search(r"^\s+([-+ ]) +\d+\.\d\d% +\d+\.\d\d%  hot\b", s, re.M)
    tap.ok(hot is not None and hot.group(1) != "-",
           "F5: the hottest path ends at hot, its self the most (marker %r)" % (hot.group(1) if hot else None))
    t.keys("Escape")
    s = t.wait(lambda sc: "Call paths" not in sc and re.search(r"^\s*Children\s+Self", sc, re.M), 10)
    tap.ok(s is not None, "Esc: back to the table")

    # The mouse: a click on a row's marker opens its tree.
    s = t.screen()
    ys = [i for i, l in enumerate(s.splitlines()) if ROW.match(l) and ROW.match(l).group(4) == "lone"]
    if ys:
        t.click(0, ys[0])
        s = t.wait(lambda sc: "callers of lone" in sc, 10)
        tap.ok(s is not None and "main" in [x[1] for x in tree(s, "callers of lone")[1]],
               "a click on lone's marker opens its tree (main)")
    else:
        tap.ok(False, "lone's row on screen for the click")
    t.keys("q")
    t.clean_exit("q")


tuitest.run("call graphs in the live view", main, width=120, height=50)
