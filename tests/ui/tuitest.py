# SPDX-License-Identifier: GPL-2.0-or-later
"""Driving the real perftop in a private tmux server: a shell in a pane, keys
sent with send-keys, the screen read with capture-pane."""
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "live"))
import tap  # noqa: E402

PROMPT = "PROMPT$ "


class Tmux:
    def __init__(self, width=120, height=40):
        self.procs = []  # helpers (workloads, fixtures) that close() ends
        self.sock = "perftop-ui-%d" % os.getpid()
        self.tmp = "/tmp/perftop-ui-%d" % os.getpid()
        os.makedirs(self.tmp, exist_ok=True)
        self.tmux("kill-server")
        r = self.tmux("new-session", "-d", "-x", str(width), "-y", str(height), "-s", "t",
                      "env -u TMUX TERM=screen XDG_CONFIG_HOME=%s XDG_STATE_HOME=%s bash --norc --noprofile"
                      % (os.environ["XDG_CONFIG_HOME"], os.environ["XDG_STATE_HOME"]))
        if r.returncode:
            raise RuntimeError("tmux new-session: " + r.stderr)
        self.tmux("set-option", "-g", "remain-on-exit", "on")
        self.line("PS1='%s'; stty -g > %s/stty.before; clear" % (PROMPT, self.tmp))
        self.wait(lambda s: s.rstrip().endswith(PROMPT.rstrip()), 10)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null", *args],
                              capture_output=True, text=True)

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def raw(self, text):
        """Bytes as typed, escape sequences included (send-keys -l)."""
        self.tmux("send-keys", "-t", "t", "-l", text)

    def click(self, x, y, button=0, release=True):
        """A mouse press and release at column x, row y (0-based), as SGR
        reports: what a terminal sends once perftop asked for mouse events."""
        self.raw("\x1b[<%d;%d;%dM" % (button, x + 1, y + 1))
        if release and button < 64:  # the wheel has no release
            self.raw("\x1b[<%d;%d;%dm" % (button, x + 1, y + 1))

    def prompt(self, key, text):
        """A prompt's key, text typed into it, Enter."""
        self.keys(key)
        self.raw(text)
        self.keys("Enter")

    def line(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)
        self.tmux("send-keys", "-t", "t", "Enter")

    def screen(self, escapes=False):
        args = ["capture-pane", "-p", "-t", "t"] + (["-e"] if escapes else [])
        return self.tmux(*args).stdout

    def fmt(self, f):
        return self.tmux("display-message", "-p", "-t", "t", f).stdout.strip()

    def wait(self, pred, secs=15):
        """Polls the screen until pred(screen) holds; returns it, or None."""
        end = time.time() + secs
        while True:
            s = self.screen()
            if pred(s):
                return s
            if time.time() > end:
                tap.diag("timed out; the screen was:\n" + s)
                return None
            time.sleep(0.2)

    def wait_re(self, pattern, secs=15):
        return self.wait(lambda s: re.search(pattern, s, re.M) is not None, secs)

    def resize(self, w, h):
        self.tmux("resize-window", "-t", "t", "-x", str(w), "-y", str(h))

    def shell_pid(self):
        return int(self.fmt("#{pane_pid}"))

    def child_pid(self):
        """perftop, the shell's child, once it runs."""
        sp = self.shell_pid()
        for _ in range(50):
            try:
                with open("/proc/%d/task/%d/children" % (sp, sp)) as f:
                    kids = f.read().split()
                if kids:
                    return int(kids[0])
            except OSError:
                pass
            time.sleep(0.1)
        return None

    def start(self, perftop, *args, keep=False):
        """Runs perftop in the pane; its exit code is printed after it. Each
        start from no perftoprc and no state (a q writes what the view
        changed, and the last view), unless keep."""
        if not keep:
            for d in ("XDG_CONFIG_HOME", "XDG_STATE_HOME"):
                shutil.rmtree(os.environ[d], ignore_errors=True)
        cmd = " ".join([perftop] + list(args))
        self.line("%s; echo rc=$?" % cmd)
        return self.child_pid()

    def clean_exit(self, what, want_rc=0):
        """After perftop is gone: its rc, a prompt, the main screen, the tty modes."""
        s = self.wait_re(r"^rc=\d+\s*\n" + re.escape(PROMPT.rstrip()), 15)
        ok = tap.ok(s is not None, "%s: perftop left and the shell prompt is back" % what)
        rc = re.search(r"^rc=(\d+)", s or "", re.M)
        want = want_rc if isinstance(want_rc, (tuple, list)) else (want_rc,)
        tap.ok(rc is not None and int(rc.group(1)) in want,
               "%s: exit code %s (%s)" % (what, " or ".join(map(str, want)), rc.group(1) if rc else "?"))
        tap.ok(self.fmt("#{alternate_on}") == "0", "%s: no alternate screen left on" % what)
        self.line("stty -g | cmp -s - %s/stty.before && echo STTY-SAME || echo STTY-CHANGED" % self.tmp)
        s = self.wait_re(r"^STTY-(SAME|CHANGED)", 10)
        tap.ok(s is not None and "STTY-SAME" in s, "%s: terminal modes as before" % what)
        self.line("clear")
        self.wait(lambda sc: sc.strip() == PROMPT.rstrip(), 5)
        return ok

    def own(self, p):
        """A helper process (Popen) to end with the session; returns p."""
        self.procs.append(p)
        return p

    def workload(self, workload, *args):
        """tap.start_workload, ended with the session: (Popen, pid)."""
        p, pid = tap.start_workload(workload, *args)
        self.own(p)
        return p, pid
    def live(self, perftop, *args, ready=r"^Target: ", secs=15, keep=False):
        """Starts perftop and waits for its header; returns (pid, screen)."""
        pid = self.start(perftop, *args, keep=keep)
        return pid, self.wait_re(ready, secs)

    def quit(self, what="q"):
        self.keys("q")
        return self.clean_exit(what)

    def close(self):
        self.tmux("kill-server")
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def run(what, body, width=120, height=40, why=None):
    """The set-up and teardown every UI test shares. Skips (saying why) when
    tmux, the permissions or something the test needs (why) are missing;
    else runs body(t) with a private tmux server t, which is killed with
    every helper process t owns however body ends; then ends the TAP stream."""
    why = why or can_run()
    if why:
        tap.skip(what, why)
        tap.done()
    t = Tmux(width, height)
    try:
        body(t)
    finally:
        t.close()
    tap.done()


