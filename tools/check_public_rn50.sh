#!/bin/sh
# Predicts every row of refdata/public_rn50.csv (public ResNet-50 throughput with its source) with the stack the
# row ran (Lambda's DLE PyTorch eager NCHW: pytorch-nchw; MLPerf v4.0: ngc-mlperf; DLE MXNet: mxnet-dle; DLE
# PyTorch: pytorch-dle) on its system, GPU count (one node), batch and precision, and prints the error and
# whether the measurement lies inside the prediction's 90% interval; then the mean absolute error and the
# coverage. The 1-GPU rows of Lambda's runs and the DLE PyTorch 21.03 rows are in the fit (hwdb stack_effs.csv);
# the multi-GPU rows, the MLPerf rows' 8 GPUs and DLE MXNet 22.10 (a later container than the fitted 20.12) are not.
# usage: tools/check_public_rn50.sh [path/to/scaleplan]
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${1:-${SCALEPLAN:-build/scaleplan}}
csv=$(dirname "$0")/../refdata/public_rn50.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-16s %4s %5s %-5s %-34s %9s %9s %8s %s\n' system gpus batch prec framework measured model error inside
awk -F, 'NR > 1 { print $2 "|" $3 "|" $4 "|" $5 "|" $6 "|" $7 }' "$csv" | while IFS='|' read -r sys g b prec fw meas; do
	case "$fw" in
	lambda-dle-pytorch-nchw*) st=pytorch-nchw data=synthetic ;;
	mlperf-*) st=ngc-mlperf data=gpu ;;
	dle-mxnet*) st=mxnet-dle data=synthetic ;;
	dle-pytorch*) st=pytorch-dle data=synthetic ;;
	*) echo "check_public_rn50: no stack for $fw" >&2; exit 1 ;;
	esac
	"$SP" predict --system "$sys" --gpus-per-node "$g" --stack "$st" --precision "$prec" --batch-per-gpu "$b" \
		--data "$data" --format csv >"$tmp/p.csv" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	awk -F, -v sys="$sys" -v g="$g" -v b="$b" -v p="$prec" -v fw="$fw" -v m="$meas" '
		{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
		NR == 2 { q = $h["throughput_img_s"]; lo = $h["throughput_lo_img_s"]; hi = $h["throughput_hi_img_s"]
			printf "%-16s %4d %5d %-5s %-34s %9.0f %9.0f %+7.1f%% %s\n", sys, g, b, p, fw, m, q, 100 * (q / m - 1),
				(m >= lo && m <= hi) ? "yes" : "no" }' "$tmp/p.csv"
done >"$tmp/rows"
cat "$tmp/rows"
awk '{ e = $(NF - 1); sub(/%/, "", e); e += 0; a += (e < 0 ? -e : e); n++; in_ += ($NF == "yes") }
     END { printf "rows %d  mean absolute error %.1f%%  inside the 90%% interval %d (%.0f%%)\n", n, a / n, in_, 100 * in_ / n }' "$tmp/rows"
