#!/bin/sh
# scaleplan campaign: 18 scaleplan-train runs (mpirun; one GPU: the binary alone), written by `scaleplan campaign`.
# grid: gpus_per_node=1,2,4;nodes=1;batch=256;data=synthetic,jpeg-gpu;transport=nvlink,emulated|gpus_per_node=2;nodes=2;batch=256;data=synthetic,jpeg-gpu;transport=emulated
# TRAIN: the scaleplan-train binary; CAMPAIGN_DIR: this campaign's folder; CSV: where the measurement
# CSVs go (default CAMPAIGN_DIR/csv); STATUS: each run's outcome (default CAMPAIGN_DIR/runs.csv);
# DATA_DIR: the JPEG folder (default the one given when written). Each run has a time limit (its
# second word, seconds: --run-timeout); a run that stops or fails is recorded and the next one starts.
set -u
TRAIN=${TRAIN:-'scaleplan-train'}
CAMPAIGN_DIR=${CAMPAIGN_DIR:-$(cd "$(dirname "$0")" && pwd)}
CSV=${CSV:-$CAMPAIGN_DIR/csv}
STATUS=${STATUS:-$CAMPAIGN_DIR/runs.csv}
DATA=${DATA_DIR:-'/tmp/cg51200'}
mkdir -p "$CSV"
fail=0
echo "id,status,exit,seconds,limit_s" > "$STATUS"
run() {
	id=$1; limit=$2; shift 2
	echo "== $id (limit $limit s)"
	t0=$(date +%s)
	timeout -k 10 "$limit" "$@"
	rc=$?
	t=$(($(date +%s) - t0))
	case $rc in
	0) st=ok ;;
	124 | 137) st=timeout; echo "campaign: $id stopped at its limit of $limit s; skipped" ;;
	*) st=failed; echo "campaign: $id failed (exit $rc); skipped" ;;
	esac
	[ $rc -eq 0 ] || fail=$((fail + 1))
	echo "$id,$st,$rc,$t,$limit" >> "$STATUS"
}
# HOSTFILE: mpirun's host file for the runs on more than one node; MPIRUN_ARGS: more mpirun options;
# LAUNCH: instead of mpirun for the runs on one host, a launcher taking the rank count first
# (bench/launch_local.sh)
run g1x1_b256_synthetic_none 150 "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x1_b256_synthetic_none --csv "$CSV/g1x1_b256_synthetic_none.csv" --iters 60 --warmup-iters 10
run g1x1_b256_jpeg-gpu_none 150 "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x1_b256_jpeg-gpu_none --csv "$CSV/g1x1_b256_jpeg-gpu_none.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4
run g2x1_b256_synthetic_nvlink 150 ${LAUNCH:-mpirun -np 2 --map-by ppr:2:node ${MPIRUN_ARGS:-}} ${LAUNCH:+2} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g2x1_b256_synthetic_nvlink --csv "$CSV/g2x1_b256_synthetic_nvlink.csv" --iters 60 --warmup-iters 10 --nccl-mode nvlink
run g1x2_b256_synthetic_emulated 150 ${LAUNCH:-mpirun -np 2 --map-by ppr:2:node ${MPIRUN_ARGS:-}} ${LAUNCH:+2} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x2_b256_synthetic_emulated --csv "$CSV/g1x2_b256_synthetic_emulated.csv" --iters 60 --warmup-iters 10 --nccl-mode emulated --emulate-nodes 2
run g2x1_b256_jpeg-gpu_nvlink 150 ${LAUNCH:-mpirun -np 2 --map-by ppr:2:node ${MPIRUN_ARGS:-}} ${LAUNCH:+2} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g2x1_b256_jpeg-gpu_nvlink --csv "$CSV/g2x1_b256_jpeg-gpu_nvlink.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4 --nccl-mode nvlink
run g1x2_b256_jpeg-gpu_emulated 150 ${LAUNCH:-mpirun -np 2 --map-by ppr:2:node ${MPIRUN_ARGS:-}} ${LAUNCH:+2} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x2_b256_jpeg-gpu_emulated --csv "$CSV/g1x2_b256_jpeg-gpu_emulated.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4 --nccl-mode emulated --emulate-nodes 2
run g4x1_b256_synthetic_nvlink 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g4x1_b256_synthetic_nvlink --csv "$CSV/g4x1_b256_synthetic_nvlink.csv" --iters 60 --warmup-iters 10 --nccl-mode nvlink
run g1x4_b256_synthetic_emulated 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x4_b256_synthetic_emulated --csv "$CSV/g1x4_b256_synthetic_emulated.csv" --iters 60 --warmup-iters 10 --nccl-mode emulated --emulate-nodes 4
run g4x1_b256_jpeg-gpu_nvlink 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g4x1_b256_jpeg-gpu_nvlink --csv "$CSV/g4x1_b256_jpeg-gpu_nvlink.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4 --nccl-mode nvlink
run g1x4_b256_jpeg-gpu_emulated 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x4_b256_jpeg-gpu_emulated --csv "$CSV/g1x4_b256_jpeg-gpu_emulated.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4 --nccl-mode emulated --emulate-nodes 4
run g2x2_b256_synthetic_emulated 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g2x2_b256_synthetic_emulated --csv "$CSV/g2x2_b256_synthetic_emulated.csv" --iters 60 --warmup-iters 10 --nccl-mode emulated --emulate-nodes 2
run g2x2_b256_jpeg-gpu_emulated 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g2x2_b256_jpeg-gpu_emulated --csv "$CSV/g2x2_b256_jpeg-gpu_emulated.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4 --nccl-mode emulated --emulate-nodes 2
run g1x2_b256_synthetic_emulated_r2 150 ${LAUNCH:-mpirun -np 2 --map-by ppr:2:node ${MPIRUN_ARGS:-}} ${LAUNCH:+2} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x2_b256_synthetic_emulated_r2 --csv "$CSV/g1x2_b256_synthetic_emulated_r2.csv" --iters 60 --warmup-iters 10 --nccl-mode emulated --emulate-nodes 2
run g1x2_b256_jpeg-gpu_emulated_r2 150 ${LAUNCH:-mpirun -np 2 --map-by ppr:2:node ${MPIRUN_ARGS:-}} ${LAUNCH:+2} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x2_b256_jpeg-gpu_emulated_r2 --csv "$CSV/g1x2_b256_jpeg-gpu_emulated_r2.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4 --nccl-mode emulated --emulate-nodes 2
run g1x4_b256_synthetic_emulated_r2 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x4_b256_synthetic_emulated_r2 --csv "$CSV/g1x4_b256_synthetic_emulated_r2.csv" --iters 60 --warmup-iters 10 --nccl-mode emulated --emulate-nodes 4
run g1x4_b256_jpeg-gpu_emulated_r2 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g1x4_b256_jpeg-gpu_emulated_r2 --csv "$CSV/g1x4_b256_jpeg-gpu_emulated_r2.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4 --nccl-mode emulated --emulate-nodes 4
run g2x2_b256_synthetic_emulated_r2 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g2x2_b256_synthetic_emulated_r2 --csv "$CSV/g2x2_b256_synthetic_emulated_r2.csv" --iters 60 --warmup-iters 10 --nccl-mode emulated --emulate-nodes 2
run g2x2_b256_jpeg-gpu_emulated_r2 150 ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node ${MPIRUN_ARGS:-}} ${LAUNCH:+4} "$TRAIN" --batch-per-gpu 256 --quiet --machine 'h200x4' --run-id g2x2_b256_jpeg-gpu_emulated_r2 --csv "$CSV/g2x2_b256_jpeg-gpu_emulated_r2.csv" --data "$DATA" --data-path jpeg-gpu --epochs 4 --nccl-mode emulated --emulate-nodes 2
echo "campaign: 18 runs, $fail failed; CSVs in $CSV"
[ $fail -eq 0 ]
