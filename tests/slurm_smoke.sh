#!/bin/sh
# The campaign's Slurm script under a real Slurm: the test starts a private one-node Slurm (Debian's
# slurm-wlm: munged, slurmctld and slurmd on this machine, their own ports, files and socket in a temporary
# folder; the node declares 2 GPUs whose device files are /dev/null and /dev/zero), writes a campaign whose runs use
# tests/lib/stand_in_train.sh as scaleplan-train (it writes the CSV a real run writes, one per rank), submits
# campaign.sbatch with sbatch --wait and checks what came back: every run's CSVs (2 ranks through srun),
# runs.csv, and a run that stops ended at its time limit and skipped. Where Slurm is missing or cannot start
# here, the test says so and skips (exit 0). Ends only the daemons it started, by their pid files.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SP=${SCALEPLAN:-./build/scaleplan}
skip() { echo "slurm_smoke: skipped: $*"; exit 0; }
fail() { echo "slurm_smoke: FAIL: $*" >&2; [ -f "$T/slurmctld.log" ] && tail -5 "$T/slurmctld.log" >&2; exit 1; }
for c in slurmctld slurmd sbatch sinfo munged; do
	command -v $c >/dev/null 2>&1 || [ -x /usr/sbin/$c ] || skip "$c not installed (Debian: slurm-wlm, munge; tools/deps.sh)"
done
PATH=$PATH:/usr/sbin
T=$(mktemp -d /tmp/slurm_smoke.XXXXXX)
stop() {
	for p in slurmd slurmctld munged; do
		[ -s "$T/$p.pid" ] && kill "$(cat "$T/$p.pid")" 2>/dev/null
	done
	sleep 1
	rm -rf "$T"
}
trap stop EXIT
host=$(hostname -s)
# ports: two free ones above 20000 (from the pid, so parallel runs differ)
p1=$((20000 + ($$ % 20000) * 2))
p2=$((p1 + 1))
mkdir -p "$T/state" "$T/spool" "$T/munge"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
chmod 0400 "$T/munge.key"
chmod 0700 "$T/munge"
munged --force --socket="$T/munge/sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
	--log-file="$T/munged.log" --seed-file="$T/munge.seed" >"$T/munged.out" 2>&1 ||
	skip "munged would not start here: $(head -c 300 "$T/munged.out")"
cat >"$T/slurm.conf" <<EOF
ClusterName=sptest
SlurmctldHost=$host
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/sock
SlurmctldPort=$p1
SlurmdPort=$p2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
MinJobAge=6
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=2 Gres=gpu:2 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# two stand-in GPU devices (slurmd's gpu plugin counts device files; no GPU is used)
printf 'NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n' "$host" "$host" >"$T/gres.conf"
export SLURM_CONF=$T/slurm.conf
slurmctld -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 || skip "slurmctld would not start here: $(head -c 300 "$T/slurmctld.out")"
slurmd -f "$SLURM_CONF" >"$T/slurmd.out" 2>&1 || skip "slurmd would not start here: $(head -c 300 "$T/slurmd.out")"
ok=0
for i in $(seq 1 30); do
	if sinfo -h -o %t 2>/dev/null | grep -q idle; then
		ok=1
		break
	fi
	sleep 1
done
[ $ok -eq 1 ] || skip "the node did not come up in 30 s ($(sinfo -h -o '%t %E' 2>&1 | head -1); $(tail -2 "$T/slurmd.log" 2>/dev/null))"

# a campaign of 1 and 2 GPUs; the 2-GPU batch-128 run stops (the stand-in sleeps) and must be ended at 4 s
"$SP" campaign --grid "gpus_per_node=1,2;batch=64,128" --out "$T/c" --run-timeout 4 \
	--train "$PWD/tests/lib/stand_in_train.sh" >"$T/campaign.txt" 2>&1 || fail "campaign not written: $(cat "$T/campaign.txt")"
(cd "$T" && SRUN_MPI=none STAND_IN_HANG=g2x1_b128_synthetic_nvlink timeout 120 sbatch --wait -o "$T/job.out" \
	"$T/c/campaign.sbatch") >"$T/sbatch.txt" 2>&1
rc=$?
grep -q "Submitted batch job" "$T/sbatch.txt" || fail "sbatch: $(cat "$T/sbatch.txt")"
[ $rc -ne 0 ] || fail "the job exited 0 with a stopped run in it"
grep -q "g2x1_b128_synthetic_nvlink stopped at its limit of 4 s; skipped" "$T/job.out" || fail "stopped run: $(cat "$T/job.out")"
grep -q '^g2x1_b128_synthetic_nvlink,timeout,124,' "$T/c/runs.csv" || fail "runs.csv: $(cat "$T/c/runs.csv")"
[ "$(grep -c ',ok,0,' "$T/c/runs.csv")" -eq 3 ] || fail "runs.csv: not 3 runs ok: $(cat "$T/c/runs.csv")"
for f in g1x1_b64_synthetic_none.csv g1x1_b128_synthetic_none.csv g2x1_b64_synthetic_nvlink.csv \
	g2x1_b64_synthetic_nvlink.rank1.csv; do
	[ -s "$T/c/csv/$f" ] || fail "$f not written by the job (csv/ holds: $(ls "$T/c/csv" | tr '\n' ' '))"
done
[ ! -e "$T/c/csv/g2x1_b128_synthetic_nvlink.csv" ] || fail "the stopped run left a CSV"
# the 2-rank run's CSV came from 2 tasks of one srun step: gpus 2, one node
awk -F, 'NR == 2 { exit !($5 == 1 && $7 == 2) }' "$T/c/csv/g2x1_b64_synthetic_nvlink.csv" ||
	fail "2-rank CSV: nodes/gpus not 1/2: $(sed -n 2p "$T/c/csv/g2x1_b64_synthetic_nvlink.csv")"
echo "slurm_smoke: ok (slurm $(sinfo -V 2>/dev/null | awk '{print $2}'), 4 runs, one stopped at its limit)"
