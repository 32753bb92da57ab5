/* plan/plan_gpu.c: a GPU's figures as the model reads them - the precision it really runs, its clock under a
 * power sibling's board power, its peaks, memory and architecture facts in a model node. plan_resolve and
 * plan_stack (the stack's speed on a GPU) both build nodes through it.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <math.h>

static double known_or(double v, double dflt)
{
	return hw_known(v) ? v : dflt;
}

model_precision plan_precision_on(const hw_gpu *gpu, model_precision want)
{
	if (want == MODEL_BF16 && !hw_known(gpu->bf16_flops))
		want = MODEL_FP16;
	if (want == MODEL_FP16 && !hw_known(gpu->fp16_flops))
		want = MODEL_FP32;
	if (want == MODEL_TF32 && !hw_known(gpu->tf32_flops))
		want = MODEL_FP32;
	return want;
}

/* The clock share a board's power allows next to its power sibling (model_power_clock_x), 1 without one. The
 * sibling draws power_frac of its board power in training: the node-level assumption of the energy figures. */
static double power_clock_x(const hw_db *db, const hw_gpu *gpu, const char *prec, const model_params *p)
{
	const hw_gpu *sib = gpu->power_sibling_id && gpu->power_sibling_id[0] ? hw_gpu_find(db, gpu->power_sibling_id)
									       : NULL;
	if (!sib || !hw_known(gpu->boost_clock_Hz) || !hw_known(sib->boost_clock_Hz))
		return 1.0;
	return model_power_clock_x(gpu->tdp_W, sib->tdp_W, hw_gpu_peak_flops(gpu, prec) / hw_gpu_peak_flops(sib, prec),
				   gpu->boost_clock_Hz / sib->boost_clock_Hz, p->power_frac);
}

void plan_gpu_node(const hw_db *db, const hw_gpu *gpu, model_precision prec, const model_params *p, model_node *n)
{
	double clock_x = power_clock_x(db, gpu, model_precision_name(prec), p);
	n->gpu_id = gpu->id;
	n->peak_flops = clock_x * hw_gpu_peak_flops(gpu, model_precision_name(prec));
	n->fp32_flops = clock_x * gpu->fp32_flops;
	n->tensor_frac = model_arch_tensor_frac(gpu->arch_info);
	n->tensor_sync = model_arch_tensor_sync(gpu->arch_info);
	n->mem_bw_Bps = gpu->mem_bw_Bps;
	n->gpu_mem_B = gpu->mem_B;
	n->gpu_tdp_W = known_or(gpu->tdp_W, 0);
}
