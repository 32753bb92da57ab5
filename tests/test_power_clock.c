/* tests/test_power_clock.c: a board whose power is below what its silicon's clock needs runs at the clock its
 * power allows (model_power_clock_x), applied by plan_resolve from the database's power sibling.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"
#include "plan/plan.h"
#include "tests/test.h"

/* By hand: the sibling draws 0.8 x 400 W = 320 W at the shared clock; a 250 W board holds cbrt(250 / 320) of
 * it (P ~ f^3); 400 W or more: the full clock. A board with 0.764 of the sibling's peak at 0.885 of its clock
 * needs 0.8 x 700 x 0.764 x 0.885^2 = 335 W: a 350 W board is not limited. */
static void test_formula(test_ctx *t)
{
	TEST_NEAR(t, model_power_clock_x(250, 400, 1.0, 1.0, 0.8), cbrt(250.0 / 320.0), 1e-12);
	TEST_NEAR(t, model_power_clock_x(300, 400, 1.0, 1.0, 0.8), cbrt(300.0 / 320.0), 1e-12);
	TEST_CHECK(t, model_power_clock_x(400, 400, 1.0, 1.0, 0.8) == 1.0, "the sibling's own power: full clock");
	TEST_CHECK(t, model_power_clock_x(350, 700, 0.764, 0.885, 0.8) == 1.0, "needs %.0f W of 350",
		   0.8 * 700 * 0.764 * 0.885 * 0.885);
	TEST_CHECK(t, model_power_clock_x(250, NAN, 1.0, 1.0, 0.8) == 1.0 && model_power_clock_x(0, 400, 1, 1, 0.8) == 1.0,
		   "unknown figures: no limit");
	double a = model_power_clock_x(200, 400, 1.0, 1.0, 0.8), b = model_power_clock_x(250, 400, 1.0, 1.0, 0.8);
	TEST_CHECK(t, a < b && b < 1.0, "less power, lower clock: %g < %g < 1", a, b);
}

/* On the built-in database: the A100 PCIe boards (250 W, 300 W) get their SXM4 sibling's peak times the clock
 * their power allows; the SXM4 and the H100 PCIe (its 350 W holds its own, lower, datasheet clock) are as the
 * datasheet says. */
static void test_resolved(test_ctx *t)
{
	hw_db db;
	model_params p;
	static const struct {
		const char *gpu;
		double want_x;
	} cases[] = {{"A100-PCIe-40GB", 0}, {"A100-PCIe-80GB", 0}, {"A100-SXM4-80GB", 1}, {"H100-PCIe-80GB", 1}};
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "%s", err_msg());
	model_params_default(&p);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const hw_gpu *g = hw_gpu_find(&db, cases[k].gpu);
		plan_spec spec;
		model_scenario sc;
		plan_spec_init(&spec);
		spec.system_id = strstr(cases[k].gpu, "SXM") ? "dgxa100-80g" : strstr(cases[k].gpu, "H100") ? "dgxh100"
				 : "dss8440-a100-pcie-40g";
		spec.gpu_id = cases[k].gpu;
		TEST_CHECK(t, g && plan_resolve(&db, &spec, &p, NULL, 0, 0, &sc) == 0, "%s: %s", cases[k].gpu, err_msg());
		double want = cases[k].want_x > 0 ? cases[k].want_x : cbrt(g->tdp_W / (p.power_frac * 400.0));
		TEST_NEAR(t, sc.node.peak_flops / hw_gpu_peak_flops(g, "bf16"), want, 1e-12);
		TEST_NEAR(t, sc.node.fp32_flops / g->fp32_flops, want, 1e-12);
	}
	hw_db_free(&db);
}

int main(void)
{
	test_ctx t = {0};
	test_formula(&t);
	test_resolved(&t);
	return test_report(&t);
}
