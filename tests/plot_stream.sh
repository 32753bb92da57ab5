#!/bin/sh
# `scaleplan plot` reads a CSV in batches: its memory is the chart's, not the file's (a 4 M-row sweep CSV
# used to take 4.3 GB). Checked by drawing a ~150 MB sweep CSV under a 200 MB address-space limit (the whole
# file in memory took about 6x its size), and by drawing the same rows three times over: one point per
# system, GPUs per node and GPU count (the fastest), so the chart is the same as from the rows once.
# Progress goes to stderr and uses \r only on a terminal. Skipped without gnuplot. Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
case "$S" in /*) ;; *) S="$PWD/$S" ;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "plot_stream: gnuplot not found: skipped"; exit 0; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail=0

"$S" sweep --systems all --include-eol --nodes 1-100 --batch-per-gpu 8-336:8 --quiet --out once.csv >/dev/null 2>&1 ||
	{ echo "FAIL setup: sweep"; exit 1; }
{ head -1 once.csv; for i in 1 2 3; do tail -n +2 once.csv; done; } >thrice.csv
rows=$(($(wc -l <thrice.csv) - 1))
[ "$rows" -gt 400000 ] || { echo "FAIL setup: only $rows rows"; exit 1; }

"$S" plot once.csv --format svg --out once >/dev/null 2>&1 || { echo "FAIL plot once.csv"; fail=1; }
# 200 MB of address space for scaleplan and gnuplot each: the file is ~150 MB, its cells several times that.
# A sanitizer build reserves terabytes of shadow address space: there the limit is left out.
limit="ulimit -v 200000"
case "${BUILD:-build}" in *san*) limit=: ; echo "plot_stream: sanitizer build: no address-space limit" ;; esac
(eval "$limit" && "$S" plot thrice.csv --format svg --out thrice) >out.txt 2>err.txt ||
	{ echo "FAIL plot of a $rows-row CSV under a 200 MB limit: $(head -c 300 err.txt)"; fail=1; }
cmp -s once.svg thrice.svg || { echo "FAIL the rows three times over draw another chart than once"; fail=1; }
# not a terminal here: progress lines, never a carriage return
if tr -d '\n' <err.txt | grep -q "$(printf '\r')"; then echo "FAIL progress redrawn with \\r on a non-terminal"; fail=1; fi

[ $fail -eq 0 ] && echo "plot_stream: $rows rows drawn in bounded memory"
exit $fail
