#!/bin/sh
# Builds whatif.html's script: compare and the planner below it compiled to WebAssembly by Emscripten, one
# .js with the .wasm inside (-sSINGLE_FILE; the page is written from web/whatif.html.in, so emcc's own HTML
# step and the minifier it calls, which Debian lacks, are not used). Writes OUTDIR/whatif.js and
# OUTDIR/whatif.why: the script and "", or an empty script and the reason it was left out (no emcc; libcsv's
# source not reachable; emcc failed, its messages in OUTDIR/emcc.log and on stderr) - then exit 0, for the
# report to say so: the command line never fails to build for its page (tests/whatif_browser.sh fails where
# emcc is installed and failed).
#   EMCC=path tools/whatif_wasm.sh OUTDIR SOURCE.c...
# Debian's emcc 3.1.6 runs its JavaScript optimiser under node and finds the optimiser's modules only with
# NODE_PATH at Debian's node module folder (/usr/share/nodejs), which a node not from Debian does not search.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
out=$1
shift
mkdir -p "$out"
leave_out() {
	: > "$out/whatif.js"
	echo "$1" > "$out/whatif.why"
	echo "whatif: whatif.html left out of reports: $1" >&2
	exit 0
}
emcc=${EMCC:-}
[ -n "$emcc" ] && command -v "$emcc" >/dev/null 2>&1 ||
	leave_out "scaleplan was built without Emscripten (emcc not found; Debian package emscripten, then make whatif)"
libcsv=$(sh tools/wasm_libcsv.sh "$out/libcsv") ||
	leave_out "libcsv's source (Debian source package libcsv) could not be fetched when scaleplan was built"
[ -d /usr/share/nodejs ] && NODE_PATH=${NODE_PATH:-/usr/share/nodejs} && export NODE_PATH
# Exported: web_compare (cli/wasm_main.c), and ccall and FS for the page's script. Memory grows with the options
# a question has. Nothing beyond standard C is asked of Emscripten's libc (musl): compare's stable sort is
# common/sort.c's.
if ! "$emcc" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Wshadow -Wno-unused-parameter -I. -I"$(dirname "$libcsv")" \
	"$@" "$libcsv" -o "$out/whatif.tmp.js" \
	-sSINGLE_FILE=1 -sENVIRONMENT=web -sALLOW_MEMORY_GROWTH=1 -sFORCE_FILESYSTEM=1 -sEXIT_RUNTIME=0 \
	-sEXPORTED_FUNCTIONS=_web_compare -sEXPORTED_RUNTIME_METHODS=FS,ccall >"$out/emcc.log" 2>&1; then
	cat "$out/emcc.log" >&2
	leave_out "emcc failed when scaleplan was built (its messages: $out/emcc.log)"
fi
cat "$out/emcc.log" >&2
mv "$out/whatif.tmp.js" "$out/whatif.js"
: > "$out/whatif.why"
echo "whatif: $out/whatif.js, $(wc -c < "$out/whatif.js") bytes"
