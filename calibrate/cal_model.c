/* calibrate/cal_model.c - the calibration model (model_predict's GPU step on the point's scenario, with
 * the model's own all-reduce on plan_resolve's node, see cal.h), the parameter set, the staged fits and
 * leave-one-out.
 *
 * Parameter names follow model/model.h (the stack's compute_eff, b_half, overlap, decode_img_s_core, conv_e0,
 * conv_b0, epoch_boundary_s); the all-reduce link levels are fitted as absolute alpha_s and busbw_Bps per
 * machine and transport and written to the profile also as the model's alpha_*_s / bw_eff_* where the
 * hardware database knows the link. Priors come from model_params_default() and the hwdb.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "calibrate/cal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"
#include "plan/plan.h"

#define DEFAULT_BATCH 256.0         /* batch assumed where a table gives none (NVIDIA DLE READMEs: 256) */

const char *cal_pstatus_name(cal_pstatus s)
{
	switch (s) {
	case CAL_PRIOR: return "prior";
	case CAL_FITTED: return "fitted";
	case CAL_EXACT: return "exact (no dof)";
	case CAL_UNDETERMINED: return "undetermined";
	case CAL_NOCONV: return "not converged";
	default: return "?";
	}
}

/* ---- parameter sets ---- */

void cal_pset_init(cal_pset *ps)
{
	memset(ps, 0, sizeof *ps);
}

void cal_pset_free(cal_pset *ps)
{
	if (!ps)
		return;
	for (int i = 0; i < ps->n; i++) {
		free(ps->p[i].name);
		free(ps->p[i].scope);
		free(ps->p[i].rows);
		free(ps->p[i].unit);
	}
	free(ps->p);
	free(ps->corr);
	cal_pset_init(ps);
}

void cal_pset_corr_set(cal_pset *ps, int a, int b, double rho)
{
	for (int k = 0; k < ps->ncorr; k++)
		if ((ps->corr[k].a == a && ps->corr[k].b == b) || (ps->corr[k].a == b && ps->corr[k].b == a)) {
			ps->corr[k].rho = rho;
			return;
		}
	if (ps->ncorr == ps->corr_cap) {
		ps->corr_cap = ps->corr_cap ? 2 * ps->corr_cap : 16;
		ps->corr = xrealloc(ps->corr, (size_t)ps->corr_cap * sizeof *ps->corr);
	}
	ps->corr[ps->ncorr++] = (cal_pcorr){ a, b, rho };
}

int cal_pset_find(const cal_pset *ps, const char *name, const char *scope)
{
	for (int i = 0; i < ps->n; i++)
		if (strcmp(ps->p[i].name, name) == 0 && strcmp(ps->p[i].scope, scope) == 0)
			return i;
	return -1;
}

int cal_pset_get(cal_pset *ps, const char *name, const char *scope, double prior, const char *unit)
{
	int i = cal_pset_find(ps, name, scope);
	if (i >= 0)
		return i;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 32;
		ps->p = xrealloc(ps->p, (size_t)ps->cap * sizeof *ps->p);
	}
	cal_param *p = &ps->p[ps->n];
	p->name = xstrdup(name);
	p->scope = xstrdup(scope);
	p->value = p->prior = prior;
	p->se = NAN;
	p->status = CAL_PRIOR;
	p->rows = xstrdup("");
	p->unit = xstrdup(unit);
	return ps->n++;
}

static void pset_copy(cal_pset *dst, const cal_pset *src)
{
	cal_pset_init(dst);
	for (int i = 0; i < src->n; i++) {
		const cal_param *s = &src->p[i];
		int j = cal_pset_get(dst, s->name, s->scope, s->prior, s->unit);
		cal_param *d = &dst->p[j];
		d->value = s->value;
		d->se = s->se;
		d->status = s->status;
		free(d->rows);
		d->rows = xstrdup(s->rows);
	}
	for (int k = 0; k < src->ncorr; k++) /* same names and scopes in the same order: same indices */
		cal_pset_corr_set(dst, src->corr[k].a, src->corr[k].b, src->corr[k].rho);
}

/* ---- the calibration model ---- */

/* What predictions need besides the parameters. */
/* The GPU's decode term on a rank's path before a fit where the database has none (model_gpu_decode_rank_img_s):
 * 3.2e5 img/s, what the 4x H200 campaign of 2026-11-28 gave (3.2 us an image on top of a 117 us step). */
#define CAL_GPU_DECODE_PRIOR 3.2e5

/* What plan_resolve makes of one system at a point's GPUs per node and nodes (it gives a part-filled
 * node its share of the NICs), kept per placement: resolving is microseconds, a fit predicts thousands of
 * times. */
typedef struct cal_sys {
	char *machine;
	int gpn, nodes;
	bool ok;              /* the database has the system and plan_resolve took it */
	model_node node;
} cal_sys;

struct cal_syscache {
	cal_sys *s;
	int n, cap;
};

/* A point's GPU work as the model describes it (cal_point_compute_scenario), built on first use. */
typedef struct cal_cs {
	int state;            /* 0 not built, 1 built, -1 the database cannot describe it */
	model_scenario sc;
} cal_cs;

typedef struct cal_env {
	const hw_db *db;
	const cal_data *d;          /* the points cs[] is indexed by */
	cal_cs *cs;                 /* [d->n] */
	struct cal_syscache *cache; /* the systems' nodes as plan_resolve builds them (sys_node) */
	model_params mp;      /* the model's defaults: priors */
} cal_env;

static void env_init(cal_env *e, const cal_opts *o, const cal_data *d)
{
	memset(e, 0, sizeof *e);
	e->db = o ? o->db : NULL;
	e->d = d;
	e->cs = d && d->n > 0 ? xcalloc((size_t)d->n, sizeof *e->cs) : NULL;
	e->cache = xcalloc(1, sizeof *e->cache);
	model_params_default(&e->mp);
}

/* The prepared scenario of a point's GPU work, or NULL where the database cannot describe it. */
static const model_scenario *point_scen(const cal_env *e, const cal_point *p)
{
	if (!e->cs || p < e->d->pts || p >= e->d->pts + e->d->n)
		return NULL;
	cal_cs *c = &e->cs[p - e->d->pts];
	if (c->state == 0)
		c->state = cal_point_compute_scenario(e->db, &e->mp, p, &c->sc) ? 1 : -1;
	return c->state > 0 ? &c->sc : NULL;
}

/* The model's compute_eff of the point's stack (hwdb stacks.csv; 1: MLPerf-grade, or no stack): the
 * prior of the fitted one. */
static double compute_eff_prior(const model_scenario *ms)
{
	return ms && ms->stack.compute_eff > 0 ? ms->stack.compute_eff : 1.0;
}

/* ---- the all-reduce: the model's own description ----
 *
 * A point's all-reduce is model_allreduce_phases (model.c) on a scenario whose node is the one
 * plan_resolve builds for the point's system (hwdb: NVLink or PCIe inside the node, its per-GPU
 * bandwidth, the NICs, the NVLink domain), with the model's alpha_* / bw_eff_* as priors. What the fit
 * moves is each level's alpha (s per step) and busbw (B/s) per machine and transport; they enter the
 * model as that level's latency and bandwidth with efficiency 1 (the model's busbw is bw_eff x link). */

static const model_node *sys_node(const cal_env *e, const cal_point *p)
{
	struct cal_syscache *c = e->cache;
	const char *machine = p->machine;
	if (!e->db || !machine[0] || !c)
		return NULL;
	for (int i = 0; i < c->n; i++)
		if (c->s[i].gpn == p->gpus_per_node && c->s[i].nodes == p->nodes && strcmp(c->s[i].machine, machine) == 0)
			return c->s[i].ok ? &c->s[i].node : NULL;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->s = xrealloc(c->s, (size_t)c->cap * sizeof *c->s);
	}
	cal_sys *y = &c->s[c->n++];
	memset(y, 0, sizeof *y);
	y->machine = xstrdup(machine);
	y->gpn = p->gpus_per_node;
	y->nodes = p->nodes;
	y->ok = cal_system_node(e->db, &e->mp, machine, y->gpn, y->nodes, &y->node);
	return y->ok ? &y->node : NULL;
}

bool cal_system_node(const hw_db *db, const model_params *p, const char *machine, int gpn, int nodes, model_node *out)
{
	const hw_system *sys = db && machine[0] ? hw_system_find(db, machine) : NULL;
	if (!sys)
		return false;
	plan_spec sp;
	model_scenario sc;
	plan_spec_init(&sp);
	sp.system_id = sys->id;
	sp.batch_per_gpu = (int)DEFAULT_BATCH;
	if (plan_resolve(db, &sp, p, sys, gpn, nodes, &sc) != 0)
		return false;
	*out = sc.node;
	return true;
}

static void syscache_free(struct cal_syscache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		free(c->s[i].machine);
	free(c->s);
	free(c);
}

static void env_free(cal_env *e)
{
	syscache_free(e->cache);
	free(e->cs);
}

/* The transport inside a node when the file did not say: the system's, as plan_resolve sets it. */
static const char *intra_transport(const cal_env *e, const cal_point *p)
{
	if (strcmp(p->intra, "default") != 0)
		return p->intra;
	const model_node *n = sys_node(e, p);
	return n && !n->intra_nvlink ? "pcie" : "nvlink";
}

static const char *inter_transport(const cal_point *p)
{
	return p->inter[0] ? p->inter : "ib";
}

/* Prior alpha (s per step) and busbw (B/s) of a machine's transport t: the model's alpha_* and
 * bw_eff_* on the node plan_resolve builds, where the database describes t (its system's NVLink or PCIe,
 * its NICs for "ib").
 * The one explicit mapping, for what the database cannot describe: the test beds' NCCL over host memory
 * (shm) or sockets on one host (exec --nccl-mode p2p-off / socket / emulated nodes), a transport other
 * than the system's, and machines the database does not know. Constants: refdata/testbed_allreduce.csv
 * (4x H200: shm 26 GB/s, sockets over lo 3.8 GB/s at 256 MiB), 300 GB/s NVLink, PCIe 3 x16 15.75 GB/s and
 * one 100 Gb/s NIC where the system is unknown (the model's assumptions before the database existed). */
