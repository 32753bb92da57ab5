#!/bin/sh
# No dead functions: every function a header of the tree declares (tools/protos.sh) is named in code
# (tools/c_code.sh: not in a comment or a string) somewhere besides its declaration and its definition - by
# the tree or by its tests and benchmarks. A function nobody calls is code a reader must still understand;
# the compiler finds unused static functions, this finds the rest. Run by tools/run_tests.sh.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=$(find . -path ./build -prune -o -path './build-*' -prune -o -path './.*' -prune -o -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print | sed 's|^\./||' | sort)
headers=$(echo "$files" | grep '\.h$' | grep -v '^tests/')
# every name in the code, with how often it appears
# shellcheck disable=SC2086
sh tools/c_code.sh $files | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort | uniq -c >"$tmp/names" || exit 2
for h in $headers; do sh tools/protos.sh "$h" | sort -u | sed "s|^|$h |"; done >"$tmp/declared"
awk 'FILENAME == ARGV[1] { c[$2] = $1; next }
	{ n++ } c[$2] <= 2 { print "FAIL: " $1 ": " $2 " is declared and defined but nothing calls it: remove it"; dead++ }
	END { if (dead) exit 1; print "dead code: none of the " n " functions the headers declare is unused" }' \
	"$tmp/names" "$tmp/declared"
