#!/bin/sh
# Fetches libcsv's C source from Debian (its source package, the version the native build links) into DIR,
# for the WebAssembly build of whatif.html: Emscripten's own ports download from the internet, Debian's
# source packages come from the apt mirror. apt runs with a private deb-src list and state under DIR, so
# the machine's apt configuration is left as it is. Prints DIR/libcsv.c's path; exit 2 when it cannot.
#   tools/wasm_libcsv.sh DIR
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
dir=$1
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
if [ -f "$dir/src/libcsv.c" ]; then echo "$dir/src/libcsv.c"; exit 0; fi
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=$( (. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}") 2>/dev/null || echo bookworm)
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/get"
echo "deb-src $mirror $suite main" > "$dir/apt/sources.list"
apt_opts="-o Dir::Etc::SourceList=$dir/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
  -o Dir::State::Lists=$dir/apt/lists -o Dir::Cache=$dir/apt/cache -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
if ! apt-get -qq $apt_opts update >"$dir/get/log" 2>&1 ||
	! (cd "$dir/get" && apt-get -qq $apt_opts source libcsv >>log 2>&1); then
	echo "wasm_libcsv: could not fetch Debian's libcsv source (see $dir/get/log)" >&2
	exit 2
fi
src=$(ls -d "$dir"/get/libcsv-*/ | head -n 1)
mkdir -p "$dir/src"
cp "$src/libcsv.c" "$src/csv.h" "$dir/src/"
echo "$dir/src/libcsv.c"
