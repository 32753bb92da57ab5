/* plan/plan_stack.c: a software stack's GPU compute speed on one GPU, from the stack x GPU table
 * (hwdb/data/stack_effs.csv) and the generation rule (model_stack_gen_eff). docs/stacks.md says why a
 * generation's gain depends on the software and where each figure comes from.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

enum { G_BATCH = 128 }; /* the batch the generation's gain is read at: every GPU on file holds it (fp32 too) */

static bool full_precision(model_precision prec)
{
	return prec == MODEL_FP32 || prec == MODEL_TF32;
}

static int arch_sm(const hw_gpu *g)
{
	return g && g->arch_info ? g->arch_info->sm : 0;
}

/* Whether gpu runs convolutions at precision prec on tensor cores (else on CUDA cores: fp32, or no tensor cores). */
static bool on_tensor_cores(const hw_gpu *g, model_precision prec)
{
	return (!g->arch_info || g->arch_info->tensor_frac > 0) && plan_precision_on(g, prec) != MODEL_FP32;
}

/* The model's MLPerf-grade one-GPU img/s on gpu (synthetic data, batch G_BATCH, compute_eff 1): what the
 * roofline gains from one GPU to another. NAN when the model cannot place the run. */
static double mlperf_img_s(const hw_db *db, const hw_gpu *gpu, model_precision prec, const model_params *p)
{
	model_scenario sc;
	model_result r;
	model_params q = *p;
	q.compute_eff = 0;
	model_scenario_init(&sc);
	sc.precision = plan_precision_on(gpu, prec);
	plan_gpu_node(db, gpu, sc.precision, &q, &sc.node);
	sc.node.gpus_per_node = 1;
	sc.batch_per_gpu = G_BATCH;
	sc.data = MODEL_DATA_SYNTHETIC;
	if (model_scenario_prepare(&sc, &q) || model_predict(&sc, &q, &r)) {
		err_clear();
		return NAN;
	}
	return r.throughput_img_s;
}

/* Whether cell c is nearer gpu than best: the same GPU, then the same architecture, then the latest generation
 * before gpu's, then the earliest after it; among equals the GPU with more memory bandwidth (the later part). */
static bool nearer(const hw_stack_eff *c, const hw_stack_eff *best, const hw_gpu *gpu)
{
	int sm = arch_sm(gpu), a = arch_sm(c->gpu), b = best ? arch_sm(best->gpu) : -1;
	int ra = c->gpu == gpu ? 0 : a == sm ? 1 : a < sm ? 2 : 3, rb = !best ? 9 : best->gpu == gpu ? 0 : b == sm ? 1 : b < sm ? 2 : 3;
	if (ra != rb)
		return ra < rb;
	if (a != b)
		return ra == 3 ? a < b : a > b;
	return c->gpu->mem_bw_Bps > best->gpu->mem_bw_Bps;
}

/* The stack's cell nearest gpu in precision class cls, NULL when it has none. */
static const hw_stack_eff *nearest_cell(const hw_db *db, const hw_stack *st, const hw_gpu *skip_gpu,
				       const hw_gpu *gpu, hw_prec_class cls)
{
	const hw_stack_eff *best = NULL;
	for (int i = 0; i < db->nstack_effs; i++) {
		const hw_stack_eff *c = &db->stack_effs[i];
		if (c->stack == st && c->gpu && c->gpu != skip_gpu && c->prec == cls && nearer(c, best, gpu))
			best = c;
	}
	return best;
}

/* The stack's generation exponent: 1 for MLPerf-grade (fused) software, whose gain the roofline is fitted on. */
static double gain_exp(const hw_stack *st, const model_params *p)
{
	return st->likeness_k == HW_LIKE_FUSED || st->likeness_k == HW_LIKE_NONE ? 1.0 : p->gen_gain_exp;
}

/* From the stack's own cells (its precision class first, else - with any_class - the other, as stacks.csv's
 * compute_eff_fp32 falls back): true when it has one (with same_units: one whose convolutions ran on the
 * kind of unit, tensor or CUDA cores, the run's do). *g_img_s caches the target's MLPerf-grade speed (NAN: not
 * yet read). */