static void comm_prior(const cal_env *e, const cal_point *p, const char *t, double *alpha, double *bw)
{
	const model_node *n = sys_node(e, p);
	bool nvl = strcmp(t, "nvlink") == 0, pcie = strcmp(t, "pcie") == 0;
	if (n && (nvl || pcie) && n->intra_nvlink == nvl && n->intra_bw_Bps > 0) {
		*alpha = nvl ? e->mp.alpha_nvlink_s : e->mp.alpha_pcie_s;
		*bw = n->intra_bw_Bps * (nvl ? e->mp.bw_eff_nvlink : e->mp.bw_eff_pcie);
	} else if (n && strcmp(t, "ib") == 0 && n->nic_Bps > 0 && n->nics_per_node > 0) {
		*alpha = e->mp.alpha_net_s;
		*bw = n->nic_Bps * n->nics_per_node * e->mp.bw_eff_net;
	} else if (nvl) {
		*alpha = e->mp.alpha_nvlink_s;
		*bw = 300e9;
	} else if (strcmp(t, "shm") == 0) {
		*alpha = 2e-5;
		*bw = 26e9;
	} else if (pcie) {
		*alpha = e->mp.alpha_pcie_s;
		*bw = e->mp.bw_eff_pcie * 15.75e9;
	} else if (strcmp(t, "socket") == 0) {
		*alpha = 5e-5;
		*bw = 3.8e9;
	} else {
		*alpha = e->mp.alpha_net_s;
		*bw = e->mp.bw_eff_net * 12.5e9;
	}
}

/* Scope strings. */
static char *compute_scope(const cal_point *p)
{
	return xasprintf("%s|%s|%s|%s", p->machine, p->gpu, p->precision, p->variant);
}

static char *link_scope(const cal_point *p, const char *t)
{
	return xasprintf("%s|%s", p->machine, t);
}

/* The standard error a parameter carries while it is a prior (the data did not fit it): the spread of its source,
 * so that the interval of a prediction that rests on it (param_var_ln) says how far such a prior has missed. A
 * fit replaces it by the fitted standard error. No correlation with the fitted parameters. Relative ones (rel) are
 * in ln units, times the value; the others in the parameter's own. Each basis: docs/model.md, "Priors the data did not fit". */
typedef struct prior_spread {
	const char *name;
	bool rel;
	double se;
} prior_spread;

static const prior_spread prior_spreads[] = {
	/* a link level's bus bandwidth as the all-reduce gets it inside a training step, against its prior (the
	 * datasheet link x bw_eff_*, or the sweeps' 3.8 / 26 GB/s): rms ln(fitted / prior) of the in-run busbw of
	 * the committed campaigns on 2x H100, 2x H200 (two) and 4x H200, NVLink and sockets (8 levels): 0.73 */
	{ "busbw_Bps", true, 0.73 },
	/* the overlap weight: the engine's, prior 1 (its bucket pipeline), rms (1 - fitted) of the campaigns that fit
	 * it (0.795, 0.869, 0.921): 0.15; taken for every stack's prior (no other was fitted on these hosts) */
	{ "overlap", false, 0.15 },
	/* what a host core carries of the shared input stage (prior 612 img/s from the 4x H200 campaign): rms ln of
	 * the four campaigns' fits against it (453-608 img/s): 0.22 */
	{ "host_input_img_s_core", true, 0.22 },
	/* the share of the input stage socket transports take (prior 2 threads of the host's cores): rms of the
	 * four campaigns' fits against their priors (0.024-0.170 against 0.031-0.063): 0.10 */
	{ "socket_core_frac", false, 0.10 },
	/* how emulated nodes share a host's socket bandwidth, (2/n)^x (point_ar): runs at 2 nodes cannot tell x;
	 * a uniform x in [0, 1] has the standard error 1/sqrt(12) */
	{ "socket_share_exp", false, 0.28867513459481287 },
};

/* The prior standard error of parameter `name` at `value`, NAN where none is stated: alpha_s and slowdown_* have
 * none, as the busbw spread was measured with them at their priors and holds what they miss. */
static double prior_se(const char *name, double value)
{
	for (size_t k = 0; k < sizeof prior_spreads / sizeof prior_spreads[0]; k++)
		if (strcmp(prior_spreads[k].name, name) == 0)
			return prior_spreads[k].rel ? prior_spreads[k].se * fabs(value) : prior_spreads[k].se;
	return NAN;
}

/* A parameter's value, made a prior (with its prior standard error) on first use. A profile's prior read without
 * a standard error (written before they had one) gets it too. */
static double pval(cal_pset *ps, const char *name, const char *scope, double prior, const char *unit)
{
	int i = cal_pset_get(ps, name, scope, prior, unit); /* may move ps->p: index after the call */
	cal_param *q = &ps->p[i];
	if (q->status == CAL_PRIOR && isnan(q->se))
		q->se = prior_se(name, q->value);
	return q->value;
}

/* How the emulated nodes of one host share its socket bandwidth (point_ar): the exponent x of (2/n)^x, a prior
 * with a standard error (never fitted). */
static double socket_share_exp(cal_pset *ps, const cal_point *p)
{
	char *sc = link_scope(p, "socket");
	double x = pval(ps, "socket_share_exp", sc, 1.0, "exponent");
	free(sc);
	return x;
}

/* The fitted alpha and busbw of the point's machine on transport t. */
static void level_fit(const cal_env *e, cal_pset *ps, const cal_point *p, const char *t, double *a, double *bw)
{
	double a0, b0;
	comm_prior(e, p, t, &a0, &b0);
	char *sc = link_scope(p, t);
	*a = pval(ps, "alpha_s", sc, a0, "s");
	*bw = pval(ps, "busbw_Bps", sc, b0, "B/s");
	free(sc);
}

/* The scenario and parameters model_allreduce_s reads for a point: its system's node (plan_resolve;
 * else one GPU per NIC, no NVLink domain) at the point's GPUs per node and nodes, each level's fitted
 * alpha and busbw put in as that level's latency and bandwidth (efficiency 1). */
typedef struct cal_ar {
	model_scenario sc;
	model_params mp;
} cal_ar;

static void point_ar(const cal_env *e, cal_pset *ps, const cal_point *p, cal_ar *ar)
{
	const model_node *n = sys_node(e, p);
	memset(&ar->sc, 0, sizeof ar->sc);
	if (n)
		ar->sc.node = *n;
	else
		ar->sc.node.max_gpus_per_node = p->gpus_per_node;
	ar->sc.nodes = p->nodes;
	ar->sc.node.gpus_per_node = p->gpus_per_node;
	ar->mp = e->mp;
	double a, bw;
	if (p->gpus_per_node > 1) {
		level_fit(e, ps, p, intra_transport(e, p), &a, &bw);
		ar->sc.node.intra_nvlink = true;
		ar->sc.node.intra_bw_Bps = bw;
		ar->mp.alpha_nvlink_s = a;
		ar->mp.bw_eff_nvlink = 1;
	}
	if (p->nodes > 1) {
		level_fit(e, ps, p, inter_transport(p), &a, &bw);
		/* emulated nodes (sockets between nodes of one host): every node's connection is the same host's
		 * loopback and the CPU threads that copy through it, so the nodes' links share it: the socket
		 * level's busbw is the host's at 2 nodes (one boundary each way), each of n nodes gets (2/n)^x of it,
		 * x = 1 all shared (4 emulated nodes of one H200 host: -21% and -1% against two runs 26,294 and
		 * 20,889 img/s when fitted at 2 nodes; x = 0, links that do not share: +12% and +41%,
		 * bench/NOTES.md). Runs at 2 nodes cannot tell x: its prior 1 carries the standard error of a
		 * uniform x in [0, 1] (1/sqrt(12)), which the interval of a prediction at more nodes propagates */
		if (!strcmp(inter_transport(p), "socket"))
			bw *= pow(2.0 / p->nodes, socket_share_exp(ps, p));
		ar->sc.node.nic_Bps = bw;
		ar->sc.node.nics_per_node = 1;
		ar->mp.alpha_net_s = a;
		ar->mp.bw_eff_net = 1;
	}
}

/* The transport of a point's outermost all-reduce level (the one its contention is measured on). */
static const char *outer_transport(const cal_env *e, const cal_point *p)
{
	return p->nodes > 1 ? inter_transport(p) : intra_transport(e, p);
}

/* Contention factor of a machine's transport: how many times slower the all-reduce ("comm") or the
 * compute load ("compute") ran while both ran (exec --bench-allreduce --load resnet|gemm); prior 1 = none. */
static double contention(cal_pset *ps, const cal_point *p, const char *t, const char *what)
{
	char *sc = link_scope(p, t);
	char *name = xasprintf("slowdown_%s", what);
	double v = pval(ps, name, sc, 1.0, "factor");
	free(name);
	free(sc);
	return v;
}

/* A run whose JPEGs the GPU decoded (exec --data-path jpeg-gpu): fitted after the compute group, on its own
 * parameter, so that a decoder-bound point does not pull the compute efficiency down. */
static bool gpu_jpeg(const cal_point *p)
{
	return p->kind == CAL_THROUGHPUT && strcmp(p->data, "jpeg-gpu") == 0;
}

/* The ranks that share one host's input pipeline (its cores, host memory and PCIe, page cache): the ranks of
 * a node, or all the ranks of a run whose nodes are emulated on one host (inter "socket" on a test bed). */
static int ranks_per_host(const cal_point *p)
{
	return strcmp(p->inter, "socket") == 0 ? p->gpus : p->gpus_per_node;
}

static double pt_ranks_host(const cal_point *p) { return ranks_per_host(p); }

/* The GPU's decode term: per machine, GPU and stack (not per rank count: what the ranks share is the host's). */
static char *decode_scope(const cal_point *p)
{
	return xasprintf("%s|%s|%s", p->machine, p->gpu, p->variant);
}

/* The cores of a point's host (the machine's system, whole; model_input_rank_img_s), 0 where the database does
 * not describe it (then no shared stage is counted, as in model_predict). */
static int host_cores(const cal_env *e, const cal_point *p)
{
	model_node n;
	return cal_system_node(e->db, &e->mp, p->machine, 0, 1, &n) ? n.cores : 0;
}

