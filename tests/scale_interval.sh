#!/bin/sh
# The interval of a next-scale prediction: calibrated on a campaign's 1-2 GPU runs, each held-out 4-GPU run
# gets predicted_lo < predicted < predicted_hi in validate --detail (the fit's parameter errors, a run's noise
# and the all-reduce's miss on its exposed share), the all-reduce rows none; the profile carries the noise terms;
# scale_holdout.sh reports coverage and median width, and at least 8 of the 10 runs fall inside.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${SCALEPLAN:-./build/scaleplan}
C=bench/data/h200x4-2026-11-28/campaign
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "scale_interval: $*" >&2; exit 1; }

mkdir -p "$T/fit" "$T/held"
for f in "$C"/csv/*.csv; do
	case $(basename "$f") in g1x1_* | g1x2_* | g2x1_*) cp "$f" "$T/fit/" ;; *) cp "$f" "$T/held/" ;; esac
done
"$SP" calibrate --measurements "$T/fit" --out "$T/p.csv" >"$T/cal.txt" || fail "calibrate failed"
grep -q '^#cal,run_sd_ln,0\.0[0-9]*,' "$T/p.csv" || fail "no run_sd_ln (ln, a few percent) in the profile"
grep -q '^#cal,allreduce_sd_ln,' "$T/p.csv" || fail "no allreduce_sd_ln in the profile"
"$SP" validate --no-builtin --against "$T/held" --profile "$T/p.csv" --detail "$T/d.csv" >/dev/null 2>&1 ||
	fail "validate failed"
head -1 "$T/d.csv" | grep -q ',source,predicted_lo,predicted_hi$' || fail "detail header: $(head -1 "$T/d.csv")"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	/^"(throughput|gpu-decode)/ { n++; lo = $c["predicted_lo"]; hi = $c["predicted_hi"]; p = $c["predicted"]
		if (lo == "" || hi == "" || !(lo + 0 < p + 0 && p + 0 < hi + 0)) { print "bad interval: " $0; bad = 1 } }
	/^"allreduce/ && ($c["predicted_lo"] != "" || $c["predicted_hi"] != "") { print "all-reduce row with an interval"; bad = 1 }
	END { if (n != 10) { print "expected 10 throughput rows, got " n; bad = 1 }; exit bad }' "$T/d.csv" ||
	fail "detail intervals"
# a profile without the noise terms (one written before them): the intervals narrow, never widen
grep -v '_sd_ln,' "$T/p.csv" >"$T/p0.csv"
"$SP" validate --no-builtin --against "$T/held" --profile "$T/p0.csv" --detail "$T/d0.csv" >/dev/null 2>&1 ||
	fail "validate (old profile) failed"
paste -d'\n' "$T/d.csv" "$T/d0.csv" | awk -F, 'NR <= 2 { next } NR % 2 == 1 { w = $NF - $(NF - 1); next }
	$NF != "" && $NF - $(NF - 1) > w + 1e-6 { bad = 1 } END { exit bad }' || fail "noise terms narrowed an interval"
# the correlations of parameters fitted together travel in the profile; a bad '#corr,' line is named
grep -q '^#corr,gpu_decode_img_s,.*,host_input_img_s_core,' "$T/p.csv" || fail "no #corr line for the decode terms"
for bad in '#corr,gpu_decode_img_s,nowhere,overlap,nowhere,0.5' '#corr,overlap,x,overlap,x,2'; do
	{ cat "$T/p.csv"; echo "$bad"; } >"$T/pb.csv"
	n=$(wc -l <"$T/pb.csv")
	if "$SP" validate --no-builtin --against "$T/held" --profile "$T/pb.csv" >/dev/null 2>"$T/err.txt"; then
		fail "bad #corr line accepted: $bad"
	fi
	grep -q "pb.csv:$n: #corr: " "$T/err.txt" || fail "bad #corr line not named: $(cat "$T/err.txt")"
done
SCALEPLAN=$SP sh bench/scale_holdout.sh "$C" >"$T/sh.txt" || fail "scale_holdout.sh failed"
awk '/^inside their 90% interval: / { n = $5; of = $7; ok = of == 10 && n >= 8 && $NF ~ /%$/ }
	END { exit !ok }' "$T/sh.txt" || fail "coverage line: $(tail -1 "$T/sh.txt")"
# fitted on one GPU, the 2-GPU runs' links are priors: their prior standard errors (docs/model.md) put at least 7
# of the 8 runs inside (4 of 8 while the priors had none)
SCALEPLAN=$SP sh bench/scale_holdout.sh bench/data/h200x2-2026-11-26/campaign2 1 >"$T/sh1.txt" || fail "scale_holdout.sh 1 failed"
awk '/^inside their 90% interval: / { ok = $7 == 8 && $5 >= 7 } END { exit !ok }' "$T/sh1.txt" ||
	fail "1 -> 2 GPUs coverage line: $(tail -1 "$T/sh1.txt")"
# what socket transports take from a host's input stage: fitted where one host's ranks ran with and without
# sockets (campaign2: 2 GPUs over NVLink and as 2 emulated nodes); the whole campaign fits within 1.5%
# in-sample (1.91% without the term)
"$SP" calibrate --measurements bench/data/h200x2-2026-11-26/campaign2/csv --out "$T/p2.csv" >"$T/c2.txt" ||
	fail "campaign2 calibrate failed"
grep -q '^socket_core_frac .* fitted ' "$T/c2.txt" || fail "socket_core_frac not fitted: $(grep socket "$T/c2.txt")"
awk '/^fit error \(in-sample MAPE\)/ { v = $5 + 0; ok = v > 0 && v < 1.5 } END { exit !ok }' "$T/c2.txt" ||
	fail "campaign2 in-sample: $(grep '^fit error' "$T/c2.txt")"
echo "scale_interval: ok"
