#!/bin/sh
# `scaleplan campaign`: scripts for a grid of runs (mpirun and Slurm), bad grids refused with
# nothing written, emulated transport means nodes, the default grid, a time limit on every run (a stuck run
# recorded and skipped), scripts that run from any folder, an existing campaign kept unless --force, --run
# without a GPU exits 2; --run with a stand-in scaleplan-train that writes a recorded measurement CSV, then
# the fit (leave-one-out error, profile) and the parity comparison on those CSVs.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
SP=${SCALEPLAN:-./build/scaleplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "campaign_smoke: $*" >&2; exit 1; }

# 2 GPUs per node x 1,2 nodes x batch 64,128,256 x synthetic/jpeg-gpu x nvlink/emulated, plus one GPU
"$SP" campaign --grid "gpus_per_node=1,2;nodes=1,2;batch=64,128,256;data=synthetic,jpeg-gpu;transport=nvlink,emulated" \
	--data-dir /data/inlike --out "$T/c" --train /opt/scaleplan-train --repeat 1 > "$T/out.txt" || fail "dry run failed"
# 1 GPU: 3 batches x 2 data once; 1x2 and 2x2: 3 x 2 x 2 transports; 2x1: nvlink only (its emulated points
# emulate one node per GPU: the 1x2 emulated runs, listed once)
[ "$(tail -n +2 "$T/c/grid.csv" | wc -l)" -eq 36 ] || fail "expected 36 runs, grid.csv has $(tail -n +2 "$T/c/grid.csv" | wc -l)"
grep -q '^g1x2_b64_synthetic_emulated,1,2,2,64,synthetic,emulated$' "$T/c/grid.csv" || fail "1x2 emulated point missing"
grep -q 'g2x1_b[0-9]*_[a-z-]*_emulated' "$T/c/grid.csv" && fail "an emulated run of one node is in the grid"
grep -q -- '--emulate-nodes 1\b' "$T/c/run_mpirun.sh" && fail "--emulate-nodes 1 written (no emulation)"
[ -x "$T/c/run_mpirun.sh" ] && [ -x "$T/c/campaign.sbatch" ] || fail "scripts missing or not executable"
sh -n "$T/c/run_mpirun.sh" || fail "run_mpirun.sh: shell syntax"
bash -n "$T/c/campaign.sbatch" || fail "campaign.sbatch: shell syntax"
grep -q '^run g2x2_b128_jpeg-gpu_nvlink [0-9]* mpirun -np 4 --map-by ppr:2:node .*--hostfile.*--data-path jpeg-gpu' "$T/c/run_mpirun.sh" ||
	fail "no 4-rank mpirun line over 2 nodes for jpeg-gpu"
grep -q '^run g2x2_b64_synthetic_emulated [0-9]* ${LAUNCH:-mpirun -np 4 --map-by ppr:4:node .*--nccl-mode emulated --emulate-nodes 2' "$T/c/run_mpirun.sh" ||
	fail "emulated nodes not on one host"
grep -q '^run g1x1_b256_synthetic_none [0-9]* "$TRAIN" --batch-per-gpu 256' "$T/c/run_mpirun.sh" || fail "1 GPU not run alone"
grep -q '^#SBATCH --nodes=2$' "$T/c/campaign.sbatch" || fail "sbatch: --nodes"
grep -q '^run g2x2_b256_synthetic_nvlink [0-9]* srun --mpi=${SRUN_MPI:-pmix} --nodes=2 --ntasks=4 --ntasks-per-node=2 ${SRUN_GPUS---gpus-per-node=2}' \
	"$T/c/campaign.sbatch" || fail "sbatch: srun line of 2 nodes x 2 GPUs"
[ "$(grep -c '^run ' "$T/c/campaign.sbatch")" -eq 36 ] || fail "sbatch: not 36 runs"
# every run line carries its limit: twice (60 s of start-up + its images at the throughput per GPU that
# `scaleplan predict` gives the run's scenario on --system). The folder is not there, so a JPEG run counts
# ImageNet's 1,331,167 images over its ranks, 4 epochs (the default).
limit_want() { # IMAGES_PER_GPU PREDICT-ARGS...: the limit from predict's throughput_img_s and gpus
	img=$1
	shift
	"$SP" predict --system dgxh100 --format csv "$@" | awk -F, -v img="$img" 'NR == 2 {
		t = 2 * (60 + img / ($9 / $5)); if (t < 120) t = 120; printf "%d\n", t + 0.5 }'
}
"$SP" campaign --grid "gpus_per_node=1,2;nodes=1,2;batch=64,256;data=synthetic,jpeg-gpu;transport=nvlink" \
	--data-dir /data/inlike --out "$T/p" --system dgxh100 > /dev/null || fail "--system dgxh100 refused"
