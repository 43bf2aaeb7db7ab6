#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The layering, read from the objects the linker sees (nm over the build's
objects, mapped to their sources through compile_commands.json):
no two files and no two folders call each other in a circle, each folder
calls only the folders below it (ui/ only the session, agg, annotate, output and
base), every exported name starts with its module's prefix, at most two
.c files stand directly in src/ and no source file is over 700 lines.
usage: test_layers.py SOURCE_ROOT BUILD_ROOT   (TAP)"""
import collections
import json
import os
import subprocess
import sys

# What each folder may call (src/main.c and src/cli, the command line: anything).
BELOW = {
    "src/base": set(),
    "src/perf": {"src/base"},
    "src/unwind": {"src/perf", "src/base"},
    "src/engine": {"src/unwind", "src/perf", "src/base"},
    "src/symbols": {"src/base"},
    "src/annotate": {"src/symbols", "src/base"},
    "src/perfdata": {"src/perf", "src/base"},
    "src/agg": {"src/symbols", "src/engine", "src/unwind", "src/perf", "src/base"},
    "src/session": {"src/perfdata", "src/annotate", "src/agg", "src/symbols", "src/engine", "src/unwind", "src/perf", "src/base"},
    "src/output": {"src/session", "src/perfdata", "src/annotate", "src/agg", "src/symbols", "src/engine", "src/unwind",
                   "src/perf", "src/base"},
    "src/export": {"src/output", "src/session", "src/perfdata", "src/annotate", "src/agg", "src/symbols", "src/engine",
                   "src/unwind", "src/perf", "src/base"},
    # The front end reads the session, agg's read API, output, the annotation
    # (disassembly and source lines) and base helpers.
    "ui": {"src/session", "src/agg", "src/annotate", "src/output", "src/base"},
}


def objects(src_root, build):
    cc = json.load(open(os.path.join(build, "compile_commands.json")))
    for e in cc:
        src = os.path.relpath(os.path.realpath(os.path.join(e["directory"], e["file"])), src_root)
        obj = os.path.join(e["directory"], e["output"])
        if src.startswith(("src/", "ui/")) and os.path.exists(obj) and "layercheck" not in obj:
            yield src, obj


def read(src_root, build):
    defs, undefs, exported = {}, collections.defaultdict(set), collections.defaultdict(set)
    for src, obj in objects(src_root, build):
        out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRVWCG":
                defs.setdefault(f[2], src)
                if not f[2].startswith("__"):  # the compiler's (ASan's __odr_asan.*)
                    exported[src].add(f[2])
            elif len(f) == 2 and f[0] == "U":
                undefs[src].add(f[1])
    edges = collections.defaultdict(set)
    for src, us in undefs.items():
        for u in us:
            d = defs.get(u)
            if d and d != src:
                edges[src].add((d, u))
    return edges, exported


def circles(g):
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(set(g) | {w for ws in g.values() for w in ws}):
        if v not in index:
            visit(v)
    return out


def folder(p):
    return p if p == "src/main.c" else os.path.dirname(p)


def prefix_ok(src, name):
    base = os.path.splitext(os.path.basename(src))[0]
    if src == "src/main.c" and name == "main":
        return True
    ok = {base + "_", base.split("_")[0] + "_"}
    if src.startswith("ui/"):
        ok.add("ui_")
    return name == base or any(name.startswith(p) for p in ok)


def main():
    src_root, build = sys.argv[1], sys.argv[2]
    edges, exported = read(src_root, build)
    results = []

    fg = {a: {b for b, _ in bs} for a, bs in edges.items()}
    fc = circles(fg)
    results.append(("no two files call each other in a circle",
                    ["circle: " + " ".join(c) for c in fc]))

    dg = collections.defaultdict(set)
    for a, bs in fg.items():
        for b in bs:
            if folder(a) != folder(b):
                dg[folder(a)].add(folder(b))
    dc = circles(dg)
    results.append(("no two folders call each other in a circle",
                    ["circle: " + " ".join(c) for c in dc]))

    up = []
    for a, bs in sorted(edges.items()):
        fa = folder(a)
        if fa not in BELOW:
            continue
        for b, sym in sorted(bs):
            fb = folder(b)
            if fb != fa and fb not in BELOW[fa]:
                up.append("%s calls %s (%s): %s may call only %s"
                          % (a, sym, b, fa, ", ".join(sorted(BELOW[fa])) or "nothing"))
    results.append(("each folder calls only the folders below it", up))

    names = ["%s exports %s" % (src, n) for src, ns in sorted(exported.items())
             for n in sorted(ns) if not prefix_ok(src, n)]
    results.append(("every exported name starts with its module's prefix", names))

    loose = sorted(f for f in os.listdir(os.path.join(src_root, "src")) if f.endswith(".c"))
    results.append(("at most two .c files stand directly in src/",
                    [] if len(loose) <= 2 else ["src/: " + " ".join(loose)]))

    big = []
    for top in ("src", "ui", "include"):
        for d, _, fs in os.walk(os.path.join(src_root, top)):
            for f in fs:
                if f.endswith((".c", ".h")):
                    path = os.path.join(d, f)
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        n = sum(1 for _ in fh)
                    if n > 700:
                        big.append("%s: %d lines" % (os.path.relpath(path, src_root), n))
    results.append(("no .c or .h file over 700 lines in src/, ui/, include/", sorted(big)))

    print("1..%d" % len(results))
    bad = 0
    for i, (what, problems) in enumerate(results, 1):
        print("%sok %d - %s" % ("not " if problems else "", i, what))
        for p in problems[:40]:
            print("#   " + p)
        if len(problems) > 40:
            print("#   (+%d more)" % (len(problems) - 40))
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
