#!/bin/sh
# What a new user trips on: input the commands used to accept without a word. Each case exits 1
# with a message that names what was wrong, or (for headers) says what the user asked for. Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
case "$S" in /*) ;; *) S="$PWD/$S" ;; esac
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail=0

# refused NAME PATTERN CMD...: exit 1 and PATTERN (grep -E) on stderr
refused() {
	name=$1 pat=$2
	shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	if [ $rc -ne 1 ] || ! grep -Eq -- "$pat" err.txt; then
		echo "FAIL $name: exit $rc (want 1 and /$pat/ on stderr): $(head -c 300 err.txt)"
		fail=1
	fi
}

# a target the user overrode is the one the header names
"$S" compare --gpus 8 --systems dgxh100 --target-top1 0.7 --epochs 20 >out.txt 2>&1 ||
	{ echo "FAIL compare --target-top1 0.7 --epochs 20: exit $?"; fail=1; }
head -1 out.txt | grep -q "70.0% top-1" || { echo "FAIL compare header names another target: $(head -1 out.txt)"; fail=1; }
head -1 out.txt | grep -q "75.9" && { echo "FAIL compare header names 75.9% after --target-top1 0.7"; fail=1; }
head -1 out.txt | grep -q "20 epochs" || { echo "FAIL compare header does not say the epochs were fixed: $(head -1 out.txt)"; fail=1; }

# a top-1 that is neither a fraction nor a sensible percentage
refused "--target-top1 1.5" "target-top1 '1.5'" "$S" predict --system dgxh100 --target-top1 1.5 --epochs 40
refused "--target-top1 0" "target-top1 '0'" "$S" predict --system dgxh100 --target-top1 0 --epochs 40
"$S" predict --system dgxh100 --target-top1 75.9 >/dev/null 2>err.txt ||
	{ echo "FAIL --target-top1 75.9 (a percentage) refused: $(cat err.txt)"; fail=1; }

# the same system twice (by id or alias) would be its own runner-up
refused "compare --systems dgxh100,dgxh100" "dgxh100.*(twice|more than once)" "$S" compare --gpus 8 --systems dgxh100,dgxh100
refused "compare --systems dgxh100,dgx-h100" "(twice|more than once)" "$S" compare --gpus 8 --systems dgxh100,dgx-h100
refused "report --systems dgxh100,dgxh100" "(twice|more than once)" "$S" report --gpus 8 --systems dgxh100,dgxh100 --out rep
[ -e rep ] && { echo "FAIL report left rep/ after refusing its --systems"; fail=1; }

# more runs a month than fit a month of wall clock
refused "predict --runs-per-month 100000" "runs-per-month.*fit" "$S" predict --system dgxh100 --runs-per-month 100000
refused "compare --runs-per-month 100000" "runs-per-month.*fit" "$S" compare --gpus 8 --systems dgxh100 --runs-per-month 100000
"$S" predict --system dgxh100 --runs-per-month 100 >/dev/null 2>err.txt ||
	{ echo "FAIL predict --runs-per-month 100 refused: $(cat err.txt)"; fail=1; }

# validate against a file with nothing in it
: >empty.csv
refused "validate --against empty.csv" "empty.csv" "$S" validate --against empty.csv
mkdir emptydir
refused "validate --against emptydir" "emptydir" "$S" validate --against emptydir

# an empty output path is the user's mistake (1), not the machine's (2)
refused 'sweep --out ""' "--out" "$S" sweep --systems dgxh100 --nodes 1 --quiet --out ""
refused 'compare --out ""' "--out" "$S" compare --gpus 8 --systems dgxh100 --out ""

# (N systems left out ...) names them
"$S" compare --gpus 12 --systems dgxh100,c4140-m >out.txt 2>&1
grep "left out" out.txt | grep -q dgxh100 || { echo "FAIL compare's 'left out' note does not name dgxh100: $(grep 'left out' out.txt)"; fail=1; }

# plot's prefix must end in a file name (not dir/ -> dir/.svg)
"$S" sweep --systems dgxh100 --nodes 1,2 --quiet --out plan.csv >/dev/null 2>&1 || { echo "FAIL setup sweep"; fail=1; }
mkdir charts
refused "plot --out charts/" "--out 'charts/'" "$S" plot plan.csv --out charts/
[ -z "$(ls -A charts)" ] || { echo "FAIL plot --out charts/ wrote $(ls -A charts)"; fail=1; }

# TCO never below back to back: with more runs than fit a month (sweep does not refuse), the owner's share
# is the run's own wall clock, as back to back (--utilisation 1)
"$S" sweep --systems dgxh100 --nodes 1 --quiet --out a.csv --utilisation 1 >/dev/null 2>&1 &&
	"$S" sweep --systems dgxh100 --nodes 1 --quiet --out b.csv --runs-per-month 1000000 >/dev/null 2>&1 ||
	{ echo "FAIL sweep --runs-per-month 1000000: exit $?"; fail=1; }
col=$(head -1 a.csv | tr ',' '\n' | grep -n '^tco_usd$' | cut -d: -f1)
ta=$(sed -n 2p a.csv | cut -d, -f"$col") tb=$(sed -n 2p b.csv | cut -d, -f"$col")
awk -v a="$ta" -v b="$tb" 'BEGIN { exit !(b >= a * (1 - 1e-9) && a > 0) }' ||
	{ echo "FAIL tco_usd with --runs-per-month 1000000 ($tb) is below back to back ($ta)"; fail=1; }

# the memory error's suggested batch fits
"$S" predict --system dgxh100 --batch-per-gpu 4096 >/dev/null 2>err.txt
b=$(grep -o 'try --batch-per-gpu [0-9]*' err.txt | grep -o '[0-9]*$')
if [ -z "$b" ]; then echo "FAIL the memory error suggests no batch: $(cat err.txt)"; fail=1
else "$S" predict --system dgxh100 --batch-per-gpu "$b" >/dev/null 2>err.txt ||
	{ echo "FAIL the suggested --batch-per-gpu $b does not fit either: $(cat err.txt)"; fail=1; }; fi

# below the smallest measured global batch (1,632) the epochs are extrapolated too, and say so
"$S" predict --system dgxh100 --gpus-per-node 1 --format csv >one.csv 2>err.txt || { echo "FAIL predict 1 GPU: $(cat err.txt)"; fail=1; }
c=$(head -1 one.csv | tr ',' '\n' | grep -n '^extrapolated_below$' | cut -d: -f1)
[ -n "$c" ] && [ "$(sed -n 2p one.csv | cut -d, -f"$c")" = 1 ] || { echo "FAIL predict on 1 GPU: extrapolated_below not 1"; fail=1; }
"$S" predict --system dgxh100 --gpus-per-node 1 | grep -q "epochs.*EXTRAPOLATED.*below" ||
	{ echo "FAIL predict on 1 GPU: the epochs line does not say they are extrapolated below"; fail=1; }
"$S" predict --system dgxh100 --nodes 2 --format csv >two.csv 2>/dev/null
[ "$(sed -n 2p two.csv | cut -d, -f"$c")" = 0 ] || { echo "FAIL predict 2x8 (global batch in range) marked below"; fail=1; }

# ids in tables in full; hw show does not say "decode threads 0"
"$S" compare --gpus 16 --systems coreweave-gb200-nvl72,coreweave-hgx-h100 >out.txt 2>&1
grep -q "coreweave-gb200-nvl72 " out.txt && grep -q "coreweave-hgx-h100 " out.txt ||
	{ echo "FAIL compare truncates ids: $(grep coreweave out.txt | head -2)"; fail=1; }
"$S" hw show tf1-hvd | grep -q "decode threads 0" && { echo "FAIL hw show tf1-hvd says decode threads 0"; fail=1; }

# no "data staging 0.0 s" where the data set is on the nodes' drives already (nothing is copied)
"$S" predict --system dgxh100 | grep -q "data staging 0.0 s" && { echo "FAIL predict says data staging 0.0 s"; fail=1; }

# the report's cost chart plots the cost the reader ranked by (rent: the rentals, which have no capex)
if command -v gnuplot >/dev/null 2>&1; then
	"$S" report --systems lambda-hgx-b200,coreweave-hgx-b200 --gpus 8,16 --cost rent --out rrep >/dev/null 2>err.txt ||
		{ echo "FAIL report --cost rent: $(cat err.txt)"; fail=1; }
	grep -q "rent per run" rrep/cost.svg 2>/dev/null || { echo "FAIL report --cost rent: cost.svg does not plot rent"; fail=1; }
fi

[ $fail -eq 0 ] && echo "new_user: every case refused or labelled"
exit $fail
