/* sim_internal.h - shared between sim_iter.c (one node iteration in detail) and sim_run.c (the run).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_SIM_INTERNAL_H
#define SCALEPLAN_SIM_INTERNAL_H

#include "model/model.h"
#include "sim/sim.h"

/* A per-GPU iteration at slowdown 1 and the node it runs on, built from the model's pieces. */
typedef struct sim_shape {
	const model_net *net;
	int gpus_per_node, nodes, batch;
	double *fwd_s, *bwd_s;       /* [nlayers] per layer */
	double fwd_total_s, bwd_total_s, opt_s;
	double overlap;              /* model's overlap rule: see sim_gpu_iter */
	int nbuckets;
	int bucket_first[MODEL_MAX_BUCKETS]; /* bucket b ready when backward of this layer ends */
	double ready_s[MODEL_MAX_BUCKETS];   /* from iteration start, at slowdown 1 */
	int nphases[MODEL_MAX_BUCKETS];
	/* each bucket's all-reduce phases (model_allreduce_phases), each run as one flow per GPU: `steps`
	 * alpha-beta steps of a ring or tree collapse into one flow of latency steps x alpha and size steps x
	 * bytes-per-step, exact while the set of flows sharing the links stays the same for the whole phase
	 * (buckets are reduced one at a time, so it does). rate_Bps is used when contention is off. */
	model_ar_phase phase[MODEL_MAX_BUCKETS][MODEL_AR_MAX_PHASES];
	double model_ar_s[MODEL_MAX_BUCKETS]; /* model_allreduce_s of the bucket */
	double ar_s[MODEL_MAX_BUCKETS];      /* simulated all-reduce time (after sim_node_iter) */
	double comm_s;                       /* sum of ar_s */
	/* node links for contention */
	bool intra_nvlink;
	double intra_Bps;            /* per-GPU intra-node link, at the model's efficiency */
	int groups;                  /* PCIe groups (host links) when not NVLink, else 1 */
	double uplink_Bps;           /* one group's uplink, each direction */
	int nics;
	double nic_Bps;              /* one NIC port at the model's efficiency */
	bool nic_via_host;           /* NIC traffic crosses the GPU's host link (see sim_iter.c) */
	double copy_B;               /* host-to-device bytes per GPU per iteration (next batch); 0 = none */
	double copy_rate_Bps;        /* per-GPU copy rate the model assumes (host links shared evenly) */
} sim_shape;

/* Simulates one iteration of node 0 in detail with the event core: every GPU's forward and
 * backward layer by layer on its compute stream (GPU g slowed by factor[g]), buckets handed to the
 * all-reduce when every GPU of the job has them (the job's slowest GPU is f_max), each bucket's
 * phases as flows over the node's links and NICs. Writes the all-reduce time of each bucket to
 * sh->ar_s (when set_ar) and spans to tr (when not NULL), starting at absolute time t0_s, and the
 * time the last bucket's all-reduce ended to *comm_end_s (t0_s when none; may be NULL). Returns
 * the events run, or a negative error code. */
long sim_node_iter(sim_shape *sh, bool contention, const double *factor, double f_max, double t0_s,
		   sim_trace *tr, bool set_ar, double *comm_end_s);

/* The job's iteration time at slowest-GPU factor f from the shape (after sim_node_iter set ar_s):
 * buckets reduced in order, e_b = max(e_{b-1}, f ready_b) + ar_b, exposed X = (e_last - f bwd_end)^+;
 * with the model's overlap rule exposed = overlap X + (1 - overlap) comm (comm kernels slow
 * backward for the part of comm hidden behind it); end = f (fwd + bwd + opt) + exposed. */
double sim_gpu_iter(const sim_shape *sh, double f, double *exposed_s);
/* The same rule from a detailed iteration: comm ended at comm_end_s (relative to the start). */
double sim_gpu_iter_from(const sim_shape *sh, double f, double comm_end_s, double *exposed_s);

#endif
