/* cal_gpus.c: the GPU-generation constants of the model's compute (eff_compute, eff_mem, eff_compute_fp32)
 * fitted through plan_resolve + model_predict, the model that predicts, to the throughput of every GPU
 * the reference data holds, and the fit's leave-one-GPU-out, -submitter-out and -stack-out errors
 * (`scaleplan validate --group gpus`).
 *
 * Points: every MLPerf v4.0 single-node result of an NVIDIA GPU in the database (refdata/
 * mlperf_v4_0_phases.csv, warm-epoch img/s, the NVIDIA MLPerf MXNet stack: the model's reference, no free
 * factor), and the one-GPU runs of other stacks on two GPU generations (DeepLearningExamples V100 and A100,
 * PyTorch on the test beds' H100 and H200): each such stack and precision class gets a free speed factor
 * (its compute_eff, fitted by tools/fit_stack_eff.sh), so only the ratio between its GPUs (and batches)
 * informs the fit: refdata/one_gpu_runs.csv, the runs of every class with two or more.
 * Each GPU of a class weighs the same (the 15 H100 results count as one H100).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include "calibrate/cal.h"
#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"
#include "plan/plan.h"

enum { GP_MAX = 64 };

typedef struct gpoint {
	char label[96];
	const char *gpu;          /* database id */
	char submitter[64];       /* MLPerf submitter; "" for the other stacks' runs */
	char cls[48];             /* speed-factor class: "mlperf" (no factor) or stack/precision class */
	double img_s;             /* measured, the whole placement */
	model_scenario sc;
	bool out;                 /* left out of the fit in progress */
	double w;                 /* weight: 1 / points of the same GPU and class */
} gpoint;

typedef struct gset {
	gpoint *p;
	int n;
	model_params par;         /* the parameters the fit varies (others default) */
	int stage;                /* what fit() varies: 0 eff_compute and eff_mem on the GPUs with asynchronous
				   * (or no) tensor MMAs; 1 eff_compute_fp32 on every point */
} gset;

/* The database GPU of an MLPerf accelerator name ("NVIDIA H100 80GB HBM3"): as given, else without the
 * vendor. NULL when the database has none (RTX 4090, AMD). */
static const hw_gpu *mlperf_gpu(const hw_db *db, const char *acc)
{
	const hw_gpu *g = hw_gpu_find(db, acc);
	if (!g && strncmp(acc, "NVIDIA ", 7) == 0)
		g = hw_gpu_find(db, acc + 7);
	return g;
}

/* A database system to place an MLPerf node of `gpn` GPUs of this form on (its GPU replaced): the NVSwitch
 * or NVLink-mesh SXM servers, the PCIe-switch or host-attached PCIe servers. */
static const char *mlperf_host(const hw_gpu *g, int gpn)
{
	bool sxm = strcmp(g->form, "sxm") == 0;
	if (gpn >= 8)
		return sxm ? "dgxh100" : "dss8440-a100-pcie-40g";
	return sxm ? "xe8640-h100" : "r750xa-a100-pcie-80g";
}

static int point_resolve(const hw_db *db, const model_params *p, gpoint *gp, const char *system, const char *gpu,
			 const char *stack, model_precision prec, int data, int gpn, int batch)
{
	plan_spec s;
	plan_spec_init(&s);
	s.system_id = system;
	s.gpu_id = gpu;
	s.stack_id = stack;
	s.precision = prec;
	s.data = data;
	s.gpus_per_node = gpn;
	s.nodes = 1;
	s.batch_per_gpu = batch;
	if (plan_resolve(db, &s, p, NULL, gpn, 1, &gp->sc))
		return err_prefix("%s", gp->label);
	gp->sc.stack.compute_eff = NAN; /* the class factor stands for it */
	return 0;
}

