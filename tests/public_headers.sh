#!/bin/sh
# Public headers list what other folders use (docs/design.md): every function a folder's public header
# declares is named by some other folder (tools/public_api.sh); the rest belong in its *_internal.h. Run by
# tools/run_tests.sh. Every folder's public header below cli/ (cli.h serves cli/ alone).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
headers="common/common.h hwdb/hw.h model/model.h plan/plan.h sim/sim.h calibrate/cal.h plot/plot.h web/web.h report/report.h"
out=$(sh tools/public_api.sh --internal $headers)
if [ -n "$out" ]; then
	echo "$out" | sed 's/ -$/: used only inside its folder; move it to the folder'"'"'s *_internal.h/; s/^/FAIL: /'
	exit 1
fi
n=0
for h in $headers; do n=$((n + $(sh tools/protos.sh "$h" | sort -u | wc -l))); done
echo "public headers: $headers: $n functions, each used outside its folder"
