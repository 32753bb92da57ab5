#!/bin/sh
# Smoke test of `scaleplan calibrate` and `scaleplan validate` on the synthetic 2x H200 data in
# tests/data/cal/h200x2 and on the built-in reference data. SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${SCALEPLAN:-./build/scaleplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "cal_smoke: $*" >&2; exit 1; }

# calibrate on the 1-GPU runs + sweeps; the profile has no NaN and the model can read its data rows
"$SP" calibrate --measurements tests/data/cal/h200x2 --where gpus=1 --out "$T/p.csv" >"$T/out.txt" || fail "calibrate failed"
grep -q "leave-one-out error" "$T/out.txt" || fail "no leave-one-out line"
grep -q "exactly determined" "$T/out.txt" || fail "2 points for 2 parameters not reported as exactly determined"
grep -qi "nan" "$T/p.csv" && fail "NaN in profile"
grep -q "^b_half," "$T/p.csv" || fail "b_half row missing from the profile"
"$SP" predict --system testbed-h200x2 --nodes 1 --batch-per-gpu 256 --profile "$T/p.csv" >/dev/null 2>"$T/pred.err" ||
	fail "predict --profile rejected the profile: $(cat "$T/pred.err")"

# hold-out: the 2-GPU runs from the profile alone, within 5% on this synthetic data
"$SP" validate --no-builtin --against tests/data/cal/h200x2 --profile "$T/p.csv" --where kind=throughput,gpus=2 \
	--format csv >"$T/v.csv" || fail "validate failed"
head -1 "$T/v.csv" | grep -q "^group,points,mape_pct,worst_pct" || fail "csv header: $(head -1 "$T/v.csv")"
awk -F, 'NR > 1 && $3 > 5 { bad = 1 } END { exit bad }' "$T/v.csv" || fail "hold-out MAPE above 5%: $(cat "$T/v.csv")"

# the built-in reference table (leave-one-out) works from any directory
(cd "$T" && "$SP" validate --format md >"$T/v.md") || fail "validate on built-in data failed"
# measurements without the GPUs of the transfer checks: those lines say so, not "+nan%"
"$SP" validate --no-builtin --against tests/data/cal/h200x2 >"$T/vt.txt" || fail "validate --no-builtin (table)"
grep -q "not checked" "$T/vt.txt" || fail "transfer checks without points not said"
grep -qi "nan" "$T/vt.txt" && fail "NaN in validate's table: $(grep -i nan "$T/vt.txt" | head -2)"
grep -q "c4130-p100" "$T/v.md" || fail "c4130-p100 missing from the validation table"

# the phase table of a tree of MLPerf logs (tests/data/mllog_v4: excerpts of two v4.0 logs)
"$SP" calibrate --mllog tests/data/mllog_v4 --phases-out "$T/ph.csv" --source-prefix r@c: >"$T/ph.txt" || fail "phases-out failed"
grep -q "2 runs written" "$T/ph.txt" || fail "phases-out: $(cat "$T/ph.txt")"
head -1 "$T/ph.csv" | grep -q "^source,submitter,system,platform,status,nodes,gpus_per_node,gpus,global_batch" || fail "phase header"
grep -q "^r@c:NVIDIA/results/eos_n8_ngc24.04_mxnet/resnet/result_0.txt,NVIDIA,eos_n8_ngc24.04_mxnet," "$T/ph.csv" ||
	fail "phase row source: $(cat "$T/ph.csv")"
rc=0; "$SP" calibrate --phases-out "$T/x.csv" 2>"$T/e.txt" || rc=$?
[ "$rc" -eq 1 ] && grep -q "needs --mllog" "$T/e.txt" || fail "--phases-out without --mllog: rc $rc"
rc=0; "$SP" calibrate --mllog "$T/none" --phases-out "$T/x.csv" 2>"$T/e.txt" || rc=$?
# a folder the user named that is not there is bad input (exit 1; README "Exit status")
[ "$rc" -eq 1 ] && [ ! -e "$T/x.csv" ] || fail "--mllog missing dir: rc $rc $(cat "$T/e.txt")"

