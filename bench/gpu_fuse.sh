#!/bin/bash
# Device calls of issue 15 (fused convolution + batch norm through cuDNN's graph API). Steps, in order,
# chosen by STEPS (default "probe base"):
#   probe   build/scaleplan-fuseprobe: support and speed of each fusion pattern per ResNet-50 conv shape
#   base    scaleplan-train batch 256, legacy path (--fuse off) + --profile-ops
#   test    make test-gpu (layer checks vs CPU float64, CLI smoke) and the one-step check vs PyTorch (bf16,
#           fp32) with the fused path
#   speed   scaleplan-train batch 256/128/64, fused and legacy, back to back
#   peers   PyTorch eager channels_last + torch.compile, batch 256/128/64, same job
#   fm      Fashion-MNIST JPEG folder to 92 % top-1 with the fused path + the MLLOG compliance checker
# Logs and CSVs under $OUT; a short table last. Carry: .jpegdeps (csv/turbojpeg/zlib headers + static
# libs), .fmnist (the Fashion-MNIST .gz files), .mlperf_logging (for fm).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
# logs go to a work folder; $OUT gets results.txt, probe.csv and logs.tgz (a call returns at most 8 files)
DEST=${OUT:-/tmp/fuse_out}; O=/tmp/fuse_work; rm -rf "$O"; mkdir -p "$O" "$DEST"
cd "$(dirname "$0")/.." || exit 2
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
STEPS=${STEPS:-probe base}
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
R="$O/results.txt"; : > "$R"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $GPU; cudnn.h: $(grep -h 'define CUDNN_M[AI][JN]OR\|define CUDNN_PATCH' /usr/include/x86_64-linux-gnu/cudnn_version*.h 2>/dev/null | awk '{printf $3"."}')" | tee -a "$R"
if { [ ! -f /usr/include/turbojpeg.h ] || [ ! -f /usr/include/csv.h ]; } && [ -d .jpegdeps ]; then
	export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
fi
make -j16 build/scaleplan-train build/scaleplan-fuseprobe > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 2; }
echo "build: $(el) s"
TR=build/scaleplan-train
# peak device memory of a command, as nvidia-smi sees it (MiB used, sampled every 100 ms)
smi_peak() {
	local f=$1; shift
	( while :; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 0.1; done ) > "$f.smi" &
	local p=$!
	"$@"; local rc=$?
	kill $p 2>/dev/null; wait $p 2>/dev/null
	echo "nvidia-smi peak MiB: $(sort -n "$f.smi" | tail -1)"
	return $rc
}
if has probe; then
	timeout ${PROBE_S:-240} build/scaleplan-fuseprobe --batch 256 --tries ${TRIES:-6} > "$O/probe.csv" 2> "$O/probe.err"
	echo "probe: rc $?, $(el) s"; tail -3 "$O/probe.err"
	python3 - "$O/probe.csv" <<'EOF' | tee -a "$R"
import csv, sys, collections
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
agg = collections.OrderedDict()
for r in rows:
    a = agg.setdefault(r['pattern'], [0, 0, 0.0, 0.0, []])
    n = int(r['count'])
    a[0] += 1
    if r['supported'] == '1':
        a[1] += 1
        a[2] += n * float(r['ms']); a[3] += n * float(r['legacy_ms'])
        if float(r['rel_err']) >= 0: a[4].append(float(r['rel_err']))
    else:
        a[4].append(r['why'][:60])
print("pattern                    shapes ok  sum_ms(x count)  legacy_ms  notes")
for k, a in agg.items():
    print(f"{k:26s} {a[0]:3d} {a[1]:3d}  {a[2]:9.3f}  {a[3]:9.3f}  {str(a[4][:3])}")
EOF
fi
if has base; then
	$TR --batch-per-gpu 256 --iters 60 --warmup-iters 10 --quiet --conv-api legacy 2>&1 | grep EXEC_RESULT | sed 's/$/ (legacy)/' | tee -a "$R"
	$TR --batch-per-gpu 256 --iters 20 --warmup-iters 5 --quiet --profile-ops --conv-api legacy 2>&1 | grep -E "PROFILE|profile" | tee "$O/profile_legacy.txt" | head -20
fi
if has test; then
	make test-gpu > "$O/test_gpu.log" 2>&1; echo "make test-gpu: rc $?"; grep -E "passed|failed|FAIL|ok|error" "$O/test_gpu.log" | tail -12
	for p in bf16 fp32; do
		rm -rf /tmp/dump_$p
		$TR --precision $p --batch-per-gpu 32 --image-size 128 --dump-step /tmp/dump_$p --quiet > /dev/null 2> "$O/dump_$p.err" || tail -3 "$O/dump_$p.err"
		python3 tests/gpu/torch_step.py /tmp/dump_$p 2>&1 | tee -a "$R" | tail -4
	done
