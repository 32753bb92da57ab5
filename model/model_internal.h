/* model/model_internal.h: what model/'s files share among themselves and with its generated sources (not a
 * public header: nothing outside model/ includes it).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_MODEL_INTERNAL_H
#define SCALEPLAN_MODEL_INTERNAL_H

#include <stddef.h>

#include "model/model.h"

/* model_step.c: the nodes of the scenario's NVLink domain (an NVL72 rack's trays, else 1) that the job uses:
 * the all-reduce's inner level (model.c) and the fabric's need (model_money.c) both start from it. */
int model_domain_nodes(const model_scenario *sc);

/* One interval: factors on the point; n residuals it came from. All 0 = no such row (factors 1 apply). */
typedef struct model_interval_row {
	double lo_x, hi_x;
	int n;
} model_interval_row;

/* model/model_intervals.c: generated from model/intervals.csv by tools/intervals_c.sh (make intervals). */
extern const model_interval_row model_interval_table[MODEL_NBASES][MODEL_NPOOLS][MODEL_NQUANTITIES];
extern const char *const model_measured_gpus[]; /* ends with NULL */
/* model/model_ratios.c: generated from model/ratios.csv by tools/ratios_c.sh (make intervals): for each set of
 * differences (bits 1u << model_diff), by the stacks the two run (model_stacks), the 90% bounds of measured ratio / predicted ratio, lo_x and hi_x, as
 * model_ratio_bounds combines the rows of one difference (calibrate/cal_ratio.c writes them); [0]: unused (1, 1);
 * and the pairs each one-difference row came from. */
extern const double model_ratio_set[MODEL_NSTACKS][1 << MODEL_NDIFFS][MODEL_NQUANTITIES][2];
extern const int model_ratio_n[MODEL_NSTACKS][MODEL_NDIFFS][MODEL_NQUANTITIES];

#endif
