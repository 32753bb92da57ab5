/* tests/test_interval.c: the basis of a prediction and its 90% interval: the split-conformal rule,
 * the derivation from residuals, the table applied by model_predict, and plan_basis on the built-in data.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal.h"
#include "calibrate/cal_internal.h" /* calibrate/'s parts under test */
#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"
#include "model/model_internal.h" /* tests of model/'s parts */
#include "plan/plan.h"
#include "plan/plan_internal.h" /* plan/'s parts under test */
#include "tests/test.h"

/* n < 9: +-the largest |rho| (the |rho| rule's k = ceil(0.9 (n + 1)) is past n), not the observed range,
 * which would hold a new residual only (n - 1) / (n + 1) of the time */
static void test_conformal_small(test_ctx *t)
{
	double rho[] = {0.10, -0.05, 0.20}, lo, hi;
	TEST_CHECK(t, model_interval_conformal(rho, 3, &lo, &hi) == 0, "3 residuals");
	TEST_NEAR(t, lo, -0.20, 1e-12);
	TEST_NEAR(t, hi, 0.20, 1e-12);
	double pos[] = {0.1, 0.3};
	model_interval_conformal(pos, 2, &lo, &hi);
	TEST_CHECK(t, fabs(lo + 0.3) < 1e-12 && fabs(hi - 0.3) < 1e-12, "all positive: +-max, got [%g, %g]", lo, hi);
	double one[] = {-0.07};
	model_interval_conformal(one, 1, &lo, &hi);
	TEST_CHECK(t, fabs(lo + 0.07) < 1e-12 && fabs(hi - 0.07) < 1e-12, "one: +-|rho|, got [%g, %g]", lo, hi);
	TEST_CHECK(t, model_interval_conformal(rho, 0, &lo, &hi) == -1 && lo == 0 && hi == 0, "none: -1");
}

/* 9 <= n < 19: +-the ceil(0.9 (n + 1))-th smallest |rho|: n = 10 -> the 10th (the largest) */
static void test_conformal_symmetric(test_ctx *t)
{
	double rho[10], lo, hi;
	for (int i = 0; i < 10; i++)
		rho[i] = (i % 2 ? -1 : 1) * 0.01 * (i + 1); /* |rho| = 0.01 .. 0.10 */
	model_interval_conformal(rho, 10, &lo, &hi);
	TEST_NEAR(t, hi, 0.10, 1e-12);
	TEST_NEAR(t, lo, -0.10, 1e-12);
	/* n = 12: ceil(0.9 x 13) = 12th smallest: still the largest; n = 18: ceil(17.1) = 18th */
	double r18[18];
	for (int i = 0; i < 18; i++)
		r18[i] = 0.01 * (i + 1);
	model_interval_conformal(r18, 18, &lo, &hi);
	TEST_NEAR(t, hi, 0.18, 1e-12);
}

/* n >= 19: asymmetric order statistics. n = 39: k_lo = floor(0.05 x 40) = 2, k_hi = ceil(0.95 x 40) = 38 */
static void test_conformal_asymmetric(test_ctx *t)
{
	double rho[39], lo, hi;
	for (int i = 0; i < 39; i++)
		rho[38 - i] = -0.19 + 0.01 * i; /* -0.19 .. +0.19, reversed: the rule sorts a copy */
	double first = rho[0];
	model_interval_conformal(rho, 39, &lo, &hi);
	TEST_NEAR(t, lo, -0.18, 1e-9);
	TEST_NEAR(t, hi, 0.18, 1e-9);
	TEST_CHECK(t, rho[0] == first, "input left unsorted");
	/* a biased pool: every residual positive -> lo is 0 (the point stays inside) */
	for (int i = 0; i < 39; i++)
		rho[i] = 0.05 + 0.001 * i;
	model_interval_conformal(rho, 39, &lo, &hi);
	TEST_CHECK(t, lo == 0.0 && hi > 0.05, "biased: [0, %g]", hi);
}

