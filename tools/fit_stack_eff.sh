#!/bin/sh
# Fits each software stack's compute_eff (hwdb/data/stacks.csv): its GPU compute speed relative to the
# MLPerf-grade software the model's roofline efficiency stands for. For every one-GPU throughput run of a stack
# (refdata/one_gpu_runs.csv, the one file of them; one GPU, so no all-reduce) the model predicts the same run
# with compute_eff = 1 (--param compute_eff=1 stands in for the stack's own); the stack's compute_eff (fp16/bf16
# runs; compute_eff_fp32 for fp32/tf32 runs) is the geometric mean of measured / predicted over its runs of
# that precision class. Leave-one-out: each run predicted from the others of its class (a class with one run
# has no leave-one-out figure). Prints one row per run, then one per class. `scaleplan validate --group gpus`
# fits the same runs' classes jointly with the GPU constants (calibrate/cal_gpus.c).
# usage: tools/fit_stack_eff.sh [path/to/scaleplan]
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${1:-${SCALEPLAN:-build/scaleplan}}
runs=$(dirname "$0")/../refdata/one_gpu_runs.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# stack|system|precision|batch|data|img/s|source, header and comments left out
awk -F, 'NR > 1 && !/^#/ { sub(/\r$/, ""); print $1 "|" $2 "|" $3 "|" $4 "|" $5 "|" $6 "|" $7 }' "$runs" >"$tmp/points"

printf '%-16s %-16s %-5s %5s %9s %9s %7s  %s\n' stack system prec batch measured model ratio where
while IFS='|' read -r st sys prec b data meas where; do
	case "$prec" in fp32|tf32) cls=fp32 ;; *) cls=lowp ;; esac
	"$SP" predict --system "$sys" --gpus-per-node 1 --stack "$st" --precision "$prec" --param compute_eff=1 \
		--batch-per-gpu "$b" --data "$data" --format csv >"$tmp/p.csv" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
	pred=$(awk -F, '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "throughput_img_s") c = i }
		NR == 2 { print $c }' "$tmp/p.csv")
	echo "$st/$cls $meas $pred" >>"$tmp/ratios"
	awk -v s="$st" -v y="$sys" -v p="$prec" -v b="$b" -v m="$meas" -v q="$pred" -v w="$where" \
		'BEGIN { printf "%-16s %-16s %-5s %5d %9.0f %9.0f %7.3f  %s\n", s, y, p, b, m, q, m / q, w }'
done <"$tmp/points"
echo
printf '%-21s %6s %12s %14s\n' "stack/precision" points compute_eff "leave-one-out"
awk '{ n[$1]++; l[$1, n[$1]] = log($2 / $3); s[$1] += log($2 / $3) }
     END {
	for (k in n) {
		err = 0
		for (i = 1; i <= n[k]; i++) {
			if (n[k] < 2) break
			e = exp((s[k] - l[k, i]) / (n[k] - 1)) / exp(l[k, i]) - 1   # predicted / measured - 1
			err += (e < 0 ? -e : e)
		}
		printf "%-21s %6d %12.3f %13s\n", k, n[k], exp(s[k] / n[k]), n[k] < 2 ? "-" : sprintf("%.1f%%", 100 * err / n[k])
	}
     }' "$tmp/ratios" | sort