/* Adds one point per (submitter, system) single-node v4.0 result: the mean warm-epoch img/s of its runs. */
static int add_mlperf(const hw_db *db, const model_params *p, gset *gs)
{
	cal_phase_row *rows = NULL;
	int nr = 0, rc = cal_phases_builtin(&rows, &nr);

	for (int i = 0; rc == 0 && i < nr; i++) {
		const cal_phase_row *r = &rows[i];
		bool seen = false;
		if (r->nodes != 1 || strcmp(r->status, "success") != 0 || !(r->train_img_s > 0))
			continue;
		for (int j = 0; j < i; j++)
			seen |= rows[j].nodes == 1 && strcmp(rows[j].status, "success") == 0 &&
				strcmp(rows[j].submitter, r->submitter) == 0 && strcmp(rows[j].system, r->system) == 0;
		const hw_gpu *g = mlperf_gpu(db, r->accelerator);
		if (seen || !g || gs->n >= GP_MAX)
			continue;
		double sum = 0;
		int k = 0;
		for (int j = i; j < nr; j++)
			if (rows[j].nodes == 1 && strcmp(rows[j].status, "success") == 0 && rows[j].train_img_s > 0 &&
			    strcmp(rows[j].submitter, r->submitter) == 0 && strcmp(rows[j].system, r->system) == 0) {
				sum += rows[j].train_img_s;
				k++;
			}
		gpoint *gp = &gs->p[gs->n];
		int gpn = (int)r->gpus_per_node;
		memset(gp, 0, sizeof(*gp));
		snprintf(gp->label, sizeof(gp->label), "%.20s/%.40s", r->submitter, r->system);
		snprintf(gp->submitter, sizeof(gp->submitter), "%s", r->submitter);
		snprintf(gp->cls, sizeof(gp->cls), "mlperf");
		gp->gpu = g->id;
		gp->img_s = sum / k;
		/* NVIDIA's v4.0 MXNet ResNet-50 trains in fp16 (config_*.sh) */
		rc = point_resolve(db, p, gp, mlperf_host(g, gpn), g->id, "ngc-mlperf", MODEL_FP16, -1, gpn,
				   (int)(r->global_batch / r->gpus + 0.5));
		if (rc == 0)
			gs->n++;
	}
	free(rows);
	return rc;
}

/* The speed-factor class of a one-GPU run: its stack and precision class (fp32/tf32 runs use the stack's
 * compute_eff_fp32, the others its compute_eff). */
static void run_class(const csv_table *t, int row, char *cls, size_t cap)
{
	int prec = model_precision_parse(t->cells[row][2]);
	bool full = prec == MODEL_FP32 || prec == MODEL_TF32;
	snprintf(cls, cap, "%s/%s", t->cells[row][0], full ? "fp32" : "lowp");
}

/* Whether a run's class has another run: a class's free factor absorbs a lone point, which then says nothing
 * about the GPUs' ratio or the batch dependence. */
static bool class_shared(const csv_table *t, int row)
{
	char a[48], b[48];
	run_class(t, row, a, sizeof(a));
	for (int j = 0; j < t->nrows; j++) {
		run_class(t, j, b, sizeof(b));
		if (j != row && strcmp(a, b) == 0)
			return true;
	}
	return false;
}

/* Adds the one-GPU runs of stacks other than MLPerf's (refdata/one_gpu_runs.csv: stack, system, precision,
 * batch_per_gpu, data, img_s, source) whose class has two or more runs. ERR_INPUT naming file:line. */
