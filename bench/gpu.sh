#!/bin/bash
# The GPU bench driver: one build of exec/ on the device machine, then the named steps in STEPS, in order,
# until DEADLINE_S seconds have passed (the steps left are named as skipped; the table still prints).
#   build     make BUILD=build-gpu build-gpu/scaleplan-train against the machine's CUDA, cuDNN, nvJPEG, NCCL
#             (always done first; the carried build-deps/ gives libcsv, zlib, libjpeg-turbo and MPI where
#             the machine lacks them: sh tools/gpu_carry.sh here, carry ["build-deps"])
#   test-gpu  make test-gpu (layer checks, the one-step check against PyTorch, the smoke scripts)
#   speed     synthetic img/s on 1 GPU, CORES cores (taskset), each batch of BATCHES
#   jpeg      an ImageNet-like folder of IMAGES JPEGs, then --data-path jpeg-gpu for EPOCHS epochs on the same
#             cores at each batch of BATCHES (each JPEG_VARIANTS entry: environment settings, commas between
#             several, "default" none), and jpeg-cpu (CPU_EPOCHS epochs, CORES threads) at the first batch
#   multi     synthetic on N = MULTI_N GPUs (default all) at MULTI_B, MULTI_ITERS steps: 1 GPU (all cores), N over
#             NVLink, N emulated nodes (sockets), from N = 4 also 2 emulated nodes of N/2, MULTI_REPEAT times each; then each MULTI_VARIANTS entry ("[MODE/]NAME:settings", MODE
#             nvlink or emulated (the default), settings as above or scaleplan-train flags after '+', e.g.
#             "ch2:NCCL_MAX_NCHANNELS=2", "nvlink/cta2:+--comm-ctas,2" or "b100:+--bucket-mb,100")
#   peers     PyTorch in the same job: torchvision GPU decode over the folder on CORES cores (eager; compile too
#             with PEER_COMPILE=1; PEER_JPEG=0 skips it), DDP synthetic at MULTI_B on the runs of multi (1 GPU,
#             N NVLink, N emulated nodes, 2 emulated nodes of N/2)
#   jpegn     jpeg-gpu over the folder of IMAGES JPEGs, all cores, EPOCHS epochs: 1 GPU and N = MULTI_N over
#             NVLink at MULTI_B, the mean of epochs 2 on against the same job's synthetic run of multi
#   hang      2-GPU jpeg-gpu runs, each of HANG_RUNS ("nvlink:256 emulated:128 ..."), REPEAT times, EPOCHS_2G
#             epochs each, --data-timeout HANG_TIMEOUT: rc, time and, for a stop, the watch's report; then one
#             rank stopped on purpose (the test build, after test-gpu): the job must end with exit 2 naming it
#   sweep     all-reduce sweeps on 2 GPUs per SWEEP_MODES (nvlink emulated p2p-off all-socket), 1 KiB..SWEEP_MAX,
#             fp32 and bf16 (scaleplan-train --bench-allreduce; SWEEP_LOAD=gemm|resnet also times 4-128 MiB beside
#             that compute load): allreduce.csv, the input of scaleplan calibrate
#   faults    after test-gpu (its tests/gpu/test_dist): a rank SIGKILLed (NVLink, emulated) and a rank that hangs
#             must end the job; training killed at step 250 with checkpoints every 100 resumes from 200
#   probe     scaleplan-fuseprobe: support and speed of each cuDNN graph-API fusion per ResNet-50 convolution
#   fm        Fashion-MNIST as a JPEG folder (scaleplan-mkjpeg; FM_DIR: the IDX files, default Debian's
#             dataset-fashion-mnist) through jpeg-gpu to 92% top-1, its MLLOG kept (mllog.txt)
#   campaign  the campaign script in CAMPAIGN (written here by `scaleplan campaign --dry-run`) through
#             bench/launch_local.sh, on a folder of CG_IMAGES JPEGs (default IMAGES); its CSVs and runs.csv back in campaign.tgz (fit them here:
#             scaleplan campaign --fit-only)
# Results: $OUT/results.txt as the steps go, $OUT/raw.tgz (logs and CSVs), a short table last.
#   OUT=dir STEPS="build test-gpu speed jpeg" bash bench/gpu.sh
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
DEST=${OUT:-/tmp/gpu_out}
W=/tmp/gpu_work
rm -rf "$W"
mkdir -p "$W" "$DEST"
STEPS=${STEPS:-build test-gpu speed jpeg}
DEADLINE_S=${DEADLINE_S:-530}
CORES=${CORES:-4}
BATCHES=${BATCHES:-256 128 64}
EPOCHS=${EPOCHS:-8}
IMAGES=${IMAGES:-8704}
MULTI_B=${MULTI_B:-256}
T0=$(date +%s)
R=$DEST/results.txt
: >"$R"
el() { echo $(($(date +%s) - T0)); }
say() { echo "$*" | tee -a "$R"; }
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
late() { [ "$(el)" -ge "$DEADLINE_S" ]; }
pack() { tar czf "$DEST/raw.tgz" -C "$W" . 2>/dev/null; }
trap pack EXIT
# NVLink multicast stays off on shared hosts (the device notes); PyTorch's too
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SCALEPLAN_GIT_SHA=${SCALEPLAN_GIT_SHA:-$(sh tools/git_sha.sh 2>/dev/null)}
# DRY=1: no GPU, no build; tests/lib/stand_in_train.sh stands in for scaleplan-train (checks this script here)
DRY=${DRY:-0}
if [ "$DRY" != 1 ] && { ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; }; then
	echo "gpu.sh: no NVIDIA GPU here (nvidia-smi -L failed): run it on the device machine (DRY=1: a dry run)" >&2
	exit 2
