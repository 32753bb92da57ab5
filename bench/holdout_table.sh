#!/bin/sh
# The issue-8 hold-out table over every 2x H200 job of bench/data/h200x2-2026-11-22-a and -r2..-r7: for each job, calibrate on its
# 1-GPU runs at batch 64 and 256 plus its all-reduce sweeps, predict every 2-GPU scaleplan-train run, and
# print the mean absolute error (predicted / measured - 1) without and with the contention term:
#   - without: the job's sweep rows under load are ignored (kind!=contention)
#   - with: the job's own contention rows (sweeps run beside the engine's step, --load resnet), or, for jobs
#     that have none (or a GEMM load), the contention factors of REF (default h200x2-2026-11-22-r6) as the prior
# "protocol" = the issue's four: NVLink and 2 emulated nodes (sockets), batch 64 and 256, fp32 gradients.
#   sh bench/holdout_table.sh          no GPU needed; outputs under build/holdout/ (HOLDOUT_OUT=DIR elsewhere;
#                                      SCALEPLAN=path/to/scaleplan picks the binary)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
REF=${REF:-h200x2-2026-11-22-r6}
OUT=${HOLDOUT_OUT:-build/holdout}
mkdir -p "$OUT"
[ -x "${SCALEPLAN:-build/scaleplan}" ] || make -s all >/dev/null
# mae DETAIL.csv: "all-MAE n protocol-MAE n" over the scaleplan-train rows
mae() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["source"] != "\"exec\"" { next }
		{ e = $c["err_pct"] + 0; a = e < 0 ? -e : e; s += a; n++
		  t = $c["transport"]; b = $c["batch_per_gpu"]
		  if ((b == 64 || b == 256) && $c["grad_bytes_per_param"] == 4 &&
		      ((t == "nvlink" && $c["gpus_per_node"] == 2) || (t == "socket" && $c["nodes"] == 2))) { ps += a; pn++ } }
		END { printf "%6.2f%% %3d %6.2f%% %2d", n ? s / n : 0, n, pn ? ps / pn : 0, pn }' "$1"
}
run() { # job where prior out
	A_ONLY=1 FIT_WHERE="$2" PRIOR="$3" OUT="$4" sh bench/calibrate_h200x2.sh "bench/data/$1" >"$4.log" 2>&1 ||
		{ echo "calibrate_h200x2.sh failed on $1 (see $4.log)" >&2; exit 1; }
}
P='gpus=1,batch_per_gpu!=128'
run "$REF" "$P" "" "$OUT/$REF-ref"
# only the contention factors travel: every other parameter comes from the job's own data or the defaults
{ head -1 "$OUT/$REF-ref/profile.csv"; grep '^#cal,slowdown_' "$OUT/$REF-ref/profile.csv"; } >"$OUT/contention.csv"
printf "%-12s %-26s %-26s %s\n" "job" "without contention" "with contention" "contention from"
printf "%-12s %-26s %-26s\n" "" "all runs (n) protocol (n)" "all runs (n) protocol (n)"
for dir in bench/data/h200x2-2026-11-22-a bench/data/h200x2-2026-11-22-r[2-7]; do
	job=$(basename "$dir")
	run "$job" "$P,kind!=contention" "" "$OUT/$job-none"
	if grep -qs "resnet50" "$dir/allreduce.csv"; then
		run "$job" "$P" "" "$OUT/$job-own"; with=$(mae "$OUT/$job-own/detail.csv"); from="own sweeps (engine step)"
	else
		run "$job" "$P,kind!=contention" "$OUT/contention.csv" "$OUT/$job-ref"
		with=$(mae "$OUT/$job-ref/detail.csv"); from="$REF"
	fi
	printf "%-12s %-26s %-26s %s\n" "$job" "$(mae "$OUT/$job-none/detail.csv")" "$with" "$from"
done