static int add_others(const hw_db *db, const model_params *p, gset *gs)
{
	csv_table t = { 0 };
	int rc = cal_one_gpu_runs(&t);
	for (int i = 0; rc == 0 && i < t.nrows && gs->n < GP_MAX; i++) {
		char **c = t.cells[i];
		gpoint *gp = &gs->p[gs->n];
		int prec = model_precision_parse(c[2]), data = model_data_parse(c[4]);
		long batch;
		if (!class_shared(&t, i))
			continue;
		memset(gp, 0, sizeof(*gp));
		if (prec < 0 || data < 0)
			rc = err_set("%s:%d: precision %s or data %s unknown", t.name, t.line[i], c[2], c[4]);
		if (rc == 0)
			rc = csv_cell_int(&t, i, 3, &batch);
		if (rc == 0)
			rc = csv_cell_double(&t, i, 5, &gp->img_s);
		if (rc)
			break;
		snprintf(gp->label, sizeof(gp->label), "%s %s %s b%ld (%s)", c[0], c[1], c[2], batch, c[6]);
		run_class(&t, i, gp->cls, sizeof(gp->cls));
		rc = point_resolve(db, p, gp, c[1], NULL, c[0], (model_precision)prec, data, 1, (int)batch);
		if (rc == 0) {
			gp->gpu = gp->sc.node.gpu_id;
			gs->n++;
		}
	}
	csv_table_free(&t);
	return rc;
}

/* log(measured / predicted) of every point under gs->par (NAN where the prediction fails). */
static void residuals(gset *gs, double *r)
{
	for (int i = 0; i < gs->n; i++) {
		model_result res;
		model_scenario *sc = &gs->p[i].sc;
		r[i] = NAN;
		if (model_scenario_prepare(sc, &gs->par) || model_predict(sc, &gs->par, &res) || !res.fits)
			continue;
		r[i] = log(gs->p[i].img_s / res.throughput_img_s);
	}
}

/* Whether point i is out of the fit in progress: left out, or (stage 0) on a GPU with synchronous MMAs, whose
 * tensor fraction is eff_compute_sync's (sync_bound). */
static bool skipped(const gset *gs, int i)
{
	return gs->p[i].out || (gs->stage == 0 && gs->p[i].sc.node.tensor_sync);
}

/* The class factors (log): 0 for MLPerf's stack, else the weighted mean residual of the class's points in
 * the fit; NAN for a class with none in it. */
static double class_offset(const gset *gs, const double *r, const char *cls)
{
	double s = 0, w = 0;
	if (strcmp(cls, "mlperf") == 0)
		return 0.0;
	for (int i = 0; i < gs->n; i++)
		if (!skipped(gs, i) && strcmp(gs->p[i].cls, cls) == 0 && isfinite(r[i])) {
			s += gs->p[i].w * r[i];
			w += gs->p[i].w;
		}
	return w > 0 ? s / w : NAN;
}

static void par_set(gset *gs, const gsl_vector *x)
{
	if (gs->stage == 0) {
		gs->par.eff_compute = exp(gsl_vector_get(x, 0));
		gs->par.eff_mem = exp(gsl_vector_get(x, 1));
		gs->par.b_half = exp(gsl_vector_get(x, 2));
	} else {
		gs->par.eff_compute_fp32 = exp(gsl_vector_get(x, 0));
	}
}


static double cost_fn(const gsl_vector *x, void *ctx)
{
	gset *gs = ctx;
	double r[GP_MAX], c = 0;

	par_set(gs, x);
	if (gs->par.eff_compute > 1 || gs->par.eff_mem > 1 || gs->par.eff_compute_fp32 > 1)
		return 1e6;
	residuals(gs, r);
	for (int i = 0; i < gs->n; i++) {
		if (skipped(gs, i))
			continue;
		if (!isfinite(r[i]))
			return 1e6;
		double d = r[i] - class_offset(gs, r, gs->p[i].cls);
		c += gs->p[i].w * d * d;
	}
	return c;
}

/* Weights: each GPU of a class counts once among the points in the fit. */
static void weights(gset *gs)
{
	for (int i = 0; i < gs->n; i++) {
		int k = 0;
		for (int j = 0; j < gs->n; j++)
			k += !skipped(gs, j) && strcmp(gs->p[j].gpu, gs->p[i].gpu) == 0 &&
			     strcmp(gs->p[j].cls, gs->p[i].cls) == 0;
		gs->p[i].w = k > 0 ? 1.0 / sqrt((double)k) : 0.0;
	}
}

