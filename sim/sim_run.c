/* sim_run.c - a whole training run, iteration by iteration, on the event core.
 *
 * Per run:
 *   - the iteration shape comes from the model's exposed pieces (model_layer_times, buckets of
 *     model_prep, model_allreduce_phases); one node iteration is simulated in detail
 *     (sim_iter.c) to get each bucket's all-reduce time with link contention;
 *   - each epoch, node 0's data loader (a pool of loader_workers workers, each building a whole node
 *     batch as PyTorch's DataLoader does) fills a bounded queue of `prefetch` batches that starts
 *     empty (workers restart at every epoch); in epoch 1 (and every epoch when the data set does not
 *     fit the page cache) a worker first reads its batch through the node's share of the shared
 *     storage (a FIFO server at storage rate / nodes), then decodes it; later epochs decode from cache;
 *   - an iteration starts when the previous one has ended and a batch is there; every GPU of the
 *     job draws a slowdown (lognormal jitter, rare slow steps); the collective waits for the slowest,
 *     so the iteration takes sim_gpu_iter(f_max) - a barrier approximation: buckets become ready
 *     on the slowest GPU's schedule and comm is not slowed by jitter;
 *   - epoch boundaries cost model_boundary_epoch_s, evaluation passes every eval_every epochs cost
 *     model_eval_pass_s (model rules, no jitter); start-up, staging and the run's lead-in are the model's;
 *   - an epoch that is not a whole number of batches ends with a partial iteration whose time is
 *     that fraction of a full one (so the epoch takes images / global batch iterations, as the
 *     model's epoch_s = images / throughput).
 * All nodes are the same and see the same loader and storage rates, so node 0 stands for each.
 *
 * Replay: with jitter and slow steps off, every full epoch at a given loader rate is the same, so
 * only the first of each kind is simulated and the others are replayed (their iterations counted
 * again), unless a trace window falls in them. The result says how many were replayed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "sim/sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

void sim_opts_default(sim_opts *o, const model_params *p)
{
	memset(o, 0, sizeof(*o));
	o->contention = true;
	o->warmup = true;
	o->replay = true;
	o->jitter = p ? p->straggler_cv : 0.0;
	o->slow_prob = 0.0;
	o->slow_factor = 3.0;
	o->seed = 1;
	o->runs = 1;
	o->loader_workers = 8;
	o->prefetch = 16;
}

/* ---- iteration samples (value, weight) for percentiles ---- */

typedef struct samples {
	double *v;
	double *w;
	size_t n, cap;
} samples;

static void samples_add(samples *s, double v, double w)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
		s->w = xrealloc(s->w, s->cap * sizeof(*s->w));
	}
	s->v[s->n] = v;
	s->w[s->n] = w;
	s->n++;
}

typedef struct vw {
	double v, w;
} vw;

static int vw_cmp(const void *a, const void *b)
{
	double x = ((const vw *)a)->v, y = ((const vw *)b)->v;
	return (x > y) - (x < y);
}

/* Weighted quantiles q[0..nq-1] (the smallest value whose cumulative weight reaches q x total). */
static void samples_quantiles(const samples *s, const double *q, double *out, int nq)
{
	if (s->n == 0) {
		for (int i = 0; i < nq; i++)
			out[i] = NAN;
		return;
	}
	vw *a = xmalloc(s->n * sizeof(*a));
	double total = 0;
	for (size_t i = 0; i < s->n; i++) {
		a[i].v = s->v[i];
		a[i].w = s->w[i];
		total += a[i].w;
	}
	qsort(a, s->n, sizeof(*a), vw_cmp);
	for (int k = 0; k < nq; k++) {
		double cum = 0, goal = q[k] * total * (1 - 1e-12);
		out[k] = a[s->n - 1].v;
		for (size_t i = 0; i < s->n; i++) {
			cum += a[i].w;
			if (cum >= goal) {
				out[k] = a[i].v;
				break;
			}
		}
	}
	free(a);
}

/* ---- one run ---- */

enum { KIND_STORAGE, KIND_CACHE, NKINDS };

