/* plan_sweep.c: sweep's procurement grid - systems x GPUs per node x nodes x batch per GPU - predicted and
 * judged point by point (each system and GPUs-per-node prepared once, each point one model_predict), the rows
 * kept ranked by the question's order, and the contenders a decision picks from (the time-cost front). The
 * rows are streamed or written by the caller; nothing here prints.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "plan/plan_internal.h"

static double order_num(double x)
{
	return isfinite(x) ? x : INFINITY;
}

int plan_sweep_rank_cmp(const void *a, const void *b)
{
	const plan_sweep_row *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	if (x->k3 != y->k3)
		return x->k3 < y->k3 ? -1 : 1;
	if (x->block != y->block)
		return x->block - y->block;
	return x->nodes != y->nodes ? x->nodes - y->nodes : x->batch - y->batch;
}

static void keep(plan_sweep *g, const plan_verdict *v, const model_scenario *sc)
{
	if (g->nrows == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 4096;
		g->rows = xrealloc(g->rows, (size_t)g->cap * sizeof(*g->rows));
	}
	bool money = plan_cost_first(g->q);
	g->rows[g->nrows++] = (plan_sweep_row){*v, v->fails ? 1 : 0, order_num(money ? v->cost_usd : v->time_s),
					       order_num(money ? v->time_s : v->cost_usd), g->nblocks - 1, sc->nodes,
					       sc->batch_per_gpu, sc->nodes * sc->node.gpus_per_node};
}

/* One grid point: batch chosen, predicted, judged, streamed or kept. 0 or ERR_INPUT (g->say told). */
static int point(plan_sweep *g, model_scenario *sc, int auto_b, int batch)
{
	model_result r;
	model_cost cost;
	plan_verdict v;
	int gpus = sc->node.gpus_per_node * sc->nodes;
	sc->batch_per_gpu = g->nb ? batch : auto_b;
	if (!g->nb && !g->global_batch && sc->nodes > 1 && !g->spec->nmeasured && !plan_auto_batch(sc, g->params))
		sc->batch_per_gpu = auto_b; /* least time to accuracy at this size */
	if (g->global_batch) {
		if (g->global_batch % gpus) {
			g->skipped_gb++;
			return 0;
		}
		sc->batch_per_gpu = g->global_batch / gpus;
	}
	if (model_batch_over_epoch(sc)) {
		g->skipped_epoch++; /* a step would see images twice: refused */
		return 0;
	}
	if (model_predict(sc, g->params, &r)) {
		g->say(g->ctx, sc->node.system_id);
		return ERR_INPUT;
	}
	model_price_run(sc, g->params, &r, &cost);
	plan_judge(g->q, sc, &r, &cost, &v);
	if (g->constrained && r.fits && (v.fails & (PLAN_FAIL_BUDGET | PLAN_FAIL_DEADLINE | PLAN_FAIL_PRICE | PLAN_FAIL_SITE))) {
		g->skipped_budget++;
		return 0;
	}
	g->skipped_mem += !r.fits;
	g->written++;
	if (g->q->goal == PLAN_GRID) /* streamed before any pick exists: no ratio columns */
		g->row(g->ctx, sc, &r, &cost, &v);
	if (g->q->goal != PLAN_GRID || g->constrained)
		keep(g, &v, sc);
	return 0;
}

/* One block: a system with gpn GPUs per node, prepared once, over the nodes and batches of the grid.
 * 0, ERR_INPUT or ERR_INTR. */
