#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One bounded libFuzzer run for meson test: fuzz_one.sh HARNESS SEED_DIR OUT_DIR NAME
# Fuzzes a copy of the seed corpus (the repo's stays as it is) for
# $FUZZ_SECONDS (default 60). Exit 0 only when the whole run was clean.
set -uo pipefail
exe=$1 seeds=$2 out=$3 name=$4
secs=${FUZZ_SECONDS:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/perftop-fuzz-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$seeds/." "$work/"
dict=$(dirname "$0")/$name.dict
dict_arg=()
[ -f "$dict" ] && dict_arg=("-dict=$dict")
# halt_on_error: UB is a failure; detect_leaks: so is a leak.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1
# Not 77: meson counts exit 77 as a skip, and a crash must fail.
timeout --kill-after=10 $((secs + 120)) "$exe" "${dict_arg[@]}" \
	-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-error_exitcode=70 -timeout_exitcode=71 \
	-artifact_prefix="$out/crash-$name-" -print_final_stats=1 "$work" 2>"$work.log"
rc=$?
# The whole log on failure; the tail (with the exec count) when clean.
if [ $rc -ne 0 ]; then
	cat "$work.log"
else
	grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|INITED' "$work.log"
fi
rm -f "$work.log"
echo "fuzz_$name: exit $rc after ${secs}s"
exit $rc
