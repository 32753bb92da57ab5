#!/bin/sh
# Replaces the lines between "<!-- BEGIN NAME -->" and "<!-- END NAME -->" in README.md with FILE.
#   readme_splice.sh NAME FILE
# SPDX-License-Identifier: GPL-3.0-or-later
set -e
name=$1 file=$2
awk -v name="$name" -v file="$file" '
	$0 == "<!-- BEGIN " name " -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
	$0 == "<!-- END " name " -->" { skip = 0 }
	!skip { print }
' README.md > README.md.tmp
mv README.md.tmp README.md