fi
if has speed; then
	for b in 256 128 64; do
		for f in graph legacy; do
			smi_peak "$O/syn${b}_$f" $TR --batch-per-gpu $b --iters 60 --warmup-iters 10 --conv-api $f --csv "$O/syn${b}_$f.csv" > "$O/syn${b}_$f.log" 2>&1
			grep -h "EXEC_RESULT" "$O/syn${b}_$f.log" | sed "s/$/ conv-api=$f smi_peak_mib=$(sort -n "$O/syn${b}_$f.smi" | tail -1)/" | tee -a "$R"
			grep -h "parameters, activations" "$O/syn${b}_$f.log" | tail -1
		done
	done
	EX_GRAPH_VERBOSE=1 $TR --batch-per-gpu 256 --iters 20 --warmup-iters 5 --quiet --profile-ops --conv-api graph > "$O/profile_graph.txt" 2>&1
	grep PROFILE "$O/profile_graph.txt" | tee -a "$R"
fi
if has peers; then
	# one process per configuration, so that nvidia-smi's peak belongs to that configuration alone
	for b in ${PEER_BATCHES:-256 128 64}; do
		for c in eager compile; do
			[ $c = compile ] && case " ${COMPILE_BATCHES:-256 128 64} " in *" $b "*) ;; *) continue ;; esac
			f="$O/torch_${b}_$c"
			if [ $c = eager ]; then A="--no-compile"; else A="--compile-only"; fi
			smi_peak "$f" timeout ${PEER_S:-200} python3 bench/peers/torch_rn50_cl.py --batches $b $A > "$f.log" 2>&1
			grep -h "TORCH_RN50\|fail" "$f.log" | sed "s/$/ smi_peak_mib=$(sort -n "$f.smi" | tail -1)/" | tee -a "$R"
		done
	done
fi
if has fm; then
	FM=/usr/share/datasets/fashion-mnist; [ -f $FM/train-images-idx3-ubyte.gz ] || FM=$PWD/.fmnist
	make -j16 build/scaleplan-mkjpeg > "$O/build_mk.log" 2>&1 || cc -std=c11 -D_GNU_SOURCE -O3 -I. -o build/scaleplan-mkjpeg \
		exec/data/mkjpeg.c exec/data/idx.c exec/data/jpeg.c exec/data/loader.c common/err.c common/util.c common/csv.c \
		-lturbojpeg -ljpeg -lcsv -lz -lm -lpthread >> "$O/build_mk.log" 2>&1
	rm -rf /tmp/fm256
	build/scaleplan-mkjpeg --out /tmp/fm256 --size 256 --train 60000 --val 10000 --fashion-dir "$FM" --threads $(nproc) > "$O/mkjpeg.log" 2>&1 || tail -3 "$O/mkjpeg.log"
	timeout ${FM_S:-300} $TR --data /tmp/fm256 --data-threads $(nproc) --batch-per-gpu 256 --epochs ${FM_EPOCHS:-14} --target-top1 0.92 \
		--lr 0.2 --weight-decay 5e-4 --warmup-epochs 1 --crop-scale-min 0.35 --conv-api graph --csv "$O/fm.csv" > "$O/fm.log" 2>&1
	echo "fm: rc $?"
	grep -E "^epoch|EXEC_RESULT" "$O/fm.log" | tail -16 | tee -a "$R"
	grep ':::MLLOG' "$O/fm.log" > "$O/mllog.txt"
	if [ -d .mlperf_logging ]; then
		(cd .mlperf_logging && python3 -m mlperf_logging.compliance_checker --usage training --ruleset 4.0.0 "$O/mllog.txt") > "$O/compliance.txt" 2>&1
		echo "compliance checker: rc $?"; tail -5 "$O/compliance.txt"
	fi
fi
echo "===== results ($GPU, total $(el) s)"
cat "$R"
cp "$R" "$DEST/"; [ -f "$O/probe.csv" ] && cp "$O/probe.csv" "$DEST/"
[ -f "$O/mllog.txt" ] && cp "$O/mllog.txt" "$O/compliance.txt" "$DEST/"
tar czf "$DEST/logs.tgz" -C "$O" --exclude '*.smi' . 2>/dev/null
