#!/bin/sh
# The procurement answer (plan/): convergence limits, the user's recipe, whole units, the user's own quote,
# the decision in sweep and report as in compare. Run by tools/run_tests.sh with SCALEPLAN set; no GPU.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"

# beyond the measured convergence range: marked, never recommended; the answer names the limit
expectw 0 "$SP" compare --gpus 65536 --systems dgxh100,dgxa100-80g
has "Nothing to recommend for 65536 GPUs"; has "largest measured convergence point (67840)"; lacks "Fastest"
expectw 0 "$SP" compare --gpus 65536 --systems dgxh100,dgxa100-80g --extrapolate; has "answer: dgx"
"$SP" predict --system dgxh100 --nodes 100 --batch-per-gpu 256 --format csv >"$tmp/x.csv" 2>&1 || no "predict 800 GPUs"
[ "$(col extrapolated "$tmp/x.csv")" = 1 ] || no "global batch 204800 is extrapolated"
"$SP" predict --system dgxh100 --nodes 2 --batch-per-gpu 256 --format csv >"$tmp/x.csv" 2>&1 || no "predict 16 GPUs"
[ "$(col extrapolated "$tmp/x.csv")" = 0 ] || no "global batch 4096 is measured"
expect 0 "$SP" predict --system dgxh100 --nodes 100 --batch-per-gpu 256; has "EXTRAPOLATED"
# the automatic batch stays inside the range where it can: 100 DGX H100 nodes pick a global batch <= 67840
"$SP" predict --system dgxh100 --nodes 100 --format csv >"$tmp/a.csv" 2>&1 || no "predict auto batch"
[ "$(col extrapolated "$tmp/a.csv")" = 0 ] && [ "$(col global_batch "$tmp/a.csv")" -le 67840 ] ||
	no "auto batch on 800 GPUs: global $(col global_batch "$tmp/a.csv") should be <= 67840"
# ... and is the one of least time to accuracy among those that fit
best=""
for b in 256 128 64 32 16 8; do
	"$SP" predict --system dgxh100 --nodes 100 --batch-per-gpu $b --format csv >"$tmp/b$b.csv" 2>/dev/null || continue
	[ "$(col extrapolated "$tmp/b$b.csv")" = 0 ] || continue
	t=$(col tta_s "$tmp/b$b.csv")
	if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b * 0.999) }'; then best=$t; fi
done
awk -v a="$(col tta_s "$tmp/a.csv")" -v b="$best" 'BEGIN { exit !(a <= b * 1.001) }' || no "auto batch is not the fastest: $(col tta_s "$tmp/a.csv") vs $best"
# a global batch above an epoch is refused with the reason
expect 1 "$SP" predict --system dgxh100 --nodes 1000 --batch-per-gpu 256; has "more than the 1281167 images of an epoch"
expectw 0 "$SP" sweep --systems dgxh100 --nodes 1,1000 --batch-per-gpu 256 --out "$tmp/s.csv" --quiet
has "1 whose global batch is more than an epoch's images"
# sweep at 1,000+ nodes recommends nothing extrapolated
expectw 0 "$SP" sweep --systems dgxh100,dgxa100-80g --nodes 1000-1010 --out "$tmp/big.csv" --quiet
has "answer:"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "extrapolated") c = i; next } NR == 2 { print $c }' "$tmp/big.csv" |
	grep -qx 0 || no "sweep at 1,000 nodes: best row extrapolated"

# the user's recipe: the curve passes through its point and moves with the batch (scaled)
"$SP" predict --system dgxh100 --nodes 4 --batch-per-gpu 102 --format csv >"$tmp/e0.csv"
"$SP" predict --system dgxh100 --nodes 4 --batch-per-gpu 102 --measured-epochs 3264:42 --format csv >"$tmp/e1.csv"
awk -v e="$(col epochs "$tmp/e1.csv")" 'BEGIN { exit !(e > 41.99 && e < 42.01) }' || no "anchored at 3264: 42 epochs, got $(col epochs "$tmp/e1.csv")"
"$SP" predict --system dgxh100 --nodes 8 --batch-per-gpu 128 --format csv >"$tmp/f0.csv"
"$SP" predict --system dgxh100 --nodes 8 --batch-per-gpu 128 --measured-epochs 3264:42 --format csv >"$tmp/f1.csv"
awk -v a0="$(col epochs "$tmp/e0.csv")" -v b0="$(col epochs "$tmp/f0.csv")" -v b1="$(col epochs "$tmp/f1.csv")" \
	'BEGIN { want = b0 * 42 / a0; exit !(b1 > want * 0.999 && b1 < want * 1.001 && b1 > 42) }' ||
	no "the scaled curve at 8192: $(col epochs "$tmp/f1.csv")"
expect 1 "$SP" predict --system dgxh100 --measured-epochs 3264; has "--measured-epochs '3264': expected GLOBAL_BATCH:EPOCHS"
expectw 1 "$SP" compare --gpus 8 --measured-epochs 0:40; has "--measured-epochs '0:40'"

# the user's own quote overrides the list price through --hwdb, and moves the answer
mkdir -p "$tmp/db"
printf 'id,price_usd,price_date,price_kind,price_source\ndgxh100,1000,2026-11,quote,our quote of 2026-11-20\n' >"$tmp/db/systems.csv"
expect 0 "$SP" --hwdb "$tmp/db" compare --gpus 8 --systems dgxh100,hgx-h200 --rank-by cost
has "answer: dgxh100 1x8: "
expect 0 "$SP" --hwdb "$tmp/db" predict --system dgxh100 --format csv; [ "$(col capex_servers_usd "$tmp/out")" = 1000 ] ||
	no "the quote is the server's price: $(col capex_servers_usd "$tmp/out")"
printf 'id,price_usd,price_date,price_kind,price_source\nnosuch,1000,2026-11,quote,x\n' >"$tmp/db/systems.csv"
expect 1 "$SP" --hwdb "$tmp/db" compare --gpus 8; has "nosuch"
printf 'id,price_usd,price_date,price_kind,price_source\ndgxh100,-5,2026-11,quote,x\n' >"$tmp/db/systems.csv"
expect 1 "$SP" --hwdb "$tmp/db" compare --gpus 8; has "systems.csv:2"; has "price_usd"

# one decision in compare, report and sweep: the same winner for the same question
for q in "--systems dgxh100,hgx-h200 --gpus 8" "--systems dgxh100,hgx-h200 --gpus 64" \
	"--systems dgxb200,gb200-nvl72 --gpus 72" "--systems dgxb200,gb200-nvl72 --gpus 144 --rank-by cost" \
	"--systems all --gpus 64 --budget 3000000" "--systems all --gpus 32 --deadline 30min --cost rent"; do
	c=$("$SP" compare $q | sed -n 's/^answer: \([^ ]* [0-9]*x[0-9]*\): .*/\1/p')
	rm -rf "$tmp/rep"
	"$SP" report $q --out "$tmp/rep" >/dev/null 2>&1 || { no "report $q"; continue; }
	r=$(sed -n 's/^[0-9]* GPUs\{0,1\}: \([^ ]* [0-9]*x[0-9]*\): .*/\1/p' "$tmp/rep/report.md" | head -1)
	[ -n "$c" ] && [ "$c" = "$r" ] || no "compare says '$c', report says '$r' for: $q"
	"$SP" compare $q | awk '$1 ~ /^>/ && $4 ~ /[*]$/ { bad = 1 } END { exit bad }' || no "partial node recommended: $q"
done

exit $fail