/* The nodes whose NCCL socket transport runs on the point's host: every emulated node of a run over sockets on
 * one host (inter "socket" on a test bed), else none. */
static int socket_nodes(const cal_point *p)
{
	return p->nodes > 1 && strcmp(p->inter, "socket") == 0 ? p->nodes : 0;
}

/* The prior share of a host's input stage its socket transports take (model_input_cores_left): two threads of
 * the host's cores (NCCL's socket thread, NCCL_SOCKET_NTHREADS 1 by default outside AWS, and its proxy). */
static double socket_frac_prior(int cores)
{
	return cores > 0 ? fmin(0.2, 2.0 / cores) : 0.02;
}

/* What one core of the host carries of its shared input stage: per machine and stack. */
static char *host_scope(const cal_point *p)
{
	return xasprintf("%s|%s", p->machine, p->variant);
}

/* The GPU decode term's prior: the stack's (hwdb stacks.csv gpu_decode_img_s, the same term model.c adds to
 * the step), else CAL_GPU_DECODE_PRIOR. */
static double gpu_decode_prior(const cal_env *e)
{
	const hw_stack *st = e->db ? hw_stack_find(e->db, "scaleplan-train") : NULL;
	return st && isfinite(st->gpu_decode_img_s) ? st->gpu_decode_img_s : CAL_GPU_DECODE_PRIOR;
}

/* The fitted decode rate per core of a machine (any pipeline fitted on it), or NAN. */
static double machine_decode_rate(const cal_pset *ps, const char *machine)
{
	size_t n = strlen(machine);
	for (int i = 0; i < ps->n; i++) {
		const cal_param *q = &ps->p[i];
		if (strcmp(q->name, "decode_img_s_core") == 0 && strncmp(q->scope, machine, n) == 0 && q->scope[n] == '|' &&
		    (q->status == CAL_FITTED || q->status == CAL_EXACT))
			return q->value;
	}
	return NAN;
}

/* Prior of the overlap weight (model.h: exposed = overlap x pipeline exposure + (1 - overlap) x all
 * of the all-reduce): scaleplan-train launches every bucket from backward hooks on its own stream
 * (exec/ex_dist.c), so its pipeline is the engine's structure: 1. Other software: the model's, its
 * stack's comm_hidden_frac where stacks.csv gives one (model_overlap), else the default. */
static double overlap_prior(const cal_env *e, const cal_point *p, const model_scenario *ms)
{
	if (strcmp(p->source, "exec") == 0)
		return 1.0;
	return ms ? model_overlap(ms, &e->mp) : e->mp.overlap;
}

/* The step of a training point as model_step_run times it (model.h) on the point's scenario
 * (cal_point_compute_scenario), with the fitted compute_eff (it divides the compute time), b_half and overlap
 * of the point's scope, its all-reduce on the fitted link levels (point_ar) and, for the engine's runs, the
 * fitted contention. NULL where the database cannot describe the point's GPU. */
static const model_scenario *point_step(const cal_env *e, cal_pset *ps, const cal_point *p, model_step *st)
{
	const model_scenario *ms = point_scen(e, p);
	if (!ms)
		return NULL;
	const model_prep *pr = &ms->prep;
	char *sc = compute_scope(p);
	double eff = pval(ps, "compute_eff", sc, compute_eff_prior(ms), "factor");
	double bh = pval(ps, "b_half", sc, e->mp.b_half, "images");
	double ov = pval(ps, "overlap", sc, overlap_prior(e, p, ms), "fraction");
	free(sc);
	/* the model's layer table is at 224 pixels: a run at another image side scales the per-image work
	 * (conv FLOPs and activation traffic) by the image area; weights and the optimizer step do not */
	double area = isfinite(p->image_hw) && p->image_hw > 0 ? (p->image_hw / 224.0) * (p->image_hw / 224.0) : 1.0;
	double comm[MODEL_MAX_BUCKETS];
	model_step_in in = { .k = ms->compute_cal / eff, .batch_img = (ms->batch_per_gpu + bh) * area, .comm_s = comm,
			     .overlap = p->no_overlap ? 0 : ov, .slow_compute = 1, .slow_comm = 1, .gpus = p->gpus,
			     .straggler_cv = e->mp.straggler_cv };
	if (p->gpus > 1) {
		cal_ar ar;
		point_ar(e, ps, p, &ar);
		for (int i = 0; i < pr->nbuckets; i++) /* each bucket pays its own latency */
			comm[i] = model_allreduce_s(&ar.sc, &ar.mp, pr->bucket_B[i]);
		/* contention, measured with the engine's streams (exec --bench-allreduce --load): engine runs only */
		if (strcmp(p->source, "exec") == 0) {
			in.slow_compute = contention(ps, p, outer_transport(e, p), "compute");
			in.slow_comm = contention(ps, p, outer_transport(e, p), "comm");
		}
	}
	model_step_run(ms, &in, st);
	return ms;
}

/* A jpeg-gpu run's img/s from its step alone (step_img_s, all ranks): each rank's step with its GPU's decode on
 * its path, that part waiting on the host's shared stage (model_gpu_decode_rank_img_s). */
static double jpeg_gpu_img_s(const cal_env *e, cal_pset *ps, const cal_point *p, double step_img_s)
{
	char *dsc = decode_scope(p), *hsc = host_scope(p);
	double dec = pval(ps, "gpu_decode_img_s", dsc, gpu_decode_prior(e), "img/s");
	double core = pval(ps, "host_input_img_s_core", hsc, e->mp.host_input_img_s_core, "img/s");
	int cores = host_cores(e, p), sn = socket_nodes(p);
	double frac = sn ? pval(ps, "socket_core_frac", p->machine, socket_frac_prior(cores), "fraction") : 0;
	free(dsc);
	free(hsc);
	return p->gpus * model_input_rank_img_s(step_img_s / p->gpus, ranks_per_host(p), dec,
						model_input_cores_left(cores, sn, frac), core);
}

/* Throughput of a training point: the GPUs' step (point_step), no faster than the JPEG decoders where a
 * run's data path names them. With its all-reduce and exposed communication time per iteration (exposed as
 * the engine measures it: all-reduce time after backward ended). NAN where the database cannot describe the
 * point's GPU. */
static double point_throughput(const cal_env *e, cal_pset *ps, const cal_point *p, double *tar_out, double *exposed_out)
{
	model_step st;
	const model_scenario *ms = point_step(e, ps, p, &st);
	if (tar_out)
		*tar_out = ms ? st.comm_s : NAN;
	if (exposed_out)
		*exposed_out = ms ? st.comm_waited_s : NAN;
	if (!ms)
		return NAN;
	double img_s = p->gpus * ms->batch_per_gpu / st.gpu_s;
	/* JPEG decoded on the GPU (exec --data-path jpeg-gpu): no faster than each GPU's decoder, a parameter of
	 * the machine, GPU and stack, its prior the stack's measured rate (hwdb stacks.csv gpu_decode_img_s) */
	if (gpu_jpeg(p)) {
		img_s = jpeg_gpu_img_s(e, ps, p, img_s);
	} else if (isfinite(p->data_threads) && p->data_threads > 0 && p->data[0] && strcmp(p->data, "synthetic") != 0) {
		/* JPEG decoded by the CPU: no faster than the decode cores of the nodes (where a pipeline was fitted) */
		double r = machine_decode_rate(ps, p->machine);
		if (isfinite(r))
			img_s = fmin(img_s, r * p->data_threads * p->nodes);
	}
	return img_s;
}

static double predict_env(const cal_env *e, cal_pset *ps, const cal_data *d, int i)
{
	const cal_point *p = &d->pts[i];
	switch (p->kind) {
	case CAL_THROUGHPUT:
		return point_throughput(e, ps, p, NULL, NULL);
	case CAL_ALLREDUCE: {
		cal_ar ar;
		point_ar(e, ps, p, &ar);
		if (!p->step_grads)
			return model_allreduce_s(&ar.sc, &ar.mp, p->bytes);
		/* a run's step: each of the model's buckets pays its own latency, as in model_step */
		const model_scenario *ms = point_scen(e, p);
		if (!ms)
			return NAN;
		double t = 0;
		for (int b = 0; b < ms->prep.nbuckets; b++)
			t += model_allreduce_s(&ar.sc, &ar.mp, ms->prep.bucket_B[b]);
		return t;
	}
	case CAL_PIPELINE: {
		char *sc = xasprintf("%s|%s|%s", p->machine, p->gpu, p->variant);
		double r = pval(ps, "decode_img_s_core", sc, e->mp.decode_img_s_core, "img/s");
		free(sc);
		/* decode scales with workers up to the cores (data_threads holds the core count when known) */
		double w = isfinite(p->data_threads) && p->data_threads > 0 ? fmin(p->workers, p->data_threads) : p->workers;
		return r * w;
	}
	case CAL_EPOCHS: {
		double e0 = pval(ps, "conv_e0", p->variant, e->mp.conv_e0, "epochs");
		double b0 = pval(ps, "conv_b0", p->variant, e->mp.conv_b0, "images");
		return e0 * (1 + p->global_batch / b0);
	}
	case CAL_CONTENTION:
		return contention(ps, p, outer_transport(e, p), p->variant);
	case CAL_TTA: {
		double ob = pval(ps, "epoch_boundary_s", p->machine, e->mp.epoch_boundary_s, "s");
		return p->workers * (p->train_images / p->block_img_s + ob);
	}
	default:
		return NAN;
	}
}

double cal_predict(cal_pset *ps, const cal_data *d, int i, const cal_opts *opts)
{
	cal_env e;
	env_init(&e, opts, d);
	double v = predict_env(&e, ps, d, i);
	env_free(&e);
	return v;
}

/* ---- fit groups ---- */


