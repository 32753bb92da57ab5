#!/bin/sh
# What a new user trips on, one block a case: long options by their full name only; a measured batch no
# larger than an epoch; a list with a value twice refused; counts that agree; every bad cell named; files
# written before the table is printed; errors that name their command; lines that fit 200 columns.
# Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$tmp" || exit 2
refused() { # NAME PATTERN CMD...: exit 1 and PATTERN (grep -E) on stderr
	name=$1 pat=$2
	shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	if [ $rc -ne 1 ] || ! grep -Eq -- "$pat" err.txt; then
		no "$name: exit $rc (want 1 and /$pat/ on stderr): $(head -c 300 err.txt)"
	fi
}

# long options by their full name only: getopt's prefix matching ran `sweep --gpus 8` as --gpus-per-node 8
refused "sweep --gpus 8" "--gpus.*--gpus-per-node" "$SP" sweep --gpus 8 --systems dgxh100 --nodes 1 --quiet --out a.csv
[ -e a.csv ] && no "sweep --gpus 8 wrote a.csv"
refused "predict --gpus 4" "--gpus.*--gpus-per-node" "$SP" predict --system dgxh100 --gpus 4
refused "predict --nod=2" "--nod.*--nodes" "$SP" predict --system=dgxh100 --nod=2
expect 0 "$SP" predict --system=dgxh100 --nodes=2 --format csv
expect 0 "$SP" predict --system dgxh100 --nodes 2 --format csv

exit $fail
