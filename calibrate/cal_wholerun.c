/* calibrate/cal_wholerun.c: validate's whole-run group scored. Every MLPerf v4.0 multi-node ResNet-50
 * result predicted end to end (ttt_s against the scored run_start..run_stop, tta_s against
 * init_start..run_stop) from the same submitter's single-node result of the round, as a user would: its
 * measured throughput as --measured, the database's node for its GPU, the run-level terms (start-up,
 * warm-up, evaluation, epoch boundary) fitted to the phase table without the organisation being predicted
 * (leave-one-submitter-out). Data: refdata/mlperf_v4_0_phases.csv (cal_phases.c). Epochs enter twice: the
 * epochs the runs logged (what the throughput and phase model alone are judged on) and the model's
 * convergence curve at the run's global batch (what a planner would predict). Prints nothing.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal.h"
#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"
#include "plan/plan.h"

/* One MLPerf result (the runs of one submitter's system), scored as MLPerf scores ResNet-50: of five
 * runs the fastest and slowest are dropped and the other three averaged. */
typedef struct vresult {
	const cal_phase_row *first;  /* a run of it, for names and placement */
	int nruns;
	double run_s, tta_s, epochs; /* scored means (by run_s) */
	double img_s;                /* mean warm-epoch throughput over its successful runs */
} vresult;

static int cmp_run(const void *a, const void *b)
{
	double x = (*(const cal_phase_row *const *)a)->run_s, y = (*(const cal_phase_row *const *)b)->run_s;
	return x < y ? -1 : x > y;
}

/* Scores the successful runs of (submitter, system) of rows[i]. */
static void score(const cal_phase_row *rows, int n, int i, vresult *v)
{
	const cal_phase_row *ok[64];
	int k = 0;
	memset(v, 0, sizeof *v);
	v->first = &rows[i];
	for (int j = 0; j < n && k < 64; j++)
		if (strcmp(rows[j].submitter, rows[i].submitter) == 0 && strcmp(rows[j].system, rows[i].system) == 0 &&
		    strcmp(rows[j].status, "success") == 0 && rows[j].run_s > 0 && rows[j].tta_s > 0)
			ok[k++] = &rows[j];
	v->nruns = k;
	v->run_s = v->tta_s = v->epochs = v->img_s = NAN;
	if (k == 0)
		return;
	qsort(ok, (size_t)k, sizeof *ok, cmp_run);
	int lo = k >= 5 ? 1 : 0, hi = k >= 5 ? k - 1 : k;
	double rs = 0, ts = 0, es = 0, is = 0;
	for (int j = lo; j < hi; j++)
		rs += ok[j]->run_s, ts += ok[j]->tta_s, es += ok[j]->epochs_to_target;
	for (int j = 0; j < k; j++)
		is += ok[j]->train_img_s;
	v->run_s = rs / (hi - lo);
	v->tta_s = ts / (hi - lo);
	v->epochs = es / (hi - lo);
	v->img_s = is / k;
}

/* The database system of a result's GPU with its GPUs per node (and a network, for several nodes). */
static const hw_system *system_for(const hw_db *db, const cal_phase_row *r)
{
	const char *acc = r->accelerator;
	const hw_gpu *g = hw_gpu_find(db, acc);
	plan_spec spec;
	plan_spec_init(&spec);
	if (!g && strncmp(acc, "NVIDIA ", 7) == 0)
		g = hw_gpu_find(db, acc + 7);
	for (int i = 0; g && i < db->nsystems; i++) {
		const hw_system *s = &db->systems[i];
		if (s->gpu == g && s->gpus_per_node == (int)r->gpus_per_node &&
		    plan_joinable(&spec, s, s->gpus_per_node, (int)r->nodes))
			return s;
	}
	return NULL;
}

/* Predicts a result with `epochs` (0: the convergence curve's): 0 and *ttt, *tta, *ep; ERR_INPUT (err set)
 * when the scenario fails. */
static int predict(const hw_db *db, const hw_system *sys, const vresult *t, const vresult *anchor,
		   const cal_phase_fit *f, double epochs, double *ttt, double *tta, double *ep)
{
	const cal_phase_row *r = t->first, *a = anchor->first;
	plan_spec spec;
	model_params p;
	model_scenario sc;
	model_result res;

	plan_spec_init(&spec);
	spec.system_id = sys->id;
	spec.precision = MODEL_FP16; /* the v4.0 NVIDIA MXNet stack trains in fp16 */
	spec.global_batch = (int)r->global_batch;
	spec.epochs = epochs;
	spec.measured[0].gpus = (int)a->gpus;
	spec.measured[0].batch_per_gpu = (int)(a->global_batch / a->gpus);
	spec.measured[0].img_s = anchor->img_s;
	spec.nmeasured = 1;
	model_params_default(&p);
	cal_phase_fit_apply(f, &p);
	if (plan_resolve(db, &spec, &p, sys, (int)r->gpus_per_node, (int)r->nodes, &sc))
		return ERR_INPUT;
	if (model_predict(&sc, &p, &res) != 0 || !res.fits)
		return err_set("the model does not fit the run on %s", sys->id);
	*ttt = res.ttt_s;
	*tta = res.tta_s;
	*ep = res.epochs;
	return 0;
}

