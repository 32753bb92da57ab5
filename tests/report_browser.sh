#!/bin/sh
# scaleplan report end to end: the folder is complete (report.md, index.html, placements.csv, SVGs), bad input
# exits 1 leaving nothing behind, and index.html opened in headless Chromium loads every image and shows every
# table with its rows (index.html's inline script writes the counts onto <body> after load; --dump-dom shows
# them). A copy with one chart removed must report the missing image, so the check can fail.
# Skips the browser part when no Chromium is installed (Firefox ESR has no --dump-dom).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SP=${SCALEPLAN:-build/scaleplan}
case "$SP" in /*) ;; *) SP="$PWD/$SP" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$SP" report --systems c4140-k,c4140-m,dgx1-v100 --gpus 4,8 --budget 500000 --partial-nodes --out "$tmp/rep" >"$tmp/log" 2>&1 ||
	{ bad "report"; cat "$tmp/log"; exit 1; }
for f in report.md index.html placements.csv; do [ -s "$tmp/rep/$f" ] || bad "rep/$f missing"; done
ls -d "$tmp"/rep.tmp-* >/dev/null 2>&1 && bad "temporary folder left"
charts=0
if command -v gnuplot >/dev/null 2>&1; then
	charts=4
	for f in tta.svg cost.svg sensitivity.svg cashflow.svg; do [ -s "$tmp/rep/$f" ] || bad "rep/$f missing"; done
	# money axes in dollars, never 1e+06
	grep -q '>\$[0-9.]*[kMG]*<' "$tmp/rep/cost.svg" || bad "cost.svg: no dollar tic labels"
	grep -q '>\$[0-9.]*[kMG]*<' "$tmp/rep/sensitivity.svg" || bad "sensitivity.svg: no dollar tic labels"
	grep -q '>\$[0-9.]*[kMG]*<' "$tmp/rep/cashflow.svg" || bad "cashflow.svg: no dollar tic labels"
	grep -q 'e+0' "$tmp/rep/cost.svg" "$tmp/rep/sensitivity.svg" && bad "a money axis in e+0 notation"
fi
# the Sensitivity section: the answer's cost against each input, what could flip the decision said
grep -q '^## Sensitivity' "$tmp/rep/report.md" || bad "report.md: no Sensitivity section"
grep -q 'could flip which\|none of these inputs' "$tmp/rep/report.md" || bad "report.md: Sensitivity names no flip"
# bad input: exit 1, no folder
"$SP" report --systems c4140-k,nosuch --gpus 4 --out "$tmp/r2" 2>/dev/null; rc=$?
[ $rc -eq 1 ] || bad "unknown system: exit $rc"
ls -d "$tmp"/r2* >/dev/null 2>&1 && bad "unknown system left a folder"
"$SP" report --systems c4140-k --gpus 4 --out "$tmp/rep" 2>/dev/null; rc=$?
[ $rc -eq 1 ] || bad "existing --out: exit $rc"
# SIGINT once the temporary folder exists: exit 130 and nothing left, or (the report won the race) exit 0 and
# the whole folder; never a half-written one
"$SP" report --systems all --gpus 1,2,4,8,16,32,64 --out "$tmp/ri" >/dev/null 2>"$tmp/ri.err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! ls -d "$tmp"/ri.tmp-* >/dev/null 2>&1 && kill -0 $pid 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
kill -INT $pid 2>/dev/null
wait $pid; rc=$?
ls -d "$tmp"/ri.tmp-* >/dev/null 2>&1 && bad "SIGINT: temporary folder left"
if [ $rc -eq 130 ]; then
	[ -e "$tmp/ri" ] && bad "SIGINT: exit 130 but $tmp/ri written"
	grep -q 'stopped by SIGINT' "$tmp/ri.err" || bad "SIGINT: no message"
elif [ $rc -eq 0 ]; then
	[ -s "$tmp/ri/index.html" ] || bad "exit 0 without index.html"
else
	bad "SIGINT: exit $rc"; cat "$tmp/ri.err"
fi
# expected rows: per GPU count the placements in the CSV (read by column name), the model's parameters
rows_at() { awk -F, -v g="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["gpus"] == g { n++ } END { print n + 0 }' "$tmp/rep/placements.csv"; }
total=$(($(wc -l <"$tmp/rep/placements.csv") - 1))
nparams=$(($("$SP" predict --params | wc -l) - 1))
# money: one row per money option of --help (model_money_inputs and --rent-term)
nmoney=$("$SP" report --help | awk '/^money/ { m = 1; next } /^[^ ]/ { m = 0 } m && /^  --/ { n++ } END { print n + 0 }')
want="rank-4:$(rows_at 4) rank-8:$(rows_at 8) sensitivity:5 breakdown:$total setup:$total money:$nmoney params:$nparams"
[ "$(rows_at 4)" -ge 6 ] && [ "$nparams" -ge 20 ] || bad "expected rows too few: $want"
grep -q 'c4140-m' "$tmp/rep/report.md" || bad "report.md does not name c4140-m"
browser=""
for b in chromium chromium-browser google-chrome; do command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }; done
if [ -z "$browser" ]; then
	echo "report_browser.sh: no Chromium found (firefox-esr has no --dump-dom); browser checks skipped"
	exit $fail
fi
# BODY_ATTRS_OF DIR: the <body> tag after load
body_of() {
	sandbox=""; [ "$(id -u)" -eq 0 ] && sandbox="--no-sandbox"
	timeout 120 "$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile" \
		--virtual-time-budget=5000 --dump-dom "file://$1/index.html" 2>/dev/null | grep -o '<body[^>]*>'
}
attr() { printf '%s\n' "$1" | sed -n "s/.* $2=\"\\([^\"]*\\)\".*/\\1/p"; }
body=$(body_of "$tmp/rep")
[ -n "$body" ] || { bad "no <body> from $browser --dump-dom"; exit 1; }
[ "$(attr "$body" data-images)" = "$charts" ] || bad "images: $body (wanted $charts)"
[ "$(attr "$body" data-images-loaded)" = "$charts" ] || bad "images loaded: $body (wanted $charts)"
[ "$(attr "$body" data-table-rows)" = "$want" ] || bad "table rows: $body (wanted $want)"
# negative control: a chart removed must show as not loaded
if [ $charts -gt 0 ]; then
	cp -r "$tmp/rep" "$tmp/broken" && rm "$tmp/broken/tta.svg"
	body=$(body_of "$tmp/broken")
	[ "$(attr "$body" data-images-loaded)" = "$((charts - 1))" ] || bad "a missing chart went unnoticed: $body"
	cp -r "$tmp/rep" "$tmp/nosens" && rm "$tmp/nosens/sensitivity.svg"
	body=$(body_of "$tmp/nosens")
	[ "$(attr "$body" data-images-loaded)" = "$((charts - 1))" ] || bad "a missing sensitivity chart went unnoticed: $body"
fi
exit $fail