typedef struct run_ctx {
	const model_scenario *sc;
	const model_params *p;
	const sim_opts *o;
	sim_shape *sh;
	sim_rng *rng;
	double *factor;         /* [gpus] this iteration's slowdowns */
	int gpus, G;
	double node_batch, global_batch;
	double data_rate, io_rate; /* node img/s: loader; storage share */
	double eval_pass_s;
	double boundary_s;      /* pause at each epoch boundary (model_boundary_epoch_s) */
	double epochs;
	int nseg;               /* epoch segments (ceil(epochs)) */
	/* current epoch */
	int e;
	int kind;
	double period_s;        /* loader: node batch / rate (the model's rate limit) */
	double decode_s;        /* one worker decoding one node batch: workers x node batch / decode rate */
	double read_s;          /* the node's share of storage reading one node batch; 0 = page cache */
	long n_total, n_full;   /* iterations in this epoch; full ones */
	double frac_last;       /* fraction of the last (partial) iteration, 0 when none */
	bool seg_full;          /* this epoch is a whole epoch (not the fractional last one) */
	long it;                /* iterations started in this epoch */
	long produced;
	sim_res *pool;
	sim_res *storage;       /* the node's share of shared storage: one FIFO reader (storage epochs) */
	sim_queue *queue;
	double epoch_start_s, prev_end_s, iter_start_s;
	double cur_exposed_s;
	int evals_done;
	long global_it;         /* iterations started in the run (1-based after start) */
	/* epoch replay memory */
	bool kind_done[NKINDS];
	double kind_train_s[NKINDS];
	size_t kind_s0[NKINDS], kind_s1[NKINDS]; /* sample index range of that epoch */
	double kind_exposed[NKINDS], kind_wait[NKINDS], kind_strag[NKINDS];
	double seg_start_sample_s; /* scratch */
	size_t seg_s0;
	double seg_exposed, seg_wait, seg_strag;
	/* results */
	samples *iters;
	double train_s[NKINDS]; long train_iters_f[NKINDS]; /* full epochs per kind: time, count */
	double steady_exposed, steady_wait, steady_strag; double steady_n;
	int simulated, replayed;
	double end_s;
	bool tracing;
	uint64_t detail_events;
	long done_before;       /* epochs of earlier runs, for the progress bar */
	int trainer_track, wait_track;
	sim_trace *tr;
	int err;
} run_ctx;

static void epoch_begin(sim_loop *loop, void *ctx, long e);
static void iter_request(sim_loop *loop, run_ctx *c);

/* The job's slowest GPU this iteration; also the mean factor (for the straggler cost). */
static double draw_slowest(run_ctx *c, double *mean)
{
	const sim_opts *o = c->o;
	if (o->jitter == 0 && o->slow_prob == 0) {
		*mean = 1.0;
		for (int g = 0; g < c->G; g++)
			c->factor[g] = 1.0;
		return 1.0;
	}
	double mx = 0, sum = 0;
	for (int g = 0; g < c->gpus; g++) {
		double f = sim_rng_slowdown(c->rng, o->jitter, o->slow_prob, o->slow_factor);
		c->factor[g] = f;
		sum += f;
		if (f > mx)
			mx = f;
	}
	*mean = sum / c->gpus;
	return mx;
}

static void iter_end(sim_loop *loop, void *ctx, long partial);

/* True when the caller asked the run to stop (sim_opts.stop): records ERR_INTR; the caller then
 * schedules nothing more, so the loop drains and sim_run returns. */
static bool stop_asked(run_ctx *c)
{
	if (!c->o->stop || !c->o->stop())
		return false;
	err_set("stopped by a signal after %ld iterations", c->global_it);
	c->err = ERR_INTR;
	return true;
}