/* The group a point is fitted in, and the free parameters of that group. */
static char *group_of(const cal_env *e, const cal_point *p)
{
	if (gpu_jpeg(p)) {
		char *dsc = decode_scope(p);
		char *g = xasprintf("gpu-decode|%s", dsc);
		free(dsc);
		return g;
	}
	switch (p->kind) {
	case CAL_THROUGHPUT: {
		char *sc = compute_scope(p);
		char *g = xasprintf("throughput|%s", sc);
		free(sc);
		return g;
	}
	case CAL_ALLREDUCE:
		return xasprintf("allreduce%s|%s|%s", p->step_grads ? "-in-run" : "", p->machine,
				 p->nodes > 1 ? p->inter : intra_transport(e, p));
	case CAL_PIPELINE:
		return xasprintf("pipeline|%s|%s|%s", p->machine, p->gpu, p->variant);
	case CAL_EPOCHS:
		return xasprintf("epochs|%s", p->variant);
	case CAL_TTA:
		return xasprintf("tta|%s", p->machine);
	case CAL_CONTENTION:
		return xasprintf("contention|%s|%s|%s", p->machine, outer_transport(e, p), p->variant);
	default:
		return xstrdup("?");
	}
}

/* Fit stage of a group: all-reduce levels first (single-level sweeps before multi-level), then input
 * pipelines, then throughput (which uses both), then convergence and time to train. */
static int group_stage(const cal_point *p)
{
	switch (p->kind) {
	case CAL_ALLREDUCE: return p->nodes > 1 && p->gpus_per_node > 1 ? 1 : 0;
	case CAL_CONTENTION: return 0;
	case CAL_PIPELINE: return 2;
	case CAL_THROUGHPUT: return gpu_jpeg(p) ? 4 : 3;
	default: return 4;
	}
}

typedef struct fitvar {
	int idx;          /* into the pset */
	cal_xform xf;
} fitvar;

typedef struct fitctx {
	const cal_env *e;
	cal_pset *ps;
	const cal_data *d;
	const int *pts;
	int npts;
	fitvar v[CAL_LSQ_MAXP];
	int nv;
	const double *w;  /* [npts] each residual's weight (repeats_weights), NULL: 1 */
} fitctx;

/* The measured synthetic twin of a jpeg-gpu run (the same machine, GPU, stack, precision, placement, transport
 * and batch): the mean of its runs (repeats), or NAN where none was measured. */
static double synthetic_twin(const cal_data *d, const cal_point *p)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < d->n; i++) {
		const cal_point *q = &d->pts[i];
		if (q->kind != CAL_THROUGHPUT || strcmp(q->data, "synthetic") || q->gpus != p->gpus || q->nodes != p->nodes ||
		    q->gpus_per_node != p->gpus_per_node || q->batch_per_gpu != p->batch_per_gpu ||
		    strcmp(q->machine, p->machine) || strcmp(q->gpu, p->gpu) || strcmp(q->variant, p->variant) ||
		    strcmp(q->precision, p->precision) || strcmp(q->intra, p->intra) || strcmp(q->inter, p->inter))
			continue;
		sum += q->measured;
		n++;
	}
	return n ? sum / n : NAN;
}

/* A point's prediction inside its group's fit. A jpeg-gpu run whose synthetic twin was measured is fitted
 * against that twin's step, so that its decode terms describe what decoding costs against the step and not
 * what the step model missed (predictions, leave-one-out and validate use the model's step). */
static double fit_predict(const fitctx *c, int i)
{
	const cal_point *p = &c->d->pts[i];
	double twin = gpu_jpeg(p) ? synthetic_twin(c->d, p) : NAN;
	return isfinite(twin) ? jpeg_gpu_img_s(c->e, c->ps, p, twin) : predict_env(c->e, c->ps, c->d, i);
}

static int fit_resid(const double *u, double *r, void *vctx)
{
	fitctx *c = vctx;
	for (int j = 0; j < c->nv; j++)
		c->ps->p[c->v[j].idx].value = cal_xform_to_x(c->v[j].xf, u[j]);
	for (int k = 0; k < c->npts; k++) {
		double pred = fit_predict(c, c->pts[k]);
		double meas = c->d->pts[c->pts[k]].measured;
		if (!isfinite(pred) || !(pred > 0))
			return 1;
		r[k] = (pred / meas - 1.0) * (c->w ? c->w[k] : 1.0);
	}
	return 0;
}

/* Whether points a and b are runs of one configuration (machine, GPU, stack, precision, placement, transport,
 * batch, data path): repeats of one measurement. */
static bool same_run(const cal_point *a, const cal_point *b)
{
	return a->kind == CAL_THROUGHPUT && b->kind == CAL_THROUGHPUT && a->gpus == b->gpus && a->nodes == b->nodes &&
	       a->gpus_per_node == b->gpus_per_node && a->batch_per_gpu == b->batch_per_gpu && !strcmp(a->data, b->data) &&
	       !strcmp(a->machine, b->machine) && !strcmp(a->gpu, b->gpu) && !strcmp(a->variant, b->variant) &&
	       !strcmp(a->precision, b->precision) && !strcmp(a->intra, b->intra) && !strcmp(a->inter, b->inter);
}

/* Residual weights of a group's points: 1/sqrt(m) for each of m runs of one configuration, so that a point run
 * m times weighs in the sum of squares as one run (at the mean of its runs) and not m (--repeat, emulated
 * nodes), times the run's steady weight (cal_steady_weight: a run still rising counts less). NULL where every
 * weight is 1. */
double cal_steady_weight(const cal_point *p)
{
	return p->rise > CAL_STEADY_RISE ? CAL_STEADY_RISE / p->rise : 1.0;
}

static double *repeats_weights(const cal_data *d, const int *pts, int npts)
{
	double *w = NULL;
	for (int k = 0; k < npts; k++) {
		int m = 0;
		for (int j = 0; j < npts; j++)
			m += same_run(&d->pts[pts[k]], &d->pts[pts[j]]);
		double sw = cal_steady_weight(&d->pts[pts[k]]);
		if ((m > 1 || sw < 1) && !w) {
			w = xmalloc((size_t)npts * sizeof(*w));
			for (int j = 0; j < npts; j++)
				w[j] = 1.0;
		}
		if (m > 1 || sw < 1)
			w[k] = sw / sqrt((double)m);
	}
	return w;
}

static void addvar(fitctx *c, cal_pset *ps, const char *name, const char *scope, double prior, const char *unit,
		   cal_xform xf)
{
	if (c->nv >= CAL_LSQ_MAXP)
		return;
	int idx = cal_pset_get(ps, name, scope, prior, unit);
	for (int j = 0; j < c->nv; j++)
		if (c->v[j].idx == idx)
			return;
	c->v[c->nv].idx = idx;
	c->v[c->nv].xf = xf;
	c->nv++;
}

/* Chooses the free parameters of a group from the points in it. */
/* Whether the group's points take two or more values of val (NANs ignored until the first number). */
static bool varies(const fitctx *c, double (*val)(const cal_point *))
{
	double v1 = NAN;
	for (int k = 0; k < c->npts; k++) {
		double v = val(&c->d->pts[c->pts[k]]);
		if (!isfinite(v1))
			v1 = v;
		else if (v != v1)
			return true;
	}
	return false;
}

static double pt_batch(const cal_point *p) { return cal_point_batch(p); }
static double pt_bytes(const cal_point *p) { return p->bytes; }
static double pt_global_batch(const cal_point *p) { return p->global_batch; }

/* A group of jpeg-gpu runs (one machine, GPU and stack): the GPU's decode term, started where the point of
 * fewest ranks a host puts it (what it lost against its step alone), and what a core of the host carries of its
 * shared stage where the ranks a host vary and the database knows the host's cores (started at ten times the
 * largest rate a host measured over its cores: a stage that is not yet full). Elsewhere the shared stage keeps
 * the model's host_input_img_s_core. */
static void vars_decode(fitctx *c, const cal_point *p0)
{
	const cal_env *e = c->e;
	double start = INFINITY, host_start = 0;
	int kmin = 1 << 30;
	for (int k = 0; k < c->npts; k++) {
		const cal_point *p = &c->d->pts[c->pts[k]];
		model_step st;
		int kh = ranks_per_host(p);
		host_start = fmax(host_start, 10.0 * p->measured / p->gpus * kh);
		if (kh > kmin || !point_step(e, c->ps, p, &st))
			continue;
		double lost = p->gpus / p->measured - st.gpu_s / p->batch_per_gpu; /* s an image a rank */
		kmin = kh;
		start = lost > 0 ? 1.0 / lost : 1e6;
	}
	char *dsc = decode_scope(p0);
	int idx = cal_pset_get(c->ps, "gpu_decode_img_s", dsc, gpu_decode_prior(e), "img/s");
	if (c->ps->p[idx].status != CAL_FITTED && isfinite(start))
		c->ps->p[idx].value = start;
	addvar(c, c->ps, "gpu_decode_img_s", dsc, gpu_decode_prior(e), "img/s", CAL_X_LOG);
	free(dsc);
	int cores = host_cores(e, p0);
	if (!varies(c, pt_ranks_host) || cores <= 0)
		return;
	char *hsc = host_scope(p0);
	idx = cal_pset_get(c->ps, "host_input_img_s_core", hsc, e->mp.host_input_img_s_core, "img/s");
	if (c->ps->p[idx].status != CAL_FITTED && host_start > 0)
		c->ps->p[idx].value = host_start / cores;
	addvar(c, c->ps, "host_input_img_s_core", hsc, e->mp.host_input_img_s_core, "img/s", CAL_X_LOG);
	free(hsc);
	/* what the socket transports take from the stage: where runs of several ranks a host ran with and without
	 * sockets (the same ranks a host, one emulating nodes) */
	bool sock = false, nosock = false;
	for (int k = 0; k < c->npts; k++) {
		const cal_point *p = &c->d->pts[c->pts[k]];
		sock |= socket_nodes(p) > 0;
		nosock |= socket_nodes(p) == 0 && ranks_per_host(p) > 1;
	}
	if (sock && nosock)
		addvar(c, c->ps, "socket_core_frac", p0->machine, socket_frac_prior(cores), "fraction", CAL_X_LOGIT);
}

/* A throughput group: compute_eff (log, not logit: a stack may be faster than the model's MLPerf-grade
 * reference, > 1), b_half where the batch varies, the overlap where an all-reduce may hide. */
