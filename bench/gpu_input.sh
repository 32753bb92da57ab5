#!/bin/bash
# One device call for the input pipeline (issue 6), under ~560 s: builds, makes a JPEG folder from
# Fashion-MNIST, measures JPEG decode+augment images/s per CPU thread with scaleplan's loader vs PyTorch
# DataLoader on the same folder, then scaleplan-train synthetic vs `--data DIR` (same net, same GPU:
# img/s ratio, GPU wait for data) and training from the folder to 92 % top-1.
#   OUT=/some/dir bench/gpu_input.sh [quick|full]
#     quick: 20,000 train JPEGs, 3 training epochs;  full (default): 60,000 + 10,000, up to 14 epochs.
#   PACK=1: leave one archive $OUT/input_results.tgz (device calls return at most a few files).
# CSVs go to $OUT (databench_*.csv, torch_*.csv: source,machine,cpu,pipeline,threads,img_s,...;
# train_*.csv: the measurement CSV of docs/design.md); a short table is printed last. Needs nothing fetched:
# when libturbojpeg/libcsv/zlib headers are missing there, carry .jpegdeps/ (include/ + lib/*.a, made on
# the dev machine; it also has csv.h/zlib) and .fmnist/ (the Fashion-MNIST .gz files).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
MODE=${1:-full}
O=${OUT:-/tmp/input_out}; mkdir -p "$O"
cd "$(dirname "$0")/.." || exit 2
export PYTHONUNBUFFERED=1
NP=$(nproc)
MACHINE=${MACHINE:-$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '-')x$(nvidia-smi -L 2>/dev/null | wc -l)-${NP}c}
echo "machine $MACHINE, $NP cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
nvidia-smi -L 2>/dev/null | head -2
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
if { [ ! -f /usr/include/turbojpeg.h ] || [ ! -f /usr/include/csv.h ]; } && [ -d .jpegdeps ]; then
	export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
	echo "using carried .jpegdeps (turbojpeg.h or csv.h missing here)"
fi
export SCALEPLAN_GIT_SHA=${SCALEPLAN_GIT_SHA:-$(sh tools/git_sha.sh)}

# 1. build: the engine, then the two host programs (the Makefile, or directly from the sources)
TR=build/scaleplan-train
make -j"$NP" $TR > "$O/build_train.log" 2>&1 || { echo "scaleplan-train did not build:"; tail -15 "$O/build_train.log"; }
if ! make -j"$NP" build/scaleplan-databench build/scaleplan-mkjpeg > "$O/build_data.log" 2>&1; then
	echo "make of the data programs failed (see build_data.log); building them directly"
	mkdir -p build
	SRC="exec/data/idx.c exec/data/jpeg.c exec/data/loader.c common/err.c common/util.c common/csv.c"
	for p in databench mkjpeg; do
		cc -std=c11 -D_GNU_SOURCE -O3 -I. -o build/scaleplan-$p exec/data/$p.c $SRC \
			-lturbojpeg -ljpeg -lcsv -lz -lm -lpthread >> "$O/build_data.log" 2>&1 || { tail -20 "$O/build_data.log"; exit 2; }
	done
fi
echo "build: $(el) s"
FM=/usr/share/datasets/fashion-mnist; [ -f $FM/train-images-idx3-ubyte.gz ] || FM=$PWD/.fmnist
[ -x $TR ] && FMNIST_DIR=$FM TRAIN=$PWD/$TR timeout 120 sh tests/gpu/input_smoke.sh > "$O/input_smoke.log" 2>&1
[ -x $TR ] && tail -9 "$O/input_smoke.log"

# 2. the JPEG folder: Fashion-MNIST at 256x256 (6 KB files) - decode rates and training;
#    plus a photo-sized set (400x400 with grain, ~41 KB, the reference photos' bytes) for decode rates
DS=/tmp/fm256 DP=/tmp/photo400
NTRAIN=60000; [ "$MODE" = quick ] && NTRAIN=20000
rm -rf "$DS" "$DP"
build/scaleplan-mkjpeg --out "$DS" --size 256 --train $NTRAIN --val 10000 --fashion-dir "$FM" --threads "$NP" \
	> "$O/mkjpeg.log" 2>&1 || { tail -5 "$O/mkjpeg.log"; exit 2; }
build/scaleplan-mkjpeg --out "$DP" --size 400 --noise 16 --train 6000 --val 500 --fashion-dir "$FM" --threads "$NP" \
	>> "$O/mkjpeg.log" 2>&1 || echo "mkjpeg photo400 failed"
tail -2 "$O/mkjpeg.log"; echo "mkjpeg: $(el) s"

