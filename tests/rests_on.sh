#!/bin/sh
# What the pick rests on (plan_flip): `compare --gpus 8` says on a `Rests on:` line the factor on the pick's
# predicted speed below which the rule picks another option, and the CSV carries it as flip_speed_ratio on the
# pick's row alone (0.25-1: the search's range), the same figure the line quotes to two decimals.
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
[ $fail -eq 0 ] && echo "rests_on: ok"
exit $fail