def help_find(t, pattern, pages=8):
    """Opens the help (h) and pages down (PgDn) until pattern shows; the
    screen, or None."""
    t.keys("h")
    s = t.wait_re(r"keys\s+\(more in man perftop\)", 10)
    for _ in range(pages):
        if s is None or re.search(pattern, s, re.M):
            return s
        top = s.splitlines()[1:3]
        t.keys("NPage")
        s = t.wait(lambda sc: sc.splitlines()[1:3] != top, 5)
    return s if s is not None and re.search(pattern, s, re.M) else None


def table_rows(screen):
    """The table's rows: the lines after the column titles, up to the message line."""
    lines = screen.splitlines()
    for i, l in enumerate(lines):
        if re.match(r"^\s*(Overhead|Children|PID|CPU)\s", l):
            return [x for x in lines[i + 1:-2] if x.strip()]
    return []


def column_titles(screen):
    for l in screen.splitlines():
        if re.match(r"^\s*(Overhead|Children|PID|CPU)\s", l):
            return l
    return ""


def workload_session(workload, width, height, *wargs):
    """The usual set-up of a live test: a workload with a known split and a
    tmux pane of the size asked; returns (tmux, workload Popen, its pid)."""
    wl, wpid = tap.start_workload(workload, *(wargs or ("split", "6,3,1", "60")))
    return Tmux(width, height), wl, wpid


def each_size(workload, body, sizes=((80, 24), (60, 12))):
    """The set-up of the issue-13 tests: skip (saying why) when they cannot
    run; else body(tmux, workload pid, width, height) at each size, with a
    workload of a known split and a pane of that size, both ended however
    body ends; then the TAP plan."""
    why = can_run()
    if why:
        tap.skip("live view in tmux", why)
        tap.done()
    for w, h in sizes:
        t, wl, wpid = workload_session(workload, w, h)
        try:
            body(t, wpid, w, h)
        finally:
            teardown(t, wl)
    tap.done()


def teardown(t, wl):
    t.close()
    if wl is not None:
        wl.kill()
        wl.wait()


def line_of(screen, pattern):
    """The first screen line matching pattern, or ''."""
    for l in screen.splitlines():
        if re.search(pattern, l):
            return l
    return ""


def can_run():
    """Why the UI tests cannot run here, or None."""
    if shutil.which("tmux") is None:
        return "tmux is not installed"
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read())
    except (OSError, ValueError):
        paranoid = 2
    if os.geteuid() != 0 and paranoid > 0:
        return "system-wide sampling needs root or perf_event_paranoid <= 0"
    return None


def tracepoint(event):
    """Whether tracefs shows tracepoint event ("sched/sched_switch")."""
    return any(os.path.exists("%s/events/%s/id" % (d, event))
               for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"))


def fits(screen, width):
    """A screen was captured and no line of it is wider than width."""
    return screen is not None and all(len(line) <= width for line in screen.splitlines())
