#!/bin/sh
# scaleplan campaign: 3 scaleplan-train runs (mpirun; one GPU: the binary alone), written by `scaleplan campaign`.
# grid: gpus_per_node=1;nodes=1;batch=64,128,256;data=synthetic
# TRAIN: the scaleplan-train binary; CSV: where the measurement CSVs go.
set -u
TRAIN=${TRAIN:-'build-dev/scaleplan-train'}
CSV=${CSV:-'bench/data/h100-2026-11-25-b/campaign/csv'}
mkdir -p "$CSV"
fail=0
run() {
	id=$1; shift
	echo "== $id"
	"$@" || { echo "campaign: $id failed (exit $?)"; fail=$((fail + 1)); }
}
# HOSTFILE: mpirun's host file for the runs on more than one node; MPIRUN_ARGS: more mpirun options
run g1x1_b64_synthetic_none "$TRAIN" --batch-per-gpu 64 --quiet --machine 'testbed-h100x1' --run-id g1x1_b64_synthetic_none --csv "$CSV/g1x1_b64_synthetic_none.csv" --iters 40 --warmup-iters 10
run g1x1_b128_synthetic_none "$TRAIN" --batch-per-gpu 128 --quiet --machine 'testbed-h100x1' --run-id g1x1_b128_synthetic_none --csv "$CSV/g1x1_b128_synthetic_none.csv" --iters 40 --warmup-iters 10
run g1x1_b256_synthetic_none "$TRAIN" --batch-per-gpu 256 --quiet --machine 'testbed-h100x1' --run-id g1x1_b256_synthetic_none --csv "$CSV/g1x1_b256_synthetic_none.csv" --iters 40 --warmup-iters 10
echo "campaign: 3 runs, $fail failed; CSVs in $CSV"
[ $fail -eq 0 ]
