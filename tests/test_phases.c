/* tests/test_phases.c - the first epoch's cold read across node counts: the model's term
 * (model_cold_read_s, cold_read_node_exp) and its fit (cal_phase_fit_rows, cal_phase_anchor).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal.h"
#include "common/common.h"
#include "model/model.h"
#include "model/model_internal.h" /* tests of model/'s parts */
#include "test.h"

/* By hand: 1e11 B at 2e9 B/s is 50 s on one node; 16 nodes read it 16x faster with the exponent 1
 * (3.125 s), 4x with 0.5 (12.5 s), not faster with 0. */
static void test_cold_read_term(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	p.dataset_B = 1e11, p.cold_read_Bps = 2e9;
	p.cold_read_node_exp = 1;
	TEST_NEAR(t, model_cold_read_s(&p, 1), 50, 1e-12);
	TEST_NEAR(t, model_cold_read_s(&p, 16), 3.125, 1e-12);
	p.cold_read_node_exp = 0.5;
	TEST_NEAR(t, model_cold_read_s(&p, 1), 50, 1e-12);
	TEST_NEAR(t, model_cold_read_s(&p, 16), 12.5, 1e-12);
	p.cold_read_node_exp = 0;
	TEST_NEAR(t, model_cold_read_s(&p, 64), 50, 1e-12);
	model_params_default(&p);
	TEST_CHECK(t, p.cold_read_node_exp > 0 && p.cold_read_node_exp < 1, "default exponent %g",
		   p.cold_read_node_exp);
}

/* One made-up run of organisation `org` at `nodes` nodes: warm epoch w, first epoch w + extra; the other
 * phases exact forms (as test_cal_mllog.c's test_phase_fit) so that the whole fit runs. */
static void make_run(cal_phase_row *r, const char *org, double nodes, double w, double extra)
{
	memset(r, 0, sizeof *r);
	snprintf(r->submitter, sizeof r->submitter, "%s", org);
	snprintf(r->system, sizeof r->system, "%s_n%g", org, nodes);
	strcpy(r->status, "success");
	strcpy(r->accelerator, "GPU X");
	r->blocks = 9, r->nodes = nodes, r->gpus_per_node = 8, r->gpus = 8 * nodes, r->global_batch = 3200;
	r->epochs = 35, r->train_samples = 1281167, r->eval_samples = 50000;
	r->warm_epoch_s = w, r->first_epoch_extra_s = extra, r->first_epoch_s = w + extra;
	r->train_img_s = 1281167 / w, r->run_s = 35 * w + extra;
	r->init_s = 30 + 2 * nodes, r->init_to_run_s = 0;
	r->eval_pass_s = 0.005 + 0.4 * 50000 / r->train_img_s;
	r->boundary_s = 35 * 0.25 * 3200 / r->train_img_s;
	r->lead_s = 1, r->eval_first_s = r->eval_pass_s;
}

/* Three organisations whose first epoch is exactly max(warm, 1e11 / (2e9 x nodes^0.7)): 50 s at one node
 * (warm 20 s), 18.9 s at 4 (warm 6 s), 7.2 s at 16 (warm 1.5 s), 2.7 s at 64 (warm 0.4 s). The fit finds
 * the exponent (to its 0.001 grid) from each multi-node run against its single-node runs, then the rate
 * (2e9); an organisation left out leaves its pairs out; a table of single-node runs has no pair and keeps
 * the exponent 1. Anchoring at 4 nodes on a 30 s first epoch gives 1e11 / (4^0.7 x 30). */
