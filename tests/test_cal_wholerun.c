/* tests/test_cal_wholerun.c - validate's whole-run group as calibrate/cal_wholerun.c scores it: each
 * predicted result's errors are its predictions over MLPerf's scored means, the sums are over exactly the
 * predicted results, and a database without the results' systems predicts none of them (each says why).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal.h"
#include "common/common.h"
#include "hwdb/hw.h"
#include "test.h"

static void test_scored(test_ctx *t)
{
	hw_db db;
	cal_wholerun w;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "built-in database: %s", err_msg());
	TEST_CHECK(t, cal_wholerun_score(&db, &w) == 0, "scored: %s", err_msg());
	int predicted = 0;
	double abs_sum = 0, worst = 0;
	for (int i = 0; i < w.n; i++) {
		const cal_wr_result *o = &w.res[i];
		if (o->status != CAL_WR_PREDICTED)
			continue;
		predicted++;
		TEST_CHECK(t, o->nodes > 1 && *o->anchor, "%s: %g nodes, anchor '%s'", o->name, o->nodes, o->anchor);
		TEST_NEAR(t, o->err_ttt, o->ttt_s / o->run_meas_s - 1, 1e-12);
		TEST_NEAR(t, o->err_tta, o->tta_s / o->tta_meas_s - 1, 1e-12);
		TEST_NEAR(t, o->err_curve, o->ttt_curve_s / o->run_meas_s - 1, 1e-12);
		TEST_CHECK(t, o->tta_s > o->ttt_s, "%s: tta %g s after ttt %g s (start-up before the scored run)", o->name,
			   o->tta_s, o->ttt_s);
		abs_sum += fabs(o->err_ttt);
		worst = fmax(worst, fabs(o->err_ttt));
	}
	TEST_CHECK(t, predicted >= 3 && w.ttt.n == predicted && w.tta.n == predicted && w.curve.n == predicted,
		   "%d predicted of %d; sums over %d, %d, %d", predicted, w.n, w.ttt.n, w.tta.n, w.curve.n);
	TEST_NEAR(t, w.ttt.sum, abs_sum, 1e-12);
	TEST_NEAR(t, w.ttt.worst, worst, 1e-12);
	int n_full = w.n;
	cal_wholerun_free(&w);

	hw_db empty;
	memset(&empty, 0, sizeof empty);
	TEST_CHECK(t, cal_wholerun_score(&empty, &w) == 0 && w.n == n_full && w.ttt.n == 0,
		   "no systems: %d results of %d, %d predicted", w.n, n_full, w.ttt.n);
	for (int i = 0; i < w.n; i++)
		TEST_CHECK(t, w.res[i].status == CAL_WR_SKIPPED && w.res[i].why, "%s: skipped with a reason", w.res[i].name);
	cal_wholerun_free(&w);
	hw_db_free(&db);
}

int main(void)
{
	test_ctx t = {0};
	test_scored(&t);
	return test_report(&t);
}
