#!/bin/bash
# One device call for the input pipeline (issue 6): JPEG decode+augment images/s per CPU thread with
# scaleplan's loader vs PyTorch DataLoader on the same folder, storage read rate cold vs cached, the
# share of time a GPU waits, and - when scaleplan-train knows --data DIR - training from the folder.
#   OUT=/some/dir bench/gpu_input.sh [quick|full]
#     quick: 20,000 train JPEGs, no training;  full (default): all 70,000 and train from the folder.
# CSVs (source,machine,cpu,pipeline,threads,img_s,img_s_per_thread,image_bytes_mean,note) go to $OUT;
# a short table is printed last. Needs nothing fetched: when libturbojpeg/zlib/libcsv headers are
# missing there, carry .jpegdeps/ (include/ + lib/*.a, made on the dev machine) and .fmnist/.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
MODE=${1:-full}
O=${OUT:-/tmp/input_out}; mkdir -p "$O"
cd "$(dirname "$0")/.." || exit 2
NP=$(nproc)
MACHINE=${MACHINE:-$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '-')x$(nvidia-smi -L 2>/dev/null | wc -l)-${NP}c}
echo "machine $MACHINE, $NP cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
T0=$(date +%s)

# 1. build the two host programs (the Makefile, or directly from the sources with .jpegdeps)
if ! make -j"$NP" build/scaleplan-databench build/scaleplan-mkjpeg > "$O/build_data.log" 2>&1; then
	echo "make failed (see build_data.log); building the data programs directly"
	[ -d .jpegdeps ] && export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
	mkdir -p build
	SRC="exec/data/idx.c exec/data/jpeg.c exec/data/loader.c common/err.c common/util.c common/csv.c"
	for p in databench mkjpeg; do
		cc -std=c11 -D_GNU_SOURCE -O3 -I. -o build/scaleplan-$p exec/data/$p.c $SRC \
			-lturbojpeg -ljpeg -lcsv -lz -lm -lpthread >> "$O/build_data.log" 2>&1 || { tail -20 "$O/build_data.log"; exit 2; }
	done
fi
echo "build: $(( $(date +%s) - T0 )) s"

# 2. JPEG folders from Fashion-MNIST: 256x256 (6 KB files, the training set) and 400x400 with grain
#    (about 41 KB files, the size of the reference photo set in reference/testbed_input_pipeline.csv)
FM=/usr/share/datasets/fashion-mnist; [ -f $FM/train-images-idx3-ubyte.gz ] || FM=$PWD/.fmnist
DS=/tmp/fm256 DP=/tmp/photo400
NTRAIN=60000; [ "$MODE" = quick ] && NTRAIN=20000
rm -rf "$DS" "$DP"
build/scaleplan-mkjpeg --out "$DS" --size 256 --train $NTRAIN --val 10000 --fashion-dir "$FM" --threads "$NP" \
	| tee "$O/mkjpeg.log" || exit 2
build/scaleplan-mkjpeg --out "$DP" --size 400 --noise 16 --train 12000 --val 2000 --fashion-dir "$FM" --threads "$NP" \
	| tee -a "$O/mkjpeg.log" || exit 2

# 3. scaleplan loader: threads 1,2,4,...,cores; read cold vs cached; a simulated GPU at 3,000 img/s;
#    on the photo-sized set also whole-image decode (what region decoding saves) and the eval transform
DB="build/scaleplan-databench --machine $MACHINE"
$DB --data "$DS" --images 4000 --read --gpu-img-s 3000 --csv "$O/databench_fm256.csv" 2> "$O/databench_fm256.log" \
	|| echo "databench fm256 failed: $(tail -1 "$O/databench_fm256.log")"
$DB --data "$DP" --images 3000 --read --csv "$O/databench_photo400.csv" 2> "$O/databench_photo400.log" \
	|| echo "databench photo400 failed: $(tail -1 "$O/databench_photo400.log")"
$DB --data "$DP" --images 2000 --threads "1,$NP" --full-decode --csv "$O/databench_photo400_full.csv" \
	2> "$O/databench_photo400_full.log" || echo "databench --full-decode failed"
$DB --data "$DP" --images 2000 --threads "1,$NP" --eval --csv "$O/databench_photo400_eval.csv" \
	2> "$O/databench_photo400_eval.log" || echo "databench --eval failed"
tail -12 "$O/databench_photo400.log"

# 4. PyTorch DataLoader on the same folders
timeout 300 python3 bench/peers/torch_data_folder.py "$DS" "$O/torch_fm256.csv" "$MACHINE" 2>&1 \
	| tee "$O/torch_fm256.log" | tail -14
IMAGES=2000 timeout 300 python3 bench/peers/torch_data_folder.py "$DP" "$O/torch_photo400.csv" "$MACHINE" 2>&1 \
	| tee "$O/torch_photo400.log" | tail -14

# 5. training from the folder, if the engine takes --data DIR
TR=build/scaleplan-train
if [ "$MODE" = full ]; then
	[ ! -f /usr/include/csv.h ] && [ -d .gpudeps ] && export C_INCLUDE_PATH=$PWD/.gpudeps/include LIBRARY_PATH=$PWD/.gpudeps/lib
	make -j"$NP" $TR > "$O/build_train.log" 2>&1 || echo "scaleplan-train did not build (build_train.log)"
	if [ -x $TR ] && $TR --help 2>&1 | grep -q -- "--data-threads"; then
		$TR --data synthetic --batch-per-gpu 256 --iters 60 --warmup-iters 10 --quiet --csv "$O/train_synthetic.csv" \
			> "$O/train_synthetic.log" 2>&1
		tail -4 "$O/train_synthetic.log"
		timeout 480 $TR --data "$DS" --data-threads "$NP" --batch-per-gpu 256 --epochs 8 --target-top1 0.92 --quiet \
			--csv "$O/train_jpeg.csv" > "$O/train_jpeg.log" 2>&1
		grep -v MLLOG "$O/train_jpeg.log" | tail -8
	else
		echo "scaleplan-train has no --data DIR yet: training from the JPEG folder skipped"
	fi
fi

# 6. table: per-thread decode rate, scaleplan vs PyTorch
echo "===== input pipeline on $MACHINE ($(( $(date +%s) - T0 )) s)"
for f in "$O"/databench_*.csv "$O"/torch_*.csv; do
	[ -f "$f" ] && python3 - "$f" <<'EOF'
import csv, os, sys
name = os.path.basename(sys.argv[1])[:-4]
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{name:26} {r['threads']:>4} thr {float(r['img_s']):9.0f} img/s {float(r['img_s_per_thread']):7.0f}/thr "
          f"{float(r['image_bytes_mean'])/1024:5.1f}KiB  ...{r['pipeline'][-48:]}")
EOF
done
for f in "$O"/train_*.csv; do [ -f "$f" ] && { echo "$f:"; cut -d, -f1-20 "$f" | head -3; }; done
exit 0
