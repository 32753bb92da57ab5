#!/bin/sh
# --measured-system: one run of the buyer's own stack on one system re-ranks every option. The GPU of the named
# system is calibrated there (on --measured-stack's speed), and every option takes that compute factor, moving
# from the measured GPU by the model's ratio between the GPUs: an option on the measured GPU gets the measured
# speed, one on another GPU moves by the same factor on compute (compute_cal alike, its compute time scaled
# by it) and keeps its own basis; sweep over two systems likewise. Several --systems without naming the
# measured one stay refused (exit 1), as does an unknown system.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SP=${SCALEPLAN:-build/scaleplan}
fail=0
no() { echo "FAIL: $*"; fail=1; }
cols=system,gpu,nodes,gpus_per_node,throughput_img_s,compute_s,compute_cal,basis
cmp() { "$SP" compare --gpus 8 --systems dgxh100,dgxb200,hgx-h200 --stack pytorch-nchw --format csv --columns $cols "$@"; }
field() { tr -d "\r" | awk -F, -v s="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
	NR > 1 && $h["system"] == s && $h["nodes"] == 1 { print $h[c]; exit }'; }
plain=$(cmp) || no "compare without --measured failed"
cal=$(cmp --measured 8:256:16000 --measured-system dgxh100 --measured-stack pytorch-nchw) ||
	no "compare over several systems refuses a measurement named by --measured-system"
h100=$(echo "$cal" | field dgxh100 throughput_img_s)
awk -v t="$h100" 'BEGIN { exit !(t > 15840 && t < 16160) }' || no "the measured system's option runs at $h100 img/s, expected 16000 within 1%"
k=$(echo "$cal" | field dgxh100 compute_cal)
for sys in dgxb200 hgx-h200; do
	kb=$(echo "$cal" | field $sys compute_cal)
	awk -v a="$k" -v b="$kb" 'BEGIN { exit !(a > 0 && b / a > 0.999 && b / a < 1.001) }' ||
		no "$sys's compute factor $kb is not the measured GPU's $k"
	c0=$(echo "$plain" | field $sys compute_s)
	c1=$(echo "$cal" | field $sys compute_s)
	awk -v a="$c0" -v b="$c1" -v k="$k" 'BEGIN { r = b / a / k; exit !(r > 0.99 && r < 1.01) }' ||
		no "$sys's compute time moved $c0 -> $c1 s, expected x $k"
done
[ "$(echo "$cal" | field dgxb200 basis)" = estimate ] || no "a B200 moved from an H100 run claims more than the model's estimate"
[ "$(echo "$cal" | field dgxh100 basis)" = measured ] || no "the measured GPU's option is not on a measured basis"
pick0=$(echo "$plain" | sed -n 2p) pick1=$(echo "$cal" | sed -n 2p)
[ "$pick0" != "$pick1" ] || no "the measurement left the first row as it was: $pick1"
"$SP" compare --gpus 8 --systems dgxh100,dgxb200 --measured 8:256:16000 >/dev/null 2>&1
[ $? -eq 1 ] || no "several systems and a measurement naming none is not refused (exit 1)"
"$SP" compare --gpus 8 --systems dgxh100,dgxb200 --measured 8:256:16000 --measured-system no-such >/dev/null 2>&1
[ $? -eq 1 ] || no "an unknown --measured-system is not bad input (exit 1)"
"$SP" predict --system dgxb200 --measured 1:256:2000 --measured-system dgxh100 --stack pytorch-nchw |
	grep -q "calibrated to 1 measurement on stack pytorch-nchw of system dgxh100" || no "predict does not say where the run was measured"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$SP" sweep --systems dgxh100,dgxb200 --nodes 1 --stack pytorch-nchw --measured 8:256:16000 --measured-system dgxh100 \
	--out "$tmp/sweep.csv" --quiet >/dev/null 2>&1 || no "sweep over two systems refuses a measurement named by --measured-system"
sw=$(field dgxh100 throughput_img_s <"$tmp/sweep.csv")
awk -v t="$sw" 'BEGIN { exit !(t > 15840 && t < 16160) }' || no "sweep: the measured system runs at $sw img/s, expected 16000 within 1%"
[ $fail -eq 0 ] && echo "measured_system: ok"
exit $fail
