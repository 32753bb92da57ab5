#!/bin/sh
# What a new user trips on, one block a case: long options by their full name only; a measured batch no
# larger than an epoch; a list with a value twice refused; counts that agree; every bad cell named; files
# written before the table is printed; errors that name their command; lines that fit 200 columns.
# Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$tmp" || exit 2
refused() { # NAME PATTERN CMD...: exit 1 and PATTERN (grep -E) on stderr
	name=$1 pat=$2
	shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	if [ $rc -ne 1 ] || ! grep -Eq -- "$pat" err.txt; then
		no "$name: exit $rc (want 1 and /$pat/ on stderr): $(head -c 300 err.txt)"
	fi
}

# long options by their full name only: getopt's prefix matching ran `sweep --gpus 8` as --gpus-per-node 8
refused "sweep --gpus 8" "--gpus.*--gpus-per-node" "$SP" sweep --gpus 8 --systems dgxh100 --nodes 1 --quiet --out a.csv
[ -e a.csv ] && no "sweep --gpus 8 wrote a.csv"
refused "predict --gpus 4" "--gpus.*--gpus-per-node" "$SP" predict --system dgxh100 --gpus 4
refused "predict --nod=2" "--nod.*--nodes" "$SP" predict --system=dgxh100 --nod=2
expect 0 "$SP" predict --system=dgxh100 --nodes=2 --format csv
expect 0 "$SP" predict --system dgxh100 --nodes 2 --format csv

# --measured-epochs: a global batch above an epoch's images refused, as a configuration's is
refused "compare --measured-epochs 99999999:40" "--measured-epochs.*more than the 1281167 images" \
	"$SP" compare --gpus 8 --measured-epochs 99999999:40
refused "compare --measured-epochs 2000000:40" "--measured-epochs.*more than" "$SP" compare --gpus 8 --measured-epochs 2000000:40
refused "predict --images 100000 --measured-epochs 200000:40" "more than the 100000 images" \
	"$SP" predict --system dgxh100 --images 100000 --measured-epochs 200000:40
expect 0 "$SP" predict --system dgxh100 --measured-epochs 3264:41.5

# counts that agree: the month's runs predict names are the runs --runs-per-month takes; a count as typed
"$SP" predict --system dgxb200 --nodes 1 >out.txt 2>&1
n=$(grep -o 'a month holds at most [0-9]* such runs' out.txt | grep -o '[0-9][0-9]*')
if [ -z "$n" ]; then no "predict dgxb200: no 'a month holds at most N such runs': $(grep 'buy vs rent' out.txt)"
else
	expect 0 "$SP" predict --system dgxb200 --nodes 1 --runs-per-month "$n"
	refused "predict --runs-per-month $((n + 1))" "at most $n runs fit" "$SP" predict --system dgxb200 --nodes 1 --runs-per-month $((n + 1))
fi
expect 0 "$SP" predict --system dgxb200 --runs-per-month 5000
has "at 5000 runs a month"

# --systems as typed in a shell, with blanks after the commas; an id far from every system suggests none
expect 0 "$SP" compare --gpus 8 --systems "dgxb200, dgxh100"
has "dgxh100"
refused "--systems nosuch" "unknown system 'nosuch'; see .scaleplan hw list systems" "$SP" compare --gpus 8 --systems nosuch
grep -q "aws-p5" err.txt && no "--systems nosuch suggests aws-p5: $(cat err.txt)"
refused "--systems dgxb300" "did you mean dgxb200" "$SP" compare --gpus 8 --systems dgxb300