static void iter_start(sim_loop *loop, void *ctx, long arg)
{
	(void)arg;
	run_ctx *c = ctx;
	if (stop_asked(c))
		return;
	double mean, f = draw_slowest(c, &mean), exposed;
	double d;
	const sim_opts *o = c->o;
	bool traced = c->tr && c->global_it + 1 >= o->trace_first && c->global_it + 1 <= o->trace_last;
	if (c->tr && c->global_it + 1 == o->trace_first) { /* open the trace window */
		c->tracing = true;
		if (c->it > o->loader_workers + 1) /* else it opened at the epoch start */
			sim_trace_window(c->tr, c->prev_end_s, INFINITY);
	}
	if (o->detail || traced) {
		double comm_end;
		long ev = sim_node_iter(c->sh, o->contention, c->factor, f, sim_now(loop), traced ? c->tr : NULL,
					false, &comm_end);
		if (ev < 0) {
			c->err = (int)ev;
			return;
		}
		c->detail_events += (uint64_t)ev;
		d = sim_gpu_iter_from(c->sh, f, comm_end - sim_now(loop), &exposed);
	} else {
		d = sim_gpu_iter(c->sh, f, &exposed);
	}
	bool partial = c->it == c->n_full; /* the last, partial iteration */
	c->it++;
	c->global_it++;
	c->iter_start_s = sim_now(loop);
	if (!c->o->warmup)
		d = fmax(d, c->period_s); /* the loader as a rate limit */
	if (partial)
		d *= c->frac_last;
	double w = partial ? c->frac_last : 1.0; /* a partial iteration counts as its fraction */
	c->cur_exposed_s = exposed;
	c->seg_wait += sim_now(loop) - c->prev_end_s;
	c->seg_strag += w * (f - mean) * (c->sh->fwd_total_s + c->sh->bwd_total_s + c->sh->opt_s);
	c->seg_exposed += w * exposed;
	if (c->tracing) {
		char name[48];
		snprintf(name, sizeof(name), "iteration %ld", c->global_it);
		sim_trace_span(c->tr, c->trainer_track, name, sim_now(loop), d);
		if (sim_now(loop) > c->prev_end_s)
			sim_trace_span(c->tr, c->wait_track, "wait for data", c->prev_end_s,
				       sim_now(loop) - c->prev_end_s);
	}
	sim_after(loop, d, iter_end, c, partial);
}

static void iter_end(sim_loop *loop, void *ctx, long partial)
{
	run_ctx *c = ctx;
	if (!partial)
		samples_add(c->iters, sim_now(loop) - c->prev_end_s, 1.0);
	c->prev_end_s = sim_now(loop);
	if (c->tracing && c->global_it == c->o->trace_last) {
		c->tracing = false;
		sim_trace_window(c->tr, INFINITY, INFINITY);
	}
	if (c->it < c->n_total) {
		iter_request(loop, c);
		return;
	}
	/* epoch end */
	double train = sim_now(loop) - c->epoch_start_s;
	if (c->seg_full) {
		if (!c->kind_done[c->kind]) {
			c->kind_done[c->kind] = true;
			c->kind_train_s[c->kind] = train;
			c->kind_s0[c->kind] = c->seg_s0;
			c->kind_s1[c->kind] = c->iters->n;
			c->kind_exposed[c->kind] = c->seg_exposed;
			c->kind_wait[c->kind] = c->seg_wait;
			c->kind_strag[c->kind] = c->seg_strag;
		}
	}
	c->simulated++;
	if (c->e > 0 || c->nseg == 1) {
		c->train_s[c->kind] += train;
		c->train_iters_f[c->kind]++;
		c->steady_exposed += c->seg_exposed;
		c->steady_wait += c->seg_wait;
		c->steady_strag += c->seg_strag;
		c->steady_n += (double)c->n_full + c->frac_last;
	}
	sim_queue_free(c->queue);
	c->queue = NULL;
	sim_res_free(c->pool);
	c->pool = NULL;
	sim_res_free(c->storage);
	c->storage = NULL;
	epoch_begin(loop, c, -1 - c->e); /* boundary and evaluation, then the next epoch */
}

static void producer_run(sim_loop *loop, void *ctx, long arg);

static void decode_start(sim_loop *loop, void *ctx, long w)
{
	run_ctx *c = ctx;
	sim_res_submit(loop, c->pool, c->decode_s, "decode batch", producer_run, c, w);
}

/* Worker w starts its next batch: read it from storage (storage epochs), then decode it. */
static void producer_start(sim_loop *loop, run_ctx *c, long w)
{
	c->produced++;
	if (c->read_s > 0)
		sim_res_submit(loop, c->storage, c->read_s, "read batch", decode_start, c, w);
	else
		decode_start(loop, c, w);
}

static void producer_stored(sim_loop *loop, void *ctx, long arg)
{
	run_ctx *c = ctx;
	if (c->produced < c->n_total)
		producer_start(loop, c, arg);
}

static void producer_run(sim_loop *loop, void *ctx, long arg)
{
	run_ctx *c = ctx;
	sim_queue_put(loop, c->queue, producer_stored, c, arg);
}

static void iter_request(sim_loop *loop, run_ctx *c)
{
	if (c->o->warmup)
		sim_queue_get(loop, c->queue, iter_start, c, 0);
	else
		sim_at(loop, sim_now(loop), iter_start, c, 0);
}

