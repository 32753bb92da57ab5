/* sim_iter.c - one training iteration of one node, event by event.
 *
 * Every GPU of node 0 runs its forward layers, then its backward layers in reverse, on its compute
 * stream (a capacity-1 resource). When backward finishes the earliest layer of a gradient bucket on
 * every GPU, and not before the job's slowest GPU (factor f_max) would have it, the bucket joins the
 * all-reduce stream, which reduces buckets one at a time (PyTorch DDP / NCCL on one stream). Each
 * bucket runs its phases - reduce-scatter inside the node, all-reduce of the shard between nodes over
 * the NICs, all-gather inside the node - each as one flow per GPU over that GPU's links:
 *   inside the node: the GPU's own NVLink/NVSwitch or PCIe port; on PCIe systems with several
 *     groups (host links) the two ring hops that cross groups also cross both groups' uplinks;
 *   between nodes: NIC (g mod nics), and the GPU's host link (GPU -> host direction) as well when the
 *     NIC hangs off the CPU rather than a PCIe switch next to the GPUs: assumed for PCIe systems and
 *     for single-NIC servers (C4140-K: 4 GPUs, one x16 uplink, one EDR NIC in a CPU slot); multi-NIC
 *     NVLink systems (DGX, HGX) put NICs on the GPUs' PCIe switches (GPUDirect RDMA);
 *   host-to-device copies of the next batch: at iteration start, on each GPU's copy stream, over
 *     its group's host link (host -> GPU direction), shared with ring hops entering the group.
 * Other nodes are identical by symmetry, so node 0's NIC traffic stands for every node's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "sim/sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

enum { ITER_MAX_GPUS = 64 };

typedef struct iter_ctx {
	sim_shape *sh;
	sim_net *net;
	sim_res *stream[ITER_MAX_GPUS];
	int G;
	bool contention;
	const double *factor;
	double f_max, t0_s;
	sim_trace *tr;
	int comm_track[ITER_MAX_GPUS];
	int copy_track[ITER_MAX_GPUS];
	double copy_start_s;
	/* links */
	int ideal, intra[ITER_MAX_GPUS], up[ITER_MAX_GPUS], down[ITER_MAX_GPUS], nic[ITER_MAX_GPUS];
	/* buckets */
	int bucket_of_layer_cap;
	int *bucket_of_layer;  /* [nlayers] bucket whose first layer this is, or -1 */
	int ready_count[MODEL_MAX_BUCKETS];
	bool ready[MODEL_MAX_BUCKETS];
	int next;              /* next bucket to reduce */
	bool busy;
	int phase, flows_left;
	double bucket_start_s;
	double comm_end_s;
	bool set_ar;
	int err;
} iter_ctx;

static void comm_try(sim_loop *loop, iter_ctx *c);

static void bucket_go(sim_loop *loop, void *ctx, long b)
{
	iter_ctx *c = ctx;
	c->ready[b] = true;
	comm_try(loop, c);
}

static void bwd_layer_done(sim_loop *loop, void *ctx, long b)
{
	iter_ctx *c = ctx;
	if (++c->ready_count[b] == c->G) {
		/* the all-reduce needs the bucket from every GPU of the job: the slowest is f_max */
		double global = c->t0_s + c->f_max * c->sh->ready_s[b];
		sim_at(loop, fmax(sim_now(loop), global), bucket_go, c, b);
	}
}

static void start_phase(sim_loop *loop, iter_ctx *c);

static void flow_done(sim_loop *loop, void *ctx, long arg)
{
	(void)arg;
	iter_ctx *c = ctx;
	if (--c->flows_left > 0)
		return;
	sim_shape *sh = c->sh;
	int b = c->next;
	if (++c->phase < sh->nphases[b]) {
		start_phase(loop, c);
		return;
	}
	double dur = sim_now(loop) - c->bucket_start_s;
	if (c->set_ar)
		sh->ar_s[b] = dur;
	if (c->tr) {
		char name[40];
		snprintf(name, sizeof(name), "allreduce b%d", b);
		for (int g = 0; g < c->G; g++)
			sim_trace_span(c->tr, c->comm_track[g], name, c->bucket_start_s, dur);
	}
	c->busy = false;
	c->next++;
	c->comm_end_s = sim_now(loop);
	comm_try(loop, c);
}

static void start_phase(sim_loop *loop, iter_ctx *c)
{
	sim_shape *sh = c->sh;
	const model_ar_phase *ph = &sh->phase[c->next][c->phase];
	static const char *names[] = { "reduce-scatter", "inter-node", "all-gather" };
	char name[40];
	snprintf(name, sizeof(name), "b%d %s", c->next, names[ph->kind]);
	c->flows_left = c->G;
	for (int g = 0; g < c->G; g++) {
		int path[4], n = 0;
		double cap = INFINITY;
		if (!c->contention) {
			path[n++] = c->ideal;
			cap = ph->rate_Bps;
		} else if (ph->kind == MODEL_AR_INTER) {
			if (sh->nic_via_host)
				path[n++] = c->up[g];
			path[n++] = c->nic[g];
		} else {
			int h = (g + 1) % c->G; /* ring neighbour */
			path[n++] = c->intra[g];
			if (!sh->intra_nvlink && c->up[g] != c->up[h]) {
				path[n++] = c->up[g];
				path[n++] = c->down[h];
			}
		}
		if (sim_net_flow(loop, c->net, path, n, ph->size_B, ph->latency_s, cap, name, flow_done, c, g) < 0)
			c->err = ERR_INPUT;
	}
}