static void vars_throughput(fitctx *c, const cal_point *p0)
{
	const cal_env *e = c->e;
	char *sc = compute_scope(p0);
	bool comm = false;
	for (int k = 0; k < c->npts; k++) {
		const cal_point *p = &c->d->pts[c->pts[k]];
		comm |= p->gpus > 1 && !p->no_overlap;
	}
	addvar(c, c->ps, "compute_eff", sc, compute_eff_prior(point_scen(e, p0)), "factor", CAL_X_LOG);
	if (varies(c, pt_batch))
		addvar(c, c->ps, "b_half", sc, e->mp.b_half, "images", CAL_X_LOG);
	if (comm)
		addvar(c, c->ps, "overlap", sc, overlap_prior(e, p0, point_scen(e, p0)), "fraction", CAL_X_LOGIT);
	free(sc);
}

/* An all-reduce group: the level's bus bandwidth, and its latency where the message size varies. */
static void vars_allreduce(fitctx *c, const cal_point *p0)
{
	const cal_env *e = c->e;
	const char *t = p0->nodes > 1 ? p0->inter : intra_transport(e, p0);
	double a0, b0;
	comm_prior(e, p0, t, &a0, &b0);
	char *sc = link_scope(p0, t);
	addvar(c, c->ps, "busbw_Bps", sc, b0, "B/s", CAL_X_LOG);
	if (varies(c, pt_bytes))
		addvar(c, c->ps, "alpha_s", sc, a0, "s", CAL_X_LOG);
	free(sc);
}

