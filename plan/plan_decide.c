/* plan_decide.c: the placements of N GPUs on candidate systems and the one decision compare, report and
 * sweep print. Whole servers by default: nobody buys 64 eight-GPU servers to use one GPU in each, so a
 * placement occupies whole nodes unless --partial-nodes asks for the others (still costed for the whole
 * servers they occupy: model_result's capex and rent). The answer names the fastest, the cheapest and the
 * best value (the knee of the time-cost front); an option is faster only when the 90% interval of its time
 * over the other's lies below 1 (plan_surely_faster: model_ratio, where what two predictions share cancels),
 * else the two are a tie: of the options no other is surely faster than, the pick is the cheapest per run
 * (owned: tco; rented: rent), capex last; money rankings rank by money. Scale up vs scale out is asked of
 * one GPU model at a time; buy vs rent too.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan.h"

#include <ctype.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

void plan_question_init(plan_question *q)
{
	memset(q, 0, sizeof(*q));
	q->goal = PLAN_TTA;
	q->cost = PLAN_CAPEX;
	q->budget_usd = NAN;
	q->deadline_s = NAN;
	q->tie_band = 0.05; /* validate --group whole-run: the model's time-to-train error on whole runs */
}

double plan_cost_usd(plan_cost c, const model_result *r)
{
	return c == PLAN_RENT ? r->rent_usd : c == PLAN_TCO ? r->tco_usd : r->capex_usd;
}

const char *plan_cost_name(plan_cost c)
{
	return c == PLAN_RENT ? "rent" : c == PLAN_TCO ? "tco" : "capex";
}

int plan_cost_parse(const char *s)
{
	return strcmp(s, "capex") == 0 ? PLAN_CAPEX : strcmp(s, "tco") == 0 ? PLAN_TCO
	       : strcmp(s, "rent") == 0 ? PLAN_RENT : -1;
}

static const char *cost_words(plan_cost c)
{
	return c == PLAN_RENT ? "rent for the run" : c == PLAN_TCO ? "owner's cost per run" : "capex";
}

bool plan_cost_first(const plan_question *q)
{
	return q->goal == PLAN_COST || (!isnan(q->deadline_s) && isnan(q->budget_usd));
}

static bool ttt_goal(const plan_question *q)
{
	return q->goal == PLAN_TTT;
}

static const char *time_words(const plan_question *q)
{
	return ttt_goal(q) ? "time to train (MLPerf-scored)" : "time to accuracy";
}

const char *plan_goal_name(const plan_question *q)
{
	if (plan_cost_first(q))
		return cost_words(q->cost);
	return q->goal == PLAN_GRID ? "grid order" : time_words(q);
}

const char *plan_order_text(const plan_question *q, char *buf, size_t len_B)
{
	if (q->goal == PLAN_GRID)
		snprintf(buf, len_B, "grid order");
	else if (plan_cost_first(q))
		snprintf(buf, len_B, "%s, then %s; options that do not qualify (column meets) after those that do",
			 cost_words(q->cost), time_words(q));
	else
		snprintf(buf, len_B, "%s, then %s; options that do not qualify (column meets) after those that do",
			 time_words(q), cost_words(q->cost));
	return buf;
}

/* ---- one option against the question ---- */

void plan_time_interval(const plan_question *q, const model_result *r, double *lo_s, double *hi_s)
{
	double t = ttt_goal(q) ? r->ttt_s : r->tta_s;
	double lo = ttt_goal(q) ? r->ttt_lo_s : r->tta_lo_s, hi = ttt_goal(q) ? r->ttt_hi_s : r->tta_hi_s;
	if (!(lo < hi)) { /* no interval applied (lo == hi == point): the model's stated whole-run error */
		lo = t * (1 - q->tie_band);
		hi = t * (1 + q->tie_band);
	}
	*lo_s = lo;
	*hi_s = hi;
}

/* Whether the question needs a price of q->cost to qualify: ranked by it, or a budget or deadline on it. */
static bool needs_price(const plan_question *q)
{
	return q->goal == PLAN_COST || !isnan(q->budget_usd) || !isnan(q->deadline_s);
}

/* GPUs bought and not used: whole units of unit_nodes nodes where the system has a purchase price (an NVL72
 * rack), else whole nodes (rented or priced by the node). */
static int idle_gpus(const model_scenario *sc, const model_result *r)
{
	const model_node *n = &sc->node;
	int per_node = n->max_gpus_per_node > 0 ? n->max_gpus_per_node : n->gpus_per_node;
	long nodes = sc->nodes;
	if (isfinite(r->capex_usd) && n->unit_nodes > 1)
		nodes = (nodes + n->unit_nodes - 1) / n->unit_nodes * n->unit_nodes;
	long idle = nodes * per_node - (long)sc->nodes * n->gpus_per_node;
	return idle > 0 ? (int)idle : 0;
}

double plan_deadline_p(double t_s, double lo_s, double hi_s, double deadline_s)
{
	const double z90 = 1.6448536269514722; /* the standard normal's 95% quantile */
	double side = deadline_s >= t_s ? log(hi_s / t_s) : log(t_s / lo_s);
	if (!(side > 0) || !isfinite(side))
		return deadline_s >= t_s ? 1.0 : 0.0;
	double z = log(deadline_s / t_s) / (side / z90);
	return 0.5 * erfc(-z / sqrt(2.0));
}