/* Nelder-Mead (GSL nmsimplex2) over the logs of the stage's fractions, each at most 1. 0 or ERR_INPUT. */
static int fit(gset *gs)
{
	const gsl_multimin_fminimizer_type *T = gsl_multimin_fminimizer_nmsimplex2;
	size_t np = gs->stage == 0 ? 3 : 1;
	gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(T, np);
	gsl_vector *x = gsl_vector_alloc(np), *step = gsl_vector_alloc(np);
	gsl_multimin_function f = {.f = cost_fn, .n = np, .params = gs};
	int rc = 0, status = GSL_CONTINUE;

	weights(gs);
	if (gs->stage == 0) {
		gsl_vector_set(x, 0, log(0.3));
		gsl_vector_set(x, 1, log(0.7));
		gsl_vector_set(x, 2, log(19.0));
	} else {
		gsl_vector_set(x, 0, log(0.8));
	}
	gsl_vector_set_all(step, 0.3);
	gsl_multimin_fminimizer_set(m, &f, x, step);
	for (int it = 0; it < 2000 && status == GSL_CONTINUE; it++) {
		if (gsl_multimin_fminimizer_iterate(m))
			break;
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-5);
	}
	if (!(gsl_multimin_fminimizer_minimum(m) < 1e6))
		rc = err_set("GPU-generation fit: no parameters predict every point");
	par_set(gs, gsl_multimin_fminimizer_x(m));
	gsl_multimin_fminimizer_free(m);
	gsl_vector_free(x);
	gsl_vector_free(step);
	return rc;
}

/* eff_compute_sync: no point pins the level of a GPU with synchronous MMAs (V100, A100): every run of one is in a
 * stack with a free factor. It takes the bound the reference defines: the smallest value at which no such run on
 * tensor cores is faster than the model's MLPerf-grade estimate for its GPU (measured <= model at factor 1:
 * NVIDIA's MLPerf code is the fastest software for its GPU). Bisection on [0.01, 1]; points left out ignored. */
static void sync_bound(gset *gs)
{
	double lo = 0.01, hi = 1.0;

	for (int it = 0; it < 40; it++) {
		double mid = 0.5 * (lo + hi), r[GP_MAX];
		bool ok = true;
		gs->par.eff_compute_sync = mid;
		residuals(gs, r);
		for (int i = 0; i < gs->n; i++) {
			const model_node *n = &gs->p[i].sc.node;
			if (!gs->p[i].out && n->tensor_sync && n->peak_flops > n->fp32_flops &&
			    strcmp(gs->p[i].cls, "mlperf") != 0 && isfinite(r[i]) && r[i] > 0)
				ok = false;
		}
		if (ok)
			hi = mid;
		else
			lo = mid;
	}
	gs->par.eff_compute_sync = hi;
}

/* The whole fit: eff_compute and eff_mem on the asynchronous-MMA GPUs (Hopper, Ada here), then the
 * synchronous-MMA bound, then eff_compute_fp32 (only the V100 fp32 / A100 tf32 pair of one stack moves it). */
/* Whether a point in the fit runs fp32/tf32 (the CUDA-core path eff_compute_fp32 is fitted on): without one the
 * fit leaves the value it was given (a stack held out may take every such point with it). */
static bool fp32_in_fit(const gset *gs)
{
	for (int i = 0; i < gs->n; i++)
		if (!gs->p[i].out && (gs->p[i].sc.precision == MODEL_FP32 || gs->p[i].sc.precision == MODEL_TF32))
			return true;
	return false;
}

static int fit_all(gset *gs)
{
	int rc;

	gs->stage = 0;
	rc = fit(gs);
	if (rc == 0) {
		sync_bound(gs);
		gs->stage = 1;
		if (fp32_in_fit(gs))
			rc = fit(gs);
		gs->stage = 0;
	}
	weights(gs);
	return rc;
}

