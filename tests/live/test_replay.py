# SPDX-License-Identifier: GPL-2.0-or-later
"""-i: perf record's files played by perftop (issue 48), against perf report
on the same file (Debian's perf 6.1).

- flat: the workload (split 3,2,1) recorded by perf record -e cpu-clock -F 999;
  perftop -i -b --format json's symbol shares within 1 point of perf report's;
- -g: cgwork (leaves with frames) recorded with -g; the children shares and
  the callers of hot, caller_a and lone as perf report --children has them;
- exec: a process that exec'd and exited, every sample named from the file's
  own COMM and MMAP2 records;
- the vDSO: a recording of clock_gettime in a loop, its samples named from
  this machine's vDSO when the recording's build-id is its, from perf's
  build-id cache when not, else [unknown] with a notice;
- perf record -z (zstd) read where this perftop has libzstd;
- a file cut at a random byte: one line on stderr naming an offset, exit 1;
- as nobody (no privileges, no perf_event_open): the same rows;
- the live view in tmux: the rows, Z pauses the replay, . steps, ] speeds up.

perf record runs on a gated workload with -p (perf 6.1 aborts in its build-id
code on this kernel's MMAP2 records of a new exec at times: -B, and retries;
the vDSO's recording keeps its build-ids, which it is about).

usage: test_replay.py PERFTOP WORKLOAD CGWORK_LEAFFP FIXTURE_EXEC FIXTURE_EXEC2
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "ui"))
from tap import diag, done, is_root, ok, skip  # noqa: E402

PERFTOP, WORKLOAD, CGWORK, EXEC1, EXEC2 = (os.path.abspath(a) for a in sys.argv[1:6])
TMP = tempfile.mkdtemp(prefix="perftop-replay-")
os.chmod(TMP, 0o755)
SHARE_POINTS = 1.0   # the same file read by two tools: the same counts
MIN_SHARE = 2.0      # rows compared: perf's at or above this
SPLIT_POINTS = 1.0


def perf_record(out, args, gate_cmd=None, tries=3, buildids=False):
    """perf record of a gated workload (-p), or of a command; True when the file is whole."""
    nobid = [] if buildids else ["-B"]
    for _ in range(tries):
        if gate_cmd:
            wl = subprocess.Popen(gate_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            pid = wl.stdout.readline().split()[1]
            rec = subprocess.Popen(["perf", "record", "-q", *nobid, *args, "-o", out, "-p", pid],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1.0)  # attached (perf record has no "ready" to wait for)
            wl.stdin.write("go\n")
            wl.stdin.flush()
            wl.stdout.read()
            wl.wait()
            _, err = rec.communicate(timeout=60)
            rc = rec.returncode
        else:
            r = subprocess.run(["perf", "record", "-q", *nobid, "-o", out, *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, errors="replace", timeout=120)
            rc, err = r.returncode, r.stderr
        if rc == 0 and os.path.getsize(out) > 0:
            return True
        diag("perf record failed (%d): %s" % (rc, err.strip()[-200:]))
    return False


_aliases = {}


def func_addrs(path):
    """{name: address} of an ELF file's functions (and its debug file's)."""
    if path not in _aliases:
        names = {}
        files = [path]
        r = subprocess.run(["readelf", "-nW", path], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            if "Build ID:" in line:
                bid = line.split()[-1]
                files.append("/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]))
        for f in files:
            if os.path.exists(f):
                r = subprocess.run(["readelf", "-sW", f], capture_output=True, text=True)
                for line in r.stdout.splitlines():
                    c = line.split()
                    if len(c) >= 8 and c[3] in ("FUNC", "IFUNC") and c[1] != "0000000000000000":
                        names[c[7].split("@")[0]] = c[1]
        _aliases[path] = names
    return _aliases[path]


def canon_factory(dsos):
    """One spelling per function: version suffixes off, aliases (one address) as one."""
    files = [d for d in dsos if d.startswith("/") and os.path.exists(d)]

    def canon(name):
        name = re.sub(r"@.*$", "", name)
        for d in files:
            names = func_addrs(d)
            if name in names:
                return sorted(n for n, a in names.items() if a == names[name])[0]
        return name
    return canon


def perftop_json(data, *args, user=None):
    cmd = [PERFTOP, "-i", data, "-b", "--format", "json", "-d", "3600", "-E", "200", *args]
    if user:
        cmd = ["runuser", "-u", user, "--"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(os.environ, HOME="/nonexistent")
                       if user else None)
    recs = []
    for line in r.stdout.splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            diag("not JSON: %r" % line[:200])
    return r.returncode, recs, r.stderr


def perftop_rows(recs, key):
    """{symbol: value summed over the intervals} and the samples in all."""
    total = sum(e["samples"] for rec in recs for e in rec.get("events", [])[:1])
    rows = {}
    for rec in recs:
        for s in rec.get("symbols", []):
            rows[s["symbol"]] = rows.get(s["symbol"], 0) + s.get(key, 0)
    return rows, total


def perf_flat(data, canon):
    r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "sym",
                        "-F", "overhead,sym", "-t", "|", "--percent-limit", "0"], capture_output=True, text=True)
    rows = {}
    for line in r.stdout.splitlines():
        f = [x.strip() for x in line.split("|")]
        if line.startswith("#") or len(f) != 2 or not f[0].endswith("%"):
            continue
        sym = f[1][4:] if f[1][:1] == "[" and f[1][2:4] == "] " else f[1]
        rows[canon(sym)] = rows.get(canon(sym), 0) + float(f[0].rstrip("%"))
    if not rows:
        diag("perf report gave nothing: %s" % r.stderr.strip()[-300:])
    return rows


def perf_unnamed(data, images):
    """How many user samples of the images (or of no map) perf script cannot name."""
    r = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], capture_output=True, text=True)
    n = 0
    for line in r.stdout.splitlines():
        if "[unknown]" in line and ("(" not in line or any(i in line for i in images) or "([unknown])" in line):
            n += 1
    return n


def perf_children(data, canon):
    """perf report --children's {symbol: children share}, and callers from its folded chains."""
    r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--children", "--no-inline", "--sort", "sym",
                        "-F", "overhead_children,overhead,sym", "-t", "|", "-g", "none", "--percent-limit", "0"],
                       capture_output=True, text=True)
    children = {}
    for line in r.stdout.splitlines():
        f = [x.strip() for x in line.split("|")]
        if line.startswith("#") or len(f) != 3 or not f[0].endswith("%"):
            continue
        sym = f[2][4:] if f[2][:1] == "[" and f[2][2:4] == "] " else f[2]
        children[canon(sym)] = max(children.get(canon(sym), 0), float(f[0].rstrip("%")))
    r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--no-inline", "--sort", "sym",
                        "-F", "sample,sym", "-g", "folded,0,callee,function,count", "--percent-limit", "0"],
                       capture_output=True, text=True)
    callers = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(\d+) (\S.*)$", line)
        if m:
            frames = [canon(x) for x in m.group(2).split(";")]
            for i in range(len(frames) - 1):
                c = callers.setdefault(frames[i], {})
                c[frames[i + 1]] = c.get(frames[i + 1], 0) + int(m.group(1))
    return children, callers


