#!/bin/sh
# The example charts and procurement reports, regenerated from the built binary (needs gnuplot-nox):
#   tta.{svg,png}     the white paper's question (C4140-K vs C4140-M vs DGX-1 V100, 8x V100 NVLink) at 4, 8, 16
#                     GPUs: time to accuracy per system and placement, TensorFlow/Horovod stack, fp16, batch 128,
#                     JPEG decode on the CPUs (as examples/whitepaper_study.sh)
#   cost.{svg,png}    every priced system on 1-16 nodes: capex and energy per run vs time to accuracy, the Pareto
#                     front, a 2 M USD budget
#   parity.{svg,png}  `validate --detail`: predicted vs measured for every measurement on file (hold-out)
#   parity-whole-run.{svg,png}  `validate --group whole-run --detail`: ttt_s and tta_s of the MLPerf v4.0
#                     multi-node results, predicted from their submitters' single-node results
#   epochs.{svg,png}  the engine's Fashion-MNIST JPEG run on one H200 (bench/data/h200x2-2026-11-22-b/train_jpeg.csv)
#   report-whitepaper/  `scaleplan report` for the white paper's question
#   report-64xh100/     `scaleplan report` for 64 H100s: DGX H100 and XE9680 (8 per node) vs XE8640 (4 per node)
#                       at 16, 32, 64 GPUs, DALI input, 100 images per GPU (as scaleup_vs_scaleout_64xh100.sh)
# usage: examples/charts.sh [OUT_DIR]   (default examples/charts; SCALEPLAN=path/to/scaleplan)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SP=${SCALEPLAN:-$here/../build/scaleplan}
case "$SP" in /*) ;; *) SP="$PWD/$SP" ;; esac
out=${1:-$here/charts}
mkdir -p "$out"
cd "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wp="--precision fp16 --batch-per-gpu 128 --stack tf1-hvd --data cpu"
for g in 4 8 16; do
	# shellcheck disable=SC2086
	"$SP" compare --gpus "$g" --systems c4140-k,c4140-m,dgx1-v100 $wp --out "$work/wp$g.csv" >/dev/null
done
"$SP" plot "$work/wp4.csv" "$work/wp8.csv" "$work/wp16.csv" --out tta \
	--title 'White paper question: C4140-K vs C4140-M vs DGX-1 (V100), fp16, batch 128, CPU decode'
"$SP" sweep --systems all --nodes 1,2,4,8,16 --quiet --out "$work/sweep.csv" 2>/dev/null
"$SP" plot --kind cost "$work/sweep.csv" --budget 2000000 --out cost \
	--title 'Priced systems on 1-16 nodes: cost vs time to accuracy (budget 2 M USD)'
"$SP" validate --detail "$work/detail.csv" >/dev/null
"$SP" plot "$work/detail.csv" --out parity
"$SP" validate --group whole-run --detail "$work/whole-run.csv" >/dev/null
"$SP" plot "$work/whole-run.csv" --out parity-whole-run \
	--title 'MLPerf v4.0 multi-node ResNet-50, seconds: predicted from the same submitter single-node result vs measured'
"$SP" plot "$here/../bench/data/h200x2-2026-11-22-b/train_jpeg.csv" --out epochs \
	--title 'scaleplan-train on one H200: Fashion-MNIST as JPEG, 224 px, bf16, batch 256'
rm -rf report-whitepaper report-64xh100
# shellcheck disable=SC2086
"$SP" report --systems c4140-k,c4140-m,dgx1-v100 --gpus 4,8,16 $wp --out report-whitepaper
"$SP" report --systems dgxh100,xe9680-h100,xe8640-h100 --gpus 16,32,64 --batch-per-gpu 100 --data gpu \
	--out report-64xh100
echo "wrote $out: tta, cost, parity, parity-whole-run, epochs (.svg, .png), report-whitepaper/, report-64xh100/"
