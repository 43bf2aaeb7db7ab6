# SPDX-License-Identifier: GPL-2.0-or-later
"""Live tests of the exporter (--listen, --textfile, -b --format pprof): a real
Prometheus scrapes perftop while our workload runs, promtool checks both text
formats, go tool pprof reads the served profile and the pprof file, and
hostile clients get HTTP errors, never a crash or a stalled sampler.

usage: test_export.py PERFTOP WORKLOAD
"""
import fcntl
import gzip
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from tap import diag, done, finish_workload, is_root, ok, skip, start_workload  # noqa: E402

PERFTOP, WORKLOAD = sys.argv[1], sys.argv[2]
WL = os.path.basename(WORKLOAD)[:15]
HOT = ["hot_a", "hot_b", "hot_c"]
SHARE_TOLERANCE = 3
# An ASan+UBSan build decodes several times slower; on a loaded machine its
# intervals stretch by themselves. The bounds stay below what a blocked loop
# would show (a 3 s push, 6 s of held connections).
SANITIZED = os.environ.get("PERFTOP_SANITIZED", "none") not in ("", "none")
MAX_INTERVAL = 2.5 if SANITIZED else 1.5
MIN_INTERVAL_SHARE = 0.3 if SANITIZED else 0.8
procs = []          # everything we started, killed on every way out
tmpdirs = []


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    for d in tmpdirs:
        shutil.rmtree(d, ignore_errors=True)


def tmpdir():
    d = tempfile.mkdtemp(prefix="perftop-export-")
    tmpdirs.append(d)
    return d


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(port, path, headers=None, timeout=30):
    """(status, headers, body bytes); status None when the connection failed."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, dict(r.getheaders()), body
    except (OSError, http.client.HTTPException) as e:
        return None, {}, str(e).encode()


def start_exporter(*args):
    """perftop --listen on a free port, headless; returns (Popen, port) once /metrics answers."""
    port = free_port()
    p = subprocess.Popen([PERFTOP, "--listen", "127.0.0.1:%d" % port, *args], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    procs.append(p)
    end = time.time() + 60
    last = None
    while time.time() < end and p.poll() is None:
        st, _, body = get(port, "/metrics", timeout=5)
        if st == 200:
            return p, port
        last = (st, body[:200])
        time.sleep(0.1)
    rc, _, err = stop(p)
    raise RuntimeError("perftop --listen %d did not answer (%r; exit %r: %s)" % (port, last, rc, err.decode()))


def stop(p, sig=signal.SIGTERM, secs=20):
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=secs)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, out, err
    return p.returncode, out, err


def metric(page, prefix):
    for line in page.splitlines():
        if line.startswith(prefix + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def check_shares(label, flat, measured):
    diag("%s: samples %r, workload measured %r" % (label, {h: flat.get(h) for h in HOT}, measured))
    if not ok(all(flat.get(h, 0) > 0 for h in HOT), "%s: hot_a, hot_b, hot_c in the profile" % label):
        return
    s = sum(flat[h] for h in HOT)
    for h in HOT:
        got = 100.0 * flat[h] / s
        ok(abs(got - measured[h]) <= SHARE_TOLERANCE, "%s: %s %.1f%% within %d points of the measured %.1f%%"
           % (label, h, got, SHARE_TOLERANCE, measured[h]))


def pprof_top(src, env, *extra):
    """Flat sample counts by function name from go tool pprof -top."""
    r = subprocess.run(["go", "tool", "pprof", "-top", "-sample_index=samples", "-nodefraction=0",
                        "-nodecount=100000", *extra, src], capture_output=True, text=True, timeout=240, env=env)
    flat, table = {}, False
    for line in r.stdout.splitlines():
        parts = line.split()
        if parts[:2] == ["flat", "flat%"]:
            table = True
            continue
        if table and len(parts) >= 6:
            try:
                flat[" ".join(parts[5:])] = flat.get(" ".join(parts[5:]), 0) + int(parts[0])
            except ValueError:
                pass
    return r.returncode, flat, r.stderr


def pprof_mappings(src, env):
    """{file: build-id} of a profile's mappings, as go tool pprof -raw prints them."""
    r = subprocess.run(["go", "tool", "pprof", "-raw", src], capture_output=True, text=True, timeout=240, env=env)
    maps, table = {}, False
    for line in r.stdout.splitlines():
        if line.strip() == "Mappings":
            table = True
            continue
        parts = line.split()
        # "1: 0x0/0x0/0x0 FILE BUILDID [FN]": the build-id is left out when empty.
        if table and len(parts) >= 3 and parts[0].endswith(":"):
            rest = [x for x in parts[2:] if not x.startswith("[FN")]
            maps[rest[0]] = rest[1] if len(rest) > 1 else ""
    return maps


def elf_build_id(path):
    r = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, timeout=30)
    for line in r.stdout.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return None