void plan_judge(const plan_question *q, const model_scenario *sc, const model_result *r, plan_verdict *v)
{
	double t = ttt_goal(q) ? r->ttt_s : r->tta_s;
	memset(v, 0, sizeof(*v));
	v->time_s = r->fits && isfinite(t) ? t : INFINITY;
	if (isfinite(v->time_s))
		plan_time_interval(q, r, &v->time_lo_s, &v->time_hi_s);
	else
		v->time_lo_s = v->time_hi_s = INFINITY;
	v->cost_usd = plan_cost_usd(q->cost, r);
	if (!isfinite(v->cost_usd))
		v->cost_usd = NAN;
	if (!r->fits)
		v->fails |= PLAN_FAIL_MEMORY;
	if (r->fits && r->extrapolated && !q->extrapolate)
		v->fails |= PLAN_FAIL_EXTRAPOLATED; /* epochs beyond the measured convergence range: listed, not recommended */
	if (needs_price(q) && isnan(v->cost_usd))
		v->fails |= PLAN_FAIL_PRICE;
	if (!isnan(q->budget_usd) && v->cost_usd > q->budget_usd) {
		v->fails |= PLAN_FAIL_BUDGET;
		v->over_budget_usd = v->cost_usd - q->budget_usd;
	}
	v->deadline_p = NAN;
	if (!isnan(q->deadline_s) && r->fits && isfinite(v->time_s)) {
		v->deadline_p = plan_deadline_p(v->time_s, v->time_lo_s, v->time_hi_s, q->deadline_s);
		v->deadline_sure = v->time_hi_s <= q->deadline_s;
		if (v->time_s > q->deadline_s) {
			v->fails |= PLAN_FAIL_DEADLINE;
			v->late_s = v->time_s - q->deadline_s;
		}
	}
	v->idle_gpus = idle_gpus(sc, r);
	int d = model_domain_gpus(sc);
	v->domains = d > 0 ? (sc->nodes * sc->node.gpus_per_node + d - 1) / d : sc->nodes;
}

/* Orders two numbers, unknown (NAN) and INFINITY last. */
static int num_cmp(double a, double b)
{
	bool ka = isfinite(a), kb = isfinite(b);
	if (ka != kb)
		return ka ? -1 : 1;
	if (!ka || a == b)
		return 0;
	return a < b ? -1 : 1;
}

int plan_verdict_cmp(const plan_question *q, const plan_verdict *a, const plan_verdict *b)
{
	bool qa = a->fails == 0, qb = b->fails == 0;
	if (qa != qb)
		return qa ? -1 : 1;
	if (qa && a->deadline_sure != b->deadline_sure) /* a deadline met with 90% confidence, then at the prediction */
		return a->deadline_sure ? -1 : 1;
	int c = plan_cost_first(q) ? num_cmp(a->cost_usd, b->cost_usd) : num_cmp(a->time_s, b->time_s);
	if (c)
		return c;
	return plan_cost_first(q) ? num_cmp(a->time_s, b->time_s) : num_cmp(a->cost_usd, b->cost_usd);
}

char *plan_fails_text(const plan_question *q, const plan_verdict *v, char *buf, size_t len_B)
{
	char m[32], t[32];
	size_t at = 0;
	buf[0] = '\0';
	if (!v->fails) {
		snprintf(buf, len_B, "%s", needs_price(q) ? "meets" : "-");
		return buf;
	}
#define ADD(...) do { if (at < len_B) at += (size_t)snprintf(buf + at, len_B - at, __VA_ARGS__); } while (0)
	if (v->fails & PLAN_FAIL_MEMORY)
		ADD("%sno fit (memory)", at ? " and " : "");
	if (v->fails & PLAN_FAIL_EXTRAPOLATED)
		ADD("%sbeyond measured convergence", at ? " and " : "");
	if (v->fails & PLAN_FAIL_PRICE)
		ADD("%sno %s price", at ? " and " : "", plan_cost_name(q->cost));
	if (v->fails & PLAN_FAIL_BUDGET)
		ADD("%sover budget by %s", at ? " and " : "", plan_fmt_usd(v->over_budget_usd, m, sizeof m));
	if (v->fails & PLAN_FAIL_DEADLINE)
		ADD("%smisses deadline by %s", at ? " and " : "", plan_fmt_duration(v->late_s, t, sizeof t));
#undef ADD
	return buf;
}

void plan_option_judge(const plan_question *q, plan_option *w)
{
	plan_judge(q, &w->sc, &w->r, &w->v);
	w->ok = w->v.fails == 0;
	w->partial = w->sc.node.max_gpus_per_node > w->sc.node.gpus_per_node;
}

/* Options in table order: the verdicts, then fewer NVLink domains, fewer nodes, system id. */
static int option_cmp(const plan_question *q, const plan_option *x, const plan_option *y)
{
	int c = plan_verdict_cmp(q, &x->v, &y->v);
	if (c)
		return c;
	if (x->v.domains != y->v.domains)
		return x->v.domains < y->v.domains ? -1 : 1;
	if (x->sc.nodes != y->sc.nodes)
		return x->sc.nodes < y->sc.nodes ? -1 : 1;
	return strcmp(x->sc.node.system_id, y->sc.node.system_id);
}

static int option_qcmp(const void *a, const void *b, void *q)
{
	return option_cmp(q, a, b);
}

void plan_options_sort(const plan_question *q, plan_option *o, int n)
{
	qsort_r(o, (size_t)n, sizeof(*o), option_qcmp, (void *)q);
}

/* ---- placements ---- */

bool plan_joinable(const plan_spec *s, const hw_system *sys, int gpn, int nodes)
{
	if (nodes <= 1 || sys->nic || sys->fabric || s->fabric_id)
		return true;
	/* without a network only one NVLink domain: its trays, counted as whole nodes of the system */
	return gpn > 0 && sys->domain_gpus > 0 && (long)nodes * sys->gpus_per_node <= sys->domain_gpus;
}

