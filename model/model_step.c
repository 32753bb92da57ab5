/* model_step.c - one training iteration on one GPU, and which resource bounds it: the step and the
 * bottleneck rule that model_predict, calibrate's fit and the simulator share (model.h); below it the
 * all-reduce's NVLink domain and the backward/all-reduce pipeline, which the money (model_money.c) and the
 * simulator use too. Nothing here calls model.c or model_money.c: model_predict sits above the step, and
 * model_price_run prices its result after it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "model/model_internal.h"

#include <math.h>

double model_step_exposed_s(double overlap, double after_bwd_s, double comm_s)
{
	/* the pipeline hides all-reduces behind backward only for the overlap fraction of the traffic; the
	 * rest waits as if issued after backward (model.h overlap, its sources in model_params.c) */
	return overlap * after_bwd_s + (1.0 - overlap) * comm_s;
}

double model_step_straggle(int gpus, double straggler_cv)
{
	/* synchronous data parallelism waits for the slowest of P GPUs each iteration: the expected maximum of
	 * P normals is about the mean x (1 + cv sqrt(2 ln P)) (model.h straggler_cv, its source) */
	if (gpus > 1 && straggler_cv > 0)
		return 1.0 + straggler_cv * sqrt(2.0 * log((double)gpus));
	return 1.0;
}

/* Nodes per NVLink domain: an NVL72 rack's 18 trays, else 1 (the domain is the node). */
static int domain_nodes(const model_node *n)
{
	int per_node = n->max_gpus_per_node > 0 ? n->max_gpus_per_node : n->gpus_per_node;
	return n->domain_gpus > per_node ? n->domain_gpus / per_node : 1;
}

int model_domain_nodes(const model_scenario *sc)
{
	int dn = domain_nodes(&sc->node);
	return sc->nodes < dn ? sc->nodes : dn;
}

int model_domain_gpus(const model_scenario *sc)
{
	return sc->node.gpus_per_node * model_domain_nodes(sc);
}

double model_exposed_s(int n, const double *ready_s, const double *comm_s, double bwd_end_s)
{
	double end = 0.0;

	for (int i = 0; i < n; i++)
		end = fmax(ready_s[i], end) + comm_s[i];
	return end > bwd_end_s ? end - bwd_end_s : 0.0;
}

/* A small event loop over the two rates: between events (a bucket ends, backward ends, backward
 * reaches the next bucket while nothing is in flight) both progress linearly. */
void model_pipeline_run(int n, const double *ready_w, const double *comm_s, double bwd_w, double slow_compute,
			double slow_comm, double *bwd_end_s, double *comm_end_s)
{
	double t = 0, done = 0, left = 0;  /* time, backward work done, unslowed time left of the bucket in flight */
	int i = 0;
	bool busy = false;
	*bwd_end_s = bwd_w;
	*comm_end_s = 0;
	while (i < n) {
		bool bwd_on = done < bwd_w;
		if (!busy && !(done < ready_w[i])) {
			busy = true;
			left = comm_s[i];
		}
		if (!busy) {   /* backward alone up to the next bucket's ready point */
			t += ready_w[i] - done;
			done = ready_w[i];
			if (!(done < bwd_w))
				*bwd_end_s = t;
			continue;
		}
		double rb = bwd_on ? 1.0 / slow_compute : 0.0, rc = bwd_on ? 1.0 / slow_comm : 1.0;
		double dt = left / rc;
		if (bwd_on && (bwd_w - done) / rb < dt)
			dt = (bwd_w - done) / rb;
		t += dt;
		left -= dt * rc;
		if (bwd_on) {
			done += dt * rb;
			if (!(bwd_w - done > 1e-12 * bwd_w)) {
				done = bwd_w;
				*bwd_end_s = t;
			}
		}
		if (!(left > 1e-12 * comm_s[i])) {
			busy = false;
			*comm_end_s = t;
			i++;
		}
	}
	if (done < bwd_w)
		*bwd_end_s = t + (bwd_w - done);
}

