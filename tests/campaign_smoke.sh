#!/bin/sh
# `scaleplan campaign` (issue 27): scripts for a grid of runs (mpirun and Slurm), bad grids refused with
# nothing written, --run with a stand-in scaleplan-train that writes a recorded measurement CSV, then the
# fit (leave-one-out error, profile) and the parity comparison on those CSVs.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${SCALEPLAN:-./build/scaleplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "campaign_smoke: $*" >&2; exit 1; }

# 2 GPUs per node x 1,2 nodes x batch 64,128,256 x synthetic/jpeg-gpu x nvlink/emulated, plus one GPU
"$SP" campaign --grid "gpus_per_node=1,2;nodes=1,2;batch=64,128,256;data=synthetic,jpeg-gpu;transport=nvlink,emulated" \
	--data-dir /data/inlike --out "$T/c" --train /opt/scaleplan-train > "$T/out.txt" || fail "dry run failed"
# 1 GPU: 3 batches x 2 data once; 3 other shapes x 3 x 2 x 2 transports
[ "$(tail -n +2 "$T/c/grid.csv" | wc -l)" -eq 42 ] || fail "expected 42 runs, grid.csv has $(tail -n +2 "$T/c/grid.csv" | wc -l)"
[ -x "$T/c/run_mpirun.sh" ] && [ -x "$T/c/campaign.sbatch" ] || fail "scripts missing or not executable"
sh -n "$T/c/run_mpirun.sh" || fail "run_mpirun.sh: shell syntax"
bash -n "$T/c/campaign.sbatch" || fail "campaign.sbatch: shell syntax"
grep -q '^run g2x2_b128_jpeg-gpu_nvlink mpirun -np 4 --map-by ppr:2:node .*--hostfile.*--data-path jpeg-gpu' "$T/c/run_mpirun.sh" ||
	fail "no 4-rank mpirun line over 2 nodes for jpeg-gpu"
grep -q '^run g2x2_b64_synthetic_emulated mpirun -np 4 --map-by ppr:4:node .*--nccl-mode emulated --emulate-nodes 2' "$T/c/run_mpirun.sh" ||
	fail "emulated nodes not on one host"
grep -q '^run g1x1_b256_synthetic_none "$TRAIN" --batch-per-gpu 256' "$T/c/run_mpirun.sh" || fail "1 GPU not run alone"
grep -q '^#SBATCH --nodes=2$' "$T/c/campaign.sbatch" || fail "sbatch: --nodes"
grep -q '^run g2x2_b256_synthetic_nvlink srun --mpi=${SRUN_MPI:-pmix} --nodes=2 --ntasks=4 --ntasks-per-node=2 --gpus-per-node=2' \
	"$T/c/campaign.sbatch" || fail "sbatch: srun line of 2 nodes x 2 GPUs"
[ "$(grep -c '^run ' "$T/c/campaign.sbatch")" -eq 42 ] || fail "sbatch: not 42 runs"

# bad grids: exit 1, the field named, no folder written
for g in "batch=64,abc" "transport=infiniband" "gpn=0" "colour=red" "data=jpeg-gpu"; do
	if "$SP" campaign --grid "$g" --out "$T/bad" 2> "$T/err.txt"; then fail "--grid '$g' accepted"; fi
	grep -q "field '" "$T/err.txt" || fail "--grid '$g': no field named: $(cat "$T/err.txt")"
	[ ! -e "$T/bad" ] || fail "--grid '$g': output written"
done
printf 'batch=64\nnodes=1,x # two\n' > "$T/grid.txt"
if "$SP" campaign --grid "@$T/grid.txt" --out "$T/bad" 2> "$T/err.txt"; then fail "bad grid file accepted"; fi
grep -q "grid.txt:2: field 'nodes', value 'x'" "$T/err.txt" || fail "grid file: no file:line: $(cat "$T/err.txt")"

# --run: a stand-in scaleplan-train writes a recorded CSV to the --csv path; then fit and parity
cat > "$T/train.sh" <<EOS
#!/bin/sh
while [ \$# -gt 0 ]; do [ "\$1" = --csv ] && cp "$PWD/tests/data/cal/h200x2/train.csv" "\$2"; shift; done
EOS
chmod +x "$T/train.sh"
cp tests/data/cal/h200x2/allreduce.csv "$T/ar.csv"
"$SP" campaign --grid "batch=64,128,256" --out "$T/r" --train "$T/train.sh" --run > "$T/run.txt" 2>&1 ||
	fail "--run failed: $(tail -5 "$T/run.txt")"
[ "$(ls "$T/r/csv" | wc -l)" -eq 3 ] || fail "--run: expected 3 CSVs"
grep -q "leave-one-out error" "$T/run.txt" || fail "--run: no leave-one-out error printed"
[ -s "$T/r/profile.csv" ] && [ -s "$T/r/parity.csv" ] || fail "--run: profile or parity CSV missing"
grep -qi nan "$T/r/profile.csv" && fail "--run: NaN in the profile"

# recorded H100 runs (bench/NOTES.md issue 27, session 9): synthetic at batch 64 and 128, jpeg-gpu at 64. The
# decoder-bound jpeg-gpu point gets its own parameter (gpu_decode_img_s) and leaves the compute fit as the two
# synthetic points alone make it.
"$SP" calibrate --measurements tests/data/cal/h100-jpeg --out "$T/all.csv" > "$T/all.txt" 2>&1 || fail "calibrate: $(tail -3 "$T/all.txt")"
mkdir "$T/syn" && cp tests/data/cal/h100-jpeg/*synthetic* "$T/syn/"
"$SP" calibrate --measurements "$T/syn" --out "$T/syn.csv" > "$T/syn.txt" 2>&1 || fail "calibrate (synthetic only) failed"
eff() { awk '$1 == "eff_peak" { print $3 }' "$1"; }
[ -n "$(eff "$T/all.txt")" ] && [ "$(eff "$T/all.txt")" = "$(eff "$T/syn.txt")" ] ||
	fail "the jpeg-gpu point moved eff_peak: $(eff "$T/all.txt") vs $(eff "$T/syn.txt") without it"
awk '$1 == "gpu_decode_img_s" { ok = ($3 > 4700 && $3 < 4713) } END { exit !ok }' "$T/all.txt" ||
	fail "gpu_decode_img_s not fitted to the jpeg-gpu point (4706 img/s): $(grep gpu_decode "$T/all.txt")"
echo "campaign_smoke: ok"