bool plan_offered(const plan_question *q, const hw_system *sys)
{
	return q->include_eol || strcmp(sys->status, "eol") != 0;
}

plan_shape plan_shape_check(const plan_spec *s, const plan_question *q, const hw_system *sys, int gpn, int nodes)
{
	if (gpn > sys->gpus_per_node)
		return PLAN_SHAPE_TOO_MANY;
	if (gpn < sys->gpus_per_node && !q->partial_nodes && nodes > 1)
		return PLAN_SHAPE_PARTIAL; /* nobody buys several servers to leave GPUs of each idle */
	return plan_joinable(s, sys, gpn, nodes) ? PLAN_SHAPE_OK : PLAN_SHAPE_NO_NET;
}

int plan_placement_shapes(const plan_spec *s, const plan_question *q, const hw_system *sys, long gpus, int *gpn,
			  int *nodes, int max, int *skipped_net, int *skipped_whole)
{
	int G = sys->gpus_per_node, n = 0, partial = 0;
	for (int g = gpus < G ? (int)gpus : G; g >= 1 && n < max; g--) {
		if (gpus % g)
			continue;
		plan_shape k = plan_shape_check(s, q, sys, g, (int)(gpus / g));
		partial += k == PLAN_SHAPE_PARTIAL;
		*skipped_net += k == PLAN_SHAPE_NO_NET;
		if (k != PLAN_SHAPE_OK)
			continue;
		gpn[n] = g;
		nodes[n++] = (int)(gpus / g);
	}
	if (n == 0 && partial)
		(*skipped_whole)++; /* the node size does not divide the GPUs: only partial nodes would hold them */
	return n;
}

static int add_option(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
		      const hw_system *sys, int gpn, int nodes, plan_option **o, int *n, int *cap)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*o = xrealloc(*o, (size_t)*cap * sizeof(**o));
	}
	plan_option *w = &(*o)[*n];
	if (plan_resolve(db, s, p, sys, gpn, nodes, &w->sc) || model_predict(&w->sc, p, &w->r))
		return err_prefix("%s %dx%d", sys->id, nodes, gpn);
	plan_option_judge(q, w);
	(*n)++;
	return 0;
}

int plan_placements(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
		    const hw_system *const *cand, int ncand, long gpus, plan_option **o, int *n, int *cap,
		    int *skipped_net, int *skipped_whole)
{
	enum { MAX_SHAPES = 1024 };
	int gpn[MAX_SHAPES], nodes[MAX_SHAPES];
	for (int k = 0; k < ncand; k++) {
		int m = plan_placement_shapes(s, q, cand[k], gpus, gpn, nodes, MAX_SHAPES, skipped_net, skipped_whole);
		for (int i = 0; i < m; i++)
			if (add_option(db, s, p, q, cand[k], gpn[i], nodes[i], o, n, cap))
				return ERR_INPUT;
	}
	return 0;
}

/* ---- the decision ---- */

/* The GPU model of an option: its GPU id up to the first '-' ("B200" for B200-SXM-180GB and
 * B200-GB200-186GB): the same chip in another package is the same GPU model for scale up vs out. */
static size_t chip_len(const char *gpu_id)
{
	const char *d = strchr(gpu_id, '-');
	return d ? (size_t)(d - gpu_id) : strlen(gpu_id);
}

bool plan_same_gpu_model(const char *gpu_a, const char *gpu_b)
{
	size_t la = chip_len(gpu_a), lb = chip_len(gpu_b);
	return la == lb && strncasecmp(gpu_a, gpu_b, la) == 0;
}

/* Whether two options carry one GPU record (the same database id: one board, one clock, one power): scale up
 * against scale out compares topology alone only then (a GB200 at 1.2 kW is not a DGX B200's 1 kW B200). */
static bool same_gpu(const plan_option *a, const plan_option *b)
{
	return strcmp(a->sc.node.gpu_id, b->sc.node.gpu_id) == 0;
}

static bool same_chip(const plan_option *a, const plan_option *b)
{
	return plan_same_gpu_model(a->sc.node.gpu_id, b->sc.node.gpu_id);
}

/* Time first: less time, then less money, then the table's order. */
static bool faster(const plan_question *q, const plan_option *a, const plan_option *b)
{
	int c = num_cmp(a->v.time_s, b->v.time_s);
	if (!c)
		c = num_cmp(a->v.cost_usd, b->v.cost_usd);
	return c ? c < 0 : option_cmp(q, a, b) < 0;
}

/* Money first: less money, then less time, then the table's order. */
static bool cheaper(const plan_question *q, const plan_option *a, const plan_option *b)
{
	int c = num_cmp(a->v.cost_usd, b->v.cost_usd);
	if (!c)
		c = num_cmp(a->v.time_s, b->v.time_s);
	return c ? c < 0 : option_cmp(q, a, b) < 0;
}

void plan_time_ratio(const plan_question *q, const plan_option *a, const plan_option *b, double *x, double *lo,
		     double *hi)
{
	model_ratio(&a->sc, &a->r, &b->sc, &b->r, ttt_goal(q) ? MODEL_Q_TTT : MODEL_Q_TTA, x, lo, hi);
}

bool plan_surely_faster(const plan_question *q, const plan_option *a, const plan_option *b)
{
	double x, lo, hi;
	if (!isfinite(a->v.time_s))
		return false;
	if (!isfinite(b->v.time_s))
		return true; /* b does not fit */
	plan_time_ratio(q, a, b, &x, &lo, &hi);
	return hi < 1.0;
}

bool plan_times_tied(const plan_question *q, const plan_option *a, const plan_option *b)
{
	if (!isfinite(a->v.time_s) || !isfinite(b->v.time_s))
		return false;
	return !plan_surely_faster(q, a, b) && !plan_surely_faster(q, b, a);
}

