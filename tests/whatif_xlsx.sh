#!/bin/sh
# costs.xlsx as a previewer shows it: every formula's stored result (no recalculation) equals compare's CSV
# within 0.1% at three GPU counts, and each system's prices are on one Assumptions row (an edit reaches every
# row of it). Then as finance uses it: LibreOffice (headless) opens the workbook report wrote, with every stored
# result removed so that it must compute each formula, and each option's money (every capex part, both ends
# of the ranges, the owner's cost per run and per GPU-hour, rent as billed, the break-even) equals compare's
# CSV within 0.1%, and the answer's owned cash by year equals the report's cashflow.csv; then the same after an
# input on the Assumptions sheet is changed (utilisation, kWh price, cost of capital, residual, runs a month,
# the rent's fall a year (on demand and a 1-year reservation renewed):
# against compare and report with that option; the Cash flow sheet's owned and rented cost by year against
# the report's cashflow.csv, on demand at a fall of 0 and 0.25 a year and 1- and 3-year reservations at 0.25),
# and a second set of systems with rentals (one with a cluster
# rate above its instance; on demand, a 1-year reservation and spot). The book must hold >= 20 formulas, >= 10 of them
# over Assumptions. Skips with a message where the build left the book out (no libxlsxwriter) or there is
# no LibreOffice; fails if libxlsxwriter is here and the book is not.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
CHECK="python3 tests/lib/xlsx_check.py"
S1=dgxh100,hgx-h200,dgxb200,gb200-nvl72
S2=aws-p5,coreweave-hgx-h100,coreweave-gb200-nvl72,lambda-hgx-h100,dgxh100
"$SP" report --systems $S1 --gpus 64 --out "$tmp/D" >"$tmp/log" 2>&1 || { cat "$tmp/log"; no "report"; exit 1; }
if [ ! -f "$tmp/D/costs.xlsx" ]; then
	grep -q 'costs.xlsx left out: ' "$tmp/log" || no "no costs.xlsx and no reason given"
	pkg-config --exists xlsxwriter 2>/dev/null && no "libxlsxwriter is installed but costs.xlsx was left out"
	echo "whatif_xlsx.sh: $(grep 'costs.xlsx left out' "$tmp/log"); workbook checks skipped"
	exit $fail
fi
set -- $($CHECK count "$tmp/D/costs.xlsx")
[ "$1" -ge 20 ] && [ "$2" -ge 10 ] || no "costs.xlsx: $1 formulas, $2 over Assumptions (want >= 20, >= 10)"
echo "costs.xlsx: $1 formulas, $2 over Assumptions"
# The checks are queued (q MESSAGE CHECK ARGS...) and run by flush in one start of Python each time the
# files they read are all written: a start costs more than most checks.
Q=$tmp/checks.txt
: >"$Q"
q() {
	printf '%s' "$1" >>"$Q"
	shift
	for a in "$@"; do printf '\t%s' "$a" >>"$Q"; done
	printf '\n' >>"$Q"
}
flush() { $CHECK batch "$Q" || fail=1; : >"$Q"; }
# as a previewer shows it (no recalculation): every formula stores its value, and the stored money of every
# option at every GPU count equals compare's CSV within 0.1%; each system's prices are on one row
"$SP" report --systems $S1,coreweave-hgx-h100 --gpus 8,64,144 --out "$tmp/V" >"$tmp/log" 2>&1 || { cat "$tmp/log"; no "report V"; }
q "a formula stores no value" stored "$tmp/V/costs.xlsx" "$tmp/V/stored.csv"
q "a system's prices are on more than one row" once "$tmp/V/costs.xlsx"
for g in 8 64 144; do
	"$SP" compare --systems $S1,coreweave-hgx-h100 --gpus $g --out "$tmp/V/c$g.csv" >/dev/null
	q "stored rows at $g GPUs" rows "$tmp/V/stored.csv" $g "$tmp/V/s$g.csv"
	q "stored values at $g GPUs differ from compare" compare "$tmp/V/s$g.csv" "$tmp/V/c$g.csv"