fi
GPUNAME=$([ "$DRY" = 1 ] && echo "dry run" || nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
NGPU=$([ "$DRY" = 1 ] && echo "${DRY_NGPU:-2}" || nvidia-smi -L | wc -l)
say "# gpu.sh $(date -u +%FT%TZ) sha $SCALEPLAN_GIT_SHA; $GPUNAME x$NGPU; $(nproc) cores; steps: $STEPS"

# ---- build: the machine's toolchain; libraries it lacks from the carried build-deps/ ----
MK=(BUILD=build-gpu)
if [ -d build-deps ]; then
	[ -f /usr/include/csv.h ] || export C_INCLUDE_PATH=$PWD/build-deps/include LIBRARY_PATH=$PWD/build-deps/lib
fi
pydir() { python3 -c "import $1 as m; print(list(m.__path__)[0])" 2>/dev/null; }
CU=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
NVH=$(ls "$CU"/include/nvjpeg.h /usr/include/nvjpeg.h "$CU"/targets/*/include/nvjpeg.h 2>/dev/null | head -1)
[ -n "$NVH" ] && [ "$NVH" != "$CU/include/nvjpeg.h" ] && MK+=("NVJPEG_INC=$(dirname "$NVH")")
mkdir -p build-gpu/lib
# a library found only as libX.so.N gets a libX.so link for the linker
link_lib() { # name dirs...
	local n=$1 d
	shift
	for d in "$@"; do
		[ -e "$d/lib$n.so" ] && { echo "$d"; return; }
	done
	for d in "$@"; do
		local f
		f=$(ls "$d"/lib"$n".so.* 2>/dev/null | head -1)
		[ -n "$f" ] && { ln -sf "$f" "build-gpu/lib/lib$n.so"; echo "$PWD/build-gpu/lib"; return; }
	done
}
NVJ_LIB=$(link_lib nvjpeg "$CU/lib64" "$CU"/targets/*/lib /usr/lib/x86_64-linux-gnu "$(pydir nvidia.nvjpeg)/lib")
[ -n "$NVJ_LIB" ] && export LIBRARY_PATH=${LIBRARY_PATH:+$LIBRARY_PATH:}$NVJ_LIB
for d in /usr/include "$CU/include" "$(pydir nvidia.nccl)/include"; do
	if [ -f "$d/nccl.h" ]; then
		[ "$d" != /usr/include ] && MK+=("NCCL_INC=$d")
		break
	fi
done
NCCL_LIB=$(link_lib nccl /usr/lib/x86_64-linux-gnu "$CU/lib64" "$(pydir nvidia.nccl)/lib")
[ -n "$NCCL_LIB" ] && MK+=("NCCL_LIB=$NCCL_LIB")
NCCL_SO=$(ls "$(pydir nvidia.nccl)"/lib/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2 2>/dev/null | head -1)
[ -n "$NCCL_SO" ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$(dirname "$NCCL_SO")
if ! command -v mpicc >/dev/null && [ -d build-deps/mpi ]; then
	# libmpi's own RUNPATH names Debian's folder, so the program NEEDs its dependencies itself
	M=$PWD/build-deps/mpi
	MK+=("MPI_CFLAGS=-I$M/include" "MPI_LIBS=-L$M/lib -Wl,--disable-new-dtags,-rpath,$M/lib -Wl,--no-as-needed \
-l:libmpi.so.40 -l:libopen-rte.so.40 -l:libopen-pal.so.40 -l:libhwloc.so.15 -l:libevent_core-2.1.so.7 \
-l:libevent_pthreads-2.1.so.7 -l:libudev.so.1")
fi
LAUNCH2="bench/launch_local.sh 2"
MULTI_N=${MULTI_N:-$NGPU}
LAUNCHN="bench/launch_local.sh $MULTI_N"
TR=$PWD/build-gpu/scaleplan-train
# sm_90 only: the H100 and H200 (half the compile time of sm_80 + sm_90)
NVF="-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Xcompiler -Wall -I."
if [ "$DRY" = 1 ]; then
	TR=$PWD/tests/lib/stand_in_train.sh
elif ! make -j"$(nproc)" "${MK[@]}" EX_NVFLAGS="$NVF" build-gpu/scaleplan-train >"$W/build.log" 2>&1; then
	grep -E "error|Error" "$W/build.log" | head -30
	say "build: FAILED ($(el) s; build.log in raw.tgz)"
	exit 2
fi
say "build: $(el) s; $($TR --help | grep -o 'default jpeg-[a-z]*'); data-parallel: $($TR --help | grep -q nccl-mode && echo yes || echo NO)"
C="taskset -c 0-$((CORES - 1))"

# img/s per epoch of a measurement CSV (epoch rows): all epochs, then the mean of epochs 2 on
epochs() {
	python3 - "$1" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["epoch"]]
v = [float(r["throughput_img_s"]) for r in rows]
rest = v[1:] or v
print("per_epoch=" + "/".join(f"{x:.0f}" for x in v) + f" mean2on={sum(rest)/len(rest):.0f} best={max(v):.0f}")
EOF
}
val() { sed -n "s/.*\b$2=\([0-9.]*\).*/\1/p" <<<"$1" | head -1; }
declare -A SYN

step_test_gpu() {
	make "${MK[@]}" EX_NVFLAGS="$NVF" test-gpu >"$W/test-gpu.log" 2>&1
	local rc=$?
	say "test-gpu: rc $rc ($(grep -c '^== ' "$W/test-gpu.log") test programs; $(el) s)"
	[ $rc -eq 0 ] || tail -25 "$W/test-gpu.log" | tee -a "$R"
}

step_speed() {
	local b line
	for b in $BATCHES; do
		$C $TR --batch-per-gpu "$b" --iters 60 --warmup-iters 10 --quiet >"$W/syn_b$b.log" 2>&1
		line=$(grep -m1 EXEC_RESULT "$W/syn_b$b.log")
		SYN[$b]=$(val "$line" img_s)
		say "speed b$b cores=$CORES: synthetic img/s ${SYN[$b]:-FAILED}"
	done
}

DS=/tmp/inlike
# the folder of IMAGES JPEGs in $1 (default DS); kept between calls on a warm machine
folder() {
	local d=${1:-$DS} n=${2:-$IMAGES}
	[ -f "$d/.complete" ] && return
	rm -rf "$d"
	$TR --make-jpeg-folder "$d" --images "$n" --data-threads "$(nproc)" >"$W/folder_$n.log" 2>&1 && : >"$d/.complete"
	say "folder $d: $n train JPEGs, $(du -sb "$d"/train | cut -f1) bytes ($(el) s)"
}

step_jpeg() {
	folder
	local b v E name line pe
	for v in ${JPEG_VARIANTS:-default}; do
		local only=${v#*@}
		[ "$only" = "$v" ] && only=""
		v=${v%@*}
		for b in $BATCHES; do
			[ -n "$only" ] && [ "$only" != "$b" ] && continue
			late && { say "jpeg: deadline, skipped b$b $v"; continue; }
			E=()
			[ "$v" != default ] && E=(${v//,/ })
			name=gpu_b${b}_${v//[^A-Za-z0-9_]/_}
			env "${E[@]}" $C $TR --data $DS --data-path jpeg-gpu --batch-per-gpu "$b" --epochs "$EPOCHS" --quiet \
				--csv "$W/$name.csv" >"$W/$name.log" 2>&1
			local rc=$?
			pe=$([ -f "$W/$name.csv" ] && epochs "$W/$name.csv")
			local m=$(val "$pe" mean2on)
			local pct=$(awk -v a="${m:-0}" -v s="${SYN[$b]:-0}" 'BEGIN { if (a > 0 && s > 0) printf "%.1f%%", 100 * a / s; else print "-" }')
			say "jpeg-gpu b$b $v: rc $rc; $pe; of synthetic $pct"
			grep -h "^input:" "$W/$name.log" | tail -1 | tee -a "$R"
		done
	done
	local b0=${BATCHES%% *}
	if [ "${CPU_EPOCHS:-2}" -gt 0 ] && ! late; then
		$C $TR --data $DS --data-path jpeg-cpu --data-threads "$CORES" --batch-per-gpu "$b0" --epochs "${CPU_EPOCHS:-2}" \
			--quiet --csv "$W/cpu_b$b0.csv" >"$W/cpu_b$b0.log" 2>&1
		say "jpeg-cpu b$b0 threads=$CORES: rc $?; $([ -f "$W/cpu_b$b0.csv" ] && epochs "$W/cpu_b$b0.csv")"
	fi
}

# one synthetic run on 1 or 2 GPUs: name, launcher words..., then "--" and extra flags
multi_run() {
	local name=$1 line
	shift
	timeout 120 "$@" --data synthetic --batch-per-gpu "$MULTI_B" --iters "${MULTI_ITERS:-50}" --warmup-iters 10 --quiet \
		--run-id "$name" --csv "$W/$name.csv" >"$W/$name.log" 2>&1
	local rc=$?
	line=$(grep -m1 EXEC_RESULT "$W/$name.log")
	local img=$(val "$line" img_s) base=${SYN[all$MULTI_B]:-0} g=${RUN_GPUS:-2}
	local eff=$(awk -v a="${img:-0}" -v b="$base" -v g="$g" 'BEGIN { if (a > 0 && b > 0) printf "%.1f%%", 100 * a / (g * b); else print "-" }')
	SYN[$name]=$img
	say "multi $name b$MULTI_B: rc $rc img_s=${img:-?} eff=$eff $(grep -o 'allreduce_ms=[0-9.]* exposed_ms=[0-9.]*' <<<"$line")" \
		"$(breakdown "$W/$name.csv")"
}

# the step's parts in ms from a measurement CSV's first row (iter = fwd + bwd + opt; exposed is inside opt)
breakdown() {
	[ -f "$1" ] || return
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NR == 2 { printf "step_ms=%.2f fwd=%.2f bwd=%.2f opt=%.2f", 1e3 * $c["iter_s"], 1e3 * $c["fwd_s"],
			1e3 * $c["bwd_s"], 1e3 * $c["opt_s"] }' "$1"
}

step_multi() {
	local line v name set E F
	local k mode M
	$TR --batch-per-gpu "$MULTI_B" --iters "${MULTI_ITERS:-50}" --warmup-iters 10 --quiet --csv "$W/multi_1gpu.csv" \
		>"$W/multi_1gpu.log" 2>&1
	line=$(grep -m1 EXEC_RESULT "$W/multi_1gpu.log")
	SYN[all$MULTI_B]=$(val "$line" img_s)
	say "multi 1gpu b$MULTI_B (all cores): img_s=${SYN[all$MULTI_B]:-FAILED} $(breakdown "$W/multi_1gpu.csv")"
	local N=$MULTI_N
	export RUN_GPUS=$N
	for k in $(seq 1 "${MULTI_REPEAT:-1}"); do
		multi_run "nvlink${N}_$k" $LAUNCHN "$TR" --nccl-mode nvlink
		multi_run "emulated${N}x1_$k" $LAUNCHN "$TR" --emulate-nodes "$N"
		[ "$N" -ge 4 ] && multi_run "emulated2x$((N / 2))_$k" $LAUNCHN "$TR" --emulate-nodes 2
	done
	export RUN_GPUS=2
	for v in ${MULTI_VARIANTS:-}; do
		late && { say "multi: deadline, skipped $v"; continue; }
		mode=emulated
		case ${v%%:*} in */*) mode=${v%%/*}; v=${v#*/} ;; esac
		name=${v%%:*}
		set=${v#*:}
		E=()
		F=()
		case $set in +*) F=(${set#+}) ;; *) E=(${set//,/ }) ;; esac
		F=(${F[@]//,/ })
		M=(--emulate-nodes 2)
		[ "$mode" = nvlink ] && M=(--nccl-mode nvlink)
		multi_run "${mode}_$name" env "${E[@]}" $LAUNCH2 "$TR" "${M[@]}" "${F[@]}"
	done
}

step_peers() {
	folder
	local m line
	for m in $([ "${PEER_JPEG:-1}" = 1 ] && echo eager) ${PEER_COMPILE:+--compile}; do
		[ "$m" = eager ] && m=""
		timeout 240 $C python3 bench/peers/torch_gpu_jpeg.py $DS --workers $((CORES - 1)) $m >"$W/torch_jpeg$m.log" 2>&1
		say "peer torchvision GPU decode${m:+ $m} cores=$CORES: $(grep -h 'TORCH_GPU_JPEG' "$W/torch_jpeg$m.log" | tail -1)"
	done
	late && return
	local N=$MULTI_N runs="1:x $MULTI_N:nvlink $MULTI_N:$MULTI_N"
	[ "$N" -ge 4 ] && runs="$runs $N:2"
	for m in $runs; do
		local g=${m%%:*} k=${m#*:} emu=""
		late && { say "peers: deadline, skipped ddp $m"; continue; }
		case $k in x | nvlink) ;; *) emu="EMU_NODES=$k NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo" ;; esac
		env $emu BS=$MULTI_B timeout 150 python3 -m torch.distributed.run --standalone \
			--nproc_per_node="$g" bench/peers/torch_ddp.py >"$W/ddp_${g}_$k.log" 2>&1
		say "peer ddp $g GPU $([ -n "$emu" ] && echo "$k emulated nodes" || echo "$k") b$MULTI_B:" \
			"$(grep -h 'ddp rn50' "$W/ddp_${g}_$k.log" | head -1)"
	done
}

step_hang() {
	folder
	local r mode b k t0 rc seq=0
	for r in ${HANG_RUNS:-nvlink:256 nvlink:128 emulated:256 emulated:128}; do
		mode=${r%%:*}
		b=${r#*:}
		local E=() set=${b#*:}
		b=${b%%:*}
		[ "$set" != "$r" ] && [ "$set" != "$b" ] && E=(${set//,/ })
		for k in $(seq 1 "${REPEAT:-1}"); do
			late && { say "hang: deadline, skipped $r #$k"; continue; }
			seq=$((seq + 1))
			local name=hang${seq}_${mode}_b${b} F=(--nccl-mode nvlink)
			[ "$mode" = emulated ] && F=(--emulate-nodes 2)
			t0=$(date +%s)
			timeout $((${HANG_TIMEOUT:-20} + 100)) env "${E[@]}" $LAUNCH2 "$TR" "${F[@]}" --data $DS --data-path jpeg-gpu --batch-per-gpu "$b" \
				--epochs "${EPOCHS_2G:-6}" --data-timeout "${HANG_TIMEOUT:-20}" --quiet --csv "$W/$name.csv" \
				>"$W/$name.log" 2>&1
			rc=$?
			local line=$(grep -m1 EXEC_RESULT "$W/$name.log")
			say "hang $mode b$b ${E[*]} #$k: rc $rc in $(($(date +%s) - t0)) s; img_s=$(val "$line" img_s)" \
				"$([ -f "$W/$name.csv" ] && epochs "$W/$name.csv")"
			[ $rc -ne 0 ] && grep -E "no batch|rank [0-9]|thread|decode|lane|ending|NCCL|error" "$W/$name.log" | head -40 | tee -a "$R"
		done
	done
	late || stop_check
}

# One rank stops on purpose (the test build's EX_JPEG_TEST_STALL, rank 1 only): the whole job must end with
# exit 2 within HANG_TIMEOUT + a few seconds, the report naming rank 1, its threads and their phases.
stop_check() {
	local hooks=$PWD/build-gpu/tests/gpu/scaleplan-train-hooks t0 rc
	[ -x "$hooks" ] || { say "stop check: skipped (no build-gpu/tests/gpu/scaleplan-train-hooks: run the test-gpu step first)"; return; }
	t0=$(date +%s)
	timeout 150 $LAUNCH2 sh -c '[ "$RANK" = 1 ] && export EX_JPEG_TEST_STALL=5; exec "$0" "$@"' "$hooks" \
		--nccl-mode nvlink --data $DS --data-path jpeg-gpu --batch-per-gpu 128 --epochs 2 --quiet \
		--data-timeout "${HANG_TIMEOUT:-20}" >"$W/stop_check.log" 2>&1
	rc=$?
	say "stop check (rank 1 stops at its batch 5, --data-timeout ${HANG_TIMEOUT:-20}): rc $rc in $(($(date +%s) - t0)) s;" \
		"report names rank 1: $(grep -c 'rank 1 of 2' "$W/stop_check.log") line(s)"
	grep -E "rank [01] of 2|stopped on purpose|training thread:|ending the job|launch_local" "$W/stop_check.log" | head -12 | tee -a "$R"
}

step_sweep() {
	local m F
	for m in ${SWEEP_MODES:-nvlink emulated}; do
		late && { say "sweep: deadline, skipped $m"; continue; }
		F=(--nccl-mode "$m")
		[ "$m" = emulated ] && F=(--emulate-nodes 2)
		timeout 240 $LAUNCH2 "$TR" --bench-allreduce "${F[@]}" --max-bytes "${SWEEP_MAX:-268435456}" --dtypes fp32,bf16 \
			--machine "${MACHINE:-local}" --out "$W/sweep_$m.csv" --nccl-timeout 60 ${SWEEP_LOAD:+--load $SWEEP_LOAD} \
			>"$W/sweep_$m.log" 2>&1
		say "sweep $m: rc $? ($(($(wc -l <"$W/sweep_$m.csv" 2>/dev/null || echo 1) - 1)) rows)"
		if [ -f "$W/sweep_$m.csv" ]; then
			if [ -f "$DEST/allreduce.csv" ]; then tail -n +2 "$W/sweep_$m.csv" >>"$DEST/allreduce.csv"
			else cp "$W/sweep_$m.csv" "$DEST/allreduce.csv"; fi
		fi
	done
}

step_faults() {
	local TD=$PWD/build-gpu/tests/gpu/test_dist m t0 CK
	[ -x "$TD" ] || { say "faults: skipped (no build-gpu/tests/gpu/test_dist: run the test-gpu step first)"; return; }
	for m in nvlink emulated; do
		local F=(--nccl-mode "$m")
		[ "$m" = emulated ] && F=(--emulate-nodes 2)
		t0=$(date +%s)
		timeout 120 $LAUNCH2 "$TD" --mock-train --steps 100000 --kill-rank 1 --kill-step 40 "${F[@]}" --nccl-timeout 20 \
			>"$W/kill_$m.log" 2>&1
		say "faults: rank 1 SIGKILLed at step 40 ($m): job rc $? after $(($(date +%s) - t0)) s"
	done
	t0=$(date +%s)
	timeout 120 $LAUNCH2 "$TD" --mock-train --steps 100000 --kill-rank 1 --kill-step 40 --hang --nccl-timeout 10 \
		>"$W/hang_rank.log" 2>&1
	say "faults: rank 1 hangs at step 40 (nvlink): job rc $? after $(($(date +%s) - t0)) s (--nccl-timeout 10)"
	CK=$(mktemp -d /tmp/ckpt.XXXXXX)
	local RA=(--train --batch-per-gpu 64 --iters 300 --warmup-iters 10 --precision bf16 --ckpt-dir "$CK"
		--ckpt-every-steps 100 --log-every 25 --nccl-timeout 60)
	timeout 200 $LAUNCH2 "$TD" "${RA[@]}" --kill-rank 1 --kill-step 250 >"$W/resume1.log" 2>&1
	say "faults: training killed at step 250: rc $?; $(grep -c 'checkpoint at' "$W/resume1.log") checkpoint line(s)"
	timeout 200 $LAUNCH2 "$TD" "${RA[@]}" --resume >"$W/resume2.log" 2>&1
	say "faults: --resume: rc $?; $(grep -hE 'resumed from' "$W/resume2.log" | head -1)"
	rm -rf "$CK"
}

step_probe() {
	make -j"$(nproc)" "${MK[@]}" EX_NVFLAGS="$NVF" build-gpu/scaleplan-fuseprobe >"$W/build_probe.log" 2>&1 ||
		{ say "probe: build failed"; return; }
	timeout "${PROBE_S:-240}" build-gpu/scaleplan-fuseprobe --batch 256 --tries "${TRIES:-6}" >"$W/probe.csv" 2>"$W/probe.err"
	say "probe: rc $?; $(($(wc -l <"$W/probe.csv") - 1)) rows"
	cp "$W/probe.csv" "$DEST/" 2>/dev/null
}

step_fm() {
	local FM=${FM_DIR:-/usr/share/datasets/fashion-mnist}
	[ -f "$FM/train-images-idx3-ubyte.gz" ] || { say "fm: skipped (no Fashion-MNIST IDX files in $FM; FM_DIR)"; return; }
	# the converter alone, without the planner library (the machine may lack GSL)
	cc -std=c11 -D_GNU_SOURCE -O2 -I. -o build-gpu/scaleplan-mkjpeg exec/data/mkjpeg.c exec/data/idx.c exec/data/jpeg.c \
		exec/data/loader.c common/*.c -lturbojpeg -ljpeg -lcsv -lz -lm -lpthread \
		>"$W/build_mk.log" 2>&1 || { say "fm: scaleplan-mkjpeg build failed"; return; }
	rm -rf /tmp/fm256
	build-gpu/scaleplan-mkjpeg --out /tmp/fm256 --size 256 --train 60000 --val 10000 --fashion-dir "$FM" \
		--threads "$(nproc)" >"$W/mkjpeg.log" 2>&1 || { say "fm: scaleplan-mkjpeg failed"; return; }
	timeout "${FM_S:-300}" "$TR" --data /tmp/fm256 --data-path jpeg-gpu --batch-per-gpu 256 --epochs "${FM_EPOCHS:-14}" \
		--target-top1 0.92 --lr 0.2 --weight-decay 5e-4 --warmup-epochs 1 --crop-scale-min 0.35 --csv "$W/fm.csv" \
		>"$W/fm.log" 2>&1
	say "fm: rc $?; $(grep -h EXEC_RESULT "$W/fm.log")"
	grep ':::MLLOG' "$W/fm.log" >"$DEST/mllog.txt"
}

# jpeg-gpu on all cores at MULTI_B: 1 GPU, then MULTI_N over NVLink; steady = the mean of epochs 2 on, against
# the synthetic run of the same GPU count in this job (step multi)
step_jpegn() {
	folder
	local g name rc pe m s
	for g in 1 "$MULTI_N"; do
		late && { say "jpegn: deadline, skipped $g GPUs"; continue; }
		name=jpegn_g$g
		if [ "$g" = 1 ]; then
			$TR --data $DS --data-path jpeg-gpu --batch-per-gpu "$MULTI_B" --epochs "$EPOCHS" --quiet \
				--csv "$W/$name.csv" >"$W/$name.log" 2>&1
		else
			timeout 300 $LAUNCHN "$TR" --nccl-mode nvlink --data $DS --data-path jpeg-gpu --batch-per-gpu "$MULTI_B" \
				--epochs "$EPOCHS" --quiet --csv "$W/$name.csv" >"$W/$name.log" 2>&1
		fi
		rc=$?
		pe=$([ -f "$W/$name.csv" ] && epochs "$W/$name.csv")
		m=$(val "$pe" mean2on)
		s=$([ "$g" = 1 ] && echo "${SYN[all$MULTI_B]:-0}" || echo "${SYN[nvlink${MULTI_N}_1]:-0}")
		say "jpegn $g GPU(s) b$MULTI_B $IMAGES JPEGs: rc $rc; $pe; of synthetic ($s) $(awk -v a="${m:-0}" -v s="$s" \
			'BEGIN { if (a > 0 && s > 0) printf "%.1f%%", 100 * a / s; else print "-" }')"
	done
}

step_campaign() {
	local c=${CAMPAIGN:-bench/data/campaign} cd=/tmp/cg${CG_IMAGES:-$IMAGES}
	[ -f "$c/run_mpirun.sh" ] || { say "campaign: $c/run_mpirun.sh not found"; return; }
	folder "$cd" "${CG_IMAGES:-$IMAGES}"
	mkdir -p "$W/campaign"
	CSV="$W/campaign/csv" STATUS="$W/campaign/runs.csv" TRAIN=$TR LAUNCH=$PWD/bench/launch_local.sh DATA_DIR=$cd \
		timeout "${CAMPAIGN_S:-300}" sh "$c/run_mpirun.sh" >"$W/campaign/campaign.log" 2>&1
	say "campaign: rc $? ($(el) s); $(ls "$W/campaign/csv" 2>/dev/null | wc -l) CSVs"
	cat "$W/campaign/runs.csv" | tee -a "$R"
	grep -h EXEC_RESULT "$W/campaign/campaign.log" | tee -a "$R"
	tar czf "$DEST/campaign.tgz" -C "$W" campaign 2>/dev/null
}

for s in $STEPS; do
	[ "$s" = build ] && continue
	if late; then
		say "$s: skipped (deadline ${DEADLINE_S} s)"
		continue
	fi
	case $s in
	test-gpu) step_test_gpu ;;
	speed) step_speed ;;
	jpeg) step_jpeg ;;
	multi) step_multi ;;
	peers) step_peers ;;
	hang) step_hang ;;
	campaign) step_campaign ;;
	jpegn) step_jpegn ;;
	sweep) step_sweep ;;
	faults) step_faults ;;
	probe) step_probe ;;
	fm) step_fm ;;
	*) say "unknown step '$s' (build test-gpu speed jpeg jpegn multi peers hang sweep faults probe fm campaign)" ;;
	esac
	say "# $s done at $(el) s"
done
echo "==== summary ($(el) s)"
grep -vE "^\s|^#" "$R"
