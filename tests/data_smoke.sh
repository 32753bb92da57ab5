#!/bin/sh
# Smoke test of the data programs: scaleplan-mkjpeg makes a small JPEG folder from Fashion-MNIST,
# scaleplan-databench reads it (CSV header and rows checked), and bad input gives exit 1.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
B=${BUILD:-build}
T=$(mktemp -d /tmp/scaleplan-data-smoke-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "data_smoke: $*"; exit 1; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
	echo "data_smoke: SKIPPED (dataset-fashion-mnist not installed)"; exit 0; fi
"$B/scaleplan-mkjpeg" --out "$T/ds" --size 64 --train 300 --val 40 --threads 2 > "$T/mk.log" || fail "mkjpeg failed"
n=$(find "$T/ds/train" -name '*.JPEG' | wc -l); [ "$n" -eq 300 ] || fail "mkjpeg wrote $n train JPEGs, expected 300"
[ "$(ls "$T/ds/train" | wc -l)" -eq 10 ] || fail "expected 10 class folders"
f=$(find "$T/ds/val" -name "*.JPEG" | head -1); od -An -tx1 -N2 "$f" | grep -q "ff d8" || fail "not a JPEG"
"$B/scaleplan-databench" --data "$T/ds" --threads 1,2 --images 128 --batch 32 --read --csv "$T/b.csv" 2> "$T/b.log" \
	|| { cat "$T/b.log"; fail "databench failed"; }
head -1 "$T/b.csv" | tr -d '\r' | grep -q '^source,machine,cpu,pipeline,threads,img_s,img_s_per_thread,image_bytes_mean,note$' \
	|| fail "databench CSV header: $(head -1 "$T/b.csv")"
[ "$(wc -l < "$T/b.csv")" -eq 5 ] || fail "databench CSV: expected 4 rows"
grep -q '^databench,.*,2,[0-9.e+]*,' "$T/b.csv" || fail "no 2-thread row"
# bad input: a folder with no images is exit 1, a bad option too
mkdir -p "$T/empty/train/x"
"$B/scaleplan-databench" --data "$T/empty" --threads 1 > /dev/null 2> "$T/e.log"; rc=$?
[ $rc -eq 1 ] && grep -q "no .jpg/.jpeg images" "$T/e.log" || fail "empty folder: exit $rc, $(cat "$T/e.log")"
"$B/scaleplan-databench" --data "$T/ds" --threads 0 > /dev/null 2>&1; [ $? -eq 1 ] || fail "--threads 0 not exit 1"
"$B/scaleplan-mkjpeg" --out "$T/x" --fashion-dir /nonexistent > /dev/null 2>&1; [ $? -eq 1 ] || fail "missing dataset not exit 1"
echo "data_smoke: ok"
