#!/bin/bash
# Device calls of issue 27: the engine fed by the GPU JPEG path (nvJPEG). Steps, in order, chosen by STEPS
# (default "smoke folder speed torch"):
#   (always) build scaleplan-train with nvJPEG where nvjpeg.h is found
#   verify  synthetic steps and 2 Fashion-MNIST epochs (IDX files: .fmnist carried), after an engine change
#   smoke   tests/gpu/jpeg_gpu_smoke.sh: bad inputs skipped and named, the run goes on
#   folder  scaleplan-train --make-jpeg-folder /tmp/inlike --images ${IMAGES:-8704} (ImageNet-like, 1,000 classes)
#   speed   on ${CORES:-4} CPU cores (taskset -c 0-3): synthetic, then --data-path jpeg-gpu (${EPOCHS:-4} epochs)
#           for each VARIANTS entry (env settings, commas between several), then (CPU_RUN=1) jpeg-cpu, 4 threads
#           (2 epochs): img/s per epoch from the measurement CSV
#   torch   PyTorch on the same cores and folder: DataLoader reads bytes, torchvision.io.decode_jpeg on the
#           GPU + per-image RandomResizedCrop/flip on the GPU, channels_last bf16, eager and torch.compile
#           (bench/peers/torch_gpu_jpeg.py); TORCH_SYN=1 adds its synthetic-data runs
#   fm      Fashion-MNIST JPEG folder (256 px) through jpeg-gpu to 92 % top-1 (+ the MLPerf compliance
#           checker when .mlperf_logging is carried)
#   campaign  run the campaign script in ${CAMPAIGN} (written here by `scaleplan campaign`) on the same cores
# Results: $OUT/results.txt (as the steps go), $OUT/logs.tgz; a short table last.
# Carry: .jpegdeps (turbojpeg/libjpeg/libcsv/zlib, and jansson/GSL for scaleplan-mkjpeg: headers + static libs),
# .fmnist (for fm), .mlperf_logging (the MLCommons checker, github.com/mlcommons/logging, for fm).
#   OUT=dir STEPS="..." bash bench/gpu_jpeg.sh
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
DEST=${OUT:-/tmp/jpeg_out}; O=/tmp/jpeg_work; rm -rf "$O"; mkdir -p "$O" "$DEST"
cd "$(dirname "$0")/.." || exit 2
export PYTHONUNBUFFERED=1
STEPS=${STEPS:-smoke folder speed torch}
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
R="$DEST/results.txt"; : > "$R"
pack() { tar czf "$DEST/logs.tgz" -C "$O" . 2>/dev/null; }
trap pack EXIT
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $GPU; $(nproc) cores; $(date -u +%FT%TZ)" | tee -a "$R"
if { [ ! -f /usr/include/turbojpeg.h ] || [ ! -f /usr/include/csv.h ]; } && [ -d .jpegdeps ]; then
	export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
fi
# nvJPEG: the toolkit's header and library; where only libnvjpeg.so.N exists, a link for -lnvjpeg
CU=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
MK=(BUILD=build-dev)
NVH=$(ls "$CU"/include/nvjpeg.h /usr/include/nvjpeg.h "$CU"/targets/*/include/nvjpeg.h 2>/dev/null | head -1)
[ -n "$NVH" ] && [ "$NVH" != "$CU/include/nvjpeg.h" ] && MK+=("NVJPEG_INC=$(dirname "$NVH")")
if ! ls "$CU"/lib64/libnvjpeg.so "$CU"/lib/libnvjpeg.so /usr/lib/x86_64-linux-gnu/libnvjpeg.so >/dev/null 2>&1; then
	L=$(ls "$CU"/lib64/libnvjpeg.so.* "$CU"/targets/*/lib/libnvjpeg.so.* /usr/lib/x86_64-linux-gnu/libnvjpeg.so.* 2>/dev/null | head -1)
	if [ -n "$L" ]; then
		mkdir -p build-dev/nvjpeg-lib && ln -sf "$L" build-dev/nvjpeg-lib/libnvjpeg.so
		export LIBRARY_PATH=${LIBRARY_PATH:+$LIBRARY_PATH:}$PWD/build-dev/nvjpeg-lib
		export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$(dirname "$L")
	fi
