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
