#!/bin/sh
# whatif.html's figures and charts in a real browser: headless Chromium opens the page (with
# tests/lib/whatif_probe.js added to a copy), and tests/lib/whatif_chart.py checks with the browser's own
# layout that each chart has axes with ticks, that no text overlaps another or runs off its chart, and that
# every money cell reads as compare's table prints it ($3,458,430, not 3,458,431). A screenshot of the page is
# left in $BUILD/test-out/whatif_chart/ (whatif.png) for a person to look at. Skips as whatif_browser.sh does.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
. "$(dirname "$0")/lib/walk.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/${BUILD:-build}/test-out/whatif_chart"
rm -rf "$out" && mkdir -p "$out" || exit 2
SYSTEMS=dgxh100,hgx-h200,dgxb200,gb200-nvl72,xe9680-h100,dgxa100-80g,lambda-hgx-h100,coreweave-hgx-h100
"$SP" report --systems $SYSTEMS --gpus 64 --out "$tmp/D" >"$tmp/log" 2>&1 || { cat "$tmp/log"; no "report"; exit 1; }
[ -f "$tmp/D/whatif.html" ] || { echo "whatif_chart.sh: $(grep 'whatif.html left out' "$tmp/log"); skipped"; exit $fail; }
browser=""
for b in chromium chromium-browser google-chrome; do command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }; done
[ -n "$browser" ] || { echo "whatif_chart.sh: no Chromium; skipped"; exit $fail; }
# the page with the probe before </body>
awk -v probe="$here/tests/lib/whatif_probe.js" '/<\/body>/ { print "<script>"; while ((getline l < probe) > 0) print l; print "</script>" } { print }' \
	"$tmp/D/whatif.html" >"$tmp/probe.html"
# N NAME COMPARE-OPTIONS...: the probed page at its N-th fragment (tests/lib/walk.sh: one start of Chromium for
# all) against compare's table on those options (both fold offers of the same hardware and time into one row,
# the answer's fold)
check() {
	n=$1 name=$2
	shift 2
	cp "$tmp/snap/$n.html" "$out/$name.html"
	"$SP" compare --systems $SYSTEMS "$@" 2>&1 | unwrap >"$tmp/table.txt"
	python3 "$here/tests/lib/whatif_chart.py" "$out/$name.html" "$tmp/table.txt" >"$out/$name.txt" ||
		{ no "whatif.html #$n ($name): $(grep -v ': ok$' "$out/$name.txt" | head -5)"; }
	# the rows the page shows are those compare's fold leaves, each folded offer named in its row (these
	# systems hold offers of one hardware: DGX H100, XE9680 H100 and the clouds' H100s)
	"$SP" compare --systems $SYSTEMS "$@" --out "$tmp/cmp.csv" --answer-json "$tmp/ans.json" | unwrap |
		awk '/^answer: /{ a = 1; print; next } a && /^  /{ print; next } { a = 0 }' >"$tmp/answer.txt"
	python3 "$here/tests/lib/whatif_dom.py" "$out/$name.html" "$tmp/cmp.csv" "$tmp/answer.txt" "$tmp/ans.json" \
		>"$out/$name.dom.txt" || no "whatif.html #$n ($name): $(grep -v ': agree$' "$out/$name.dom.txt" | head -5)"
	grep -q "^ *+ " "$tmp/table.txt" && ! grep -q "same hardware and time folded" "$out/$name.html" &&
		no "whatif.html #$n ($name): compare folds offers, the page says nothing of it"
}
FRAGS="- cost=tco&gpus=144 cost=rent&gpus=16"
walk "$tmp/D/whatif.html" "$here/tests/lib/whatif_probe.js"
check 0 capex --gpus 64
check 1 tco --cost tco --gpus 144
check 2 rent --cost rent --gpus 16
# the screenshot: what a reader sees (the charts below the table)
chromium_try "file://$tmp/probe.html" "" --screenshot="$out/whatif.png" --window-size=1280,2400
[ -s "$out/whatif.png" ] || no "no screenshot written to $out/whatif.png"
[ $fail -eq 0 ] && echo "whatif_chart: charts and figures checked in $browser; screenshot $out/whatif.png"
exit $fail
