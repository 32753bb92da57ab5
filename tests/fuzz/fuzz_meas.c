/* libFuzzer target for the measurement CSV reader (calibrate/cal_data.c: scaleplan-train runs,
 * all-reduce sweeps incl. contention columns, pipeline, convergence and reference tables) and the phase
 * table reader (calibrate/cal_phases.c, the same bytes): any bytes
 * must load or be rejected with a message, never crash, hang or read out of bounds, and every point
 * kept must be usable by the fit (a known kind, a placement of at least one GPU, a positive finite
 * measurement, no NULL strings). Build and run: make fuzz-meas (clang -fsanitize=fuzzer,address,undefined).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "calibrate/cal.h"
#include "calibrate/cal_internal.h" /* calibrate/'s parts under test */
#include "common/common.h"

static void check(const cal_point *p)
{
	if ((int)p->kind < 0 || p->kind >= CAL_NKINDS)
		abort();
	if (!p->file || !p->source || !p->machine || !p->gpu || !p->precision || !p->variant || !p->intra ||
	    !p->inter || !p->data)
		abort();
	if (!isfinite(p->measured) || !(p->measured > 0))
		abort();
	if ((p->kind == CAL_THROUGHPUT || p->kind == CAL_ALLREDUCE || p->kind == CAL_CONTENTION) &&
	    (p->gpus < 1 || p->nodes < 1 || p->gpus_per_node < 1 || p->nodes > p->gpus))
		abort();
	if (p->kind == CAL_THROUGHPUT && !(p->grad_B_param > 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cal_data d;
	cal_data_init(&d);
	/* strict and lenient paths; the buffer is not NUL-terminated on purpose */
	cal_data_load_csv_buf(&d, "fuzz.csv", (const char *)data, size, size & 1, NULL);
	for (int i = 0; i < d.n; i++)
		check(&d.pts[i]);
	cal_data_free(&d);
	/* the phase table reader (calibrate/cal_phases.c) on the same bytes */
	cal_phase_row *rows = NULL;
	int n = 0;
	if (cal_phases_read_buf("fuzz.csv", (const char *)data, size, &rows, &n) == 0) {
		if (n < 0)
			abort();
		/* anchoring on whatever rows it read: refused with a message, or done on >= 1 run and a rate not < 0 */
		cal_phase_fit f = {.startup_s = 35, .run_lead_s = 0.5, .run_lead_steps = 25, .cold_read_Bps = 4e9};
		if (cal_phase_anchor(&f, rows, n, NULL, NULL, 1.45e11) == 0 ? f.anchor_runs < 1 || f.cold_read_Bps < 0
									  : err_msg()[0] == '\0')
			abort();
	}
	free(rows);
	return 0;
}