static void test_combine(test_ctx *t)
{
	double lo, hi;
	model_interval_combine(-0.3, 0.4, -0.4, 0.3, &lo, &hi);
	TEST_NEAR(t, lo, -0.5, 1e-12);
	TEST_NEAR(t, hi, 0.5, 1e-12);
}

/* The derivation: one time pool per stack pool (throughput residuals negated: a time is images /
 * throughput), scores divided by their node count's spread (the growth the pool's residuals give); a pool without residuals borrows the other's; the start-up row from the
 * start-up residuals for every pool; transfer and estimate widened by the largest checked miss, the
 * start-up not (it does not depend on the GPU). */
static void test_derive(test_ctx *t)
{
	const int MP = MODEL_POOL_MLPERF, FW = MODEL_POOL_FRAMEWORK;
	const model_basis M = MODEL_BASIS_MEASURED;
	cal_resid res[40];
	int n = 0;
	for (int i = 0; i < 10; i++) /* MLPerf-stack throughput, measured / predicted 1 +-0.2..2% */
		res[n++] = (cal_resid){MODEL_Q_THROUGHPUT, M, 1, 1.0, i % 2 ? 1.0 + 0.002 * (i + 1) : 1.0 / (1.0 + 0.002 * (i + 1)), MP, 0, 0};
	res[n++] = (cal_resid){MODEL_Q_TTT, M, 300, 103.0, 100.0, MP, 0, 0}; /* a many-node time 3% over */
	for (int i = 0; i < 10; i++) /* start-up, measured / predicted 0.5 .. 1.4 (symmetric rule: +-ln 2) */
		res[n++] = (cal_resid){MODEL_Q_STARTUP, M, 1, 50.0 + 10.0 * i, 100.0, MP, 0, 0};
	cal_miss miss[2] = {{"A", "B", false, false, 3, 3, log(0.8)}, {"B", "C", true, true, 2, 2, log(1.1)}};
	cal_itable *it = xmalloc(sizeof(*it));
	TEST_CHECK(t, cal_interval_derive(res, n, -1, miss, 2, it) == 0, "%s", err_msg());
	/* 11 time residuals (symmetric rule): +-the largest |score|; the 300-node ttt's 3% rises above the
	 * one-node ones: the pool grows with the node count, and its score is ln 1.03 over its spread */
	double rho[11];
	int nodes[11];
	for (int i = 0; i < 11; i++)
		rho[i] = log(res[i].measured / res[i].predicted), nodes[i] = res[i].nodes;
	double g = cal_interval_growth(rho, nodes, 11), top = fmax(log(1.02), log(1.03) / model_interval_spread(g, 300));
	TEST_CHECK(t, g > 0 && fabs(it->grow[M][MP][MODEL_Q_TTT] - g) < 1e-12, "growth %g, table %g", g,
		   it->grow[M][MP][MODEL_Q_TTT]);
	TEST_NEAR(t, it->hi[M][MP][MODEL_Q_TTT], top, 1e-12);
	TEST_NEAR(t, it->lo[M][MP][MODEL_Q_TTT], -top, 1e-12);
	TEST_NEAR(t, it->lo[M][MP][MODEL_Q_THROUGHPUT], -it->hi[M][MP][MODEL_Q_TTT], 1e-12);
	TEST_CHECK(t, it->n[M][FW][MODEL_Q_TTT] == 11 && it->hi[M][FW][MODEL_Q_TTT] == it->hi[M][MP][MODEL_Q_TTT],
		   "no framework residual: the MLPerf pool's (n %d)", it->n[M][FW][MODEL_Q_TTT]);
	TEST_NEAR(t, it->lo[M][FW][MODEL_Q_STARTUP], log(0.5), 1e-12);
	TEST_NEAR(t, it->hi[M][MP][MODEL_Q_STARTUP], -log(0.5), 1e-12); /* 10 residuals: symmetric */
	TEST_NEAR(t, it->hi[MODEL_BASIS_TRANSFER][MP][MODEL_Q_TTT] - top, log(1.1), 1e-12);
	TEST_NEAR(t, it->lo[MODEL_BASIS_ESTIMATE][MP][MODEL_Q_THROUGHPUT] + top, log(0.8), 1e-12);
	TEST_CHECK(t, it->grow[MODEL_BASIS_ESTIMATE][MP][MODEL_Q_TTT] == g, "widened rows keep the growth");
	TEST_NEAR(t, it->hi[MODEL_BASIS_ESTIMATE][MP][MODEL_Q_STARTUP], -log(0.5), 1e-12);
	/* framework residuals of +-20%: that pool widens, the MLPerf one does not move */
	for (int i = 0; i < 10; i++)
		res[n++] = (cal_resid){MODEL_Q_THROUGHPUT, M, 1, 1.0, i % 2 ? 1.2 : 1 / 1.2, FW, 0, 0};
	TEST_CHECK(t, cal_interval_derive(res, n, -1, miss, 2, it) == 0, "%s", err_msg());
	TEST_NEAR(t, it->hi[M][FW][MODEL_Q_TTT], log(1.2), 1e-12);
	TEST_NEAR(t, it->hi[M][MP][MODEL_Q_TTT], top, 1e-12);
	/* leaving the many-node time out: the MLPerf pool is the throughput's 2%, and nothing to grow with */
	TEST_CHECK(t, cal_interval_derive(res, n, 10, miss, 2, it) == 0, "skip");
	TEST_NEAR(t, it->hi[M][MP][MODEL_Q_TTT], log(1.02), 1e-12);
	TEST_CHECK(t, it->grow[M][MP][MODEL_Q_TTT] == 0, "one node only: growth %g", it->grow[M][MP][MODEL_Q_TTT]);
	TEST_CHECK(t, cal_interval_derive(res + 11, 10, -1, miss, 2, it) != 0, "start-up residuals only: refused");
	free(it);
}