def split(callers):
    tot = sum(callers.values()) or 1
    return {k: 100.0 * v / tot for k, v in callers.items() if 100.0 * v / tot >= 3}


def compare_shares(label, mine, theirs):
    big = [k for k, v in theirs.items() if v >= MIN_SHARE]
    far = [(k, round(theirs[k], 2), round(mine.get(k, 0), 2)) for k in big
           if abs(theirs[k] - mine.get(k, 0)) > SHARE_POINTS]
    diag("%s: perf %r" % (label, sorted(((round(v, 1), k) for k, v in theirs.items() if v >= 1), reverse=True)))
    diag("%s: perftop %r" % (label, sorted(((round(v, 1), k) for k, v in mine.items() if v >= 1), reverse=True)))
    ok(len(big) >= 3 and not far, "%s: perf report's top symbols (%d rows of %g%% or more) within %g point of "
       "perftop -i's (off: %r)" % (label, len(big), MIN_SHARE, SHARE_POINTS, far))


def test_flat():
    data = os.path.join(TMP, "flat.data")
    if not perf_record(data, ["-e", "cpu-clock", "-F", "999"], [WORKLOAD, "gate", "split", "3,2,1", "3"]):
        skip("flat replay against perf report", "perf record failed three times (perf's own abort)")
        return None
    rc, recs, err = perftop_json(data)
    ok(rc == 0 and recs, "flat: perftop -i -b --format json reads perf record's file (%s)" % err.strip()[:300])
    rows, total = perftop_rows(recs, "samples")
    dsos = {s["dso"] for rec in recs for s in rec.get("symbols", [])}
    canon = canon_factory(sorted(dsos))
    mine = {}
    for k, v in rows.items():
        mine[canon(k)] = mine.get(canon(k), 0) + 100.0 * v / max(total, 1)
    compare_shares("flat", mine, perf_flat(data, canon))
    ok(mine.get("hot_a", 0) > mine.get("hot_b", 0) > mine.get("hot_c", 0) > 5,
       "flat: the workload's split shows (hot_a %.1f, hot_b %.1f, hot_c %.1f)"
       % (mine.get("hot_a", 0), mine.get("hot_b", 0), mine.get("hot_c", 0)))
    return data, mine