/* e >= 0: start epoch e now. e < 0: epoch -1-e has just ended: charge its boundary and evaluation,
 * then start the next one. */
/* The boundary after epoch segment done: its pause and the evaluation passes due, then the next segment or the
 * run's end. */
static void epoch_end(sim_loop *loop, run_ctx *c, int done)
{
	const model_params *p = c->p;
	double pos = fmin(done + 1.0, c->epochs), seg = pos - done;
	double pause = c->boundary_s * seg;
	int due = 0;
	if (p->eval_every > 0)
		due = done == c->nseg - 1 ? (int)ceil(c->epochs / p->eval_every - 1e-9)
					  : (int)floor(pos / p->eval_every + 1e-9);
	int evals = due > c->evals_done ? due - c->evals_done : 0;
	c->evals_done += evals;
	double extra = pause + evals * c->eval_pass_s;
	if (c->tracing) {
		sim_trace_span(c->tr, c->trainer_track, "epoch boundary", sim_now(loop), pause);
		if (evals)
			sim_trace_span(c->tr, c->trainer_track, "evaluation", sim_now(loop) + pause,
				       evals * c->eval_pass_s);
	}
	if (done + 1 >= c->nseg) {
		c->end_s = sim_now(loop) + extra;
		return;
	}
	sim_at(loop, sim_now(loop) + extra, epoch_begin, c, done + 1);
}

/* Epoch segment e's rates (read from storage or the page cache) and its iteration counts. */
static void epoch_setup(sim_loop *loop, run_ctx *c, long e)
{
	c->kind = (e == 0 || !c->sc->prep.cached) ? KIND_STORAGE : KIND_CACHE;
	double rate = c->kind == KIND_STORAGE ? fmin(c->data_rate, c->io_rate) : c->data_rate;
	c->period_s = c->node_batch / rate;
	c->decode_s = c->o->loader_workers * c->node_batch / c->data_rate;
	c->read_s = c->kind == KIND_STORAGE && isfinite(c->io_rate) && c->io_rate > 0 ? c->node_batch / c->io_rate : 0;
	double seg = fmin(e + 1.0, c->epochs) - e;
	c->seg_full = seg >= 1.0;
	double n_real = seg * c->sc->images / c->global_batch;
	c->n_full = (long)floor(n_real);
	c->frac_last = n_real - (double)c->n_full;
	if (c->frac_last < 1e-12)
		c->frac_last = 0;
	c->n_total = c->n_full + (c->frac_last > 0);
	c->it = 0;
	c->produced = 0;
	c->epoch_start_s = sim_now(loop);
	c->prev_end_s = sim_now(loop);
	c->seg_s0 = c->iters->n;
	c->seg_exposed = c->seg_wait = c->seg_strag = 0;
}

/* Replays a full epoch of a kind already simulated, when nothing random or traced is lost: true when it did. */
static bool epoch_replay(sim_loop *loop, run_ctx *c, long e, bool traced)
{
	const sim_opts *o = c->o;
	if (!(o->replay && !o->detail && c->seg_full && c->kind_done[c->kind] && o->jitter == 0 &&
	      o->slow_prob == 0 && !traced))
		return false;
	for (size_t i = c->kind_s0[c->kind]; i < c->kind_s1[c->kind]; i++)
		c->iters->w[i] += 1.0;
	c->global_it += c->n_total;
	c->replayed++;
	if (e > 0 || c->nseg == 1) {
		c->train_s[c->kind] += c->kind_train_s[c->kind];
		c->train_iters_f[c->kind]++;
		c->steady_exposed += c->kind_exposed[c->kind];
		c->steady_wait += c->kind_wait[c->kind];
		c->steady_strag += c->kind_strag[c->kind];
		c->steady_n += (double)c->n_full + c->frac_last;
	}
	sim_at(loop, sim_now(loop) + c->kind_train_s[c->kind], epoch_begin, c, -1 - e);
	return true;
}

