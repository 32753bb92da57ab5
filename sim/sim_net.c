/* sim_net.c - links and flows with max-min fair bandwidth sharing.
 *
 * A flow crosses a path of links. Whenever a flow starts or ends, every active flow's remaining bytes
 * are advanced at its old rate, new rates are computed and the completion events of the flows whose
 * rate changed are rescheduled (stale completion events carry an old version number and are ignored).
 *
 * Rates are max-min fair, by progressive filling (Bertsekas & Gallager, Data Networks, 2nd ed.,
 * section 6.5.2): raise every unfrozen flow's rate together until a link saturates or a flow reaches
 * its own cap, freeze the flows concerned, repeat. Two equal flows on one link get half each, so they
 * take twice as long as one alone (tests/test_sim_core.c checks this by hand).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "sim/sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

enum { NET_MAX_PATH = 8, NET_SLOT_BITS = 24 };

typedef struct net_link {
	char name[48];
	double bw_Bps;
	int track;     /* trace track, < 0 none */
	double residual_Bps; /* scratch for progressive filling */
	int unfrozen;        /* scratch */
} net_link;

typedef struct net_flow {
	bool used;       /* slot holds a flow (in latency or transfer phase) */
	bool active;     /* transferring bytes (past its latency) */
	bool frozen;     /* scratch */
	int path[NET_MAX_PATH];
	int nlinks;
	double size_B, remaining_B, rate_Bps, cap_Bps;
	double begin_s;  /* first byte */
	long version;
	char name[48];
	sim_fn *done;
	void *ctx;
	long arg;
} net_flow;

struct sim_net {
	bool share;
	sim_trace *tr;
	net_link *links;
	int nlinks, links_cap;
	net_flow *flows;
	int nflows_cap;
	int *free_slots;
	int nfree;
	int active;
	double last_s;   /* time the remaining bytes were last advanced to */
	long done_count;
};

sim_net *sim_net_new(bool share, sim_trace *tr)
{
	sim_net *net = xcalloc(1, sizeof(*net));
	net->share = share;
	net->tr = tr;
	return net;
}

void sim_net_free(sim_net *net)
{
	if (!net)
		return;
	free(net->links);
	free(net->flows);
	free(net->free_slots);
	free(net);
}

int sim_net_link(sim_net *net, const char *name, double bw_Bps, int track)
{
	if (!(bw_Bps > 0) || !isfinite(bw_Bps))
		return err_set("link %s: bandwidth must be a positive finite number of bytes/s, got %g",
			       name ? name : "?", bw_Bps);
	if (net->nlinks == net->links_cap) {
		net->links_cap = net->links_cap ? 2 * net->links_cap : 16;
		net->links = xrealloc(net->links, (size_t)net->links_cap * sizeof(*net->links));
	}
	net_link *l = &net->links[net->nlinks];
	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name ? name : "");
	l->bw_Bps = bw_Bps;
	l->track = track;
	return net->nlinks++;
}

long sim_net_flows_done(const sim_net *net) { return net->done_count; }

double sim_net_link_load_Bps(const sim_net *net, int link)
{
	double sum = 0;
	for (int i = 0; i < net->nflows_cap; i++) {
		const net_flow *f = &net->flows[i];
		if (!f->active)
			continue;
		for (int k = 0; k < f->nlinks; k++)
			if (f->path[k] == link)
				sum += f->rate_Bps;
	}
	return sum;
}

/* Advances every active flow's remaining bytes to now at its current rate. */
static void net_advance(sim_net *net, double now_s)
{
	double dt = now_s - net->last_s;
	if (dt > 0) {
		for (int i = 0; i < net->nflows_cap; i++) {
			net_flow *f = &net->flows[i];
			if (f->active) {
				f->remaining_B -= f->rate_Bps * dt;
				if (f->remaining_B < 0)
					f->remaining_B = 0;
			}
		}
	}
	net->last_s = now_s;
}

/* Computes each active flow's rate into rate_Bps: alone (bottleneck of its path) when sharing is
 * off, max-min fair by progressive filling when it is on. */
static void net_rates(sim_net *net)
{
	int unfrozen = 0;
	for (int i = 0; i < net->nflows_cap; i++) {
		net_flow *f = &net->flows[i];
		if (!f->active)
			continue;
		if (!net->share) {
			double r = f->cap_Bps;
			for (int k = 0; k < f->nlinks; k++)
				r = fmin(r, net->links[f->path[k]].bw_Bps);
			f->rate_Bps = r;
			continue;
		}
		f->rate_Bps = 0;
		f->frozen = false;
		unfrozen++;
	}
	if (!net->share)
		return;
	for (int l = 0; l < net->nlinks; l++)
		net->links[l].residual_Bps = net->links[l].bw_Bps;
	while (unfrozen > 0) {
		for (int l = 0; l < net->nlinks; l++)
			net->links[l].unfrozen = 0;
		for (int i = 0; i < net->nflows_cap; i++) {
			net_flow *f = &net->flows[i];
			if (f->active && !f->frozen)
				for (int k = 0; k < f->nlinks; k++)
					net->links[f->path[k]].unfrozen++;
		}
		/* the largest equal increment every unfrozen flow can take */
		double inc = INFINITY;
		for (int l = 0; l < net->nlinks; l++)
			if (net->links[l].unfrozen > 0)
				inc = fmin(inc, net->links[l].residual_Bps / net->links[l].unfrozen);
		for (int i = 0; i < net->nflows_cap; i++) {
			net_flow *f = &net->flows[i];
			if (f->active && !f->frozen)
				inc = fmin(inc, f->cap_Bps - f->rate_Bps);
		}
		if (!(inc >= 0))
			inc = 0;
		for (int i = 0; i < net->nflows_cap; i++) {
			net_flow *f = &net->flows[i];
			if (!f->active || f->frozen)
				continue;
			f->rate_Bps += inc;
			for (int k = 0; k < f->nlinks; k++)
				net->links[f->path[k]].residual_Bps -= inc;
		}
		/* freeze flows at their cap or crossing a saturated link (relative slack 1e-12) */
		int froze = 0;
		for (int i = 0; i < net->nflows_cap; i++) {
			net_flow *f = &net->flows[i];
			if (!f->active || f->frozen)
				continue;
			bool stop = f->rate_Bps >= f->cap_Bps * (1 - 1e-12);
			for (int k = 0; k < f->nlinks && !stop; k++) {
				const net_link *l = &net->links[f->path[k]];
				stop = l->residual_Bps <= l->bw_Bps * 1e-12;
			}
			if (stop) {
				f->frozen = true;
				froze++;
			}
		}
		if (froze == 0) /* cannot happen with finite links; guard against an endless loop */
			break;
		unfrozen -= froze;
	}
}