w=$(limit_want $((70 * 256)) --gpus-per-node 1 --batch-per-gpu 256 --data synthetic)
grep -q "^run g1x1_b256_synthetic_none $w " "$T/p/run_mpirun.sh" ||
	fail "synthetic run limit: want $w, got $(grep -o '^run g1x1_b256_synthetic_none [0-9]*' "$T/p/run_mpirun.sh")"
w=$(limit_want $((4 * 1331167 / 4)) --gpus-per-node 2 --nodes 2 --batch-per-gpu 64 --data gpu)
grep -q "^run g2x2_b64_jpeg-gpu_nvlink $w " "$T/p/run_mpirun.sh" ||
	fail "JPEG run limit: want $w, got $(grep -o '^run g2x2_b64_jpeg-gpu_nvlink [0-9]*' "$T/p/run_mpirun.sh")"
# without --system: the least throughput of any system in the database, so no limit below dgxh100's
for id in g1x1_b256_synthetic_none g2x2_b64_jpeg-gpu_nvlink; do
	a=$(grep "^run $id " "$T/c/run_mpirun.sh" | cut -d' ' -f3) b=$(grep "^run $id " "$T/p/run_mpirun.sh" | cut -d' ' -f3)
	[ "$a" -gt "$b" ] || fail "$id: default limit $a not above dgxh100's $b"
done
if "$SP" campaign --out "$T/bad" --system nosuch 2> "$T/err.txt"; then fail "--system nosuch accepted"; fi
[ ! -e "$T/bad" ] || fail "--system nosuch: output written"

# an existing campaign is kept: exit 1 without --force, written over with it
if "$SP" campaign --grid "batch=64" --out "$T/c" 2> "$T/err.txt"; then fail "--out onto a campaign accepted"; fi
grep -q "holds a campaign already" "$T/err.txt" || fail "existing campaign: $(cat "$T/err.txt")"
[ "$(tail -n +2 "$T/c/grid.csv" | wc -l)" -eq 36 ] || fail "existing campaign changed without --force"
"$SP" campaign --grid "batch=64" --out "$T/c" --force > /dev/null || fail "--force refused"
[ "$(tail -n +2 "$T/c/grid.csv" | wc -l)" -eq 1 ] || fail "--force did not write the new grid"

# the default grid (no --grid) of a host of 2 GPUs: 6 synthetic runs, the 2 emulated ones twice (8); 16 with a
# folder (jpeg-gpu too), the limits from its images; a host of 4: 1, 2, 4 GPUs and 2 emulated nodes of 2
"$SP" campaign --out "$T/d" --host-gpus 2 > "$T/d.txt" || fail "default grid refused"
[ "$(tail -n +2 "$T/d/grid.csv" | wc -l)" -eq 8 ] || fail "default grid without a folder: not 8 runs"
grep -q '^g1x2_b256_synthetic_emulated_r2,1,2,2,256,synthetic,emulated$' "$T/d/grid.csv" || fail "no repeat of an emulated run"
grep -q 'each emulated point run 2 times' "$T/d.txt" || fail "the repeats not said: $(cat "$T/d.txt")"
"$SP" campaign --out "$T/d4" --host-gpus 4 --repeat 1 > "$T/d4.txt" || fail "default grid of 4 GPUs refused"
[ "$(tail -n +2 "$T/d4/grid.csv" | cut -d, -f1 | tr '\n' ' ')" = "g1x1_b256_synthetic_none g2x1_b256_synthetic_nvlink \
g1x2_b256_synthetic_emulated g4x1_b256_synthetic_nvlink g1x4_b256_synthetic_emulated g2x2_b256_synthetic_emulated " ] ||
	fail "default grid of 4 GPUs: $(cut -d, -f1 "$T/d4/grid.csv" | tr '\n' ' ')"
