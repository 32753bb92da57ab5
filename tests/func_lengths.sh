#!/bin/sh
# Short functions: outside exec/ (the engine's kernels and launch plans), tests/ and bench/, at most 3 functions
# run over 80 lines (tools/func_lengths.sh measures them as the tree's style writes a function). A longer one is
# a function that does several things; split it where its parts have names. Run by tools/run_tests.sh.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
dirs=$(for d in */; do case "$d" in exec/ | tests/ | bench/ | build*/) ;; *) printf '%s ' "${d%/}" ;; esac; done)
# shellcheck disable=SC2086
long=$(sh tools/func_lengths.sh -n 80 $dirs) || exit 2
n=$(printf '%s' "$long" | grep -c .)
[ -n "$long" ] && printf '%s\n' "$long"
if [ "$n" -gt 3 ]; then
	echo "FAIL: $n functions over 80 lines outside exec/, tests/ and bench/ (at most 3)"
	exit 1
fi
echo "functions over 80 lines outside exec/, tests/ and bench/: $n (at most 3)"