static void flow_done_ev(sim_loop *loop, void *ctx, long arg);

/* Recomputes rates and reschedules the completion of every flow whose rate changed. */
static void net_update(sim_loop *loop, sim_net *net)
{
	double *old = NULL;
	if (net->nflows_cap > 0) {
		old = xmalloc((size_t)net->nflows_cap * sizeof(*old));
		for (int i = 0; i < net->nflows_cap; i++)
			old[i] = net->flows[i].active ? net->flows[i].rate_Bps : -1;
	}
	net_rates(net);
	for (int i = 0; i < net->nflows_cap; i++) {
		net_flow *f = &net->flows[i];
		if (!f->active || f->rate_Bps == old[i])
			continue;
		f->version++;
		double t = f->rate_Bps > 0 ? sim_now(loop) + f->remaining_B / f->rate_Bps : INFINITY;
		if (isfinite(t))
			sim_at(loop, t, flow_done_ev, net, ((long)f->version << NET_SLOT_BITS) | i);
	}
	free(old);
}

static void flow_begin_ev(sim_loop *loop, void *ctx, long slot)
{
	sim_net *net = ctx;
	net_advance(net, sim_now(loop));
	net_flow *f = &net->flows[slot];
	f->active = true;
	f->begin_s = sim_now(loop);
	f->rate_Bps = -1; /* forces a completion event */
	net->active++;
	net_update(loop, net);
}

static void flow_done_ev(sim_loop *loop, void *ctx, long arg)
{
	sim_net *net = ctx;
	int slot = (int)(arg & ((1L << NET_SLOT_BITS) - 1));
	long version = arg >> NET_SLOT_BITS;
	net_flow *f = &net->flows[slot];
	if (!f->active || f->version != version)
		return; /* rescheduled since */
	net_advance(net, sim_now(loop));
	f->active = false;
	f->used = false;
	net->active--;
	net->done_count++;
	if (net->tr)
		for (int k = 0; k < f->nlinks; k++)
			if (net->links[f->path[k]].track >= 0)
				sim_trace_span(net->tr, net->links[f->path[k]].track, f->name, f->begin_s,
					       sim_now(loop) - f->begin_s);
	net->free_slots[net->nfree++] = slot;
	sim_fn *done = f->done;
	void *dctx = f->ctx;
	long darg = f->arg;
	net_update(loop, net);
	if (done)
		done(loop, dctx, darg);
}

int sim_net_flow(sim_loop *loop, sim_net *net, const int *path, int nlinks, double size_B,
		 double latency_s, double rate_cap_Bps, const char *name, sim_fn *done, void *ctx,
		 long arg)
{
	if (nlinks < 1 || nlinks > NET_MAX_PATH)
		return err_set("flow %s: a path has 1 to %d links, got %d", name ? name : "?",
			       NET_MAX_PATH, nlinks);
	for (int k = 0; k < nlinks; k++)
		if (path[k] < 0 || path[k] >= net->nlinks)
			return err_set("flow %s: no link %d", name ? name : "?", path[k]);
	if (!(size_B >= 0) || !isfinite(size_B) || !(latency_s >= 0) || !(rate_cap_Bps > 0))
		return err_set("flow %s: size %g B, latency %g s and rate cap %g B/s must be >= 0, >= 0, > 0",
			       name ? name : "?", size_B, latency_s, rate_cap_Bps);
	if (net->nfree == 0) {
		int old = net->nflows_cap, cap = old ? 2 * old : 64;
		if (cap >= (1 << NET_SLOT_BITS))
			return err_set("flow %s: more than %d flows at once", name ? name : "?",
				       1 << NET_SLOT_BITS);
		net->flows = xrealloc(net->flows, (size_t)cap * sizeof(*net->flows));
		memset(net->flows + old, 0, (size_t)(cap - old) * sizeof(*net->flows));
		net->free_slots = xrealloc(net->free_slots, (size_t)cap * sizeof(*net->free_slots));
		for (int i = cap - 1; i >= old; i--)
			net->free_slots[net->nfree++] = i;
		net->nflows_cap = cap;
	}
	int slot = net->free_slots[--net->nfree];
	net_flow *f = &net->flows[slot];
	long version = f->version;
	memset(f, 0, sizeof(*f));
	f->version = version + 1;
	f->used = true;
	memcpy(f->path, path, (size_t)nlinks * sizeof(*path));
	f->nlinks = nlinks;
	f->size_B = f->remaining_B = size_B;
	f->cap_Bps = rate_cap_Bps;
	snprintf(f->name, sizeof(f->name), "%s", name ? name : "flow");
	f->done = done;
	f->ctx = ctx;
	f->arg = arg;
	sim_after(loop, latency_s, flow_begin_ev, net, slot);
	return 0;
}