/* The errors (predicted / measured - 1) of the points left out, with the class factors of the fit. */
static void heldout_errors(gset *gs, double *err)
{
	double r[GP_MAX];
	int stage = gs->stage;

	gs->stage = 1; /* every point in its class */
	weights(gs);
	residuals(gs, r);
	for (int i = 0; i < gs->n; i++) {
		double off = class_offset(gs, r, gs->p[i].cls);
		err[i] = isfinite(off) && isfinite(r[i]) ? exp(off - r[i]) - 1.0 : NAN;
	}
	gs->stage = stage;
}

/* The error (predicted / measured - 1) of point i under gs->par at factor 1 (NAN where the prediction fails). */
static double stack_factor1_error(gset *gs, int i)
{
	model_result res;
	model_scenario *sc = &gs->p[i].sc;
	if (model_scenario_prepare(sc, &gs->par) || model_predict(sc, &gs->par, &res) || !res.fits)
		return NAN;
	return res.throughput_img_s / gs->p[i].img_s - 1.0;
}

static void print_group(FILE *out, const char *what, const gset *gs, const double *err, bool only_out)
{
	double s = 0, a = 0, worst = 0;
	int n = 0;
	for (int i = 0; i < gs->n; i++) {
		if ((only_out && !gs->p[i].out) || !isfinite(err[i]))
			continue;
		s += err[i];
		a += fabs(err[i]);
		worst = fabs(err[i]) > fabs(worst) ? err[i] : worst;
		n++;
	}
	if (n == 0) {
		fprintf(out, "  %-24s      -  (no point its class's factor can be fitted without it)\n", what);
		return;
	}
	fprintf(out, "  %-24s %3d  bias %+6.1f%%  MAPE %5.1f%%  worst %+6.1f%%  (eff_compute %.3f eff_mem %.3f "
		"b_half %.1f fp32 %.3f sync %.3f)\n", what, n, 100 * s / n, 100 * a / n, 100 * worst, gs->par.eff_compute,
		gs->par.eff_mem, gs->par.b_half, gs->par.eff_compute_fp32, gs->par.eff_compute_sync);
}

