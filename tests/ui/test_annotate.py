#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 47: the live annotate view (a), at 80x24 and 200x50, on a workload
of ours (tests/ui/annowork.c: divloop spends its time in a divide, calls
mix each 16th turn and jumps back to its head). a on divloop's row opens
it with the hottest line selected; Tab and S-Tab walk the hot lines; Enter
on the call opens mix, Esc comes back; Enter on a jump selects its target
with the arrow drawn; s, S, o, t, / and a resize while open; the mouse;
the help's section. Run with NO_COLOR: the selected line is the only list
line in reverse video. Then a stripped copy, deleted while it runs, and a
on a call-tree line (-g).

usage: test_annotate.py PERFTOP ANNOWORK"""
import os
import re
import shutil
import subprocess
import sys
import time

import tuitest
from tuitest import tap

SGR = re.compile(r"\x1b\[[0-9;]*m")
# " 12.34 ,->    2b:  divq %r12": the share in columns 0-6 (blank: none),
# the jump's arrow in 7-9, then the offset (or address and bytes) and text
WHERE = re.compile(r"^\s*([0-9a-f]+):  (.*\S)\s*$")


def listing(raw):
    """The list's lines below the column titles: (selected, share or 0.0,
    gutter, offset, text) for each instruction line; source lines as
    (selected, None, '', None, text)."""
    out = []
    lines = raw.splitlines()
    head = next((i for i, l in enumerate(lines) if re.search(r"(Share|Of all) +(Offset|Address|Line)", SGR.sub("", l))),
                None)
    if head is None:
        return out
    for l in lines[head + 1:-2]:
        sel = "\x1b[7m" in l
        text = SGR.sub("", l)
        if not text.strip():
            continue
        share, gutter, rest = text[0:7].strip(), text[7:10], text[10:]
        m = WHERE.match(rest)
        if m and re.fullmatch(r"(\d+\.\d\d)?", share):
            out.append((sel, float(share or 0), gutter, int(m.group(1), 16), m.group(2)))
        else:
            out.append((sel, None, "", None, text.strip()))
    return out


def selected(t):
    ls = listing(t.screen(escapes=True))
    sel = [x for x in ls if x[0]]
    return (sel[0] if sel else None), ls


def wait_counts(t, secs=20):
    """Until the list shows shares; the listing, or []."""
    end = time.time() + secs
    while time.time() < end:
        ls = listing(t.screen(escapes=True))
        if any(x[1] for x in ls):
            return ls
        time.sleep(0.3)
    tap.diag("no shares; the screen was:\n" + t.screen())
    return []


def title(t, sym, secs=10):
    return t.wait_re(r"^ Annotate %s \(" % re.escape(sym), secs)


def main():
    perftop, annowork = sys.argv[1], sys.argv[2]
    why = tuitest.can_run()
    if why:
        tap.skip("the annotate view in tmux", why)
        tap.done()
    for w, h in ((80, 24), (200, 50)):
        t = tuitest.Tmux(w, h)
        try:
            body(t, perftop, annowork, w, h)
        finally:
            t.close()
    t = tuitest.Tmux(80, 24)
    try:
        stripped_deleted(t, perftop, annowork)
    finally:
        t.close()
    t = tuitest.Tmux(80, 24)
    try:
        calltree_line(t, perftop, annowork)
    finally:
        t.close()
    tap.done()


def calltree_line(t, perftop, annowork):
    """-g: a on a line of a symbol's call tree annotates that line's symbol;
    Esc comes back to the table, the tree still open."""
    _, wpid = t.workload(annowork, "300")
    t.start("NO_COLOR=1 " + perftop, "-g", "-d", "1", "-p", str(wpid))
    s = t.wait_re(r"\] divloop\b", 20)
    tap.ok(s is not None, "-g: divloop's row")
    t.keys("F3")
    t.raw("divloop")
    t.keys("Enter")
    time.sleep(0.3)
    t.keys("Right")  # its callers
    s = t.wait_re(r"callers of divloop", 10)
    t.keys("Right")  # into the tree: the first caller, main
    time.sleep(0.4)
    t.keys("a")
    s = t.wait_re(r"^ Annotate main \(", 10)
    tap.ok(s is not None, "-g: a on the tree's line main annotates main")
    t.keys("Escape")
    s = t.wait_re(r"callers of divloop", 10)
    tap.ok(s is not None, "-g: Esc back to the table, the tree still open")
    t.keys("q")
    t.clean_exit("-g: q")


def stripped_deleted(t, perftop, annowork):
    """A stripped copy, deleted while it runs: its code still annotated
    (from the process's map_files), the view says what it lacks, and the
    call (to a callee with no name) still opens it."""
    if shutil.which("strip") is None:
        tap.skip("stripped and deleted", "strip(1) is not installed")
        return
    path = os.path.join(t.tmp, "annowork-stripped")
    shutil.copy(annowork, path)
    subprocess.run(["strip", "--strip-all", path], check=True)
    _, wpid = t.workload(path, "300")
    os.unlink(path)
    t.start("NO_COLOR=1 " + perftop, "-d", "1", "-p", str(wpid))
    s = t.wait_re(r"\] annowork-stripped\+0x[0-9a-f]+\b", 20)
    tap.ok(s is not None, "stripped: its code named by file and start")
    t.keys("Home")
    t.keys("a")
    s = t.wait_re(r"^ Annotate annowork-stripped\+0x", 10)
    head = "\n".join((s or "").splitlines()[:3])
    tap.ok(s is not None and "(deleted)" in head and re.search(r"^ .*lacks: .*\S", head, re.M) is not None,
           "stripped, deleted: annotated, the view says what it lacks (%r)" % head)
    ls = wait_counts(t)
    tap.ok(any(x[1] for x in ls), "stripped, deleted: its instructions have shares")
    t.keys("/")
    t.raw("call")
    t.keys("Enter")
    time.sleep(0.4)
    t.keys("Enter")
    s = t.wait(lambda sc: re.search(r"^ Annotate annowork-stripped\+0x", sc, re.M) and
               sc.splitlines()[0] != head.splitlines()[0], 10)
    tap.ok(s is not None, "stripped: Enter on a call opens its nameless callee, by its start")
    t.keys("q")
    t.clean_exit("stripped: q")


def body(t, perftop, annowork, w, h):
    sz = "%dx%d" % (w, h)
    _, wpid = t.workload(annowork, "300")
    # NO_COLOR: attributes only, the selection in reverse; xterm: SGR mouse reports
    t.start("NO_COLOR=1 TERM=xterm-256color " + perftop, "-d", "1", "-p", str(wpid))
    s = t.wait_re(r"\] divloop\b", 20)
    tap.ok(s is not None, "%s: divloop's row in the table" % sz)
    t.keys("F3")
    t.raw("divloop")
    t.keys("Enter")
    time.sleep(0.3)
    t.keys("a")
    s = title(t, "divloop")
    tap.ok(s is not None, "%s: a opens divloop's annotation" % sz)

    # The hottest line selected: the highest share shown, the divide (or
    # the instruction after it, where a sample's IP lands).
    ls = wait_counts(t)
    sel, ls = selected(t)
    shares = [x[1] for x in ls if x[1] is not None]
    tap.ok(sel is not None and sel[1] is not None and shares and sel[1] == max(shares),
           "%s: the selected line has the highest share shown (%r, max %r)" % (sz, sel and sel[1], max(shares or [0])))
    insns = [x for x in ls if x[1] is not None]
    i = insns.index(sel) if sel in insns else -1
    tap.ok(i >= 0 and ("div" in insns[i][4] or (i > 0 and "div" in insns[i - 1][4])),
           "%s: the hottest line is the divide or the one after it (%r)" % (sz, sel and sel[4]))
    tap.ok(sum(shares) > 95.0 and sum(shares) < 100.5 if shares else False,
           "%s: the shares of the symbol's samples add up to 100 (%.2f)" % (sz, sum(shares)))

    # Tab: the next hot line, no hotter than the first; S-Tab back.
    first = sel
    t.keys("Tab")
    time.sleep(0.4)
    sel2, ls2 = selected(t)
    hot = [x for x in ls2 if x[1]]
    if len(hot) > 1:
        tap.ok(sel2 is not None and sel2[3] != first[3], "%s: Tab selects another hot line (%r)" % (sz, sel2))
    else:
        tap.ok(sel2 is not None and sel2[3] == first[3], "%s: one hot line: Tab stays on it" % sz)
    t.keys("BTab")
    time.sleep(0.4)
    sel3, _ = selected(t)
    tap.ok(sel3 is not None and sel3[3] == first[3], "%s: S-Tab back to the hottest (%r)" % (sz, sel3))

    # Enter on the call: mix's annotation, the stack in the title; Esc back.
    t.keys("/")
    t.raw("mix")
    t.keys("Enter")
    time.sleep(0.4)
    sel, _ = selected(t)
    tap.ok(sel is not None and "call" in sel[4] and "mix" in sel[4], "%s: / mix selects the call (%r)" % (sz, sel))
    t.keys("Enter")
    s = title(t, "mix")
    tap.ok(s is not None and "divloop > mix" in s, "%s: Enter on the call opens mix, under divloop" % sz)
    t.keys("Escape")
    s = title(t, "divloop")
    sel, _ = selected(t)
    tap.ok(s is not None and sel is not None and "call" in sel[4],
           "%s: Esc back to divloop, the call still selected" % sz)

    # Enter on a jump in the function: its target selected, the arrow drawn.
    t.keys("/")
    t.raw("jne")
    t.keys("Enter")
    time.sleep(0.4)
    sel, _ = selected(t)
    m = re.search(r"\bj\w+ ([0-9a-f]+)$", sel[4]) if sel else None
    tap.ok(m is not None, "%s: / jne selects the loop's jump, its target an offset (%r)" % (sz, sel))
    if m:
        t.keys("Enter")
        time.sleep(0.4)
        sel, ls = selected(t)
        tap.ok(sel is not None and sel[3] == int(m.group(1), 16),
               "%s: Enter on the jump selects its target %s (%r)" % (sz, m.group(1), sel))
        # the other end: the jump's line, or the arrow running on below the screen
        i = ls.index(sel) if sel in ls else -1
        tap.ok(sel is not None and sel[2].endswith("->") and i + 1 < len(ls) and
               (ls[i + 1][2].startswith("|") or ls[i + 1][2].startswith("`")) and
               any(x[2].startswith(("`", ",")) and x[2].endswith("-") and x[4].startswith("j") for x in ls),
               "%s: the jump's arrow: from the jump to its target (%r)" % (sz, sel and sel[2]))
    else:
        tap.ok(False, "%s: Enter on the jump (no jump found)" % sz)
        tap.ok(False, "%s: the jump's arrow" % sz)

    # s: source lines among the instructions (--source, the default), off, on.
    def src_shown(sc):
        return re.search(r"^ +annowork\.c:\d+  ", sc, re.M) is not None
    sc = t.screen()
    if not tap.ok(src_shown(sc) and "(d | 1)" in sc,
                  "%s: source lines among the instructions by default (the divide's among them)" % sz):
        tap.diag("the screen was:\n" + sc)
    t.keys("s")
    tap.ok(t.wait(lambda sc: not src_shown(sc), 5) is not None, "%s: s: instructions only" % sz)
    t.keys("s")
    tap.ok(t.wait(src_shown, 5) is not None, "%s: s again: the source lines back" % sz)

    # S: the source view, the divide's line the hottest and selected.
    t.keys("S")
    s = t.wait_re(r"Share +Line +Source", 5)
    sel, ls = selected(t)
    tap.ok(s is not None and sel is not None and "(d | 1)" in sel[4],
           "%s: S: the source view, the divide's line selected (%r)" % (sz, sel and sel[4]))
    t.keys("Escape")
    s = t.wait_re(r"Share +Offset +Instruction", 5)
    tap.ok(s is not None, "%s: Esc: back to the instructions" % sz)

    # o: addresses and raw bytes (div %r12 is 49 f7 f4).
    t.keys("o")
    s = t.wait_re(r"Address +Bytes +Instruction", 5)
    tap.ok(s is not None and re.search(r"\b49 f7 f4 .*div", s) is not None,
           "%s: o: addresses and raw bytes, the divide's 49 f7 f4" % sz)
    t.keys("o")
    tap.ok(t.wait_re(r"Share +Offset +Instruction", 5) is not None, "%s: o again: offsets" % sz)

    # t: shares of all samples, none above the symbol's own.
    t.keys("t")
    s = t.wait_re(r"Of all +Offset", 5)
    tap.ok(s is not None, "%s: t: shares of all samples (the column says Of all)" % sz)
    ls = listing(t.screen(escapes=True))
    tap.ok(sum(x[1] for x in ls if x[1]) <= 100.5, "%s: t: their sum is at most 100" % sz)
    t.keys("t")
    tap.ok(t.wait_re(r"Share +Offset", 5) is not None, "%s: t again: shares of the symbol's" % sz)

    # The mouse: a click selects a line, the wheel moves.
    raw = t.screen(escapes=True)
    head = next((i for i, l in enumerate(raw.splitlines()) if "Offset" in SGR.sub("", l)), 3)
    second = listing(raw)[1]
    t.click(20, head + 2)
    time.sleep(0.4)
    sel, ls = selected(t)
    tap.ok(sel is not None and sel[3] == second[3], "%s: a click selects the line under it (%r)" % (sz, sel))
    t.click(20, head + 2, 65)  # wheel down
    time.sleep(0.4)
    sel2, _ = selected(t)
    tap.ok(sel2 is not None and sel is not None and sel2[3] > sel[3], "%s: the wheel moves down" % sz)

    # A resize while open: still open, the same line selected.
    before = sel2
    t.resize(100 if w == 80 else 80, 30 if w == 80 else 24)
    time.sleep(1.0)
    s = title(t, "divloop")
    sel, _ = selected(t)
    tap.ok(s is not None and sel is not None and before is not None and sel[3] == before[3],
           "%s: resized while open: the same line selected" % sz)
    t.resize(w, h)
    time.sleep(0.5)

    # The help has the view's keys; any key comes back.
    s = tuitest.help_find(t, r"Annotate \(a\)")
    tap.ok(s is not None, "%s: the help has an Annotate (a) section" % sz)
    t.keys("Escape")
    tap.ok(title(t, "divloop") is not None, "%s: back from the help to the annotation" % sz)

    t.keys("Escape")
    s = t.wait_re(r"^\s*Overhead\s", 5)
    tap.ok(s is not None, "%s: Esc on the last level: back to the table" % sz)
    t.keys("q")
    t.clean_exit("%s: q" % sz)


main()