/* The all-reduces after backward: each bucket is handed over when backward has finished its layers and
 * reduced in order (model_exposed_s); when compute and communication slow each other (contention factors
 * other than 1) the two run as one pipeline (model_pipeline_run) and what backward loses counts too. */
static void step_comm(const model_scenario *sc, const model_step_in *in, model_step *st)
{
	const model_prep *pr = &sc->prep;
	double ready[MODEL_MAX_BUCKETS];

	for (int i = 0; i < pr->nbuckets; i++) {
		ready[i] = st->fwd_s + in->k * (in->batch_img * pr->bucket_ready_img[i] + pr->bucket_ready_w[i]);
		st->comm_s += in->comm_s[i];
	}
	if (in->slow_compute == 1.0 && in->slow_comm == 1.0) {
		st->comm_after_bwd_s = model_exposed_s(pr->nbuckets, ready, in->comm_s, st->fwd_s + st->bwd_s);
		st->comm_exposed_s = model_step_exposed_s(in->overlap, st->comm_after_bwd_s, st->comm_s);
		return;
	}
	double bwd_end, comm_end;
	for (int i = 0; i < pr->nbuckets; i++)
		ready[i] -= st->fwd_s;
	model_pipeline_run(pr->nbuckets, ready, in->comm_s, st->bwd_s, in->slow_compute, in->slow_comm, &bwd_end,
			   &comm_end);
	st->comm_after_bwd_s = fmax(0.0, comm_end - bwd_end);
	st->comm_exposed_s = model_step_exposed_s(in->overlap, fmax(bwd_end, comm_end) - st->bwd_s, st->comm_s);
}

void model_step_run(const model_scenario *sc, const model_step_in *in, model_step *st)
{
	const model_prep *pr = &sc->prep;

	st->fwd_s = in->k * (in->batch_img * pr->fwd_img_s + pr->fwd_w_s);
	st->bwd_s = in->k * (in->batch_img * pr->bwd_img_s + pr->bwd_w_s);
	st->opt_s = in->k * pr->opt_s;
	st->compute_s = st->fwd_s + st->bwd_s + st->opt_s;
	st->comm_s = st->comm_exposed_s = st->comm_after_bwd_s = st->comm_waited_s = 0.0;
	if (in->gpus > 1) {
		step_comm(sc, in, st);
		st->comm_waited_s = model_step_exposed_s(in->overlap, st->comm_after_bwd_s, st->comm_s);
	}
	st->gpu_s = st->compute_s + st->comm_exposed_s;
	if (sc->stack.step_overhead_s > 0) /* framework work per step beside the GPU's (NAN: none) */
		st->gpu_s += sc->stack.step_overhead_s;
	if (in->gpus > 1 && in->straggler_cv > 0)
		st->gpu_s *= model_step_straggle(in->gpus, in->straggler_cv);
}

model_bottleneck model_bottleneck_of(double compute_s, double comm_s, double data_s, double io_s)
{
	double busy = compute_s;
	model_bottleneck bn = MODEL_BN_COMPUTE;

	if (comm_s > busy) {
		busy = comm_s;
		bn = MODEL_BN_COMM;
	}
	if (data_s > busy) {
		busy = data_s;
		bn = MODEL_BN_DATA;
	}
	if (io_s > busy)
		bn = MODEL_BN_IO;
	return bn;
}

double model_gpu_decode_rank_img_s(double step_img_s, int k, double gpu_decode_img_s, double host_decode_img_s)
{
	double a = 1.0 / step_img_s, b = gpu_decode_img_s > 0 ? 1.0 / gpu_decode_img_s : 0.0;
	double c = host_decode_img_s > 0 && isfinite(host_decode_img_s) ? (k > 0 ? k : 1) / host_decode_img_s : 0.0;
	if (!(c > 0))
		return 1.0 / (a + b);
	/* a c r^2 - (a + b + c) r + 1 = 0: the smaller root keeps c r < 1; written as 2 / (s + sqrt(s^2 - 4ac))
	 * so that it stays exact as c goes to 0 */
	double sum = a + b + c, disc = sum * sum - 4.0 * a * c;
	return 2.0 / (sum + sqrt(disc > 0 ? disc : 0));
}