static bool from_cells(const hw_db *db, const hw_stack *st, const hw_gpu *skip_gpu, const hw_gpu *gpu,
		       model_precision prec, const model_params *p, bool any_class, bool same_units, double *g_img_s,
		       plan_eff *out)
{
	hw_prec_class cls = full_precision(prec) ? HW_PREC_FP32 : HW_PREC_LOWP;
	const hw_stack_eff *c = nearest_cell(db, st, skip_gpu, gpu, cls);
	if (!c && any_class)
		c = nearest_cell(db, st, skip_gpu, gpu, cls == HW_PREC_LOWP ? HW_PREC_FP32 : HW_PREC_LOWP);
	if (!c)
		return false;
	out->from_gpu = c->gpu->id;
	out->eff = c->compute_eff;
	out->how = c->gpu == gpu ? MODEL_EFF_CELL : arch_sm(c->gpu) == arch_sm(gpu) ? MODEL_EFF_SAME_ARCH
										    : MODEL_EFF_OTHER_GEN;
	if (out->how == MODEL_EFF_CELL)
		return true;
	/* the gain read in the cell's own precision class (a fp32 cell on a bf16 run: the tf32 gain, not the
	 * tensor cores' over the CUDA cores'); between a run on CUDA cores and one on tensor cores the exponent,
	 * fitted on moves within one kind, says nothing: the cell's figure as measured */
	model_precision cp = c->prec == HW_PREC_FP32 ? (full_precision(prec) ? prec : MODEL_TF32)
						     : (full_precision(prec) ? MODEL_BF16 : prec);
	bool units = on_tensor_cores(c->gpu, cp) == on_tensor_cores(gpu, prec);
	if (!units && same_units)
		return false;
	double x = units ? gain_exp(st, p) : 1.0;
	if (x == 1.0)
		return true;
	if (isnan(*g_img_s) || cp != prec)
		*g_img_s = mlperf_img_s(db, gpu, cp, p);
	double g = *g_img_s, gc = mlperf_img_s(db, c->gpu, cp, p), r = g / gc;
	if (cp != prec)
		*g_img_s = NAN; /* the cache holds the run's own precision only */
	out->eff = model_stack_gen_eff(c->compute_eff, gc, g, x);
	if (out->how == MODEL_EFF_OTHER_GEN && r > 0) {
		/* the moves on file span gen_gain_exp_lo..hi: so may this one */
		double a = pow(r, p->gen_gain_exp_lo - x), b = pow(r, p->gen_gain_exp_hi - x);
		out->lo_x = fmin(a, b);
		out->hi_x = fmax(a, b);
	}
	return true;
}

/* A stack with no cell of its own: the geometric mean of the stacks of its likeness at gpu (each from its own
 * cells of the precision class, on the kind of unit the run's convolutions use), else of every framework
 * stack's of that class, else the same two with cells of the other class; a fused stack with no fused peer runs at MLPerf grade (1). Its interval:
 * exp(+-unseen_stack_err). */
static void from_likeness(const hw_db *db, const hw_stack *st, const char *skip, const hw_gpu *skip_gpu,
			  const hw_gpu *gpu, model_precision prec, const model_params *p, double *g_img_s, plan_eff *out)
{
	double s = 0;
	int n = 0;
	for (int pass = 0; pass < 4 && n == 0; pass++)
		for (int i = 0; i < db->nstacks; i++) {
			const hw_stack *k = &db->stacks[i];
			plan_eff e = {.eff = NAN, .lo_x = 1, .hi_x = 1};
			bool like = pass % 2 == 0 ? k->likeness_k == st->likeness_k
						  : k->likeness_k > HW_LIKE_FUSED && st->likeness_k > HW_LIKE_FUSED;
			if (k == st || (skip && strcasecmp(k->id, skip) == 0) || !like)
				continue;
			if (from_cells(db, k, skip_gpu, gpu, prec, p, pass >= 2, true, g_img_s, &e) && e.eff > 0) {
				s += log(e.eff);
				n++;
			}
		}
	out->how = MODEL_EFF_LIKENESS;
	out->from_gpu = NULL;
	out->eff = n > 0 ? exp(s / n) : 1.0;
	out->lo_x = exp(-p->unseen_stack_err);
	out->hi_x = exp(p->unseen_stack_err);
}

void plan_stack_eff(const hw_db *db, const hw_stack *st, const char *skip_stack, const hw_gpu *skip_gpu,
		    const hw_gpu *gpu, model_precision prec, const model_params *p, plan_eff *out)
{
	double g_img_s = NAN;
	*out = (plan_eff){.eff = NAN, .how = MODEL_EFF_STACK, .lo_x = 1, .hi_x = 1};
	if (!st)
		return;
	bool held_out = skip_stack && strcasecmp(skip_stack, st->id) == 0;
	if (!held_out && from_cells(db, st, skip_gpu, gpu, prec, p, true, false, &g_img_s, out))
		return;
	/* no cell: the stacks.csv figure where it gives one (a user's stack measured elsewhere) and no cell was
	 * left out, else its likeness */
	bool full = full_precision(prec);
	double own = full && hw_known(st->compute_eff_fp32) ? st->compute_eff_fp32 : st->compute_eff;
	if (!held_out && ((hw_known(own) && !skip_gpu) || st->likeness_k == HW_LIKE_NONE)) {
		out->eff = own;
		return;
	}
	from_likeness(db, st, skip_stack, skip_gpu, gpu, prec, p, &g_img_s, out);
}