static void comm_try(sim_loop *loop, iter_ctx *c)
{
	if (c->busy || c->next >= c->sh->nbuckets || !c->ready[c->next])
		return;
	if (c->sh->nphases[c->next] == 0) { /* one GPU: nothing to reduce */
		if (c->set_ar)
			c->sh->ar_s[c->next] = 0;
		c->next++;
		comm_try(loop, c);
		return;
	}
	c->busy = true;
	c->phase = 0;
	c->bucket_start_s = sim_now(loop);
	start_phase(loop, c);
}

static void copy_done(sim_loop *loop, void *ctx, long g)
{
	iter_ctx *c = ctx;
	if (c->tr)
		sim_trace_span(c->tr, c->copy_track[g], "H2D next batch", c->copy_start_s,
			       sim_now(loop) - c->copy_start_s);
}

static void iter_start(sim_loop *loop, void *ctx, long arg)
{
	(void)arg;
	iter_ctx *c = ctx;
	const sim_shape *sh = c->sh;
	const model_net *net = sh->net;
	/* the copy stream brings the next batch while this one computes (prefetch) */
	c->copy_start_s = sim_now(loop);
	for (int g = 0; g < c->G && sh->copy_B > 0 && sh->copy_rate_Bps > 0; g++) {
		int path = c->contention ? c->down[g] : c->ideal;
		double cap = c->contention ? INFINITY : sh->copy_rate_Bps;
		if (sim_net_flow(loop, c->net, &path, 1, sh->copy_B, 0, cap, "H2D", copy_done, c, g) < 0)
			c->err = ERR_INPUT;
	}
	for (int g = 0; g < c->G; g++) {
		double f = c->factor ? c->factor[g] : 1.0;
		char name[64];
		name[0] = 0; /* names only matter in a trace */
		for (int l = 0; l < net->nlayers; l++) {
			if (c->tr)
				snprintf(name, sizeof(name), "fwd %s", net->layers[l].name);
			sim_res_submit(loop, c->stream[g], f * sh->fwd_s[l], name, NULL, NULL, 0);
		}
		for (int l = net->nlayers - 1; l >= 0; l--) {
			if (c->tr)
				snprintf(name, sizeof(name), "bwd %s", net->layers[l].name);
			int b = c->bucket_of_layer[l];
			sim_res_submit(loop, c->stream[g], f * sh->bwd_s[l], name, b >= 0 ? bwd_layer_done : NULL,
				       c, b);
		}
		sim_res_submit(loop, c->stream[g], f * sh->opt_s, "optimizer", NULL, NULL, 0);
	}
}

/* The node's links, all at the model's efficiencies: the ideal link (never limits a capped flow), each GPU's
 * NVLink or PCIe out, the host links of each PCIe group (up and down), the NICs; each GPU's up, down and NIC. */
static void iter_links(iter_ctx *c, const sim_shape *sh, sim_trace *tr)
{
	char name[64];
	int G = c->G;
	c->ideal = sim_net_link(c->net, "ideal", 1e300, -1);
	for (int g = 0; g < G; g++) {
		snprintf(name, sizeof(name), "gpu%d %s out", g, sh->intra_nvlink ? "nvlink" : "pcie");
		int track = tr ? sim_trace_track(tr, "node0 links", name) : -1;
		c->intra[g] = sim_net_link(c->net, name, sh->intra_Bps > 0 ? sh->intra_Bps : 1e300, track);
	}
	int groups = sh->groups > 1 ? sh->groups : 1; /* host links (PCIe groups) */
	int per_group = (G + groups - 1) / groups;
	int up0 = -1, down0 = -1;
	for (int h = 0; h < groups; h++) {
		snprintf(name, sizeof(name), "host link %d from gpus", h);
		bool used = (groups > 1 && !sh->intra_nvlink) || (sh->nic_via_host && sh->nodes > 1);
		int tu = tr && used ? sim_trace_track(tr, "node0 links", name) : -1;
		int u = sim_net_link(c->net, name, sh->uplink_Bps > 0 ? sh->uplink_Bps : 1e300, tu);
		snprintf(name, sizeof(name), "host link %d to gpus", h);
		int td = tr ? sim_trace_track(tr, "node0 links", name) : -1;
		int d = sim_net_link(c->net, name, sh->uplink_Bps > 0 ? sh->uplink_Bps : 1e300, td);
		if (h == 0) {
			up0 = u;
			down0 = d;
		}
	}
	for (int g = 0; g < G; g++) {
		int h = g / per_group;
		c->up[g] = up0 + 2 * h;
		c->down[g] = down0 + 2 * h;
	}
	int nics = sh->nics > 0 ? sh->nics : 1;
	int nic0 = -1;
	for (int k = 0; k < nics; k++) {
		snprintf(name, sizeof(name), "nic%d out", k);
		int track = tr && sh->nodes > 1 ? sim_trace_track(tr, "node0 links", name) : -1;
		int id = sim_net_link(c->net, name, sh->nic_Bps > 0 ? sh->nic_Bps : 1e300, track);
		if (k == 0)
			nic0 = id;
	}
	for (int g = 0; g < G; g++)
		c->nic[g] = nic0 + g % nics;
}

