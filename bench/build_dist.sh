#!/bin/sh
# Builds the data-parallel layer's test driver build/dist/test_dist (exec/ex_dist*.c, ex_ckpt.c,
# ex_dist_kernels.cu, tests/gpu/test_dist.c) without the rest of exec/, so the layer can be tested
# on a GPU machine while the single-GPU engine is still growing.
#   MPI_CFLAGS / MPI_LIBS   override `mpicc --showme:compile` / `--showme:link`
#   CUDA_HOME               default /usr/local/cuda;  CUDNN_INC: extra include dir for cudnn.h
# SPDX-License-Identifier: GPL-3.0-or-later
set -e
cd "$(dirname "$0")/.."
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$(command -v nvcc || echo $CUDA_HOME/bin/nvcc)}
MPI_CFLAGS=${MPI_CFLAGS:-$(mpicc --showme:compile)}
MPI_LIBS=${MPI_LIBS:-$(mpicc --showme:link)}
OUT=build/dist
mkdir -p $OUT/lib
rm -f $OUT/*.o $OUT/test_dist
pydir() { python3 -c "import $1 as m; print(list(m.__path__)[0])" 2>/dev/null; }
# nccl.h and libnccl: system, CUDA tree, or the nvidia-nccl wheel next to PyTorch
if [ -z "${NCCL_INC:-}" ]; then
	for d in /usr/include $CUDA_HOME/include "$(pydir nvidia.nccl)/include"; do
		[ -f "$d/nccl.h" ] && NCCL_INC=$d && break
	done
fi
if [ -z "${NCCL_LIB:-}" ]; then
	for d in /usr/lib/x86_64-linux-gnu $CUDA_HOME/lib64 $CUDA_HOME/lib "$(pydir nvidia.nccl)/lib"; do
		if [ -e "$d/libnccl.so" ] || [ -e "$d/libnccl.so.2" ]; then NCCL_LIB=$d; break; fi
	done
fi
[ -e "${NCCL_LIB:-/nonexistent}/libnccl.so" ] || ln -sf "$NCCL_LIB/libnccl.so.2" $OUT/lib/libnccl.so
if [ -z "${CUDNN_INC:-}" ]; then
	for d in /usr/include/x86_64-linux-gnu /usr/include $CUDA_HOME/include "$(pydir nvidia.cudnn)/include"; do
		[ -f "$d/cudnn.h" ] && CUDNN_INC=$d && break
	done
fi
echo "build_dist: nvcc $NVCC; nccl.h in ${NCCL_INC:-?}; libnccl in ${NCCL_LIB:-?}; cudnn.h in ${CUDNN_INC:-?}"
[ "${CUDNN_INC:-}" = /usr/include ] && CUDNN_INC=
[ "${NCCL_INC:-}" = /usr/include ] && NCCL_INC=
INC="-I. -I$CUDA_HOME/include ${CUDNN_INC:+-I$CUDNN_INC} ${NCCL_INC:+-I$NCCL_INC} $MPI_CFLAGS"
# libcsv/zlib headers: the system's, else the carried .gpudeps/ (see bench/gpu_single.sh)
if [ ! -f /usr/include/csv.h ] && [ -d .gpudeps ]; then
	export C_INCLUDE_PATH=$PWD/.gpudeps/include LIBRARY_PATH=$PWD/.gpudeps/lib
fi
CF="-std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wshadow $INC"
# ex_net.c / ex_kernels.cu: the single-GPU engine (exec engineer's), compiled as they are
HOST=""
for f in exec/ex_dist.c exec/ex_dist_bench.c exec/ex_ckpt.c exec/ex_net.c common/*.c model/*.c; do
	o=$OUT/$(echo "$f" | tr / _ | sed 's/\.c$/.o/')
	${CC:-cc} $CF -c $f -o $o &
	pids="${pids:-} $!"
	HOST="$HOST $o"
done
${CC:-cc} $CF -DEX_DIST_GIT_SHA="\"${SCALEPLAN_GIT_SHA:-$(sh tools/git_sha.sh)}\"" \
	-c tests/gpu/test_dist.c -o $OUT/test_dist.o &
pids="$pids $!"
NVF="-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I. -isystem $CUDA_HOME/include ${CUDNN_INC:+-isystem $CUDNN_INC}"
$NVCC $NVF -c exec/ex_dist_kernels.cu -o $OUT/ex_dist_kernels.o &
pids="$pids $!"
$NVCC $NVF -c exec/ex_kernels.cu -o $OUT/ex_kernels.o &
pids="$pids $!"
for j in $pids; do wait $j || { echo "build_dist: a compile failed" >&2; exit 1; }; done
${CC:-cc} -o $OUT/test_dist $OUT/test_dist.o $HOST $OUT/ex_dist_kernels.o $OUT/ex_kernels.o \
	-L$CUDA_HOME/lib64 -L$OUT/lib ${NCCL_LIB:+-L$NCCL_LIB -Wl,-rpath,$NCCL_LIB} -Wl,-rpath,$CUDA_HOME/lib64 \
	-lnccl -lcudnn -lcublas -lcudart $MPI_LIBS -lcsv -lz -lm -lpthread -lstdc++
echo "built $OUT/test_dist"