/* The loader of node 0 (sim_opts.warmup): its queue, workers and storage reads, each worker started. */
static void loader_start(sim_loop *loop, run_ctx *c)
{
	const sim_opts *o = c->o;
	c->queue = sim_queue_new(o->prefetch);
	int track = -1;
	if (c->tr) {
		char name[32];
		for (int w = 0; w < o->loader_workers; w++) {
			snprintf(name, sizeof(name), "loader worker %d", w);
			int t = sim_trace_track(c->tr, "node0 data", name);
			if (w == 0)
				track = t;
		}
	}
	c->pool = sim_res_new("loader", o->loader_workers, c->tr, track);
	if (c->read_s > 0)
		c->storage = sim_res_new("storage", 1, c->tr,
					 c->tr ? sim_trace_track(c->tr, "node0 data", "storage reads") : -1);
	for (int w = 0; w < o->loader_workers && c->produced < c->n_total; w++)
		producer_start(loop, c, w);
}

/* An event: e >= 0 starts epoch segment e; e < 0 ends segment -1 - e (epoch_end). */
static void epoch_begin(sim_loop *loop, void *ctx, long e)
{
	run_ctx *c = ctx;
	if (e < 0) {
		epoch_end(loop, c, (int)(-1 - e));
		return;
	}
	c->e = (int)e;
	if (stop_asked(c))
		return;
	if (c->o->progress)
		progress_update(c->o->progress, c->done_before + e);
	epoch_setup(loop, c, e);
	const sim_opts *o = c->o;
	long first_it = c->global_it + 1, last_it = c->global_it + c->n_total;
	bool traced = c->tr && o->trace_first > 0 && o->trace_first <= last_it && o->trace_last >= first_it;
	if (epoch_replay(loop, c, e, traced))
		return;
	if (traced && o->trace_first <= first_it + o->loader_workers && !c->tracing)
		sim_trace_window(c->tr, sim_now(loop), INFINITY); /* show the loader filling the queue */
	if (o->warmup)
		loader_start(loop, c);
	iter_request(loop, c);
}

/* Builds the iteration shape from the model's pieces. */
static int shape_build(sim_shape *sh, const model_scenario *sc, const model_params *p, const model_net *net,
		       const model_result *mr)
{
	const model_node *n = &sc->node;
	const model_prep *pr = &sc->prep;
	int G = n->gpus_per_node, N = sc->nodes, b = sc->batch_per_gpu;

	memset(sh, 0, sizeof(*sh));
	sh->net = net;
	sh->gpus_per_node = G;
	sh->nodes = N;
	sh->batch = b;
	sh->fwd_s = xcalloc((size_t)net->nlayers, sizeof(double));
	sh->bwd_s = xcalloc((size_t)net->nlayers, sizeof(double));
	model_layer_times(sc, p, net, b, sh->fwd_s, sh->bwd_s);
	for (int l = 0; l < net->nlayers; l++) {
		sh->fwd_total_s += sh->fwd_s[l];
		sh->bwd_total_s += sh->bwd_s[l];
	}
	sh->opt_s = mr->opt_s;
	if (sc->stack.step_overhead_s > 0) /* the stack's per-step framework time, as model_predict adds it */
		sh->opt_s += sc->stack.step_overhead_s;
	sh->opt_s += mr->decode_s; /* data path gpu: the GPU's decode on the step, as model_predict adds it */
	sh->overlap = model_overlap(sc, p); /* the stack's where it gives one */
	sh->nbuckets = pr->nbuckets;
	for (int k = 0; k < pr->nbuckets; k++) {
		int first = pr->bucket_first_layer[k];
		if (first < 0 || first >= net->nlayers)
			return err_set("sim: model bucket %d starts at layer %d of %d", k, first, net->nlayers);
		sh->bucket_first[k] = first;
		double ready = sh->fwd_total_s;
		for (int l = net->nlayers - 1; l >= first; l--)
			ready += sh->bwd_s[l];
		sh->ready_s[k] = ready;
		sh->model_ar_s[k] = model_allreduce_s(sc, p, pr->bucket_B[k]);
		/* the model's own phases: the simulator shares links among them, the model adds them up */
		int np = model_allreduce_phases(sc, p, pr->bucket_B[k], sh->phase[k]);
		sh->nphases[k] = np;
	}
	sh->intra_nvlink = n->intra_nvlink;
	sh->intra_Bps = n->intra_bw_Bps * (n->intra_nvlink ? p->bw_eff_nvlink : p->bw_eff_pcie);
	sh->groups = n->host_links > 0 ? n->host_links : 1;
	sh->uplink_Bps = n->host_link_Bps * p->bw_eff_pcie;
	sh->nics = n->nics_per_node;
	sh->nic_Bps = n->nic_Bps * p->bw_eff_net;
	sh->nic_via_host = (!n->intra_nvlink || n->nics_per_node <= 1) && n->host_links > 0 && sh->uplink_Bps > 0;
	if (sc->data == MODEL_DATA_CPU && n->host_links > 0 && n->host_link_Bps > 0) {
		sh->copy_B = (double)b * p->host_copy_B_per_img;
		sh->copy_rate_Bps = (double)n->host_links * sh->uplink_Bps / G;
	}
	if (G > 1 && !(sh->intra_Bps > 0 && isfinite(sh->intra_Bps)))
		return err_set("sim: intra-node bandwidth must be > 0 bytes/s (got %g x efficiency %g)", n->intra_bw_Bps,
			       n->intra_nvlink ? p->bw_eff_nvlink : p->bw_eff_pcie);
	if (N > 1 && !(sh->nic_Bps > 0 && isfinite(sh->nic_Bps) && sh->nics > 0))
		return err_set("sim: %d nodes need NICs with bandwidth > 0 (got %d x %g bytes/s)", N, sh->nics,
			       n->nic_Bps);
	return 0;
}

