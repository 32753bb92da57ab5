/* sim: a discrete-event simulator of a data-parallel ResNet-50 training run.
 *
 * Layers, bottom up:
 *   - an event loop: a binary heap ordered by (time, insertion order), so events at equal times come
 *     out in the order they were scheduled and every run is reproducible;
 *   - resources with a capacity (GPU compute and copy streams, CPU worker pools): FIFO servers;
 *   - a network of links carrying flows, with max-min fair bandwidth sharing where flows share a
 *     link (progressive filling; Bertsekas & Gallager, Data Networks, 2nd ed., section 6.5.2);
 *   - a bounded producer/consumer queue (the data loader's prefetch queue);
 *   - a Chrome trace-event writer (the JSON Array/Object format of the Trace Event Format document,
 *     loaded by Perfetto and chrome://tracing), written atomically (tmp + rename);
 *   - seeded GSL random numbers for per-GPU jitter and rare slow steps;
 *   - the run model on top (sim_run): one training iteration of one node simulated in detail
 *     (per-layer forward/backward on each GPU's compute stream, gradient buckets ready during backward,
 *     all-reduce as flows over the node's links and NICs), then the whole run iteration by iteration
 *     (data pipeline queue, first-epoch storage reads, epoch boundaries, evaluation, stragglers).
 *
 * Time is in seconds (double), sizes in bytes, rates in bytes/s, as everywhere in scaleplan.
 * Failure contract: actions return 0 or ERR_INPUT / ERR_ENV with err_set(); _new never returns NULL
 * (xmalloc), _free(NULL) is fine.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_SIM_H
#define SCALEPLAN_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

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
/* Events run so far, and events still pending. */
uint64_t sim_loop_events(const sim_loop *loop);
size_t sim_loop_pending(const sim_loop *loop);

/* ---- Chrome trace-event writer ---- */

typedef struct sim_trace sim_trace;

sim_trace *sim_trace_new(void);
void sim_trace_free(sim_trace *tr);
/* Declares a track (one row in the viewer): process `group` ("node0", "fabric"), thread `name`
 * ("gpu0 compute", "nic0"). Returns its id (>= 0). The same group/name pair returns the same id. */
int sim_trace_track(sim_trace *tr, const char *group, const char *name);
/* Records a complete span ("ph":"X") on a track; `name` is copied. Spans with dur_s < 0 are dropped. */
void sim_trace_span(sim_trace *tr, int track, const char *name, double t_s, double dur_s);
/* Keeps only spans that overlap [from_s, to_s] from now on (default: everything). */
void sim_trace_window(sim_trace *tr, double from_s, double to_s);
/* Records an instant marker ("ph":"i") on a track. */
void sim_trace_instant(sim_trace *tr, int track, const char *name, double t_s);
/* Spans recorded so far. */
size_t sim_trace_count(const sim_trace *tr);
/* Writes the trace as a JSON object {"traceEvents":[...]} to path through path.tmp + rename.
 * Returns 0, or ERR_ENV (err set) when the file cannot be written. */
int sim_trace_write(const sim_trace *tr, const char *path);

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
/* Flows finished so far; flows active now; the current rate of the link's traffic (sum of flows). */
long sim_net_flows_done(const sim_net *net);
int sim_net_active(const sim_net *net);
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
/* A uniform draw in [0, 1). */
double sim_rng_uniform(sim_rng *rng);

/* ---- the run model ---- */

/* Options of a simulated run (sim_opts_default fills the defaults in brackets). */
typedef struct sim_opts {
	bool contention;    /* [true] flows share links max-min fairly; false: every flow runs at the
			     * per-GPU bandwidth the analytic model assumes, whatever else is on its links */
	bool warmup;        /* [true] the data loader is a pool of workers filling a bounded queue that
			     * starts empty each epoch; false: the loader is a pure rate limit (the model's
			     * rule iter = max(gpu, data, io)) */
	bool detail;        /* [false] simulate node 0 of every iteration layer by layer with its flows
			     * (instead of the per-bucket recurrence, which gives the same times) */
	bool replay;        /* [true] epochs identical to one already simulated are replayed, only when
			     * nothing random is lost (jitter 0, slow_prob 0) and no trace is taken of them */
	double jitter;      /* [model straggler_cv] sigma of the per-GPU, per-iteration lognormal factor */
	double slow_prob;   /* [0] probability that a GPU's iteration is a slow step */
	double slow_factor; /* [3] slowdown of a slow step (>= 1) */
	unsigned long seed; /* [1] GSL mt19937 seed */
	int runs;           /* [1] independent runs (seeds drawn in sequence from one generator) */
	int loader_workers; /* [8] data loader worker processes per node (PyTorch num_workers) */
	int prefetch;       /* [2 x loader_workers] bounded queue depth, node batches */
	long trace_first;   /* [0] first iteration traced (1-based, inclusive); 0 = no trace */
	long trace_last;    /* [0] last iteration traced (inclusive) */
	sim_trace *trace;   /* [NULL] where the trace of run 1 goes (caller owns and writes it) */
	struct progress *progress; /* [NULL] common.h progress bar, advanced once per epoch of every run
			     * (total: runs x ceil(epochs), set by sim_run) */
	bool (*stop)(void); /* [NULL] polled before every epoch and iteration; once it returns true the
			     * run ends and sim_run returns ERR_INTR (the CLI passes intr_pending) */
} sim_opts;

void sim_opts_default(sim_opts *o, const model_params *p);

/* What a simulated run gives: the predict columns (same meaning as model_result), the spread over
 * runs and iterations, and the simulator's own counters. */
typedef struct sim_result {
	model_result model;      /* the analytic model on the same scenario (for comparison) */
	int gpus, global_batch;
	double compute_s;        /* per-GPU fwd + bwd + optimizer at jitter 1 */
	double comm_s;           /* simulated all-reduce time per iteration (sum over buckets) */
	double comm_exposed_s;   /* mean over steady iterations */
	double data_s, io_s;     /* loader time per node batch; storage time per global batch */
	double iter_s;           /* mean iteration time in steady epochs (epoch_s x global_batch / images) */
	double iter_p50_s, iter_p95_s; /* over every full iteration of every run */
	double throughput_img_s, per_gpu_img_s, scaling_eff;
	model_bottleneck bottleneck;
	double epochs, epoch_s, first_epoch_s;
	double tta_s;            /* mean over runs */
	double tta_p50_s, tta_p95_s, tta_min_s, tta_max_s;
	double straggler_s;      /* mean per iteration: slowest GPU's compute minus the mean GPU's */
	double data_wait_s;      /* mean per iteration: time the GPUs waited for a batch */
	long iters;              /* iterations per run (the last of an epoch may be partial) */
	int runs;
	int epochs_simulated, epochs_replayed; /* per run */
	uint64_t events;         /* events run, all runs */
	double wall_s;           /* wall-clock time of the simulation */
} sim_result;

/* Simulates sc (prepared with p) under o. Returns 0, or ERR_INPUT with err set for bad options
 * (negative jitter, slow factor < 1, a trace window past the run, runs < 1, ...) or a scenario the
 * model rejects, ERR_ENV when GSL fails. */
int sim_run(const model_scenario *sc, const model_params *p, const sim_opts *o, sim_result *r);
/* The simulated run as predict's columns (model_result, as plan_row writes them): the model's result with
 * the simulator's figures in place of its own, time to train the simulated run less the model's start-up
 * and staging, energy the model's average power over the simulated run, and the money (model_run_money)
 * on that run. */
void sim_result_as_model(const model_scenario *sc, const sim_result *r, model_result *out);

#endif
