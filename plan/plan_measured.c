/* plan/plan_measured.c: the user's --measured points checked before the model is calibrated to them: a
 * throughput no GPU can reach, or two different throughputs for one configuration, is refused,
 * never averaged into a calibration.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <math.h>

#include "common/common.h"

/* Two runs of one configuration differ by more than run-to-run noise beyond this: the 15 MLPerf v4.0 results
 * of 8x H100 SXM (refdata/mlperf_v4_0.csv) span 13.16-13.87 min, 5.4%, across submitters and their software;
 * twice that is no longer one configuration. */
#define PLAN_MEASURED_TOL 0.10

int plan_check_measured(const model_scenario *sc, const model_measured *m, int n)
{
	model_net net;
	int rc = model_net_resnet50(&net, 1000, 224);
	if (rc)
		return rc;
	/* a trained image costs its forward and backward FLOPs; all of them at the tensor peak is a bound no
	 * run can beat (elementwise layers run slower, on the non-tensor units) */
	double flop_img = net.fwd_flop + net.bwd_flop;
	model_net_free(&net);
	for (int i = 0; i < n; i++) {
		double max_img_s = sc->node.peak_flops * m[i].gpus / flop_img;
		if (m[i].img_s > max_img_s)
			return err_set("--measured %d:%d:%g: %g img/s is more than %d %s can compute: at most %.0f img/s "
				       "(%.0f TFLOP/s %s peak per GPU / %.1f GFLOP per trained image); expected "
				       "GPUS:BATCH_PER_GPU:IMG_S for this GPU at %s",
				       m[i].gpus, m[i].batch_per_gpu, m[i].img_s, m[i].img_s, m[i].gpus, sc->node.gpu_id,
				       max_img_s, sc->node.peak_flops / 1e12, model_precision_name(sc->precision),
				       flop_img / 1e9, model_precision_name(sc->precision));
		for (int j = 0; j < i; j++) {
			double lo = fmin(m[i].img_s, m[j].img_s), hi = fmax(m[i].img_s, m[j].img_s);
			if (m[j].gpus == m[i].gpus && m[j].batch_per_gpu == m[i].batch_per_gpu && hi > lo * (1 + PLAN_MEASURED_TOL))
				return err_set("--measured %d:%d:%g and --measured %d:%d:%g: two measurements of one configuration "
					       "(%d GPUs, batch %d per GPU) differ by %.0f%%, more than the %.0f%% runs of one "
					       "configuration differ by; expected one throughput per GPU count and batch (give the "
					       "run you trust, or their mean if they are repeats)",
					       m[j].gpus, m[j].batch_per_gpu, m[j].img_s, m[i].gpus, m[i].batch_per_gpu, m[i].img_s,
					       m[i].gpus, m[i].batch_per_gpu, 100 * (hi / lo - 1), 100 * PLAN_MEASURED_TOL);
		}
	}
	return 0;
}