# validate's whole-run group: the v4.0 multi-node results predicted from their single-node ones; the two
# NVIDIA L40S clusters have no single-node anchor and say so; every predicted error is a number
"$SP" validate --group whole-run --format csv >"$T/wr.csv" || fail "validate --group whole-run"
head -1 "$T/wr.csv" | grep -q "^result,nodes,gpus,anchor,ttt_measured_s,ttt_pred_s,ttt_err_pct," || fail "whole-run csv header"
[ "$(awk 'END { print NR }' "$T/wr.csv")" -eq 9 ] || fail "whole-run: expected 8 predicted results: $(cat "$T/wr.csv")"
awk -F, 'NR > 1 && ($7 == "" || $7 == "nan" || $14 == "" || $14 == "nan") { bad = 1 } END { exit bad }' "$T/wr.csv" ||
	fail "whole-run: an error is not a number"
"$SP" validate --group whole-run >"$T/wr.txt" || fail "whole-run table"
grep -q "l40s_n16_ngc24.04_mxnet: not predicted (no single-node result" "$T/wr.txt" || fail "whole-run: L40S anchor"
grep -q "^tta_s (logged epochs) vs init_start..run_stop: 8 results, mean absolute error" "$T/wr.txt" || fail "whole-run summary"
grep -q "anchored on that single-node result" "$T/wr.txt" || fail "whole-run: anchoring not said"
# --detail with --group whole-run: a ttt and a tta row per predicted result (16) with its interval around the
# prediction, the file renamed into place;
# an unwritable --detail fails (exit 2) and leaves nothing
"$SP" validate --group whole-run --detail "$T/wrd.csv" >/dev/null || fail "whole-run --detail"
[ "$(grep -c '^ttt whole-run' "$T/wrd.csv")" -eq 8 ] && [ "$(grep -c '^tta whole-run' "$T/wrd.csv")" -eq 8 ] &&
	head -1 "$T/wrd.csv" | tr -d '\r' | grep -q '^group,result,nodes,measured,predicted,err_pct,predicted_lo,predicted_hi$' &&
	tr -d '\r' <"$T/wrd.csv" | awk -F, 'NR > 1 && !($(NF - 1) + 0 < $5 + 0 && $5 + 0 < $NF + 0) { bad = 1 } END { exit bad }' &&
	[ ! -e "$T/wrd.csv.tmp" ] ||
	fail "whole-run --detail: $(cat "$T/wrd.csv")"
rc=0; "$SP" validate --group whole-run --detail "$T/no/such/dir.csv" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "whole-run --detail into a missing directory: rc $rc"
rc=0; "$SP" validate --detail "$T/no/such/dir.csv" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "--detail into a missing directory: rc $rc"
# --phases-anchor: the fit anchored on one system's own single-node runs (Eos, 1 node, from the built-in table)
# gives its measured mean start-up at its one node (the form's fixed part moves; its growth with nodes stays);
# a table of several node counts is refused
awk -F, 'NR == 1 || $3 == "eos_ngc24.04_mxnet"' refdata/mlperf_v4_0_phases.csv >"$T/eos1.csv"
want=$(awk -F, 'NR > 1 { s += $12 + $13; n++ } END { printf "%.4f", s / n }' "$T/eos1.csv")
"$SP" calibrate --phases-fit builtin --phases-anchor "$T/eos1.csv" >"$T/an.txt" || fail "--phases-anchor failed"
grep -q "anchored on $T/eos1.csv (5 runs at 1 node)" "$T/an.txt" || fail "anchor line: $(cat "$T/an.txt")"
got=$(sed -n 's/^as options: //p' "$T/an.txt" | tr ' ' '\n' | awk -F= '
	$1 == "startup_s" { a = $2 } $1 == "startup_per_sqrt_node_s" { s = $2 } $1 == "startup_per_node_s" { l = $2 }
	END { printf "%.6f", a + s + l }')
awk -v a="$got" -v b="$want" 'BEGIN { exit !(a > 0 && (a - b) / b < 1e-4 && (b - a) / b < 1e-4) }' ||
	fail "anchored start-up $got, measured mean $want"
# ... and with --out as a profile that predict reads: the start-up predict reports is the anchored one
"$SP" calibrate --phases-fit builtin --phases-anchor "$T/eos1.csv" --out "$T/anchor.csv" >/dev/null ||
	fail "--phases-anchor --out failed"
got=$("$SP" predict --profile "$T/anchor.csv" --system dgxh100 --nodes 1 --format json |
	sed -n 's/.*"startup_s": *\([0-9.]*\).*/\1/p')
awk -v a="$got" -v b="$want" 'BEGIN { exit !(a > 0 && (a - b) / b < 1e-4 && (b - a) / b < 1e-4) }' ||
	fail "predict --profile with the anchored terms: start-up '$got', measured mean $want"
rc=0; "$SP" calibrate --phases-fit builtin --out "$T/no/such/p.csv" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] && [ ! -e "$T/no/such/p.csv" ] || fail "--phases-fit --out into a missing directory: rc $rc"
rc=0; "$SP" calibrate --phases-fit builtin --phases-anchor refdata/mlperf_v4_0_phases.csv >/dev/null 2>"$T/e.txt" || rc=$?
[ "$rc" -eq 1 ] && grep -q "mlperf_v4_0_phases.csv: phase anchor: runs at 1 and 2 nodes" "$T/e.txt" ||
	fail "anchor over several node counts: rc $rc $(cat "$T/e.txt")"