grep -q 'default grid of a host of 4 GPUs' "$T/d4.txt" || fail "the grid chosen not said: $(cat "$T/d4.txt")"
mkdir -p "$T/f/train/n1" "$T/f/val/n1"
for i in 1 2 3 4 5 6 7 8 9 10; do : > "$T/f/train/n1/$i.JPEG"; done
: > "$T/f/val/n1/1.JPEG"
"$SP" campaign --out "$T/e" --host-gpus 2 --data-dir "$T/f" --epochs 3 > "$T/e.txt" || fail "default grid with a folder refused"
[ "$(tail -n +2 "$T/e/grid.csv" | wc -l)" -eq 16 ] || fail "default grid with a folder: not 16 runs"
grep -q "10 train JPEGs give 0 batches an epoch a rank.*need 25600" "$T/e.txt" || fail "small folder not said: $(cat "$T/e.txt")"
grep -q '^run g1x2_b128_jpeg-gpu_emulated 120 ' "$T/e/run_mpirun.sh" || fail "small-folder JPEG run: not the 120 s floor"
"$SP" campaign --out "$T/e2" --host-gpus 2 --data-dir "$T/f" --run-timeout 45 > /dev/null || fail "--run-timeout refused"
[ "$(grep -c '^run [^ ]* 45 ' "$T/e2/run_mpirun.sh")" -eq 16 ] || fail "--run-timeout 45 not on every run"
for v in 0 -3 x 1e9; do
	if "$SP" campaign --out "$T/bad" --run-timeout "$v" 2> "$T/err.txt"; then fail "--run-timeout $v accepted"; fi
	[ ! -e "$T/bad" ] || fail "--run-timeout $v: output written"
done

# the scripts run from any folder, through a local launcher, with a stand-in scaleplan-train: a run that
# stops is ended at its limit, a failed one recorded, both skipped; the others write their CSVs
"$SP" campaign --grid "gpus_per_node=1,2;batch=64,128;transport=nvlink,emulated" --out "$T/s" --run-timeout 3 --repeat 1 \
	--train "$PWD/tests/lib/stand_in_train.sh" > /dev/null || fail "stand-in campaign not written"
(cd / && LAUNCH="$OLDPWD/bench/launch_local.sh" STAND_IN_HANG=g2x1_b128_synthetic_nvlink STAND_IN_FAIL=g1x1_b64_synthetic_none \
	sh "$T/s/run_mpirun.sh") > "$T/s.txt" 2>&1 && fail "a campaign with a stuck and a failed run exited 0"
grep -q "g2x1_b128_synthetic_nvlink stopped at its limit of 3 s; skipped" "$T/s.txt" || fail "stuck run: $(cat "$T/s.txt")"
grep -q "g1x1_b64_synthetic_none failed (exit 2); skipped" "$T/s.txt" || fail "failed run not named"
grep -q '^g2x1_b128_synthetic_nvlink,timeout,124,[3-9],3$' "$T/s/runs.csv" || fail "runs.csv: $(cat "$T/s/runs.csv")"
grep -q '^g1x1_b64_synthetic_none,failed,2,' "$T/s/runs.csv" || fail "runs.csv: failed run not recorded"
[ "$(grep -c ',ok,0,' "$T/s/runs.csv")" -eq 4 ] || fail "runs.csv: not 4 runs ok"
[ -f "$T/s/csv/g1x2_b128_synthetic_emulated.csv" ] && [ -f "$T/s/csv/g1x2_b128_synthetic_emulated.rank1.csv" ] ||
	fail "emulated run: CSVs of both ranks missing (in $(ls "$T/s/csv"))"
[ ! -f "$T/s/csv/g2x1_b128_synthetic_nvlink.csv" ] || fail "the stuck run left a CSV"

# --run needs a GPU: without one (nvidia-smi fails), exit 2 after writing the scripts
mkdir -p "$T/bin" && printf '#!/bin/sh\nexit 9\n' > "$T/bin/nvidia-smi" && chmod +x "$T/bin/nvidia-smi"
rc=0
PATH="$T/bin:$PATH" "$SP" campaign --grid "batch=64" --out "$T/nogpu" --run > "$T/nogpu.txt" 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "--run without a GPU: exit $rc, expected 2"
grep -q "no NVIDIA GPU here" "$T/nogpu.txt" || fail "--run without a GPU: $(cat "$T/nogpu.txt")"
printf '#!/bin/sh\necho "GPU 0: stand-in"\n' > "$T/bin/nvidia-smi"

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
PATH="$T/bin:$PATH" "$SP" campaign --grid "batch=64,128,256" --out "$T/r" --train "$T/train.sh" --run > "$T/run.txt" 2>&1 ||
	fail "--run failed: $(tail -5 "$T/run.txt")"
