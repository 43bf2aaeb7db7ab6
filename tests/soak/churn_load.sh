#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The churn both soaks run, until killed: every half second a helper
# (dlopen/dlclose, short threads with new hostile names), a new copy of the
# helper at a new path (a new binary: a new DSO, a new table), and 20 short
# processes each exec'd through a new symlink, so each has a comm never seen
# before, with control characters and escape sequences in it.
#   churn_load.sh CHURN_HELPER DIR
set -u
helper=$1 dir=$2
mkdir -p "$dir/bin" || exit 1
i=0
while :; do
	"$helper" 2 "$i" >/dev/null &
	cp "$helper" "$dir/bin/copy$i" && "$dir/bin/copy$i" 0.2 "$i" >/dev/null
	rm -f "$dir/bin/copy$i"
	for j in $(seq 20); do
		# comm is the link's name (15 bytes): unique, hostile, long.
		l=$(printf '%s/bin/\033[2J%d.%d\a\tx%s' "$dir" "$i" "$j" "$(head -c 40 /dev/zero | tr '\0' 'y')")
		ln -sf /bin/true "$l" && "$l"
		rm -f "$l"
	done
	sleep 0.5
	wait
	i=$((i + 1))
done
