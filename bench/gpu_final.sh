#!/bin/bash
# One last device call (nvidia-h200-x2): the data-parallel scaleplan-train smoke (bench/gpu_dist_smoke.sh:
# 1 GPU, 2 GPUs over NVLink, 2 emulated nodes over sockets), then ResNet-50 trained from a Fashion-MNIST JPEG
# folder (224 px crops of 256 px JPEGs) to 92% top-1, both inside DEADLINE seconds. Results packed into
# $OUT/final.tgz (device calls return few files); short tables printed last.
#   OUT=dir DEADLINE=270 bash bench/gpu_final.sh      carry: .gpudeps .jpegdeps .mpi .fmnist
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
O=${OUT:-/tmp/final_out}; mkdir -p "$O/dist" "$O/jpeg"
DEADLINE=${DEADLINE:-270}
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
export SCALEPLAN_GIT_SHA=${SCALEPLAN_GIT_SHA:-$(sh tools/git_sha.sh)}
[ "${SKIP_DIST:-0}" = 1 ] || OUT="$O/dist" timeout $((DEADLINE - 60)) bash bench/gpu_dist_smoke.sh > "$O/dist/smoke.log" 2>&1
echo "dist smoke: exit $? at $(el) s"
if { [ ! -f /usr/include/turbojpeg.h ] || [ ! -f /usr/include/csv.h ]; } && [ -d .jpegdeps ]; then
	export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
fi
FM=/usr/share/datasets/fashion-mnist; [ -f $FM/train-images-idx3-ubyte.gz ] || FM=$PWD/.fmnist
# the converter alone (the Makefile would also build the planner, which needs GSL headers)
mkdir -p build
cc -std=c11 -D_GNU_SOURCE -O3 -I. -o build/scaleplan-mkjpeg exec/data/mkjpeg.c exec/data/idx.c exec/data/jpeg.c \
	exec/data/loader.c common/err.c common/util.c common/csv.c -lturbojpeg -ljpeg -lcsv -lz -lm -lpthread \
	> "$O/jpeg/build.log" 2>&1 || tail -5 "$O/jpeg/build.log"
build/scaleplan-mkjpeg --out /tmp/fm256 --size 256 --train 60000 --val 10000 --fashion-dir "$FM" \
	--threads "$(nproc)" > "$O/jpeg/mkjpeg.log" 2>&1 || tail -3 "$O/jpeg/mkjpeg.log"
LEFT=$((DEADLINE - $(el) - 8))
echo "jpeg folder ready at $(el) s; training for at most $LEFT s"
[ $LEFT -gt 20 ] && CUDA_VISIBLE_DEVICES=0 timeout $LEFT build/scaleplan-train --data /tmp/fm256 --data-threads "$(nproc)" \
	--batch-per-gpu 256 --epochs 14 --target-top1 0.92 --lr 0.2 --weight-decay 5e-4 --warmup-epochs 1 \
	--crop-scale-min 0.35 --quiet --csv "$O/jpeg/train_jpeg.csv" > "$O/jpeg/train_jpeg.log" 2>&1
echo "jpeg training: exit $? at $(el) s"
(cd "$O" && tar czf final.tgz dist jpeg && rm -rf dist jpeg)
echo "===== data-parallel scaleplan-train (tail of smoke log)"
tar xzf "$O/final.tgz" -O dist/smoke.log 2>/dev/null | tail -14
echo "===== JPEG folder training"
tar xzf "$O/final.tgz" -O jpeg/train_jpeg.log 2>/dev/null | grep -v MLLOG | tail -12
tar xzf "$O/final.tgz" -O jpeg/train_jpeg.log 2>/dev/null | grep -E '"eval_accuracy"' | tail -14 | sed 's/.*"value": *\([0-9.]*\).*"epoch_num": *\([0-9]*\).*/epoch \2 top1 \1/'
exit 0
