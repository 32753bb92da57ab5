/* plan/plan_internal.h: what the files of plan/ share and nobody else uses (not a public header).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_PLAN_INTERNAL_H
#define SCALEPLAN_PLAN_INTERNAL_H

#include "plan/plan.h"

/* plan_judge.c */
/* Orders two numbers, unknown (NAN) and INFINITY last: -1, 0 or 1. */
int plan_num_cmp(double a, double b);
/* Options in table order: the verdicts, then fewer NVLink domains, fewer nodes, system id. */
int plan_option_cmp(const plan_question *q, const plan_option *x, const plan_option *y);
/* Whether the question's time is the MLPerf-scored time to train (--rank-by ttt). */
bool plan_ttt_goal(const plan_question *q);
/* "capex", "owner's cost per run", "rent for the run". */
const char *plan_cost_words(plan_cost c);

#endif