static int block(plan_sweep *g, const hw_system *sys, int gpn)
{
	long per_block = (long)g->nn * (g->nb ? g->nb : 1);
	model_scenario sc;
	g->spec->batch_per_gpu = 0;
	g->spec->global_batch = 0;
	if (plan_resolve(g->db, g->spec, g->params, sys, gpn, 1, &sc)) { /* auto batch and calibration at one node */
		g->say(g->ctx, NULL);
		if (g->spec->nmeasured)
			return ERR_INPUT;
		g->skipped_nofit_block += per_block; /* e.g. nothing fits: the block is skipped, not the sweep */
		g->done += per_block;
		return 0;
	}
	int auto_b = sc.batch_per_gpu, rc;
	g->blocks = xrealloc(g->blocks, (size_t)(g->nblocks + 1) * sizeof(*g->blocks));
	g->block_sys = xrealloc(g->block_sys, (size_t)(g->nblocks + 1) * sizeof(*g->block_sys));
	g->block_sys[g->nblocks] = sys;
	g->blocks[g->nblocks++] = sc;
	for (int ni = 0; ni < g->nn; ni++) {
		sc.nodes = g->nodes[ni];
		plan_ref_rent_set(g->db, g->spec, sys, &sc); /* the rental for this count, as predict finds it */
		plan_shape k = plan_shape_check(g->spec, g->q, sys, gpn, sc.nodes);
		for (int bi = 0; bi < (g->nb ? g->nb : 1); bi++) {
			if (intr_pending())
				return ERR_INTR;
			g->done++;
			g->skipped_net += k == PLAN_SHAPE_NO_NET;
			g->skipped_partial += k == PLAN_SHAPE_PARTIAL;
			if (k == PLAN_SHAPE_OK && (rc = point(g, &sc, auto_b, g->nb ? g->batches[bi] : 0)))
				return rc;
		}
		if ((ni & 63) == 0 && g->progress)
			g->progress(g->ctx, g->done);
	}
	return 0;
}

long plan_sweep_total(const plan_sweep *g, int ncand)
{
	return (long)ncand * (g->ng ? g->ng : 1) * g->nn * (g->nb ? g->nb : 1);
}

int plan_sweep_grid(plan_sweep *g, const hw_system *const *cand, int ncand)
{
	long per_block = (long)g->nn * (g->nb ? g->nb : 1);
	g->total = plan_sweep_total(g, ncand);
	for (int k = 0; k < ncand; k++)
		for (int gi = 0; gi < (g->ng ? g->ng : 1); gi++) {
			int gpn = g->ng ? g->gpns[gi] : cand[k]->gpus_per_node, rc;
			if (gpn > cand[k]->gpus_per_node) {
				g->skipped_gpn += per_block;
				g->done += per_block;
				continue;
			}
			if ((rc = block(g, cand[k], gpn)))
				return rc;
		}
	return 0;
}

int plan_sweep_predict(const plan_sweep *g, long i, model_scenario **sc, model_result *r, model_cost *cost)
{
	*sc = &g->blocks[g->rows[i].block];
	(*sc)->nodes = g->rows[i].nodes;
	(*sc)->batch_per_gpu = g->rows[i].batch;
	plan_ref_rent_set(g->db, g->spec, g->block_sys[g->rows[i].block], *sc);
	if (model_predict(*sc, g->params, r))
		return ERR_INPUT;
	model_price_run(*sc, g->params, r, cost);
	return 0;
}

/* Rows by time, then money (NAN and INFINITY last), for the front. */
static int by_time(const void *a, const void *b)
{
	const plan_sweep_row *x = *(const plan_sweep_row *const *)a, *y = *(const plan_sweep_row *const *)b;
	double tx = order_num(x->v.time_s), ty = order_num(y->v.time_s);
	if (tx != ty)
		return tx < ty ? -1 : 1;
	double cx = order_num(x->v.cost_usd), cy = order_num(y->v.cost_usd);
	return cx < cy ? -1 : cx > cy;
}

/* The rows of [from, to) a decision sees: all that qualify where they fit pick[PLAN_SWEEP_TOP] (so a GPU count of
 * the grid is decided on what compare decides on: the same pick, scale up vs out and buy vs rent); else those on
 * plan_front (the fastest and each cheaper than every faster one, by the question's cost or per run: the pick is
 * among them, PLAN_RULE), in time order; a front longer than that keeps its fastest and its cheapest halves.
 * Returns how many. O(n log n). */
