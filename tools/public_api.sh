#!/bin/sh
# Which functions of a folder's public header other folders use. For each HEADER (a folder's public
# header, e.g. model/model.h), one line per function it declares (tools/protos.sh): its name and the
# folders whose .c or .h files name it in their code (not in a comment or a string: tools/c_code.sh), other
# than its own and tests/, bench/ (which may include a folder's internal header); "-" where none does - such
# a function belongs in the folder's *_internal.h.
#   sh tools/public_api.sh HEADER...           every function: NAME FOLDER...
#   sh tools/public_api.sh --internal HEADER...  only those no other folder uses (exit 1 when there are any)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
only=0
[ "${1:-}" = --internal ] && { only=1; shift; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
found=0
code=$(mktemp -d) || exit 2
trap 'rm -rf "$code"' EXIT
# shellcheck disable=SC2046
sh tools/c_code.sh -d "$code" $(find . -path ./build -prune -o -path ./tests -prune -o -path ./bench -prune -o \
	-path './.*' -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||') || exit 2
for h in "$@"; do
	dir=${h%%/*}
	others=$(cd "$code" && for d in */; do d=${d%/}; [ "$d" != "$dir" ] && echo "$d"; done)
	for f in $(sh tools/protos.sh "$h" | sort -u); do
		# shellcheck disable=SC2086
		users=$(cd "$code" && grep -rlw "$f" $others 2>/dev/null | cut -d/ -f1 | sort -u | tr '\n' ' ')
		if [ -z "$users" ]; then
			echo "$h $f -"
			found=$((found + 1))
		elif [ $only -eq 0 ]; then
			echo "$h $f $users"
		fi
	done
done
[ $only -eq 1 ] && [ $found -gt 0 ] && exit 1
exit 0
