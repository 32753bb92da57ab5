/* calibrate/cal_mcol.c - validate's model column: a measurement point as the scenario a user would ask
 * `scaleplan predict` for (its system, placement, batch, precision, data path and stack, the other
 * measurements of its fit group as --measured), predicted by plan_resolve + model_predict, and the
 * column's errors per stack. `validate` (cli/cmd_validate.c) only prints what this gathers.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "calibrate/cal.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"
#include "plan/plan.h"

/* The model's precision name of a point's precision cell ("amp" trains in fp16; a cell naming none, such as
 * "as-reported" for tf_cnn_benchmarks' default, fp32). */
static const char *model_prec(const char *p)
{
	if (strstr(p, "bf16"))
		return "bf16";
	if (strstr(p, "fp16") || strstr(p, "amp"))
		return "fp16";
	if (strstr(p, "tf32"))
		return "tf32";
	return "fp32";
}

/* A point's precision, the one place it is decided: its cell (model_prec); no precision in the rows (a peer's
 * CSV): bf16, what every test-bed training run used (refdata/testbed_pytorch.csv, exec's default); the fitted
 * compute_eff absorbs the difference. */
static model_precision point_precision(const cal_point *p)
{
	return (model_precision)model_precision_parse(p->precision[0] ? model_prec(p->precision) : "bf16");
}

/* A point's data path: synthetic as said; NVIDIA's own runs (MLPerf, DeepLearningExamples) decode JPEG on the
 * GPU with DALI; the others on the CPU. */
static model_data point_data(const cal_point *p)
{
	bool dali = strstr(p->source, "nvidia") || strstr(p->source, "mlperf");
	return strcmp(p->data, "synthetic") == 0 ? MODEL_DATA_SYNTHETIC : dali ? MODEL_DATA_GPU : MODEL_DATA_CPU;
}

bool cal_point_describable(const cal_point *p)
{
	if (p->gpus_per_node > 1 && strcmp(p->intra, "default") != 0 && strcmp(p->intra, "nvlink") != 0 &&
	    strcmp(p->intra, "pcie") != 0)
		return false;
	return p->nodes == 1 || strcmp(p->inter, "ib") == 0;
}

int cal_point_batch(const cal_point *p)
{
	if (isfinite(p->batch_per_gpu))
		return (int)p->batch_per_gpu;
	return strstr(p->precision, "fp32") && strstr(p->gpu, "16GB") ? 128 : 256;
}

const char *cal_point_stack(const cal_point *p)
{
	/* the test bed tables name the framework in their source, not in a framework cell */
	const char *fw = p->framework[0] ? p->framework : p->source;
	bool dle = strstr(p->source, "deeplearningexamples") != NULL;
	if (strcmp(p->source, "exec") == 0)
		return "scaleplan-train";
	if (strcasestr(fw, "tensorflow") || strcasestr(fw, "horovod"))
		return "tf1-hvd";
	if (strcasestr(fw, "pytorch"))
		return dle ? "pytorch-dle" : strstr(p->variant, " compiled") ? "pytorch-compile"
		       : strstr(p->variant, " nchw") ? "pytorch-nchw" : "pytorch-ddp";
	if (strcasestr(fw, "mxnet"))
		return dle ? "mxnet-dle" : strstr(p->source, "mlperf") ? "ngc-mlperf" : "mxnet-dell";
	return NULL;
}

/* The run a point describes, as plan_spec: what `predict --system ... --measured ...` would be given.
 * --measured places G GPUs on nodes of the scenario's size: only single-node measurements that fit. */
static void point_spec(const cal_data *d, int i, const int *others, int nothers, plan_spec *spec)
{
	const cal_point *p = &d->pts[i];
	plan_spec_init(spec);
	spec->system_id = p->machine;
	spec->stack_id = cal_point_stack(p);
	spec->precision = point_precision(p);
	spec->data = point_data(p);
	spec->batch_per_gpu = cal_point_batch(p);
	spec->nodes = p->nodes;
	for (int k = 0; k < nothers && spec->nmeasured < MODEL_MAX_MEASURED; k++) {
		const cal_point *q = &d->pts[others[k]];
		if (q->kind != CAL_THROUGHPUT || q->nodes != 1 || q->gpus > p->gpus_per_node || !cal_point_describable(q))
			continue;
		spec->measured[spec->nmeasured].gpus = q->gpus;
		spec->measured[spec->nmeasured].batch_per_gpu = cal_point_batch(q);
		spec->measured[spec->nmeasured].img_s = q->measured;
		spec->nmeasured++;
	}
}

