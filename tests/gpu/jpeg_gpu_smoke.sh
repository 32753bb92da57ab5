#!/bin/sh
# --data-path jpeg-gpu on a folder with bad inputs: a non-JPEG, an empty file, a truncated JPEG,
# a JPEG whose entropy-coded data is overwritten with random bytes, a folder and a dangling link named
# .JPEG, an empty class, a file at the class level; progressive and CMYK JPEGs (the GPU hybrid backend)
# where python3 has PIL. The run must finish (exit 0), train on the good images and name every bad one.
# Run by make test-gpu with TRAIN=path/to/scaleplan-train.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
T=${TRAIN:-build/scaleplan-train}
if ! "$T" --help | grep -q "default jpeg-gpu"; then
	echo "jpeg_gpu_smoke: skipped: this scaleplan-train has no nvJPEG"
	exit 0
fi
D=$(mktemp -d /tmp/jpeg_gpu_smoke.XXXXXX)
trap 'rm -rf "$D"' EXIT
"$T" --make-jpeg-folder "$D/ds" --images 96 --classes 4 --data-threads 4 > "$D/mk.log" 2>&1 || { cat "$D/mk.log"; exit 1; }
TR="$D/ds/train"
good=$(ls "$TR"/n00000001/*.JPEG | head -1)
printf 'not a jpeg at all' > "$TR/n00000000/text.JPEG"
: > "$TR/n00000002/empty.JPEG"
head -c 9000 "$good" > "$TR/n00000001/truncated.JPEG"
cp "$good" "$TR/n00000003/scrambled.JPEG"
sz=$(wc -c < "$good")
dd if=/dev/urandom of="$TR/n00000003/scrambled.JPEG" bs=1 seek=$((sz / 3)) count=$((sz / 4)) conv=notrunc 2>/dev/null
mkdir "$TR/n00000003/folder.JPEG"
ln -s /nonexistent/file.JPEG "$TR/n00000002/gone.JPEG"
mkdir "$TR/n00000009_empty" "$D/ds/val/n00000009_empty"
echo readme > "$TR/README.txt"
echo readme > "$D/ds/val/README.txt"
python3 - "$TR" <<'PY' 2>/dev/null && echo "jpeg_gpu_smoke: progressive + CMYK JPEGs added"
import sys
from PIL import Image
im = Image.radial_gradient("L").convert("RGB").resize((300, 200))
im.save(sys.argv[1] + "/n00000000/progressive.JPEG", quality=90, progressive=True)
im.convert("CMYK").save(sys.argv[1] + "/n00000001/cmyk.JPEG", quality=90)
PY
"$T" --data "$D/ds" --data-path jpeg-gpu --batch-per-gpu 16 --epochs 2 --image-size 64 --quiet > "$D/run.log" 2>&1
rc=$?
fail=0
[ $rc -eq 0 ] || { echo "jpeg_gpu_smoke: FAIL: exit $rc"; fail=1; }
for f in text.JPEG empty.JPEG truncated.JPEG folder.JPEG gone.JPEG n00000009_empty README.txt; do
	grep -q "$f" "$D/run.log" || { echo "jpeg_gpu_smoke: FAIL: $f not named"; fail=1; }
done
grep -q "EXEC_RESULT data=jpeg-gpu" "$D/run.log" || { echo "jpeg_gpu_smoke: FAIL: no result line"; fail=1; }
grep -E "^input:|skipped|scrambled|EXEC_RESULT" "$D/run.log" | head -20
# --data-timeout: a decode thread that stops (EX_JPEG_TEST_STALL, before batch 3) must end the job with exit 2
# and a report of where each thread was, not wait for ever (runs at batch 64/128 once stopped silently)
# The hook is in the test build only (TRAIN_HOOKS, made by make test-gpu); the product ignores the variable.
if [ -n "${TRAIN_HOOKS:-}" ]; then
	EX_JPEG_TEST_STALL=3 timeout 120 "$TRAIN_HOOKS" --data "$D/ds" --data-path jpeg-gpu --batch-per-gpu 16 --epochs 1 \
		--image-size 64 --quiet --data-timeout 5 > "$D/stall.log" 2>&1
	rc=$?
	[ $rc -eq 2 ] || { echo "jpeg_gpu_smoke: FAIL: stalled run: exit $rc (2 expected; 124: the watch never fired)"; fail=1; }
	for want in "train decode thread: stopped on purpose (EX_JPEG_TEST_STALL)" \
		"training thread: waiting for a decoded batch" "reader threads, training:" "--data-timeout 5" \
		"rank 0 of 1" "threads of rank 0" "sp-jpeg-decode"; do
		grep -qF -- "$want" "$D/stall.log" || { echo "jpeg_gpu_smoke: FAIL: stall report lacks '$want'"; fail=1; }
	done
	grep -A8 "jpeg-gpu: no batch" "$D/stall.log" | head -12
	# the product build has no hook: the same run goes through
	EX_JPEG_TEST_STALL=3 timeout 120 "$T" --data "$D/ds" --data-path jpeg-gpu --batch-per-gpu 16 --epochs 1 \
		--image-size 64 --quiet --data-timeout 5 > "$D/nohook.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { echo "jpeg_gpu_smoke: FAIL: the product build stopped on the test hook (exit $rc)"; fail=1; }
else
	echo "jpeg_gpu_smoke: stall check skipped: no TRAIN_HOOKS (the test build; make test-gpu makes it)"
fi
[ $fail -eq 0 ] && echo "jpeg_gpu_smoke: ok" || tail -20 "$D/run.log"
exit $fail
