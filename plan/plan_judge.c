/* plan_judge.c: one option against the question: its time with the 90% interval, its cost, the constraints it
 * fails and by how much, the order of a table, and when one option is surely faster than another (the 90%
 * interval of their time ratio below 1: model_ratio) - the judging compare, report and sweep share.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "plan/plan_internal.h"

void plan_question_init(plan_question *q)
{
	memset(q, 0, sizeof(*q));
	q->goal = PLAN_TTA;
	q->cost = PLAN_RUN;
	q->budget_usd = NAN;
	q->deadline_s = NAN;
	q->site_W = NAN;
	q->tie_band = 0.05; /* validate --group whole-run: the model's time-to-train error on whole runs */
}

double plan_cost_usd(plan_cost c, const model_cost *cost)
{
	if (c == PLAN_RUN) /* owned: the owner's month over its runs; rented: the month's rent over the same runs,
			    * over the same horizon (rent_horizon_usd: rent_usd as the market's rent falls) */
		return isfinite(cost->capex_usd) ? cost->tco_usd : cost->rent_horizon_usd;
	return c == PLAN_RENT ? cost->rent_usd : c == PLAN_TCO ? cost->tco_usd : cost->capex_usd;
}

const char *plan_cost_name(plan_cost c)
{
	return c == PLAN_RUN ? "run" : c == PLAN_RENT ? "rent" : c == PLAN_TCO ? "tco" : "capex";
}

int plan_cost_parse(const char *s)
{
	return strcmp(s, "run") == 0 ? PLAN_RUN : strcmp(s, "capex") == 0 ? PLAN_CAPEX
	       : strcmp(s, "tco") == 0 ? PLAN_TCO : strcmp(s, "rent") == 0 ? PLAN_RENT : -1;
}

plan_unpriced plan_cost_unpriced(plan_cost c, const model_scenario *sc, const model_cost *cost)
{
	const model_price *pr = &sc->price;
	if (isfinite(plan_cost_usd(c, cost)))
		return PLAN_PRICED;
	if (c == PLAN_RUN) /* neither bought nor rented at a price: why the rent is missing where a rate exists */
		return isfinite(pr->rent_usd_gpu_h) ? plan_cost_unpriced(PLAN_RENT, sc, cost) : PLAN_NO_PRICE;
	if (c != PLAN_RENT) /* the owner's cost is the capex's share: unpriced where the capex is */
		return PLAN_NO_PRICE;
	if (!isfinite(pr->rent_usd_gpu_h))
		return PLAN_NO_RATE;
	if (pr->rent_max_gpus > 0 && cost->rent_gpus > pr->rent_max_gpus) /* model_money.c rent_billed */
		return PLAN_RENT_LIMIT;
	return PLAN_NO_TIME;
}

const char *plan_unpriced_text(plan_unpriced k, const model_price *pr, char *buf, size_t len_B)
{
	const char *t = "";
	switch (k) {
	case PLAN_NO_PRICE: t = "no purchase price in the database"; break;
	case PLAN_NO_RATE:
		t = pr->rent_spot ? "no spot rate in the database"
		    : pr->rent_reserved ? "no reserved rate for this --rent-term in the database"
				       : "no on-demand rental rate in the database";
		break;
	case PLAN_RENT_LIMIT:
		snprintf(buf, len_B, "the provider rents at most %d GPUs at this rate (one instance) and the database "
			 "has no rate for more", pr->rent_max_gpus);
		return buf;
	case PLAN_NO_TIME: t = "the run has no time to bill"; break;
	default: break;
	}
	snprintf(buf, len_B, "%s", t);
	return buf;
}

const char *plan_cost_words(plan_cost c)
{
	return c == PLAN_RUN ? "cost per run" : c == PLAN_RENT ? "rent for the run" : c == PLAN_TCO ? "owner's cost per run"
													: "capex";
}

bool plan_cost_first(const plan_question *q)
{
	return q->goal == PLAN_COST || (!isnan(q->deadline_s) && isnan(q->budget_usd));
}