static int opts_check(const sim_opts *o)
{
	if (!(o->jitter >= 0) || !isfinite(o->jitter))
		return err_set("--jitter must be >= 0 (got %g)", o->jitter);
	if (!(o->slow_prob >= 0 && o->slow_prob <= 1))
		return err_set("--slow-prob must be in [0, 1] (got %g)", o->slow_prob);
	if (!(o->slow_factor >= 1) || !isfinite(o->slow_factor))
		return err_set("--slow-factor must be >= 1 (got %g)", o->slow_factor);
	if (o->runs < 1 || o->runs > 100000)
		return err_set("--runs must be 1 to 100000 (got %d)", o->runs);
	if (o->loader_workers < 1 || o->prefetch < 1)
		return err_set("loader workers and prefetch depth must be >= 1 (got %d, %d)", o->loader_workers,
			       o->prefetch);
	if (o->trace_first < 0 || o->trace_last < o->trace_first)
		return err_set("--trace-window A:B needs 1 <= A <= B (got %ld:%ld)", o->trace_first, o->trace_last);
	return 0;
}

/* What every run shares: the scenario, the shape, the loader and storage rates, the epochs. */
static void base_init(run_ctx *b, const model_scenario *sc, const model_params *p, const sim_opts *o, sim_shape *sh,
		      const sim_result *r)
{
	memset(b, 0, sizeof(*b));
	b->sc = sc;
	b->p = p;
	b->o = o;
	b->sh = sh;
	b->gpus = r->gpus;
	b->G = sc->node.gpus_per_node;
	b->node_batch = (double)b->G * sc->batch_per_gpu;
	b->global_batch = r->global_batch;
	b->data_rate = model_data_rate(sc, p);
	b->io_rate = sc->data == MODEL_DATA_SYNTHETIC ? INFINITY : model_storage_rate(sc, p) / sc->nodes;
	b->eval_pass_s = model_eval_pass_s(p, &r->model);
	b->boundary_s = model_boundary_epoch_s(p, &r->model);
	b->epochs = r->epochs;
	b->nseg = (int)ceil(r->epochs - 1e-12);
	if (b->nseg < 1)
		b->nseg = 1;
}

/* Iterations of one run: each epoch's images / global batch, a partial last batch counted as one. */
static long run_iters(const model_scenario *sc, const sim_result *r, int nseg)
{
	long total = 0;
	for (int e = 0; e < nseg; e++) {
		double n_real = (fmin(e + 1.0, r->epochs) - e) * sc->images / r->global_batch;
		long nf = (long)floor(n_real);
		total += nf + (n_real - nf >= 1e-12);
	}
	return total;
}

/* Sums over the runs, for the summary: the steady epochs' time, iterations and waits, the first epochs. */
typedef struct run_sums {
	double steady_time, steady_iters, steady_exposed, steady_wait, steady_strag, first_epoch;
} run_sums;

/* Simulates run `run` (the trace records run 0) and adds what it measured to *sum and its time to
 * accuracy to tta[run]. 0, or the error that stopped it (its epoch's loader freed). */
