/* tests/test_plan_sweep.c: sweep's grid (plan/plan_sweep.c) on dgxh100 of the built-in database: every point
 * of the grid is done and either gives a row or is counted as skipped for one reason, GPUs per node beyond the
 * node's and GPU counts that do not divide --global-batch are skipped, a grid of goal PLAN_GRID streams its
 * rows and keeps none, the ranked rows follow plan_sweep_rank_cmp (time to accuracy first), the regrouping by
 * GPU count counts each count once, and a row predicted again gives the time it was judged on.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "hwdb/hw.h"
#include "plan/plan.h"
#include "test.h"

static void count_row(void *ctx, const model_scenario *sc, const model_result *r, const model_cost *c,
		      const plan_verdict *v)
{
	(void)sc;
	(void)r;
	(void)c;
	(void)v;
	(*(long *)ctx)++;
}

static void say(void *ctx, const char *system_id)
{
	(void)ctx;
	fprintf(stderr, "test_plan_sweep: %s: %s\n", system_id ? system_id : "(block)", err_msg());
}

/* Every point accounted for: a row, or one of the reasons. */
static long accounted(const plan_sweep *g)
{
	return g->written + g->skipped_net + g->skipped_budget + g->skipped_gpn + g->skipped_partial + g->skipped_gb +
	       g->skipped_epoch + g->skipped_nofit_block;
}

/* A grid's question over the database's defaults: spec, parameters, question (goal), rows streamed. */
typedef struct fixture {
	plan_spec s;
	model_params p;
	plan_question q;
	long streamed;
	plan_sweep g;
} fixture;

static void setup(fixture *f, const hw_db *db, plan_goal goal)
{
	plan_spec_init(&f->s);
	model_params_default(&f->p);
	plan_question_init(&f->q);
	f->q.goal = goal;
	f->streamed = 0;
	f->g = (plan_sweep){.db = db, .spec = &f->s, .params = &f->p, .q = &f->q, .row = count_row, .say = say,
			    .ctx = &f->streamed};
}

static void test_grid(test_ctx *t, const hw_db *db, const hw_system *sys)
{
	static const int nodes[] = {1, 2, 4, 8}, gpns[] = {8, 16};
	fixture *f = xmalloc(sizeof(*f));
	setup(f, db, PLAN_TTA);
	plan_sweep g = f->g;
	g.nodes = nodes;
	g.nn = 4;
	g.gpns = gpns;
	g.ng = 2;
	TEST_CHECK(t, plan_sweep_total(&g, 1) == 8, "1 system x 2 GPUs per node x 4 node counts: %ld",
		   plan_sweep_total(&g, 1));
	TEST_CHECK(t, plan_sweep_grid(&g, &sys, 1) == 0, "grid: %s", err_msg());
	TEST_CHECK(t, g.total == 8 && g.done == g.total, "%ld of %ld done", g.done, g.total);
	TEST_CHECK(t, g.skipped_gpn == 4, "16 GPUs per node on an 8-GPU node: 4 skipped, %ld", g.skipped_gpn);
	TEST_CHECK(t, accounted(&g) == g.total, "%ld accounted for of %ld", accounted(&g), g.total);
	TEST_CHECK(t, g.written > 0 && g.nrows == g.written && f->streamed == 0,
		   "ranked goal: %ld rows kept of %ld written, %ld streamed", g.nrows, g.written, f->streamed);
	TEST_CHECK(t, g.nblocks == 1, "one block prepared: %d", g.nblocks);
	qsort(g.rows, (size_t)g.nrows, sizeof(*g.rows), plan_sweep_rank_cmp);
	for (long i = 0; i + 1 < g.nrows; i++) {
		const plan_sweep_row *a = &g.rows[i], *b = &g.rows[i + 1];
		TEST_CHECK(t, plan_sweep_rank_cmp(a, b) <= 0, "row %ld before row %ld", i, i + 1);
		if (!a->v.fails && !b->v.fails)
			TEST_CHECK(t, a->v.time_s <= b->v.time_s, "qualifying rows by time: %g s then %g s", a->v.time_s,
				   b->v.time_s);
	}
	for (long i = 0; i < g.nrows; i++) {
		model_scenario *sc;
		model_result r;
		model_cost c;
		TEST_CHECK(t, plan_sweep_predict(&g, i, &sc, &r, &c) == 0, "row %ld predicted again", i);
		TEST_CHECK(t, sc->nodes == g.rows[i].nodes && r.gpus == g.rows[i].gpus, "row %ld: %d nodes, %d GPUs", i,
			   sc->nodes, r.gpus);
		TEST_NEAR(t, r.tta_s, g.rows[i].v.time_s, 1e-12);
	}
	plan_option *opt = xcalloc(PLAN_SWEEP_TOP, sizeof(*opt));
	int n = plan_sweep_options(&g, 0, g.nrows, opt);
	TEST_CHECK(t, n >= 1 && n <= g.nrows, "%d options of %ld rows", n, g.nrows);
	free(opt);
	model_scenario wsc;
	model_result wr;
	model_cost wc;
	double flip_x = 0;
	TEST_CHECK(t, plan_sweep_pick(&g, &wsc, &wr, &wc, &flip_x) && wsc.node.system_id && !strcmp(wsc.node.system_id, sys->id),
		   "a pick on %s", sys->id);
	TEST_CHECK(t, isnan(flip_x) || (flip_x > 0.25 && flip_x < 1), "the pick rests on %g: NAN or inside the search", flip_x);
	long marked = 0; /* the CSV's pick column reads the flag on the winner's row: one row, the pick's placement */
	for (long i = 0; i < g.nrows; i++)
		if (g.rows[i].v.pick) {
			marked++;
			TEST_CHECK(t, g.rows[i].nodes == wsc.nodes && g.rows[i].batch == wsc.batch_per_gpu,
				   "the marked row is the pick: %d nodes, batch %d", g.rows[i].nodes, g.rows[i].batch);
			TEST_CHECK(t, isnan(flip_x) ? isnan(g.rows[i].v.flip_speed_x) : g.rows[i].v.flip_speed_x == flip_x,
				   "the marked row carries what the pick rests on: %g", g.rows[i].v.flip_speed_x);
		}
	TEST_CHECK(t, marked == 1, "one row marked the pick: %ld", marked);
	long counts = plan_sweep_by_gpus(&g);
	TEST_CHECK(t, counts == g.nrows, "each row its own GPU count here: %ld counts, %ld rows", counts, g.nrows);
	for (long i = 0; i + 1 < g.nrows; i++)
		TEST_CHECK(t, g.rows[i].gpus < g.rows[i + 1].gpus, "by GPU count: %d then %d", g.rows[i].gpus,
			   g.rows[i + 1].gpus);
	plan_sweep_free(&g);
	free(f);
}

