#!/bin/sh
# tools/mlperf_phases.sh - regenerates refdata/mlperf_v4_0_phases.csv, the phase table of every MLPerf
# Training v4.0 ResNet-50 result log, from a local mirror of github.com/mlcommons/training_results_v4.0.
#
#   tools/mlperf_phases.sh REPO [OUT]
#     REPO  a git repository (bare or not) of training_results_v4.0, e.g. from
#           `git clone https://github.com/mlcommons/training_results_v4.0` (required)
#     OUT   the table to write (default refdata/mlperf_v4_0_phases.csv)
#
# It exports <submitter>/results/<system>/resnet/result_*.txt and <submitter>/systems/*.json at HEAD into a temporary directory and runs
# `scaleplan calibrate --mllog DIR --phases-out OUT --source-prefix github.com/mlcommons/training_results_v4.0@COMMIT:`.
# Only the v4.0 round is read (earlier rounds are the project's hold-out).
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
repo=${1:?usage: tools/mlperf_phases.sh REPO [OUT]   (REPO: a clone of github.com/mlcommons/training_results_v4.0)}
out=${2:-refdata/mlperf_v4_0_phases.csv}
sp=${SCALEPLAN:-build/scaleplan}
[ -x "$sp" ] || { echo "mlperf_phases.sh: $sp not built (make build/scaleplan)" >&2; exit 2; }
commit=$(git -C "$repo" rev-parse HEAD) || { echo "mlperf_phases.sh: $repo is not a git repository" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the logs and the system descriptions (node and GPU counts of logs without a :::SYSJSON line)
git -C "$repo" ls-tree -r --name-only HEAD |
	grep -E '^[^/]+/results/[^/]+/resnet/result_[^/]*\.txt$|^[^/]+/systems/[^/]+\.json$' |
while IFS= read -r f; do
	mkdir -p "$tmp/$(dirname "$f")"
	git -C "$repo" show "HEAD:$f" >"$tmp/$f"
done
"$sp" calibrate --mllog "$tmp" --phases-out "$out" --source-prefix "github.com/mlcommons/training_results_v4.0@$commit:"
