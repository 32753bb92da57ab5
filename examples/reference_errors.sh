#!/bin/sh
# Uncalibrated predictions against every published throughput in refdata/throughput.csv: error per
# row and mean absolute percentage error (MAPE) per source group. Writes reference_errors.csv
# (source group, system, GPUs, precision, batch, measured, predicted, error) into OUT_DIR.
# Batch per GPU: the row's, else auto (of 256..8 that fit, the one of least time to accuracy); TensorFlow rows decode JPEGs on
# the CPUs, the others use DALI (--data gpu) as their sources did.
# usage: examples/reference_errors.sh [OUT_DIR] [REFERENCE_DIR]   (default refdata/, the repo's reference data)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SP=${SCALEPLAN:-$here/../build/scaleplan}
out=${1:-${TMPDIR:-/tmp}/scaleplan-examples}   # outside the repo: a clone stays clean
ref=${2:-$here/../refdata}
[ -f "$ref/throughput.csv" ] || { echo "reference_errors.sh: $ref/throughput.csv: no such file" >&2; exit 1; }
mkdir -p "$out"
csv="$out/reference_errors.csv"
echo "group,system,gpus,precision,batch_per_gpu,measured_img_s,predicted_img_s,error" >"$csv.tmp"
tail -n +2 "$ref/throughput.csv" | while IFS=, read -r src sys gpu nodes gpn gpus b prec fw data img note; do
	p=$prec
	case $p in amp) p=fp16 ;; as-reported) p=fp32 ;; esac
	d=gpu
	case "$fw" in *TensorFlow*) d=cpu ;; esac
	case "$src" in mlperf*) grp=mlperf ;; nvidia-deeplearningexamples*) grp=deeplearningexamples ;; *) grp=dell-tf ;; esac
	bopt="--batch-per-gpu ${b:-auto}"
	row=$("$SP" predict --system "$sys" --gpus-per-node "$gpn" --nodes "$nodes" $bopt --precision "$p" --data "$d" \
		--format csv | tail -1)
	pred=$(echo "$row" | cut -d, -f9)
	bb=$(echo "$row" | cut -d, -f6)
	awk -v g="$grp" -v s="$sys" -v n="$gpus" -v p="$p" -v b="$bb" -v m="$img" -v q="$pred" \
		'BEGIN { printf "%s,%s,%s,%s,%s,%s,%.0f,%.4f\n", g, s, n, p, b, m, q, q / m - 1 }' >>"$csv.tmp"
done
mv "$csv.tmp" "$csv"
awk -F, 'NR > 1 { printf "%-22s %-12s %3s GPUs %-5s b=%-4s measured %7s predicted %7s  %+6.1f%%\n", $1, $2, $3, $4, $5, $6, $7, 100 * $8
		  e = $8 < 0 ? -$8 : $8; s[$1] += e; k[$1]++; all += e; n++ }
	 END { if (n == 0) { print "reference_errors.sh: no rows predicted" > "/dev/stderr"; exit 1 }
	       for (g in s) printf "MAPE %-22s %5.1f%% over %d rows\n", g, 100 * s[g] / k[g], k[g]
	       printf "MAPE %-22s %5.1f%% over %d rows\n", "all", 100 * all / n, n }' "$csv"
echo "wrote $csv"
