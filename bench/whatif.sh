#!/bin/sh
# `make bench-whatif`: whatif.html's size and its time to the first answer in headless Chromium on this
# machine. The time is the wall clock of `chromium --dump-dom` on the page (until its <body data-rc> shows the
# answer) less the same on an empty page (the browser's own start and stop), the median of RUNS of each; V8
# compiles the WebAssembly synchronously (--js-flags=--no-wasm-async-compilation) so that the dump waits for
# it under virtual time - compiling is the same work either way. A benchmark: nothing here is asserted.
#   SCALEPLAN=build/scaleplan RUNS=5 sh bench/whatif.sh
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${SCALEPLAN:-build/scaleplan}
RUNS=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$SP" report --systems dgxh100,hgx-h200,dgxb200,gb200-nvl72 --gpus 64 --out "$tmp/D" >"$tmp/log"
if [ ! -f "$tmp/D/whatif.html" ]; then
	echo "bench-whatif: $(grep 'left out' "$tmp/log" || echo 'no whatif.html')"
	exit 0
fi
echo "whatif.html: $(wc -c <"$tmp/D/whatif.html") bytes (report --systems dgxh100,hgx-h200,dgxb200,gb200-nvl72 --gpus 64)"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome) ||
	{ echo "bench-whatif: no Chromium; time not measured"; exit 0; }
echo '<!DOCTYPE html><html><body data-rc="0"></body></html>' >"$tmp/empty.html"
# PAGE -> wall seconds of one dump that shows the answer (nothing when it did not)
once() {
	rm -rf "$tmp/p"
	t0=$(date +%s.%N)
	"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$tmp/p" --js-flags=--no-wasm-async-compilation \
		--virtual-time-budget=20000 --dump-dom "file://$1" 2>/dev/null | grep -q '<body data-rc="0"' || return 0
	echo "$(date +%s.%N) - $t0" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
i=0
while [ $i -lt "$RUNS" ]; do once "$tmp/empty.html" >>"$tmp/empty.t"; once "$tmp/D/whatif.html#gpus=16&utilisation=0.3" >>"$tmp/page.t"; i=$((i + 1)); done
e=$(median <"$tmp/empty.t") p=$(median <"$tmp/page.t")
echo "first answer (#gpus=16&utilisation=0.3): $(printf '%.3f' "$(echo "$p - $e" | bc)") s after load (page $p s, empty page $e s; medians of $RUNS, $(wc -l <"$tmp/page.t") page runs answered)"
