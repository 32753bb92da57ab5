# walk PAGE [SCRIPT...]: whatif.html PAGE in one start of headless Chromium at each fragment of $FRAGS (the
# first, written "-", is the page as loaded): tests/lib/whatif_walk.js, added to a copy after the SCRIPTs
# (tests/lib/whatif_probe.js), walks them and keeps the computed DOM at each; they land in $tmp/snap/0.html,
# 1.html, ... (a failure is recorded when the walk never finished). V8 compiles the WebAssembly
# synchronously (--no-wasm-async-compilation) so that virtual time cannot run out while it compiles; a walk
# that did not finish (a loaded machine) is tried again with twice the virtual time, up to five tries.
# Sourced by tests/whatif_browser.sh and tests/whatif_chart.sh after tests/lib/cli.sh; needs $browser.
# SPDX-License-Identifier: GPL-3.0-or-later

# URL DONE ARGS...: headless Chromium on URL with ARGS, its output in $tmp/dom.try; while that output lacks the
# pattern DONE (a page that did not finish in its virtual time), tried again with twice the time, up to five
# tries (DONE empty: one try, e.g. a screenshot).
chromium_try() {
	url=$1 done_re=$2
	shift 2
	budget=20000
	for try in 1 2 3 4 5; do
		rm -rf "$tmp/profile"
		timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
			--user-data-dir="$tmp/profile" --js-flags=--no-wasm-async-compilation --virtual-time-budget=$budget \
			"$@" "$url" 2>/dev/null >"$tmp/dom.try"
		[ -z "$done_re" ] || grep -q "$done_re" "$tmp/dom.try" && break
		budget=$((budget * 2))
	done
}

walk() {
	page=$1
	shift
	lib=$(dirname "$0")/lib
	js=$(printf '%s\n' $FRAGS | awk 'BEGIN { printf "var WHATIF_FRAGS = [" } { printf "%s\"%s\"", (NR > 1 ? ", " : ""), $0 } END { print "];" }')
	cat "$@" "$lib/whatif_walk.js" >"$tmp/walk.js"
	awk -v js="$js" -v walk="$tmp/walk.js" \
		'/<\/body>/ { print "<script>" js; while ((getline l < walk) > 0) print l; print "</script>" } { print }' \
		"$page" >"$tmp/walk.html"
	chromium_try "file://$tmp/walk.html" '<body[^>]* data-snaps=' --dump-dom
	rm -rf "$tmp/snap" && mkdir "$tmp/snap"
	python3 "$lib/whatif_dom.py" --split "$tmp/dom.try" "$tmp/snap" || no "$page: the page never finished its fragments"
}
