#!/bin/sh
# scaleplan-train on two nodes with Open MPI: one process per GPU, MPI only to start up (the NCCL id
# goes out by MPI_Bcast), gradients over NCCL (InfiniBand, RoCE or TCP - NCCL picks, the variables
# below steer it). Writes run.csv (one row per rank and per run) and checkpoints in ./ckpt.
#   HOSTS=nodeA,nodeB GPUS=8 NET=ib|roce|tcp IFACE=eth0 examples/mpirun_two_nodes.sh [extra options]
# The binary and the data path must exist at the same place on both nodes (shared file system).
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
HOSTS=${HOSTS:-node1,node2}
GPUS=${GPUS:-8}
NET=${NET:-ib}
IFACE=${IFACE:-eth0}
TRAIN=${SCALEPLAN_TRAIN:-$(pwd)/build/scaleplan-train}
A=${HOSTS%%,*}
B=${HOSTS##*,}
case $NET in
ib)   NCCL="-x NCCL_IB_HCA=${NCCL_IB_HCA:-mlx5}" ;;                         # InfiniBand verbs
roce) NCCL="-x NCCL_IB_HCA=${NCCL_IB_HCA:-mlx5} -x NCCL_IB_GID_INDEX=${NCCL_IB_GID_INDEX:-3}" ;;  # RoCE v2
tcp)  NCCL="-x NCCL_IB_DISABLE=1 -x NCCL_SOCKET_IFNAME=$IFACE" ;;           # plain sockets
*)    echo "NET must be ib, roce or tcp" >&2; exit 1 ;;
esac
mkdir -p ckpt
resume=""
[ -f ckpt/ckpt.bin ] && resume="--resume"
# MPI's own traffic (start-up only) stays on TCP so it never competes with NCCL for the HCA.
exec mpirun -np $((2 * GPUS)) -H "$A:$GPUS,$B:$GPUS" --map-by "ppr:$GPUS:node" --bind-to none \
	--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include "$IFACE" --mca oob_tcp_if_include "$IFACE" \
	-x PATH -x LD_LIBRARY_PATH -x NCCL_DEBUG=${NCCL_DEBUG:-WARN} -x NCCL_SOCKET_IFNAME=$IFACE $NCCL \
	"$TRAIN" --data synthetic --batch-per-gpu 256 --precision bf16 --grad-precision bf16 \
	--bucket-mb 25 --nccl-timeout 300 --ckpt-dir ckpt --ckpt-every-min 30 $resume \
	--csv run.csv "$@"