def kernel_build_id():
    """The GNU build-id note of /sys/kernel/notes, as perf reads it."""
    try:
        with open("/sys/kernel/notes", "rb") as f:
            b = f.read()
    except OSError:
        return None
    off = 0
    while off + 12 <= len(b):
        namesz, descsz, typ = (int.from_bytes(b[off + i:off + i + 4], sys.byteorder) for i in (0, 4, 8))
        name = b[off + 12:off + 12 + namesz]
        desc_off = off + 12 + ((namesz + 3) & ~3)
        if typ == 3 and name == b"GNU\0":
            return b[desc_off:desc_off + descsz].hex()
        off = desc_off + ((descsz + 3) & ~3)
    return None


def check_build_ids(label, src, env):
    """The workload's mapping (its DSO found in /proc: it ran before perftop)
    carries readelf's build-id; the kernel's, /sys/kernel/notes' when sampled."""
    if not shutil.which("readelf"):
        skip("%s: build-ids" % label, "no readelf: apt-get install binutils")
        return
    maps = pprof_mappings(src, env)
    diag("%s: mappings %r" % (label, maps))
    want = elf_build_id(os.path.realpath(WORKLOAD))
    got = maps.get(os.path.realpath(WORKLOAD), maps.get(WORKLOAD))
    ok(want and got == want, "%s: the workload's mapping carries its build-id (%r, readelf %r)" % (label, got, want))
    kbid = kernel_build_id()
    if "[kernel.kallsyms]" not in maps or kbid is None:
        skip("%s: the kernel's build-id" % label, "no kernel samples or no /sys/kernel/notes")
    else:
        ok(maps["[kernel.kallsyms]"] == kbid, "%s: [kernel.kallsyms] carries /sys/kernel/notes' build-id (%r, %r)"
           % (label, maps["[kernel.kallsyms]"], kbid))
    # The system's files only: others' builds may replace theirs while we sample.
    files = [f for f in maps if f.startswith("/usr/") and os.path.exists(f) and elf_build_id(f)]
    if not files:
        skip("%s: the system's ELF files carry their build-ids" % label, "no sample fell in a /usr file this run")
    else:
        ok(all(maps[f] == elf_build_id(f) for f in files),
           "%s: the system's ELF files (libc...) carry their build-ids (%d files)" % (label, len(files)))


def pprof_tag_values(src, env, tag="comm"):
    """{value: samples} of a sample label, from go tool pprof -raw."""
    r = subprocess.run(["go", "tool", "pprof", "-raw", src], capture_output=True, text=True, timeout=240, env=env)
    out, last = {}, None
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].endswith(":"):
            last = int(parts[0])
            continue
        s = line.strip()
        if last is not None and s.startswith(tag + ":[") and s.endswith("]"):
            out[s[len(tag) + 2:-1]] = out.get(s[len(tag) + 2:-1], 0) + last
        if not s or s == "Locations":
            last = None
    return out


def check_comm_label(label, src, env):
    """Every sample of the workload's hot functions carries comm=WL: the same
    counts with and without -tagfocus on it."""
    _, flat, _ = pprof_top(src, env)
    _, focus, err = pprof_top(src, env, "-tagfocus=comm=^%s$" % WL)
    ok(flat.get("hot_a") and all(focus.get(h) == flat.get(h) for h in HOT),
       "%s: the workload's samples carry comm=%s (%r of %r; %s)" % (label, WL, {h: focus.get(h) for h in HOT},
                                                                    {h: flat.get(h) for h in HOT}, err.strip()[-200:]))


def go_env():
    d = tmpdir()
    env = dict(os.environ, PPROF_TMPDIR=d, HOME=d, GOCACHE=os.path.join(d, "gocache"))
    return env


