#!/bin/sh
# What a new user still trips on, each tried as on a fresh clone: outputs checked before any work,
# conflicting options refused alike, messages that give the true reason and the limit, defaults that offer
# today's products, charts and reports that show what they say. Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
case "$S" in /*) ;; *) S="$PWD/$S" ;; esac
tmp=$(mktemp -d) || exit 2
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail=0
bad() { echo "FAIL $*"; fail=1; }

# refused NAME RC PATTERN CMD...: exit RC at once (nothing on stdout) and PATTERN (grep -E) on stderr
refused() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq "$want" ] && grep -Eq -- "$pat" err.txt || bad "$name: exit $rc (want $want and /$pat/): $(head -c 300 err.txt)"
	[ -s out.txt ] && bad "$name: did the work before refusing its output: $(head -c 200 out.txt)"
	return 0
}

# ---- outputs: checked before any work; a read-only file is left as it was ----
echo keep >ro.csv
chmod 444 ro.csv
mkdir adir
: >afile
refused "compare --out ro.csv (mode 444)" 1 "ro.csv.*read-only" "$S" compare --gpus 8 --format csv --out ro.csv
[ "$(cat ro.csv)" = keep ] || bad "compare replaced the read-only ro.csv"
[ "$(stat -c %a ro.csv)" = 444 ] || bad "compare changed ro.csv's mode to $(stat -c %a ro.csv)"
refused "compare --out nodir/x.csv" 1 "nodir/x.csv" "$S" compare --gpus 8 --out nodir/x.csv
refused "compare --out adir" 1 "adir.*directory" "$S" compare --gpus 8 --out adir
refused "sweep --out ro.csv" 1 "read-only" "$S" sweep --systems dgxh100 --quiet --out ro.csv
refused "sweep --out nodir/x.csv" 1 "nodir" "$S" sweep --systems dgxh100 --quiet --out nodir/x.csv
refused "calibrate --out nodir/p.csv" 1 "nodir/p.csv" "$S" calibrate --builtin --out nodir/p.csv
refused "calibrate --out ro.csv" 1 "read-only" "$S" calibrate --builtin --out ro.csv
refused "validate --detail ro.csv" 1 "read-only" "$S" validate --detail ro.csv
refused "validate --intervals nodir/i.csv" 1 "nodir" "$S" validate --intervals nodir/i.csv
refused "plot --out nodir/p" 1 "nodir" "$S" plot --out nodir/p ro.csv
refused "sim --trace nodir/t.json" 1 "nodir" "$S" sim --system dgxh100 --trace nodir/t.json
refused "report --out nodir/r" 1 "nodir/r" "$S" report --systems dgxh100 --gpus 8 --out nodir/r
refused "report --out afile" 1 "afile" "$S" report --systems dgxh100 --gpus 8 --out afile
refused "hw import --out afile" 1 "afile" "$S" hw import x.json --out afile
[ "$(cat ro.csv)" = keep ] || bad "a command replaced the read-only ro.csv"
# campaign: README "Exit status": a folder that is not there, or a file where a folder belongs, is 1
refused "campaign --out nodir/camp --dry-run" 1 "nodir/camp" "$S" campaign --out nodir/camp --dry-run
refused "campaign --out afile --dry-run" 1 "afile" "$S" campaign --out afile --dry-run
[ -s afile ] && bad "campaign wrote into the file afile"
# a writable output still works, and /dev/null too
"$S" compare --gpus 8 --systems dgxh100 --format csv --out ok.csv >/dev/null 2>err.txt && [ -s ok.csv ] ||
	bad "compare --out ok.csv: $(cat err.txt)"
"$S" compare --gpus 8 --systems dgxh100 --format csv --out /dev/null >/dev/null 2>err.txt ||
	bad "compare --out /dev/null: $(cat err.txt)"

# ---- options that contradict each other: exit 1 naming both, in every command ----
refused "predict --global-batch --batch-per-gpu" 1 "--global-batch.*--batch-per-gpu.*not both" \
	"$S" predict --system dgxh100 --global-batch 4096 --batch-per-gpu 256
refused "sim --global-batch --batch-per-gpu" 1 "--global-batch.*--batch-per-gpu.*not both" \
	"$S" sim --system dgxh100 --global-batch 4096 --batch-per-gpu 256
refused "sweep --global-batch --batch-per-gpu" 1 "--global-batch.*--batch-per-gpu.*not both" \
	"$S" sweep --global-batch 4096 --batch-per-gpu 256 --out s.csv
refused "campaign --run --dry-run" 1 "--run.*--dry-run.*not both" "$S" campaign --out c --run --dry-run
refused "campaign --fit-only --dry-run" 1 "--fit-only.*--dry-run.*not both" "$S" campaign --out c --fit-only --dry-run
[ -e c ] && bad "campaign made c/ before refusing its options"

# ---- messages: the true reason, the limit, the same flags as predict, names for every count ----
refused "report --systems testbed-h100x1 --gpus 8" 1 "network" "$S" report --systems testbed-h100x1 --gpus 8 --out rE
grep -q "partial-nodes" err.txt && bad "report blames the node size for a test bed without a network: $(cat err.txt)"
refused "report ... --partial-nodes" 1 "network" "$S" report --systems testbed-h100x1 --gpus 8 --partial-nodes --out rE
refused "compare --budget 1e30" 1 "budget '1e30'.*1e15" "$S" compare --gpus 8 --budget 1e30
grep -q "positive" err.txt && bad "--budget 1e30 called not positive: $(cat err.txt)"
refused "predict --runs-per-month 1e9" 1 "runs-per-month '1e9'.*1000000" "$S" predict --system dgxh100 --runs-per-month 1e9
"$S" sim --system dgxh100 --nodes 4096 >sim.txt 2>/dev/null || bad "sim --nodes 4096: exit $?"
grep "epochs" sim.txt | grep -q "EXTRAPOLATED" || bad "sim does not flag the extrapolated epochs: $(grep epochs sim.txt)"
grep -q "epoch .*0\.0 s" sim.txt && bad "sim prints an epoch of '0.0 s': $(grep epoch sim.txt)"
for eol in "" --include-eol; do
	"$S" compare --systems all --gpus 8 $eol >cmp.txt 2>&1 || bad "compare --systems all --gpus 8 $eol: exit $?"
	line=$(grep "^([0-9]* system.*left out" cmp.txt)
	if [ -n "$line" ]; then
		n=$(printf '%s\n' "$line" | sed -n 's/^(\([0-9]*\) system.*/\1/p')
		names=$(printf '%s\n' "$line" | sed -n 's/.*per node (\(.*\)); --partial.*/\1/p' | tr ',' '\n' | grep -c GPUs)
		[ "$n" = "$names" ] || bad "compare $eol: '$line' counts $n systems and names $names"
	fi