def test_callgraph():
    data = os.path.join(TMP, "cg.data")
    if not perf_record(data, ["-e", "cpu-clock", "-F", "999", "-g"], [CGWORK, "3", "gate"]):
        skip("-g replay against perf report", "perf record -g failed three times (perf's own abort)")
        return
    rc, recs, err = perftop_json(data)
    ok(rc == 0 and recs, "-g: perftop -i reads a -g recording (%s)" % err.strip()[:300])
    ch, total = perftop_rows(recs, "children")
    dsos = {s["dso"] for rec in recs for s in rec.get("symbols", [])}
    canon = canon_factory(sorted(dsos))
    mine, callers = {}, {}
    for k, v in ch.items():
        mine[canon(k)] = max(mine.get(canon(k), 0), 100.0 * v / max(total, 1))
    for rec in recs:
        for s in rec.get("symbols", []):
            c = callers.setdefault(canon(s["symbol"]), {})
            for l in s.get("callers", []):
                c[canon(l["symbol"])] = c.get(canon(l["symbol"]), 0) + l["samples"]
    pch, pcall = perf_children(data, canon)
    compare_shares("-g children", mine, pch)
    for fn in ("hot", "caller_a", "lone"):
        ps, ts = split(pcall.get(fn, {})), split(callers.get(fn, {}))
        off = [(k, round(ps[k], 1), round(ts.get(k, 0), 1)) for k in ps if abs(ps[k] - ts.get(k, 0)) > SPLIT_POINTS]
        ok(ps and set(ps) == set(ts) and not off, "-g: %s's callers as perf report --children has them "
           "(perf %r, perftop %r)" % (fn, ps, ts))


def test_exec():
    data = os.path.join(TMP, "exec.data")
    if not perf_record(data, ["-e", "cpu-clock", "-F", "999", "--", EXEC1, "1", EXEC2, "1"]):
        skip("a recording of a process that exec'd", "perf record failed three times (perf's own abort)")
        return
    rc, recs, err = perftop_json(data)
    rows, total = perftop_rows(recs, "samples")
    # The exec'd images' own samples, each named from the file's MMAP2 of the
    # image it ran then. Libraries' gaps (a PLT, the ASan build's libstdc++)
    # and the vDSO, whose bytes only perf's build-id cache keeps, are told.
    images = (os.path.basename(EXEC1), os.path.basename(EXEC2))
    unnamed = {k: v for k, v in rows.items() if k == "[unknown]" or k.startswith(tuple(i + "+0x" for i in images))}
    others = {k: v for k, v in rows.items() if "+0x" in k and k not in unnamed}
    if others:
        diag("exec: unnamed outside the programs' images: %r" % others)
    # A sample perf itself cannot name from the file (one taken between the
    # exec and its image's MMAP2, seen once in 1 299 in an ASan build) is not
    # one perftop lost: allowed up to perf script's own count of them.
    theirs = perf_unnamed(data, images) if unnamed else 0
    ok(rc == 0 and total > 100 and sum(unnamed.values()) <= theirs,
       "exec: every one of %d samples of the programs named (unnamed: %r; perf script names all but %d)"
       % (total, unnamed, theirs))
    ok(rows.get("spin_before_exec", 0) > 20 and rows.get("spin_after_exec", 0) > 20,
       "exec: the code before the exec and after it, each in its own image (%r)"
       % {k: rows.get(k) for k in ("spin_before_exec", "spin_after_exec")})
    comms = {t["comm"] for rec in recs for t in rec.get("tasks", [])}
    ok(os.path.basename(EXEC2) in comms, "exec: the task named from the file's COMM (%r)" % sorted(comms))


def vdso_image():
    """This machine's vDSO (the same for every 64-bit process) and its build-id."""
    with open("/proc/self/maps") as f:
        for line in f:
            if line.rstrip().endswith("[vdso]"):
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                with open("/proc/self/mem", "rb") as m:
                    m.seek(lo)
                    img = m.read(hi - lo)
                # The GNU build-id note: namesz 4, descsz 20, type 3, "GNU\0".
                at = img.find(b"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00")
                return (img, img[at + 16:at + 36]) if at >= 0 else (img, None)
    return None, None


