#!/bin/sh
# Structs that hold one thing: the model's node (the hardware the time model reads) and a prediction (its times)
# stay small, and the money kept apart from them (model_price, model_cost) does too. Counts the fields
# (declarators) of each typedef'd struct in model/model.h, comments and strings blanked (tools/c_code.sh), and
# fails one above its limit: a field that does not belong to what the struct holds goes in a struct of its own.
# Run by tools/run_tests.sh.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
sh tools/c_code.sh model/model.h | awk '
	BEGIN { limit["model_node"] = 35; limit["model_result"] = 40; limit["model_price"] = 40; limit["model_cost"] = 40 }
	/^typedef struct [a-z_]+ \{/ { name = $3; body = ""; next }
	name != "" && $0 ~ "^} *" name " *;" {
		n = 0
		k = split(body, decl, ";")
		for (i = 1; i <= k; i++)
			if (decl[i] ~ /[A-Za-z_]/)
				n += split(decl[i], parts, ",")
		count[name] = n
		name = ""
		next
	}
	name != "" { body = body " " $0 }
	END {
		for (s in limit) {
			if (!(s in count)) { print "FAIL: struct " s " not found in model/model.h"; bad++; continue }
			if (count[s] > limit[s]) { print "FAIL: " s " has " count[s] " fields, more than " limit[s]; bad++ }
			else print s ": " count[s] " fields (at most " limit[s] ")"
		}
		exit bad ? 1 : 0
	}'