static int run_one(const run_ctx *base, sim_rng *rng, int run, sim_result *r, run_sums *sum, double *tta)
{
	const sim_opts *o = base->o;
	const model_scenario *sc = base->sc;
	run_ctx c = *base;
	c.rng = rng;
	c.done_before = (long)run * base->nseg;
	c.tr = run == 0 ? o->trace : NULL;
	if (c.tr) {
		sim_trace_window(c.tr, INFINITY, INFINITY);
		c.trainer_track = sim_trace_track(c.tr, "node0 trainer", "iterations");
		c.wait_track = sim_trace_track(c.tr, "node0 trainer", "data wait");
	}
	sim_loop *loop = sim_loop_new();
	sim_at(loop, 0.0, epoch_begin, &c, 0);
	sim_loop_run(loop, INFINITY);
	r->events += sim_loop_events(loop) + c.detail_events;
	sim_loop_free(loop);
	if (c.err) {
		sim_queue_free(c.queue); /* the epoch under way when it stopped */
		sim_res_free(c.pool);
		sim_res_free(c.storage);
		return c.err;
	}
	if (c.tr)
		sim_trace_window(c.tr, -INFINITY, INFINITY);
	/* several runs differ as MLPerf's seeds do: each needs its own number of epochs (lognormal,
	 * sd conv_cv of the mean; refdata/convergence_rcp.csv), so its training time scales with it */
	double conv = o->runs > 1 && !(sc->epochs > 0) ? sim_rng_slowdown(rng, base->p->conv_cv, 0.0, 1.0) : 1.0;
	/* the model's start-up, its staging copy and warm-up, less the warm-up's first-epoch storage reads
	 * (played here) */
	tta[run] = r->model.startup_s + r->model.staging_s + c.end_s * conv + r->model.warmup_s -
		   fmin(r->model.epochs, 1.0) * (r->model.first_epoch_s - r->model.epoch_s);
	for (int k = 0; k < NKINDS; k++)
		sum->steady_time += c.train_s[k];
	sum->steady_iters += c.steady_n;
	sum->steady_exposed += c.steady_exposed;
	sum->steady_wait += c.steady_wait;
	sum->steady_strag += c.steady_strag;
	sum->first_epoch += c.kind_done[KIND_STORAGE] ? c.kind_train_s[KIND_STORAGE] : 0;
	r->epochs_simulated = c.simulated;
	r->epochs_replayed = c.replayed;
	return 0;
}

/* Every run, one after another on one random stream. */
static int run_all(const run_ctx *base, sim_result *r, run_sums *sum, double *tta)
{
	const sim_opts *o = base->o;
	sim_rng *rng = sim_rng_new(o->seed);
	int rc = 0;
	if (!rng)
		return ERR_ENV;
	if (o->progress) {
		o->progress->total = (long)o->runs * base->nseg;
		o->progress->done = 0;
	}
	for (int run = 0; rc == 0 && run < o->runs; run++)
		rc = run_one(base, rng, run, r, sum, tta);
	sim_rng_free(rng);
	if (rc == 0 && o->progress)
		progress_finish(o->progress);
	return rc;
}

/* The summary: predict's columns from the steady epochs (epoch 2 on; epoch 1 alone for one epoch), the
 * bottleneck by the model's rule, the spread of the iterations and of the runs' times to accuracy. */
static void summarize(const model_scenario *sc, const sim_shape *sh, const sim_opts *o, const samples *iters,
		      const run_sums *sum, const double *tta, sim_result *r)
{
	r->runs = o->runs;
	r->compute_s = sh->fwd_total_s + sh->bwd_total_s + sh->opt_s;
	r->comm_s = r->gpus > 1 ? sh->comm_s : 0.0;
	r->iter_s = sum->steady_time / sum->steady_iters;
	r->comm_exposed_s = sum->steady_exposed / sum->steady_iters;
	r->data_wait_s = sum->steady_wait / sum->steady_iters;
	r->straggler_s = sum->steady_strag / sum->steady_iters;
	r->data_s = r->model.data_s;
	r->io_s = r->model.io_s;
	r->throughput_img_s = r->global_batch / r->iter_s;
	r->per_gpu_img_s = sc->batch_per_gpu / r->iter_s;
	r->scaling_eff = r->model.scaling_eff * r->model.iter_s / r->iter_s;
	r->epoch_s = sc->images / r->throughput_img_s;
	r->first_epoch_s = sum->first_epoch / o->runs;
	r->bottleneck = model_bottleneck_of(r->compute_s, r->comm_s, r->data_s, sc->prep.cached ? 0.0 : r->io_s);
	double q[2] = { 0.5, 0.95 }, out2[2];
	samples_quantiles(iters, q, out2, 2);
	r->iter_p50_s = out2[0];
	r->iter_p95_s = out2[1];
	samples ts = { 0 };
	double total = 0;
	r->tta_min_s = INFINITY;
	r->tta_max_s = -INFINITY;
	for (int run = 0; run < o->runs; run++) {
		samples_add(&ts, tta[run], 1.0);
		total += tta[run];
		r->tta_min_s = fmin(r->tta_min_s, tta[run]);
		r->tta_max_s = fmax(r->tta_max_s, tta[run]);
	}
	samples_quantiles(&ts, q, out2, 2);
	r->tta_p50_s = out2[0];
	r->tta_p95_s = out2[1];
	r->tta_s = total / o->runs;
	free(ts.v);
	free(ts.w);
}

