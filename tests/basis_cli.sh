#!/bin/sh
# How each prediction's GPU is known (basis) and its 90% interval through the CLI: the columns of
# predict / compare / sweep, the table's "(lo-hi)", Blackwell an estimate spanning the public evidence, and
# --measured refused when no GPU could run it or when two of one configuration disagree.
# Run by tools/run_tests.sh with SCALEPLAN set. No GPU.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"

# the columns: added at the end, before stack (README's rule), in predict's CSV and JSON
expect 0 "$SP" predict --system dgxh100 --global-batch 3200 --format csv
cp "$tmp/out" "$tmp/h100.csv"
head -1 "$tmp/h100.csv" | grep -q ',extrapolated,\(.*,\)\{0,1\}basis,ttt_lo_s,ttt_hi_s,tta_lo_s,tta_hi_s,throughput_lo_img_s,throughput_hi_img_s,\(.*,\)\{0,1\}stack' ||
	no "predict csv: basis and interval columns before stack"
[ "$(col basis "$tmp/h100.csv")" = measured ] || no "H100: basis measured (MLPerf v4.0 and test-bed results)"
awk -F, '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ ok = $c["ttt_lo_s"] <= $c["ttt_s"] && $c["ttt_s"] <= $c["ttt_hi_s"] && $c["tta_lo_s"] <= $c["tta_s"] &&
	       $c["tta_s"] <= $c["tta_hi_s"] && $c["throughput_lo_img_s"] <= $c["throughput_img_s"] &&
	       $c["throughput_img_s"] <= $c["throughput_hi_img_s"] && $c["ttt_hi_s"] > $c["ttt_lo_s"] }
	END { exit !ok }' "$tmp/h100.csv" || no "H100: lo <= point <= hi, a non-empty interval"
expect 0 "$SP" predict --system dgxb200 --global-batch 3200 --format csv
cp "$tmp/out" "$tmp/b200.csv"
[ "$(col basis "$tmp/b200.csv")" = estimate ] || no "B200: basis estimate (no Blackwell result in the data)"
# the public evidence puts B200 at 1.6-2.2x an H100 per GPU: the estimate's interval spans 1.7x-1.8x of the
# H100's point and is wider (relative) than the measured H100's
awk -v h="$(col per_gpu_img_s "$tmp/h100.csv")" -v hlo="$(col throughput_lo_img_s "$tmp/h100.csv")" \
    -v hhi="$(col throughput_hi_img_s "$tmp/h100.csv")" -v lo="$(col throughput_lo_img_s "$tmp/b200.csv")" \
    -v hi="$(col throughput_hi_img_s "$tmp/b200.csv")" -v g="$(col gpus "$tmp/b200.csv")" -v hg="$(col gpus "$tmp/h100.csv")" \
    'BEGIN { exit !(lo / g <= 1.7 * h && hi / g >= 1.8 * h && hi / lo > hhi / hlo) }' ||
	no "B200 per-GPU interval does not span 1.7-1.8x an H100 or is not wider than the H100's"
expect 0 "$SP" predict --system dgxb200 --format json; has '"basis": "estimate"'; has '"tta_lo_s": '
expect 0 "$SP" predict --system dgxb200 --measured 8:256:40000 --format csv
[ "$(col basis "$tmp/out")" = measured ] || no "--measured makes a B200 prediction measured"
# a GPU without results whose architecture has them: transfer
expect 0 "$SP" predict --gpu A100-PCIe-40GB --gpus-per-node 4 --format csv
[ "$(col basis "$tmp/out")" = transfer ] || no "A100 PCIe: transfer"
# the table: "12.3 min (11.8-13.1)" and the basis line
expect 0 "$SP" predict --system dgxb200
has "basis              estimate"
grep -Eq 'time to accuracy   [0-9.]+ min \([0-9.]+-[0-9.]+\)' "$tmp/out" || no "table: time to accuracy with its interval"
# compare and sweep CSV carry the columns too
expectw 0 "$SP" compare --gpus 8 --systems dgxh100,dgxb200 --out "$tmp/c.csv"
grep -q ',estimate,' "$tmp/c.csv" && grep -q ',measured,' "$tmp/c.csv" || no "compare csv: basis per row"
expectw 0 "$SP" sweep --systems dgxb200 --nodes 1,2 --out "$tmp/s.csv" --quiet
[ "$(col basis "$tmp/s.csv")" = estimate ] || no "sweep csv: basis"
expectw 0 "$SP" compare --gpus 16 --systems dgxh100,dgxb200; has "time-to-acc (90%)"; has "estimate"
grep -Eq 'min \([0-9.]+-[0-9.]+\)' "$tmp/out" || no "compare table: time to accuracy with its interval"

# --measured that no GPU can compute: 8 H100s at bf16 peak reach ~324,000 img/s at most
expect 1 "$SP" predict --system dgxh100 --measured 8:256:500000
has "--measured 8:256:500000"; has "at most"; has "GFLOP per trained image"
expectw 1 "$SP" compare --gpus 16 --systems dgxh100 --measured 8:256:500000; has "more than 8 H100-SXM5-80GB can compute"
# one configuration, two throughputs 25% apart: refused, not averaged; 4% apart (repeats): accepted
expect 1 "$SP" predict --system dgxh100 --measured 8:256:50000 --measured 8:256:40000
has "two measurements of one configuration"; has "differ by 25%"
expect 0 "$SP" predict --system dgxh100 --measured 8:256:50000 --measured 8:256:52000
has "calibrated to 2 measurements"
# different batches or GPU counts are not a contradiction
expect 0 "$SP" predict --system dgxh100 --measured 8:256:50000 --measured 8:128:40000

echo "basis_cli: done (fail=$fail)"
exit $fail
