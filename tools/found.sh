#!/bin/sh
# Announces which toolchains and libraries the build found (exec/ needs the GPU ones).
# SPDX-License-Identifier: GPL-3.0-or-later
have() { if [ -n "$2" ]; then echo "  $1: $2"; else echo "  $1: not found"; fi; }
NVCC=$(command -v nvcc 2>/dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
CUDNN=$(ls /usr/include/x86_64-linux-gnu/cudnn_version*.h /usr/include/cudnn_version*.h /usr/local/cuda/include/cudnn_version*.h 2>/dev/null | head -1)
NCCL=$(ls /usr/include/nccl.h /usr/local/cuda/include/nccl.h 2>/dev/null | head -1)
MPI=$(command -v mpicc 2>/dev/null)
GSL=$(pkg-config --modversion gsl 2>/dev/null)
CSV=$(ls /usr/include/csv.h 2>/dev/null)
echo "scaleplan build found:"
have nvcc "$NVCC"; have cuDNN "$CUDNN"; have NCCL "$NCCL"; have MPI "$MPI"; have GSL "$GSL"; have libcsv "$CSV"
