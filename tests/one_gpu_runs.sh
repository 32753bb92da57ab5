#!/bin/sh
# refdata/one_gpu_runs.csv lists the stacks' one-GPU runs once; a row that cites a refdata table's line must
# carry that line's figure (img_s) and precision class, so the list cannot drift from the tables it cites.
# (`validate --group gpus` reads it: tests/golden.sh compares its table.) Run by tools/run_tests.sh.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
n=0
while IFS=, read -r stack system prec batch data img src; do
	case "$src" in refdata/*.csv:*) ;; *) continue ;; esac
	f=${src%%:*}; l=${src#*:}; l=${l%% *}
	row=$(sed -n "${l}p" "$root/$f")
	printf '%s\n' "$row" | grep -Eq "[, ]$img(,|\$)" || no "$src: line has no $img img/s ($row)"
	# amp: mixed fp16 (DeepLearningExamples); as-reported: tf_cnn_benchmarks' default, fp32
	case "$prec" in fp16|bf16) p='(fp16|bf16|amp)' ;; fp32) p='(fp32|as-reported)' ;; *) p="($prec)" ;; esac
	printf '%s\n' "$row" | grep -Eq ",$p," || no "$src: line has no precision $prec ($row)"
	n=$((n + 1))
done <"$root/refdata/one_gpu_runs.csv"
[ $n -ge 10 ] || no "only $n rows cite a refdata line"
echo "one_gpu_runs: $n rows checked (fail=$fail)"
exit $fail
