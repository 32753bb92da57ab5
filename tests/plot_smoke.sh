#!/bin/sh
# scaleplan plot end to end: each chart kind drawn by gnuplot from CSVs scaleplan writes (SVG and PNG appear,
# no temporary file left), a name that tries to inject a gnuplot command draws as text, bad CSVs exit 1 with
# file:line:column, and a PATH without gnuplot exits 2 naming the package. Skips when gnuplot is not installed.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SP=${SCALEPLAN:-build/scaleplan}
case "$SP" in /*) ;; *) SP="$PWD/$SP" ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# PREFIX: both outputs there, an SVG and a PNG, nothing temporary left
drawn() {
	[ -s "$1.svg" ] && grep -q '<svg' "$1.svg" || bad "$1.svg missing or not SVG"
	[ -s "$1.png" ] && [ "$(head -c 4 "$1.png" | tail -c 3)" = "PNG" ] || bad "$1.png missing or not PNG"
	ls "$1".*.tmp >/dev/null 2>&1 && bad "temporary files left for $1"
}
# no gnuplot: exit 2 with the package named, CSV input still checked first (runs without gnuplot installed)
"$SP" compare --gpus 8 --systems dgxh100,c4140-m --format csv >"$tmp/c8.csv" || bad "compare"
PATH=/nonexistent "$SP" plot "$tmp/c8.csv" --out "$tmp/x" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q gnuplot-nox "$tmp/err" || { bad "no gnuplot: exit $rc"; cat "$tmp/err"; }
[ -e "$tmp/x.svg" ] && bad "no gnuplot but x.svg written"
# bad CSVs: exit 1, file:line:column named
printf 'system,gpus_per_node,gpus,tta_s\na,8,8,100\na,8,16,soon\n' >"$tmp/bad.csv"
"$SP" plot "$tmp/bad.csv" --out "$tmp/b" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'bad.csv:3:4 (tta_s): expected' "$tmp/err" || { bad "bad cell: exit $rc"; cat "$tmp/err"; }
printf 'a,b\n1,2\n' >"$tmp/other.csv"
"$SP" plot "$tmp/other.csv" --out "$tmp/b" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'other.csv:1: header' "$tmp/err" || { bad "unknown header: exit $rc"; cat "$tmp/err"; }
"$SP" validate --format csv >"$tmp/groups.csv" 2>/dev/null
"$SP" plot "$tmp/groups.csv" --out "$tmp/b" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'validate --detail' "$tmp/err" || { bad "validate group table: exit $rc"; cat "$tmp/err"; }
"$SP" plot "$tmp/nonexistent.csv" --out "$tmp/b" 2>/dev/null; [ $? -eq 1 ] || bad "missing file not exit 1"
"$SP" plot "$tmp/c8.csv" --out "$tmp/b" --kind pie 2>/dev/null; [ $? -eq 1 ] || bad "--kind pie not exit 1"
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "plot_smoke.sh: gnuplot not installed (Debian gnuplot-nox; make deps); drawing checks skipped"
	exit $fail
fi
"$SP" compare --gpus 16 --systems dgxh100,c4140-m --format csv >"$tmp/c16.csv" || bad "compare 16"
"$SP" plot "$tmp/c8.csv" "$tmp/c16.csv" --out "$tmp/tta" >/dev/null || bad "plot tta"
drawn "$tmp/tta"
grep -q 'dgxh100 8/node' "$tmp/tta.svg" || bad "tta.svg lacks the series dgxh100 8/node"
"$SP" sweep --out "$tmp/sw.csv" --systems dgx1-v100,dgxa100-40g --nodes 1,2,4 --quiet >/dev/null 2>&1 || bad "sweep"
"$SP" plot --kind cost "$tmp/sw.csv" --budget 500000 --out "$tmp/cost" >/dev/null || bad "plot cost"
drawn "$tmp/cost"
grep -q 'Pareto front' "$tmp/cost.svg" || bad "cost.svg lacks the Pareto front"
"$SP" validate --detail "$tmp/det.csv" >/dev/null || bad "validate --detail"
"$SP" plot "$tmp/det.csv" --out "$tmp/parity" --format svg >/dev/null || bad "plot parity"
[ -s "$tmp/parity.svg" ] && [ ! -e "$tmp/parity.png" ] || bad "--format svg wrote other than parity.svg"
"$SP" plot "$here/bench/data/h200x2-2026-11-22-b/train_jpeg.csv" --out "$tmp/epochs" >/dev/null || bad "plot epochs"
drawn "$tmp/epochs"
# one GPU count (one x value) and one configuration (one x and one y): gnuplot says nothing on stderr (it
# warned "empty x range" through `report --gpus 8`); both charts are drawn
"$SP" compare --gpus 8 --systems dgxh100 --format csv >"$tmp/one-tta.csv" 2>/dev/null || bad "compare one system"
"$SP" sweep --systems dgx1-v100 --nodes 1 --quiet --out "$tmp/one-cost.csv" 2>/dev/null || bad "sweep one configuration"
for k in tta cost; do
	"$SP" plot "$tmp/one-$k.csv" --kind $k --out "$tmp/one-$k" >/dev/null 2>"$tmp/err" || bad "plot one value $k"
	[ -s "$tmp/err" ] && { bad "plot $k of one GPU count wrote to stderr:"; cat "$tmp/err"; }
	drawn "$tmp/one-$k"
done
# injection: a system named to close the string and run a shell command draws as text, runs nothing
printf 'system,gpus_per_node,gpus,tta_s\n"x'"'"'\nsystem '"'"'touch %s/pwned'"'"'\n#",8,8,100\n' "$tmp" >"$tmp/evil.csv"
"$SP" plot "$tmp/evil.csv" --out "$tmp/evil" >/dev/null 2>"$tmp/err" || { bad "plot evil"; cat "$tmp/err"; }
[ -e "$tmp/pwned" ] && bad "a system name ran a command through gnuplot"
grep -q 'touch' "$tmp/evil.svg" || bad "the evil name is not drawn as text"
exit $fail
