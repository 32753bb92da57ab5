#!/bin/sh
# The code of C files without their comments and literals, so that a search for a name finds its uses and
# not a comment or a message that mentions it. Comments (block and line) and the contents of string and
# character literals become blanks; lines stay where they were (a block comment keeps its line breaks).
#   sh tools/c_code.sh FILE...          the files' code, one after another, on stdout
#   sh tools/c_code.sh -d DIR FILE...   each file's code into DIR/FILE (folders made as needed)
# Used by tools/public_api.sh; tests/public_api_code.sh keeps it honest.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
dir=
if [ "${1:-}" = -d ]; then
	dir=${2:?-d needs a folder}
	shift 2
	for f in "$@"; do mkdir -p "$dir/$(dirname "$f")" || exit 2; done
fi
[ $# -gt 0 ] || exit 0
awk -v dir="$dir" '
	FNR == 1 { if (out != "") close(out); out = dir != "" ? dir "/" FILENAME : ""; incom = 0 }
	{
		s = $0; o = ""
		while (s != "") {
			if (incom) {                      # inside /* ... */: drop up to its end
				e = index(s, "*/")
				if (!e) { s = ""; break }
				s = substr(s, e + 2); incom = 0; o = o " "
				continue
			}
			if (!match(s, /\/\*|\/\/|"|\047/)) { o = o s; break }
			o = o substr(s, 1, RSTART - 1); t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			if (t == "/*") { incom = 1; continue }
			if (t == "//") { s = ""; break }
			# a literal: skip to its closing quote, past escapes (a line ending first ends it too)
			while (s != "" && substr(s, 1, 1) != t) s = substr(s, substr(s, 1, 1) == "\\" ? 3 : 2)
			s = substr(s, 2); o = o t t
		}
		if (out != "") print o > out; else print o
	}' "$@"
