#!/bin/sh
# Calibrated on the runs of 1 and 2 GPUs of a campaign, its runs of more GPUs predicted: the question a
# campaign answers (measure a little, predict the next scale). Prints validate's table of the held-out runs.
#   sh bench/scale_holdout.sh CAMPAIGN_DIR [MAX_FIT_GPUS (default 2)]
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${SCALEPLAN:-./build/scaleplan}
C=$1
MAXG=${2:-2}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/fit" "$T/held"
for f in "$C"/csv/*.csv; do
	g=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gpus") c = i; next } NR == 2 { print $c; exit }' "$f")
	if [ "$g" -le "$MAXG" ]; then cp "$f" "$T/fit/"; else cp "$f" "$T/held/"; fi
done
"$SP" calibrate --measurements "$T/fit" --out "$T/profile.csv" >"$T/cal.txt" 2>&1 || { cat "$T/cal.txt"; exit 1; }
grep -E "fit error|leave-one-out error" "$T/cal.txt" | sed 's/^/fit on <= '"$MAXG"' GPUs: /'
"$SP" validate --no-builtin --against "$T/held" --profile "$T/profile.csv" --detail "$T/parity.csv" >"$T/val.txt" 2>&1 ||
	{ cat "$T/val.txt"; exit 1; }
# each held-out run's throughput: predicted / measured - 1; a point run more than once (id suffix _rK) also
# counts its error beyond the spread of its runs (0 inside their range); and whether the run lies inside its
# 90% interval (validate --detail predicted_lo..predicted_hi: the fit's parameter errors, the prior standard
# errors of what it did not fit - docs/model.md - and a run's noise),
# with the interval's width (hi - lo) / predicted
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	/^"(throughput|gpu-decode)/ { n++; f[n] = $c["file"]; m[n] = $c["measured"]; p[n] = $c["predicted"]
		il[n] = $c["predicted_lo"]; ih[n] = $c["predicted_hi"]
		k = f[n]; sub(/_r[0-9]+\.csv$/, ".csv", k); key[n] = k
		if (!(k in lo) || m[n] < lo[k]) lo[k] = m[n]; if (!(k in hi) || m[n] > hi[k]) hi[k] = m[n] }
	END { for (i = 1; i <= n; i++) { e = p[i] / m[i] - 1; s += (e < 0 ? -e : e); k = key[i]
			b = p[i] < lo[k] ? (lo[k] - p[i]) / m[i] : p[i] > hi[k] ? (p[i] - hi[k]) / m[i] : 0; sb += b
			iv = il[i] != "" && ih[i] != ""; ins = iv && m[i] >= il[i] && m[i] <= ih[i]
			if (iv) { ni++; nin += ins; w[ni] = (ih[i] - il[i]) / p[i] }
			printf "  %-44s measured %9.0f predicted %9.0f  %+6.1f%%  beyond spread %4.1f%%", f[i], m[i], p[i], 100 * e, 100 * b
			if (iv) printf "  90%% %9.0f..%-9.0f %s", il[i], ih[i], ins ? "in" : "OUT"
			printf "\n" }
		if (n) printf "held-out runs of more than '"$MAXG"' GPUs: %d, mean |error| %.1f%%, beyond the repeats'"'"' spread %.1f%%\n", n, 100 * s / n, 100 * sb / n
		if (ni) { for (i = 2; i <= ni; i++) { x = w[i]; for (j = i - 1; j >= 1 && w[j] > x; j--) w[j + 1] = w[j]; w[j + 1] = x }
			med = ni % 2 ? w[(ni + 1) / 2] : (w[ni / 2] + w[ni / 2 + 1]) / 2
			printf "inside their 90%% interval: %d of %d (%.0f%%), median width %.1f%%\n", nin, ni, 100 * nin / ni, 100 * med } }' "$T/parity.csv"
