#!/bin/sh
# Runs that measure steady state: a JPEG run whose last epoch lies more than 3% above the mean of its steady
# epochs (2 on) is named by calibrate with its lower weight and marked in runs.csv's column steady by
# campaign --fit-only (rewritten, not added twice, on a second fit); the campaign sizes the JPEG runs' epochs
# from the folder's images so that the steady window holds 300 batches a rank (--epochs overrides).
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${SCALEPLAN:-./build/scaleplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "steady_runs: $*" >&2; exit 1; }

cp -r bench/data/h200x4-2026-11-28/campaign "$T/c"
"$SP" campaign --out "$T/c" --fit-only >"$T/fit.txt" 2>&1 || fail "fit-only failed: $(tail -3 "$T/fit.txt")"
# g4x1 jpeg: epochs 2-4 at 27,281, 30,394, 30,970 img/s: the last 4.8% over their mean, weight 0.03 / 0.048
grep -q 'g4x1_b256_jpeg-gpu_nvlink.csv:2: not steady: its last epoch +4.8% .*weight 0.62' "$T/fit.txt" ||
	fail "rising run not named: $(grep 'not steady' "$T/fit.txt")"
[ "$(grep -c 'not steady' "$T/fit.txt")" -eq 5 ] || fail "expected 5 rising runs: $(grep 'not steady' "$T/fit.txt")"
head -1 "$T/c/runs.csv" | grep -q '^id,status,exit,seconds,limit_s,steady$' || fail "runs.csv header: $(head -1 "$T/c/runs.csv")"
grep -q '^g4x1_b256_jpeg-gpu_nvlink,ok,0,29,150,rising +4.8%$' "$T/c/runs.csv" || fail "runs.csv: g4x1 jpeg not rising"
grep -q '^g1x2_b256_jpeg-gpu_emulated,ok,0,31,150,yes$' "$T/c/runs.csv" || fail "runs.csv: g1x2 jpeg not steady"
grep -q '^g1x1_b256_synthetic_none,ok,0,14,150,$' "$T/c/runs.csv" || fail "runs.csv: synthetic run judged"
cp "$T/c/runs.csv" "$T/runs1.csv"
"$SP" campaign --out "$T/c" --fit-only >/dev/null 2>&1 || fail "second fit-only failed"
cmp -s "$T/runs1.csv" "$T/c/runs.csv" || fail "second fit changed runs.csv: $(head -2 "$T/c/runs.csv")"

# epochs sized: 8,704 JPEGs at 4 ranks x 256 give 8 batches an epoch: 1 + 300 / 8 -> 39 epochs
mkdir -p "$T/f/train/n1" "$T/f/val/n1"
i=0
while [ $i -lt 8704 ]; do : >"$T/f/train/n1/$i.JPEG"; i=$((i + 1)); done
"$SP" campaign --out "$T/e" --host-gpus 4 --data-dir "$T/f" >"$T/e.txt" || fail "campaign with a folder refused"
grep -q 'JPEG runs: 39 epochs' "$T/e.txt" || fail "epochs not sized: $(grep 'JPEG runs' "$T/e.txt")"
grep -q -- '--epochs 39' "$T/e/run_mpirun.sh" || fail "run lines without --epochs 39"
"$SP" campaign --out "$T/e3" --host-gpus 4 --data-dir "$T/f" --epochs 3 >"$T/e3.txt" || fail "--epochs 3 refused"
grep -q 'JPEG runs: 3 epochs' "$T/e3.txt" || fail "--epochs 3 not kept"
echo "steady_runs: ok"
