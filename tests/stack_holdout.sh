#!/bin/sh
# `scaleplan validate --group gpus`, leave-one-stack-out: every software stack with points in the fit is
# listed with as many held-out points as it has in the fit, its held-out error is a finite number that is not
# the in-sample one, most refits are another fit than the one with every point (the stack's points were out), and
# each of its points, predicted from the stacks like it, lies inside the interval such a prediction carries.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SP=${SCALEPLAN:-build/scaleplan}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && "$SP" validate --group gpus >out 2>err) || { cat "$tmp/err"; echo "stack_holdout: validate --group gpus failed"; exit 1; }
awk '
	/^point \(in the fit\)/ { pts = 1; next }
	/^in the fit, by GPU:/ { pts = 0 }
	pts { c = $(NF - 3); sub(/\/.*/, "", c); if (c == "mlperf") c = "ngc-mlperf"; npts[c]++ }
	/^[a-z]/ { sec = $0 }
	sec ~ /^in the fit, by stack:/ && /^  / {
		ins[$1] = $2; insm[$1] = $6; full = $10 " " $12 " " $14 " " $16 " " $18 }
	sec ~ /^leave-one-stack-out/ && / inside the interval$/ { k = $1; sub(/:$/, "", k); inn[k] = $2; inm[k] = $4; next }
	sec ~ /^leave-one-stack-out/ && /^  / {
		out[$1] = $2; outm[$1] = $6
		par[$1] = $10 " " $12 " " $14 " " $16 " " $18 }
	END {
		bad = 0
		for (s in npts) {
			nst++
			if (!(s in out)) { print "stack_holdout: stack " s " (" npts[s] " points) not held out"; bad = 1; continue }
			if (out[s] != npts[s] || ins[s] != npts[s]) {
				print "stack_holdout: " s ": " out[s] " held out, " ins[s] " in the fit, " npts[s] " points"; bad = 1 }
			m = outm[s]; sub(/%$/, "", m)
			if (m !~ /^[0-9]+\.[0-9]$/) { print "stack_holdout: " s ": held-out MAPE not a number: " outm[s]; bad = 1 }
			if (outm[s] == insm[s]) { print "stack_holdout: " s ": held-out MAPE " outm[s] " = in-sample"; bad = 1 }
			if (!(s in inn) || inn[s] != inm[s] || inm[s] != npts[s]) {
				print "stack_holdout: " s ": " inn[s] " of " inm[s] " held-out points inside the interval of a stack never seen"; bad = 1 }
			moved += par[s] != full
		}
		# a stack whose points only bound what no other point fits (pytorch-dle: eff_compute_fp32 alone) may refit
		# to the same values; most stacks must not
		if (moved < 3) { print "stack_holdout: only " moved " refits differ from the full fit: the points were not left out"; bad = 1 }
		if (nst < 3) { print "stack_holdout: only " nst " stacks in the point table"; bad = 1 }
		exit bad
	}' "$tmp/out" || { sed -n "/^in the fit, by stack/,\$p" "$tmp/out"; exit 1; }
