#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# memcheck on a short live run: no leak, no invalid access. 77 = skipped.
case "${PERFTOP_SANITIZED:-none}" in
none|'') ;;
*) echo "skip: this build uses -fsanitize=$PERFTOP_SANITIZED, which valgrind cannot run; the plain build runs it"; exit 77 ;;
esac
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 77; }
exec valgrind --leak-check=full \
	--error-exitcode=99 "$1" -b -n 2 -d 0.5
