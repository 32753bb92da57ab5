/* sim: a discrete-event simulator of a data-parallel ResNet-50 training run.
 *
 * Layers, bottom up (sim/sim_internal.h declares the engine's: everything below the run model but the trace's
 * handle; this header, what the command uses: the trace to create and write, and the run model):
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

/* ---- Chrome trace-event writer ---- */

typedef struct sim_trace sim_trace;

sim_trace *sim_trace_new(void);
void sim_trace_free(sim_trace *tr);
/* Spans recorded so far. */
size_t sim_trace_count(const sim_trace *tr);
/* Writes the trace as a JSON object {"traceEvents":[...]} to path through path.tmp + rename.
 * Returns 0, or ERR_ENV (err set) when the file cannot be written. */
int sim_trace_write(const sim_trace *tr, const char *path);

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
	model_cost cost;         /* what the model's run draws and costs (model_price_run) */
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
/* The simulated run as predict's columns (model_result and model_cost, as plan_row writes them): the model's
 * result with the simulator's figures in place of its own, time to train the simulated run less the model's
 * start-up and staging; its cost the model's (the capex) with energy the model's average power over the
 * simulated run and the money (model_run_money) on that run. */
void sim_result_as_model(const model_scenario *sc, const sim_result *r, model_result *out, model_cost *cost);

#endif
