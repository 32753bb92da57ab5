#!/bin/sh
# Packs what bench/gpu.sh needs on a device machine that lacks it, from this machine's Debian packages
# (tools/deps.sh installs them): headers and static libraries of libcsv, zlib, libjpeg-turbo and
# TurboJPEG (the GPU image has CUDA, cuDNN, NCCL and PyTorch but not these), and Open MPI's header and
# shared libraries for linking scaleplan-train (bench/launch_local.sh starts the ranks there: no mpirun).
# Writes build-deps/ (ignored by git, about 8 MB); name it in the device call's carry list.
#   sh tools/gpu_carry.sh
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
D=build-deps
rm -rf "$D"
mkdir -p "$D/include" "$D/lib" "$D/mpi/include" "$D/mpi/lib"
A=/usr/lib/x86_64-linux-gnu
for h in csv.h zlib.h zconf.h turbojpeg.h jpeglib.h jerror.h jmorecfg.h; do
	cp "/usr/include/$h" "$D/include/" 2>/dev/null || { echo "gpu_carry: /usr/include/$h missing (sh tools/deps.sh)" >&2; exit 2; }
done
cp /usr/include/x86_64-linux-gnu/jconfig.h "$D/include/"
for l in libcsv.a libz.a libturbojpeg.a libjpeg.a; do
	cp "$A/$l" "$D/lib/" || { echo "gpu_carry: $A/$l missing (sh tools/deps.sh)" >&2; exit 2; }
done
cp -r /usr/lib/x86_64-linux-gnu/openmpi/include/. "$D/mpi/include/"
for l in libmpi.so.40 libopen-rte.so.40 libopen-pal.so.40 libhwloc.so.15 libevent_core-2.1.so.7 \
	libevent_pthreads-2.1.so.7 libudev.so.1; do
	cp -L "$A/$l" "$D/mpi/lib/"
done
du -sh "$D"
