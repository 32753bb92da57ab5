#!/bin/sh
# --measured-stack: a run measured on one stack calibrates the GPU through that stack's speed on it, and moves
# another stack only by the model's ratio of the two speeds - never by the raw measured / predicted factor.
# At one GPU (compute alone): pytorch-nchw's 3,000 img/s on a B200 applied to ngc-mlperf = the same run
# calibrated as pytorch-nchw x the model's ngc-mlperf / pytorch-nchw ratio, within 1%; without the option the
# measurement is read as the run's own stack (3,000 img/s); an unknown stack is bad input (exit 1).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SP=${SCALEPLAN:-build/scaleplan}
fail=0
no() { echo "FAIL: $*"; fail=1; }
tp() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } NR == 2 { print $h["throughput_img_s"] }'; }
run() { "$SP" predict --system dgxb200 --gpus-per-node 1 --batch-per-gpu 256 --precision fp16 --format csv "$@" | tp; }
moved=$(run --stack ngc-mlperf --measured 1:256:3000 --measured-stack pytorch-nchw)
own=$(run --stack pytorch-nchw --measured 1:256:3000)
ngc=$(run --stack ngc-mlperf)
nchw=$(run --stack pytorch-nchw)
raw=$(run --stack ngc-mlperf --measured 1:256:3000)
awk -v a="$moved" -v b="$own" -v n="$ngc" -v c="$nchw" 'BEGIN { r = a / (b * n / c); exit !(r > 0.99 && r < 1.01) }' ||
	no "moved $moved, expected $own x $ngc / $nchw within 1%"
awk -v r="$raw" 'BEGIN { exit !(r > 2990 && r < 3010) }' || no "without --measured-stack the run is its own stack's: $raw, expected 3000"
awk -v a="$moved" -v r="$raw" 'BEGIN { exit !(a > 2 * r) }' || no "the stack's ratio did not move the measurement: $moved vs $raw"
"$SP" predict --system dgxb200 --stack ngc-mlperf --measured 1:256:3000 --measured-stack pytorch-nchw |
	grep -q "calibrated to 1 measurement on stack pytorch-nchw" || no "the table does not say which stack measured"
"$SP" predict --system dgxb200 --measured 1:256:3000 --measured-stack no-such-stack >/dev/null 2>&1
[ $? -eq 1 ] || no "an unknown --measured-stack is not bad input (exit 1)"
[ $fail -eq 0 ] && echo "measured_stack: ok"
exit $fail