static double err_add(cal_wr_err *e, double pred, double meas)
{
	double x = pred / meas - 1;
	if (isfinite(x)) {
		e->n++;
		e->sum += fabs(x);
		e->signed_sum += x;
		e->worst = fmax(e->worst, fabs(x));
	}
	return x;
}

/* The single-node result of rows[i]'s submitter with the same GPU and node size: its index, or -1. */
static int anchor_of(const cal_phase_row *rows, int n, const cal_phase_row *r)
{
	for (int j = 0; j < n; j++)
		if (strcmp(rows[j].submitter, r->submitter) == 0 && rows[j].nodes == 1 &&
		    rows[j].gpus_per_node == r->gpus_per_node && strcmp(rows[j].accelerator, r->accelerator) == 0 &&
		    strcmp(rows[j].status, "success") == 0 && rows[j].global_batch >= 1 && rows[j].global_batch < 1e9 &&
		    rows[j].train_img_s > 0)
			return j;
	return -1;
}

/* rows[i] starts a multi-node result not met before (the first run of its submitter and system). */
static bool first_of_result(const cal_phase_row *rows, int i)
{
	const cal_phase_row *r = &rows[i];
	for (int j = 0; j < i; j++)
		if (strcmp(rows[j].submitter, r->submitter) == 0 && strcmp(rows[j].system, r->system) == 0)
			return false;
	return r->nodes > 1 && r->nodes < 1e6 && r->gpus_per_node >= 1 && r->gpus_per_node < 1e6 &&
	       r->global_batch >= 1 && r->global_batch < 1e9;
}

/* Scores one result (rows[i], its scored runs t) into *o, adding to w's error sums. */
static void score_result(const hw_db *db, const cal_phase_row *rows, int n, int i, const vresult *t,
			 const model_params *dp, cal_wholerun *w, cal_wr_result *o)
{
	const cal_phase_row *r = &rows[i];
	vresult a;
	memset(o, 0, sizeof *o);
	snprintf(o->name, sizeof o->name, "%s/%s", r->submitter, r->system);
	o->nodes = r->nodes;
	o->gpus = r->gpus;
	int ai = anchor_of(rows, n, r);
	const hw_system *sys = system_for(db, r);
	if (ai < 0 || !sys) {
		o->status = CAL_WR_SKIPPED;
		o->why = ai < 0 ? "no single-node result of the same GPU from this submitter in v4.0"
				: "no system in the database with this GPU and node size";
		return;
	}
	score(rows, n, ai, &a);
	snprintf(o->anchor, sizeof o->anchor, "%s", a.first->system);
	char org[64];
	cal_phase_org(r->submitter, org, sizeof org);
	cal_phase_fit f;
	if (cal_phase_fit_rows(rows, n, org, dp->dataset_B, &f) < 0 ||
	    cal_phase_anchor(&f, rows, n, a.first->submitter, a.first->system, dp->dataset_B) < 0) {
		o->status = CAL_WR_FIT_FAILED;
		snprintf(o->err, sizeof o->err, "%s", err_msg());
		return;
	}
	o->ttt_s = o->tta_s = o->epochs = o->ttt_curve_s = o->tta_curve_s = o->epochs_curve = NAN;
	if (predict(db, sys, t, &a, &f, t->epochs, &o->ttt_s, &o->tta_s, &o->epochs) < 0 ||
	    predict(db, sys, t, &a, &f, 0, &o->ttt_curve_s, &o->tta_curve_s, &o->epochs_curve) < 0) {
		o->status = CAL_WR_PREDICT_FAILED;
		snprintf(o->err, sizeof o->err, "%s", err_msg());
		return;
	}
	o->status = CAL_WR_PREDICTED;
	o->run_meas_s = t->run_s;
	o->tta_meas_s = t->tta_s;
	o->err_ttt = err_add(&w->ttt, o->ttt_s, t->run_s);
	o->err_curve = err_add(&w->curve, o->ttt_curve_s, t->run_s);
	o->err_tta = err_add(&w->tta, o->tta_s, t->tta_s);
}

int cal_wholerun_score(const hw_db *db, cal_wholerun *w)
{
	cal_phase_row *rows = NULL;
	int n = 0;
	model_params dp;

	memset(w, 0, sizeof *w);
	if (cal_phases_builtin(&rows, &n) < 0)
		return ERR_ENV;
	model_params_default(&dp);
	w->res = xcalloc((size_t)n + 1, sizeof *w->res);
	for (int i = 0; i < n; i++) {
		vresult t;
		if (intr_pending()) {
			free(rows);
			return ERR_INTR;
		}
		if (!first_of_result(rows, i))
			continue;
		score(rows, n, i, &t);
		if (t.nruns == 0)
			continue;
		score_result(db, rows, n, i, &t, &dp, w, &w->res[w->n++]);
	}
	free(rows);
	return 0;
}

void cal_wholerun_free(cal_wholerun *w)
{
	free(w->res);
	memset(w, 0, sizeof *w);
}
