# Helpers the CLI smoke tests share (sourced, not run: tools/run_tests.sh runs only tests/*.sh).
# Sets SP (the scaleplan binary, absolute), tmp (a folder removed on exit) and fail; defines:
#   no MSG            record a failure
#   expect RC CMD...  run CMD into $tmp/out, fail unless it exits RC
#   has TEXT / lacks TEXT   the last output contains / does not contain TEXT
#   col NAME FILE     the value of column NAME in the first data row of a CSV
# SPDX-License-Identifier: GPL-3.0-or-later
SP=${SCALEPLAN:-build/scaleplan}
case "$SP" in /*) ;; *) SP="$PWD/$SP" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
expect() { want=$1; shift; "$@" >"$tmp/out" 2>&1; got=$?; [ "$got" -eq "$want" ] || { no "exit $got (wanted $want): $*"; cat "$tmp/out"; }; }
has() { grep -qF -- "$1" "$tmp/out" || { no "output lacks '$1'"; cat "$tmp/out"; }; }
lacks() { ! grep -qF -- "$1" "$tmp/out" || { no "output has '$1'"; cat "$tmp/out"; }; }
col() { awk -F, -v n="$1" '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i } NR == 2 { print $c }' "$2"; }
# unwrap [FILE]: the lines compare and sweep wrapped at 200 characters joined back (a continuation starts 4
# blanks deeper than its line: 4 or more blanks, and not a folded offer's "     + ")
unwrap() { awk '/^    / && !/^     [+] / { sub(/^ +/, ""); line = line " " $0; next } NR > 1 { print line } { line = $0 } END { if (NR) print line }' "$@"; }
# expectw RC CMD...: expect, with the output unwrapped (compare's and sweep's lines of more than 200 characters)
expectw() { expect "$@"; unwrap "$tmp/out" >"$tmp/out.u" && mv "$tmp/out.u" "$tmp/out"; }