static void choose_vars(fitctx *c)
{
	const cal_env *e = c->e;
	cal_pset *ps = c->ps;
	const cal_point *p0 = &c->d->pts[c->pts[0]];
	c->nv = 0;
	if (gpu_jpeg(p0)) {
		vars_decode(c, p0);
		return;
	}
	switch (p0->kind) {
	case CAL_THROUGHPUT:
		vars_throughput(c, p0);
		break;
	case CAL_ALLREDUCE:
		vars_allreduce(c, p0);
		break;
	case CAL_PIPELINE: {
		char *sc = xasprintf("%s|%s|%s", p0->machine, p0->gpu, p0->variant);
		addvar(c, ps, "decode_img_s_core", sc, e->mp.decode_img_s_core, "img/s", CAL_X_LOG);
		free(sc);
		break;
	}
	case CAL_EPOCHS:
		addvar(c, ps, "conv_e0", p0->variant, e->mp.conv_e0, "epochs", CAL_X_LOG);
		if (varies(c, pt_global_batch))
			addvar(c, ps, "conv_b0", p0->variant, e->mp.conv_b0, "images", CAL_X_LOG);
		break;
	case CAL_TTA:
		/* fitted in log space, which cannot start at the model's default 0 (the v4.0 fit puts the
		 * boundary in epoch_boundary_iters): start at 10 ms */
		addvar(c, ps, "epoch_boundary_s", p0->machine, fmax(e->mp.epoch_boundary_s, 0.01), "s", CAL_X_LOG);
		break;
	case CAL_CONTENTION: {
		char *sc = link_scope(p0, outer_transport(e, p0));
		char *name = xasprintf("slowdown_%s", p0->variant);
		addvar(c, ps, name, sc, 1.0, "factor", CAL_X_LOG);
		free(name);
		free(sc);
		break;
	}
	default:
		break;
	}
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The points' rows, "file:line;file:line" (file alone where the line is unknown), as a heap string. */
static char *point_rows(const cal_data *d, const int *pts, int npts)
{
	strbuf b;
	strbuf_init(&b);
	for (int k = 0; k < npts; k++) {
		const cal_point *pt = &d->pts[pts[k]];
		strbuf_addf(&b, "%s%s", k ? ";" : "", base(pt->file));
		if (pt->line > 0)
			strbuf_addf(&b, ":%d", pt->line);
	}
	return b.s;
}

/* Fits one group's free parameters to the points pts[0..npts-1]. Updates ps (values, errors, status,
 * rows) on success; on failure restores the values it started from and marks them CAL_NOCONV.
 * Returns true when the fit converged. `quiet` suppresses messages (leave-one-out refits). */
static bool fit_group(const cal_env *e, cal_pset *ps, const cal_data *d, const int *pts, int npts, const char *name,
		      const cal_opts *o, bool quiet, int *nund)
{
	fitctx c = { .e = e, .ps = ps, .d = d, .pts = pts, .npts = npts };
	choose_vars(&c);
	if (c.nv == 0)
		return false;
	/* make sure every parameter the group's predictions read exists before the solver copies values */
	for (int k = 0; k < npts; k++)
		predict_env(e, ps, d, pts[k]);
	double u[CAL_LSQ_MAXP], start[CAL_LSQ_MAXP];
	for (int j = 0; j < c.nv; j++) {
		start[j] = ps->p[c.v[j].idx].value;
		u[j] = cal_xform_to_u(c.v[j].xf, start[j]);
	}
	double *w = repeats_weights(d, pts, npts);
	c.w = w;
	cal_lsq lsq = { .np = c.nv, .n = npts, .u = u, .f = fit_resid, .ctx = &c };
	cal_lsq_result res;
	cal_lsq_solve(&lsq, &res);
	free(w);
	FILE *log = quiet ? NULL : o->log;
	if (!res.converged) {
		for (int j = 0; j < c.nv; j++) {
			ps->p[c.v[j].idx].value = start[j];
			ps->p[c.v[j].idx].status = CAL_NOCONV;
			ps->p[c.v[j].idx].se = NAN;
		}
		if (log)
			fprintf(log, "calibrate: %s: fit FAILED: %s; prior values kept\n", name, res.msg);
		return false;
	}
	char *rows = quiet ? NULL : point_rows(d, pts, npts);
	for (int j = 0; j < c.nv; j++) {
		cal_param *p = &ps->p[c.v[j].idx];
		if (!res.determined[j]) {
			p->value = p->prior;
			p->status = CAL_UNDETERMINED;
			p->se = NAN;
			if (nund)
				(*nund)++;
			if (log)
				fprintf(log, "calibrate: %s: %s [%s] cannot be determined by these %d point(s); prior %g kept\n",
					name, p->name, p->scope, npts, p->prior);
		} else {
			p->value = cal_xform_to_x(c.v[j].xf, u[j]);
			if (res.dof > 0 && isfinite(res.se_u[j])) {
				p->status = CAL_FITTED;
				p->se = fabs(cal_xform_dxdu(c.v[j].xf, u[j])) * res.se_u[j];
			} else {
				p->status = CAL_EXACT;
				p->se = NAN;
			}
		}
		if (rows) {
			free(p->rows);
			p->rows = xstrdup(rows);
		}
	}
	for (int i = 0; i < c.nv; i++) /* what the interval of a prediction needs besides the standard errors */
		for (int j = i + 1; j < c.nv; j++)
			cal_pset_corr_set(ps, c.v[i].idx, c.v[j].idx,
					  ps->p[c.v[i].idx].status == CAL_FITTED && ps->p[c.v[j].idx].status == CAL_FITTED
						  ? res.corr_u[i][j] : 0.0);
	if (log && res.dof <= 0)
		fprintf(log, "calibrate: %s: %d point(s) for %d parameter(s): exactly determined, no standard error\n",
			name, npts, c.nv);
	free(rows);
	return true;
}

/* Points grouped: order[] holds point indices sorted by (stage, group), gstart[] the group starts. */
typedef struct grouping {
	int *order;
	char **gname;   /* per point */
	int *gstart;    /* [ngroups + 1] into order */
	int ngroups;
} grouping;

static const grouping *sort_ctx_g;
static const cal_data *sort_ctx_d;

static int cmp_pts(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	int si = group_stage(&sort_ctx_d->pts[i]), sj = group_stage(&sort_ctx_d->pts[j]);
	if (si != sj)
		return si - sj;
	int c = strcmp(sort_ctx_g->gname[i], sort_ctx_g->gname[j]);
	return c ? c : i - j;
}

static void grouping_init(grouping *g, const cal_env *e, const cal_data *d)
{
	g->order = xmalloc((size_t)(d->n + 1) * sizeof *g->order);
	g->gname = xmalloc((size_t)(d->n + 1) * sizeof *g->gname);
	g->gstart = xmalloc((size_t)(d->n + 2) * sizeof *g->gstart);
	for (int i = 0; i < d->n; i++) {
		g->order[i] = i;
		g->gname[i] = group_of(e, &d->pts[i]);
	}
	/* qsort has no context argument; the grouping is built on one thread at a time per call */
	sort_ctx_g = g;
	sort_ctx_d = d;
	qsort(g->order, (size_t)d->n, sizeof *g->order, cmp_pts);
	g->ngroups = 0;
	for (int k = 0; k < d->n; k++)
		if (k == 0 || strcmp(g->gname[g->order[k]], g->gname[g->order[k - 1]]) != 0)
			g->gstart[g->ngroups++] = k;
	g->gstart[g->ngroups] = d->n;
}

static void grouping_free(grouping *g, int n)
{
	for (int i = 0; i < n; i++)
		free(g->gname[i]);
	free(g->gname);
	free(g->order);
	free(g->gstart);
}

/* Fits every group in stage order. Returns the number of points in converged fits. */
static int fit_groups(const cal_env *e, cal_pset *ps, const cal_data *d, const grouping *g, const cal_opts *o,
		      bool quiet, cal_summary *sum)
{
	int nfit = 0;
	for (int k = 0; k < g->ngroups; k++) {
		const int *pts = g->order + g->gstart[k];
		int n = g->gstart[k + 1] - g->gstart[k];
		int nund = 0;
		bool ok = fit_group(e, ps, d, pts, n, g->gname[pts[0]], o, quiet, &nund);
		if (sum) {
			sum->nfits++;
			sum->nfailed += !ok;
			sum->nundetermined += nund;
		}
		if (ok)
			nfit += n;
	}
	return nfit;
}

/* Leave-one-out prediction of point pts[skip] of a group: refit the group without it (starting from ps,
 * which holds the full fit), predict it. NAN when the remaining points cannot be fitted. */
/* A held-out engine run takes its in-step all-reduce with it: the link it measured is refitted on the other
 * runs' in-step all-reduces of that link (from the priors; none left: the priors). */
static void refit_without_step_ar(const cal_env *e, cal_pset *ps, const cal_data *d, int held, const cal_opts *o)
{
	int ar = d->pts[held].step_ar;
	if (ar < 0 || ar >= d->n || !d->pts[ar].step_grads)
		return;
	char *gname = group_of(e, &d->pts[ar]);
	int *rest = xmalloc((size_t)d->n * sizeof *rest), m = 0;
	for (int i = 0; i < d->n; i++) {
		if (i == ar || d->pts[i].kind != CAL_ALLREDUCE)
			continue;
		char *gi = group_of(e, &d->pts[i]);
		if (strcmp(gi, gname) == 0)
			rest[m++] = i;
		free(gi);
	}
	fitctx c = { .e = e, .ps = ps, .d = d, .pts = &ar, .npts = 1 };
	choose_vars(&c);
	for (int j = 0; j < c.nv; j++)
		ps->p[c.v[j].idx].value = ps->p[c.v[j].idx].prior;
	if (m > 0)
		fit_group(e, ps, d, rest, m, "", o, true, NULL);
	free(rest);
	free(gname);
}

static double loo_predict(const cal_env *e, const cal_pset *ps, const cal_data *d, const int *pts, int n, int skip,
			  const cal_opts *o)
{
	cal_pset tmp;
	pset_copy(&tmp, ps);
	int *rest = xmalloc((size_t)n * sizeof *rest);
	int m = 0;
	for (int k = 0; k < n; k++)
		if (k != skip)
			rest[m++] = pts[k];
	double pred = NAN;
	refit_without_step_ar(e, &tmp, d, pts[skip], o);
	/* restart the group's parameters from their priors so that the held-out point leaves no trace */
	fitctx c = { .e = e, .ps = &tmp, .d = d, .pts = pts, .npts = n };
	choose_vars(&c);
	for (int j = 0; j < c.nv; j++)
		tmp.p[c.v[j].idx].value = tmp.p[c.v[j].idx].prior;
	if (m == 0 || fit_group(e, &tmp, d, rest, m, "", o, true, NULL))
		pred = predict_env(e, &tmp, d, pts[skip]);
	free(rest);
	cal_pset_free(&tmp);
	return pred;
}

bool cal_repeat_spread(const cal_data *d, int i, double *lo, double *hi)
{
	const cal_point *p = &d->pts[i];
	int n = 0;
	*lo = *hi = p->measured;
	if (p->kind != CAL_THROUGHPUT)
		return false;
	for (int j = 0; j < d->n; j++) {
		const cal_point *q = &d->pts[j];
		if (j == i || !same_run(p, q))
			continue;
		*lo = fmin(*lo, q->measured);
		*hi = fmax(*hi, q->measured);
		n++;
	}
	return n > 0;
}

/* The ln noise of one run's throughput as a fit sees it (the interval of a next-scale prediction adds it to
 * the parameters' part): the pooled standard deviation of ln(throughput) over the repeats of one configuration,
 * or the fit's own rms ln residual over its throughput points where that is larger (a fit that misses by more
 * than its repeats differ; rms with ps's predictions). NAN when neither is known. */
static double run_noise_ln(const cal_env *e, cal_pset *ps, const cal_data *d)
{
	double ss = 0, dof = 0, rs = 0;
	int nr = 0;
	for (int i = 0; i < d->n; i++) {
		const cal_point *p = &d->pts[i];
		if (p->kind != CAL_THROUGHPUT || p->step_grads || !(p->measured > 0))
			continue;
		double sum = 0;
		int m = 0;
		for (int j = 0; j < d->n; j++)
			if (same_run(p, &d->pts[j]) && d->pts[j].measured > 0) {
				sum += log(d->pts[j].measured);
				m++;
			}
		if (m > 1) { /* each of the m runs adds its square and (m - 1) / m degrees of freedom */
			double dv = log(p->measured) - sum / m;
			ss += dv * dv;
			dof += (double)(m - 1) / m;
		}
		double pr = predict_env(e, ps, d, i);
		if (isfinite(pr) && pr > 0) {
			double r = log(pr / p->measured);
			rs += r * r;
			nr++;
		}
	}
	double rep = dof > 0.5 ? ss / dof : NAN, fit = nr ? rs / nr : NAN;
	double v = isfinite(rep) && isfinite(fit) ? fmax(rep, fit) : isfinite(rep) ? rep : fit;
	return sqrt(v);
}

/* How far the all-reduce's time misses: the rms ln residual of the all-reduce points (sweeps and a run's own
 * in-step all-reduce) with ps's predictions; NAN where there is none. */
static double allreduce_noise_ln(const cal_env *e, cal_pset *ps, const cal_data *d)
{
	double ss = 0;
	int n = 0;
	for (int i = 0; i < d->n; i++) {
		if (d->pts[i].kind != CAL_ALLREDUCE || !(d->pts[i].measured > 0))
			continue;
		double pr = predict_env(e, ps, d, i);
		if (isfinite(pr) && pr > 0) {
			double r = log(pr / d->pts[i].measured);
			ss += r * r;
			n++;
		}
	}
	return n ? sqrt(ss / n) : NAN;
}

/* The part of throughput point i's ln variance that grows with scale: the all-reduce's miss sd_ar (ln) on the
 * share of the step it is exposed for (predicted with ps; the share grows with ranks and with slower links). */
static double comm_var_ln(const cal_env *e, cal_pset *ps, const cal_point *p, double pr, double sd_ar)
{
	double ex;
	if (!isfinite(sd_ar) || !(pr > 0) || !isfinite(point_throughput(e, ps, p, NULL, &ex)) || !isfinite(ex))
		return 0;
	double step_s = p->gpus * p->batch_per_gpu / pr, share = fmin(1.0, ex / step_s);
	return share > 0 ? share * share * sd_ar * sd_ar : 0;
}

/* The ln variance of point i's prediction pr from the standard errors of the parameters (delta method, central
 * differences): each fitted parameter (and a prior with a standard error) moved on its own, with the
 * correlations of the parameters fitted together (ps->corr). A parameter that does not act on the point adds
 * nothing. */
static double param_var_ln(const cal_env *e, cal_pset *ps, const cal_data *d, int i)
{
	double var = 0;
	int n = ps->n; /* a prediction may add priors to ps: only the parameters there now */
	double *g = xcalloc((size_t)(n > 0 ? n : 1), sizeof *g);
	for (int k = 0; k < n; k++) {
		cal_param *q = &ps->p[k];
		/* fitted, or a prior with its prior standard error (prior_spreads) */
		if (!(q->se > 0) || !isfinite(q->value) || q->value == 0 || q->status == CAL_UNDETERMINED ||
		    q->status == CAL_NOCONV)
			continue;
		double v0 = q->value, se = q->se, h = fmin(0.1 * se, 0.01 * fabs(v0));
		q->value = v0 + h;
		double up = predict_env(e, ps, d, i);
		ps->p[k].value = v0 - h;
		double dn = predict_env(e, ps, d, i);
		ps->p[k].value = v0;
		if (isfinite(up) && isfinite(dn) && up > 0 && dn > 0) {
			g[k] = (log(up) - log(dn)) / (2 * h) * se;
			var += g[k] * g[k];
		}
	}
	/* parameters fitted together move together: their correlations (the fit's covariance) */
	for (int k = 0; k < ps->ncorr; k++) {
		const cal_pcorr *c = &ps->corr[k];
		if (c->a < n && c->b < n)
			var += 2 * c->rho * g[c->a] * g[c->b];
	}
	free(g);
	return fmax(var, 0.0);
}

/* |error| of a prediction of point i beyond its repeats' spread: 0 inside [lo, hi], else the distance to the
 * nearer end over the point's measurement (the plain error where the point was run once). */
static double beyond_spread(const cal_data *d, int i, double pred)
{
	double lo, hi, meas = d->pts[i].measured;
	if (!cal_repeat_spread(d, i, &lo, &hi))
		return fabs(pred / meas - 1);
	return pred < lo ? (lo - pred) / meas : pred > hi ? (pred - hi) / meas : 0.0;
}

/* The runs whose last epoch rose above their steady epochs (weighted down by cal_steady_weight), one line each. */
static void log_unsteady(const cal_data *d, FILE *log)
{
	for (int i = 0; i < d->n && log; i++)
		if (cal_steady_weight(&d->pts[i]) < 1)
			fprintf(log, "calibrate: %s:%d: not steady: its last epoch %+.1f%% over the mean of its steady epochs "
				     "(more than %.0f%%): weight %.2f (more epochs a run: campaign --epochs)\n",
				base(d->pts[i].file), d->pts[i].line, 100 * d->pts[i].rise, 100 * CAL_STEADY_RISE,
				cal_steady_weight(&d->pts[i]));
}

/* What a prediction misses by beyond its parameters' errors, as run_sd_ln and allreduce_sd_ln in ps (validate
 * --profile's intervals add them to each held-out prediction): a run's noise, or the leave-one-out rms of the
 * loo_n throughput points' log residuals (loo_ss their sum of squares) where larger - how far a point the fit
 * did not see falls off it. */
static void put_noise(const cal_env *e, cal_pset *ps, const cal_data *d, double loo_ss, int loo_n)
{
	double noise = run_noise_ln(e, ps, d);
	if (loo_n > 1 && !(noise * noise >= loo_ss / loo_n))
		noise = sqrt(loo_ss / loo_n);
	double sd_ar = allreduce_noise_ln(e, ps, d);
	const char *nm[2] = { "run_sd_ln", "allreduce_sd_ln" };
	double nv[2] = { noise, sd_ar };
	for (int k = 0; k < 2; k++)
		if (isfinite(nv[k])) {
			int at = cal_pset_get(ps, nm[k], "", nv[k], "ln"); /* may move ps->p */
			cal_param *q = &ps->p[at];
			q->value = nv[k];
			q->status = CAL_FITTED;
		}
}

int cal_fit_all(cal_pset *ps, const cal_data *d, const cal_opts *opts, cal_summary *sum)
{
	cal_opts dflt = { 0 };
	const cal_opts *o = opts ? opts : &dflt;
	cal_summary s = { 0 };
	s.fit_mape = s.loo_mape = s.fit_mape_spread = s.loo_mape_spread = NAN;
	if (d->n == 0) {
		if (sum)
			*sum = s;
		return err_set("no measurements to fit");
	}
	log_unsteady(d, o->log);
	cal_env e;
	env_init(&e, o, d);
	grouping g;
	grouping_init(&g, &e, d);
	s.npoints = fit_groups(&e, ps, d, &g, o, false, &s);
	/* in-sample error over all points, and leave-one-out within each group of at least 2 points */
	double sum_fit = 0, sum_loo = 0, sum_fit_sp = 0, sum_loo_sp = 0, loo_ss = 0;
	int loo_n = 0;
	double *rho = xmalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof(*rho)), *hw = xmalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof(*hw));
	int nfit = 0;
	for (int k = 0; k < g.ngroups; k++) {
		const int *pts = g.order + g.gstart[k];
		int n = g.gstart[k + 1] - g.gstart[k];
		for (int j = 0; j < n; j++) {
			/* a run's in-step all-reduce is part of that run, not a point of its own */
			if (d->pts[pts[j]].step_grads)
				continue;
			double pr = predict_env(&e, ps, d, pts[j]);
			double lo_s, hi_s;
			bool rep = cal_repeat_spread(d, pts[j], &lo_s, &hi_s);
			s.nrepeat += rep;
			if (isfinite(pr)) {
				sum_fit += fabs(pr / d->pts[pts[j]].measured - 1);
				sum_fit_sp += beyond_spread(d, pts[j], pr);
				nfit++;
			}
			if (n < 2)
				continue;
			double lo = loo_predict(&e, ps, d, pts, n, j, o);
			if (isfinite(lo)) {
				sum_loo += fabs(lo / d->pts[pts[j]].measured - 1);
				sum_loo_sp += beyond_spread(d, pts[j], lo);
				/* for the interval: the log residual and the half-range of the point's repeats */
				rho[s.nloo] = log(d->pts[pts[j]].measured / lo);
				if (d->pts[pts[j]].kind == CAL_THROUGHPUT) {
					loo_ss += rho[s.nloo] * rho[s.nloo];
					loo_n++;
				}
				hw[s.nloo] = rep && lo_s > 0 ? 0.5 * log(hi_s / lo_s) : 0.0;
				s.nloo++;
			}
		}
	}
	s.fit_mape = nfit ? sum_fit / nfit : NAN;
	s.npoints = nfit;   /* the points the error is over (a run's in-step all-reduce is not one) */
	s.loo_mape = s.nloo ? sum_loo / s.nloo : NAN;
	s.fit_mape_spread = nfit ? sum_fit_sp / nfit : NAN;
	s.loo_mape_spread = s.nloo ? sum_loo_sp / s.nloo : NAN;
	cal_loo_interval(rho, hw, s.nloo, &s.iv);
	cal_loo_interval(rho, NULL, s.nloo, &s.iv_plain);
	put_noise(&e, ps, d, loo_ss, loo_n);
	free(rho);
	free(hw);
	grouping_free(&g, d->n);
	env_free(&e);
	if (sum)
		*sum = s;
	return 0;
}

