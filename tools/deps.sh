#!/bin/sh
# Installs the Debian packages scaleplan needs, only those missing; does nothing when all are present.
# chromium: tests/report_browser.sh renders the report headless and checks its images and tables.
# emscripten: report's whatif.html (compare compiled to WebAssembly); libxlsxwriter-dev: report's costs.xlsx;
# libreoffice-calc-nogui: tests/whatif_xlsx.sh recalculates costs.xlsx headless (chromium runs whatif.html).
# slurm-wlm, munge: tests/slurm_smoke.sh runs the campaign's Slurm script under a one-node Slurm it starts.
# SPDX-License-Identifier: GPL-3.0-or-later
set -e
PKGS="pkg-config libgsl-dev libcsv-dev libjansson-dev libopenmpi-dev openmpi-bin libjpeg62-turbo-dev libturbojpeg0-dev zlib1g-dev dataset-fashion-mnist clang libclang-rt-14-dev gnuplot-nox chromium slurm-wlm munge emscripten libxlsxwriter-dev libreoffice-calc-nogui"
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