bool plan_ttt_goal(const plan_question *q)
{
	return q->goal == PLAN_TTT;
}

static const char *time_words(const plan_question *q)
{
	return plan_ttt_goal(q) ? "time to train (MLPerf-scored)" : "time to accuracy";
}

const char *plan_goal_name(const plan_question *q)
{
	if (plan_cost_first(q))
		return plan_cost_words(q->cost);
	return q->goal == PLAN_GRID ? "grid order" : time_words(q);
}

const char *plan_order_text(const plan_question *q, char *buf, size_t len_B)
{
	if (q->goal == PLAN_GRID)
		snprintf(buf, len_B, "grid order");
	else if (plan_cost_first(q))
		snprintf(buf, len_B, "%s, then %s; options that do not qualify (column meets) after those that do",
			 plan_cost_words(q->cost), time_words(q));
	else
		snprintf(buf, len_B, "%s, then %s; options that do not qualify (column meets) after those that do",
			 time_words(q), plan_cost_words(q->cost));
	return buf;
}

/* ---- one option against the question ---- */

void plan_time_interval(const plan_question *q, const model_result *r, double *lo_s, double *hi_s)
{
	double t = plan_ttt_goal(q) ? r->ttt_s : r->tta_s;
	double lo = plan_ttt_goal(q) ? r->ttt_lo_s : r->tta_lo_s, hi = plan_ttt_goal(q) ? r->ttt_hi_s : r->tta_hi_s;
	if (!(lo < hi)) { /* no interval applied (lo == hi == point): the model's stated whole-run error */
		lo = t * (1 - q->tie_band);
		hi = t * (1 + q->tie_band);
	}
	*lo_s = lo;
	*hi_s = hi;
}

bool plan_needs_price(const plan_question *q)
{
	return q->cost != PLAN_CAPEX || plan_cost_first(q);
}

/* GPUs bought and not used: whole units of unit_nodes nodes where the system has a purchase price (an NVL72
 * rack), else whole nodes (rented or priced by the node). */
