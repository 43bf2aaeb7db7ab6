#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The bash completion (completions/perftop): sourced, it completes
perftop; '-' offers every option --help lists; a prefix its options; -e the
events --list-events lists, in a comma list too; --format its formats; an
option's argument no options; and meson install puts it in
bash-completion's completionsdir."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "live"))
import tap  # noqa: E402

FILE, PERFTOP, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]


def complete(*words, loader=False):
    """COMPREPLY for the command line PERFTOP words..., the last being completed."""
    script = ("%ssource %s; COMP_WORDS=(%s); COMP_CWORD=%d; _perftop; printf '%%s\\n' \"${COMPREPLY[@]}\""
              % ("source /usr/share/bash-completion/bash_completion; " if loader else "", FILE,
                 " ".join("'%s'" % w for w in (PERFTOP,) + words), len(words)))
    r = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, text=True, timeout=60)
    return [l for l in r.stdout.splitlines() if l]


r = subprocess.run(["bash", "--norc", "-c", "source %s; complete -p perftop" % FILE], capture_output=True, text=True)
tap.ok(r.returncode == 0 and r.stdout.strip() == "complete -F _perftop perftop",
       "sourced: complete -p perftop says _perftop (%r)" % r.stdout)

helptext = subprocess.run([PERFTOP, "--help"], capture_output=True, text=True).stdout
want = set()
for line in helptext.splitlines():
    m = re.match(r"^\s+((?:-[-\w]+,?\s?)+)", line)
    if m:
        want.update(w.rstrip(",") for w in m.group(1).split())
got = set(complete("-"))
tap.ok(len(want) > 40 and want == got, "'-': every option --help lists (%d), no other: missing %s, extra %s"
       % (len(want), sorted(want - got), sorted(got - want)))
tap.ok("--config" in got and "--no-config" in got, "--config and --no-config among them")
tap.ok(complete("--no-c") == ["--no-children", "--no-color", "--no-config"], "--no-c: the three")

events = subprocess.run([PERFTOP, "--list-events"], capture_output=True, text=True).stdout
tap.ok("cpu-clock" in events, "--list-events lists cpu-clock")
tap.ok(complete("-e", "cpu-cl") == ["cpu-clock"] and "cpu-cycles" in complete("-e", "cpu-c"),
       "-e cpu-cl: cpu-clock; cpu-c: the cycles alias too")
tap.ok(complete("--event", "cycles,task-c") == ["cycles,task-clock"], "-e in a comma list: cycles,task-clock")
tap.ok(complete("--format", "") == ["text", "csv", "json", "folded", "svg", "pprof"], "--format: the formats")
tap.ok(complete("-d", "") == [], "-d's argument: nothing offered")
tap.ok(complete("--sort", "comm,s") == ["comm,sym", "comm,srcline"] and "srcline" in complete("-s", ""),
       "--sort: perf's keys in a comma list, srcline among them")
tap.ok(complete("--call-graph", "d") == ["dwarf"], "--call-graph d: dwarf")
if os.path.exists("/usr/share/bash-completion/bash_completion"):
    tap.ok(complete("--no-c", loader=True) == ["--no-children", "--no-color", "--no-config"],
           "with bash-completion loaded too")

# meson install: into bash-completion's completionsdir under the prefix.
dest = tempfile.mkdtemp(prefix="perftop-install-")
try:
    r = subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild", "--destdir", dest, "--quiet"],
                       capture_output=True, text=True, timeout=300)
    found = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs
             if f == "perftop" and d.endswith("bash-completion/completions")]
    tap.ok(r.returncode == 0 and len(found) == 1, "meson install puts it in .../bash-completion/completions (%s %s)"
           % (found, r.stderr[-300:]))
finally:
    shutil.rmtree(dest, ignore_errors=True)
tap.done()
