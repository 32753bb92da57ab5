#!/bin/sh
# A GPU of a new architecture is data: an --hwdb folder with an archs.csv row, a gpus.csv row and a systems.csv
# row (each with its source) and no code makes it a GPU the planner predicts, checks and reports. X200 is the
# H200's row under another id in an architecture "Testarch" newer than any shipped: with Hopper's facts it
# predicts the H200's throughput exactly; its archs.csv facts, and only they, move it (tensor_frac,
# compute_eff); it has no results, so its basis is estimate and the report names its generation as today's
# estimate. A bad cell of archs.csv is refused with file:line:column. Run by tools/run_tests.sh; no GPU.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
hdr() { grep -v '^#' "$root/hwdb/data/$1" | head -1; }
# DIR COMPUTE_EFF TENSOR_FRAC: the three tables
overlay() {
	mkdir -p "$1"
	{ hdr archs.csv; echo "Testarch,,Testgen,120,$2,$3,a test architecture (no such chip)"; } >"$1/archs.csv"
	{ hdr gpus.csv; grep '^H200-SXM-141GB,' "$root/hwdb/data/gpus.csv" |
		sed 's/^H200-SXM-141GB,[^,]*,Hopper,/X200-SXM,,Testarch,/; s/,H200,H100-SXM5-80GB$/,X200,/'; } >"$1/gpus.csv"
	{ hdr systems.csv; grep '^hgx-h200,' "$root/hwdb/data/systems.csv" |
		sed 's/^hgx-h200,h200-8gpu,[^,]*,H200-SXM-141GB,/xbox,,Test box (8x X200),X200-SXM,/'; } >"$1/systems.csv"
}
overlay "$tmp/hop" eff_compute 1
overlay "$tmp/half" eff_compute 0.5
overlay "$tmp/sync" eff_compute_sync 1
grep -q '^X200-SXM,,Testarch,' "$tmp/hop/gpus.csv" && grep -q '^xbox,,' "$tmp/hop/systems.csv" || no "overlay rows not made"

expect 0 "$SP" hw check "$tmp/hop"; has "ok"
expect 0 "$SP" hw show Testarch --hwdb "$tmp/hop"; has "generation     Testgen (sm_120)"; has "a test architecture"
expect 0 "$SP" hw list archs --hwdb "$tmp/hop"; has "Testarch"; has "Blackwell Ultra"
expect 0 "$SP" hw show X200-SXM --hwdb "$tmp/hop"; has "architecture   Testarch, sxm"

# the same figures and Hopper's facts: the H200's prediction to the last digit; the facts of archs.csv move it
thr() { "$SP" ${1:+--hwdb "$1"} predict --system "$2" --format csv | awk -F, '{ sub(/\r$/, "") }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["throughput_img_s"], $c["basis"] }'; }
set -- $(thr "" hgx-h200); h200=$1
set -- $(thr "$tmp/hop" xbox); hop=$1 basis=$2
set -- $(thr "$tmp/half" xbox); half=$1
set -- $(thr "$tmp/sync" xbox); sync=$1
[ -n "$h200" ] && [ "$hop" = "$h200" ] || no "X200 with Hopper's facts: $hop img/s, the H200 $h200"
[ "$basis" = estimate ] || no "X200 (no results of its architecture): basis '$basis', expected estimate"
awk -v a="$half" -v b="$hop" 'BEGIN { exit !(a + 0 > 0 && a < b) }' || no "tensor_frac 0.5 not slower: $half vs $hop"
[ -n "$sync" ] && [ "$sync" != "$hop" ] || no "compute_eff eff_compute_sync changed nothing: $sync vs $hop"

# the report's words come from the tables: the newest architecture without results is the estimate's example
expect 0 "$SP" report --hwdb "$tmp/hop" --systems xbox,hgx-h200 --gpus 8 --out "$tmp/rep"
grep -q 'no results of its architecture: Testgen today' "$tmp/rep/report.md" || no "report.md does not name Testgen"
grep -q 'the model missed from H100 to H200' "$tmp/rep/report.md" || no "report.md: the checked transfer's chips"

# a bad archs.csv cell: file, line, column and what was expected; nothing loaded
sed -i 's/,eff_compute,1,/,eff_fast,1,/' "$tmp/hop/archs.csv"
expect 1 "$SP" hw check "$tmp/hop"; has "archs.csv:2:5(compute_eff): 'eff_fast'"
exit $fail