static int idle_gpus(const model_scenario *sc, const model_cost *cost)
{
	const model_node *n = &sc->node;
	int per_node = n->max_gpus_per_node > 0 ? n->max_gpus_per_node : n->gpus_per_node;
	long nodes = isfinite(cost->capex_usd) ? model_nodes_bought(sc) : sc->nodes;
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

void plan_judge(const plan_question *q, const model_scenario *sc, const model_result *r, const model_cost *cost,
		plan_verdict *v)
{
	double t = plan_ttt_goal(q) ? r->ttt_s : r->tta_s;
	memset(v, 0, sizeof(*v));
	v->time_s = r->fits && isfinite(t) ? t : INFINITY;
	if (isfinite(v->time_s))
		plan_time_interval(q, r, &v->time_lo_s, &v->time_hi_s);
	else
		v->time_lo_s = v->time_hi_s = INFINITY;
	v->cost_usd = plan_cost_usd(q->cost, cost);
	if (!isfinite(v->cost_usd))
		v->cost_usd = NAN;
	v->run_cost_usd = plan_cost_usd(PLAN_RUN, cost);
	if (!isfinite(v->run_cost_usd))
		v->run_cost_usd = NAN;
	if (!r->fits)
		v->fails |= PLAN_FAIL_MEMORY;
	if (r->fits && r->extrapolated && !q->extrapolate)
		v->fails |= PLAN_FAIL_EXTRAPOLATED; /* epochs beyond the measured convergence range: listed, not recommended */
	if (plan_needs_price(q) && isnan(v->cost_usd))
		v->fails |= PLAN_FAIL_PRICE;
	/* the budget caps what is bought: a capex; a rental (no capex) is outside it, whatever --cost compares */
	if (!isnan(q->budget_usd) && isfinite(cost->capex_usd) && cost->capex_usd > q->budget_usd) {
		v->fails |= PLAN_FAIL_BUDGET;
		v->over_budget_usd = cost->capex_usd - q->budget_usd;
	}
	/* the site's power caps what is bought, on its peak draw (the facility is sized to it); rentals are off site */
	if (!isnan(q->site_W) && isfinite(cost->capex_usd) && isfinite(cost->power_max_W) && cost->power_max_W > q->site_W) {
		v->fails |= PLAN_FAIL_SITE;
		v->over_site_W = cost->power_max_W - q->site_W;
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
	v->idle_gpus = idle_gpus(sc, cost);
	int d = model_domain_gpus(sc);
	v->domains = d > 0 ? (sc->nodes * sc->node.gpus_per_node + d - 1) / d : sc->nodes;
}

int plan_num_cmp(double a, double b)
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
	int c = plan_cost_first(q) ? plan_num_cmp(a->cost_usd, b->cost_usd) : plan_num_cmp(a->time_s, b->time_s);
	if (c)
		return c;
	return plan_cost_first(q) ? plan_num_cmp(a->time_s, b->time_s) : plan_num_cmp(a->cost_usd, b->cost_usd);
}

/* A duration in the unit plan_fmt_duration gives ref_s (the deadline), so that every row's lateness against one
 * deadline is in one unit ("1.8 min" beside "2.0 min", not "109.4 s" beside it). */
static char *fmt_duration_as(double s, double ref_s, char *buf, size_t len_B)
{
	if (!isfinite(s) || !isfinite(ref_s))
		return plan_fmt_duration(s, buf, len_B);
	if (ref_s < 120)
		snprintf(buf, len_B, "%.1f s", s);
	else if (ref_s < 7200)
		snprintf(buf, len_B, "%.1f min", s / 60);
	else if (ref_s < 3 * 86400)
		snprintf(buf, len_B, "%.1f h", s / 3600);
	else
		snprintf(buf, len_B, "%.1f days", s / 86400);
	return buf;
}

const char *plan_fails_text(const plan_question *q, const plan_verdict *v, strbuf *out)
{
	char m[32], t[32];
	if (!v->fails) {
		strbuf_addf(out, "%s", plan_needs_price(q) ? "meets" : "-");
		return out->s;
	}
	size_t from_B = out->len_B; /* " and " between this verdict's failures, not after text already in out */
#define AND (out->len_B > from_B ? " and " : "")
	if (v->fails & PLAN_FAIL_MEMORY)
		strbuf_addf(out, "%sno fit (memory)", AND);
	if (v->fails & PLAN_FAIL_EXTRAPOLATED)
		strbuf_addf(out, "%sbeyond measured convergence", AND);
	if (v->fails & PLAN_FAIL_PRICE)
		strbuf_addf(out, q->cost == PLAN_RUN ? "%sno price" : "%sno %s price", AND, plan_cost_name(q->cost));
	if (v->fails & PLAN_FAIL_BUDGET)
		strbuf_addf(out, "%sover budget by %s", AND, plan_fmt_usd(v->over_budget_usd, m, sizeof m));
	if (v->fails & PLAN_FAIL_DEADLINE)
		strbuf_addf(out, "%smisses deadline by %s", AND, fmt_duration_as(v->late_s, q->deadline_s, t, sizeof t));
	if (v->fails & PLAN_FAIL_SITE)
		strbuf_addf(out, "%spower %.0f kW at peak over the site's %.0f kW", AND, (q->site_W + v->over_site_W) / 1e3,
			    q->site_W / 1e3);
#undef AND
	return out->s;
}

void plan_option_judge(const plan_question *q, plan_option *w)
{
	plan_judge(q, &w->sc, &w->r, &w->cost, &w->v);
	w->ok = w->v.fails == 0;
	w->partial = w->sc.node.max_gpus_per_node > w->sc.node.gpus_per_node;
}

int plan_option_cmp(const plan_question *q, const plan_option *x, const plan_option *y)
{
	int c = plan_verdict_cmp(q, &x->v, &y->v);
	if (c)
		return c;
	if (x->v.domains != y->v.domains)
		return x->v.domains < y->v.domains ? -1 : 1;
	if (x->sc.nodes != y->sc.nodes)
		return x->sc.nodes < y->sc.nodes ? -1 : 1;
	c = strcmp(x->sc.node.system_id, y->sc.node.system_id);
	if (c || x->sc.node.gpus_per_node == y->sc.node.gpus_per_node)
		return c;
	return x->sc.node.gpus_per_node > y->sc.node.gpus_per_node ? -1 : 1;
}

static int option_qcmp(const void *a, const void *b, void *q)
{
	return plan_option_cmp(q, a, b);
}

void plan_options_sort(const plan_question *q, plan_option *o, int n)
{
	sort_stable(o, (size_t)n, sizeof(*o), option_qcmp, (void *)q);
}

bool plan_same_hardware(const model_scenario *a, const model_scenario *b)
{
	const model_node *x = &a->node, *y = &b->node;
	bool multi = a->nodes > 1;
	bool host = x->host_links == y->host_links || !x->host_links || !y->host_links; /* 0: not in our sources */
	return strcmp(x->gpu_id, y->gpu_id) == 0 && x->gpus_per_node == y->gpus_per_node && a->nodes == b->nodes &&
	       model_domain_gpus(a) == model_domain_gpus(b) && x->intra_nvlink == y->intra_nvlink &&
	       x->intra_bw_Bps == y->intra_bw_Bps && host && a->precision == b->precision &&
	       strcmp(a->stack.id ? a->stack.id : "", b->stack.id ? b->stack.id : "") == 0 &&
	       (!multi || x->nic_Bps * x->nics_per_node == y->nic_Bps * y->nics_per_node);
}

void plan_ratio(const model_scenario *a, const model_result *ra, const model_scenario *b, const model_result *rb,
		model_quantity qty, double *x, double *lo, double *hi)
{
	model_ratio(a, ra, b, rb, qty, x, lo, hi);
	if (isfinite(*x) && model_ratio_differs(a, b) && plan_same_hardware(a, b)) { /* two vendors' same hardware */
		*lo = *x / PLAN_SAME_HW_X;
		*hi = *x * PLAN_SAME_HW_X;
	}
}

void plan_time_ratio(const plan_question *q, const plan_option *a, const plan_option *b, double *x, double *lo,
		     double *hi)
{
	plan_ratio(&a->sc, &a->r, &b->sc, &b->r, plan_ttt_goal(q) ? MODEL_Q_TTT : MODEL_Q_TTA, x, lo, hi);
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

/* Whether x folds into the shown option r: offers of the same hardware with the same predicted times and the same
 * failures; only their money differs. */
static bool folds_into(const plan_option *x, const plan_option *r)
{
	return plan_same_hardware(&x->sc, &r->sc) && x->r.tta_s == r->r.tta_s && x->r.ttt_s == r->r.ttt_s &&
	       x->v.fails == r->v.fails && x->partial == r->partial;
}

int plan_fold(const plan_option *o, int n, const plan_option *keep, int *fold)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		fold[i] = -1;
		for (int j = 0; &o[i] != keep && j < i && fold[i] < 0; j++)
			if (fold[j] < 0 && folds_into(&o[i], &o[j]))
				fold[i] = j;
		k += fold[i] >= 0;
	}
	return k;
}

double plan_run_cost_usd(const plan_option *w)
{
	return w->v.run_cost_usd;
}

int plan_front(const plan_verdict *const *v, int n, bool *keep)
{
	double least = INFINITY, least_run = INFINITY;
	int k = 0;
	for (int i = 0; i < n; i++) {
		double c = isfinite(v[i]->cost_usd) ? v[i]->cost_usd : INFINITY;
		double r = isfinite(v[i]->run_cost_usd) ? v[i]->run_cost_usd : INFINITY;
		keep[i] = i == 0 || c < least || r < least_run;
		least = fmin(least, c);
		least_run = fmin(least_run, r);
		k += keep[i];
	}
	return k;
}
