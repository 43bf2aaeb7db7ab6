#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 13, points 4-9, 11, 12 at 80x24 and 60x12: the function bar keeps
Quit, the title's clock never covers the name, busy % meters, the tasks/
load/memory line, row N of M, Symbol over [k], a filter says where it
applies and when nothing matches, F3 search selects and hides nothing,
unknown keys are said, Left/Right scroll names, F9 asks before signalling,
u shows one user's tasks, the Tasks view has %CPU. Issue 46, item 16: the
help scrolls with Home, End and PgDn (a page), the exclude panel shows its
six flags, and an empty table says why (every event off; user and kernel
both excluded). Item 15: a message or a table notice too long for the line
is cut after a whole word and marked with ~, never mid-word."""
import re
import sys
import time

import tuitest
from tuitest import tap


def main():
    perftop, workload = sys.argv[1], sys.argv[2]

    def body(t, wpid, w, h):
        sz = "%dx%d" % (w, h)
        pid, s = t.live(perftop, "-d", "0.5", ready=r"\[\.\] hot_a")
        s = s or ""
        lines = s.splitlines()
        bar = lines[-1] if lines else ""
        tap.ok(bar.rstrip().endswith("F10Quit") and "F1Help" in bar, "%s: function bar ends with F10Quit" % sz)
        tap.ok(re.search(r"^perftop \S+ on \S+( \(Linux \S+\))?\s+\d\d:\d\d:\d\d", s, re.M) is not None,
               "%s: title and clock apart" % sz)
        ev = tuitest.line_of(s, r"^(cpu-clock|cycles)\s+on")
        tap.ok(re.search(r"(/s|excl: \S+|lost \S+|mux (\d+%|-)|throttled \S+)$", ev.rstrip()) is not None, "%s: the event line ends on a whole field (%r)"
               % (sz, ev.rstrip()[-20:]))
        tap.ok(re.search(r"row \d+ of \d+", s) is not None, "%s: row N of M" % sz)
        if h >= 24:
            tap.ok(re.search(r"Tasks: \d+, \d+ thr; \d+ running\s+Load average: [\d.]+ [\d.]+ [\d.]+\s+Mem: ", s)
                   is not None, "%s: tasks, load average, memory" % sz)
            tap.ok(re.search(r"^\s+0\[\|*\s*\d+\.\d% \S+/s\]", s, re.M) is not None,
                   "%s: CPU meter: busy %% and samples/s" % sz)
        titles, rows = tuitest.column_titles(s), tuitest.table_rows(s)
        at = re.search(r"\[[k.]\]", rows[0]) if rows else None
        tap.ok(at is not None and titles.find("Symbol") == at.start(),
               "%s: Symbol over [k] (%r)" % (sz, titles))
        # F3: selects, hides nothing.
        t.prompt("F3", "hot_c")
        s = t.wait_re(r"row ([2-9]|\d\d+) of", 5) or ""
        tap.ok(s != "" and ("hot_a" in s or h < 24), "%s: F3 hot_c selects a lower row, hot_a still shown" % sz)
        t.keys("n")
        # F6: the sort menu; Down, Enter: the next column.
        t.keys("F6")
        s = t.wait_re(r"Sort by", 5)
        tap.ok(s is not None and "* Overhead" in s, "%s: F6 opens the sort menu, Overhead marked" % sz)
        t.keys("Down")
        t.keys("Enter")
        s = t.wait_re(r"sort: Samples" if w >= 80 else r"^Overhead\s+Samples", 5)
        tap.ok(s is not None and "Sort by" not in s, "%s: Down Enter: sorted by Samples, menu closed" % sz)
        t.keys("<")
        # Unknown key.
        t.keys("y")
        s = t.wait_re(r"y does nothing here", 5)
        tap.ok(s is not None, "%s: an unbound key says so" % sz)
        # Right scrolls names.
        t.keys("Right")
        s = t.wait(lambda sc: "[.] hot_a" not in sc, 5)
        tap.ok(s is not None, "%s: Right scrolls the names" % sz)
        t.keys("Left")
        # A filter nothing matches, in Symbols; Tasks unfiltered.
        t.prompt("/", "zzqq")
        s = t.wait_re(r'no rows match the Symbols filter "zzqq"', 5)
        tap.ok(s is not None, "%s: 'no rows match' names the view and filter" % sz)
        t.keys("Tab")
        s = t.wait(lambda sc: len(tuitest.table_rows(sc)) > 0 and "filter:" not in sc, 5)
        tap.ok(s is not None, "%s: the Tasks view is not filtered by it" % sz)

        def busy(sc):
            ti = tuitest.column_titles(sc).split()
            if "CPU%" not in ti:
                return False
            k = ti.index("CPU%")
            for r in tuitest.table_rows(sc):
                tok = r.split()
                if tok[:1] == [str(wpid)] and len(tok) > k:
                    try:
                        return float(tok[k]) > 0
                    except ValueError:
                        return False
            return False
        t.prompt("/", str(wpid))
        s = t.wait(busy, 8)
        tap.ok(s is not None, "%s: the spinning workload has a %%CPU beside its share" % sz)
        t.keys("Escape")
        # u: one user's tasks (the workload is root's, as we are).
        t.prompt("u", "54321")
        s = t.wait_re(r'user: 54321.*0 rows|no task of user "54321"', 5)
        tap.ok(s is not None, "%s: u 54321: no task, and it says which user" % sz)
        t.prompt("u", "root")
        s = t.wait(lambda sc: "user: root" in sc and len(tuitest.table_rows(sc)) > 0, 5)
        tap.ok(s is not None, "%s: u root: root's tasks" % sz)
        t.keys("u")
        t.keys("Enter")
        s = t.wait(lambda sc: "user:" not in sc, 5)
        tap.ok(s is not None, "%s: u Enter: every user again" % sz)
        # F9: asks first; Esc sends nothing.
        t.keys("F9")
        s = t.wait_re(r"Signal to PID \d+|Send PID \d+ which signal", 5)
        tap.ok(s is not None, "%s: F9 asks which signal" % sz)
        t.keys("Escape")
        time.sleep(0.3)
        t.quit("q")

    def panels(t, wpid, w, h):
        sz = "%dx%d" % (w, h)
        title = r"keys\s+\(more in man perftop\)"
        pid, s = t.live(perftop, "-d", "0.5", ready=r"\[\.\] hot_a")
        t.keys("h")
        top = t.wait_re(title, 10)
        rows = h - 3  # the help's lines: from the third line to the one above the bar
        page = lambda sc: sc.splitlines()[2:2 + rows] if sc else []  # noqa: E731
        t.keys("NPage")
        s = t.wait(lambda sc: page(sc) != page(top), 10)
        old, new = page(top), page(s)
        tap.diag("%s: before %r, after PgDn %r" % (sz, old[-2:], new[:2]))
        shared = set(x for x in old if x.strip()) & set(x for x in new if x.strip())
        tap.ok(s is not None and re.search(title, s) is not None and new and new[0] == old[-1] and
               shared <= {old[-1]}, "%s: help PgDn moves a page (its last line first)" % sz)
        t.keys("End")
        s = t.wait_re(r"^\s*Backspace\s+delete a character", 10)
        tap.ok(s is not None and re.search(title, s) is not None, "%s: help End shows the last key, help open" % sz)
        t.keys("Home")
        s = t.wait(lambda sc: page(sc) == page(top), 10)
        tap.ok(s is not None, "%s: help Home: the first page again, help open" % sz)
        t.keys("Escape")
        t.wait_re(r"^Target: ", 10)

        t.keys("x")
        s = t.wait_re(r"Exclude \(all events\)", 10) or ""
        flags = ("user", "kernel", "hypervisor", "idle", "host", "guest")
        missing = [f for f in flags if re.search(r"\[[ x~]\]\s+\w\s+%s" % f, s) is None]
        tap.ok(not missing, "%s: the exclude panel shows all six flags (missing %r)" % (sz, missing))
        tap.ok("Space/letter toggles" in s, "%s: and its hint line" % sz)
        t.keys("u")
        t.keys("k")
        t.keys("Escape")
        s = t.wait_re(r"user and kernel both excluded: nothing is sampled", 20)
        tap.ok(s is not None, "%s: user and kernel excluded: the table says why it is empty" % sz)
        t.keys("U")
        t.keys("K")
        s = t.wait_re(r"\[\.\] hot_a", 20)
        tap.ok(s is not None, "%s: included again, the rows are back" % sz)
        t.keys("e")
        s = t.wait_re(r"Space on/off", 10) or ""
        hint = re.search(r"(Space on/off.*?)\s*[\u2502|x]?\s*$", tuitest.line_of(s, r"Space on/off"))
        hint = hint.group(1) if hint else ""
        word_cut(sz, hint, "Space on/off  u user k kernel v hv i idle o host g guest  Esc close",
                 "the event panel's hint")
        t.keys("Space")
        t.keys("Escape")
        s = t.wait_re(r"every event is off: nothing is sampled", 20)
        tap.ok(s is not None, "%s: every event off: the table says why it is empty" % sz)
        t.quit("q")

    def word_cut(sz, line, full, what):
        """line shows full cut after a whole word, marked, or full whole."""
        line = line.strip()
        kept = line[:-1]
        whole = line == full
        cut = line.endswith("~") and len(kept) > 10 and full.startswith(kept) and \
            full[len(kept):len(kept) + 1] in (" ", ",", ":", ";", "(")
        tap.diag("%s %s: %r" % (sz, what, line))
        tap.ok(whole or cut, "%s: %s: whole words, the cut marked" % (sz, what))

    def cuts(t, wpid, w, h):
        sz = "%dx%d" % (w, h)
        pid, s = t.live(perftop, "-d", "0.5", ready=r"\[\.\] hot_a")
        pat, who = "qq" * 16, "nosuchuser" * 4
        cases = (("/", pat, r"^no rows match", "the empty table's notice",
                  'no rows match the Symbols filter "%s" (/ changes it, Esc clears it)' % pat),
                 ("u", who, r"^no user", "the message line",
                  'no user "%s": a name or a uid (nothing: every user)' % who))
        for key, text, shown, what, full in cases:
            t.prompt(key, text)
            s = t.wait_re(shown, 10) or ""
            word_cut(sz, tuitest.line_of(s, shown), full, what)
            t.keys("Escape")
            t.wait_re(r"\[\.\] hot_a", 10)
        t.quit("q")

    def both(t, wpid, w, h):
        body(t, wpid, w, h)
        panels(t, wpid, w, h)
        cuts(t, wpid, w, h)
    tuitest.each_size(workload, both)


main()