static bool listed(const char *const *ids, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

/* The MLPerf submitters of the points, once each, into ids; returns how many. */
static int submitters(const gset *gs, const char **ids)
{
	int n = 0;
	for (int i = 0; i < gs->n; i++)
		if (gs->p[i].submitter[0] && !listed(ids, n, gs->p[i].submitter))
			ids[n++] = gs->p[i].submitter;
	return n;
}

/* Refits from `fitted` without submitter sub's points (they are marked out) and writes every point's
 * held-out error into err. 0 or ERR_INPUT. */
static int fit_without(gset *gs, const model_params *fitted, const char *sub, double *err)
{
	for (int i = 0; i < gs->n; i++)
		gs->p[i].out = strcmp(gs->p[i].submitter, sub) == 0;
	gs->par = *fitted;
	int rc = fit_all(gs);
	heldout_errors(gs, err);
	return rc;
}

/* The software stack of a point: its class without the precision ("pytorch-dle/lowp" -> "pytorch-dle");
 * the MLPerf results run NVIDIA's MLPerf MXNet stack, the database's ngc-mlperf. */
static void point_stack(const gpoint *p, char *out, size_t cap)
{
	if (strcmp(p->cls, "mlperf") == 0) {
		snprintf(out, cap, "ngc-mlperf");
		return;
	}
	snprintf(out, cap, "%.*s", (int)strcspn(p->cls, "/"), p->cls);
}

/* Marks out the points of stack `id` (point_stack); returns how many. */
static int mark_stack(gset *gs, const char *id)
{
	int n = 0;
	for (int i = 0; i < gs->n; i++) {
		char st[48];
		point_stack(&gs->p[i], st, sizeof(st));
		gs->p[i].out = strcmp(st, id) == 0;
		n += gs->p[i].out;
	}
	return n;
}

/* The stacks of the points, once each, into ids (cap chars per id, at most GP_MAX); returns how many. */
static int stacks(const gset *gs, char ids[][48])
{
	int n = 0;
	for (int i = 0; i < gs->n; i++) {
		char st[48];
		bool seen = false;
		point_stack(&gs->p[i], st, sizeof(st));
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(ids[k], st) == 0;
		if (!seen)
			snprintf(ids[n++], 48, "%s", st);
	}
	return n;
}

/* A held-out stack's point predicted as the model predicts a stack it has no cell of: its speed factor from the
 * stacks like it (plan_stack_eff with the stack skipped) on the point's GPU, under gs->par; the error
 * predicted / measured - 1 (NAN where the prediction fails). */
static double stack_prior_error(const hw_db *db, gset *gs, int i, double *lo_x, double *hi_x)
{
	char st[48];
	plan_eff e;
	point_stack(&gs->p[i], st, sizeof(st));
	plan_stack_eff(db, hw_stack_find(db, st), st, NULL, hw_gpu_find(db, gs->p[i].gpu), gs->p[i].sc.precision, &gs->par, &e);
	*lo_x = e.lo_x;
	*hi_x = e.hi_x;
	return (1.0 + stack_factor1_error(gs, i)) * (e.eff > 0 ? e.eff : 1.0) - 1.0;
}

/* In the fit by stack (err: every point's in-sample error), then leave-one-stack-out: refit from `fitted`
 * without any point of the stack and predict its points as the model does a stack it has no cell of - from
 * the stacks like it (hwdb stacks.csv likeness; plan_stack_eff) - since a held-out stack's own factor cannot be
 * fitted; each point's error against the interval that prediction carries. 0 or ERR_INPUT. */
static int stack_groups(const hw_db *db, gset *gs, const model_params *fitted, const double *all, FILE *out)
{
	char ids[GP_MAX][48];
	double err[GP_MAX];
	int nid = stacks(gs, ids), rc = 0;

	gs->par = *fitted; /* the parameters the in-sample lines print */
	fprintf(out, "in the fit, by stack:\n");
	for (int k = 0; k < nid; k++) {
		mark_stack(gs, ids[k]);
		print_group(out, ids[k], gs, all, true);
	}
	fprintf(out, "leave-one-stack-out (fit without any point of the stack, predict its points from the stacks like it: "
		"the model's estimate for a stack with no cell; in = inside the 90%% interval that estimate carries):\n");
	for (int k = 0; k < nid && rc == 0; k++) {
		int n = mark_stack(gs, ids[k]), in = 0;
		gs->par = *fitted;
		rc = fit_all(gs);
		heldout_errors(gs, err);
		for (int i = 0; i < gs->n; i++) {
			double lo = 1, hi = 1;
			if (!gs->p[i].out)
				continue;
			if (!isfinite(err[i])) /* its class has no point in the fit */
				err[i] = stack_prior_error(db, gs, i, &lo, &hi);
			else
				stack_prior_error(db, gs, i, &lo, &hi);
			/* inside: measured within predicted / hi .. predicted / lo (the throughput interval's own
			 * width, from the v4.0 residuals, is left out: this is the stack's part alone) */
			in += isfinite(err[i]) && 1.0 / (1.0 + err[i]) >= lo - 1e-9 && 1.0 / (1.0 + err[i]) <= hi + 1e-9;
		}
		print_group(out, ids[k], gs, err, true);
		fprintf(out, "  %s: %d of %d inside the interval\n", ids[k], in, n);
	}
	return rc;
}

int cal_gpu_report(const hw_db *db, const model_params *base, FILE *out)
{
	gset gs = {.p = xcalloc(GP_MAX, sizeof(gpoint)), .par = *base};
	double err[GP_MAX], all[GP_MAX];
	const char *ids[GP_MAX];
	int nid = 0, rc;

	gsl_set_error_handler_off();
	gs.par.fuse_bn_relu = 1.0; /* the reference stack fuses batch norm and ReLU into its convolutions */
	rc = add_mlperf(db, &gs.par, &gs);
	if (rc == 0)
		rc = add_others(db, &gs.par, &gs);
	if (rc == 0)
		rc = fit_all(&gs);
	if (rc)
		goto out;
	model_params fitted = gs.par;
	heldout_errors(&gs, all);
	fprintf(out, "GPU-generation fit (eff_compute, eff_mem, eff_compute_fp32 with fuse_bn_relu 1, least squares; "
		"eff_compute_sync the smallest value at which no V100/A100 run of another stack beats the model's MLPerf-grade "
		"estimate; through plan_resolve + model_predict; "
		"MLPerf v4.0 single-node results, NVIDIA MXNet stack, no factor; other stacks: one factor per stack "
		"and precision class)\n");
	fprintf(out, "fit: eff_compute %.4f  eff_mem %.4f  b_half %.2f  eff_compute_fp32 %.4f  eff_compute_sync %.4f\n",
		fitted.eff_compute, fitted.eff_mem, fitted.b_half, fitted.eff_compute_fp32, fitted.eff_compute_sync);
	fprintf(out, "%-66s %-16s %-18s %9s %9s %7s\n", "point (in the fit)", "gpu", "class", "measured", "model", "error");
	for (int i = 0; i < gs.n; i++)
		fprintf(out, "%-66.66s %-16.16s %-18.18s %9.0f %9.0f %+6.1f%%\n", gs.p[i].label, gs.p[i].gpu, gs.p[i].cls,
			gs.p[i].img_s, gs.p[i].img_s * (1 + all[i]), 100 * all[i]);
	fprintf(out, "in the fit, by GPU:\n");
	for (int i = 0; i < gs.n; i++)
		if (!listed(ids, nid, gs.p[i].gpu))
			ids[nid++] = gs.p[i].gpu;
	for (int k = 0; k < nid; k++) {
		for (int i = 0; i < gs.n; i++)
			gs.p[i].out = strcmp(gs.p[i].gpu, ids[k]) == 0;
		print_group(out, ids[k], &gs, all, true);
	}
	fprintf(out, "leave-one-GPU-out (fit without the GPU, predict its points):\n");
	for (int k = 0; k < nid && rc == 0; k++) {
		for (int i = 0; i < gs.n; i++)
			gs.p[i].out = strcmp(gs.p[i].gpu, ids[k]) == 0;
		gs.par = fitted;
		rc = fit_all(&gs);
		heldout_errors(&gs, err);
		print_group(out, ids[k], &gs, err, true);
	}
	fprintf(out, "leave-one-submitter-out (MLPerf v4.0 single-node results):\n");
	nid = submitters(&gs, ids);
	for (int k = 0; k < nid && rc == 0; k++) {
		rc = fit_without(&gs, &fitted, ids[k], err);
		print_group(out, ids[k], &gs, err, true);
	}
	if (rc == 0)
		rc = stack_groups(db, &gs, &fitted, all, out);
out:
	free(gs.p);
	return rc;
}

/* The basis point i's GPU has when it is out of the fit: measured when a point in the fit has the GPU, else
 * transfer when one has its architecture, else estimate (as cal_point_basis). */
static model_basis heldout_basis(const hw_db *db, const gset *gs, int i)
{
	const hw_gpu *g = hw_gpu_find(db, gs->p[i].gpu);
	bool arch = false;
	for (int j = 0; j < gs->n; j++) {
		if (gs->p[j].out)
			continue;
		if (strcmp(gs->p[j].gpu, gs->p[i].gpu) == 0)
			return MODEL_BASIS_MEASURED;
		const hw_gpu *h = hw_gpu_find(db, gs->p[j].gpu);
		arch = arch || (g && h && g->arch && h->arch && strcmp(g->arch, h->arch) == 0);
	}
	return arch ? MODEL_BASIS_TRANSFER : MODEL_BASIS_ESTIMATE;
}

int cal_gpu_heldout(const hw_db *db, const model_params *base, cal_resid *res, int max)
{
	gset gs = {.p = xcalloc(GP_MAX, sizeof(gpoint)), .par = *base};
	double err[GP_MAX];
	const char *ids[GP_MAX];
	int nid, rc, k = 0;

	gsl_set_error_handler_off();
	gs.par.fuse_bn_relu = 1.0;
	rc = add_mlperf(db, &gs.par, &gs);
	if (rc == 0)
		rc = add_others(db, &gs.par, &gs);
	if (rc == 0)
		rc = fit_all(&gs);
	model_params fitted = gs.par;
	nid = rc == 0 ? submitters(&gs, ids) : 0;
	for (int s = 0; s < nid && rc == 0; s++) {
		rc = fit_without(&gs, &fitted, ids[s], err);
		for (int i = 0; rc == 0 && i < gs.n && k < max; i++)
			if (gs.p[i].out && isfinite(err[i]))
				res[k++] = (cal_resid){MODEL_Q_THROUGHPUT, heldout_basis(db, &gs, i), 1, gs.p[i].img_s,
						       gs.p[i].img_s * (1 + err[i]), MODEL_POOL_MLPERF, 0, 0};
	}
	free(gs.p);
	return rc < 0 ? rc : k;
}

/* Appends the pair (i over j) of one quantity. */
static void pair_add(cal_rpair **v, int *n, int *cap, model_quantity q, unsigned differs, double rho,
		     model_stacks stacks)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xrealloc(*v, (size_t)*cap * sizeof(**v));
	}
	(*v)[(*n)++] = (cal_rpair){q, differs, rho, stacks};
}

