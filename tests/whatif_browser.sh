#!/bin/sh
# whatif.html as a reader uses it: report writes it (one file, nothing loaded from a network), headless
# Chromium opens it with inputs in the fragment, and its answer (id="answer") and options (id="options")
# equal `scaleplan compare`'s answer line and CSV rows on the same inputs. A fragment the page ignored would
# show the report's own inputs, so each case also differs from the defaults' answer. Skips with a message
# where the build left the page out (no emcc) or there is no Chromium; fails if emcc is here and the build
# says it had none.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
SYSTEMS=dgxh100,hgx-h200,dgxb200,gb200-nvl72
"$SP" report --systems $SYSTEMS --gpus 64 --out "$tmp/D" >"$tmp/log" 2>&1 || { cat "$tmp/log"; no "report"; exit 1; }
if [ ! -f "$tmp/D/whatif.html" ]; then
	grep -q 'whatif.html left out: ' "$tmp/log" || no "no whatif.html and no reason given"
	# an installed emcc the build did not find, or that failed, is a bug (a libcsv source out of reach is not)
	command -v emcc >/dev/null 2>&1 && grep -q 'without Emscripten\|emcc failed' "$tmp/log" &&
		no "emcc is installed but the page was not built: $(cat "$tmp/log")"
	echo "whatif_browser.sh: $(grep 'whatif.html left out' "$tmp/log"); page checks skipped"
	exit $fail
fi
# self-contained: no address of the web in it but the SVG namespace's (a name, never loaded), no element that
# loads another file (the runtime's loaders go unused: the WebAssembly is inside the script, -sSINGLE_FILE)
urls=$(grep -Eo 'https?://[^"'"'"' )<>]*' "$tmp/D/whatif.html" | grep -v '^http://www.w3.org/2000/svg$')
[ -z "$urls" ] || no "whatif.html names web addresses: $urls"
grep -Eqi '<(script|img|link|iframe)[^>]* (src|href)=' "$tmp/D/whatif.html" && no "whatif.html loads another file"
[ "$(wc -c <"$tmp/D/whatif.html")" -le 5000000 ] || no "whatif.html over 5 MB"
browser=""
for b in chromium chromium-browser google-chrome; do command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }; done
[ -n "$browser" ] || { echo "whatif_browser.sh: no Chromium; page checks skipped"; exit $fail; }
# Chromium starts once per page (tests/lib/walk.sh), not once per case
. "$(dirname "$0")/lib/walk.sh"
answer_of() { unwrap | awk '/^answer: /{ a = 1; print; next } a && /^  /{ print; next } { a = 0 }'; }
# N COMPARE-OPTIONS...: the page at its N-th fragment against compare with those options
check() {
	n=$1
	shift
	"$SP" compare --systems $SYSTEMS "$@" --out "$tmp/cmp.csv" --answer-json "$tmp/ans.json" | answer_of >"$tmp/answer.txt"
	python3 tests/lib/whatif_dom.py "$tmp/snap/$n.html" "$tmp/cmp.csv" "$tmp/answer.txt" "$tmp/ans.json" ||
		no "fragment $n differs from compare $*"
	cmp -s "$tmp/answer.txt" "$tmp/default.txt" && no "fragment $n: the same answer as the report's own inputs"
}
mkdir -p "$tmp/q"
printf 'id,price_usd,price_date,price_kind,price_source\ndgxb200,150000,2026-11,quote,a vendor quote\n' >"$tmp/q/systems.csv"
# 0: as loaded (the report's inputs); 5: the reader's own quote (a systems.csv overlay pasted into the page);
# 6: bad input
FRAGS="- gpus=16&utilisation=0.3 gpus=144&budget=8000000
	gpus=32&cost=tco&rent-term=1y&kwh-price=0.2&pue=1.3&precision=fp16
	gpus=16&cost=tco&finance-rate=0.05&residual=0.3&amortize-years=4&rent-session-h=0
	gpus=16&cost=capex&quote=id%2Cprice_usd%2Cprice_date%2Cprice_kind%2Cprice_source%0Adgxb200%2C150000%2C2026-11%2Cquote%2Ca%20vendor%20quote
	gpus=0"
walk "$tmp/D/whatif.html"
"$SP" compare --systems $SYSTEMS --gpus 64 --out "$tmp/cmp.csv" --answer-json "$tmp/ans.json" | answer_of >"$tmp/default.txt"
python3 tests/lib/whatif_dom.py "$tmp/snap/0.html" "$tmp/cmp.csv" "$tmp/default.txt" "$tmp/ans.json" || no "no fragment: not the report's inputs"
check 1 --gpus 16 --utilisation 0.3
check 2 --gpus 144 --budget 8000000
check 3 --gpus 32 --cost tco --rent-term 1y --kwh-price 0.2 --pue 1.3 --precision fp16
# the money inputs the page gained with the one table (model_money_inputs): each a field of the form
for f in facility-price support-frac amortize-years finance-rate residual runs-per-month rent-session-h grid-carbon \
	store-tb-per-gpu; do
	grep -q "name=\"$f\"" "$tmp/snap/3.html" || no "the page has no $f input"
done
check 4 --gpus 16 --cost tco --finance-rate 0.05 --residual 0.3 --amortize-years 4 --rent-session-h 0
check 5 --gpus 16 --cost capex --hwdb "$tmp/q"
"$SP" compare --systems $SYSTEMS --gpus 16 --cost capex | answer_of | cmp -s - "$tmp/answer.txt" &&
	no "the quote changed nothing in the answer"
# bad input: compare's own message on the page, no answer
grep -q 'expected an integer 1..100000' "$tmp/snap/6.html" || no "#gpus=0: compare's message not on the page"
# a report given --hwdb DIR: its page starts from DIR's systems.csv as the quote
"$SP" report --systems $SYSTEMS --gpus 16 --cost capex --hwdb "$tmp/q" --out "$tmp/H" >/dev/null 2>&1 || no "report --hwdb"
FRAGS="-"
walk "$tmp/H/whatif.html"
"$SP" compare --systems $SYSTEMS --gpus 16 --cost capex --hwdb "$tmp/q" --out "$tmp/cmp.csv" | answer_of >"$tmp/answer.txt"
python3 tests/lib/whatif_dom.py "$tmp/snap/0.html" "$tmp/cmp.csv" "$tmp/answer.txt" || no "report --hwdb: the page differs"
exit $fail
