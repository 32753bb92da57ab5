/* tests/test_cal_resid.c: what validate's intervals are derived from (calibrate/cal_resid.c): a residual
 * without a positive measured and predicted value is not added; the pairs of throughput points come only from
 * points of one source that the default model predicts, with the log ratio of the speeds and minus it for the
 * times, and the bits of what differs; the whole-run residuals are one ttt and one tta per result, a result
 * filed twice counted once, each tta carrying the start-up inside it, and every whole-run pair differs in scale.
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

static void test_add(test_ctx *t)
{
	cal_resids v = {0};
	cal_resid ok = {MODEL_Q_TTT, MODEL_BASIS_MEASURED, 2, 100, 110, MODEL_POOL_MLPERF, 0, 0};
	cal_resid zero = ok, nan = ok, inf = ok;
	zero.measured = 0;
	nan.predicted = NAN;
	inf.predicted = INFINITY;
	cal_resids_add(&v, &ok);
	cal_resids_add(&v, &zero);
	cal_resids_add(&v, &nan);
	cal_resids_add(&v, &inf);
	TEST_CHECK(t, v.n == 1 && v.r[0].predicted == 110, "1 residual kept of 4: %d", v.n);
	for (int i = 0; i < 200; i++)
		cal_resids_add(&v, &ok);
	TEST_CHECK(t, v.n == 201 && v.cap >= 201, "grown to %d (cap %d)", v.n, v.cap);
	cal_resids_free(&v);
	TEST_CHECK(t, v.n == 0 && v.r == NULL, "freed");
}

static cal_point point(const char *source, const char *gpu, const char *machine, int nodes, double measured)
{
	cal_point p;
	memset(&p, 0, sizeof p);
	p.kind = CAL_THROUGHPUT;
	p.source = (char *)source;
	p.gpu = (char *)gpu;
	p.machine = (char *)machine;
	p.precision = (char *)"amp";
	p.variant = (char *)"";
	p.nodes = nodes;
	p.gpus_per_node = 8;
	p.measured = measured;
	return p;
}

/* Two points of one source on two GPUs, a third of another source, a fourth the model does not predict. */
static void test_point_pairs(test_ctx *t)
{
	cal_point pts[4] = {point("paper", "A100", "dgxa100", 1, 2000), point("paper", "H100", "dgxh100", 1, 5000),
			    point("readme", "H100", "dgxh100", 2, 9000), point("paper", "H200", "hgx-h200", 1, 6000)};
	cal_data d = {.pts = pts, .n = 4, .cap = 4};
	double pred[4] = {2500, 5000, 9500, NAN};
	const char *stack[4] = {NULL, NULL, NULL, NULL};
	cal_rpairs pp = {0};
	cal_point_pairs(NULL, &d, pred, stack, &pp);
	TEST_CHECK(t, pp.n == 3, "one pair of points (A100, H100 of the paper), 3 quantities: %d", pp.n);
	if (pp.n == 3) {
		double rho = log(2000.0 / 5000) - log(2500.0 / 5000);
		TEST_CHECK(t, pp.p[0].q == MODEL_Q_THROUGHPUT && pp.p[1].q == MODEL_Q_TTT && pp.p[2].q == MODEL_Q_TTA,
			   "throughput, ttt, tta");
		TEST_NEAR(t, pp.p[0].rho, rho, 1e-12);
		TEST_NEAR(t, pp.p[1].rho, -rho, 1e-12);
		TEST_CHECK(t, pp.p[0].differs == 1u << MODEL_DIFF_GPU, "differ in the GPU only: %#x", pp.p[0].differs);
	}
	free(pp.p);
}

static void test_whole_run(test_ctx *t)
{
	hw_db db;
	cal_wholerun w;
	cal_resids v = {0};
	cal_rpairs pp = {0};
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "built-in database: %s", err_msg());
	TEST_CHECK(t, cal_wholerun_score(&db, &w) == 0, "scored: %s", err_msg());
	TEST_CHECK(t, cal_wholerun_resids(&db, &v, &pp) == 0, "residuals: %s", err_msg());
	int predicted = 0;
	for (int i = 0; i < w.n; i++)
		predicted += w.res[i].status == CAL_WR_PREDICTED;
	int nttt = 0, ntta = 0;
	for (int i = 0; i < v.n; i++) {
		const cal_resid *r = &v.r[i];
		nttt += r->q == MODEL_Q_TTT;
		ntta += r->q == MODEL_Q_TTA;
		TEST_CHECK(t, r->basis == MODEL_BASIS_MEASURED && r->pool == MODEL_POOL_MLPERF && r->nodes > 1,
			   "residual %d: measured basis, MLPerf pool, %d nodes", i, r->nodes);
		if (r->q == MODEL_Q_TTA && i > 0 && v.r[i - 1].q == MODEL_Q_TTT)
			TEST_NEAR(t, r->startup_s, fmax(0.0, r->predicted - v.r[i - 1].predicted), 1e-12);
		for (int j = 0; j < i; j++)
			TEST_CHECK(t, !(v.r[j].q == r->q && v.r[j].nodes == r->nodes && v.r[j].measured == r->measured &&
					v.r[j].predicted == r->predicted), "residuals %d and %d: one run counted twice", j, i);
	}
	TEST_CHECK(t, nttt == ntta && nttt >= 3 && nttt <= predicted, "%d ttt and %d tta residuals of %d predicted",
		   nttt, ntta, predicted);
	TEST_CHECK(t, pp.n == 2 * nttt, "%d pairs for %d results", pp.n, nttt);
	for (int i = 0; i < pp.n; i++)
		TEST_CHECK(t, pp.p[i].differs & 1u << MODEL_DIFF_SCALE, "pair %d differs in scale", i);
	cal_miss miss[CAL_MAX_TRANSFERS];
	cal_data empty = {0};
	int nmiss = cal_transfer_misses(&empty, NULL, NULL, &db, miss);
	/* gpus.csv's checked_from: A100 -> H100 across an architecture, then H100 -> H200 within one */
	TEST_CHECK(t, nmiss == 2 && strcmp(miss[0].from, "A100-SXM4-80GB") == 0 && strcmp(miss[0].to, "H100-SXM5-80GB") == 0 &&
			      !miss[0].same_arch && strcmp(miss[1].to, "H200-SXM-141GB") == 0 && miss[1].same_arch,
		   "%d transfers from the built-in checked_from", nmiss);
	for (int k = 0; k < nmiss; k++)
		TEST_CHECK(t, isnan(miss[k].miss) && miss[k].n_from == 0 && miss[k].from && miss[k].to,
			   "no points: transfer %d not checked", k);
	cal_resids_free(&v);
	free(pp.p);
	cal_wholerun_free(&w);
	hw_db_free(&db);
}

int main(void)
{
	test_ctx t = {0};
	test_add(&t);
	test_point_pairs(&t);
	test_whole_run(&t);
	return test_report(&t);
}
