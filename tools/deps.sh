#!/bin/sh
# Installs the Debian packages scaleplan needs, only those missing; does nothing when all are present.
#   tools/deps.sh plan   what the planner (build/scaleplan) and its charts need: `make plan`
#   tools/deps.sh        that and what the tests need besides: `make test`
# The planner: GSL, libcsv, Jansson, zlib, libjpeg-turbo (exec/data/ is in the library), libxlsxwriter-dev
# (report's costs.xlsx), gnuplot-nox (charts).
# The tests besides: clang, libclang-rt-14-dev (make fuzz, make test-san); Open MPI (mpicc: the engine's
# data-parallel build where the GPU toolchain is, exec/module.mk); dataset-fashion-mnist (exec/data/ tests). chromium: tests/report_browser.sh renders the report headless and
# checks its images and tables, tests/whatif_browser.sh runs whatif.html. emscripten: report's whatif.html
# (compare compiled to WebAssembly). libreoffice-calc-nogui: tests/whatif_xlsx.sh recalculates costs.xlsx
# headless. slurm-wlm, munge: tests/slurm_smoke.sh runs the campaign's Slurm script under a one-node Slurm it
# starts.
# SPDX-License-Identifier: GPL-3.0-or-later
set -e
PLAN_PKGS="pkg-config libgsl-dev libcsv-dev libjansson-dev zlib1g-dev libjpeg62-turbo-dev libturbojpeg0-dev libxlsxwriter-dev gnuplot-nox"
TEST_PKGS="libopenmpi-dev openmpi-bin dataset-fashion-mnist clang libclang-rt-14-dev chromium slurm-wlm munge emscripten libreoffice-calc-nogui"
case "${1:-all}" in
plan) PKGS=$PLAN_PKGS ;;
all) PKGS="$PLAN_PKGS $TEST_PKGS" ;;
*) echo "usage: tools/deps.sh [plan]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