int sim_run(const model_scenario *sc, const model_params *p, const sim_opts *o, sim_result *r)
{
	model_net net = { 0 };
	sim_shape sh = { 0 };
	samples iters = { 0 };
	run_sums sum = { 0 };
	run_ctx base;
	double *tta = NULL;
	double t_wall = time_now_s();
	int rc;

	memset(r, 0, sizeof(*r));
	rc = opts_check(o);
	if (rc == 0)
		rc = model_predict(sc, p, &r->model);
	if (rc)
		return rc;
	if (!r->model.fits)
		return err_set("batch %d per GPU does not fit in GPU memory (%.1f GB needed)", sc->batch_per_gpu,
			       r->model.mem_per_gpu_B / 1e9);
	model_price_run(sc, p, &r->model, &r->cost);
	rc = model_net_resnet50(&net, 1000, 224);
	if (rc)
		return rc;
	rc = shape_build(&sh, sc, p, &net, &r->model);
	if (rc)
		goto out;
	long ev = sim_node_iter(&sh, o->contention, NULL, 1.0, 0.0, NULL, true, NULL);
	if (ev < 0) {
		rc = (int)ev;
		goto out;
	}
	r->events += (uint64_t)ev;
	r->gpus = sc->nodes * sc->node.gpus_per_node;
	r->global_batch = r->gpus * sc->batch_per_gpu;
	r->epochs = r->model.epochs;
	base_init(&base, sc, p, o, &sh, r);
	r->iters = run_iters(sc, r, base.nseg);
	if (o->trace_first > 0 && o->trace_last > r->iters) {
		rc = err_set("--trace-window %ld:%ld lies past the run: it has %ld iterations", o->trace_first,
			     o->trace_last, r->iters);
		goto out;
	}
	base.factor = xcalloc((size_t)r->gpus, sizeof(double));
	base.iters = &iters;
	tta = xcalloc((size_t)o->runs, sizeof(double));
	rc = run_all(&base, r, &sum, tta);
	free(base.factor);
	if (rc == 0)
		summarize(sc, &sh, o, &iters, &sum, tta, r);
out:
	free(tta);
	free(iters.v);
	free(iters.w);
	free(sh.fwd_s);
	free(sh.bwd_s);
	model_net_free(&net);
	r->wall_s = time_now_s() - t_wall;
	return rc;
}

void sim_result_as_model(const model_scenario *sc, const sim_result *r, model_result *out, model_cost *cost)
{
	model_result m = r->model;
	model_cost c = r->cost;

	m.gpus = r->gpus;
	m.global_batch = r->global_batch;
	m.throughput_img_s = r->throughput_img_s;
	m.per_gpu_img_s = r->per_gpu_img_s;
	m.scaling_eff = r->scaling_eff;
	m.iter_s = r->iter_s;
	m.compute_s = r->compute_s;
	m.comm_s = r->comm_s;
	m.comm_exposed_s = r->comm_exposed_s;
	m.data_s = r->data_s;
	m.io_s = r->io_s;
	m.bottleneck = r->bottleneck;
	m.epochs = r->epochs;
	m.epoch_s = r->epoch_s;
	m.tta_s = r->tta_s;
	/* the simulator times the whole run; its MLPerf-scored part is that less the model's start-up and
	 * staging (which it does not simulate separately) */
	m.ttt_s = r->tta_s - (r->model.tta_s - r->model.ttt_s);
	m.first_epoch_s = r->first_epoch_s;
	c.energy_J = c.power_W * r->tta_s; /* energy = average power x the simulated run */
	model_run_money(sc, &m, &c);
	*out = m;
	*cost = c;
}