/* The growth with the node count: residuals on the line rho^2 = a + b 2 ln n give b / a back; a falling or
 * flat line, or one node count only, gives 0; the spread is 1 at one node and sqrt(1 + g 2 ln n) beyond. */
static void test_growth(test_ctx *t)
{
	int nodes[6] = {1, 1, 8, 8, 448, 448};
	double rho[6];
	for (int i = 0; i < 6; i++) /* a = 0.01, b = 0.002: rho = +-sqrt(a + b 2 ln n) */
		rho[i] = (i % 2 ? -1 : 1) * sqrt(0.01 + 0.002 * 2 * log((double)nodes[i]));
	TEST_NEAR(t, cal_interval_growth(rho, nodes, 6), 0.2, 1e-9);
	for (int i = 0; i < 6; i++) /* the same sizes the other way round: falls with n */
		rho[i] = (i % 2 ? -1 : 1) * sqrt(0.05 - 0.002 * 2 * log((double)nodes[i]));
	TEST_CHECK(t, cal_interval_growth(rho, nodes, 6) == 0, "a falling line: 0");
	TEST_CHECK(t, cal_interval_growth(rho, nodes, 2) == 0, "one node count: 0");
	TEST_CHECK(t, model_interval_spread(0.2, 1) == 1 && model_interval_spread(0, 448) == 1, "no growth: 1");
	TEST_NEAR(t, model_interval_spread(0.2, 448), sqrt(1 + 0.4 * log(448.0)), 1e-12);
	double lo1, hi1, lo2, hi2; /* the built-in table: one node's factors, wider at 448 nodes (the start-up grows) */
	model_interval_factors(MODEL_BASIS_MEASURED, MODEL_POOL_MLPERF, MODEL_Q_STARTUP, 1, &lo1, &hi1);
	model_interval_factors(MODEL_BASIS_MEASURED, MODEL_POOL_MLPERF, MODEL_Q_STARTUP, 448, &lo2, &hi2);
	TEST_CHECK(t, lo2 <= lo1 && hi2 >= hi1 && lo1 <= 1 && hi1 >= 1, "448 nodes [%g, %g] around 1 node's [%g, %g]",
		   lo2, hi2, lo1, hi1);
}

