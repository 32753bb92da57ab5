#!/bin/sh
# What the pick rests on (plan_flip): `compare --gpus 8` says on a `Rests on:` line the factor on the pick's
# predicted speed below which the rule picks another option, and the CSV carries it as flip_speed_ratio on the
# pick's row alone (0.25-1: the search's range), the same figure the line quotes to two decimals. Report and
# sweep, where they decide, say the same: report.md's answer has the line and placements.csv the pick's figure
# (one per GPU count), sweep prints the line under each answer and its CSV carries the pick's figure.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SP=${SCALEPLAN:-build/scaleplan}
fail=0
no() { echo "FAIL: $*"; fail=1; }
line=$("$SP" compare --gpus 8 | grep "^  Rests on: ")
[ -n "$line" ] || no "compare --gpus 8 has no Rests on: line"
csv=$("$SP" compare --gpus 8 --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["flip_speed_ratio"] != "" { n++; x = $h["flip_speed_ratio"]; p = $h["pick"] } END { print n + 0, x, p }')
set -- $csv
[ "$1" = 1 ] || no "flip_speed_ratio on $1 rows, expected the pick's alone"
[ "${3:-}" = 1 ] || no "flip_speed_ratio is not on the pick's row"
awk -v x="${2:-0}" 'BEGIN { exit !(x > 0.25 && x < 1) }' || no "flip_speed_ratio ${2:-} outside 0.25-1"
q=$(awk -v x="${2:-0}" 'BEGIN { printf "%.2fx", x }')
case "$line" in *"under $q its predicted speed"*) ;; *) no "the line does not quote $q: $line" ;; esac
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
picks() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["flip_speed_ratio"] != "" { n++; if ($h["pick"] != 1 || !($h["flip_speed_ratio"] > 0.25 && $h["flip_speed_ratio"] < 1)) bad++ }
	END { print n + 0, bad + 0 }' "$1"; }
"$SP" report --systems dgxh100,dgxb200 --gpus 8,64 --out "$tmp/rep" >/dev/null 2>&1 || no "report failed"
[ "$(grep -c '^- Rests on: ' "$tmp/rep/report.md")" = 2 ] || no "report.md's answer has no Rests on: line per GPU count"
[ "$(picks "$tmp/rep/placements.csv")" = "2 0" ] || no "report's placements.csv: flip_speed_ratio on (rows, bad) $(picks "$tmp/rep/placements.csv"), expected one pick per GPU count"
out=$("$SP" sweep --systems dgxh100,dgxb200 --nodes 1,2 --out "$tmp/sweep.csv" --quiet) || no "sweep failed"
echo "$out" | grep -q "^  Rests on: " || no "sweep's answer has no Rests on: line"
[ "$(picks "$tmp/sweep.csv")" = "1 0" ] || no "sweep's CSV: flip_speed_ratio on (rows, bad) $(picks "$tmp/sweep.csv"), expected the pick's alone"
[ $fail -eq 0 ] && echo "rests_on: ok"
exit $fail
