#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Churn soak: processes and threads with names never seen before start and
# exit, new binaries run, libraries are dlopen()ed and dlclose()d
# (churn_load.sh), while `perftop -b --format json -d 0.5 --stats` samples
# the whole system. Once a second perftop's RSS (VmRSS) and fd count are
# sampled. Passes when, after the warm-up, RSS stays flat net of the spill
# (last <= 1.2 x warm-up + 2 MiB + what the spill may hold of the bytes
# --stats says went into it since: a busy machine makes perftop fall
# behind, and a backlog is resident, not leaked; leaks are the leak
# checker's), the fd count does not grow, every interval was written,
# and perftop's own accounting shows rows and tables going as fast as the
# churn brings them: symbol rows expired, idle tables dropped, the tables
# held not growing with the binaries run.
#   churn.sh PERFTOP CHURN_HELPER [--seconds N]     (default 75)
set -uo pipefail
perftop=$1 helper=$2
shift 2
secs=75
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) secs=$2; shift 2 ;;
	*) echo "usage: churn.sh PERFTOP CHURN_HELPER [--seconds N]" >&2; exit 2 ;;
	esac
done
# Sampling the whole system wants root; 77 tells meson it was skipped.
[ "$(id -u)" -eq 0 ] || { echo "churn.sh: needs root"; exit 77; }
[ "$secs" -ge 20 ] || { echo "churn.sh: --seconds must be at least 20" >&2; exit 2; }
warm=$((secs / 4 > 15 ? 15 : secs / 4))

# ASan keeps freed memory in quarantine (256 MiB by default) before reuse,
# which grows RSS without a leak; a small one still catches use-after-free,
# and the bound below allows for it filling after the warm-up.
asan_kib=0
case ${PERFTOP_SANITIZED:-none} in
none | '') ;;
*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4:thread_local_quarantine_size_kb=64"
	asan_kib=$((4096 + 1024)) ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/perftop-soak.XXXXXX")