# 3. scaleplan loader: decode+augment img/s at 1, 2, 4, ... cores (per-thread rate), read cold vs cached
DB="build/scaleplan-databench --machine $MACHINE"
$DB --data "$DS" --images 4000 --read --csv "$O/databench_fm256.csv" 2> "$O/databench_fm256.log" \
	|| echo "databench fm256 failed: $(tail -1 "$O/databench_fm256.log")"
$DB --data "$DP" --images 3000 --csv "$O/databench_photo400.csv" 2> "$O/databench_photo400.log" \
	|| echo "databench photo400 failed: $(tail -1 "$O/databench_photo400.log")"
echo "databench: $(el) s"

# 4. scaleplan-train: synthetic (GPU-generated input, same net: 10 classes) vs the JPEG folder at 224 bf16
#    batch 256 with all cores decoding; then training from the folder to 92 % top-1
if [ -x $TR ]; then
	timeout 90 $TR --data synthetic --classes 10 --batch-per-gpu 256 --iters 60 --warmup-iters 10 --quiet \
		--csv "$O/train_synthetic.csv" > "$O/train_synthetic.log" 2>&1 || echo "synthetic run failed: $(tail -2 "$O/train_synthetic.log")"
	grep EXEC_RESULT "$O/train_synthetic.log"
	EP=14; [ "$MODE" = quick ] && EP=3
	timeout 240 $TR --data "$DS" --data-threads "$NP" --batch-per-gpu 256 --epochs $EP --target-top1 0.92 \
		--lr 0.2 --weight-decay 5e-4 --warmup-epochs 1 --crop-scale-min 0.35 --quiet \
		--csv "$O/train_jpeg.csv" > "$O/train_jpeg.log" 2>&1 || echo "folder training: exit $? ($(grep -v MLLOG "$O/train_jpeg.log" | tail -2))"
	grep -v MLLOG "$O/train_jpeg.log" | tail -14
	echo "train: $(el) s"
	# fewer decode threads: how many cores keep the GPU fed (one epoch each, from the same folder)
	for t in 2 4; do
		[ $(el) -lt 420 ] || break
		timeout 50 $TR --data "$DS" --data-threads $t --batch-per-gpu 256 --epochs 1 --quiet \
			--csv "$O/train_jpeg_t$t.csv" > "$O/train_jpeg_t$t.log" 2>&1 || echo "threads $t: exit $?"
		grep EXEC_RESULT "$O/train_jpeg_t$t.log"
	done
else
	echo "no $TR: engine runs skipped"
fi

# 5. PyTorch DataLoader on the same folder (time-boxed; the sweep stops where the box ends)
LEFT=$(( 530 - $(el) ))
if [ $LEFT -gt 40 ]; then
	IMAGES=2000 timeout $LEFT python3 bench/peers/torch_data_folder.py "$DS" "$O/torch_fm256.csv" "$MACHINE" \
		> "$O/torch_fm256.log" 2>&1 || echo "torch peer: exit $? (timeout $LEFT s?)"
	tail -3 "$O/torch_fm256.log"
fi

# 6. table
echo "===== input pipeline on $MACHINE ($(el) s)"
for f in "$O"/databench_*.csv "$O"/torch_*.csv; do
	[ -f "$f" ] && python3 - "$f" <<'EOF'
import csv, os, sys
name = os.path.basename(sys.argv[1])[:-4]
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{name:20} {r['threads']:>4} thr {float(r['img_s']):8.0f} img/s {float(r['img_s_per_thread']):6.0f}/thr "
          f"{float(r['image_bytes_mean'])/1024:5.1f}KiB ...{r['pipeline'][-40:]}")
EOF
done
python3 - "$O" <<'EOF'
import csv, os, sys
o = sys.argv[1]
def rows(n):
    p = os.path.join(o, n)
    return list(csv.DictReader(open(p))) if os.path.exists(p) else []
syn = rows("train_synthetic.csv")
s = float(syn[0]["throughput_img_s"]) if syn else float("nan")
print(f"train synthetic 224 bf16 b256: {s:.0f} img/s")
for n in ("train_jpeg.csv", "train_jpeg_t2.csv", "train_jpeg_t4.csv"):
    for r in rows(n):
        if not r["epoch"]:
            continue
        v = float(r["throughput_img_s"])
        print(f"{n[:-4]:16} thr {r['data_threads']:>3} epoch {r['epoch']:>2}: {v:6.0f} img/s = {100*v/s:5.1f} % of synthetic, "
              f"GPU waited {float(r['data_wait_s']):6.2f} s, top-1 {float(r['top1']):.4f}, epoch {float(r['time_s']):5.1f} s")
EOF
grep -h EXEC_RESULT "$O"/train_*.log 2>/dev/null
# PACK=1 (device calls bring back only a few files): everything in one archive, the originals removed
if [ "${PACK:-0}" = 1 ]; then
	(cd "$O" && tar czf input_results.tgz --exclude=input_results.tgz . && find . -type f ! -name input_results.tgz -delete)
fi
exit 0