static int contenders(const plan_sweep *g, long from, long to, const plan_sweep_row **pick)
{
	const plan_sweep_row **q = xmalloc((size_t)(to - from + 1) * sizeof(*q));
	long n = 0, nf = 0;
	for (long i = from; i < to; i++)
		if (!g->rows[i].v.fails)
			q[n++] = &g->rows[i];
	qsort(q, (size_t)n, sizeof(*q), by_time);
	const plan_verdict **v = xmalloc((size_t)(n + 1) * sizeof(*v));
	bool *kept = xmalloc((size_t)(n + 1) * sizeof(*kept));
	for (long i = 0; i < n; i++)
		v[i] = &q[i]->v;
	plan_front(v, (int)n, kept);
	for (long i = 0; n <= PLAN_SWEEP_TOP && i < n; i++)
		kept[i] = true;
	for (long i = 0; i < n; i++)
		if (kept[i])
			q[nf++] = q[i];
	int k = 0;
	for (long i = 0; i < nf; i++)
		if (nf <= PLAN_SWEEP_TOP || i < PLAN_SWEEP_TOP / 2 || i >= nf - PLAN_SWEEP_TOP / 2)
			pick[k++] = q[i];
	free(v);
	free(kept);
	free(q);
	return k;
}

/* plan_sweep_options, with each option's row into row[] (NULL: not wanted). */
static int sweep_options(const plan_sweep *g, long from, long to, plan_option *opt, long *row)
{
	const plan_sweep_row *pick[PLAN_SWEEP_TOP];
	int m = contenders(g, from, to, pick), n = 0;
	for (int i = 0; i < m; i++) {
		opt[n].sc = g->blocks[pick[i]->block];
		opt[n].sc.nodes = pick[i]->nodes;
		opt[n].sc.batch_per_gpu = pick[i]->batch;
		plan_ref_rent_set(g->db, g->spec, g->block_sys[pick[i]->block], &opt[n].sc);
		if (model_predict(&opt[n].sc, g->params, &opt[n].r))
			continue; /* predicted once already: cannot fail */
		model_price_run(&opt[n].sc, g->params, &opt[n].r, &opt[n].cost);
		plan_option_judge(g->q, &opt[n]);
		const hw_gpu *gpu = hw_gpu_find(g->db, opt[n].sc.node.gpu_id);
		opt[n].generation = hw_gpu_generation(gpu);
		opt[n].chip = gpu && gpu->chip && *gpu->chip ? gpu->chip : opt[n].sc.node.gpu_id;
		if (row)
			row[n] = pick[i] - g->rows;
		n++;
	}
	return n;
}

int plan_sweep_options(const plan_sweep *g, long from, long to, plan_option *opt)
{
	return sweep_options(g, from, to, opt, NULL);
}

bool plan_sweep_pick(plan_sweep *g, model_scenario *sc, model_result *r, model_cost *cost, double *flip_x)
{
	plan_option *opt = xcalloc(PLAN_SWEEP_TOP, sizeof(*opt));
	long row[PLAN_SWEEP_TOP];
	plan_answer a;
	plan_flip f = {.speed_x = NAN};
	int n = sweep_options(g, 0, g->nrows, opt, row);
	plan_decide(g->q, opt, n, &a);
	if (flip_x) {
		plan_flip_find(g->q, opt, n, &a, g->params, &f);
		*flip_x = f.speed_x;
	}
	if (a.winner) {
		*sc = a.winner->sc;
		*r = a.winner->r;
		*cost = a.winner->cost;
		plan_verdict *v = &g->rows[row[a.winner - opt]].v; /* what the CSV marks, as compare's */
		v->pick = true;
		if (flip_x)
			v->flip_speed_x = f.speed_x;
	}
	free(opt);
	return a.winner != NULL;
}

static int by_gpus(const void *a, const void *b)
{
	const plan_sweep_row *x = a, *y = b;
	return x->gpus != y->gpus ? (x->gpus < y->gpus ? -1 : 1) : plan_sweep_rank_cmp(a, b);
}

long plan_sweep_by_gpus(plan_sweep *g)
{
	long counts = 0;
	qsort(g->rows, (size_t)g->nrows, sizeof(*g->rows), by_gpus);
	for (long i = 0; i < g->nrows; i++)
		counts += i == 0 || g->rows[i].gpus != g->rows[i - 1].gpus;
	return counts;
}

void plan_sweep_free(plan_sweep *g)
{
	free(g->rows);
	free(g->blocks);
	free(g->block_sys);
	g->rows = NULL;
	g->blocks = NULL;
	g->block_sys = NULL;
	g->nrows = g->cap = 0;
	g->nblocks = 0;
}