done
q "stored cash flow differs from cashflow.csv" cashflow "$tmp/V/s8.csv" "$tmp/V/cashflow.csv" "$tmp/V/report.md"
# the Cash flow sheet (book and cash by year, owned and rented) and the two-way Sensitivity table
q "Cash flow or Sensitivity sheet differs from report and compare" sheets "$tmp/V/costs.xlsx" "$tmp/V/cashflow.csv" \
	"$tmp/V/report.md" "$tmp/V/c8.csv"
office=$(command -v soffice || command -v libreoffice) || { flush; echo "whatif_xlsx.sh: no LibreOffice; skipped"; exit $fail; }
# A fresh profile that recalculates OOXML files on load (LibreOffice's default asks or never does).
mkdir -p "$tmp/lo/user"
cat >"$tmp/lo/user/registrymodifications.xcu" <<'XCU'
<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
XCU
# The changed books all go into $X and LibreOffice computes them in one start (each start takes seconds):
# put BOOK NAME VALUE OUT queues BOOK with Assumptions' NAME set to VALUE as $X/OUT.xlsx; recalc_all then
# writes $X/OUT-Options.csv (every sheet computed by LibreOffice) for each.
X=$tmp/x
mkdir -p "$X"
put() { q "cannot set $2 in $1" set "$1" "$2" "$3" "$X/$4.xlsx"; }
recalc_all() {
	timeout 300 "$office" --headless -env:UserInstallation="file://$tmp/lo" --convert-to \
		'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1' --outdir "$X" "$X"/*.xlsx \
		>/dev/null 2>&1
	for b in "$X"/*.xlsx; do [ -s "${b%.xlsx}-Options.csv" ] || no "LibreOffice did not convert $b"; done
}
# CASE NAME VALUE OPT ...: the book with NAME=VALUE against compare with OPT VALUE, and (cash=1) its owned
# cash by year against the report's cashflow.csv with that option
case_of() {
	name=$1 value=$2 systems=$3 opt=$4
	shift 4
	sheet="$X/$name-$value-Options.csv"
	"$SP" compare --systems "$systems" "$@" "$opt" "$value" --out "$tmp/cmp-$name-$value.csv" >/dev/null
	q "costs.xlsx with $name=$value differs from compare $opt $value" compare "$sheet" "$tmp/cmp-$name-$value.csv"
	[ "$cash" = 1 ] || return
	C=$tmp/C-$name-$value
	"$SP" report --systems "$systems" "$@" "$opt" "$value" --out "$C" >/dev/null 2>&1 || { no "report $opt $value"; return; }
	[ -f "$C/cashflow.csv" ] || { no "report $opt $value wrote no cashflow.csv"; return; }
	q "costs.xlsx with $name=$value: cash flow differs from the report's cashflow.csv" cashflow "$sheet" \
		"$C/cashflow.csv" "$C/report.md"
	q "costs.xlsx with $name=$value: Cash flow sheet differs from the report's cashflow.csv" cash_sheet \
		"$X/$name-$value-Cash flow.csv" "$C/cashflow.csv"
}
CASES="utilisation:0.54:--utilisation utilisation:0.3:--utilisation kwh_usd:0.25:--kwh-price
	finance_rate:0.07:--finance-rate residual_frac:0.3:--residual runs_per_month:200:--runs-per-month
	rent_decline:0.25:--rent-decline rent_decline:0:--rent-decline"
for c in $CASES; do
	IFS=: read -r name value opt <<EOF2
$c
EOF2
	put "$tmp/D/costs.xlsx" "$name" "$value" "$name-$value"
done
# rentals; lambda-hgx-h100 given a cluster rate above its 8 GPUs (an overlay: the database has none), so that
# the rate and increment above the instance's limit are checked too
mkdir -p "$tmp/q"
# (a price table replaces a system's rent columns as one group: the on-demand rate is given again)
{
	echo 'id,rent_usd_gpu_h,rent_date,rent_source,rent_max_gpus,rent_increment_s,rent_cluster_usd_gpu_h,rent_cluster_increment_s'
	echo 'lambda-hgx-h100,3.99,2026-09,a test quote,8,60,2.99,604800'
} >"$tmp/q/systems.csv"
"$SP" report --systems $S2 --gpus 8,64 --cost rent --hwdb "$tmp/q" --out "$tmp/R" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; no "report 2"; exit 1; }
for g in 8 64; do put "$tmp/R/costs.xlsx" pue 1.2 "g$g"; done
# a 1-year reservation (paid around the clock: the run's share of the month) and spot (expected reruns)
for t in 1y spot; do
	"$SP" report --systems $S2 --gpus 64 --cost rent --rent-term $t --out "$tmp/T$t" >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log"; no "report --rent-term $t"; continue; }
	put "$tmp/T$t/costs.xlsx" pue 1.2 "t$t"
done
# the rent falling over the horizon, a 1-year reservation renewed each year at the year's rate
[ -f "$tmp/T1y/costs.xlsx" ] && put "$tmp/T1y/costs.xlsx" rent_decline 0.25 "t1y-decline"
# the bought cluster's cash flow against 1- and 3-year reservations renewed as the rent falls: the Cash flow
# sheet's rented cost year by year
for t in 1y 3y; do
	"$SP" report --systems $S1 --gpus 64 --rent-term $t --rent-decline 0.25 --out "$tmp/F$t" >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log"; no "report --rent-term $t --rent-decline 0.25"; continue; }
	put "$tmp/F$t/costs.xlsx" rent_decline 0.25 "f$t"
done
flush
recalc_all

cash=1
for c in $CASES; do
	IFS=: read -r name value opt <<EOF2
$c
EOF2
	case_of "$name" "$value" $S1 "$opt" --gpus 64
done
cmp -s "$X/utilisation-0.54-Options.csv" "$X/utilisation-0.3-Options.csv" && no "utilisation changed nothing"
for g in 8 64; do
	# the book holds both counts; compare one at a time (the other count's rows are not in its CSV)
	"$SP" compare --systems $S2 --gpus $g --cost rent --hwdb "$tmp/q" --out "$tmp/cmp$g.csv" >/dev/null
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["system"] == "lambda-hgx-h100" && $c["rent_usd"] == "" { bad = 1 }
		END { exit bad }' "$tmp/cmp$g.csv" || no "lambda-hgx-h100 unpriced at $g GPUs: the cluster rate case is not checked"
	q "rentals' rows at $g GPUs" rows "$X/g$g-Options.csv" $g "$tmp/R/only$g.csv"
	q "rentals at $g GPUs differ from compare" compare "$tmp/R/only$g.csv" "$tmp/cmp$g.csv"
done
for t in 1y spot; do
	"$SP" compare --systems $S2 --gpus 64 --cost rent --rent-term $t --out "$tmp/cmp$t.csv" >/dev/null
	q "rentals with --rent-term $t differ from compare" compare "$X/t$t-Options.csv" "$tmp/cmp$t.csv"
done
"$SP" compare --systems $S2 --gpus 64 --cost rent --rent-term 1y --rent-decline 0.25 --out "$tmp/cmp1yd.csv" >/dev/null
q "--rent-term 1y --rent-decline 0.25 differs from compare" compare "$X/t1y-decline-Options.csv" "$tmp/cmp1yd.csv"
for t in 1y 3y; do
	q "--rent-term $t --rent-decline 0.25: Cash flow sheet differs from the report's cashflow.csv" cash_sheet \
		"$X/f$t-Cash flow.csv" "$tmp/F$t/cashflow.csv"
done
flush
exit $fail
