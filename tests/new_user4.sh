#!/bin/sh
# What a new user trips on, one block a case: a "-" says its true reason; the capex line
# sums to the capex with every part named; an option given twice, or two that answer one question, are
# refused with both named; help texts say what the program does; one limit for GPU counts and durations in
# a unit that shows them; the sweep's progress counts what it does; hw import's folders follow the umask.
# (The what-if page's figures and chart: tests/whatif_chart.sh.) Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$tmp" || exit 2

# 1. the true reason for a "-": Lambda rents one 8-GPU instance and the database has no cluster rate
expect 0 "$SP" predict --system lambda-hgx-h100 --nodes 8
grep -q '^  rent  .*8 GPUs' "$tmp/out" || no "predict lambda-hgx-h100 --nodes 8: no rent line naming the 8-GPU limit: $(grep rent "$tmp/out")"
grep '^  capex ' "$tmp/out" | grep -qi 'rented\|no purchase price\|not sold' ||
	no "predict lambda-hgx-h100: no capex line saying why there is none"
expect 0 "$SP" predict --system dgxh100
grep '^  rent ' "$tmp/out" | grep -q 'no .*rental rate' || no "predict dgxh100: no rent line saying there is no rental rate"
expect 0 "$SP" compare --gpus 16 --systems lambda-hgx-h100,dgxh100
lacks "'-' = no such price in the database"
grep -q 'lambda-hgx-h100.*8 GPUs' "$tmp/out" || no "compare --gpus 16: the '-' of lambda-hgx-h100 not explained by its 8-GPU limit"
expect 0 "$SP" compare --gpus 8 --systems lambda-hgx-h100,dgxh100
grep -q 'lambda-hgx-h100.*8 GPUs' "$tmp/out" && no "compare --gpus 8: lambda-hgx-h100 rents 8 GPUs, yet its limit is given as a reason"

# 2. the capex line: every figure after the '=' adds up to the capex (each rounded to the dollar or cent shown)
for args in "--system dgxb200" "--system dgxb200 --storage isilon-f800" "--system gb200-nvl72 --nodes 2" \
	"--system dgxh100 --nodes 4"; do
	# shellcheck disable=SC2086
	"$SP" predict $args >out.w 2>&1 || no "predict $args: exit $?"
	unwrap out.w >out.txt # the capex line, wrapped at 200 characters, joined back
	line=$(grep '^  capex ' out.txt)
	for part in servers network storage racks cooling installation; do
		printf '%s\n' "$line" | grep -q "$part" || no "predict $args: capex line lacks $part: $line"
	done
	printf '%s\n' "$line" | python3 -c '
import re, sys
line = sys.stdin.read()
total, rest = line.split("=", 1)
cap = float(re.search(r"\$([0-9,.]+)", total).group(1).replace(",", ""))
rest = re.sub(r"\([^)]*\)", "", rest)            # ranges and notes in parentheses are not parts
s = 0.0
for term in rest.split(" + "):
    m = re.search(r"(\d+) x \$([0-9,.]+)", term) or None
    if m: s += int(m.group(1)) * float(m.group(2).replace(",", "")); continue
    m = re.search(r"\$([0-9,.]+)", term)
    if m: s += float(m.group(1).replace(",", ""))
sys.exit(0 if abs(s - cap) <= 6 else 1)            # six parts each rounded to the dollar
' || no "predict $args: the capex line does not add up: $line"
done
"$SP" predict --system dgxb200 --storage isilon-f800 2>&1 | unwrap >out.txt
grep '^  capex ' out.txt | grep -q 'isilon-f800' || no "predict --storage isilon-f800: the capex line does not say how the store is priced: $(grep '^  capex' out.txt)"

# 3. an option twice, or two options that answer one question: refused with both named
refused() { # NAME PATTERN CMD...: exit 1 and PATTERN (grep -E) on stderr
	name=$1 pat=$2
	shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	if [ $rc -ne 1 ] || ! grep -Eq -- "$pat" err.txt; then
		no "$name: exit $rc (want 1 and /$pat/ on stderr): $(head -c 300 err.txt)"
	fi
}
refused "compare --gpus 8 --gpus 16" "--gpus.*'8'.*'16'" "$SP" compare --gpus 8 --gpus 16 --systems dgxh100
refused "predict --nodes 2 --nodes 4" "--nodes.*'2'.*'4'" "$SP" predict --system dgxh100 --nodes 2 --nodes 4
refused "predict --utilisation --utilization" "--utilisation.*'0.5'.*'0.6'" "$SP" predict --system dgxh100 --utilisation 0.5 --utilization 0.6
refused "predict --runs-per-month --utilisation" "--runs-per-month.*--utilisation|--utilisation.*--runs-per-month" \
	"$SP" predict --system dgxh100 --runs-per-month 10 --utilisation 0.5
refused "sweep --runs-per-month --utilisation" "--runs-per-month.*--utilisation|--utilisation.*--runs-per-month" \
	"$SP" sweep --systems dgxh100 --nodes 1 --quiet --out s.csv --runs-per-month 10 --utilisation 0.5
[ -e s.csv ] && no "sweep left s.csv after refusing its options"
# --runs-per-month alone: the CSV's utilisation is the use those runs make (runs x tta over a month), not the
# --utilisation default it replaced
"$SP" predict --system dgxh100 --nodes 8 --runs-per-month 1000 --format csv >rpm.csv 2>&1 || no "predict --runs-per-month: exit $?"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	NR == 2 { want = 1000 * $c["tta_s"] / (365.25 * 86400 / 12); got = $c["utilisation"];
		  if (!(got > 0) || (got - want) / want > 0.01 || (want - got) / want > 0.01) {
			  printf "predict --runs-per-month 1000: utilisation %s, the runs use %.4f\n", got, want; exit 1 } }' rpm.csv ||
	no "predict --runs-per-month 1000: the CSV's utilisation is not the use the runs make"