fi
echo "nvjpeg.h: ${NVH:-not found}; make ${MK[*]}" | tee -a "$R"
make -j16 "${MK[@]}" build-dev/scaleplan-train > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 2; }
TR=build-dev/scaleplan-train
echo "build: $(el) s; $($TR --help | grep -o 'default jpeg-[a-z]*')" | tee -a "$R"

if has verify; then
	# the engine after a change: synthetic steps, one Fashion-MNIST epoch from the IDX files (.fmnist carried)
	$TR --batch-per-gpu 256 --iters 30 --warmup-iters 10 --quiet > "$O/verify_syn.log" 2>&1
	echo "verify synthetic: rc $?" | tee -a "$R"; grep -h "EXEC_RESULT\|arena" "$O/verify_syn.log" | tee -a "$R"
	FMD=/usr/share/datasets/fashion-mnist; [ -f $FMD/train-images-idx3-ubyte.gz ] || FMD=$PWD/.fmnist
	$TR --data fashion-mnist --data-dir "$FMD" --epochs 2 --quiet --csv "$O/verify_fm.csv" > "$O/verify_fm.log" 2>&1
	echo "verify fashion-mnist: rc $?" | tee -a "$R"; grep -h "EXEC_RESULT" "$O/verify_fm.log" | tee -a "$R"
fi
if has smoke; then
	TRAIN=$PWD/$TR timeout 240 sh tests/gpu/jpeg_gpu_smoke.sh > "$O/smoke.log" 2>&1
	echo "smoke: rc $?, $(el) s" | tee -a "$R"; tail -14 "$O/smoke.log" | tee -a "$R"
fi
DS=/tmp/inlike
if has folder || has speed || has torch; then
	[ -d $DS/train ] || $TR --make-jpeg-folder $DS --images ${IMAGES:-8704} --data-threads $(nproc) 2>&1 | tee -a "$R"
	echo "folder: $(du -sb $DS/train | cut -f1) bytes in train/, $(el) s" | tee -a "$R"
fi
C="taskset -c 0-$(( ${CORES:-4} - 1 ))"
# per-epoch img/s of a measurement CSV (epoch rows), then the mean of epochs 2..
epochs() {
	python3 - "$1" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["epoch"]]
v = [float(r["throughput_img_s"]) for r in rows]
w = [float(r["data_wait_s"]) for r in rows]
rest = v[1:] or v
print("img/s per epoch " + " ".join(f"{x:.0f}" for x in v) + f"; epochs 2-: mean {sum(rest)/len(rest):.0f}, best {max(v):.0f};"
      f" GPU data wait per epoch " + " ".join(f"{x:.2f}" for x in w) + " s")
