/* libFuzzer target for the MLLOG reader (calibrate/cal_mllog.c: events, phases, :::SYSJSON and system
 * description JSON): any bytes must parse or be rejected
 * with a message, never crash, hang or read out of bounds; derived numbers are finite or NAN.
 * Build and run: make fuzz-mllog (clang -fsanitize=fuzzer,address,undefined).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "calibrate/cal.h"
#include "calibrate/cal_internal.h" /* calibrate/'s parts under test */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cal_mllog_run run;
	/* strict and lenient paths; the buffer is not NUL-terminated on purpose */
	cal_mllog_parse_buf(&run, "fuzz.log", (const char *)data, size, NAN, size & 1, NULL);
	if (isinf(run.tta_s) || isinf(run.throughput_img_s) || isinf(run.block_img_s) ||
	    (isfinite(run.tta_s) && run.tta_s <= 0))
		abort();
	/* phase sums are finite and counts sane; node/GPU counts from :::SYSJSON in range */
	if (!isfinite(run.ph.epoch_sum_s) || !isfinite(run.ph.eval_sum_s) || !isfinite(run.ph.block_sum_s) ||
	    run.ph.nepochs < 0 || run.ph.nevals < 0 || run.ph.nodes < 0 || run.ph.gpus_per_node < 0)
		abort();
	cal_mllog_run_free(&run);
	/* a bare system description (systems/<system>.json) */
	cal_mllog_phases ph = {0};
	if (cal_mllog_sysjson_parse(&ph, (const char *)data, size) == 0 && (ph.nodes < 0 || ph.nodes > 1000000))
		abort();
	cal_mllog_event ev;
	cal_mllog_event_parse(&ev, (const char *)data, size);
	return 0;
}