/* Time to accuracy's interval: the start-up's and the rest's misses in quadrature, by hand; all start-up or
 * none gives that part's factors; the width moves continuously with the start-up's share. */
static void test_tta_interval(test_ctx *t)
{
	double lo, hi, prev = NAN;
	/* 100 s: 60 s of training (0.9-1.1), 40 s of start-up (0.5-2): -sqrt(6^2 + 20^2), +sqrt(6^2 + 40^2) */
	model_interval_tta_x(100, 40, 0.9, 1.1, 0.5, 2.0, &lo, &hi);
	TEST_NEAR(t, lo, 100 - sqrt(36 + 400), 1e-12);
	TEST_NEAR(t, hi, 100 + sqrt(36 + 1600), 1e-12);
	model_interval_tta_x(100, 0, 0.9, 1.1, 0.5, 2.0, &lo, &hi);
	TEST_CHECK(t, fabs(lo - 90) < 1e-12 && fabs(hi - 110) < 1e-12, "no start-up: ttt's factors [%g, %g]", lo, hi);
	model_interval_tta_x(100, 100, 0.9, 1.1, 0.5, 2.0, &lo, &hi);
	TEST_CHECK(t, fabs(lo - 50) < 1e-12 && fabs(hi - 200) < 1e-12, "all start-up: its factors [%g, %g]", lo, hi);
	for (int k = 0; k <= 100; k++) { /* start-up share 0..100%: the width never jumps by more than 5% */
		model_interval_tta_x(100, k, 0.9, 1.1, 0.5, 2.0, &lo, &hi);
		double w = (hi - lo) / 100;
		TEST_CHECK(t, k == 0 || fabs(w / prev - 1) < 0.05, "share %d%%: width %g after %g", k, w, prev);
		prev = w;
	}
	TEST_CHECK(t, model_pool_of(NAN) == MODEL_POOL_MLPERF && model_pool_of(1.0) == MODEL_POOL_MLPERF &&
			      model_pool_of(0.56) == MODEL_POOL_FRAMEWORK, "pools: empty and 1 MLPerf-grade, 0.56 a framework");
}

/* The transfer miss: on the stacks both GPUs ran (s1 here) when they share one, else on all their points. */
static void test_transfer_miss(test_ctx *t)
{
	cal_point pts[4];
	double pred[4] = {110, 50, 90, 400}; /* errors: A s1 +10%, A s2 -50%, B s1 -10%, B s3 x4 */
	const char *stack[4] = {"s1", "s2", "s1", "s3"};
	const char *gpu[4] = {"GPU-A", "GPU-A", "GPU-B", "GPU-B"};
	memset(pts, 0, sizeof pts);
	for (int i = 0; i < 4; i++) {
		pts[i].kind = CAL_THROUGHPUT;
		pts[i].gpu = (char *)gpu[i];
		pts[i].measured = 100;
	}
	cal_data d = {.pts = pts, .n = 4, .cap = 4};
	cal_miss m;
	cal_transfer_miss(&d, pred, stack, "GPU-A", "GPU-B", NULL, &m);
	TEST_CHECK(t, m.same_stack && m.n_from == 1 && m.n_to == 1, "shared stack s1 only: %d %d", m.n_from, m.n_to);
	TEST_NEAR(t, m.miss, log(0.9) - log(1.1), 1e-12);
	stack[2] = "s4"; /* no stack in common: every point of each */
	cal_transfer_miss(&d, pred, stack, "GPU-A", "GPU-B", NULL, &m);
	TEST_CHECK(t, !m.same_stack && m.n_from == 2 && m.n_to == 2, "all points: %d %d", m.n_from, m.n_to);
	TEST_NEAR(t, m.miss, (log(0.9) + log(4.0)) / 2 - (log(1.1) + log(0.5)) / 2, 1e-12);
	cal_transfer_miss(&d, pred, stack, "GPU-A", "GPU-C", NULL, &m);
	TEST_CHECK(t, isnan(m.miss) && m.n_to == 0, "no points of the second GPU: NAN");
}