int cal_mlperf_pairs(const hw_db *db, const model_params *p, cal_rpair **pairs, int *npairs, int *cap)
{
	gset gs = {.p = xcalloc(GP_MAX, sizeof(gpoint)), .par = *p};
	double r[GP_MAX];
	int rc = add_mlperf(db, &gs.par, &gs);
	if (rc)
		goto out;
	residuals(&gs, r); /* log(measured / predicted) of each result */
	for (int i = 0; i < gs.n; i++)
		for (int j = i + 1; j < gs.n; j++) {
			const gpoint *a = &gs.p[i], *b = &gs.p[j];
			if (strcmp(a->submitter, b->submitter) != 0 || !isfinite(r[i]) || !isfinite(r[j]))
				continue;
			/* the model places every MLPerf node on one host of its form: another system of the same GPU
			 * (another host, another container release) is a difference the scenarios do not show */
			unsigned d = model_ratio_differs(&a->sc, &b->sc);
			if (strcmp(a->gpu, b->gpu) == 0 && strcmp(a->label, b->label) != 0)
				d |= 1u << MODEL_DIFF_SYSTEM;
			if (!d)
				continue;
			double rho = r[i] - r[j]; /* ln(ma/mb) - ln(pa/pb) of the speeds */
			const model_stacks c = MODEL_STACKS_REFERENCE; /* NVIDIA's MLPerf stack on both */
			pair_add(pairs, npairs, cap, MODEL_Q_THROUGHPUT, d, rho, c);
			pair_add(pairs, npairs, cap, MODEL_Q_TTT, d, -rho, c); /* the same images at those speeds */
			pair_add(pairs, npairs, cap, MODEL_Q_TTA, d, -rho, c);
		}
out:
	free(gs.p);
	return rc;
}

void cal_rpair_add(cal_rpair **pairs, int *npairs, int *cap, model_quantity q, unsigned differs, double rho,
		   model_stacks stacks)
{
	pair_add(pairs, npairs, cap, q, differs, rho, stacks);
}
