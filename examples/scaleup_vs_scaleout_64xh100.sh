#!/bin/sh
# Scale up or scale out for 64 H100s: every placement of 64 GPUs on H100 nodes (--partial-nodes: also those
# that leave GPUs of a node idle) (8-GPU DGX H100 and
# XE9680-class with NVSwitch, 4-GPU XE8640 with NVLink), DALI input (--data gpu), bf16, global batch
# 3200 x 2 (= 100 per GPU, the MLPerf-like regime where large scale keeps the per-GPU batch small).
# Writes scaleup_vs_scaleout_64xh100.csv into OUT_DIR (default $TMPDIR/scaleplan-examples, or /tmp/...).
# usage: examples/scaleup_vs_scaleout_64xh100.sh [OUT_DIR]
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SP=${SCALEPLAN:-$here/../build/scaleplan}
out=${1:-${TMPDIR:-/tmp}/scaleplan-examples}   # outside the repo: a clone stays clean
mkdir -p "$out"
csv="$out/scaleup_vs_scaleout_64xh100.csv"
"$SP" compare --gpus 64 --systems dgxh100,xe8640-h100 --partial-nodes --batch-per-gpu 100 --precision bf16 --data gpu \
	--fabric ib-ndr-fattree --out "$csv"
"$SP" compare --gpus 64 --systems dgxh100,xe8640-h100 --partial-nodes --batch-per-gpu 100 --precision bf16 --data gpu \
	--fabric ib-ndr-fattree | head -12
echo "wrote $csv"
