# SPDX-License-Identifier: GPL-2.0-or-later
"""Bad use and clean endings: one clear line and the right exit code.

usage: test_cli.py PERFTOP WORKLOAD
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import collect, diag, done, finish_workload, ok, start_workload  # noqa: E402

PERFTOP, WORKLOAD = sys.argv[1], sys.argv[2]


def run(*args, **kw):
    return subprocess.run([PERFTOP, *args], capture_output=True, text=True, timeout=30, **kw)


def one_line_error(r, code, words, what):
    lines = r.stderr.strip().splitlines()
    diag("%s -> %d: %s" % (what, r.returncode, r.stderr.strip()))
    ok(r.returncode == code and len(lines) == 1 and all(w in lines[0] for w in words),
       "%s: exit %d with one line naming %r" % (what, code, words))


one_line_error(run("-b", "-e", "no-such-event"), 2, ["no-such-event"], "unknown event")
one_line_error(run("-b", "-e", "cpu-clock:q"), 2, ["q"], "bad modifier")
one_line_error(run("-b", "-e", "nopmu/config=1/"), 2, ["nopmu"], "unknown PMU")
one_line_error(run("-b", "-p", "999999999"), 2, ["999999999"], "-p out of range")
one_line_error(run("-b", "-p", "4000000"), 1, ["4000000"], "-p of a missing process")
one_line_error(run("-b", "-C", "999"), 2, ["999"], "-C of a missing CPU")
one_line_error(run("-b", "-F", "99999999"), 2, ["-F"], "-F out of range")
one_line_error(run("-b", "-F", "200000"), 2, ["perf_event_max_sample_rate"], "-F above the kernel maximum")
one_line_error(run("-b", "--format", "xml"), 2, ["xml"], "unknown format")
one_line_error(run("-b", "--exclude", "user,bogus"), 2, ["bogus"], "unknown exclude word")
one_line_error(run("-b", "-d", "0"), 2, ["-d"], "zero interval")
one_line_error(run(stdin=subprocess.DEVNULL), 1, ["-b"], "live view without a terminal (a runtime error)")

r = run("--help")
ok(r.returncode == 0 and "--format" in r.stdout and "-p, --pid" in r.stdout, "--help exits 0 and lists options")

# perftop -b | head exits quietly
p = subprocess.Popen(f"{PERFTOP} -b -d 0.1 | head -2; exit ${{PIPESTATUS[0]}}", shell=True,
                     executable="/bin/bash", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
out, err = p.communicate(timeout=20)
ok(p.returncode == 0 and err.strip() == "" and len(out.splitlines()) == 2,
   "perftop -b | head ends quietly with exit 0 (rc %d, %r)" % (p.returncode, err.strip()))

for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    p = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-d", "10"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(sig)
    out, err = p.communicate(timeout=20)
    recs = [json.loads(line) for line in out.splitlines() if line.strip()]
    ok(p.returncode == 0 and len(recs) == 1 and "final" in recs[0]
       and recs[0]["events"][0]["samples"] > 0 and 0.5 < recs[0]["interval"] < 5,
       "%s ends the dump with the partial interval written (rc %d, %d records)"
       % (sig.name, p.returncode, len(recs)))

# Without --listen the HTTP library, and the TLS stack it brings, is not
# loaded: it would be resident in every run (issue 14's RSS).
p = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-d", "10"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
time.sleep(1.0)
with open("/proc/%d/maps" % p.pid) as f:
    maps = f.read()
p.send_signal(signal.SIGINT)
p.wait(timeout=20)
libs = sorted({x.split()[-1] for x in maps.splitlines() if "microhttpd" in x or "gnutls" in x})
ok(not libs and "libc.so" in maps, "without --listen no HTTP or TLS library is mapped (%s)" % libs)

# The focused process exits: a final record, exit 0.
wl, pid = start_workload(WORKLOAD, "split", "1,1,1", "1.5")
p = subprocess.Popen([PERFTOP, "-b", "--format", "json", "-p", str(pid), "-d", "10"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
finish_workload(wl)
exited, out, err = collect(p, 10, signal.SIGKILL)
rc = p.returncode if exited else None
recs = [json.loads(line) for line in out.splitlines() if line.strip()]
ok(rc == 0 and recs and str(pid) in recs[-1].get("final", ""),
   "a focused process exiting ends the dump with exit 0 and a final record (%r)"
   % (recs[-1].get("final") if recs else None))

# CSV: a header then rows with a fixed column count.
r = run("-b", "--format", "csv", "-d", "0.3", "-n", "1", "-e", "cpu-clock,task-clock")
rows = r.stdout.strip().splitlines()
ok(r.returncode == 0 and rows and rows[0].startswith("time,iteration,table,rank,name"),
   "CSV starts with its header")
ncol = len(rows[0].split(","))
ok(all(len(x.split(",")) == ncol for x in rows if '"' not in x), "CSV rows have %d columns" % ncol)

# text: a header like top -b and both tables
r = run("-b", "-d", "0.3", "-n", "1")
ok(r.returncode == 0 and r.stdout.startswith("perftop - ") and "Overhead" in r.stdout and "COMM" in r.stdout,
   "text dump has a header and both tables")

# Issue 46 item 14: the text dump names a DSO by its file, as perf does, and
# cuts nothing without a mark (a name longer than its column ends in an
# ellipsis); CSV and JSON keep the whole path.
import csv as csv_mod  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

dso_dir = tempfile.mkdtemp(prefix="perftop-cli-a-directory-longer-than-the-column-")
long_bin = os.path.join(dso_dir, "workload_named_longer_than_its_column")
shutil.copy(WORKLOAD, long_bin)
wl, pid = start_workload(long_bin, "split", "1,1,1", "8")
outs = {}
for fmt in ("text", "csv", "json"):
    outs[fmt] = subprocess.run([PERFTOP, "-b", "--format", fmt, "-d", "1", "-n", "2", "-p", str(pid)],
                               capture_output=True, encoding="utf-8", errors="replace", timeout=60).stdout
finish_workload(wl)
sym_rows = [ln for ln in outs["text"].splitlines() if " [.] " in ln or " [k] " in ln]
cells = {ln.split()[2] for ln in sym_rows if ln.rstrip().endswith(" hot_a")}
want_long = os.path.basename(long_bin)[:27] + "\u2026"
diag("text dump's DSO cells of hot_a: %r" % cells)
ok(cells == {want_long}, "text dump: a DSO's file name longer than the column ends in an ellipsis (%r)" % cells)
ok(sym_rows and not any("/" in ln.split()[2] for ln in sym_rows),
   "text dump: every DSO by its file's name, none as a path (%r)" % sorted({ln.split()[2] for ln in sym_rows}))
csv_dsos = {row[5] for row in csv_mod.reader(outs["csv"].splitlines()) if len(row) > 5 and row[4] == "hot_a"}
ok(csv_dsos == {long_bin}, "CSV: the DSO's whole path (%r)" % csv_dsos)
json_dsos = {s["dso"] for line in outs["json"].splitlines() if line.strip()
             for s in json.loads(line).get("symbols", []) if s.get("symbol") == "hot_a"}
ok(json_dsos == {long_bin}, "JSON: the DSO's whole path (%r)" % json_dsos)
shutil.rmtree(dso_dir, ignore_errors=True)

# Issue 46 item 9: every output path is opened or checked before sampling
# starts: an unwritable one ends the run at once (not after -n 30 intervals)
# with one line naming it, exit 1.
bad_dir = "/nonexistent-perftop-dir"
for what, args, path in (
        ("pprof -o", ["--format", "pprof", "-o", bad_dir + "/x.pb.gz"], bad_dir + "/x.pb.gz"),
        ("text -o", ["-o", bad_dir + "/x.txt"], bad_dir + "/x.txt"),
        ("json -o", ["--format", "json", "-o", bad_dir + "/x.json"], bad_dir + "/x.json"),
        ("svg -o", ["--format", "svg", "-o", bad_dir + "/x.svg"], bad_dir + "/x.svg"),
        ("folded -o", ["--format", "folded", "-o", bad_dir + "/x.folded"], bad_dir + "/x.folded"),
        ("--textfile", ["--textfile", bad_dir], bad_dir)):
    t0 = time.time()
    try:
        r = subprocess.run([PERFTOP, "-b", "-d", "1", "-n", "30", *args], capture_output=True, text=True,
                           timeout=90)
        rc, err = r.returncode, r.stderr.strip()
    except subprocess.TimeoutExpired:
        rc, err = None, "(still running after 90 s)"
    took = time.time() - t0
    diag("%s -> %r in %.1f s: %s" % (what, rc, took, err))
    ok(rc == 1 and len(err.splitlines()) == 1 and path in err and took < 10,
       "unwritable %s: exit 1 at once (%.1f s of a 30 s run) with one line naming %s" % (what, took, path))

# An unknown option or a missing argument: one line naming it and what it
# wants, not the whole --help.
one_line_error(run("-b", "--frequency", "9"), 2, ["option --frequency is unknown", "see --help"], "unknown option")
one_line_error(run("-b", "-d"), 2, ["-d needs SECS", "see --help"], "-d without its argument")


# --help, the man page's OPTIONS and the README's options table name the
# same options: the table in src/cli/options_table.c makes --help, so a new row
# the documents miss fails here.
def option_words(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*[a-z]|-[a-zA-Z])(?![\w-])", text))


help_text = run("--help").stdout
help_rows = [option_words(re.split(r"\s{2,}", x.strip())[0]) for x in help_text.splitlines()
             if re.match(r"  (-\w|    --)", x)]
help_opts = set().union(*help_rows)
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(top, "doc", "perftop.1")) as f:
    man = f.read()
section = man.split("\n.SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0].splitlines()
heads = [section[i + 1] for i, x in enumerate(section[:-1]) if x == ".TP"]
man_opts = option_words(" ".join(heads).replace("\\-", "-"))
with open(os.path.join(top, "README.md")) as f:
    readme = f.read().split("## Options", 1)[1].split("\n## ", 1)[0]
readme_opts = option_words(" ".join(re.split(r"(?<!\\)\|", row)[1] for row in readme.splitlines() if row.startswith("| `")))
diag("--help: %s" % sorted(help_opts))
ok(len(help_opts) > 40 and help_opts == man_opts,
   "--help and perftop.1's OPTIONS name the same options (only in --help: %s; only in the man page: %s)"
   % (sorted(help_opts - man_opts), sorted(man_opts - help_opts)))
missing = [sorted(r) for r in help_rows if not r & readme_opts]
ok(len(help_rows) > 30 and not missing, "README's options table names every option of --help (missing: %s)"
   % missing)
done()
