#!/bin/sh
# Fits each software stack's compute_eff (hwdb/data/stacks.csv): its GPU compute speed relative to the
# MLPerf-grade software the model's roofline efficiency stands for. For every one-GPU throughput measurement on
# file (refdata/testbed_pytorch.csv, refdata/throughput.csv, the engine's runs in bench/NOTES.md; one GPU, so no
# all-reduce), the model predicts the
# same run with compute_eff = 1 and no --measured; the stack's compute_eff (fp16/bf16 runs; compute_eff_fp32 for
# fp32/tf32 runs) is the geometric mean of measured / predicted over its points of that precision class. Leave-one-out: each point predicted from the others of its stack (a stack
# with one point has no leave-one-out figure). Prints one row per point, then one per stack.
# usage: tools/fit_stack_eff.sh [path/to/scaleplan]
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${1:-${SCALEPLAN:-build/scaleplan}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stack|system|precision|batch|data|img/s|where (one GPU each)
cat >"$tmp/points" <<'EOF'
pytorch-nchw|testbed-h100x1|tf32|256|synthetic|1863|refdata/testbed_pytorch.csv:2
pytorch-nchw|testbed-h100x1|bf16|256|synthetic|2237|refdata/testbed_pytorch.csv:3
pytorch-ddp|testbed-h100x1|bf16|256|synthetic|3973|refdata/testbed_pytorch.csv:4
pytorch-ddp|testbed-h100x1|bf16|128|synthetic|3718|refdata/testbed_pytorch.csv:5
pytorch-ddp|testbed-h200x4|bf16|256|synthetic|4623|refdata/testbed_pytorch.csv:7
pytorch-compile|testbed-h100x1|bf16|256|synthetic|5608|refdata/testbed_pytorch.csv:6
pytorch-dle|dgx1-v100|fp16|256|gpu|1200|refdata/throughput.csv:5
pytorch-dle|dgx1-v100|fp32|112|gpu|367|refdata/throughput.csv:7
pytorch-dle|dgxa100-80g|fp16|256|gpu|2470|refdata/throughput.csv:12
pytorch-dle|dgxa100-80g|tf32|256|gpu|938|refdata/throughput.csv:14
mxnet-dle|dgx1-v100|fp16|192|gpu|1376|refdata/throughput.csv:9
mxnet-dle|dgxa100-80g|fp16|256|gpu|2180|refdata/throughput.csv:16 (note: 1 GPU)
tf1-hvd|c4130-p100|fp32|128|cpu|283|refdata/throughput.csv:2
scaleplan-train|testbed-h100x1|bf16|256|synthetic|7069|bench/NOTES.md issue 15 session 7 call 7
scaleplan-train|testbed-h100x1|bf16|128|synthetic|6516|bench/NOTES.md issue 15 session 7 call 7
scaleplan-train|testbed-h100x1|bf16|64|synthetic|5847|bench/NOTES.md issue 15 session 7 call 7
EOF

printf '%-16s %-16s %-5s %5s %9s %9s %7s  %s\n' stack system prec batch measured model ratio where
while IFS='|' read -r st sys prec b data meas where; do
	# the prediction at compute_eff = 1: the stack's current value divides out (compute-bound on one GPU)
	case "$prec" in fp32|tf32) cls=fp32; eff=$("$SP" hw show "$st" | sed -n 's/.*compute speed fp32\/tf32 \([0-9.]*\) of.*/\1/p') ;;
	*) cls=lowp; eff=$("$SP" hw show "$st" | sed -n 's/.*compute speed  \([0-9.]*\) of.*/\1/p') ;; esac
	"$SP" predict --system "$sys" --gpus-per-node 1 --stack "$st" --precision "$prec" \
		--batch-per-gpu "$b" --data "$data" --format csv >"$tmp/p.csv" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
	pred=$(awk -F, -v e="${eff:-1}" '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "throughput_img_s") c = i }
		NR == 2 { print $c / e }' "$tmp/p.csv")
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
