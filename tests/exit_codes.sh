#!/bin/sh
# The exit-code rule of README "Exit status", walked through every command that reads or writes a path:
# a path the user named wrong - missing, or a directory where a file belongs, or a file where a
# directory belongs - exits 1 with a message that names it; nothing is left behind. Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
case "$S" in /*) ;; *) S="$PWD/$S" ;; esac
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
mkdir adir
: >afile
fail=0
# Commands whose fix lies in a file being restructured (cli/cmd_hw.c, hwdb/hw_db.c, hwdb/hw_import.c,
# cli/cmd_compare.c, cli/cmd_sim.c, cli/cmd_report.c, cli/cmd_sweep.c): listed, run, and reported as
# PENDING until they follow the rule; an entry that already does is reported so it can leave the list.
pending=" "

# want1 NAME PATH CMD...: exit 1, PATH named on stderr, no PATH.tmp left
want1() {
	name=$1 path=$2
	shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	key=${name%%:*}
	if [ $rc -eq 1 ] && grep -qF -- "$path" err.txt && [ -z "$(ls | grep '\.tmp')" ]; then
		case "$pending" in *" $key "*) echo "PENDING entry $key now follows the rule: take it off the list" ;; esac
		return
	fi
	case "$pending" in
	*" $key "*) echo "PENDING $name: exit $rc: $(head -c 200 err.txt | tr "\n" " ")" ;;
	*) echo "FAIL $name: exit $rc (want 1, naming $path; temporary files: $(ls | grep '\.tmp')): $(head -c 300 err.txt)"
	   fail=1 ;;
	esac
	rm -rf ./*.tmp
}

csv="$tmp/plan.csv"
"$S" sweep --systems dgxh100 --nodes 1,2 --quiet --out "$csv" >/dev/null 2>&1 || { echo "FAIL: setup sweep"; exit 1; }
for p in missing adir; do
	want1 "predict-profile:$p" $p "$S" predict --system dgxh100 --profile $p
	want1 "predict-hwdb:$p" $p "$S" predict --system dgxh100 --hwdb $p
	want1 "compare-profile:$p" $p "$S" compare --gpus 8 --profile $p
	want1 "sweep-profile:$p" $p "$S" sweep --nodes 1 --out x.csv --profile $p
	want1 "sim-profile:$p" $p "$S" sim --system dgxh100 --profile $p
	want1 "report-profile:$p" $p "$S" report --systems dgxh100 --gpus 8 --out rep --profile $p
	want1 "hw-list-hwdb:$p" $p "$S" hw list --hwdb $p
	want1 "hw-import-in:$p" $p "$S" hw import $p --out newdb
	want1 "calibrate-measurements:$p" $p "$S" calibrate --measurements $p --out prof.csv
	want1 "calibrate-mllog:$p" $p "$S" calibrate --mllog $p --phases-out ph.csv
	want1 "calibrate-prior:$p" $p "$S" calibrate --builtin --prior $p --out prof.csv
	want1 "calibrate-hwdb:$p" $p "$S" calibrate --builtin --hwdb $p --out prof.csv
	want1 "validate-against:$p" $p "$S" validate --against $p
	want1 "validate-profile:$p" $p "$S" validate --profile $p
	want1 "validate-hwdb:$p" $p "$S" validate --hwdb $p
	want1 "plot-in:$p" $p "$S" plot $p --out pp
done
want1 "hw-check:missing" missing "$S" hw check missing
want1 "calibrate-phases-fit:missing" missing "$S" calibrate --phases-fit missing
want1 "calibrate-phases-anchor:missing" missing "$S" calibrate --phases-fit builtin --phases-anchor missing
for p in adir afile; do
	want1 "calibrate-phases-fit:$p" $p "$S" calibrate --phases-fit $p
done
want1 "calibrate-phases-anchor:adir" adir "$S" calibrate --phases-fit builtin --phases-anchor adir
want1 "hw-check:afile" afile "$S" hw check afile
want1 "calibrate-mllog:afile" afile "$S" calibrate --mllog afile --phases-out ph.csv
want1 "predict-hwdb:afile" afile "$S" predict --system dgxh100 --hwdb afile

# outputs: into a folder that does not exist, and onto a folder
for p in missing/x adir; do
	want1 "sweep-out:$p" $p "$S" sweep --systems dgxh100 --nodes 1 --quiet --out $p
	want1 "compare-out:$p" $p "$S" compare --gpus 8 --out $p
	want1 "sim-out:$p" $p "$S" sim --system dgxh100 --trace $p
	want1 "calibrate-out:$p" $p "$S" calibrate --builtin --out $p
	want1 "calibrate-phases-out:$p" $p "$S" calibrate --phases-fit builtin --out $p
	want1 "validate-detail:$p" $p "$S" validate --detail $p
	want1 "validate-whole-run-detail:$p" $p "$S" validate --group whole-run --detail $p
done
want1 "report-out:missing" missing/r "$S" report --systems dgxh100 --gpus 8 --out missing/r
want1 "report-out-exists:afile" afile "$S" report --systems dgxh100 --gpus 8 --out afile
want1 "hw-import-out-file:afile" afile "$S" hw import "$OLDPWD/tests/data/mlperf_systems/eos_ngc24.04_mxnet.json" --out afile
want1 "hw-import-out:missing" missing/db "$S" hw import "$OLDPWD/tests/data/mlperf_systems/eos_ngc24.04_mxnet.json" --out missing/db
if command -v gnuplot >/dev/null 2>&1; then
	want1 "plot-out:missing" missing/x "$S" plot "$csv" --out missing/x
fi
[ ! -e missing ] || { echo "FAIL: a command created missing/"; fail=1; }
exit $fail