def test_vdso():
    """The vDSO's samples named from this machine's vDSO when the recording's
    build-id is its, from perf's build-id cache when not, else not named."""
    img, bid = vdso_image()
    if img is None or bid is None:
        skip("the vDSO in a replay", "this process has no vDSO with a build-id")
        return
    data = os.path.join(TMP, "vdso.data")
    if not perf_record(data, ["-e", "cpu-clock", "-F", "999"], [WORKLOAD, "gate", "vdso", "2"],
                       buildids=True):
        skip("the vDSO in a replay", "perf record failed three times (perf's own abort)")
        return

    def vdso_rows(path, home):
        r = subprocess.run([PERFTOP, "-i", path, "-b", "--format", "json", "-d", "3600", "-E", "200"],
                           capture_output=True, text=True, timeout=300, env=dict(os.environ, HOME=home))
        recs = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        rows = {}
        for rec in recs:
            for s in rec.get("symbols", []):
                if s["dso"] == "[vdso]":
                    rows[s["symbol"]] = rows.get(s["symbol"], 0) + s["samples"]
        notices = [n for rec in recs for n in rec.get("notices", [])]
        return r.returncode, rows, notices

    def named(rows):
        return sum(v for k, v in rows.items() if k in ("clock_gettime", "__vdso_clock_gettime"))

    rc, rows, notices = vdso_rows(data, "/nonexistent")
    total = sum(rows.values())
    ok(rc == 0 and total > 50 and named(rows) > 0 and "[unknown]" not in rows,
       "vdso: this kernel's recording: its vDSO samples named from ours (%r)" % rows)
    # The same recording as another kernel's: its [vdso] build-id changed.
    with open(data, "rb") as f:
        raw = f.read()
    other_bid = bytes(16) + b"\x01\x02\x03\x04"
    other = os.path.join(TMP, "vdso-other.data")
    with open(other, "wb") as f:
        f.write(raw.replace(bid, other_bid))
    rc, rows, notices = vdso_rows(other, "/nonexistent")
    ok(rc == 0 and raw.count(bid) > 0 and named(rows) == 0 and rows.get("[unknown]", 0) == total and
       any("[vdso]" in n for n in notices),
       "vdso: another kernel's vDSO, no copy in the build-id cache: not named from ours, and told (%r, %r)"
       % (rows, notices))
    # perf's build-id cache keeps that kernel's copy: ~/.debug/[vdso]/ID/vdso.
    home = os.path.join(TMP, "home")
    os.makedirs(os.path.join(home, ".debug", "[vdso]", other_bid.hex()))
    with open(os.path.join(home, ".debug", "[vdso]", other_bid.hex(), "vdso"), "wb") as f:
        f.write(img.replace(bid, other_bid))
    rc, rows, notices = vdso_rows(other, home)
    ok(rc == 0 and named(rows) > 0 and "[unknown]" not in rows and sum(rows.values()) == total,
       "vdso: another kernel's vDSO named from perf's build-id cache (%r)" % rows)


def test_zstd():
    data = os.path.join(TMP, "z.data")
    if not perf_record(data, ["-z", "-e", "cpu-clock", "-F", "999"], [WORKLOAD, "gate", "split", "3,2,1", "2"]):
        skip("perf record -z", "perf record -z failed three times")
        return
    rc, recs, err = perftop_json(data)
    if rc != 0 and "without libzstd" in err:
        skip("perf record -z", "this perftop has no libzstd: %s" % err.strip())
        return
    rows, total = perftop_rows(recs, "samples")
    # perf report's header rounds ("# Samples: 1K"): count perf script's lines.
    r = subprocess.run(["perf", "script", "-i", data, "-F", "tid"], capture_output=True, text=True)
    theirs = len(r.stdout.splitlines()) if r.returncode == 0 and r.stdout else None
    ok(rc == 0 and total > 100 and (theirs is None or theirs == total),
       "zstd: perftop -i reads perf record -z's file whole (%d samples, perf report %r; %s)"
       % (total, theirs, err.strip()[:200]))


