#!/bin/sh
# Lists the C/CUDA functions longer than N lines (default 100), longest first: "lines file:line name".
# A function is a definition whose body opens with '{' alone at the start of a line and closes with '}'
# at the start of a line (the house layout); its length counts from the line that names it to the '}'.
# usage: tools/long_functions.sh [N] [DIR|FILE ...]   (default: every tracked *.c, *.cu, *.h)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
min=${1:-100}
[ $# -gt 0 ] && shift
if [ $# -gt 0 ]; then
	files=$(find "$@" -type f \( -name '*.c' -o -name '*.cu' -o -name '*.h' \) | sort)
else
	files=$(git ls-files '*.c' '*.cu' '*.h')
fi
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
awk -v min="$min" '
	FNR == 1 { head = ""; start = 0; inbody = 0 }
	!inbody && /^[A-Za-z_].*\(/ && !/;[ \t]*$/ { head = $0; start = FNR }
	!inbody && /^\{/ && start > 0 { inbody = 1; next }
	inbody && /^\}/ {
		n = FNR - start + 1
		if (n > min) {
			name = head; sub(/\(.*/, "", name); sub(/.*[ \t*]/, "", name)
			printf "%5d %s:%d %s\n", n, FILENAME, start, name
		}
		inbody = 0; start = 0
	}
' $files | sort -rn