/* plan_basis on the built-in data and model_predict's interval: H100 measured, a Blackwell estimate whose
 * per-GPU interval is wider; lo <= point <= hi for every quantity. */
static void test_basis_predict(test_ctx *t)
{
	hw_db db;
	model_params p;
	model_result r[2];
	const char *sys[2] = {"dgxh100", "dgxb200"};
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "%s", err_msg());
	model_params_default(&p);
	TEST_CHECK(t, plan_basis(&db, hw_gpu_find(&db, "H100-SXM5-80GB"), 0) == MODEL_BASIS_MEASURED, "H100 measured");
	TEST_CHECK(t, plan_basis(&db, hw_gpu_find(&db, "B200-SXM-180GB"), 0) == MODEL_BASIS_ESTIMATE, "B200 estimate");
	TEST_CHECK(t, plan_basis(&db, hw_gpu_find(&db, "B200-SXM-180GB"), 1) == MODEL_BASIS_MEASURED,
		   "--measured makes it measured");
	TEST_CHECK(t, plan_basis(&db, hw_gpu_find(&db, "A100-PCIe-40GB"), 0) == MODEL_BASIS_TRANSFER,
		   "A100 PCIe: no results of its own, its architecture's (A100 SXM4) -> transfer");
	for (int k = 0; k < 2; k++) {
		plan_spec spec;
		model_scenario sc;
		plan_spec_init(&spec);
		spec.system_id = sys[k];
		spec.global_batch = 3200;
		TEST_CHECK(t, plan_resolve(&db, &spec, &p, NULL, 0, 0, &sc) == 0, "%s: %s", sys[k], err_msg());
		TEST_CHECK(t, model_predict(&sc, &p, &r[k]) == 0 && r[k].fits, "%s predicts", sys[k]);
		TEST_CHECK(t, r[k].throughput_lo_img_s <= r[k].throughput_img_s && r[k].throughput_img_s <= r[k].throughput_hi_img_s,
			   "%s throughput in its interval", sys[k]);
		TEST_CHECK(t, r[k].ttt_lo_s <= r[k].ttt_s && r[k].ttt_s <= r[k].ttt_hi_s, "%s ttt in its interval", sys[k]);
		TEST_CHECK(t, r[k].tta_lo_s <= r[k].tta_s && r[k].tta_s <= r[k].tta_hi_s, "%s tta in its interval", sys[k]);
	}
	TEST_CHECK(t, r[0].basis == MODEL_BASIS_MEASURED && r[1].basis == MODEL_BASIS_ESTIMATE, "bases %d %d", r[0].basis,
		   r[1].basis);
	double w0 = r[0].throughput_hi_img_s / r[0].throughput_lo_img_s, w1 = r[1].throughput_hi_img_s / r[1].throughput_lo_img_s;
	TEST_CHECK(t, w1 > w0, "estimate interval (x%.2f) wider than measured (x%.2f)", w1, w0);
	/* no step with the node count: a DGX H100 at 16 and 17 nodes, tta widths within 10% of each other */
	double w[2];
	for (int k = 0; k < 2; k++) {
		plan_spec spec;
		model_scenario sc;
		model_result rr;
		plan_spec_init(&spec);
		spec.system_id = "dgxh100";
		spec.nodes = 16 + k;
		TEST_CHECK(t, plan_resolve(&db, &spec, &p, NULL, 0, 0, &sc) == 0 && model_predict(&sc, &p, &rr) == 0,
			   "%d nodes: %s", 16 + k, err_msg());
		w[k] = (rr.tta_hi_s - rr.tta_lo_s) / rr.tta_s;
	}
	TEST_CHECK(t, fabs(w[1] / w[0] - 1) < 0.1, "tta width %.3f at 16 nodes, %.3f at 17", w[0], w[1]);
	hw_db_free(&db);
}