/* --global-batch: a GPU count that does not divide it is skipped; --rank-by none streams every row. */
static void test_streamed(test_ctx *t, const hw_db *db, const hw_system *sys)
{
	static const int nodes[] = {1, 2, 4}, batches[] = {64, 128};
	fixture *f = xmalloc(sizeof(*f));
	setup(f, db, PLAN_GRID);
	plan_sweep g = f->g;
	g.nodes = nodes;
	g.nn = 3;
	g.global_batch = 1000; /* 8 GPUs: 125 each; 16 and 32 GPUs do not divide it */
	TEST_CHECK(t, plan_sweep_grid(&g, &sys, 1) == 0, "grid: %s", err_msg());
	TEST_CHECK(t, g.skipped_gb == 2 && g.written == 1, "%ld skipped for the global batch, %ld written",
		   g.skipped_gb, g.written);
	TEST_CHECK(t, f->streamed == g.written && g.nrows == 0, "%ld streamed of %ld written, %ld kept", f->streamed,
		   g.written, g.nrows);
	plan_sweep_free(&g);
	setup(f, db, PLAN_GRID);
	g = f->g;
	g.nodes = nodes;
	g.nn = 3;
	g.batches = batches;
	g.nb = 2;
	TEST_CHECK(t, plan_sweep_grid(&g, &sys, 1) == 0, "grid: %s", err_msg());
	TEST_CHECK(t, g.total == 6 && accounted(&g) == 6 && f->streamed == g.written, "%ld points, %ld accounted, %ld "
		   "streamed of %ld", g.total, accounted(&g), f->streamed, g.written);
	plan_sweep_free(&g);
	free(f);
}

int main(void)
{
	test_ctx t = {0};
	hw_db db;
	if (hw_db_load_default(&db, stderr) != 0) {
		fprintf(stderr, "built-in database: %s\n", err_msg());
		return 1;
	}
	const hw_system *sys = hw_system_find(&db, "dgxh100");
	TEST_CHECK(&t, sys && sys->gpus_per_node == 8, "dgxh100 in the database, 8 GPUs a node");
	if (sys) {
		test_grid(&t, &db, sys);
		test_streamed(&t, &db, sys);
	}
	hw_db_free(&db);
	return test_report(&t);
}