def test_prometheus():
    if not shutil.which("prometheus"):
        skip("Prometheus scrapes perftop", "no prometheus binary: apt-get install prometheus")
        return
    wl, pid = start_workload(WORKLOAD, "split", "6,3,1", "20")
    procs.append(wl)
    top, port = start_exporter("-d", "1")
    d = tmpdir()
    pport = free_port()
    with open(os.path.join(d, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "scrape_configs:\n  - job_name: perftop\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % port)
    prom = subprocess.Popen(["prometheus", "--config.file=" + os.path.join(d, "prometheus.yml"),
                             "--storage.tsdb.path=" + os.path.join(d, "data"),
                             "--web.listen-address=127.0.0.1:%d" % pport, "--log.level=warn"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    procs.append(prom)
    query = 'perftop_comm_samples_total{comm="%s"}' % WL
    found, up, target = None, None, {}
    end = time.time() + 60
    while time.time() < end and prom.poll() is None:
        st, _, body = get(pport, "/api/v1/query?" + urllib.parse.urlencode({"query": query}), timeout=5)
        if st == 200:
            res = json.loads(body)["data"]["result"]
            if res and float(res[0]["value"][1]) > 0:
                found = res
                break
        time.sleep(1)
    st, _, body = get(pport, "/api/v1/query?query=up", timeout=5)
    if st == 200:
        res = json.loads(body)["data"]["result"]
        up = res[0]["value"][1] if res else None
    st, _, body = get(pport, "/api/v1/targets", timeout=5)
    if st == 200:
        ts = json.loads(body)["data"]["activeTargets"]
        target = ts[0] if ts else {}
    diag("query %s: %r; target %r" % (query, found, {k: target.get(k) for k in ("health", "lastError")}))
    ok(found is not None, "Prometheus has the workload's series, found by its comm")
    ok(up == "1" and target.get("health") == "up" and target.get("lastError") == "",
       "the scrape is healthy, no parse error (up=%r, %r)" % (up, target.get("lastError")))
    st, _, body = get(pport, "/api/v1/query?" + urllib.parse.urlencode(
        {"query": 'perftop_symbol_samples_total{symbol="hot_a"}'}), timeout=5)
    ok(st == 200 and json.loads(body)["data"]["result"], "the workload's hot_a is a symbol series")
    prom.terminate()
    prom.wait(timeout=30)
    rc, _, err = stop(top)
    ok(rc == 0, "headless perftop exits 0 on SIGTERM (%r %s)" % (rc, err.decode().strip()))
    finish_workload(wl)


def series(page, family):
    """{frozenset of (label, value): value} of a family's samples (plain label values only)."""
    out = {}
    for line in page.splitlines():
        if not line.startswith(family + "{"):
            continue
        labels, value = line[len(family) + 1:].rsplit("} ", 1)
        pairs = (kv.split("=", 1) for kv in labels.split(","))
        out[frozenset((k, v.strip('"')) for k, v in pairs)] = float(value)
    return out


def check_lost_pairs(page):
    """Lost and throttled per (event, CPU): a series for every pair sampled, and
    summed they are the per-event and per-CPU families of the same page."""
    for what, by_ev, by_cpu in (("lost_samples", "perftop_lost_samples_total", "perftop_cpu_lost_samples_total"),
                                ("throttled", "perftop_throttled_total", "perftop_cpu_throttled_total")):
        pairs = series(page, "perftop_event_cpu_%s_total" % what)
        evs = {dict(k)["event"]: v for k, v in series(page, by_ev).items()}
        cpus = {dict(k)["cpu"]: v for k, v in series(page, by_cpu).items()}
        want = {frozenset({("event", e), ("cpu", c)}) for e in evs for c in cpus}
        ok(evs and cpus and set(pairs) == want,
           "perftop_event_cpu_%s_total: one series per event and CPU (%d of %d)" % (what, len(pairs), len(want)))
        ok(all(sum(v for k, v in pairs.items() if dict(k)["event"] == e) == evs[e] for e in evs) and
           all(sum(v for k, v in pairs.items() if dict(k)["cpu"] == c) == cpus[c] for c in cpus),
           "perftop_event_cpu_%s_total: summed over cpu the per-event family, over event the per-CPU one (%r)"
           % (what, {e: evs[e] for e in evs}))


def test_formats():
    top, port = start_exporter("-d", "0.5")
    time.sleep(1.2)
    st, h, prom_page = get(port, "/metrics")
    st2, h2, om_page = get(port, "/metrics", {"Accept": "application/openmetrics-text; version=1.0.0"})
    rc, _, err = stop(top)
    ok(st == 200 and h.get("Content-Type", "").startswith("text/plain; version=0.0.4"),
       "0.0.4 by default (%r)" % h.get("Content-Type"))
    ok(st2 == 200 and h2.get("Content-Type", "").startswith("application/openmetrics-text; version=1.0.0"),
       "OpenMetrics when asked (%r)" % h2.get("Content-Type"))
    if not shutil.which("promtool"):
        skip("promtool checks both formats", "no promtool: apt-get install prometheus")
        return
    r = subprocess.run(["promtool", "check", "metrics"], input=prom_page, capture_output=True, timeout=60)
    ok(r.returncode == 0, "promtool check metrics accepts the 0.0.4 page (%s)" % r.stderr.decode().strip()[:300])
    # promtool's OpenMetrics parser is in its block importer, which wants a
    # timestamp on each sample: add one, change nothing else.
    d = tmpdir()
    lines = [ln if ln.startswith("#") else ln + " 1700000000" for ln in om_page.decode().splitlines()]
    with open(os.path.join(d, "om.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    r = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", os.path.join(d, "om.txt"),
                        os.path.join(d, "blocks")], capture_output=True, timeout=120)
    ok(r.returncode == 0, "promtool's OpenMetrics parser accepts the page (%s)" % r.stderr.decode().strip()[:300])
    ok(om_page.endswith(b"# EOF\n") and b"# TYPE perftop_samples counter\n" in om_page,
       "OpenMetrics: counter TYPE without _total, ends in # EOF")
    page = prom_page.decode()
    check_lost_pairs(page)
    ok(metric(page, "perftop_process_cpu_seconds_total") is not None and
       (metric(page, "perftop_process_resident_memory_bytes") or 0) > 0, "own CPU seconds and RSS")
    ex, cpu = metric(page, "perftop_export_cpu_seconds_total"), metric(page, "perftop_process_cpu_seconds_total")
    ok(ex is not None and cpu is not None and 0 < ex <= cpu,
       "the exporter's CPU counted, a part of perftop's (%r of %r)" % (ex, cpu))


def test_profile():
    if not shutil.which("go"):
        skip("go tool pprof reads /debug/pprof/profile", "no go: apt-get install golang-go")
        return
    wl, pid = start_workload(WORKLOAD, "split", "6,3,1", "10")
    procs.append(wl)
    top, port = start_exporter("-d", "0.5")
    env = go_env()
    # Fetched once, read twice: go tool pprof saves what it fetched.
    d = tmpdir()
    rc, flat, err = pprof_top("http://127.0.0.1:%d/debug/pprof/profile?seconds=5" % port, dict(env, PPROF_TMPDIR=d))
    measured = finish_workload(wl)
    ok(rc == 0, "go tool pprof fetches and reads the profile (%s)" % err.strip()[-300:])
    check_shares("served profile", flat, measured)
    saved = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".pb.gz")]
    ok(len(saved) == 1, "go tool pprof saved the served profile (%r)" % os.listdir(d))
    if saved:
        check_build_ids("served profile", saved[0], env)
        check_comm_label("served profile", saved[0], env)
    stop(top)


def test_pprof_file():
    if not shutil.which("go"):
        skip("go tool pprof reads the -b --format pprof file", "no go: apt-get install golang-go")
        return
    d = tmpdir()
    out = os.path.join(d, "run.pb.gz")
    # -p: the run ends when the workload exits, so the file covers all of it.
    wl, pid = start_workload(WORKLOAD, "split", "6,3,1", "4")
    procs.append(wl)
    r = subprocess.run([PERFTOP, "-b", "--format", "pprof", "-o", out, "-d", "1", "-p", str(pid)],
                       capture_output=True, text=True, timeout=60)
    measured = finish_workload(wl)
    ok(r.returncode == 0 and os.path.exists(out), "-b --format pprof -o FILE -p PID: written when the process exits (%s)" % r.stderr.strip())
    if not os.path.exists(out):
        return
    with open(out, "rb") as f:
        ok(f.read(2) == b"\x1f\x8b", "the file is gzip'd")
    rc, flat, err = pprof_top(out, go_env())
    ok(rc == 0, "go tool pprof reads the file (%s)" % err.strip()[-300:])
    check_shares("pprof file", flat, measured)
    check_build_ids("pprof file", out, go_env())
    check_comm_label("pprof file", out, go_env())
    # A stop signal ends the run too, and the file is still written.
    out2 = os.path.join(d, "sig.pb.gz")
    p = subprocess.Popen([PERFTOP, "-b", "--format", "pprof", "-o", out2, "-d", "0.5"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    procs.append(p)
    time.sleep(1.5)
    rc, _, err = stop(p, signal.SIGINT)
    ok(rc == 0 and os.path.getsize(out2) > 20, "SIGINT ends the run and the file is written (%r %s)"
       % (rc, err.decode().strip()))
    r = subprocess.run([PERFTOP, "-b", "--format", "pprof", "-n", "1"], capture_output=True, text=True, timeout=30)
    ok(r.returncode == 2 and "-o FILE" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
       "--format pprof without -o: one line, exit 2 (%s)" % r.stderr.strip())


def pprof_traces(src, env):
    """go tool pprof -traces: [(comm, [frames, leaf first])]."""
    r = subprocess.run(["go", "tool", "pprof", "-traces", src], capture_output=True, text=True, timeout=240, env=env)
    traces, comm, frames = [], None, None
    for line in r.stdout.splitlines():
        if line.startswith("-----------+"):
            if frames:
                traces.append((comm, frames))
            comm, frames = None, []
        elif frames is not None and line.strip().startswith("comm:"):
            comm = line.split(":", 1)[1].strip()
        elif frames is not None and line.strip():
            parts = line.split()
            # The first frame of a trace comes after its value (e.g. 1.68s).
            frames.append(parts[-1])
    if frames:
        traces.append((comm, frames))
    return r.returncode, traces, r.stderr


def test_pprof_stacks():
    """-b -g --format pprof writes whole stacks, leaf first (issue 46 item 5):
    cgwork's hot under caller_a and caller_b, both under main."""
    cgwork = os.path.join(os.path.dirname(WORKLOAD), "cgwork_fp")
    if not shutil.which("go") or not os.path.exists(cgwork):
        skip("-g pprof file has whole stacks", "no go, or no cgwork_fp beside the workload")
        return
    out = os.path.join(tmpdir(), "stacks.pb.gz")
    wl = subprocess.Popen([cgwork, "3"], stdout=subprocess.PIPE, text=True)
    procs.append(wl)
    r = subprocess.run([PERFTOP, "-b", "-g", "--format", "pprof", "-o", out, "-d", "1", "-p", str(wl.pid)],
                       capture_output=True, text=True, timeout=120)
    finish_workload(wl)
    ok(r.returncode == 0 and os.path.exists(out), "-b -g --format pprof -p PID: written (%s)" % r.stderr.strip())
    if not os.path.exists(out):
        return
    rc, traces, err = pprof_traces(out, go_env())
    ok(rc == 0, "go tool pprof -traces reads the file (%s)" % err.strip()[-300:])
    under = {f[1] for _, f in traces if len(f) >= 3 and f[0] == "hot" and f[2] == "main"}
    diag("hot's callers: %r; %d traces" % (under, len(traces)))
    ok({"caller_a", "caller_b"} <= under, "hot under caller_a and under caller_b, each under main (%r)" % under)
    ok(any(f[0] == "lone" and len(f) > 1 and f[1] == "main" for _, f in traces), "lone under main")
    ok(all(c == "cgwork_fp" for c, f in traces if "hot" in f), "the stacks carry the comm label")


def raw(port, data, timeout=20):
    """Sends raw bytes; returns what came back before the server closed."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        got = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
    except OSError:
        pass
    finally:
        s.close()
    return got


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if c < 0x80:
            return v, i


def window_of(body):
    """(start, end) in ns of a gzip'd pprof profile: its time_nanos (9) and duration_nanos (10)."""
    b = gzip.decompress(body)
    i, f = 0, {}
    while i < len(b):
        key, i = varint(b, i)
        wt = key & 7
        if wt == 0:
            v, i = varint(b, i)
            f[key >> 3] = v
        elif wt == 2:
            n, i = varint(b, i)
            i += n
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        else:
            return None
    if 9 not in f or 10 not in f:
        return None
    return f[9], f[9] + f[10]


def threads_of(pid):
    return len(os.listdir("/proc/%d/task" % pid))


def test_junk_request():
    """A junk request (a NUL first, which libmicrohttpd took for an empty line
    and waited on until its 15 s idle timeout) is answered 400 and closed at
    once; with no line end too. Loopback only (issue 46 item 17)."""
    top, port = start_exporter("-d", "0.5")
    before = metric(get(port, "/metrics")[2].decode(), "perftop_http_rejected_total") or 0
    for data in (b"\x00\xff garbage\r\n\r\n", b"\x00\xff garbage", b"garbage\r\n\r\n"):
        t0 = time.time()
        got = raw(port, data, timeout=8)
        took = time.time() - t0
        ok(got.startswith(b"HTTP/1.1 400 ") and took < 8,
           "junk %r: 400 and closed in %.1f s, not held to the idle timeout (%r)" % (data, took, got[:40]))
    end, st, after = time.time() + 10, None, 0
    while time.time() < end and not (st == 200 and after >= before + 3):  # the page of a later interval
        st, _, body = get(port, "/metrics")
        after = metric(body.decode(errors="replace"), "perftop_http_rejected_total") or 0
        time.sleep(0.2)
    ok(st == 200 and after >= before + 3, "the server serves on; the junk counted as rejected (%r -> %r)"
       % (before, after))
    stop(top)


def test_one_server_thread():
    """Waiting requests are suspended on the one server thread: held
    connections and concurrent profiles add no threads, the profiles' windows
    overlap (each its own, none waits for another), and a client that sends
    half a request or never reads its profile holds up neither /metrics nor
    the intervals."""
    top, port = start_exporter("-d", "0.5")
    base = threads_of(top.pid)
    page = get(port, "/metrics")[2].decode()
    before = metric(page, "perftop_intervals_total")
    held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(20)]
    held[0].sendall(b"GET /metrics HTTP/1.1\r\nHo")          # half a request, then nothing
    held[1].sendall(b"GET /debug/pprof/profile?seconds=1 HTTP/1.1\r\nHost: x\r\n\r\n")  # never read
    results = []

    def one():
        st, _, body = get(port, "/debug/pprof/profile?seconds=3", timeout=60)
        results.append((st, window_of(body) if st == 200 else None))
    ts = [threading.Thread(target=one) for _ in range(3)]
    for t in ts:
        t.start()
    time.sleep(1)
    during = threads_of(top.pid)
    st, _, body = get(port, "/metrics", timeout=10)
    mid = metric(body.decode(errors="replace"), "perftop_intervals_total") if st == 200 else None
    for t in ts:
        t.join()
    ok(during - base <= 2, "20 held connections and 3 waiting profiles add no threads (%d, then %d)"
       % (base, during))
    ok(st == 200 and mid is not None and before is not None and mid > before,
       "/metrics served, intervals going on, while profiles wait and clients stall (%r %r)" % (before, mid))
    wins = [w for s, w in results if s == 200 and w]
    ok(len(wins) == 3, "3 concurrent profiles served (%r)" % results)
    overlap = all(a[0] < b[1] and b[0] < a[1] for a in wins for b in wins)
    ok(len(wins) == 3 and overlap, "their windows overlap: each its own, none waited for another (%r)" % wins)
    for s in held:
        s.close()
    rc, _, err = stop(top, signal.SIGINT)
    ok(rc == 0, "SIGINT with requests held: exit 0 (%r %s)" % (rc, err.decode().strip()))


def test_keep_alive():
    """A scraper's connection is kept: /metrics, a profile (suspended, then
    resumed) and /metrics again over one connection, none answered with
    Connection: close (each scrape would otherwise cost an accept and a
    teardown on the server's thread)."""
    top, port = start_exporter("-d", "0.5")
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    got = []
    try:
        for path in ("/metrics", "/debug/pprof/profile?seconds=1", "/metrics"):
            c.request("GET", path)
            if not got:
                sock = c.sock
            r = c.getresponse()
            r.read()
            got.append((path, r.status, r.getheader("Connection"), c.sock is sock and not r.will_close))
    except (OSError, http.client.HTTPException) as e:
        got.append(("error", str(e)))
    c.close()
    ok(len(got) == 3 and all(g[1] == 200 and g[3] for g in got),
       "three requests over one kept-alive connection (%r)" % got)
    # A GET with a body is no scraper's: answered at once, the body unread, the connection closed.
    got = raw(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"a" * 1000)
    ok(got.startswith(b"HTTP/1.1 200") and b"perftop_intervals_total" in got,
       "a GET with a body gets its page without sending the body (%r)" % got[:40])
    rc, _, err = stop(top, signal.SIGINT)
    ok(rc == 0, "SIGINT: exit 0 (%r %s)" % (rc, err.decode().strip()))


def test_stalled_loop():
    """A suspended request is answered even when the main loop stalls (here
    on its dump: a full pipe nobody reads): the profile with the window so
    far, a page not rendered lately with the last one. libmicrohttpd never
    times a suspended connection out; without a limit of our own they would
    wait for ever."""
    port = free_port()
    p = subprocess.Popen([PERFTOP, "--listen", "127.0.0.1:%d" % port, "-b", "--format", "json", "-d", "0.5",
                          "-F", "4000"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    procs.append(p)
    fcntl.fcntl(p.stdout.fileno(), 1031, 4096)  # F_SETPIPE_SZ: a few intervals' dump fill it
    seen, same, end = None, 0, time.time() + 60
    while same < 4 and time.time() < end and p.poll() is None:
        st, _, body = get(port, "/metrics", timeout=5)
        v = metric(body.decode(errors="replace"), "perftop_intervals_total") if st == 200 else None
        same = same + 1 if v is not None and v == seen else 0
        seen = v
        time.sleep(0.5)
    ok(same >= 4, "the main loop stalled on its dump (intervals stay at %r)" % seen)
    st, _, body = get(port, "/debug/pprof/profile?seconds=1", timeout=60)
    ok(st == 200 and gzip.decompress(body) is not None,
       "a profile asked for meanwhile is answered with what there is (%r %r)" % (st, body[:60]))
    st, _, body = get(port, "/metrics", {"Accept": "application/openmetrics-text; version=1.0.0"}, timeout=60)
    ok(st == 200 and b"perftop_intervals_total" in body,
       "so is a page not rendered lately (the last one) (%r %r)" % (st, body[:60]))
    drain = threading.Thread(target=p.stdout.read, daemon=True)
    drain.start()
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        rc = None
    ok(rc == 0, "once its dump is read, SIGTERM ends it: exit 0 (%r)" % rc)


def test_bad_requests():
    top, port = start_exporter("-d", "0.5")
    st, _, body = get(port, "/nope")
    ok(st == 404, "unknown path: 404 (%r)" % st)
    for q in ("-1", "0", "99999999", "abc", "1.5"):
        st, _, body = get(port, "/debug/pprof/profile?seconds=" + q)
        ok(st == 400 and b"seconds must be" in body, "seconds=%s: 400 with a clear body (%r %r)" % (q, st, body[:80]))
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("POST", "/metrics", body=b"x" * 100)
        st = c.getresponse().status
        c.close()
    except (OSError, http.client.HTTPException):
        st = None
    ok(st == 405, "POST: 405 (%r)" % st)
    got = raw(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")
    ok(got[:12] in (b"HTTP/1.1 431", b"HTTP/1.1 413", b"HTTP/1.1 414", b"HTTP/1.1 400") or got == b"",
       "an oversized request is refused (%r)" % got[:40])
    got = raw(port, b"\x00\xff garbage \r\n\r\n")
    ok(not got.startswith(b"HTTP/1.1 200"), "a malformed request gets no page (%r)" % got[:40])
    # More connections than the limit, held open idle, while intervals go on.
    before = metric(get(port, "/metrics")[2].decode(), "perftop_intervals_total")
    t0 = time.time()
    socks = []
    for _ in range(150):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    time.sleep(3)
    for s in socks:
        s.close()
    # Over the limit, connections are closed at once; the held ones go as
    # the server sees them close: it serves again within seconds.
    st, body, end = None, b"", time.time() + 20
    while st != 200 and time.time() < end:
        st, _, body = get(port, "/metrics")
        time.sleep(0.2)
    after = metric(body.decode(errors="replace"), "perftop_intervals_total")
    want = (time.time() - t0) / 0.5
    ok(st == 200 and top.poll() is None, "after %d idle connections perftop serves again" % len(socks))
    ok(before is not None and after is not None and after - before >= MIN_INTERVAL_SHARE * want - 2,
       "and intervals went on meanwhile (%r of about %.0f)" % (after - before if after and before else None, want))
    # Profiles at once: each its own window up to the bound, then 503.
    results = []

    def one():
        results.append(get(port, "/debug/pprof/profile?seconds=2", timeout=60)[0])
    ts = [threading.Thread(target=one) for _ in range(12)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    diag("12 concurrent profiles: %r" % sorted(results, key=str))
    ok(results.count(200) >= 1 and results.count(503) >= 1 and set(results) <= {200, 503},
       "concurrent profiles: some served, those over the bound get 503")
    rc, _, err = stop(top, signal.SIGINT)
    ok(rc == 0, "SIGINT: exit 0 (%r %s)" % (rc, err.decode().strip()))


def test_port_in_use():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    try:
        r = subprocess.run([PERFTOP, "--listen", "127.0.0.1:%d" % port, "-d", "0.5"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=30)
    finally:
        s.close()
    lines = r.stderr.strip().splitlines()
    ok(r.returncode == 1 and len(lines) == 1 and str(port) in lines[0] and "in use" in lines[0],
       "--listen on a port in use: one line naming the port, exit 1 (%r %r)" % (r.returncode, lines))
    r = subprocess.run([PERFTOP, "--listen", "nothost:x"], capture_output=True, text=True, timeout=30)
    ok(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, "a bad --listen: usage error (%s)"
       % r.stderr.strip())


def test_textfile():
    d = tmpdir()
    p = subprocess.Popen([PERFTOP, "--textfile", d, "-d", "0.3"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    procs.append(p)
    path = os.path.join(d, "perftop.prom")
    end = time.time() + 20
    while time.time() < end and not os.path.exists(path):
        time.sleep(0.1)
    time.sleep(1)
    rc, _, err = stop(p)
    ok(rc == 0 and os.path.exists(path), "--textfile alone runs headless and writes DIR/perftop.prom (%r %s)"
       % (rc, err.decode().strip()))
    ok(os.listdir(d) == ["perftop.prom"], "no temp file left beside it (%r)" % os.listdir(d))
    if os.path.exists(path) and shutil.which("promtool"):
        with open(path, "rb") as f:
            r = subprocess.run(["promtool", "check", "metrics"], stdin=f, capture_output=True, timeout=60)
        ok(r.returncode == 0, "promtool accepts it (%s)" % r.stderr.decode().strip()[:200])
    r = subprocess.run([PERFTOP, "--textfile", "/nonexistent/dir", "-d", "0.3"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=30)
    ok(r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "/nonexistent/dir" in r.stderr,
       "--textfile on a missing directory: one line, exit 1 (%s)" % r.stderr.strip())


class Receiver:
    """A Pyroscope stand-in: records each POST (path, headers, body); delay
    makes it slow."""

    def __init__(self, port, delay=0.0):
        import http.server
        rec = self
        self.requests = []
        self.delay = delay

        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(n)
                time.sleep(rec.delay)
                rec.requests.append((self.path, dict(self.headers), body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *a):
                pass
        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), H)
        self.t = threading.Thread(target=self.srv.serve_forever, daemon=True)
        self.t.start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def profile_part(headers, body):
    """The 'profile' part of a multipart/form-data body."""
    import email.parser
    import email.policy
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + headers.get("Content-Type", "").encode() + b"\r\n\r\n" + body)
    for part in msg.iter_parts():
        if part.get_param("name", header="content-disposition") == "profile":
            return part.get_payload(decode=True)
    return None


def push_run(port, *extra, secs=60):
    r = subprocess.run([PERFTOP, "-b", "--format", "json", "-d", "0.5", "-n", "10", "-e", "cpu-clock",
                        "--stats", "--push", "http://127.0.0.1:%d" % port, "--push-every", "1", *extra],
                       capture_output=True, text=True, timeout=secs)
    recs = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    return r, recs


def on_time(label, r, recs):
    ivl = [x["interval"] for x in recs]
    lost = sum(x["events"][0]["lost"] for x in recs)
    ok(r.returncode == 0 and len(recs) == 10, "%s: all 10 intervals written (rc %r)" % (label, r.returncode))
    # 3x the period, as test_overload allows: the shared test machine stalls
    # everything now and then; a push blocking the loop would take 3 s here.
    ok(ivl and max(ivl[1:]) < MAX_INTERVAL, "%s: intervals after the first stayed on time (longest %.3f s of 0.5)"
       % (label, max(ivl[1:]) if ivl else -1))
    ok(lost == 0, "%s: no sample lost (%d)" % (label, lost))


def label_safe(s):
    return "".join(c if c.isascii() and (c.isalnum() or c in "-._") else "_" for c in s)


def test_push_focus():
    """-p of one process: Pyroscope's name carries its comm too, label-safe."""
    wl, pid = start_workload(WORKLOAD, "split", "6,3,1", "8")
    procs.append(wl)
    port = free_port()
    rcv = Receiver(port)
    try:
        r, recs = push_run(port, "-p", str(pid))
    finally:
        rcv.close()
    finish_workload(wl)
    names = {urllib.parse.parse_qs(urllib.parse.urlsplit(path).query).get("name", [""])[0]
             for path, _, _ in rcv.requests}
    want = "perftop{host=%s,comm=%s}" % (label_safe(socket.gethostname()), label_safe(WL))
    ok(r.returncode == 0 and names == {want}, "-p PID: the name is %s (%r; rc %r)" % (want, names, r.returncode))
    prof = profile_part(*rcv.requests[0][1:]) if rcv.requests else None
    if prof and shutil.which("go"):
        d = tmpdir()
        with open(os.path.join(d, "focus.pb.gz"), "wb") as f:
            f.write(prof)
        comms = pprof_tag_values(os.path.join(d, "focus.pb.gz"), go_env())
        ok(set(comms) == {WL}, "and its samples' comm label is the workload's (%r)" % comms)


def test_push():
    port = free_port()
    rcv = Receiver(port)
    try:
        r, recs = push_run(port)
    finally:
        rcv.close()
    reqs = rcv.requests
    on_time("--push", r, recs)
    ok(len(reqs) >= 4, "a profile a second reached the receiver (%d)" % len(reqs))
    if not reqs:
        return
    path, headers, body = reqs[0]
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
    diag("first push: %s" % path)
    ok(urllib.parse.urlsplit(path).path == "/ingest" and q.get("format") == ["pprof"] and
       q.get("name", [""])[0].startswith("perftop{host=") and q.get("name", [""])[0].endswith("}") and
       int(q["from"][0]) <= int(q["until"][0]) and q.get("sampleRate") == ["4000"],
       "Pyroscope's parameters: name=perftop{host=...}, from <= until, format=pprof, sampleRate")
    ok("comm=" not in q.get("name", [""])[0], "system-wide, the name has no comm")
    prof = profile_part(headers, body)
    ok(prof is not None and prof[:2] == b"\x1f\x8b", "the body's profile part is gzip'd")
    if prof and shutil.which("go"):
        d = tmpdir()
        with open(os.path.join(d, "pushed.pb.gz"), "wb") as f:
            f.write(prof)
        rc, flat, err = pprof_top(os.path.join(d, "pushed.pb.gz"), go_env())
        ok(rc == 0 and flat, "go tool pprof reads the pushed profile (%s)" % err.strip()[-200:])
        comms = pprof_tag_values(os.path.join(d, "pushed.pb.gz"), go_env())
        ok(comms and sum(comms.values()) == sum(flat.values()),
           "each pushed sample has a comm label (%d of %d samples; %r)"
           % (sum(comms.values()), sum(flat.values()), sorted(comms)[:8]))
    ok("not sent" not in r.stderr, "nothing reported unsent (%s)" % r.stderr.strip())
    st = recs[-1].get("stats", {}) if recs else {}
    ok(st.get("push_sent", 0) >= 3 and st.get("push_failed") == 0 and st.get("push_dropped") == 0,
       "--stats shows the pushes (%r)" % {k: v for k, v in st.items() if k.startswith("push")})

    test_push_focus()

    # Down for the first 2 s: windows wait in the queue and all arrive.
    port = free_port()
    holder = {}
    t = threading.Timer(2.0, lambda: holder.setdefault("r", Receiver(port)))
    t.start()
    try:
        r, recs = push_run(port)
    finally:
        t.cancel()
        t.join()
        if "r" in holder:
            holder["r"].close()
    on_time("--push, receiver down at first", r, recs)
    got = len(holder["r"].requests) if "r" in holder else 0
    ok(got >= 4 and "not sent" not in r.stderr,
       "the windows of the outage arrived once it was back (%d; %s)" % (got, r.stderr.strip()))

    # Slow: 3 s a request, so profiles queue up behind it.
    port = free_port()
    rcv = Receiver(port, delay=3.0)
    t0 = time.time()
    try:
        r, recs = push_run(port)
    finally:
        rcv.close()
    on_time("--push, slow receiver", r, recs)
    diag("slow receiver: %d received, run took %.1f s; %s" % (len(rcv.requests), time.time() - t0, r.stderr.strip()))
    ok(time.time() - t0 < 20, "exit is not held up for long by a slow receiver (%.1f s)" % (time.time() - t0))
    r = subprocess.run([PERFTOP, "-b", "-n", "1", "--push", "https://x"], capture_output=True, text=True, timeout=30)
    ok(r.returncode == 2 and "http only" in r.stderr, "--push https://: usage error saying http only (%s)"
       % r.stderr.strip())


if not is_root():
    skip("exporter", "needs root (perf_event_paranoid)")
    done()
try:
    test_port_in_use()
    test_formats()
    test_bad_requests()
    test_junk_request()
    test_one_server_thread()
    test_keep_alive()
    test_stalled_loop()
    test_textfile()
    test_pprof_file()
    test_pprof_stacks()
    test_profile()
    test_prometheus()
    test_push()
finally:
    cleanup()
done()
