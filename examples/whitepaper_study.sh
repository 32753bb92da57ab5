#!/bin/sh
# The Dell white paper's study (refdata/seed_facts.md): PowerEdge C4140 configuration K (one shared
# x16 host link, 12-core CPUs) vs configuration M (4 x16, 20-core CPUs) vs an 8x V100 NVLink server
# (DGX-1 class) at 4, 8 and 16 GPUs, TensorFlow rules (decode threads = cores - 4 x GPUs), fp16,
# batch 128 per GPU; once with JPEG decode on the CPUs (--data cpu) and once with DALI on the GPUs
# (--data gpu), which isolates the interconnect. Writes whitepaper.csv (predict's columns) into OUT_DIR (default $TMPDIR/scaleplan-examples, or /tmp/...).
# usage: examples/whitepaper_study.sh [OUT_DIR]      (SCALEPLAN=path/to/scaleplan to choose the binary)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SP=${SCALEPLAN:-$here/../build/scaleplan}
out=${1:-${TMPDIR:-/tmp}/scaleplan-examples}   # outside the repo: a clone stays clean
mkdir -p "$out"
csv="$out/whitepaper.csv"
tmp="$csv.tmp"
: >"$tmp"
for data in cpu gpu; do
for gpus in 4 8 16; do
	for sys in c4140-k c4140-m dgx1-v100; do
		gpn=4; [ "$sys" = dgx1-v100 ] && [ "$gpus" -ge 8 ] && gpn=8
		nodes=$((gpus / gpn))
		"$SP" predict --system "$sys" --gpus-per-node "$gpn" --nodes "$nodes" --batch-per-gpu 128 \
			--precision fp16 --stack tf1-hvd --data "$data" --format csv >"$out/row.csv"
		if [ ! -s "$tmp" ]; then head -1 "$out/row.csv" >"$tmp"; fi
		tail -n +2 "$out/row.csv" >>"$tmp"
	done
done
done
rm -f "$out/row.csv"
mv "$tmp" "$csv"
echo "white paper study: C4140-K vs C4140-M vs 8x V100 NVLink (fp16, batch 128/GPU, TensorFlow thread rule)"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	 { printf "data %-4s %-10s %3d GPUs (%sx%s)  %7.0f img/s  scaling %5.1f%%  bottleneck %-8s  time to accuracy %6.1f min\n",
	   $c["data"], $c["system"], $c["gpus"], $c["nodes"], $c["gpus_per_node"], $c["throughput_img_s"], 100 * $c["scaling_eff"],
	   $c["bottleneck"], $c["tta_s"] / 60 }' "$csv"
echo "wrote $csv"
