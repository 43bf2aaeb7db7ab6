# SPDX-License-Identifier: GPL-2.0-or-later
"""Tiny TAP emitter and helpers shared by the live tests."""
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# perftop reads $XDG_CONFIG_HOME/perftop/perftoprc and writes its state in
# $XDG_STATE_HOME: every perftop a test starts gets empty ones of its own,
# never a developer's (nor CI's) home.
SETTINGS_HOME = tempfile.mkdtemp(prefix="perftop-test-home-")
# Open to the tests' unprivileged users (nobody): an rc under a directory
# they cannot enter is a warning line of its own, which is not what they test.
os.chmod(SETTINGS_HOME, 0o755)
os.environ["XDG_CONFIG_HOME"] = os.path.join(SETTINGS_HOME, "config")
os.environ["XDG_STATE_HOME"] = os.path.join(SETTINGS_HOME, "state")
atexit.register(shutil.rmtree, SETTINGS_HOME, True)

_n = 0
_failed = 0
# The last few diag lines, repeated on stderr with a failure: meson's
# --print-errorlogs (what CI shows) prints a failed test's stderr only.
_recent = []


def ok(cond, what):
    global _n, _failed
    _n += 1
    if not cond:
        _failed += 1
    # One line: a description quoting another program's output may hold newlines.
    what = " | ".join(str(what).splitlines())
    line = ("ok %d - %s" if cond else "not ok %d - %s") % (_n, what)
    print(line)
    sys.stdout.flush()
    if not cond:
        sys.stderr.write("".join(d + "\n" for d in _recent) + line + "\n")
        sys.stderr.flush()
    return cond


def skip(what, why):
    global _n
    _n += 1
    print("ok %d - %s # SKIP %s" % (_n, " | ".join(str(what).splitlines()), " | ".join(str(why).splitlines())))


def done():
    print("1..%d" % _n)
    sys.exit(1 if _failed else 0)


def diag(msg):
    for line in str(msg).splitlines():
        print("# " + line)
        _recent.append("# " + line[:2000])
    del _recent[:-6]


def start_workload(workload, *args):
    """Starts the workload; returns (Popen, pid) once it said it is ready."""
    p = subprocess.Popen([workload, *args], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().split()
    if len(line) != 2 or line[0] != "ready":
        raise RuntimeError("workload did not start: %r" % line)
    return p, int(line[1])


def finish_workload(p):
    out = p.stdout.read()
    p.wait()
    try:
        return json.loads(out)
    except ValueError:
        return {}


def perftop_json(perftop, *args, timeout=60):
    """Runs perftop -b --format json; returns (exit code, [records], stderr)."""
    r = subprocess.run([perftop, "-b", "--format", "json", *args], capture_output=True,
                       text=True, timeout=timeout)
    recs = []
    for line in r.stdout.splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            diag("not JSON: %r" % line[:200])
    return r.returncode, recs, r.stderr


def symbol_samples(recs, dso_suffix=None):
    """Sums samples per symbol over all intervals (optionally of one DSO)."""
    tot = {}
    for rec in recs:
        for s in rec.get("symbols", []):
            if dso_suffix and not s["dso"].endswith(dso_suffix):
                continue
            tot[s["symbol"]] = tot.get(s["symbol"], 0) + s["samples"]
    return tot


def wait_exit(p, secs):
    """For processes whose output is not a pipe: a full pipe would stall them."""
    end = time.time() + secs
    while p.poll() is None and time.time() < end:
        time.sleep(0.05)
    return p.poll()


class LineReader:
    """Reads p's stdout in a thread as it comes (a pipe left unread fills and
    stalls the writer); first is set at its first line, or at EOF."""

    def __init__(self, p):
        self.lines = []
        self.first = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(p.stdout,), daemon=True)
        self._thread.start()

    def _read(self, f):
        for line in f:
            self.lines.append(line)
            self.first.set()
        self.first.set()

    def join(self):
        self._thread.join()

    def records(self):
        """The lines as JSON records."""
        return [json.loads(x) for x in self.lines if x.strip()]


def collect(p, secs, stop=signal.SIGINT):
    """Reads p's piped output while waiting up to secs for it to exit (a
    pipe left unread fills and stalls the writer); then sends stop and waits
    as long again, then kills. Returns (exited by itself, stdout, stderr)."""
    try:
        out, err = p.communicate(timeout=secs)
        return True, out, err
    except subprocess.TimeoutExpired:
        p.send_signal(stop)
    try:
        out, err = p.communicate(timeout=secs)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return False, out, err


def hardware_pmu():
    """True when a cycles counter opens here (perf stat says so)."""
    r = subprocess.run(["perf", "stat", "-x,", "-e", "cycles", "true"], capture_output=True,
                       text=True)
    return r.returncode == 0 and "<not supported>" not in r.stderr and "not supported" not in r.stderr


def is_root():
    return os.geteuid() == 0


TRACEFS = "/sys/kernel/tracing"


def tracefs():
    """Makes sure tracefs is mounted at /sys/kernel/tracing (or the old
    debugfs place), mounting it when root may; a fresh machine often has
    neither. Returns None when tracepoints can be named, else why not (for a
    SKIP). A tracefs this mounted stays: mounting it is harmless and the
    next test wants it too (.ci/run mounts it the same way)."""
    for d in (TRACEFS, "/sys/kernel/debug/tracing"):
        if os.path.isdir(os.path.join(d, "events")):
            return None
    if not is_root():
        return "tracefs is not mounted and only root may mount it"
    r = subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], capture_output=True,
                       text=True)
    if r.returncode != 0 or not os.path.isdir(os.path.join(TRACEFS, "events")):
        return "tracefs is not mounted and mounting it failed: %s" % (r.stderr.strip() or
                                                                       "no events directory")
    diag("mounted tracefs at %s" % TRACEFS)
    return None
