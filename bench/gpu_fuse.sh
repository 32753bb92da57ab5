#!/bin/bash
# Device calls of issue 15 (fused convolution + batch norm through cuDNN's graph API). Steps, in order,
# chosen by STEPS (default "probe base"):
#   probe   build/scaleplan-fuseprobe: support and speed of each fusion pattern per ResNet-50 conv shape
#   base    scaleplan-train batch 256, legacy path (--fuse off) + --profile-ops
#   test    make test-gpu (layer checks vs CPU float64, CLI smoke) and the one-step check vs PyTorch (bf16,
#           fp32) with the fused path
#   speed   scaleplan-train batch 256/128/64, fused and legacy, back to back
#   stem    the stem convolution plain / padded to 8 channels / space-to-depth (--stem), interleaved
#   fold    batch norms applied by their only reader (stem pool, residual add) vs not (EX_FOLD_*=0), interleaved
#   ab      batch-norm reduction kernel, rows per loop trip (EX_BN_UNROLL) 1 vs default vs 4, interleaved
#   ncu     per-kernel time, bytes, registers, occupancy (NCU_K regex), this tree and .base
#   peers   PyTorch eager channels_last + torch.compile, batch 256/128/64, same job
#   dist    2 GPUs: scaleplan-train per transport (buckets as before / 1 MiB first + shrinking / + bf16
#           gradients) and PyTorch DDP, batch DIST_B per GPU
#   fm      Fashion-MNIST JPEG folder to 92 % top-1 with graph-API convolutions + the MLLOG compliance
#           checker (FM_RANKS=2: data-parallel with FM_ARGS, e.g. --grad-precision bf16)
# Logs and CSVs under $OUT; a short table last. Carry: .jpegdeps (csv/turbojpeg/zlib headers + static
# libs), .fmnist (the Fashion-MNIST .gz files), .mlperf_logging (for fm), .mpi (Open MPI libraries, for
# dist where the machine has no mpirun).
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
R="$DEST/results.txt"; : > "$R" # written as the steps go: what a timed-out call leaves still comes back
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $GPU; cudnn.h: $(grep -h 'define CUDNN_M[AI][JN]OR\|define CUDNN_PATCH' /usr/include/x86_64-linux-gnu/cudnn_version*.h 2>/dev/null | awk '{printf $3"."}')" | tee -a "$R"
if { [ ! -f /usr/include/turbojpeg.h ] || [ ! -f /usr/include/csv.h ]; } && [ -d .jpegdeps ]; then
	export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
fi
# NCCL and MPI for the data-parallel build (as bench/gpu_dist_smoke.sh): the machine's, else the wheel's
# NCCL and the carried Open MPI libraries (.mpi) with bench/launch_local.sh
MK=()
pydir() { python3 -c "import $1 as m; print(list(m.__path__)[0])" 2>/dev/null; }
for d in /usr/include /usr/local/cuda/include "$(pydir nvidia.nccl)/include"; do
	[ -f "$d/nccl.h" ] && { [ "$d" != /usr/include ] && MK+=("NCCL_INC=$d"); break; }
done
for d in /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib64 /usr/local/cuda/lib "$(pydir nvidia.nccl)/lib"; do
	if [ -e "$d/libnccl.so" ]; then MK+=("NCCL_LIB=$d"); break; fi
	if [ -e "$d/libnccl.so.2" ]; then
		mkdir -p build/nccl-lib && ln -sf "$d/libnccl.so.2" build/nccl-lib/libnccl.so
		MK+=("NCCL_LIB=$PWD/build/nccl-lib"); break
	fi
done
if command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
	LAUNCH2="mpirun --allow-run-as-root -np 2 --bind-to none --oversubscribe"
elif [ -d .mpi ]; then
	export MPI_CFLAGS="-I$PWD/.mpi/include" MPI_LIBS="-L$PWD/.mpi/lib -Wl,--disable-new-dtags,-rpath,$PWD/.mpi/lib \
-Wl,--no-as-needed -l:libmpi.so.40 -l:libopen-rte.so.40 -l:libopen-pal.so.40 -l:libhwloc.so.15 -l:libevent_core-2.1.so.7 \
-l:libevent_pthreads-2.1.so.7 -l:libudev.so.1"
	LAUNCH2="bench/launch_local.sh 2"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
