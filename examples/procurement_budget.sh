#!/bin/sh
# A procurement sweep under a budget: every system with a list price in the database, 1-32 nodes,
# batch 64-256 per GPU; keeps what costs at most BUDGET_USD (default 2,000,000) and prints the ten
# fastest ways to reach 75.9% top-1 with their capex and energy per run.
# Writes procurement.csv into OUT_DIR (default $TMPDIR/scaleplan-examples, or /tmp/...).
# usage: examples/procurement_budget.sh [OUT_DIR] [BUDGET_USD]
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SP=${SCALEPLAN:-$here/../build/scaleplan}
out=${1:-${TMPDIR:-/tmp}/scaleplan-examples}   # outside the repo: a clone stays clean
budget=${2:-2000000}
mkdir -p "$out"
csv="$out/procurement.csv"
"$SP" sweep --systems all --nodes 1-32 --batch-per-gpu 64,128,256 --precision bf16 --data gpu \
	--budget "$budget" --out "$csv" --quiet
echo "ten fastest configurations under \$$budget (capex = list price x nodes):"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	 $c["fits"] == 1 { printf "%s,%-14s %2s x %-2s batch %3s  %8.0f img/s  %6.1f min  capex $%9.0f  %6.1f kWh  (%s)\n",
		$c["tta_s"], $c["system"], $c["nodes"], $c["gpus_per_node"], $c["batch_per_gpu"], $c["throughput_img_s"],
		$c["tta_s"] / 60, $c["capex_usd"], $c["energy_J"] / 3.6e6, $c["bottleneck"] }' "$csv" |
	sort -t, -k1,1g | head -10 | cut -d, -f2-
echo "wrote $csv"