EOF
}
if has speed; then
	# SYN_VARIANTS: environment settings per synthetic run, as VARIANTS below
	for v in ${SYN_VARIANTS:-default}; do
		E=(); [ "$v" != default ] && E=(${v//,/ })
		env "${E[@]}" $C $TR --batch-per-gpu 256 --iters 60 --warmup-iters 10 --quiet > "$O/syn_$v.log" 2>&1
		grep EXEC_RESULT "$O/syn_$v.log" | sed "s/$/ cores=${CORES:-4} env=$v/" | tee -a "$R"
	done
	# VARIANTS: environment settings per jpeg-gpu run ("default": none), e.g. "EX_JPEG_LANES=1 EX_JPEG_HW_PCT=75"
	for v in ${VARIANTS:-default}; do
		E=(); [ "$v" != default ] && E=(${v//,/ })
		env "${E[@]}" $C $TR --data $DS --data-path jpeg-gpu --data-threads ${GPU_THREADS:-3} --batch-per-gpu 256 --epochs ${EPOCHS:-4} \
			--csv "$O/gpu_$v.csv" > "$O/gpu_$v.log" 2>&1
		echo "jpeg-gpu $v: rc $?" | tee -a "$R"
		grep -E "^input:|EXEC_RESULT" "$O/gpu_$v.log" | tee -a "$R"
		[ -f "$O/gpu_$v.csv" ] && epochs "$O/gpu_$v.csv" | sed "s/^/jpeg-gpu $v /" | tee -a "$R"
	done
	if [ "${CPU_RUN:-1}" = 1 ]; then
		$C $TR --data $DS --data-path jpeg-cpu --data-threads 4 --batch-per-gpu 256 --epochs 2 \
			--csv "$O/cpu.csv" > "$O/cpu.log" 2>&1
		grep -E "EXEC_RESULT" "$O/cpu.log" | tee -a "$R"
		[ -f "$O/cpu.csv" ] && epochs "$O/cpu.csv" | sed 's/^/jpeg-cpu /' | tee -a "$R"
	fi
	echo "speed: $(el) s" | tee -a "$R"
fi
if has torch; then
	for m in "" "--compile"; do
		timeout 300 $C python3 bench/peers/torch_gpu_jpeg.py $DS --workers 3 $m > "$O/torch_folder$m.log" 2>&1
		grep -h "TORCH_GPU_JPEG\|Error\|error" "$O/torch_folder$m.log" | tail -3 | tee -a "$R"
		if [ "${TORCH_SYN:-0}" = 1 ]; then
			timeout 240 python3 bench/peers/torch_gpu_jpeg.py $DS --synthetic $m > "$O/torch_syn$m.log" 2>&1
			grep -h "TORCH_GPU_JPEG" "$O/torch_syn$m.log" | tee -a "$R"
		fi
	done
	echo "torch: $(el) s" | tee -a "$R"
fi
if has fm; then
	FM=/usr/share/datasets/fashion-mnist; [ -f $FM/train-images-idx3-ubyte.gz ] || FM=$PWD/.fmnist
	make -j16 "${MK[@]}" build-dev/scaleplan-mkjpeg > "$O/build_mk.log" 2>&1 || tail -3 "$O/build_mk.log"
	rm -rf /tmp/fm256
	build-dev/scaleplan-mkjpeg --out /tmp/fm256 --size 256 --train 60000 --val 10000 --fashion-dir "$FM" \
		--threads $(nproc) > "$O/mkjpeg.log" 2>&1 || tail -3 "$O/mkjpeg.log"
	timeout ${FM_S:-300} $TR --data /tmp/fm256 --data-path jpeg-gpu --data-threads 4 --batch-per-gpu 256 \
		--epochs ${FM_EPOCHS:-14} --target-top1 0.92 --lr 0.2 --weight-decay 5e-4 --warmup-epochs 1 \
		--crop-scale-min 0.35 --csv "$O/fm.csv" > "$O/fm.log" 2>&1
	echo "fm: rc $?, $(el) s" | tee -a "$R"
	grep -E "^epoch|EXEC_RESULT|^input:" "$O/fm.log" | tail -18 | tee -a "$R"
	grep ':::MLLOG' "$O/fm.log" > "$O/mllog.txt"
	if [ -d .mlperf_logging ]; then
		(cd .mlperf_logging && python3 -m mlperf_logging.compliance_checker --usage training --ruleset 4.0.0 \
			"$O/mllog.txt") > "$O/compliance.txt" 2>&1
		echo "compliance checker: rc $?" | tee -a "$R"; tail -3 "$O/compliance.txt" | tee -a "$R"
	fi
fi
if has campaign; then
	# a campaign written here by `scaleplan campaign` (CAMPAIGN: its folder); its CSVs come back in $DEST/campaign
	CSV="$DEST/campaign" TRAIN=$TR timeout ${CAMPAIGN_S:-240} $C sh "${CAMPAIGN:-bench/data/i27-s9/campaign}/run_mpirun.sh" \
		> "$O/campaign.log" 2>&1
	echo "campaign: rc $?, $(el) s; $(ls "$DEST/campaign" 2>/dev/null | wc -l) CSVs" | tee -a "$R"
fi
cp "$O"/fm.csv "$DEST/" 2>/dev/null
echo "==== summary ($(el) s)"
grep -E "EXEC_RESULT|img/s per epoch|TORCH_GPU_JPEG|smoke: rc|jpeg_gpu_smoke: (ok|FAIL)|^input:|fm: rc|verify|campaign|compliance" "$R"