echo "build: make ${MK[*]:-}; launcher ${LAUNCH2:-none}"
make -j16 build/scaleplan-train build/scaleplan-fuseprobe "${MK[@]}" > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 2; }
echo "build: $(el) s"
TR=build/scaleplan-train
# .base (carried, git-ignored): a source tree of an earlier commit (git archive), built beside the working
# tree so that the fold step's variant "base" and the ncu step compare the two in one job
TB=""
if [ -d .base ]; then
	(cd .base && make -j16 build/scaleplan-train "${MK[@]}") > "$O/build_base.log" 2>&1 && TB=.base/build/scaleplan-train ||
		tail -5 "$O/build_base.log"
	echo "base build: ${TB:-failed}, $(el) s"
fi
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
	for b in ${SPEED_B:-256 128 64}; do
		for f in ${SPEED_API:-graph legacy}; do
			smi_peak "$O/syn${b}_$f" $TR --batch-per-gpu $b --iters 60 --warmup-iters 10 --conv-api $f --csv "$O/syn${b}_$f.csv" > "$O/syn${b}_$f.log" 2>&1
			grep -h "EXEC_RESULT" "$O/syn${b}_$f.log" | sed "s/$/ conv-api=$f smi_peak_mib=$(sort -n "$O/syn${b}_$f.smi" | tail -1)/" | tee -a "$R"
			grep -h "arena" "$O/syn${b}_$f.log" | tail -1 | tee -a "$R"
		done
	done
	EX_GRAPH_VERBOSE=1 $TR --batch-per-gpu 256 --iters 20 --warmup-iters 5 --quiet --profile-ops --conv-api graph > "$O/profile_graph.txt" 2>&1
	grep PROFILE "$O/profile_graph.txt" | tee -a "$R"
fi
if has stem; then
	# the stem convolution as it is, on the image padded to 8 channels, or space-to-depth (--stem),
	# interleaved in one job: b256 twice, b64 once; then each variant's stem plans (EX_GRAPH_VERBOSE) and
	# synchronised profile
	for rep in 1 2; do
		for b in 256 64; do
			[ $b = 64 ] && [ $rep = 2 ] && continue
			for c in plain pad8 s2d; do
				$TR --batch-per-gpu $b --iters 60 --warmup-iters 10 --quiet --stem $c > "$O/stem_${c}_${b}_$rep.log" 2>&1
				grep -h EXEC_RESULT "$O/stem_${c}_${b}_$rep.log" | sed "s/$/ stem=$c rep=$rep/" | tee -a "$R"
			done
		done
	done
	for c in plain pad8 s2d; do
		EX_GRAPH_VERBOSE=1 $TR --batch-per-gpu 256 --iters 20 --warmup-iters 5 --quiet --profile-ops --stem $c > "$O/stemprof_$c.txt" 2>&1
		grep -h "graph plan conv1 \|PROFILE conv\|PROFILE ptotal" "$O/stemprof_$c.txt" | sed "s/$/ stem=$c/" | tee -a "$R"
	done
