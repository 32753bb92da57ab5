#!/bin/sh
# Functions longer than a limit in C files: `tools/func_lengths.sh [-n LINES] FILE|DIR...` (default 100
# lines, default the whole tree's .c/.cu files). Prints "LINES file:line name", longest first. A function
# is what this tree's style makes of one: a head starting in column 0, its body from a "{" to a "}" both in
# column 0; its length counts the lines from the head's first line to the closing brace.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
limit=100
if [ "${1:-}" = "-n" ]; then
	limit=${2:?-n needs a number}
	shift 2
fi
[ $# -gt 0 ] || set -- .
find "$@" \( -name '*.c' -o -name '*.cu' \) -type f ! -path '*/build/*' | sort | while read -r f; do
	awk -v limit="$limit" -v file="$f" '
		/^[A-Za-z_][A-Za-z0-9_ \t*]*\(/ && !/;[ \t]*$/ && !/^(if|for|while|switch|return|else)\b/ {
			head = NR; line = $0; sub(/\(.*/, "", line); n = split(line, w, /[ \t*]+/); name = w[n]
		}
		/^\{/ { if (head) start = head; else start = NR }
		/^\}/ && start {
			len = NR - start + 1
			if (len > limit) printf "%d %s:%d %s\n", len, file, start, name
			start = 0; head = 0
		}
		/;[ \t]*$/ && !start { head = 0 }
	' "$f"
done | sort -rn
