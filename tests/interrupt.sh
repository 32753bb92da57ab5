#!/bin/sh
# SIGINT/SIGTERM during a long `sweep --out` and a long `sim --trace`: exit status 130/143, the old
# output file kept as it was, no temporary file left behind. Signals are sent only once the command
# shows it is under way (the sweep's FILE.tmp exists; sim's first progress line), each wait bounded,
# so a loaded machine makes the test slower, not wrong. Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
tmp=$(mktemp -d) || exit 2
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then :; else echo "FAIL: $1"; fail=1; fi; }

# waits up to 120 s for a shell condition while process $pid lives; 0 when it came true
wait_for() {
	i=0
	while [ $i -lt 1200 ]; do
		eval "$1" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# sends SIG$1 to $pid and reaps it; rc = its exit status, or 999 when it was still running 60 s later
# (an ignored signal: it is then killed)
stop_it() {
	kill -$1 "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do
		# a zombie still answers kill -0: ask ps whether it has exited
		[ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && break
		sleep 0.1
		i=$((i + 1))
	done
	if [ $i -ge 600 ]; then
		kill -KILL "$pid"; wait "$pid"; rc=999
	else
		wait "$pid"; rc=$?
	fi
	pid=""
}

# interrupted NAME SIG OUT COND CMD...: writes "old NAME" into OUT, starts CMD in the background (stderr
# to $tmp/NAME.err, stdout to $tmp/NAME.out), waits for the shell condition COND, sends SIG, then checks
# the exit status (130 INT, 143 TERM), the message, OUT untouched, no OUT.tmp, nothing on stdout
interrupted() {
	name=$1 sig=$2 out=$3 cond=$4
	shift 4
	want=130; [ $sig = TERM ] && want=143
	printf 'old %s\n' "$name" >"$out"
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	if ! wait_for "$cond"; then
		echo "FAIL: $name SIG$sig: never got under way ($(cat "$tmp/$name.err"))"; fail=1
		kill -KILL $pid 2>/dev/null; pid=""
		return
	fi
	stop_it $sig
	check "$name SIG$sig: exit $want, got $rc ($(cat "$tmp/$name.err"))" '[ $rc -eq $want ]'
	check "$name SIG$sig: says it was interrupted" 'grep -q "interrupted (SIG$sig)" "$tmp/$name.err"'
	check "$name SIG$sig: old $out intact" '[ "$(cat "$out")" = "old $name" ]'
	check "$name SIG$sig: no temporary file left: $(ls "$tmp")" '[ ! -e "$out.tmp" ]'
	check "$name SIG$sig: nothing on stdout" '[ ! -s "$tmp/$name.out" ]'
}

# Each phase of a command that writes a file, stopped at a known point: the command sends itself the
# signal at the start of the phase (SCALEPLAN_TEST_SIGNAL=PHASE:SIG, common/intr.c), so the test is exact
# and fast; the phase must notice it, remove FILE.tmp and keep the old FILE.
# phase NAME PHASE SIG OUT CMD...
phase() {
	name=$1 ph=$2 sig=$3 out=$4
	shift 4
	want=130; [ $sig = TERM ] && want=143
	printf 'old %s\n' "$name" >"$out"
	SCALEPLAN_TEST_SIGNAL=$ph:$sig "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	check "$name $ph SIG$sig: exit $want, got $rc ($(cat "$tmp/$name.err"))" '[ $rc -eq $want ]'
	check "$name $ph SIG$sig: says it was interrupted" 'grep -q "interrupted (SIG$sig)" "$tmp/$name.err"'
	check "$name $ph SIG$sig: old $out intact" '[ "$(cat "$out")" = "old $name" ]'
	check "$name $ph SIG$sig: no temporary file left: $(ls "$tmp")" '[ -z "$(ls "$tmp" | grep "\.tmp")" ]'
}
for sig in INT TERM; do
	for ph in compute sort write rename; do
		phase sweep $ph $sig "$tmp/plan.csv" "$S" sweep --systems dgxh100,dgx1-v100 --nodes 1-2 --out "$tmp/plan.csv"
	done
	for ph in compute write rename; do
		phase sweep-none $ph $sig "$tmp/plan.csv" \
			"$S" sweep --systems dgxh100 --nodes 1-2 --rank-by none --out "$tmp/plan.csv"
	done
done

# the other commands that write a file: calibrate (profile; phase table), validate (--detail), plot
for sig in INT TERM; do
	for ph in compute write rename; do
		phase calibrate $ph $sig "$tmp/prof.csv" "$S" calibrate --measurements bench/data/h200x2-2026-11-22-a --out "$tmp/prof.csv"
	done
	phase calibrate-phases rename $sig "$tmp/terms.csv" "$S" calibrate --phases-fit builtin --out "$tmp/terms.csv"
	for ph in compute rename; do
		phase calibrate-mllog $ph $sig "$tmp/phases.csv" \
			"$S" calibrate --mllog tests/data/mllog_v4 --phases-out "$tmp/phases.csv"
		phase validate $ph $sig "$tmp/detail.csv" "$S" validate --detail "$tmp/detail.csv"
		phase validate-whole-run $ph $sig "$tmp/wr.csv" "$S" validate --group whole-run --detail "$tmp/wr.csv"
	done
	phase compare rename $sig "$tmp/cmp.csv" "$S" compare --gpus 8 --out "$tmp/cmp.csv"
	for ph in write rename; do
		phase sim-trace $ph $sig "$tmp/t.json" "$S" sim --system dgxh100 --trace "$tmp/t.json"
	done
	# report builds DIR.tmp-PID and renames it: neither DIR nor the temporary folder may be left
	want=130; [ $sig = TERM ] && want=143
	SCALEPLAN_TEST_SIGNAL=rename:$sig "$S" report --systems dgxh100 --gpus 8 --out "$tmp/rep" >/dev/null 2>"$tmp/rep.err"
	rc=$?
	check "report rename SIG$sig: exit $want, got $rc ($(cat "$tmp/rep.err"))" '[ $rc -eq $want ]'
	check "report rename SIG$sig: no folder left" '[ -z "$(ls "$tmp" | grep -x "rep\|rep\.tmp-.*")" ]'
	if command -v gnuplot >/dev/null 2>&1; then
		"$S" sweep --systems dgxh100 --nodes 1,2 --quiet --out "$tmp/in.csv" >/dev/null 2>&1
		for ph in compute rename; do
			phase plot $ph $sig "$tmp/chart.svg" "$S" plot "$tmp/in.csv" --out "$tmp/chart" --format svg
		done
	fi
done

for sig in INT TERM; do
	# a ranked grid of a million rows: FILE.tmp holds more than its header once the rows are being
	# written (a second or more of work); the signal must still keep the old file
	interrupted sweep-rows $sig "$tmp/rows.csv" '[ -f "$tmp/rows.csv.tmp" ] && [ "$(wc -l <"$tmp/rows.csv.tmp")" -gt 1 ]' \
		"$S" sweep --systems all --nodes 1-1500 --batch-per-gpu 8-256:8 --quiet --out "$tmp/rows.csv"
	# the grid (96 million points up to the 100,000-GPU limit; --budget 1 keeps every row out of the file)
	# takes seconds
	interrupted sweep $sig "$tmp/plan.csv" '[ -f "$tmp/plan.csv.tmp" ]' \
		"$S" sweep --nodes 1-12500 --batch-per-gpu 1-256 --budget 1 --out "$tmp/plan.csv"
	# sim on 100,000 GPUs (the limit) at 8 images each, three runs, takes about 8 s here; its progress line
	# (stderr not a terminal) comes after 1 s
	interrupted sim $sig "$tmp/run.json" 'grep -q "^sim: " "$tmp/sim.err" 2>/dev/null' \
		"$S" sim --system dgxa100-80g --nodes 12500 --batch-per-gpu 8 --runs 3 --trace "$tmp/run.json"
done
exit $fail