[ "$(ls "$T/r/csv" | wc -l)" -eq 3 ] || fail "--run: expected 3 CSVs"
grep -q "leave-one-out error" "$T/run.txt" || fail "--run: no leave-one-out error printed"
[ -s "$T/r/profile.csv" ] && [ -s "$T/r/parity.csv" ] || fail "--run: profile or parity CSV missing"
grep -qi nan "$T/r/profile.csv" && fail "--run: NaN in the profile"

# recorded H100 runs (tests/data/cal/h100-jpeg): synthetic at batch 64 and 128, jpeg-gpu at 64. The
# decoder-bound jpeg-gpu point gets its own parameter (gpu_decode_img_s) and leaves the compute fit as the two
# synthetic points alone make it.
"$SP" calibrate --measurements tests/data/cal/h100-jpeg --out "$T/all.csv" > "$T/all.txt" 2>&1 || fail "calibrate: $(tail -3 "$T/all.txt")"
mkdir "$T/syn" && cp tests/data/cal/h100-jpeg/*synthetic* "$T/syn/"
"$SP" calibrate --measurements "$T/syn" --out "$T/syn.csv" > "$T/syn.txt" 2>&1 || fail "calibrate (synthetic only) failed"
eff() { awk '$1 == "compute_eff" { print $3 }' "$1"; }
[ -n "$(eff "$T/all.txt")" ] && [ "$(eff "$T/all.txt")" = "$(eff "$T/syn.txt")" ] ||
	fail "the jpeg-gpu point moved compute_eff: $(eff "$T/all.txt") vs $(eff "$T/syn.txt") without it"
# the GPU's decode term (per image on the rank's path, model_gpu_decode_rank_img_s) is what the 4706 img/s of
# the jpeg-gpu point lost against its step alone: exactly determined, faster than the run it slows; no
# parameter per rank count
awk '$1 == "gpu_decode_img_s" { ok = ($3 > 4706 && /exact/) } END { exit !ok }' "$T/all.txt" ||
	fail "gpu_decode_img_s not fitted to the jpeg-gpu point (4706 img/s): $(grep gpu_decode "$T/all.txt")"
grep -q "per-host" "$T/all.txt" && fail "a parameter scoped to a ranks-per-host count: $(grep per-host "$T/all.txt")"
# the 4x H200 campaign of 2026-11-28 (bench/data): its emulated points were run twice; calibrate reports the
# error beyond each point's repeat spread beside the plain one (it can only be smaller), with no parameter per
# ranks-a-host count and the host's shared decode stage fitted (1, 2 and 4 ranks a host)
"$SP" calibrate --measurements bench/data/h200x4-2026-11-28/campaign/csv --out "$T/h4.csv" > "$T/h4.txt" 2>&1 ||
	fail "calibrate h200x4: $(tail -3 "$T/h4.txt")"
grep -q "beyond the repeats' spread (12 points run more than once)" "$T/h4.txt" || fail "no repeat spread: $(tail -4 "$T/h4.txt")"
awk '/^fit error/ { f = $5 + 0 } /^beyond the repeats/ { b = $(NF - 2) + 0 } END { exit !(b > 0 && b < f) }' "$T/h4.txt" ||
	fail "error beyond the spread not below the plain error: $(grep -E '^fit error|^beyond' "$T/h4.txt")"
grep -q "per-host" "$T/h4.txt" && fail "h200x4: a parameter per ranks-a-host count"
# the interval of a leave-one-out prediction counts each point beyond its repeats' half-range (and widens that
# point's own by it): narrower than with no spread counted, on this campaign whose emulated pairs differ by 23-26%
grep "^90% interval of a leave-one-out" "$T/h4.txt" | awk '{ n = split($0, f, " "); w = $9 + 0; for (i = 1; i <= n; i++) if (f[i] == "counted:") p = f[i + 3] + 0; exit !(w > 0 && p > w) }' ||
	fail "h200x4: the repeat spread does not narrow the interval: $(grep '^90% interval' "$T/h4.txt")"
grep -q "^host_input_img_s_core .*fitted" "$T/h4.txt" || fail "h200x4: host_input_img_s_core not fitted"
# predict reads the fitted value (a profile row), so that predict and calibrate use the same host stage
grep -q "^host_input_img_s_core," "$T/h4.csv" || fail "h200x4: no host_input_img_s_core row for predict"
echo "campaign_smoke: ok"
