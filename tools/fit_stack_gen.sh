#!/bin/sh
# Fits the stack x GPU table (hwdb/data/stack_effs.csv) and the generation exponent of framework stacks
# (model_params gen_gain_exp, _lo, _hi), and reports leave-one-out by (stack, generation).
# A cell: a stack's one-GPU runs on one GPU in one precision class (refdata/one_gpu_runs.csv and
# refdata/stack_gen_runs.csv), each predicted with --param compute_eff=1 (the model's MLPerf-grade estimate);
# the cell is the geometric mean of measured / predicted. A move: two cells of a stack and class on GPUs of
# different architectures; its exponent x = 1 + ln(e2 / e1) / ln(G2 / G1), G the model's MLPerf-grade
# one-GPU img/s at batch 128 (synthetic data; 128 fits every GPU on file): the stack gains G2/G1 to the power x where MLPerf-grade
# software gains G2/G1. Leave-one-out by (stack, generation): each later cell predicted from the stack's
# earlier one with the mean exponent of the other moves.
# usage: tools/fit_stack_gen.sh [path/to/scaleplan]
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${1:-${SCALEPLAN:-build/scaleplan}}
dir=$(dirname "$0")/../refdata
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
col() { awk -F, -v n="$1" '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i } NR == 2 { print $c }'; }
run() { # system stack precision batch data -> "gpu img/s"
	"$SP" predict --system "$1" --gpus-per-node 1 --stack "$2" --precision "$3" --param compute_eff=1 \
		--batch-per-gpu "$4" --data "$5" --format csv >"$tmp/p.csv" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	printf '%s %s\n' "$(col gpu <"$tmp/p.csv")" "$(col throughput_img_s <"$tmp/p.csv")"
}
for f in one_gpu_runs.csv stack_gen_runs.csv; do
	awk -F, 'NR > 1 && !/^#/ { sub(/\r$/, ""); print $1 "|" $2 "|" $3 "|" $4 "|" $5 "|" $6 }' "$dir/$f"
done >"$tmp/points"
printf '%-16s %-18s %-5s %5s %9s %9s %7s\n' stack gpu prec batch measured model ratio
while IFS='|' read -r st sys prec b data meas; do
	case "$prec" in fp32|tf32) cls=fp32 ;; *) cls=lowp ;; esac
	set -- $(run "$sys" "$st" "$prec" "$b" "$data")
	g128=$(run "$sys" "$st" "$prec" 128 synthetic | cut -d' ' -f2)
	echo "$st $1 $cls $meas $2 $g128" >>"$tmp/ratios"
	awk -v s="$st" -v g="$1" -v p="$prec" -v b="$b" -v m="$meas" -v q="$2" \
		'BEGIN { printf "%-16s %-18s %-5s %5d %9.0f %9.0f %7.3f\n", s, g, p, b, m, q, m / q }'
done <"$tmp/points"
echo
awk -v sp="$SP" '
function arch(g) { return g ~ /^V100/ ? "Volta" : g ~ /^A100/ ? "Ampere" : g ~ /^(H100|H200|GH200)/ ? "Hopper" : g ~ /^P100/ ? "Pascal" : g }
{ k = $1 " " $2 " " $3; n[k]++; s[k] += log($4 / $5); G[k] = $6 }
END {
	print "cells (stack gpu class: runs, compute_eff, G = MLPerf-grade img/s at batch 128)"
	for (k in n) { e[k] = exp(s[k] / n[k]); printf "  %-40s %d %.3f %8.0f\n", k, n[k], e[k], G[k] }
	print "moves across generations (stack class: gpu1 -> gpu2, G2/G1, e2/e1, exponent)"
	nm = 0
	for (a in n) for (b in n) {
		split(a, x, " "); split(b, y, " ")
		if (x[1] != y[1] || x[3] != y[3] || arch(x[2]) == arch(y[2]) || G[b] <= G[a]) continue
		nm++; mk[nm] = x[1] " " x[3] " " x[2] " -> " y[2]; ex[nm] = 1 + log(e[b] / e[a]) / log(G[b] / G[a])
		ga[nm] = G[b] / G[a]; ea[nm] = e[a]; eb[nm] = e[b]
		printf "  %-58s %6.3f %6.3f %6.3f\n", mk[nm], G[b] / G[a], e[b] / e[a], ex[nm]
	}
	t = 0; lo = 9; hi = -9
	for (i = 1; i <= nm; i++) { t += ex[i]; lo = ex[i] < lo ? ex[i] : lo; hi = ex[i] > hi ? ex[i] : hi }
	printf "gen_gain_exp %.3f (mean of %d moves), lo %.3f, hi %.3f\n", t / nm, nm, lo, hi
	print "leave-one-out by (stack, generation): the later cell from the earlier, exponent without the move"
	err = 0
	for (i = 1; i <= nm; i++) {
		xo = (t - ex[i]) / (nm - 1); pred = ea[i] * ga[i] ^ (xo - 1)
		printf "  %-58s exp %.3f predicted %.3f measured %.3f error %+.1f%%\n", mk[i], xo, pred, eb[i], 100 * (pred / eb[i] - 1)
		err += (pred / eb[i] > 1 ? pred / eb[i] - 1 : 1 - pred / eb[i])
	}
	printf "  mean absolute error %.1f%% over %d moves\n", 100 * err / nm, nm
}' "$tmp/ratios"