/* ---- validation ---- */

void cal_vtable_free(cal_vtable *vt)
{
	if (!vt)
		return;
	for (int i = 0; i < vt->n; i++) {
		free(vt->rows[i].group);
		free(vt->rows[i].worst_where);
	}
	free(vt->rows);
	memset(vt, 0, sizeof *vt);
}

/* Replaces every `from` in *s by `to` (to no longer than from). */
static void shorten(char *s, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to);
	for (char *at = strstr(s, from); at; at = strstr(at + lt, from)) {
		memcpy(at, to, lt);
		memmove(at + lt, at + lf, strlen(at + lf) + 1);
	}
}

/* Human group name for the table: fields separated by spaces, long source names abbreviated. */
static char *table_group(const char *gname_in)
{
	char *gname = xstrdup(gname_in);
	shorten(gname, "nvidia-deeplearningexamples-", "NVIDIA-DLE ");
	shorten(gname, "-rn50v1.5-", " ");
	shorten(gname, "mlperf-training-", "MLPerf ");
	shorten(gname, "dell-whitepaper-2019-scaleout-vs-scaleup", "Dell 2019");
	shorten(gname, "testbed_pytorch.csv", "PyTorch");
	shorten(gname, "scaleplan-train", "exec");
	shorten(gname, "16-core Intel Xeon (VM)", "");
	shorten(gname, "Intel(R) Xeon(R) Processor ", "Xeon ");
	shorten(gname, "scaleplan ex_data: read + libjpeg-turbo ", "ex_data ");
	shorten(gname, " + ImageFolder (PIL decode) + RandomResizedCrop(224) + flip", " PIL decode");
	shorten(gname, "torchvision.io.decode_jpeg (libjpeg-turbo) + RandomResizedCrop + flip from memory",
		"libjpeg-turbo decode");
	char *s = xstrdup(gname);
	/* "throughput|m|gpu|prec|variant" -> "throughput m gpu prec variant", squeezing empty fields */
	char *w = s;
	for (const char *r = gname; *r; r++) {
		char ch = *r == '|' ? ' ' : *r;
		if (ch == ' ' && (w == s || w[-1] == ' '))
			continue;
		*w++ = ch;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
	free(gname);
	/* pipeline descriptions run long: keep the start (the file's full text is in --detail) */
	size_t len = strlen(s);
	if (strncmp(s, "pipeline ", 9) == 0 && len > 84) {
		/* keep the start and the end (image size), drop the middle */
		memmove(s + 55, s + len - 26, 27);
		memcpy(s + 52, "...", 3);
	}
	return s;
}

/* Geometric mean of compute_eff fitted in other scopes whose precision is of the same kind (tensor cores:
 * fp16/bf16/amp/tf32, or fp32); `fallback` when there is none. Scope: machine|gpu|precision|variant. */
static double cross_group_eff(const cal_pset *ps, const char *scope, double fallback)
{
	char prec[64] = "";
	const char *a = strchr(scope, '|');
	const char *b = a ? strchr(a + 1, '|') : NULL;
	const char *c = b ? strchr(b + 1, '|') : NULL;
	if (c)
		snprintf(prec, sizeof prec, "%.*s", (int)(c - b - 1), b + 1);
	bool tensor = strstr(prec, "16") || strstr(prec, "amp") || strstr(prec, "tf32");
	double sum = 0;
	int n = 0;
	for (int i = 0; i < ps->n; i++) {
		const cal_param *p = &ps->p[i];
		if (strcmp(p->name, "compute_eff") != 0 || strcmp(p->scope, scope) == 0 ||
		    (p->status != CAL_FITTED && p->status != CAL_EXACT))
			continue;
		const char *pa = strchr(p->scope, '|');
		const char *pb = pa ? strchr(pa + 1, '|') : NULL;
		const char *pc = pb ? strchr(pb + 1, '|') : NULL;
		if (!pc)
			continue;
		char pp[64];
		snprintf(pp, sizeof pp, "%.*s", (int)(pc - pb - 1), pb + 1);
		bool t2 = strstr(pp, "16") || strstr(pp, "amp") || strstr(pp, "tf32");
		if (t2 != tensor)
			continue;
		sum += log(p->value);
		n++;
	}
	return n ? exp(sum / n) : fallback;
}

/* A group of one is predicted from the priors only (its own fit would see it); its GPU efficiency from the
 * other throughput groups' fits at the same kind of precision, a better prior than a constant (still a
 * hold-out). */
static double prior_predict(cal_env *e, const cal_pset *full, const cal_data *d, const int *pts, int n, int j)
{
	cal_pset pri;
	pset_copy(&pri, full);
	fitctx c = { .e = e, .ps = &pri, .d = d, .pts = pts, .npts = n };
	choose_vars(&c);
	for (int v = 0; v < c.nv; v++) {
		cal_param *q = &pri.p[c.v[v].idx];
		q->value = q->prior;
		if (strcmp(q->name, "compute_eff") == 0)
			q->value = cross_group_eff(full, q->scope, q->prior);
	}
	double pr = predict_env(e, &pri, d, pts[j]);
	cal_pset_free(&pri);
	return pr;
}

/* Point j of a group of n, predicted without fitting to it: from the profile (fixed), by leave-one-out, or
 * from the priors; *how says which. */
static double held_out(cal_env *e, cal_pset *full, const cal_data *d, const int *pts, int n, int j, bool fixed,
		       const cal_opts *o, const char **how)
{
	const cal_point *p = &d->pts[pts[j]];
	if (fixed) {
		if (p->kind == CAL_THROUGHPUT && o->log) {
			char *sc = compute_scope(p);
			if (cal_pset_find(full, "compute_eff", sc) < 0)
				fprintf(o->log, "validate: %s:%d: the profile has no compute_eff for [%s]: predicted from the "
						"prior\n", p->file, p->line, sc);
			free(sc);
		}
		*how = "profile";
		return predict_env(e, full, d, pts[j]);
	}
	if (n >= 2) {
		*how = "leave-one-out";
		return loo_predict(e, full, d, pts, n, j, o);
	}
	*how = "other groups";
	return prior_predict(e, full, d, pts, n, j);
}

/* The model column (o->model_fn) of point j, the group's other points its --measured candidates (none with a
 * profile); NAN without a model_fn. */
static double model_column(const cal_opts *o, const cal_data *d, const int *pts, int n, int j, bool fixed)
{
	if (!o->model_fn)
		return NAN;
	int *others = xmalloc((size_t)n * sizeof *others), no = 0;
	for (int q = 0; q < n && !fixed; q++)
		if (q != j)
			others[no++] = pts[q];
	double mpr = o->model_fn(o->model_ctx, d, pts[j], others, no);
	free(others);
	return mpr;
}

/* The table row's key: the fit group tg, and for throughput the placement (GPUs, nodes, transport tr, which
 * is written to tr[64]). */
static char *row_key(const cal_env *e, const cal_point *p, const char *tg, char tr[64])
{
	tr[0] = '\0';
	if (p->kind == CAL_THROUGHPUT && p->gpus > 1)
		snprintf(tr, 64, "%s%s%s", p->gpus_per_node > 1 ? intra_transport(e, p) : "",
			 p->gpus_per_node > 1 && p->nodes > 1 ? "+" : "", p->nodes > 1 ? p->inter : "");
	if (p->kind != CAL_THROUGHPUT)
		return xstrdup(tg);
	return p->gpus > 1 ? xasprintf("%s @ %d GPUs (%dx%d %s)", tg, p->gpus, p->nodes, p->gpus_per_node, tr)
			   : xasprintf("%s @ 1 GPU", tg);
}

static const char detail_header[] =
	"group,file,line,measured,predicted,err_pct,how,gpus,nodes,gpus_per_node,transport,batch_per_gpu,"
	"allreduce_s,allreduce_s_pred,comm_exposed_s,comm_exposed_s_pred,grad_bytes_per_param,source,predicted_lo,"
	"predicted_hi\n";

/* One --detail row of a predicted point. */
static void detail_row(FILE *detail, const cal_env *e, cal_pset *full, const cal_point *p, const char *tg,
		       const char *tr, double pr, const char *how, const double iv[2])
{
	char bs[32] = ""; /* empty cell, never "nan", when the batch is not known */
	if (isfinite(p->batch_per_gpu))
		snprintf(bs, sizeof bs, "%g", p->batch_per_gpu);
	/* communication per iteration, measured (exec phase times) and predicted (with the parameters in use:
	 * the profile, or the full fit), for throughput points */
	char cm[4][32] = { "", "", "", "" };
	if (p->kind == CAL_THROUGHPUT) {
		double tar, ex;
		point_throughput(e, full, p, &tar, &ex);
		double v[4] = { p->meas_comm_s, tar, p->meas_exposed_s, ex };
		for (int q = 0; q < 4; q++)
			if (isfinite(v[q]))
				snprintf(cm[q], sizeof cm[q], "%.6g", v[q]);
	}
	/* throughput: bytes all-reduced per parameter (4 fp32, 2 bf16/fp16), as the scenario has them */
	char gb[16] = "";
	const model_scenario *ms = p->kind == CAL_THROUGHPUT ? point_scen(e, p) : NULL;
	if (ms && ms->prep.nparams > 0)
		snprintf(gb, sizeof gb, "%g", ms->prep.grad_B / ms->prep.nparams);
	char ivs[2][32] = { "", "" };
	for (int q = 0; q < 2; q++)
		if (isfinite(iv[q]))
			snprintf(ivs[q], sizeof ivs[q], "%.6g", iv[q]);
	fprintf(detail, "\"%s\",%s,%d,%.6g,%.6g,%.2f,%s,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,\"%s\",%s,%s\n", tg,
		base(p->file), p->line, p->measured, pr, 100 * (pr / p->measured - 1), how, p->gpus, p->nodes,
		p->gpus_per_node, tr, bs, cm[0], cm[1], cm[2], cm[3], gb, p->source, ivs[0], ivs[1]);
}

/* Counts a predicted point (pr; the model column's mpr) in its table row, made on first use; vt takes key. */
static void tally(cal_vtable *vt, char *key, const char *how, const cal_point *p, double pr, double mpr)
{
	double err = fabs(pr / p->measured - 1);
	cal_vrow *row = NULL;
	for (int r = 0; r < vt->n && !row; r++)
		if (strcmp(vt->rows[r].group, key) == 0)
			row = &vt->rows[r];
	if (!row) {
		row = &vt->rows[vt->n++];
		row->group = key;
		row->worst = -1;
		row->how = how;
		row->model_mape = NAN;
		row->model_bias = NAN;
	} else {
		free(key);
	}
	if (strcmp(row->how, how) != 0)
		row->how = "mixed";
	if (isfinite(mpr) && mpr > 0) {
		double se = mpr / p->measured - 1, me = fabs(se);
		row->model_mape = row->model_n ? (row->model_mape * row->model_n + me) / (row->model_n + 1) : me;
		row->model_bias = row->model_n ? (row->model_bias * row->model_n + se) / (row->model_n + 1) : se;
		row->model_n++;
	}
	row->bias = (row->bias * row->n + (pr / p->measured - 1)) / (row->n + 1);
	row->mape = (row->mape * row->n + err) / (row->n + 1);
	row->n++;
	vt->npred++;
	if (err > row->worst) {
		row->worst = err;
		free(row->worst_where);
		row->worst_where = xasprintf("%s:%d", base(p->file), p->line);
		row->worst_pred = pr;
		row->worst_meas = p->measured;
	}
}

int cal_validate(cal_vtable *vt, const cal_data *d, const cal_pset *fixed, const cal_opts *opts, FILE *detail)
{
	cal_opts dflt = { 0 };
	const cal_opts *o = opts ? opts : &dflt;
	memset(vt, 0, sizeof *vt);
	if (d->n == 0)
		return err_set("no measurements");
	cal_env e;
	env_init(&e, o, d);
	grouping g;
	grouping_init(&g, &e, d);
	cal_pset full;
	if (fixed) {
		pset_copy(&full, fixed);
	} else {
		cal_pset_init(&full);
		cal_opts quiet = *o;
		quiet.log = NULL;
		fit_groups(&e, &full, d, &g, &quiet, true, NULL);
	}
	/* a run's noise for the intervals: the profile's (from the data it was fitted to), else these points' */
	int ni = cal_pset_find(&full, "run_sd_ln", "");
	double noise = ni >= 0 ? full.p[ni].value : fixed ? NAN : run_noise_ln(&e, &full, d);
	int na = cal_pset_find(&full, "allreduce_sd_ln", "");
	double sd_ar = na >= 0 ? full.p[na].value : fixed ? NAN : allreduce_noise_ln(&e, &full, d);
	vt->rows = xcalloc((size_t)d->n + 1, sizeof *vt->rows);
	if (detail)
		fputs(detail_header, detail);
	for (int k = 0; k < g.ngroups; k++) {
		const int *pts = g.order + g.gstart[k];
		int n = g.gstart[k + 1] - g.gstart[k];
		for (int j = 0; j < n; j++) {
			const cal_point *p = &d->pts[pts[j]];
			const char *how;
			double pr = held_out(&e, &full, d, pts, n, j, fixed != NULL, o, &how);
			double mpr = model_column(o, d, pts, n, j, fixed != NULL);
			if (!isfinite(pr) || !(pr > 0)) {
				vt->nunpredictable++;
				if (o->log)
					fprintf(o->log, "validate: %s:%d: cannot be predicted without fitting to it\n", p->file,
						p->line);
				continue;
			}
			char *tg = table_group(g.gname[pts[j]]), tr[64];
			char *key = row_key(&e, p, tg, tr);
			if (detail) {
				double iv[2] = { NAN, NAN };
				if (p->kind == CAL_THROUGHPUT)
					cal_point_interval(pr, param_var_ln(&e, &full, d, pts[j]) +
							       comm_var_ln(&e, &full, p, pr, sd_ar), noise, &iv[0], &iv[1]);
				detail_row(detail, &e, &full, p, tg, tr, pr, how, iv);
			}
			free(tg);
			tally(vt, key, how, p, pr, mpr);
		}
	}
	cal_pset_free(&full);
	grouping_free(&g, d->n);
	env_free(&e);
	return vt->npred ? 0 : err_set("validate: no point could be predicted");
}

void cal_vtable_print(const cal_vtable *vt, const char *format, FILE *out)
{
	bool csv = strcmp(format, "csv") == 0, md = strcmp(format, "md") == 0;
	if (csv) {
		csvw *w = csvw_stream(out);
		const char *h[] = { "group", "points", "mape_pct", "worst_pct", "worst_point", "worst_predicted",
				    "worst_measured", "predicted_by", "model_points", "model_mape_pct", "bias_pct", "model_bias_pct" };
		for (int i = 0; i < 12; i++)
			csvw_text(w, h[i]);
		csvw_end_row(w);
		for (int i = 0; i < vt->n; i++) {
			const cal_vrow *r = &vt->rows[i];
			csvw_text(w, r->group);
			csvw_int(w, r->n);
			csvw_num(w, 100 * r->mape, 4);
			csvw_num(w, 100 * r->worst, 4);
			csvw_text(w, r->worst_where);
			csvw_num(w, r->worst_pred, 6);
			csvw_num(w, r->worst_meas, 6);
			csvw_text(w, r->how);
			csvw_int(w, r->model_n);
			csvw_num(w, 100 * r->model_mape, 4);
			csvw_num(w, 100 * r->bias, 4);
			csvw_num(w, 100 * r->model_bias, 4);
			csvw_end_row(w);
		}
		csvw_close(w);
		return;
	}
	if (md) {
		fprintf(out, "| group | points | MAPE | bias | worst | worst point (predicted / measured) | predicted by | "
			     "full model MAPE | full model bias |\n");
		fprintf(out, "|---|---:|---:|---:|---:|---|---|---:|---:|\n");
		for (int i = 0; i < vt->n; i++) {
			const cal_vrow *r = &vt->rows[i];
			char mm[32] = "-", mb[32] = "-";
			if (r->model_n) {
				snprintf(mm, sizeof mm, "%.1f%%", 100 * r->model_mape);
				snprintf(mb, sizeof mb, "%+.1f%%", 100 * r->model_bias);
			}
			fprintf(out, "| %s | %d | %.1f%% | %+.1f%% | %.1f%% | %s (%.4g / %.4g) | %s | %s | %s |\n", r->group, r->n,
				100 * r->mape, 100 * r->bias, 100 * r->worst, r->worst_where, r->worst_pred, r->worst_meas, r->how,
				mm, mb);
		}
		return;
	}
	int wg = 5;
	for (int i = 0; i < vt->n; i++)
		if ((int)strlen(vt->rows[i].group) > wg)
			wg = (int)strlen(vt->rows[i].group);
	fprintf(out, "%-*s %6s %7s %7s %7s %7s %7s  %-13s %s\n", wg, "group", "points", "MAPE", "bias", "worst", "model",
		"m.bias", "predicted by", "worst point (predicted / measured)");
	for (int i = 0; i < vt->n; i++) {
		const cal_vrow *r = &vt->rows[i];
		char mm[32] = "-", mb[32] = "-";
		if (r->model_n) {
			snprintf(mm, sizeof mm, "%.1f%%", 100 * r->model_mape);
			snprintf(mb, sizeof mb, "%+.1f%%", 100 * r->model_bias);
		}
		fprintf(out, "%-*s %6d %6.1f%% %+6.1f%% %6.1f%% %7s %7s  %-13s %s (%.4g / %.4g)\n", wg, r->group, r->n,
			100 * r->mape, 100 * r->bias, 100 * r->worst, mm, mb, r->how, r->worst_where, r->worst_pred,
			r->worst_meas);
	}
}