def test_own():
    """perftop's own recording (--record, the writer of issue 48) replayed:
    the same samples and the same shares as the run's own dump."""
    h = subprocess.run([PERFTOP, "--help"], capture_output=True, text=True)
    if "--record" not in h.stdout:
        skip("a perftop recording replayed", "this build has no --record (issue 48's writer, another branch)")
        return
    data = os.path.join(TMP, "own.data")
    # System-wide, as the writer synthesizes a task's maps at its first sample.
    wl = subprocess.Popen([WORKLOAD, "split", "3,2,1", "4"], stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    top = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-e", "cpu-clock", "-F", "999", "-d", "1", "-n", "2",
                            "-E", "500", "--record", data], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = top.communicate(timeout=120)
    wl.wait()
    live = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    lrows, ltotal = perftop_rows(live, "samples")
    rc, recs, rerr = perftop_json(data)
    rows, total = perftop_rows(recs, "samples")
    ok(top.returncode == 0 and rc == 0 and total == ltotal and total > 100,
       "own: perftop -i reads perftop --record's file: the run's %d samples, %d replayed (%s %s)"
       % (ltotal, total, err.strip()[-200:], rerr.strip()[:200]))
    big = {k: 100.0 * v / max(ltotal, 1) for k, v in lrows.items() if 100.0 * v / max(ltotal, 1) >= MIN_SHARE}
    far = [(k, round(v, 2), round(100.0 * rows.get(k, 0) / max(total, 1), 2)) for k, v in big.items()
           if abs(v - 100.0 * rows.get(k, 0) / max(total, 1)) > SHARE_POINTS]
    ok(big and not far, "own: the run's top symbols and the replay's within %g point (%r)" % (SHARE_POINTS, far))


def test_cut(data):
    size = os.path.getsize(data)
    rnd = random.Random(48)
    bad = []
    for cut in sorted(rnd.sample(range(16, size - 1), 5)) + [size - 1]:
        part = os.path.join(TMP, "cut.data")
        with open(data, "rb") as f, open(part, "wb") as g:
            g.write(f.read(cut))
        r = subprocess.run([PERFTOP, "-i", part, "-b", "-o", "/dev/null"], capture_output=True, text=True, timeout=120)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 1 or len(lines) != 1 or "offset" not in lines[0]:
            bad.append((cut, r.returncode, r.stderr.strip()[:200]))
    ok(not bad, "a file cut at a random byte (6 cuts of %d bytes): one line naming an offset, exit 1 (%r)"
       % (size, bad))


def test_nobody(data, mine):
    shutil.copy(data, os.path.join(TMP, "nobody.data"))
    os.chmod(os.path.join(TMP, "nobody.data"), 0o644)
    rc, recs, err = perftop_json(os.path.join(TMP, "nobody.data"), user="nobody")
    rows, total = perftop_rows(recs, "samples")
    ok(rc == 0 and total > 0, "as nobody (no perf_event_open): the replay runs (%s)" % err.strip()[:200])
    ok(rows.get("hot_a", 0) > 0, "as nobody: the workload's symbols named (%r)" % sorted(rows)[:8])


def test_live(data):
    import tuitest
    t = tuitest.Tmux(120, 30)
    try:
        t.start(PERFTOP, "-i", data, "-d", "0.5")
        s = t.wait_re(r"hot_a", 20)
        ok(s is not None, "live: the recording's rows on screen")
        t.keys("c")  # cumulative: the counts grow with each interval played
        t.keys("Z")
        s = t.wait_re(r"replay paused", 5)
        ok(s is not None, "live: Z pauses the replay (and says so)")

        def hot_a(screen):
            m = re.search(r"^\S*\s+[\d.]+%\s+(\d+)\s+\S+\s+\[\.\] hot_a", screen or "", re.M)
            return int(m.group(1)) if m else None
        time.sleep(0.6)
        a = hot_a(t.screen())
        time.sleep(1.6)
        b = hot_a(t.screen())
        ok(a is not None and a == b, "live: paused, nothing more is played (hot_a %r, then %r)" % (a, b))
        t.keys(".")
        s = t.wait(lambda sc: hot_a(sc) is not None and hot_a(sc) != b, 5)
        ok(s is not None and hot_a(s) > b, "live: . plays one interval (hot_a %r -> %r)" % (b, hot_a(s)))
        t.keys("]")
        ok(t.wait_re(r"replay at 2x", 5) is not None, "live: ] doubles the pace (and says so)")
        t.keys("q")
        t.clean_exit("live")
    finally:
        t.tmux("kill-server")


if not is_root():
    skip("replay of perf record's files", "needs root (perf record of a workload)")
elif shutil.which("perf") is None:
    skip("replay of perf record's files", "perf is not installed")
else:
    flat = test_flat()
    test_callgraph()
    test_exec()
    test_vdso()
    test_zstd()
    test_own()
    if flat:
        test_cut(flat[0])
        test_nobody(*flat)
        if shutil.which("tmux"):
            test_live(flat[0])
        else:
            skip("live view of a replay", "tmux is not installed")
shutil.rmtree(TMP, ignore_errors=True)
done()
