#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The live view under churn, for as long as asked (10 minutes by default):
# perftop's screen (not -b) in a private tmux server, and beside it `perf
# top` (when present) in another, both sampling the whole system while
# churn_load.sh starts processes and threads with new hostile names, new
# binaries, dlopen/dlclose. Every 5 s each tool's RSS is read; at the end
# perftop's RSS after the first minute, at the end and at most, and perf
# top's. A benchmark: it reports, and fails only when perftop's RSS at the
# end is more than 10 % above its size after the first minute.
# --baseline OTHER_PERFTOP runs another build beside them (the same churn,
# the same load), for a before/after.
#   live_soak.sh PERFTOP CHURN_HELPER [--seconds N] [--no-perf] [--baseline OTHER_PERFTOP]
set -uo pipefail
perftop=$1 helper=$2
shift 2
secs=600 perf=1 base=
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) secs=$2; shift 2 ;;
	--no-perf) perf=0; shift ;;
	--baseline) base=$2; shift 2 ;;
	*) echo "usage: live_soak.sh PERFTOP CHURN_HELPER [--seconds N] [--no-perf] [--baseline PERFTOP]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "live_soak.sh: needs root (system-wide sampling)"; exit 77; }
command -v tmux >/dev/null || { echo "live_soak.sh: tmux not installed"; exit 77; }
[ "$secs" -ge 90 ] || { echo "live_soak.sh: --seconds must be at least 90" >&2; exit 2; }
command -v perf >/dev/null || perf=0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/perftop-livesoak.XXXXXX")
sock=perftop-livesoak-$$
churn_pid=
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
	[ -n "$churn_pid" ] && kill "$churn_pid" 2>/dev/null
	tm kill-server 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

rss() {
	local r
	r=$(awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null)
	echo "${r:-0}"
}

tm new-session -d -x 200 -y 50 -s top "exec $perftop" || exit 1
ppid_=$(tm display-message -p -t top '#{pane_pid}')
if [ "$perf" = 1 ]; then
	# perf top as the pane shell's child: exec'd, it quits at once here.
	tm new-session -d -x 200 -y 50 -s perf "perf top -e cpu-clock -F 4000 2>/dev/null" || perf=0
	sleep 1
	perf_pid=$(pgrep -x -P "$(tm display-message -p -t perf '#{pane_pid}')" perf | head -1)
	[ -n "$perf_pid" ] || { echo "perf top did not start: without it"; perf=0; }
fi
if [ -n "$base" ]; then
	tm new-session -d -x 200 -y 50 -s base "exec $base" || exit 1
	base_pid=$(tm display-message -p -t base '#{pane_pid}')
fi
"$(dirname "$0")/churn_load.sh" "$helper" "$tmp/churn" &
churn_pid=$!

perf_died=0 rss_1m=0 rss_max=0 perf_max=0 last=0 perf_last=0 base_1m=0 base_last=0
for ((t = 5; t <= secs; t += 5)); do
	sleep 5
	if ! kill -0 "$ppid_" 2>/dev/null; then
		echo "FAIL: perftop exited early"
		exit 1
	fi
	last=$(rss "$ppid_")
	[ "$t" -eq 60 ] && rss_1m=$last
	[ "$t" -ge 60 ] && [ "$last" -gt "$rss_max" ] && rss_max=$last
	if [ "$perf" = 1 ] && ! kill -0 "$perf_pid" 2>/dev/null; then
		echo "perf top exited at t=${t}s (at most $perf_max KiB until then)"
		perf=0 perf_died=1
	fi
	if [ "$perf" = 1 ]; then
		perf_last=$(rss "$perf_pid")
		[ "$perf_last" -gt "$perf_max" ] && perf_max=$perf_last
	fi
	if [ -n "$base" ]; then
		base_last=$(rss "$base_pid")
		[ "$t" -eq 60 ] && base_1m=$base_last
	fi
	printf 't=%4ds perftop rss=%6d KiB%s%s\n' "$t" "$last" \
		"$([ "$perf" = 1 ] && printf '  perf top rss=%6d KiB' "$perf_last")" \
		"$([ -n "$base" ] && printf '  baseline rss=%6d KiB' "$base_last")"
done
shot=$(tm capture-pane -p -t top | head -3)
echo "$shot" | sed 's/^/screen: /'
printf 'perftop RSS: after 1 min %d KiB, at the end %d KiB (%+.1f %%), at most %d KiB after 1 min\n' \
	"$rss_1m" "$last" "$(awk -v a="$rss_1m" -v b="$last" 'BEGIN { print a ? 100 * (b - a) / a : 0 }')" "$rss_max"
[ "$perf" = 1 ] && printf 'perf top RSS: at the end %d KiB, at most %d KiB; perftop/perf top at the end %.2f\n' \
	"$perf_last" "$perf_max" "$(awk -v a="$last" -v b="$perf_last" 'BEGIN { print b ? a / b : 0 }')"
[ "$perf_died" = 1 ] && echo "perf top did not last the churn (it aborts on these names and binaries)"
[ -n "$base" ] && printf 'baseline RSS: after 1 min %d KiB, at the end %d KiB\n' "$base_1m" "$base_last"
if [ "$last" -gt $((rss_1m * 11 / 10)) ]; then
	echo "live soak: RSS grew more than 10 % after the first minute"
	exit 1
fi
echo "live soak: OK"