double plan_run_cost_usd(const plan_option *w)
{
	double c = isfinite(w->r.capex_usd) ? w->r.tco_usd : w->r.rent_usd;
	return isfinite(c) ? c : NAN;
}

/* Cost per run first (plan_run_cost_usd), then capex, then time, then the table's order. */
static bool run_cheaper(const plan_question *q, const plan_option *a, const plan_option *b)
{
	int c = num_cmp(plan_run_cost_usd(a), plan_run_cost_usd(b));
	if (!c)
		c = num_cmp(a->r.capex_usd, b->r.capex_usd);
	if (!c)
		c = num_cmp(a->v.time_s, b->v.time_s);
	return c ? c < 0 : option_cmp(q, a, b) < 0;
}

/* Whether another qualified option is surely faster than w. */
static bool surely_beaten(const plan_question *q, const plan_option *o, int n, const plan_option *w)
{
	for (int i = 0; i < n; i++)
		if (o[i].ok && &o[i] != w && plan_surely_faster(q, &o[i], w))
			return true;
	return false;
}

/* Of the options no other is surely faster than (the fastest f always among them: surely faster is faster at
 * the point), the cheapest per run: a difference the model cannot tell apart never buys the dearer option, and
 * the pick is never an option another beats surely on time. O(n^2) ratios. */
static const plan_option *tie_by_money(const plan_question *q, const plan_option *o, int n, const plan_option *f)
{
	const plan_option *pick = f;
	for (int i = 0; i < n; i++) {
		const plan_option *w = &o[i];
		if (w->ok && w != f && run_cheaper(q, w, pick) && !surely_beaten(q, o, n, w))
			pick = w;
	}
	return pick;
}

/* The knee of the time-cost Pareto front of the qualified, priced options: both axes scaled to 0..1 over
 * the front (fastest to cheapest), the point nearest the ideal corner (least sum); a tie goes to money. */
static const plan_option *knee(const plan_question *q, const plan_option *o, int n, const plan_option *f,
			       const plan_option *c)
{
	if (!f || !c || isnan(f->v.cost_usd))
		return c ? c : f;
	double t0 = f->v.time_s, t1 = c->v.time_s, c0 = c->v.cost_usd, c1 = f->v.cost_usd;
	const plan_option *best = NULL;
	double best_d = INFINITY;
	for (int i = 0; i < n; i++) {
		const plan_option *w = &o[i];
		if (!w->ok || isnan(w->v.cost_usd))
			continue;
		double d = (t1 > t0 ? (w->v.time_s - t0) / (t1 - t0) : 0) + (c1 > c0 ? (w->v.cost_usd - c0) / (c1 - c0) : 0);
		if (d < best_d - 1e-12 || (fabs(d - best_d) <= 1e-12 && cheaper(q, w, best))) {
			best = w;
			best_d = d;
		}
	}
	return best;
}

/* For chip's GPU model among the qualified options: the fastest of those spanning the fewest NVLink domains
 * (scale up) and the fastest of those spanning more (scale out). */
static bool pair_of(const plan_question *q, const plan_option *o, int n, const plan_option *chip,
		    const plan_option **up, const plan_option **out)
{
	int fewest = INT_MAX;
	*up = *out = NULL;
	for (int i = 0; i < n; i++)
		if (o[i].ok && same_gpu(&o[i], chip) && o[i].v.domains < fewest)
			fewest = o[i].v.domains;
	for (int i = 0; i < n; i++) {
		const plan_option *w = &o[i];
		if (!w->ok || !same_gpu(w, chip))
			continue;
		if (w->v.domains == fewest && (!*up || faster(q, w, *up)))
			*up = w;
		if (w->v.domains > fewest && (!*out || faster(q, w, *out)))
			*out = w;
	}
	return *up && *out;
}

/* Scale up against scale out, like for like: one GPU model in one NVLink domain and over several, the
 * winner's model first, else the model whose pair holds the fastest option; never across models. */
static void like_for_like(const plan_question *q, const plan_option *o, int n, plan_answer *a)
{
	const plan_option *up, *out;
	if (pair_of(q, o, n, a->winner, &a->best_up, &a->best_out))
		return;
	a->best_up = a->best_out = NULL;
	for (int i = 0; i < n; i++) {
		if (!o[i].ok || same_gpu(&o[i], a->winner) || !pair_of(q, o, n, &o[i], &up, &out))
			continue;
		const plan_option *f = faster(q, up, out) ? up : out;
		if (!a->best_up || faster(q, f, faster(q, a->best_up, a->best_out) ? a->best_up : a->best_out)) {
			a->best_up = up;
			a->best_out = out;
		}
	}
	a->like_for_like_none = !a->best_up;
}

/* Buy against rent for the winner's GPU: the winner (or the fastest option of its GPU model with a capex)
 * bought, against the cheapest rental of its GPU that plan_resolve found (ref_rent_*). */