done
"$S" compare --gpus 1 --systems dgxh100 >one.txt 2>&1 || bad "compare --gpus 1: exit $?"
grep -Eq "1 GPUs|x 1 GPUs" one.txt && bad "compare --gpus 1 says '1 GPUs': $(grep -o '.\{20\}1 GPUs.\{10\}' one.txt | head -2)"
"$S" compare --gpus 8 --budget 100000 >bud.txt 2>&1 || bad "compare --budget 100000: exit $?"
grep "^answer" bud.txt | grep -q "deadline" && bad "a budget-only answer talks of deadlines: $(grep -o '.\{40\}deadline.\{40\}' bud.txt)"
"$S" compare --gpus 8 --deadline 12min --format csv >dl.csv 2>&1 || bad "compare --deadline: exit $?"
units=$(grep -o "misses deadline by [0-9.]* [a-z]*" dl.csv | awk '{print $NF}' | sort -u | wc -l)
[ "$units" -le 1 ] || bad "the fails column mixes units: $(grep -o 'misses deadline by [0-9.]* [a-z]*' dl.csv | tr '\n' ';')"

# ---- defaults: compare, report, sweep and `make plan` offer today's products, bought and rented ----
sysset() { cut -d, -f1 "$1" | sed 1d | sort -u; }
"$S" compare --gpus 8 --format csv >cmp8.csv 2>err.txt || bad "compare --gpus 8 --format csv: $(cat err.txt)"
sysset cmp8.csv >cmp.sys
for want in gb300-nvl72 xe9680-h100 dgxh100 aws-p5 lambda-hgx-h100 coreweave-gb200-nvl72; do
	grep -qx "$want" cmp.sys || bad "compare's default leaves out $want (a product of today)"