# files before the table: a reader gone before the first line (`| head -1`) ends the table with SIGPIPE, not the
# files (a pipe whose reading end is closed makes the first write fail, every time)
closed_pipe() { python3 -c '
import os, subprocess, sys
r, w = os.pipe(); os.close(r)
sys.exit(0 if subprocess.run(sys.argv[1:], stdout=w).returncode in (0, -13) else 1)' "$@"; }
closed_pipe "$SP" compare --gpus 8 --out z.csv --answer-json z.json || no "compare into a closed pipe: exit status neither 0 nor SIGPIPE"
[ -s z.csv ] || no "compare --out z.csv into a closed pipe: z.csv not written"
[ -s z.json ] || no "compare --answer-json z.json into a closed pipe: z.json not written"

# report --out an empty folder: taken, as hw import takes one; a folder with something in it still refused
mkdir empty
expect 0 "$SP" report --gpus 8 --systems dgxh100 --out empty
[ -s empty/placements.csv ] || no "report --out empty: no placements.csv in it"
refused "report --out a full folder" "exists and is not empty" "$SP" report --gpus 8 --systems dgxh100 --out empty

# lines within 200 characters: compare's table, answer and legend at 8 to 512 GPUs, with folded offers, a budget,
# every row; ranks count the rows shown (1, 2, 3 ... after folding); the whole table only when asked
for args in "--gpus 8" "--gpus 64 --budget 2500000" "--gpus 512" "--gpus 16 --cost rent --deadline 10min" "--gpus 8 --all-rows"; do
	# shellcheck disable=SC2086
	"$SP" compare $args >out.txt 2>&1 || no "compare $args: exit $?"
	awk -v a="$args" 'length($0) > 200 { printf "compare %s: a line of %d characters: %.80s...\n", a, length($0), $0; bad = 1 }
		END { exit bad }' out.txt || no "compare $args: lines over 200 characters"
	awk '$1 ~ /^>?[0-9]+$/ { sub(/^>/, "", $1); if ($1 != ++n) { print "rank " $1 " at row " n; exit 1 } }' out.txt ||
		no "compare $args: ranks skip after folding"
done
for args in "predict --system gb200-nvl72 --nodes 4" "predict --system dgxh100" "hw show dgxh100" "compare --help" "sweep --systems dgxh100 --nodes 1,2 --out sw0.csv"; do
	# shellcheck disable=SC2086
	"$SP" $args >out.txt 2>&1 || no "$args: exit $?"
	awk 'length($0) > 200 { bad = 1 } END { exit bad }' out.txt || no "$args: lines over 200 characters"
done
"$SP" compare --gpus 8 --columns all >out.txt 2>&1
head -2 out.txt | tail -1 | grep -q "time-to-train.*stack (data path)" || no "compare --columns all: not every column: $(head -2 out.txt | tail -1)"
# --columns: the same CSV names for compare's table and every CSV (compare, sweep, predict, sim), in the order given
"$SP" compare --gpus 8 --systems dgxh100 --columns system,tta_s,capex_usd >out.txt 2>&1 || no "compare --columns: exit $?"
head -2 out.txt | tail -1 | tr -s ' ' | grep -qx "system time-to-acc (90%) capex" || no "compare --columns system,tta_s,capex_usd: header $(head -2 out.txt | tail -1)"
"$SP" compare --gpus 8 --systems dgxh100 --columns tta_s,system --format csv >c.csv 2>&1
[ "$(head -1 c.csv | tr -d '\r')" = "tta_s,system" ] || no "compare --format csv --columns tta_s,system: $(head -1 c.csv)"
"$SP" predict --system dgxh100 --format csv --columns system,capex_usd >p.csv 2>&1
[ "$(head -1 p.csv | tr -d '\r')" = "system,capex_usd" ] || no "predict --columns system,capex_usd: $(head -1 p.csv)"
"$SP" sim --system dgxh100 --format csv --columns events,system >sim.csv 2>/dev/null
[ "$(head -1 sim.csv | tr -d '\r')" = "events,system" ] || no "sim --columns events,system: $(head -1 sim.csv)"
"$SP" sweep --systems dgxh100 --nodes 1,2 --columns system,nodes,tta_s --quiet --out sw.csv 2>/dev/null
[ "$(head -1 sw.csv | tr -d '\r')" = "system,nodes,tta_s" ] || no "sweep --columns: $(head -1 sw.csv)"
refused "predict --columns nosuch" "no column 'nosuch'" "$SP" predict --system dgxh100 --format csv --columns system,nosuch
[ -s out.txt ] && no "predict --columns nosuch printed a partial CSV: $(cat out.txt)"
refused "compare --columns nosuch" "no column 'nosuch'" "$SP" compare --gpus 8 --columns rank,nosuch
refused "sweep --columns nosuch" "no column 'nosuch'" "$SP" sweep --systems dgxh100 --nodes 1 --columns nosuch --quiet --out sw2.csv
[ -e sw2.csv ] && no "sweep --columns nosuch wrote sw2.csv"
refused "predict --columns (table)" "--format csv or json selects" "$SP" predict --system dgxh100 --columns system
"$SP" predict --system dgxh100 --format json --columns tta_s,system >p.json 2>&1
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(list(d) != ["tta_s", "system"])' p.json ||
	no "predict --format json --columns tta_s,system: $(cat p.json)"

# hw check names every bad cell of a row: a date and a price kind, both wrong
mkdir hc
printf 'id,price_usd,price_kind,price_date,price_source\ndgxh100,300000,guess,2026-13,me\n' >hc/systems.csv
refused "hw check (two bad cells)" "price_date" "$SP" hw check hc
grep -q "price_kind.*'guess'" err.txt || no "hw check: a row with a bad date and a bad price kind names only: $(cat err.txt)"

# hw import into a folder with files: the error first, not after a screen of the files' warnings
mkdir full && touch full/x
refused "hw import --out full" "exists and is not empty" "$SP" hw import "$here"/tests/data/mlperf_systems/*.json --out full
head -1 err.txt | grep -q "exists and is not empty" || no "hw import --out full: the error comes after $(grep -c . err.txt) lines: $(head -1 err.txt)"

# plot stopped while it reads a large CSV: says so (it exited 130 without a word)
"$SP" sweep --systems dgxh100 --nodes 1-100 --quiet --out in.csv 2>/dev/null
{ head -1 in.csv; for i in 1 2 3 4 5 6 7 8 9 10; do tail -n +2 in.csv; tail -n +2 in.csv; tail -n +2 in.csv; tail -n +2 in.csv; tail -n +2 in.csv \
	; tail -n +2 in.csv; tail -n +2 in.csv; tail -n +2 in.csv; tail -n +2 in.csv; tail -n +2 in.csv; done; } >big.csv
SCALEPLAN_TEST_SIGNAL=read:INT "$SP" plot big.csv --out bg >out.txt 2>err.txt
rc=$?
[ $rc -eq 130 ] && grep -q "interrupted (SIGINT)" err.txt || no "plot interrupted while reading: exit $rc, said '$(cat err.txt)'"

# predict of a system out of production says so beside its price, as compare does
expect 0 "$SP" predict --system c4140-m
grep -q "^  status .*end of life.*historical" "$tmp/out" || no "predict c4140-m: no word that it is out of production"
expect 0 "$SP" predict --system dgxh100
lacks "end of life"

# compare beyond 16 nodes says what the report says of its intervals there
expect 0 "$SP" compare --gpus 512
has "beyond 16 nodes time to accuracy is wide on the slow side"
expect 0 "$SP" compare --gpus 8
lacks "beyond 16 nodes"

# scaleplan-train checks its --csv path before it looks for a GPU (exit 1 for the path, here and on a GPU host)
train="$(dirname "$SP")/scaleplan-train"
if [ -x "$train" ]; then
	refused "scaleplan-train --csv /nonexistent/x.csv" "--csv /nonexistent/x.csv" "$train" --data synthetic --csv /nonexistent/x.csv
else
	echo "skip: no $train (built where nvcc is found)"
fi

# a list with a value twice: the same rows would be written twice (a system twice is refused already)
refused "report --gpus 8,8" "report: --gpus.*8 given twice" "$SP" report --gpus 8,8 --out r
[ -e r ] && no "report --gpus 8,8 wrote r"
refused "sweep --batch-per-gpu 64,64" "sweep: --batch-per-gpu.*64 given twice" "$SP" sweep --batch-per-gpu 64,64 --out s.csv
refused "sweep --nodes 1,1,2" "sweep: --nodes.*1 given twice" "$SP" sweep --nodes 1,1,2 --out s.csv
refused "sweep --nodes 1-4,2" "sweep: --nodes.*2 given twice" "$SP" sweep --nodes 1-4,2 --out s.csv
[ -e s.csv ] && no "sweep with a repeated value wrote s.csv"
# errors name their command (a list that does not parse said "scaleplan: --nodes ...")
refused "sweep --nodes x" "^scaleplan sweep: --nodes 'x'" "$SP" sweep --nodes x
refused "report --gpus x" "^scaleplan report: --gpus 'x'" "$SP" report --gpus x --out r

exit $fail