static void buy_rent(const plan_question *q, const plan_option *o, int n, plan_answer *a)
{
	plan_buy_rent *b = &a->buy_rent;
	const plan_option *w = a->winner;
	for (int i = 0; i < n; i++) {
		const plan_option *x = &o[i];
		if (!x->r.fits || !same_chip(x, w) || !isfinite(x->r.capex_usd) || b->buy == w)
			continue;
		/* the winner itself, else one of its very GPU (a rented winner: the same GPU bought), else the fastest */
		bool exact = strcmp(x->sc.node.gpu_id, w->sc.node.gpu_id) == 0;
		bool b_exact = b->buy && strcmp(b->buy->sc.node.gpu_id, w->sc.node.gpu_id) == 0;
		if (!b->buy || x == w || (exact && !b_exact) || (exact == b_exact && faster(q, x, b->buy)))
			b->buy = x;
	}
	if (!b->buy || !b->buy->sc.node.ref_rent_id)
		return;
	b->rent_id = b->buy->sc.node.ref_rent_id;
	b->rent_usd_gpu_h = b->buy->sc.node.ref_rent_usd_gpu_h;
	b->owner_usd_run = b->buy->r.tco_usd;
	b->rent_usd_run = model_ref_rent_usd(&b->buy->sc, &b->buy->r);
	b->breakeven_runs_month = b->buy->r.breakeven_runs_per_month;
	b->max_runs_month = 365.25 / 12 * 86400 / b->buy->r.tta_s;
}

/* How far an option that fits, has its price and is inside the convergence data misses the budget and
 * deadline: the number of constraints it fails, then the relative miss; INFINITY for the others. */
static double miss_of(const plan_question *q, const plan_option *w)
{
	unsigned bd = PLAN_FAIL_BUDGET | PLAN_FAIL_DEADLINE;
	if (!w->v.fails || (w->v.fails & ~bd))
		return INFINITY;
	double m = (isnan(q->budget_usd) ? 0 : w->v.over_budget_usd / q->budget_usd) +
		   (isnan(q->deadline_s) ? 0 : w->v.late_s / q->deadline_s);
	int k = ((w->v.fails & PLAN_FAIL_BUDGET) != 0) + ((w->v.fails & PLAN_FAIL_DEADLINE) != 0);
	return k * 1e6 + m; /* one constraint failed comes before two, however far */
}

/* With no option qualifying: the one that misses the budget and deadline least (miss_of). */
static const plan_option *near_miss(const plan_question *q, const plan_option *o, int n)
{
	const plan_option *best = NULL;
	for (int i = 0; i < n; i++)
		if (isfinite(miss_of(q, &o[i])) && (!best || miss_of(q, &o[i]) < miss_of(q, best)))
			best = &o[i];
	return best;
}

void plan_decide(const plan_question *q, plan_option *o, int n, plan_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->options = o;
	a->noptions = n;
	for (int i = 0; i < n; i++) {
		a->ndeadline_sure += !o[i].v.fails && o[i].v.deadline_sure;
		a->ndeadline_likely += !o[i].v.fails && !isnan(q->deadline_s) && !o[i].v.deadline_sure;
	}
	for (int i = 0; i < n; i++) /* options that meet a deadline with 90% confidence first: only they, if any */
		o[i].ok = !o[i].v.fails && (a->ndeadline_sure == 0 || o[i].v.deadline_sure);
	for (int i = 0; i < n; i++) {
		const plan_option *w = &o[i];
		if (w->r.fits && w->r.extrapolated) {
			a->nextrapolated++;
			a->conv_max_batch = model_conv_max_batch(&w->sc);
		}
		a->nfail_budget += (w->v.fails & PLAN_FAIL_BUDGET) != 0;
		a->nfail_deadline += (w->v.fails & PLAN_FAIL_DEADLINE) != 0;
		a->nfail_price += (w->v.fails & PLAN_FAIL_PRICE) != 0;
		if (!w->ok)
			continue;
		a->nqualified++;
		if (!a->fastest || faster(q, w, a->fastest))
			a->fastest = w;
		if (!isnan(w->v.cost_usd) && (!a->cheapest || cheaper(q, w, a->cheapest)))
			a->cheapest = w;
	}
	if (!a->fastest) {
		a->near_miss = near_miss(q, o, n);
		return;
	}
	a->best_value = knee(q, o, n, a->fastest, a->cheapest);
	if (plan_cost_first(q)) {
		a->winner = a->cheapest ? a->cheapest : a->fastest;
	} else {
		a->winner = tie_by_money(q, o, n, a->fastest);
		if (a->winner != a->fastest)
			a->tied_faster = a->fastest;
	}
	like_for_like(q, o, n, a);
	buy_rent(q, o, n, a);
}

/* ---- the answer in words ---- */

int plan_parse_duration(const char *s, double *out_s)
{
	static const struct { const char *unit; double s; } units[] = {
		{"", 1}, {"s", 1}, {"sec", 1}, {"min", 60}, {"m", 60}, {"h", 3600}, {"hr", 3600}, {"d", 86400},
		{"day", 86400}, {"days", 86400}, {"w", 604800},
	};
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || !(v > 0))
		return err_set("'%s': expected a positive duration such as 90min, 2.5h, 3d or 5400 (seconds)", s);
	while (isspace((unsigned char)*end))
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0) {
			*out_s = v * units[i].s;
			return 0;
		}
	return err_set("'%s': unknown unit '%s'; expected s, min, h, d or w (e.g. 90min, 2.5h)", s, end);
}