/* Each GPU's compute stream, and its trace tracks. */
static void iter_streams(iter_ctx *c, sim_trace *tr)
{
	char name[64];
	for (int g = 0; g < c->G; g++) {
		int track = -1;
		if (tr) {
			snprintf(name, sizeof(name), "gpu%d compute", g);
			track = sim_trace_track(tr, "node0 gpus", name);
			snprintf(name, sizeof(name), "gpu%d nccl", g);
			c->comm_track[g] = sim_trace_track(tr, "node0 gpus", name);
			snprintf(name, sizeof(name), "gpu%d copy", g);
			c->copy_track[g] = sim_trace_track(tr, "node0 gpus", name);
		}
		c->stream[g] = sim_res_new("compute", 1, tr, track);
	}
}

long sim_node_iter(sim_shape *sh, bool contention, const double *factor, double f_max, double t0_s,
		   sim_trace *tr, bool set_ar, double *comm_end_s)
{
	iter_ctx c = { 0 };
	long events = -1;
	int G = sh->gpus_per_node;

	if (G > ITER_MAX_GPUS)
		return err_set("sim: at most %d GPUs per node (got %d)", ITER_MAX_GPUS, G);
	c.sh = sh;
	c.G = G;
	c.contention = contention;
	c.factor = factor;
	c.f_max = f_max;
	c.t0_s = t0_s;
	c.tr = tr;
	c.set_ar = set_ar;
	c.comm_end_s = t0_s;
	c.net = sim_net_new(contention, tr);
	c.bucket_of_layer = xmalloc((size_t)sh->net->nlayers * sizeof(int));
	for (int l = 0; l < sh->net->nlayers; l++)
		c.bucket_of_layer[l] = -1;
	for (int b = 0; b < sh->nbuckets; b++)
		c.bucket_of_layer[sh->bucket_first[b]] = b;
	iter_links(&c, sh, tr);
	iter_streams(&c, tr);

	sim_loop *loop = sim_loop_new();
	sim_at(loop, t0_s, iter_start, &c, 0);
	sim_loop_run(loop, INFINITY);
	events = (long)sim_loop_events(loop);
	if (c.err < 0) {
		events = c.err;
	} else if (c.next != sh->nbuckets) {
		events = err_set("sim: iteration ended with %d of %d buckets reduced", c.next, sh->nbuckets);
	} else if (set_ar) {
		sh->comm_s = 0;
		for (int b = 0; b < sh->nbuckets; b++)
			sh->comm_s += sh->ar_s[b];
	}
	if (comm_end_s)
		*comm_end_s = c.comm_end_s;
	sim_loop_free(loop);
	for (int g = 0; g < G; g++)
		sim_res_free(c.stream[g]);
	sim_net_free(c.net);
	free(c.bucket_of_layer);
	return events;
}

double sim_gpu_iter_from(const sim_shape *sh, double f, double comm_end_s, double *exposed_s)
{
	double bwd_end = f * (sh->fwd_total_s + sh->bwd_total_s), exposed = 0;
	if (sh->nodes * sh->gpus_per_node > 1) {
		double x = comm_end_s > bwd_end ? comm_end_s - bwd_end : 0.0;
		exposed = model_step_exposed_s(sh->overlap, x, sh->comm_s);
	}
	if (exposed_s)
		*exposed_s = exposed;
	return bwd_end + f * sh->opt_s + exposed;
}

double sim_gpu_iter(const sim_shape *sh, double f, double *exposed_s)
{
	double bwd_end = f * (sh->fwd_total_s + sh->bwd_total_s), exposed = 0;
	if (sh->nodes * sh->gpus_per_node > 1) {
		double ready[MODEL_MAX_BUCKETS]; /* on this GPU's schedule, slowed by f */
		for (int b = 0; b < sh->nbuckets; b++)
			ready[b] = f * sh->ready_s[b];
		double x = model_exposed_s(sh->nbuckets, ready, sh->ar_s, bwd_end);
		exposed = model_step_exposed_s(sh->overlap, x, sh->comm_s);
	}
	if (exposed_s)
		*exposed_s = exposed;
	return bwd_end + f * sh->opt_s + exposed;
}