churn_pid=
cleanup() {
	[ -n "$churn_pid" ] && kill "$churn_pid" 2>/dev/null
	[ -n "${ppid_:-}" ] && kill "$ppid_" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

"$perftop" -b --format json -d 0.5 --stats >"$tmp/out.jsonl" 2>"$tmp/err" &
ppid_=$!
start=$(date +%s.%N)

# The churn, gently enough to leave CPU to others.
"$(dirname "$0")/churn_load.sh" "$helper" "$tmp/churn" &
churn_pid=$!

fail=0
rss_series=() fd_series=() warm_time=0
for ((t = 1; t <= secs; t++)); do
	sleep 1
	if ! kill -0 "$ppid_" 2>/dev/null; then
		echo "FAIL: perftop exited early: $(cat "$tmp/err")"
		exit 1
	fi
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$ppid_/status")
	fds=$(ls "/proc/$ppid_/fd" | wc -l)
	rss_series+=("$rss") fd_series+=("$fds")
	[ "$t" -eq "$warm" ] && warm_time=$(date +%s.%N) # the loop runs late on a busy machine
	printf 't=%3ds rss=%6d KiB fds=%d\n' "$t" "$rss" "$fds"
done
kill "$churn_pid" 2>/dev/null
wait "$churn_pid" 2>/dev/null
churn_pid=
kill -INT "$ppid_"
wait "$ppid_"
rc=$?
ppid_=
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')

rss_warm=${rss_series[warm - 1]} rss_last=${rss_series[secs - 1]}
rss_max=$(printf '%s\n' "${rss_series[@]:warm-1}" | sort -n | tail -1)
fd_warm=${fd_series[warm - 1]}
# What the spill may have made resident since the warm-up: no more than was
# written into it (--stats' spilled_bytes, since start), a page per CPU
# more, and no more than the spills' size (4 kernel rings, at least 4 MiB,
# per CPU). A backlog's pages stay until read, and a lap's high-water mark
# stays for good (ring.h: keep). And what the symbol tables held grew by
# (symbol_table_bytes): bounded by symbol_table_limit, their count checked
# below.
ncpus=$(getconf _NPROCESSORS_ONLN)
read -r spill_kib tables_kib < <(python3 - "$tmp/out.jsonl" "$warm_time" "$ncpus" <<'PY'
import json, sys
recs = [r for r in map(json.loads, filter(str.strip, open(sys.argv[1]))) if "stats" in r]
warm_time, ncpus = float(sys.argv[2]), int(sys.argv[3])
if len(recs) < 2:
    print(0, 0)
    sys.exit()
at = ([r for r in recs if r["time"] <= warm_time] or recs[:1])[-1]["stats"]
st = [r["stats"] for r in recs]
spilled = st[-1]["spilled_bytes"] - at["spilled_bytes"]
size = ncpus * max(4 * st[-1]["ring_bytes"], 4 << 20)
tables = st[-1]["symbol_table_bytes"] - at["symbol_table_bytes"]
print((min(spilled + ncpus * 4096, size) if spilled else 0) // 1024, max(tables, 0) // 1024)
PY
)
limit=$((rss_warm * 12 / 10 + 2048 + ${spill_kib:-0} + ${tables_kib:-0} + asan_kib))
echo "RSS: start ${rss_series[0]} KiB, at warm-up (${warm}s) $rss_warm KiB, max after $rss_max KiB, last $rss_last KiB (limit $limit KiB: spill since warm-up ${spill_kib:-0} KiB, symbol tables ${tables_kib:-0} KiB more, ASan $asan_kib KiB)"
echo "fds: at warm-up $fd_warm, after: $(printf '%s\n' "${fd_series[@]:warm-1}" | sort -n | uniq | tr '\n' ' ')"
if [ "$rss_last" -gt "$limit" ]; then
	echo "FAIL: RSS grew after warm-up: $rss_warm -> $rss_last KiB"
	fail=1
fi
# A table being read holds an fd for a moment (new binaries come every
# second): a leak is an fd count that stays up, not one sample above.
fd_end=$(printf '%s\n' "${fd_series[@]: -5}" | sort -n | head -1)
if [ "$fd_end" -gt "$fd_warm" ]; then
	echo "FAIL: fd count grew after warm-up: $(printf '%s ' "${fd_series[@]}")"
	fail=1
fi
if [ $rc -ne 0 ] || [ -s "$tmp/err" ]; then
	echo "FAIL: perftop exit $rc, stderr: $(cat "$tmp/err")"
	fail=1
fi
# Every interval: iterations 1..N without a gap, each line JSON, the final
# one marked, their measured lengths adding up to the time between the
# first and the last (none lost), and the -d 0.5 tick kept (the median). Not
# a count per second of wall clock: on a busy machine a tick may come late
# and its interval is longer, as measured.
python3 - "$tmp/out.jsonl" "$elapsed" "$warm" <<'PY' || fail=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
elapsed = float(sys.argv[2])
its = [r["iteration"] for r in recs]
want = elapsed / 0.5
print("intervals: %d written in %.1f s (%.0f expected), last %r" %
      (len(recs), elapsed, want, recs[-1].get("final") if recs else None))
lens = sorted(r["interval"] for r in recs[1:])
span = recs[-1]["time"] - recs[0]["time"] if recs else 0
summed = sum(lens)
print("intervals: %.1f s between the first and the last, %.1f s measured, median %.3f s" %
      (span, summed, lens[len(lens) // 2] if lens else 0))
bad = its != list(range(1, len(its) + 1)) or len(recs) < 20 or "final" not in recs[-1]
if bad:
    print("FAIL: intervals missing or out of order: %s" % its)
elif abs(span - summed) > 0.02 * span + 0.5 or not 0.4 <= lens[len(lens) // 2] <= 0.6:
    print("FAIL: intervals do not add up to the run or the 0.5 s tick was not kept")
    bad = True
# perftop's own accounting, not RSS: about one new binary a second ran, so
# without expiry its symbol rows and tables would pile up.
st = [r["stats"] for r in recs if "stats" in r]
w = min(int(sys.argv[3]) * 2, len(st) - 1)
if len(st) < 20:
    print("FAIL: too few intervals with stats: %d" % len(st))
    sys.exit(1)
rows = lambda s: s["rows_symbols"] + s["rows_tasks"] + s["rows_threads"]
late = sorted(rows(s) for s in st[-len(st) // 3:])
early = sorted(rows(s) for s in st[w:w + len(st) // 3])
end = st[-1]
print("rows: median %d early, %d late; expired symbols %d tasks %d threads %d; "
      "tables %d at warm-up, %d at the end, %d evicted idle" %
      (early[len(early) // 2], late[len(late) // 2], end["expired_symbols"], end["expired_tasks"],
       end["expired_threads"], st[w]["symbol_tables"], end["symbol_tables"], end["symbol_tables_evicted_idle"]))
if end["expired_symbols"] < 20:
    print("FAIL: symbol rows of exited binaries did not expire")
    bad = True
# How many binaries were sampled at all depends on the machine; that a table
# idle for 32 intervals went, and that the count did not pile up, does not.
if end["symbol_tables_evicted_idle"] < 1 or end["symbol_tables"] > st[w]["symbol_tables"] + 40:
    print("FAIL: symbol tables of binaries no longer run were kept")
    bad = True
if late[len(late) // 2] > 2 * early[len(early) // 2] + 300:
    print("FAIL: live rows grew with the churn")
    bad = True
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ] && echo "soak: OK" || echo "soak: FAILED"
exit $fail