char *plan_fmt_usd(double usd, char *buf, size_t len_B)
{
	if (!isfinite(usd)) {
		snprintf(buf, len_B, "-");
		return buf;
	}
	char digits[32], out[48];
	if (fabs(usd) < 100) { /* a short run's rent or energy: cents matter */
		snprintf(buf, len_B, "%s$%.2f", usd < 0 ? "-" : "", fabs(usd));
		return buf;
	}
	snprintf(digits, sizeof digits, "%.0f", fabs(usd));
	size_t nd = strlen(digits), k = 0;
	if (usd < 0 && nd && strcmp(digits, "0"))
		out[k++] = '-';
	out[k++] = '$';
	for (size_t i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	out[k] = '\0';
	snprintf(buf, len_B, "%s", out);
	return buf;
}

char *plan_fmt_duration(double s, char *buf, size_t len_B)
{
	if (!isfinite(s))
		snprintf(buf, len_B, "-");
	else if (s < 120)
		snprintf(buf, len_B, "%.1f s", s);
	else if (s < 7200)
		snprintf(buf, len_B, "%.1f min", s / 60);
	else if (s < 3 * 86400)
		snprintf(buf, len_B, "%.0f h %02.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
	else
		snprintf(buf, len_B, "%.1f days", s / 86400);
	return buf;
}

/* Appends printf text to buf at *at, never past len_B. */
static void put(char *buf, size_t len_B, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len_B, size_t *at, const char *fmt, ...)
{
	va_list ap;
	if (*at >= len_B)
		return;
	va_start(ap, fmt);
	int k = vsnprintf(buf + *at, len_B - *at, fmt, ap);
	va_end(ap);
	if (k > 0)
		*at += (size_t)k;
}

/* "13.6 min (12.9-14.3, estimate)": the time, its 90% interval and, for an estimate, the basis. */
static const char *fmt_time(const plan_option *w, char *buf, size_t len_B)
{
	char t[32], lo[32], hi[32];
	plan_fmt_duration(w->v.time_lo_s, lo, sizeof lo);
	plan_fmt_duration(w->v.time_hi_s, hi, sizeof hi);
	const char *ulo = strchr(lo, ' '), *uhi = strchr(hi, ' ');
	if (ulo && uhi && !strchr(ulo + 1, ' ') && strcmp(ulo, uhi) == 0)
		lo[ulo - lo] = '\0'; /* "11.0-23.9 min": one unit for both ends */
	snprintf(buf, len_B, "%s (%s-%s%s)", plan_fmt_duration(w->v.time_s, t, sizeof t), lo, hi,
		 w->r.basis == MODEL_BASIS_ESTIMATE ? ", estimate" : w->r.basis == MODEL_BASIS_TRANSFER ? ", transfer" : "");
	return buf;
}

/* "dgxh100 8x8 (8 nodes x 8 GPUs): 23.4 min (22.2-24.6, estimate) to accuracy, capex $3,000,000, bottleneck
 * compute", with the GPUs bought and left idle. */
static void put_option(const plan_question *q, const plan_option *w, char *buf, size_t len_B, size_t *at)
{
	char t[96], c[32];
	int bought = w->r.gpus + w->v.idle_gpus;
	put(buf, len_B, at, "%s %dx%d (%d node%s x %d GPUs%s): %s %s, %s %s, bottleneck %s", w->sc.node.system_id,
	    w->sc.nodes, w->sc.node.gpus_per_node, w->sc.nodes, w->sc.nodes > 1 ? "s" : "", w->sc.node.gpus_per_node,
	    w->partial ? ", GPUs left idle" : "", fmt_time(w, t, sizeof t), ttt_goal(q) ? "to train (MLPerf-scored)" : "to accuracy",
	    plan_cost_name(q->cost), plan_fmt_usd(w->v.cost_usd, c, sizeof c), model_bottleneck_name(w->r.bottleneck));
	if (w->v.idle_gpus > 0)
		put(buf, len_B, at, "; %d of the %d GPUs bought sit idle", w->v.idle_gpus, bought);
}

/* "gb200-nvl72 2x4 (7.0 min, capex $3,000,000)" */
static void put_short(const plan_question *q, const plan_option *w, char *buf, size_t len_B, size_t *at)
{
	char t[32], c[32];
	put(buf, len_B, at, "%s %dx%d (%s, %s %s", w->sc.node.system_id, w->sc.nodes, w->sc.node.gpus_per_node,
	    plan_fmt_duration(w->v.time_s, t, sizeof t), plan_cost_name(q->cost), plan_fmt_usd(w->v.cost_usd, c, sizeof c));
	if (w->v.idle_gpus > 0)
		put(buf, len_B, at, ", %d GPUs idle", w->v.idle_gpus);
	put(buf, len_B, at, ")");
}

/* How w's time and cost compare with base's, speeds as a factor or a share of time (never "1386% slower"):
 * "is 1.6x as fast as dgxb200 1x8 for 5.8x the capex", "takes 13% less time than ...", "takes 12% more time
 * than ...", "takes 2.4x the time of ... for 39% less capex". */
static void put_relation(const plan_question *q, const plan_option *w, const plan_option *base, char *buf, size_t len_B,
			 size_t *at)
{
	double r = w->v.time_s / base->v.time_s, rc = w->v.cost_usd / base->v.cost_usd;
	const char *name = base->sc.node.system_id;
	int nodes = base->sc.nodes, gpn = base->sc.node.gpus_per_node;
	if (r <= 1 / 1.5)
		put(buf, len_B, at, "is %.1fx as fast as %s %dx%d", 1 / r, name, nodes, gpn);
	else if (r < 1)
		put(buf, len_B, at, "takes %.0f%% less time than %s %dx%d", 100 * (1 - r), name, nodes, gpn);
	else if (r == 1)
		put(buf, len_B, at, "takes the same time as %s %dx%d", name, nodes, gpn);
	else if (r < 1.5)
		put(buf, len_B, at, "takes %.0f%% more time than %s %dx%d", 100 * (r - 1), name, nodes, gpn);
	else
		put(buf, len_B, at, "takes %.1fx the time of %s %dx%d", r, name, nodes, gpn);
	const char *cn = plan_cost_name(q->cost);
	if (!isfinite(rc))
		put(buf, len_B, at, " (%s not comparable: a price is missing)", cn);
	else if (rc >= 1.5)
		put(buf, len_B, at, " for %.1fx the %s", rc, cn);
	else if (rc > 1)
		put(buf, len_B, at, " for %.0f%% more %s", 100 * (rc - 1), cn);
	else if (rc < 1)
		put(buf, len_B, at, " for %.0f%% less %s", 100 * (1 - rc), cn);
	else
		put(buf, len_B, at, " for the same %s", cn);
}

/* Each option that misses only the budget or the deadline, what it fails and by how much, nearest first
 * (miss_of); at most 6. */
static void put_misses(const plan_question *q, const plan_answer *a, char *buf, size_t len_B, size_t *at)
{
	const plan_option *o = a->options;
	const plan_option *done[6];
	int nd = 0;
	put(buf, len_B, at, " Nearest: ");
	while (nd < 6) {
		const plan_option *next = NULL;
		for (int i = 0; i < a->noptions; i++) {
			bool seen = false;
			for (int k = 0; k < nd; k++)
				seen |= done[k] == &o[i];
			if (!seen && isfinite(miss_of(q, &o[i])) && (!next || miss_of(q, &o[i]) < miss_of(q, next)))
				next = &o[i];
		}
		if (!next)
			break;
		char f[96];
		put(buf, len_B, at, "%s", nd ? "; " : "");
		put_short(q, next, buf, len_B, at);
		put(buf, len_B, at, " %s", plan_fails_text(q, &next->v, f, sizeof f));
		done[nd++] = next;
	}
	put(buf, len_B, at, " (a deadline is missed where the predicted time is past it).");
}

/* Why nothing qualifies: beyond the convergence data, no fit, no price, over budget, too slow. */
static void put_none(const plan_question *q, const plan_answer *a, long gpus, char *buf, size_t len_B, size_t *at)
{
	char m[32], t[32];
	bool budget = !isnan(q->budget_usd), deadline = !isnan(q->deadline_s);
	if (a->nextrapolated && !q->extrapolate && !a->near_miss) {
		double max_b = a->conv_max_batch;
		put(buf, len_B, at, "Nothing to recommend for %ld GPUs: even at 8 images per GPU the global batch (%ld) is "
				    "above the largest measured convergence point (%.0f): the epochs it needs are unknown "
				    "(extrapolated, they grow with the batch faster than the GPUs shorten an epoch). "
				    "Data-parallel ResNet-50 stays inside the measured convergence data up to about %.0f GPUs "
				    "at 8 images each (%.0f at 32, where a GPU still runs near its speed); --extrapolate ranks "
				    "these anyway.", gpus, gpus * 8, max_b, floor(max_b / 8), floor(max_b / 32));
		return;
	}
	if (budget && deadline)
		put(buf, len_B, at, "No option for %ld GPUs has a %s within the budget of %s and reaches accuracy within %s "
				    "(at the prediction): %d over budget, %d past the deadline, %d without a %s price.", gpus,
		    plan_cost_name(q->cost), plan_fmt_usd(q->budget_usd, m, sizeof m),
		    plan_fmt_duration(q->deadline_s, t, sizeof t), a->nfail_budget, a->nfail_deadline, a->nfail_price,
		    plan_cost_name(q->cost));
	else if (budget)
		put(buf, len_B, at, "No option for %ld GPUs has a %s within the budget of %s (unpriced systems cannot "
				    "qualify: an --hwdb overlay adds your quote).", gpus, plan_cost_name(q->cost),
		    plan_fmt_usd(q->budget_usd, m, sizeof m));
	else if (deadline)
		put(buf, len_B, at, "No priced option for %ld GPUs reaches accuracy within %s (at the prediction).", gpus,
		    plan_fmt_duration(q->deadline_s, t, sizeof t));
	else if (q->goal == PLAN_COST)
		put(buf, len_B, at, "No option for %ld GPUs has a %s in the database.", gpus, cost_words(q->cost));
	else if (gpus > 0)
		put(buf, len_B, at, "No placement of %ld GPUs fits in GPU memory.", gpus);
	else
		put(buf, len_B, at, "No configuration to answer with.");
	if (a->near_miss)
		put_misses(q, a, buf, len_B, at);
}

/* Fastest, cheapest and best value, each with what it costs over the recommendation. */
static void put_trio(const plan_question *q, const plan_answer *a, char *buf, size_t len_B, size_t *at)
{
	const plan_option *w = a->winner;
	const struct { const char *name; const plan_option *o; } t[] = {
		{"Fastest", a->fastest}, {"Cheapest", a->cheapest}, {"Best value (knee of the time-cost front)", a->best_value},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (!t[i].o)
			continue;
		put(buf, len_B, at, " %s: ", t[i].name);
		if (t[i].o == w) { /* named, not "the same": a label names its option */
			put_short(q, t[i].o, buf, len_B, at);
			put(buf, len_B, at, ", the pick.");
			continue;
		}
		put_short(q, t[i].o, buf, len_B, at);
		put(buf, len_B, at, ", ");
		put_relation(q, t[i].o, w, buf, len_B, at);
		put(buf, len_B, at, ".");
	}
}

static void put_scale(const plan_question *q, const plan_answer *a, char *buf, size_t len_B, size_t *at)
{
	if (a->like_for_like_none || !a->best_up) {
		put(buf, len_B, at, " Scale up vs out: no GPU here comes in placements over fewer and more NVLink "
				    "domains (compared within one GPU record, so that only the topology differs).");
		return;
	}
	const plan_option *u = a->best_up, *o = a->best_out;
	bool overlap = plan_times_tied(q, u, o);
	const plan_option *pick = overlap ? (run_cheaper(q, u, o) ? u : o) : faster(q, u, o) ? u : o;
	const plan_option *fast = faster(q, u, o) ? u : o, *slow = fast == u ? o : u;
	put(buf, len_B, at, " Scale %s (%s alike): %d NVLink domain%s ", pick == u ? "up" : "out", u->sc.node.gpu_id,
	    u->v.domains, u->v.domains > 1 ? "s" : "");
	put_short(q, u, buf, len_B, at);
	put(buf, len_B, at, ", %d ", o->v.domains);
	put_short(q, o, buf, len_B, at);
	put(buf, len_B, at, ": %s %dx%d ", fast->sc.node.system_id, fast->sc.nodes, fast->sc.node.gpus_per_node);
	put_relation(q, fast, slow, buf, len_B, at);
	put(buf, len_B, at, "%s.", overlap ? ", not surely apart, so the cheaper per run" : ", surely apart, so the faster");
}

static void put_buy_rent(const plan_question *q, const plan_answer *a, char *buf, size_t len_B, size_t *at)
{
	const plan_buy_rent *b = &a->buy_rent;
	char m1[32], m2[32], m3[32];
	size_t cl = chip_len(a->winner->sc.node.gpu_id);
	(void)q;
	if (!b->buy || !b->rent_id) {
		put(buf, len_B, at, " Buy vs rent (%.*s): %s.", (int)cl, a->winner->sc.node.gpu_id,
		    !b->buy ? "no bought option with a capex among these"
			    : "no system of this GPU with a rental rate (at this --rent-term) in the database");
		return;
	}
	put(buf, len_B, at, " Buy vs rent (%s): owning %s %dx%d costs %s a run at the stated use, renting the same GPUs "
			    "(%s, %s per GPU-hour) %s; ", b->buy->sc.node.gpu_id, b->buy->sc.node.system_id,
	    b->buy->sc.nodes, b->buy->sc.node.gpus_per_node, plan_fmt_usd(b->owner_usd_run, m1, sizeof m1), b->rent_id,
	    plan_fmt_usd(b->rent_usd_gpu_h, m3, sizeof m3), plan_fmt_usd(b->rent_usd_run, m2, sizeof m2));
	if (!isfinite(b->breakeven_runs_month) || b->breakeven_runs_month > b->max_runs_month)
		put(buf, len_B, at, "buying never wins (break-even above the %.0f runs a month the cluster can do).",
		    b->max_runs_month);
	else
		put(buf, len_B, at, "buying wins above %.1f runs a month (%.0f%% use; at most %.0f back to back).",
		    b->breakeven_runs_month, 100 * b->breakeven_runs_month / b->max_runs_month, b->max_runs_month);
}

char *plan_answer_text(const plan_question *q, const plan_answer *a, long gpus, char *buf, size_t len_B)
{
	size_t at = 0;
	char m[32], t[32];
	buf[0] = '\0';
	if (!a->winner) {
		put_none(q, a, gpus, buf, len_B, &at);
		return buf;
	}
	const char *tied = a->tied_faster ? " (faster ones are not surely faster; the cheapest per run of those no option surely beats)" : "";
	char sure[96];
	if (a->winner->v.deadline_sure)
		snprintf(sure, sizeof sure, "with 90%% confidence");
	else
		snprintf(sure, sizeof sure, "at the prediction only, probability %.0f%%: none with 90%% confidence",
			 100 * a->winner->v.deadline_p);
	if (!isnan(q->deadline_s) && !isnan(q->budget_usd))
		put(buf, len_B, &at, "Fastest within the budget of %s (%s) to reach accuracy within %s (%s)%s: ",
		    plan_fmt_usd(q->budget_usd, m, sizeof m), plan_cost_name(q->cost), plan_fmt_duration(q->deadline_s, t, sizeof t),
		    sure, tied);
	else if (!isnan(q->deadline_s))
		put(buf, len_B, &at, "Cheapest (%s) to reach accuracy within %s (%s): ", cost_words(q->cost),
		    plan_fmt_duration(q->deadline_s, t, sizeof t), sure);
	else if (!isnan(q->budget_usd))
		put(buf, len_B, &at, "Fastest within the budget of %s (%s)%s: ", plan_fmt_usd(q->budget_usd, m, sizeof m),
		    plan_cost_name(q->cost), tied);
	else if (gpus > 0)
		put(buf, len_B, &at, "Best by %s for %ld GPUs%s: ", plan_goal_name(q), gpus, tied);
	else
		put(buf, len_B, &at, "Best by %s over every GPU count of the grid%s: ", plan_goal_name(q), tied);
	put_option(q, a->winner, buf, len_B, &at);
	put(buf, len_B, &at, ".");
	if (!isnan(q->deadline_s))
		put(buf, len_B, &at, " Deadline: %d option%s meet%s it with 90%% confidence, %d at the prediction only (column "
				     "deadline_p: the probability).", a->ndeadline_sure, a->ndeadline_sure == 1 ? "" : "s",
		    a->ndeadline_sure == 1 ? "s" : "", a->ndeadline_likely);
	if (a->tied_faster) {
		double x, lo, hi;
		plan_time_ratio(q, a->tied_faster, a->winner, &x, &lo, &hi);
		put(buf, len_B, &at, " A tie broken by cost per run: ");
		put_short(q, a->tied_faster, buf, len_B, &at);
		put(buf, len_B, &at, " ");
		put_relation(q, a->tied_faster, a->winner, buf, len_B, &at);
		put(buf, len_B, &at, ", not surely faster: the 90%% interval of its time over %s's, %.2f-%.2f, holds 1.",
		    a->winner->sc.node.system_id, lo, hi);
	}
	put_trio(q, a, buf, len_B, &at);
	if (gpus > 0) /* over several GPU counts (sweep's overall answer) scale up vs out is not one question */
		put_scale(q, a, buf, len_B, &at);
	put_buy_rent(q, a, buf, len_B, &at);
	return buf;
}