# repeatable options stay repeatable
expect 0 "$SP" predict --system dgxh100 --param eff_compute=0.8 --param eff_compute=0.7
expect 0 "$SP" predict --system dgxh100 --measured 8:256:25000 --measured 8:128:24000

# 4. help texts: what the program does
"$SP" --help >out.txt 2>&1
for sub in $("$SP" hw --help | grep -o 'scaleplan hw [a-z]*' | cut -d' ' -f3 | sort -u); do
	grep '^  hw ' out.txt | grep -qw "$sub" || no "top-level help's hw line lacks hw $sub: $(grep '^  hw ' out.txt)"
done
"$SP" sweep --help >out.txt 2>&1
grep -q '^  --gpus-per-node' out.txt || no "sweep --help: --gpus-per-node not on a line of its own"
"$SP" sweep --systems dgxh100 --nodes 1 --quiet --out cols.csv >/dev/null 2>&1
"$SP" predict --system dgxh100 --format csv | head -1 | tr ',' '\n' >pcols.txt
head -1 cols.csv | tr -d '\r' | tr ',' '\n' | while read -r c; do
	grep -qx "$c" pcols.txt && continue
	tr '\n' ' ' <out.txt | tr -s ' ' | grep -q -- "$c" || echo "$c"
done >missing.txt
[ -s missing.txt ] && no "sweep --help does not name its CSV columns $(tr '\n' ' ' <missing.txt)"
"$SP" validate --help >out.txt 2>&1
usage=$(sed -n '/^usage/,/^$/p' out.txt)
for o in $(sed -e 's/`[^`]*`//g' out.txt | sed -n '/^$/,$p' | grep -o -- '^ *--[a-z][a-z-]*' | tr -d ' ' | sort -u); do
	[ "$o" = --help ] && continue
	printf '%s\n' "$usage" | grep -q -- "$o" || no "validate's usage line lacks $o"
done
printf 'a,b\n1,2\n' >x.csv
"$SP" plot x.csv --kind epochs --out pl >/dev/null 2>err.txt
grep -q "a epochs" err.txt && no "plot says 'a epochs chart': $(cat err.txt)"
# sim --help's claim of equality with predict, run as it is written
"$SP" sim --help | tr '\n' ' ' >out.txt
grep -q -- '--jitter 0 --param straggler_cv=0 the times equal those of `scaleplan predict --param straggler_cv=0`' out.txt ||
	no "sim --help does not say which options make it equal predict: $(grep -o 'With --contention.*predict[^.]*' out.txt)"
"$SP" predict --system dgxh100 --param straggler_cv=0 --format csv >p.csv
"$SP" sim --system dgxh100 --contention off --warmup off --jitter 0 --param straggler_cv=0 --format csv >s.csv 2>/dev/null
for c in tta_s ttt_s iter_s epoch_s; do
	[ "$(col $c p.csv)" = "$(col $c s.csv)" ] || no "sim --help says its times equal predict's; $c $(col $c s.csv) vs $(col $c p.csv)"
done

# 6. one limit for GPU counts, and durations that show
lim=$("$SP" compare --gpus 0 2>&1 | grep -o '1\.\.[0-9]*' | head -1)
[ -n "$lim" ] || no "compare --gpus 0 names no range"
"$SP" predict --system dgxh100 --nodes 12500 >out.txt 2>err.txt
rc=$?
n=${lim#1..}
if [ "$n" -ge 100000 ]; then
	[ $rc -eq 0 ] || no "predict 100,000 GPUs refused while compare --gpus takes up to $n: $(cat err.txt)"
	"$SP" compare --gpus 100000 --systems dgxh100 >/dev/null 2>err.txt || no "compare --gpus 100000: $(cat err.txt)"
else
	[ $rc -eq 1 ] && grep -q "$n" err.txt || no "predict with 100,000 GPUs: exit $rc; compare caps --gpus at $n"
fi
grep -E '(epoch|time to train|boundaries|evaluation).* 0\.0 s' out.txt && no "predict --nodes 12500 prints a 0.0 s duration"
# nodes x GPUs per node above the limit: refused by predict, sim and sweep, naming it
over=$(((n / 8) + 1))
for cmd in predict sim; do
	refused "$cmd --nodes $over (8 GPUs each)" "at most $n GPUs" "$SP" $cmd --system dgxh100 --nodes $over
done
refused "sweep --nodes $over (8 GPUs each)" "at most $n GPUs" "$SP" sweep --systems dgxh100 --nodes 1,$over --quiet --out o.csv
# (the sweep's ranking progress counts rows, never past them: tests/test_sort.c)

# 7. hw import --out DIR: the folder with the user's umask (mkdtemp's 0700 was kept after the rename)
for u in 022 027; do
	rm -rf "imp$u"
	(umask $u && "$SP" hw import "$here/tests/data/mlperf_systems/R760xax4L40S.json" --out "imp$u" >/dev/null 2>err.txt) ||
		no "hw import --out imp$u: $(cat err.txt)"
	m=$(stat -c %a "imp$u" 2>/dev/null)
	want=$(printf '%o' $((0777 & ~0$u)))
	[ "$m" = "$want" ] || no "hw import --out: folder created with mode $m under umask $u (want $want)"
done
exit $fail
