#!/bin/sh
# Regression guard for the 2-GPU prediction evidence: on the recorded 2x H200 jobs (bench/data/h200x2-2026-11-22-a, -r2..-r7), calibrating on
# each job's 1-GPU runs + sweeps must keep predicting its 2-GPU scaleplan-train runs as well as when the
# result was reported: the four runs within 5% (MAE) in at least 6 of the 7 jobs, none above 10%,
# and the contention term never worse than without it by more than 0.5 points on those runs.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
# its files in a folder of its own (tests run side by side; readme_commands.sh copies the build folder)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
out=$(HOLDOUT_OUT="$tmp" sh bench/holdout_table.sh 2>&1) || { echo "$out"; echo "holdout: holdout_table.sh failed"; exit 1; }
echo "$out" | awk '
	$1 ~ /^h200x2/ { jobs++; none = $4 + 0; with = $8 + 0
		if (with <= 5) ok++
		if (with > 10) { bad = bad " " $1 "(" with "%)" }
		if (with > none + 0.5) { worse = worse " " $1 } }
	END {
		if (jobs < 7) { print "holdout: " jobs " jobs in the table, expected 7"; exit 1 }
		if (ok < 6) { print "holdout: the four 2-GPU runs are within 5% in only " ok " of " jobs " jobs"; exit 1 }
		if (bad != "") { print "holdout: above 10%:" bad; exit 1 }
		if (worse != "") { print "holdout: contention makes these worse:" worse; exit 1 }
		print "holdout: ok (" ok " of " jobs " jobs within 5%)" }' || { echo "$out"; exit 1; }