/* model_ratio: one scenario against itself has ratio 1 and no width; the same GPU on one more node carries only
 * the scale row, narrower than the ratio of an H100 and an estimated B200, which holds the GPU row widened by
 * the estimate; the interval holds the point. model_ratio_bounds adds differences in quadrature. */
static void test_ratio(test_ctx *t)
{
	hw_db db;
	model_params p;
	model_scenario sc[3];
	model_result r[3];
	const char *sys[3] = {"dgxh100", "dgxh100", "dgxb200"};
	const int nodes[3] = {1, 2, 1};
	double x, lo, hi;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "%s", err_msg());
	model_params_default(&p);
	for (int k = 0; k < 3; k++) {
		plan_spec spec;
		plan_spec_init(&spec);
		spec.system_id = sys[k];
		TEST_CHECK(t, plan_resolve(&db, &spec, &p, NULL, 0, nodes[k], &sc[k]) == 0, "%s: %s", sys[k], err_msg());
		TEST_CHECK(t, model_predict(&sc[k], &p, &r[k]) == 0 && r[k].fits, "%s predicts", sys[k]);
	}
	TEST_CHECK(t, model_ratio_differs(&sc[0], &sc[0]) == 0, "nothing differs from itself");
	model_ratio(&sc[0], &r[0], &sc[0], &r[0], MODEL_Q_TTA, &x, &lo, &hi);
	TEST_CHECK(t, x == 1 && lo == 1 && hi == 1, "itself: 1 (%g..%g)", lo, hi);
	TEST_CHECK(t, model_ratio_differs(&sc[1], &sc[0]) == 1u << MODEL_DIFF_SCALE, "2 nodes vs 1: scale only (%u)",
		   model_ratio_differs(&sc[1], &sc[0]));
	unsigned d = model_ratio_differs(&sc[2], &sc[0]);
	TEST_CHECK(t, (d & 1u << MODEL_DIFF_GPU) && !(d & 1u << MODEL_DIFF_SYSTEM), "B200 vs H100: gpu, not system (%u)", d);
	model_ratio(&sc[1], &r[1], &sc[0], &r[0], MODEL_Q_TTT, &x, &lo, &hi);
	double w_scale = hi / lo;
	TEST_CHECK(t, lo <= x && x <= hi && fabs(x - r[1].ttt_s / r[0].ttt_s) < 1e-12, "scale: %g in %g..%g", x, lo, hi);
	model_ratio(&sc[2], &r[2], &sc[0], &r[0], MODEL_Q_TTT, &x, &lo, &hi);
	TEST_CHECK(t, lo <= x && x <= hi && hi / lo > w_scale, "gpu + estimate x%.3f wider than scale x%.3f", hi / lo, w_scale);
	double l[MODEL_NDIFFS][MODEL_NQUANTITIES] = {{0}}, h[MODEL_NDIFFS][MODEL_NQUANTITIES] = {{0}};
	l[MODEL_DIFF_GPU][MODEL_Q_TTT] = -0.03;
	h[MODEL_DIFF_GPU][MODEL_Q_TTT] = 0.04;
	l[MODEL_DIFF_SCALE][MODEL_Q_TTT] = -0.04;
	h[MODEL_DIFF_SCALE][MODEL_Q_TTT] = 0.03;
	model_ratio_bounds((const double(*)[MODEL_NQUANTITIES])l, (const double(*)[MODEL_NQUANTITIES])h,
			   1u << MODEL_DIFF_GPU | 1u << MODEL_DIFF_SCALE, MODEL_Q_TTT, 0.01, &lo, &hi);
	TEST_NEAR(t, lo, -0.06, 1e-12); /* -sqrt(0.03^2 + 0.04^2) - 0.01 */
	TEST_NEAR(t, hi, 0.06, 1e-12);
	hw_db_free(&db);
}

