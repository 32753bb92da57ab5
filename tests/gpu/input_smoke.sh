#!/bin/sh
# GPU smoke tests of scaleplan-train --data DIR ($TRAIN): a small JPEG folder made by
# scaleplan-mkjpeg trains one epoch with evaluation over a short last batch (100 val images, batch 64:
# 64 + 36), the CSV has data_threads and a finite data_wait_s; a corrupt JPEG is named and replaced,
# not fatal; a folder without val/ or with different classes in val/ is exit 1 naming it.
# SPDX-License-Identifier: GPL-3.0-or-later
T=${TRAIN:-build/scaleplan-train}
MK=$(dirname "$T")/scaleplan-mkjpeg
FM=${FMNIST_DIR:-/usr/share/datasets/fashion-mnist}; [ -f $FM/train-images-idx3-ubyte.gz ] || FM=.fmnist
D=$(mktemp -d); fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
if [ ! -x "$MK" ] || ! "$MK" --out $D/f --size 64 --train 640 --val 100 --fashion-dir $FM >/dev/null 2>&1; then
	echo "input_smoke: skipped: no scaleplan-mkjpeg or Fashion-MNIST files"; rm -rf $D; exit 0
fi
printf 'not a jpeg' > "$(ls -d $D/f/train/*/ | head -1)zz_corrupt.JPEG"
out=$($T --data $D/f --image-size 64 --batch-per-gpu 64 --epochs 2 --data-threads 2 --csv $D/r.csv 2>&1); rc=$?
[ $rc = 0 ] && ok "folder: 2 epochs ran" || bad "folder run (rc $rc): $(printf '%s' "$out" | tail -3)"
printf '%s\n' "$out" | grep -q '"key": "eval_samples", "value": 100' && ok "eval_samples 100" || bad "eval_samples"
printf '%s\n' "$out" | grep -q 'zz_corrupt.JPEG' && ok "corrupt file named" || bad "corrupt file not named"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	 { if ($c["data_threads"] != 2 || $c["data_wait_s"] == "" || $c["data_wait_s"] ~ /nan/ || $c["top1"] !~ /^0\.[0-9]/) exit 1; n++ }
	 END { exit n != 3 }' $D/r.csv && ok "csv: 3 rows, data_threads 2, data_wait_s, top1" || bad "csv: $(cat $D/r.csv)"
printf '%s\n' "$out" | awk '/^epoch 1:/ {print; exit}' | grep -q "test top-1 0\.[0-9]" && ok "epoch line" || true
mkdir -p $D/g/train && cp -r $D/f/train/* $D/g/train/
out=$($T --data $D/g --image-size 64 --batch-per-gpu 64 --epochs 1 --quiet 2>&1); rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "$D/g/val" && ok "missing val/ named" || bad "missing val (rc $rc): $out"
mkdir -p $D/g/val/zzz && cp $D/f/val/*/*.JPEG $D/g/val/zzz/ 2>/dev/null
out=$($T --data $D/g --image-size 64 --batch-per-gpu 64 --epochs 1 --quiet 2>&1); rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "class folders" && ok "class mismatch named" || bad "class mismatch (rc $rc): $out"
rm -rf $D
exit $fail
