#!/bin/sh
# Calibration evidence on the 2x H200 test machine (issue 8): calibrate on the single-GPU runs (two batch
# sizes) plus one all-reduce sweep per transport, then predict the 2-GPU runs - NVLink, and 2 emulated nodes
# over sockets - from that profile alone (nothing fitted to them) and compare with the measurements.
#
#   sh bench/calibrate_h200x2.sh [DIR]     DIR: measurement CSVs (default bench/data/h200x2); no GPU needed
#
# DIR holds scaleplan-train measurement CSVs (1- and 2-GPU runs) and all-reduce sweep CSVs
# (scaleplan-train --bench-allreduce). Writes build/h200x2/{profile.csv,detail.csv}; prints a table last.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
DIR=${1:-bench/data/h200x2}
SP=${SCALEPLAN:-./build/scaleplan}
OUT=${OUT:-build/h200x2}
if [ ! -d "$DIR" ] || [ -z "$(ls "$DIR"/*.csv 2>/dev/null)" ]; then
	echo "calibrate_h200x2: no measurement CSVs in $DIR (the 2x H200 runs have not been dropped there)" >&2
	exit 1
fi
[ -x "$SP" ] || make -s all >/dev/null
mkdir -p "$OUT"
echo "== calibrate: 1-GPU runs + all-reduce sweeps from $DIR"
"$SP" calibrate --measurements "$DIR" --where gpus=1 --out "$OUT/profile.csv"
echo
echo "== hold-out: 2-GPU runs predicted from $OUT/profile.csv (not fitted to them)"
"$SP" validate --no-builtin --against "$DIR" --profile "$OUT/profile.csv" --where kind=throughput,gpus=2 \
	--detail "$OUT/detail.csv" >"$OUT/table.txt"
cat "$OUT/table.txt"
echo
echo "== per run (err_pct = predicted / measured - 1)"
awk -F, 'NR == 1 { next } { n++; e = $6 < 0 ? -$6 : $6; s += e; if (e > w) w = e;
	printf "  %-18s %d GPU, %d node(s) x %d, %-12s batch %4d: measured %8.1f predicted %8.1f img/s  %+6.2f%%\n", $2 ":" $3, $8, $9, $10, $11, $12, $4, $5, $6 }
	END { if (n) printf "MAE over %d 2-GPU runs: %.2f%% (worst %.2f%%); goal <= 5%%: %s\n", n, s / n, w, s / n <= 5 ? "met" : "NOT met" }' \
	"$OUT/detail.csv"