/* A database system that holds GPU g (the first in systems.csv order), or NULL. */
static const hw_system *system_of_gpu(const hw_db *db, const hw_gpu *g)
{
	for (int i = 0; i < db->nsystems; i++)
		if (db->systems[i].gpu == g)
			return &db->systems[i];
	return NULL;
}

/* The scenario of a point's GPU work, prepared (what calibrate's compute fit reads: the per-image and
 * per-iteration roofline times, the gradient buckets), as `predict` builds it: its system, stack,
 * precision, data path and batch (point_spec), one GPU on one node (the compute of one GPU does not
 * depend on the placement; calibrate puts the all-reduce in itself), the point's gradient bytes and
 * bucket size where its file gives them (else the stack's, as predict has them).
 *
 * The one explicit mapping for what the database cannot describe:
 * - a machine the database does not know ("local" in an engine run) but whose GPU it knows: the GPU on
 *   the first database system that holds it (the GPU's own work is the same on any host);
 * - no precision in the rows (a peer's CSV): bf16 (point_precision);
 * - neither machine nor GPU known: no scenario (the point cannot be predicted).
 * Returns true when *sc was built. */
bool cal_point_compute_scenario(const hw_db *db, const model_params *mp, const cal_point *p, model_scenario *sc)
{
	if (!db)
		return false;
	plan_spec spec;
	const hw_system *sys = p->machine[0] ? hw_system_find(db, p->machine) : NULL;
	const hw_gpu *g = p->gpu[0] ? hw_gpu_find(db, p->gpu) : NULL;
	plan_spec_init(&spec);
	spec.stack_id = cal_point_stack(p);
	if (spec.stack_id && !hw_stack_find(db, spec.stack_id))
		spec.stack_id = NULL;
	spec.precision = point_precision(p);
	spec.data = point_data(p);
	spec.batch_per_gpu = cal_point_batch(p);
	spec.nodes = 1;
	if (!sys && g) {
		sys = system_of_gpu(db, g);
		spec.gpu_id = g->id;
	}
	if (!sys)
		return false;
	spec.system_id = sys->id;
	if (plan_resolve(db, &spec, mp, sys, 1, 1, sc) != 0)
		return false;
	bool again = false;
	if (isfinite(p->bucket_B) && p->bucket_B > 0) {
		sc->stack.bucket_B = p->bucket_B;
		again = true;
	}
	/* gradient bytes: the run's where its file says (or the engine wrote it), else the stack's */
	if (p->grad_B_said && p->grad_B_param > 0 && sc->precision != MODEL_FP32 && sc->precision != MODEL_TF32) {
		sc->stack.grad_B = p->grad_B_param;
		again = true;
	}
	if (again) {
		sc->prep.ready = false;
		if (model_scenario_prepare(sc, mp) != 0)
			return false;
	}
	return true;
}

/* The column's error of one point under its stack (pred / measured - 1). */
static void stack_tally(cal_mcol *m, const char *stack, double err)
{
	int k = 0;
	while (k < m->nstacks && strcmp(m->stacks[k].id, stack) != 0)
		k++;
	if (k == m->nstacks) {
		if (m->nstacks == CAL_MCOL_MAX_STACKS)
			return;
		m->stacks[m->nstacks++] = (cal_stack_err){stack, 0, 0, 0};
	}
	m->stacks[k].n++;
	m->stacks[k].abs_sum += fabs(err);
	m->stacks[k].sum += err;
}

double cal_mcol_point(void *ctx, const cal_data *d, int i, const int *others, int nothers)
{
	cal_mcol *m = ctx;
	const cal_point *p = &d->pts[i];
	if (p->kind != CAL_THROUGHPUT || !p->machine[0] || !cal_point_describable(p))
		return NAN;
	plan_spec spec;
	point_spec(d, i, others, nothers, &spec);
	if (m->skip_own_gpu)
		spec.eff_skip_gpu = p->gpu; /* the cell of this GPU was fitted on points like this one */
	double pred = NAN;
	model_scenario sc;
	model_result r;
	hw_kind kind;
	const char *bad_id;
	/* plan_resolve prints nothing: a point the model cannot describe is counted, not printed */
	if (!plan_check_ids(m->db, &spec, &kind, &bad_id) &&
	    plan_resolve(m->db, &spec, m->params, NULL, p->gpus_per_node, p->nodes, &sc) == 0 &&
	    model_predict(&sc, m->params, &r) == 0 && r.fits)
		pred = r.throughput_img_s;
	if (isfinite(pred) && spec.stack_id)
		stack_tally(m, spec.stack_id, pred / p->measured - 1);
	if (isfinite(pred))
		m->npred++;
	else
		m->nfail++;
	return pred;
}
