#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the libFuzzer harnesses (clang, ASan+UBSan) in build-fuzz and runs
# each for FUZZ_SECONDS (default 60). Extra arguments go to meson test,
# e.g. tests/fuzz/run.sh fuzz_elf, or --num-processes 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${FUZZ_BUILD_DIR:-build-fuzz}
if [ ! -d "$dir" ]; then
	CC=clang meson setup "$dir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
fi
meson compile -C "$dir"
exec meson test -C "$dir" --suite fuzz --print-errorlogs "$@"