/* cal_ratio_derive pools a pair by its first difference; a difference without pairs takes every pair's. */
static void test_ratio_derive(test_ctx *t)
{
	const model_stacks R = MODEL_STACKS_REFERENCE, A = MODEL_STACKS_ANY;
	cal_rpair p[4] = {{MODEL_Q_TTT, 1u << MODEL_DIFF_GPU | 1u << MODEL_DIFF_SCALE, 0.10, A},
			  {MODEL_Q_TTT, 1u << MODEL_DIFF_SCALE, -0.02, R},
			  {MODEL_Q_TTT, 1u << MODEL_DIFF_SCALE, 0.03, A},
			  {MODEL_Q_TTA, 1u << MODEL_DIFF_SCALE, 0.50, R}};
	cal_rtable *tb = xmalloc(sizeof(*tb));
	TEST_CHECK(t, cal_ratio_pool(p[0].differs) == MODEL_DIFF_GPU, "gpu first");
	TEST_CHECK(t, cal_ratio_derive(p, 4, -1, tb) == 0, "derives");
	TEST_CHECK(t, tb->n[A][MODEL_DIFF_GPU][MODEL_Q_TTT] == 1 && fabs(tb->hi[A][MODEL_DIFF_GPU][MODEL_Q_TTT] - 0.10) < 1e-12,
		   "gpu pool: the one pair");
	/* -0.02 and 0.03: +-the largest |rho| (few pairs: model_interval_conformal's |rho| rule) */
	TEST_NEAR(t, tb->lo[A][MODEL_DIFF_SCALE][MODEL_Q_TTT], -0.03, 1e-12);
	TEST_NEAR(t, tb->hi[A][MODEL_DIFF_SCALE][MODEL_Q_TTT], 0.03, 1e-12);
	TEST_CHECK(t, tb->n[A][MODEL_DIFF_STACK][MODEL_Q_TTT] == 3 && fabs(tb->hi[A][MODEL_DIFF_STACK][MODEL_Q_TTT] - 0.10) < 1e-12,
		   "stack: no pair, every ttt pair's");
	TEST_NEAR(t, tb->hi[A][MODEL_DIFF_SCALE][MODEL_Q_TTA], 0.50, 1e-12);
	/* reference stacks: their own pairs only (-0.02 alone: +-0.02), else any stacks' row */
	TEST_NEAR(t, tb->lo[R][MODEL_DIFF_SCALE][MODEL_Q_TTT], -0.02, 1e-12);
	TEST_NEAR(t, tb->hi[R][MODEL_DIFF_SCALE][MODEL_Q_TTT], 0.02, 1e-12);
	TEST_CHECK(t, fabs(tb->hi[R][MODEL_DIFF_GPU][MODEL_Q_TTT] - 0.10) < 1e-12, "reference gpu: no pair, any stacks' row");
	TEST_CHECK(t, cal_ratio_derive(p, 0, -1, tb) != 0, "no pair: an error");
	free(tb);
}

int main(void)
{
	test_ctx t = {0};
	test_conformal_small(&t);
	test_conformal_symmetric(&t);
	test_conformal_asymmetric(&t);
	test_combine(&t);
	test_derive(&t);
	test_growth(&t);
	test_tta_interval(&t);
	test_transfer_miss(&t);
	test_basis_predict(&t);
	test_ratio(&t);
	test_ratio_derive(&t);
	return test_report(&t);
}
