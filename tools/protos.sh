#!/bin/sh
# The functions a C header declares, one name a line: every top-level declaration (outside braces, comments
# and preprocessor lines) whose first parenthesis follows a name. Used by tools/public_api.sh.
#   sh tools/protos.sh HEADER...
# SPDX-License-Identifier: GPL-3.0-or-later
awk '
	cont { cont = /\\$/; next }                     # a preprocessor line continued
	/^[ \t]*#/ { cont = /\\$/; next }
	{ text = text " " $0 }
	END {
		gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", text) # block comments
		gsub(/\/\/[^\n]*/, " ", text)
		gsub(/"([^"\\]|\\.)*"/, "\"\"", text)
		depth = 0; stmt = ""
		n = length(text)
		for (i = 1; i <= n; i++) {
			c = substr(text, i, 1)
			if (c == "{") depth++
			else if (c == "}") { depth--; if (depth == 0) stmt = "" }
			else if (depth == 0 && c == ";") { decl(stmt); stmt = "" }
			else if (depth == 0) stmt = stmt c
		}
	}
	function decl(s,    m) {
		if (s ~ /^[ \t]*typedef[ \t]/) return
		if (!match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) return
		m = substr(s, RSTART, RLENGTH); sub(/[ \t]*\($/, "", m)
		if (m == "__attribute__") return
		print m
	}' "$@"