rc=0; "$SP" calibrate --phases-anchor "$T/eos1.csv" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "--phases-anchor without --phases-fit: rc $rc"
rc=0; "$SP" validate --group nope 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "--group nope: rc $rc"

# bad input: a malformed row is reported with file:line and skipped; --strict makes it fatal (exit 1)
printf 'machine,gpus,nodes,nccl_mode,bytes,time_s\nm,2,1,nvlink,1048576,oops\nm,2,1,nvlink,2097152,3e-5\n' >"$T/bad.csv"
"$SP" calibrate --measurements "$T/bad.csv" --out "$T/q.csv" >/dev/null 2>"$T/err.txt" || fail "lenient run failed"
grep -q "bad.csv:2:6 (time_s)" "$T/err.txt" || fail "no file:line:col message: $(cat "$T/err.txt")"
rc=0; "$SP" calibrate --strict --measurements "$T/bad.csv" --out "$T/q.csv" >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--strict exit $rc, expected 1"
# the parameter table shows each scope whole ("graph" was printed for "graph1"), and a compute_eff fitted on
# rows that name no precision (torch_ddp: taken as bf16) gets a note saying so
"$SP" calibrate --measurements bench/data/h200x2-2026-11-22-a --out "$T/h.csv" >"$T/h.txt" 2>&1 || fail "calibrate h200x2: $(tail -3 "$T/h.txt")"
grep -q '^compute_eff .*|scaleplan-train graph1 ' "$T/h.txt" || fail "scope cut short: $(grep '^compute_eff' "$T/h.txt")"
grep -q '^note: compute_eff [0-9.]* of \[testbed-h200x2|||torch_ddp\]: its rows name no precision, so they were taken as bf16' \
	"$T/h.txt" || fail "no note on the missing precision: $(grep -i 'compute_eff' "$T/h.txt")"
rc=0; "$SP" calibrate --measurements /nonexistent.csv --out "$T/q.csv" >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "missing file exit $rc, expected 1 (a name the user got wrong)"
# MLLOG logs: epochs to target and time to train fit conv_e0 and epoch_boundary_s; a bad log line is named
"$SP" calibrate --mllog tests/data/cal/run_ok.log --mllog tests/data/cal/run_bad.log --out "$T/m.csv" >"$T/m.txt" 2>"$T/m.err" ||
	fail "calibrate --mllog failed"
grep -q "^epoch_boundary_s,2.25," "$T/m.csv" || fail "epoch_boundary_s from run_ok.log: $(cat "$T/m.csv")"
grep -q "run_bad.log:2:" "$T/m.err" || fail "malformed MLLOG line not named"
echo "cal_smoke: ok"