fi
if has fold; then
	# batch norms applied by their only reader (all, the default: the stem's by the max pooling, the
	# downsampling blocks' by the residual add, whose backward also does the folded BN's) vs none
	# (EX_FOLD_POOL=0 EX_FOLD_RES=0), the pool fold alone (pool), the folds' forward half (fwd), all but the
	# pool's backward fold (poolfwd), all but the reductions' one-wave grids (bps4: 4 blocks per SM as
	# before), each conv weight gradient cast to float as it is made (castper), the .base tree's binary
	# (base), NAME=VALUE: that environment setting. FOLD_V picks, interleaved in one job, each batch of
	# FOLD_B (default 256) twice. (Session 5's s4/poolbwd/red2/finoff variants named switches since removed.)
	for rep in 1 2; do
		for b in ${FOLD_B:-256}; do
			for f in ${FOLD_V:-none fwd all}; do
				case $f in none) E="EX_FOLD_POOL=0 EX_FOLD_RES=0" ;; pool) E="EX_FOLD_RES=0" ;;
					fwd) E="EX_FOLD_RES_BWD=0 EX_FOLD_POOL_BWD=0" ;;
					poolfwd) E="EX_FOLD_POOL_BWD=0" ;; bps4) E="EX_BN_BLOCKS_PER_SM=4" ;;
					castper) E="EX_WGRAD_CAST_AT_END=0" ;; *=*) E="$f" ;; *) E="" ;; esac
				BIN=$TR; [ $f = base ] && { [ -n "$TB" ] || continue; BIN=$TB; }
				env $E $BIN --batch-per-gpu $b --iters 60 --warmup-iters 10 --quiet > "$O/fold_${f}_${b}_$rep.log" 2>&1
				grep -h EXEC_RESULT "$O/fold_${f}_${b}_$rep.log" | sed "s/$/ fold=$f rep=$rep/" | tee -a "$R"
			done
		done
	done
	$TR --batch-per-gpu 256 --iters 20 --warmup-iters 5 2>&1 | grep -h "applied by their reader" | tee -a "$R"
	$TR --batch-per-gpu 256 --iters 20 --warmup-iters 5 --quiet --profile-ops 2>&1 |
		grep -h "PROFILE bn\|PROFILE pool\|PROFILE ptotal" | tee -a "$R"
fi
if has ncu; then
	# per-kernel time, DRAM bytes, registers and achieved occupancy of the kernels matching NCU_K, one
	# training step at batch 256, this tree's binary and (if built) the .base tree's
	for b in $TR $TB; do
		tag=new; [ $b = "$TB" ] && tag=base
		timeout ${NCU_S:-150} /usr/local/cuda/bin/ncu --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,\
dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
			-k regex:"${NCU_K:-pooled|maxpool|to_f32}" $b --batch-per-gpu 256 --iters 1 --warmup-iters 1 --no-graph \
			--quiet > "$O/ncu_$tag.csv" 2> "$O/ncu_$tag.err"
		echo "ncu $tag: rc $?, $(el) s"
		cp "$O/ncu_$tag.csv" "$DEST/"
	done