static void test_node_exp_fit(test_ctx *t)
{
	enum { NORG = 3, NPER = 4, N = NORG * NPER };
	static const double nodes[NPER] = {1, 4, 16, 64}, warm[NPER] = {20, 6, 1.5, 0.4};
	cal_phase_row rows[N];
	cal_phase_fit f;
	char org[16];

	for (int o = 0; o < NORG; o++)
		for (int k = 0; k < NPER; k++) {
			double cold = 1e11 / (2e9 * pow(nodes[k], 0.7));
			snprintf(org, sizeof org, "org%d", o);
			make_run(&rows[o * NPER + k], org, nodes[k], warm[k] * (1 + 0.1 * o), fmax(0, cold - warm[k] * (1 + 0.1 * o)));
		}
	TEST_CHECK(t, cal_phase_fit_rows(rows, N, NULL, 1e11, &f) == 0, "fit: %s", err_msg());
	TEST_CHECK(t, f.cold_pairs == NORG * (NPER - 1), "pairs %d", f.cold_pairs);
	TEST_NEAR(t, f.cold_read_node_exp, 0.7, 1e-9);
	TEST_NEAR(t, f.cold_read_Bps, 2e9, 1e-6);
	TEST_CHECK(t, cal_phase_fit_rows(rows, N, "org1", 1e11, &f) == 0 && f.cold_pairs == (NORG - 1) * (NPER - 1),
		   "org1 left out: %d pairs", f.cold_pairs);
	/* single-node runs only: no pair, the exponent 1 (each node its share) */
	cal_phase_row one[NORG];
	for (int o = 0; o < NORG; o++)
		one[o] = rows[o * NPER];
	TEST_CHECK(t, cal_phase_fit_rows(one, NORG, NULL, 1e11, &f) == 0, "fit: %s", err_msg());
	TEST_CHECK(t, f.cold_pairs == 0 && f.cold_read_node_exp == 1.0, "no pair: %d, exponent %g", f.cold_pairs,
		   f.cold_read_node_exp);
	/* anchoring: the rate from the anchor's first epoch through the fitted exponent */
	cal_phase_row a[3];
	for (int i = 0; i < 3; i++)
		make_run(&a[i], "me", 4, 20, 10);
	f = (cal_phase_fit){.startup_s = 30, .run_lead_s = 1, .cold_read_Bps = 4e9, .cold_read_node_exp = 0.7,
			    .cold_pairs = 5};
	TEST_CHECK(t, cal_phase_anchor(&f, a, 3, "me", NULL, 1e11) == 0, "anchor: %s", err_msg());
	TEST_NEAR(t, f.cold_read_Bps, 1e11 / (pow(4, 0.7) * 30), 1e-12);
	f.cold_pairs = 0, f.cold_read_Bps = 4e9;   /* a fit without pairs: the exponent 1 */
	TEST_CHECK(t, cal_phase_anchor(&f, a, 3, "me", NULL, 1e11) == 0, "anchor: %s", err_msg());
	TEST_NEAR(t, f.cold_read_Bps, 1e11 / (4 * 30.0), 1e-12);
}

/* The built-in v4.0 table: the exponent fitted to all of it is the model's default (to the 0.005 of the
 * printed figure), below 1 (a first epoch that shrinks less than 1/nodes), and leaving out any one of
 * the organisations with multi-node results moves it by less than 0.05. */
static void test_node_exp_v4(test_ctx *t)
{
	cal_phase_row *rows;
	int n;
	cal_phase_fit f, g;
	model_params p;
	static const char *orgs[] = {"HPE", "NVIDIA", "Oracle", "smc"};

	model_params_default(&p);
	TEST_CHECK(t, cal_phases_builtin(&rows, &n) == 0, "builtin: %s", err_msg());
	TEST_CHECK(t, cal_phase_fit_rows(rows, n, NULL, p.dataset_B, &f) == 0, "fit: %s", err_msg());
	TEST_CHECK(t, f.cold_pairs >= 20, "pairs %d", f.cold_pairs);
	TEST_CHECK(t, fabs(f.cold_read_node_exp - p.cold_read_node_exp) <= 0.005, "fit %g vs default %g",
		   f.cold_read_node_exp, p.cold_read_node_exp);
	TEST_CHECK(t, fabs(f.cold_read_Bps / p.cold_read_Bps - 1) <= 0.005, "rate fit %g vs default %g", f.cold_read_Bps,
		   p.cold_read_Bps);
	for (int i = 0; i < 4; i++) {
		TEST_CHECK(t, cal_phase_fit_rows(rows, n, orgs[i], p.dataset_B, &g) == 0 && g.cold_pairs < f.cold_pairs &&
				      fabs(g.cold_read_node_exp - f.cold_read_node_exp) < 0.05,
			   "without %s: %d pairs, exponent %g", orgs[i], g.cold_pairs, g.cold_read_node_exp);
	}
	free(rows);
}

int main(void)
{
	test_ctx t = {0};
	test_cold_read_term(&t);
	test_node_exp_fit(&t);
	test_node_exp_v4(&t);
	return test_report(&t);
}
