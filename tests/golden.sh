#!/bin/sh
# Golden outputs: what the planner prints and writes for a fixed set of questions (validate in its three
# groups, compare at 8, 64 and 144 GPUs, predict, the default sweep, a report's report.md and
# placements.csv, sim's summary, calibrate --builtin's output and profile), compared byte for byte with
# tests/golden/. A refactor must leave every number where it was; a change that moves one on purpose
# regenerates them with `make golden` in a commit that says why.
#   sh tests/golden.sh            compare (run by tools/run_tests.sh with SCALEPLAN set)
#   sh tests/golden.sh --update   rewrite tests/golden/ from this build (`make golden`)
# sim's "simulation" line (events per wall-clock second) is left out: it is a timing, not a result.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
gold="$root/tests/golden"
update=0
[ "${1:-}" = "--update" ] && update=1
[ $update -eq 1 ] && mkdir -p "$gold"

# case NAME CMD...: run CMD in a fresh folder, its stdout and exit status into NAME.out
case_() {
	name=$1; shift
	rm -rf "$tmp/w" && mkdir "$tmp/w" || exit 2
	(cd "$tmp/w" && "$SP" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; echo "exit $?" >>"$tmp/$name.out")
	check "$name.out" "$tmp/$name.out"
}

# check NAME FILE: FILE equals tests/golden/NAME (or becomes it with --update)
check() {
	if [ $update -eq 1 ]; then
		cp "$2" "$gold/$1"
	elif [ ! -f "$gold/$1" ]; then
		no "tests/golden/$1 is missing: run make golden"
	elif ! cmp -s "$2" "$gold/$1"; then
		no "$1 differs from tests/golden/$1 (regenerate with make golden only on purpose):"
		diff "$gold/$1" "$2" | head -10
	fi
}

case_ validate validate
case_ validate_whole_run validate --group whole-run
case_ validate_gpus validate --group gpus
case_ compare_8 compare --gpus 8
case_ compare_64 compare --gpus 64
case_ compare_144 compare --gpus 144
case_ predict predict --system dgxb200 --nodes 4
case_ sweep sweep --out sweep.csv --quiet
check sweep.csv "$tmp/w/sweep.csv"
# report.md names its charts only where gnuplot drew them: without gnuplot the report is not compared
if command -v gnuplot >/dev/null 2>&1; then
	case_ report report --systems dgxh100,dgxb200,gb200-nvl72 --gpus 8,64,144 --out rep
	check report.md "$tmp/w/rep/report.md"
	check placements.csv "$tmp/w/rep/placements.csv"
else
	echo "golden: gnuplot not found, report.md not compared"
fi
case_ calibrate calibrate --builtin --out prof.csv
check profile.csv "$tmp/w/prof.csv"
for n in 2 4; do
	rm -rf "$tmp/w" && mkdir "$tmp/w"
	(cd "$tmp/w" && "$SP" sim --system dgxa100-80g --nodes $n --runs 3 2>/dev/null; echo "exit $?") |
		grep -v '^  simulation ' >"$tmp/sim_$n.out"
	check "sim_$n.out" "$tmp/sim_$n.out"
done

[ $update -eq 1 ] && echo "golden: tests/golden/ rewritten from $SP"
echo "golden: done (fail=$fail)"
exit $fail
