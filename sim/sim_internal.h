/* sim_internal.h - what the files of sim/ share (not a public header): the event engine under sim_run, and
 * what sim_iter.c (one node iteration in detail) and sim_run.c (the run) share.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_SIM_INTERNAL_H
#define SCALEPLAN_SIM_INTERNAL_H

#include "model/model.h"
#include "sim/sim.h"

/* ---- the engine under sim_run (sim.h's head comment) ---- */

/* ---- event loop ---- */

typedef struct sim_loop sim_loop;

/* An event handler: called at its time with the context and integer argument it was scheduled with. */
typedef void sim_fn(sim_loop *loop, void *ctx, long arg);

sim_loop *sim_loop_new(void);
void sim_loop_free(sim_loop *loop);
/* Current simulated time (s). Starts at 0. */
double sim_now(const sim_loop *loop);
/* Schedules fn(ctx, arg) at absolute time t_s (clamped to now when earlier: the past cannot be
 * changed). Events at equal times run in scheduling order. */
void sim_at(sim_loop *loop, double t_s, sim_fn *fn, void *ctx, long arg);
/* Schedules fn(ctx, arg) dt_s after now (dt_s < 0 is taken as 0). */
void sim_after(sim_loop *loop, double dt_s, sim_fn *fn, void *ctx, long arg);
/* Runs events in order until none is left or the next one lies after until_s (INFINITY: all).
 * Returns the number of events run by this call. */
uint64_t sim_loop_run(sim_loop *loop, double until_s);
/* Events run so far. */
uint64_t sim_loop_events(const sim_loop *loop);

/* ---- the trace's tracks, spans and markers (the handle: sim.h) ---- */

/* Declares a track (one row in the viewer): process `group` ("node0", "fabric"), thread `name`
 * ("gpu0 compute", "nic0"). Returns its id (>= 0). The same group/name pair returns the same id. */
int sim_trace_track(sim_trace *tr, const char *group, const char *name);
/* Records a complete span ("ph":"X") on a track; `name` is copied. Spans with dur_s < 0 are dropped. */
void sim_trace_span(sim_trace *tr, int track, const char *name, double t_s, double dur_s);
/* Keeps only spans that overlap [from_s, to_s] from now on (default: everything). */
void sim_trace_window(sim_trace *tr, double from_s, double to_s);
/* Records an instant marker ("ph":"i") on a track. */
void sim_trace_instant(sim_trace *tr, int track, const char *name, double t_s);

/* ---- resources: FIFO servers with a capacity ---- */

typedef struct sim_res sim_res;

/* A resource with `capacity` identical servers (capacity >= 1; a CUDA stream is 1, a CPU pool of
 * 12 decode workers is 12). When tr is not NULL every job is drawn as a span on track `track`
 * (capacity 1) or on tracks track, track+1, ... (one per server; the caller declares them). */
sim_res *sim_res_new(const char *name, int capacity, sim_trace *tr, int track);
void sim_res_free(sim_res *res);
/* Queues a job of dur_s on the resource; when it finishes, done(ctx, arg) runs (done may be NULL).
 * `job` names the span in the trace (copied). Jobs start in request order (FIFO). */
void sim_res_submit(sim_loop *loop, sim_res *res, double dur_s, const char *job, sim_fn *done,
		    void *ctx, long arg);
/* Jobs finished, total busy time summed over servers (s), and jobs waiting now. */
long sim_res_jobs(const sim_res *res);
double sim_res_busy_s(const sim_res *res);
int sim_res_waiting(const sim_res *res);

/* ---- network: links and flows with max-min fair sharing ---- */

typedef struct sim_net sim_net;

/* A network. With share = false every flow runs at the bottleneck capacity of its path as if alone
 * (no contention); with share = true flows crossing a link divide it max-min fairly. */
sim_net *sim_net_new(bool share, sim_trace *tr);
void sim_net_free(sim_net *net);
/* Adds a link of capacity bw_Bps (> 0, finite) in one direction; returns its id, or ERR_INPUT (err
 * set) for a bad capacity. When tr is given, each flow is drawn on the link's track `track` (< 0: none). */
int sim_net_link(sim_net *net, const char *name, double bw_Bps, int track);
/* Starts a flow of size_B bytes over the links path[0..nlinks-1] after a latency of latency_s; when
 * the last byte has arrived, done(ctx, arg) runs. rate_cap_Bps (> 0; INFINITY for none) caps the
 * flow's own rate (a GPU's injection rate). Returns 0, or ERR_INPUT for a bad link id, size or path. */
int sim_net_flow(sim_loop *loop, sim_net *net, const int *path, int nlinks, double size_B,
		 double latency_s, double rate_cap_Bps, const char *name, sim_fn *done, void *ctx,
		 long arg);
/* Flows finished so far; the current rate of the link's traffic (sum of flows). */
long sim_net_flows_done(const sim_net *net);
double sim_net_link_load_Bps(const sim_net *net, int link);

/* ---- bounded producer/consumer queue ---- */

typedef struct sim_queue sim_queue;

/* A queue holding at most `capacity` items (>= 1). */
sim_queue *sim_queue_new(int capacity);
void sim_queue_free(sim_queue *q);
/* A producer offers an item: when there is room it is stored at once, else the producer blocks
 * until a consumer takes one. done(ctx, arg) runs when the item has been stored. */
void sim_queue_put(sim_loop *loop, sim_queue *q, sim_fn *done, void *ctx, long arg);
/* A consumer asks for an item: done(ctx, arg) runs as soon as it has one (at once when the queue is
 * not empty). Waiting producers and consumers are served first come, first served. */
void sim_queue_get(sim_loop *loop, sim_queue *q, sim_fn *done, void *ctx, long arg);
/* Items in the queue now; items taken so far; total time consumers spent waiting (s). */
int sim_queue_len(const sim_queue *q);
long sim_queue_taken(const sim_queue *q);
double sim_queue_wait_s(const sim_queue *q);

/* ---- random numbers (GSL) ---- */

typedef struct sim_rng sim_rng;

/* A Mersenne Twister (gsl_rng_mt19937) seeded with `seed`; turns GSL's abort-on-error handler off.
 * Returns NULL with err set (ERR_ENV) when GSL cannot allocate it. */
sim_rng *sim_rng_new(unsigned long seed);
void sim_rng_free(sim_rng *rng);
/* A multiplicative slowdown for one GPU in one iteration: exp(jitter * z), z ~ N(0,1) (median 1,
 * lognormal), times slow_factor with probability slow_prob (a rare slow step). jitter = 0 and
 * slow_prob = 0 give exactly 1 without drawing. */
double sim_rng_slowdown(sim_rng *rng, double jitter, double slow_prob, double slow_factor);


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