fi
if has ab; then
	# k_bn_reduce rows per loop trip: EX_BN_UNROLL=1 (the kernel before) vs the default (4 for the statistics,
	# 2 for the backward) vs 4, batch 256, interleaved twice in one job; then the synchronised BN profile of each
	for rep in 1 2; do
		for u in 1 def 4; do
			E=""; [ $u != def ] && E="EX_BN_UNROLL=$u"
			env $E $TR --batch-per-gpu 256 --iters 60 --warmup-iters 10 --quiet > "$O/ab_${u}_$rep.log" 2>&1
			grep -h EXEC_RESULT "$O/ab_${u}_$rep.log" | sed "s/$/ bn_unroll=$u rep=$rep/" | tee -a "$R"
		done
	done
	for u in 1 def; do
		E=""; [ $u != def ] && E="EX_BN_UNROLL=$u"
		env $E $TR --batch-per-gpu 256 --iters 20 --warmup-iters 5 --quiet --profile-ops > "$O/abprof_$u.txt" 2>&1
		grep -h "PROFILE bn\|PROFILE ptotal" "$O/abprof_$u.txt" | sed "s/$/ bn_unroll=$u/" | tee -a "$R"
	done
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
if has dist; then
	# 1 GPU, then 2 GPUs per transport (25 MiB buckets as before; then 1 MiB first bucket + shrinking
	# buckets; then bf16 gradients), then PyTorch DDP on the same transports. DIST_B: batch per GPU.
	DB=${DIST_B:-256}
	A="--batch-per-gpu $DB --iters 40 --warmup-iters 10 --quiet --nccl-timeout 90"
	$TR $A > "$O/d1.log" 2>&1; grep EXEC_RESULT "$O/d1.log" | sed 's/$/ run=1gpu/' | tee -a "$R"
	BASE=$(sed -n 's/.*img_s=\([0-9.]*\).*/\1/p' "$O/d1.log" | head -1)
	# DIST_RUNS: mode:variant[:channels] triples (default every mode x base/shrink/bf16); channels caps NCCL's
	# channels (NCCL_MAX_NCHANNELS: the SMs its kernels take from the backward running beside them)
	RUNS=${DIST_RUNS:-}
	if [ -z "$RUNS" ]; then
		for m in nvlink emulated all-socket; do for v in base shrink bf16; do RUNS="$RUNS $m:$v"; done; done
	fi
	for run in $RUNS; do
		IFS=: read -r m v nch <<< "$run"
		if [ $m = emulated ]; then MA="--emulate-nodes 2"; else MA="--nccl-mode $m"; fi
		case $v in base) VA="" ;; shrink) VA="--first-bucket-mb 1 --shrink-buckets" ;;
			bf16) VA="--first-bucket-mb 1 --shrink-buckets --grad-precision bf16" ;; esac
		XA=""; unset NCCL_MAX_NCHANNELS
		if [ -n "$nch" ]; then
			export NCCL_MAX_NCHANNELS=$nch
			case $LAUNCH2 in mpirun*) XA="-x NCCL_MAX_NCHANNELS" ;; esac
		fi
		tag="${m}_$v${nch:+_ch$nch}"
		timeout 120 $LAUNCH2 $XA $TR $A $MA $VA ${BASE:+--baseline-img-s $BASE} --csv "$O/d2_$tag.csv" > "$O/d2_$tag.log" 2>&1
		grep -h "EXEC_RESULT" "$O/d2_$tag.log" | head -1 | sed "s/$/ run=2gpu-$m-$v${nch:+ nccl_max_nchannels=$nch}/" | tee -a "$R"
		grep -h "^step \|# nccl" "$O/d2_$tag.log" | head -2 | sed "s/^/    /" | tee -a "$R"
	done
	unset NCCL_MAX_NCHANNELS
	for m in ${DDP_MODES:-nvlink emulated all-socket}; do
		case $m in emulated) E="EMU_NODES=2 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo" ;;
			all-socket) E="NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo" ;; *) E="" ;; esac
		env $E BS=$DB timeout 200 python3 -m torch.distributed.run --standalone --nproc_per_node=2 bench/peers/torch_ddp.py > "$O/ddp_$m.log" 2>&1
		grep -h "ddp rn50" "$O/ddp_$m.log" | head -1 | sed "s/$/ mode=$m/" | tee -a "$R"
	done
fi
if has fm; then
	FM=/usr/share/datasets/fashion-mnist; [ -f $FM/train-images-idx3-ubyte.gz ] || FM=$PWD/.fmnist
	make -j16 build/scaleplan-mkjpeg > "$O/build_mk.log" 2>&1 || cc -std=c11 -D_GNU_SOURCE -O3 -I. -o build/scaleplan-mkjpeg \
		exec/data/mkjpeg.c exec/data/idx.c exec/data/jpeg.c exec/data/loader.c common/err.c common/util.c common/csv.c \
		-lturbojpeg -ljpeg -lcsv -lz -lm -lpthread >> "$O/build_mk.log" 2>&1
	rm -rf /tmp/fm256
	build/scaleplan-mkjpeg --out /tmp/fm256 --size 256 --train 60000 --val 10000 --fashion-dir "$FM" --threads $(nproc) > "$O/mkjpeg.log" 2>&1 || tail -3 "$O/mkjpeg.log"
	L=""; [ "${FM_RANKS:-1}" = 2 ] && L=$LAUNCH2
	timeout ${FM_S:-300} $L $TR --data /tmp/fm256 --data-threads $(nproc) --batch-per-gpu 256 --epochs ${FM_EPOCHS:-14} --target-top1 0.92 \
		--lr 0.2 --weight-decay 5e-4 --warmup-epochs 1 --crop-scale-min 0.35 --conv-api graph ${FM_ARGS:-} --csv "$O/fm.csv" > "$O/fm.log" 2>&1
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
[ -f "$O/probe.csv" ] && cp "$O/probe.csv" "$DEST/"
[ -f "$O/mllog.txt" ] && cp "$O/mllog.txt" "$O/compliance.txt" "$DEST/"
tar czf "$DEST/logs.tgz" -C "$O" --exclude '*.smi' . 2>/dev/null