done
grep -q "^testbed" cmp.sys && bad "compare's default offers a test bed: $(grep testbed cmp.sys | tr '\n' ' ')"
for eol in c4140-m dgx1-v100 r740-p40; do grep -qx "$eol" cmp.sys && bad "compare's default offers end-of-life $eol"; done
"$S" report --gpus 8 --out rep8 >/dev/null 2>err.txt || bad "report without --systems: exit $? $(cat err.txt)"
[ -f rep8/placements.csv ] && { sysset rep8/placements.csv | cmp -s - cmp.sys || bad "report's default systems differ from compare's"; }
"$S" sweep --nodes 1 --gpus-per-node 8 --partial-nodes --quiet --out sw.csv >/dev/null 2>err.txt || bad "sweep: $(cat err.txt)"
sysset sw.csv >sw.sys
grep -q "^testbed" sw.sys && bad "sweep's default offers a test bed"
comm -13 cmp.sys sw.sys | grep -q . && bad "sweep's default has systems compare's lacks: $(comm -13 cmp.sys sw.sys | tr '\n' ' ')"
"$S" sweep --global-batch 3 --quiet --out gb3.csv >gb3.txt 2>&1
grep -q testbed gb3.txt && bad "sweep --global-batch 3 recommends a test bed: $(grep testbed gb3.txt | head -1)"
for c in compare report sweep; do
	"$S" $c --help >h.txt 2>&1
	grep -q "today's products, bought and rented" h.txt || bad "$c --help does not say the default is today's products"
	grep -q "seed systems" h.txt && bad "$c --help still calls the default the seed systems"
done
grep -q "today's products," "$OLDPWD/README.md" 2>/dev/null || [ ! -f "$OLDPWD/README.md" ] ||
	bad "README does not say compare, report, sweep and make plan offer today's products"

# ---- charts: the cost chart draws the whole front; legends as drawn ----
if command -v gnuplot >/dev/null 2>&1; then
	"$S" compare --systems all --gpus 64 --format csv >opts64.csv 2>/dev/null
	"$S" plot opts64.csv --kind cost --cost rent --format svg --out c64 >/dev/null 2>err.txt || bad "plot cost: $(cat err.txt)"
	# the cheapest rent of the CSV (column rent_usd) must be drawn: it is on the time-cost front
	cheap=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rent_usd") c = i; next }
		$c != "" && (m == "" || $c + 0 < m + 0) { m = $c; s = $1 } END { print s }' opts64.csv)
	[ -n "$cheap" ] && ! grep -q "$cheap" c64.svg && bad "the cost chart leaves out $cheap, the cheapest rent (on the front)"
fi
"$S" plot --help | grep -q "ttt_s dashed" && bad "plot --help says ttt_s is dashed (it is drawn as small dots)"

# ---- the report: the answer's row marked, no empty column, axes to the data, files that exist, storage explained ----
"$S" report --systems dgxh100,hgx-h200,dgxb200,gb200-nvl72 --gpus 8,64,144 --budget 5000000 --out memo >/dev/null 2>err.txt ||
	bad "report memo: $(cat err.txt)"
if [ -f memo/report.md ]; then
	sed -n '/^## Ranking at 8 GPUs/,/^## /p' memo/report.md | grep -q '^| [0-9]* answer |' ||
		bad "report: the recommended row at 8 GPUs is not marked"
	grep -q "rent per run" memo/report.md && bad "report shows a rent column though no system here rents (all '-')"
	# breakdown: a storage time longer than the iteration, with another bottleneck, says it is the first epoch's
	sed -n '/^## Breakdown/,/^## /p' memo/report.md | awk -F' [|] ' 'NF > 10 && $4 + 0 > 0 && $8 + 0 > $4 + 0 &&
		$9 != "storage" && $8 !~ /first epoch/ { print; bad = 1 } END { exit bad }' >unexpl.txt ||
		bad "report's breakdown: storage longer than the step, not the bottleneck, unexplained: $(head -1 unexpl.txt)"
	if [ -f memo/tta.svg ]; then
		top=$(grep -o '<text>[0-9 ]*</text>' memo/tta.svg | tr -dc '0-9\n' | sort -n | tail -1)
		[ "${top:-0}" -le 144 ] || bad "report's tta chart: x axis runs to $top GPUs, the data to 144"
	fi
fi
mkdir nognu
for b in sh cat rm mkdir; do p=$(command -v $b) && ln -s "$p" nognu/$b; done
PATH="$PWD/nognu" "$S" report --systems dgxh100 --gpus 8 --out memo2 >/dev/null 2>&1
if [ -f memo2/report.md ]; then
	for f in tta.svg cost.svg; do
		[ -f memo2/$f ] || ! sed -n '/^## Files/,$p' memo2/report.md | grep -q "$f" ||
			bad "report without gnuplot lists $f in Files, never written"
	done
fi

exit $fail
