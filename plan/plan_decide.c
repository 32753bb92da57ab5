/* plan_decide.c: the options (each placement of plan_place.c resolved, predicted and judged by plan_judge.c) and
 * the one decision compare, report, sweep and the page render (PLAN_RULE, plan.h): among the options that meet
 * the constraints, the fastest on the point prediction; those whose time over the fastest's has a 90% interval
 * (plan_time_ratio: model_ratio, a same-hardware pair's own) holding 1 are as fast as it; the pick is the cheapest
 * of those on the time-cost front (the cost compared; an option without it counts as the dearest). So the pick is
 * never beaten on both time and cost, and removing an option off the front, not the pick, leaves it alone (the
 * fastest, the front and each option's own ratio to the fastest stay). Money-first questions (--rank-by cost, a
 * deadline alone) pick the cheapest. Scale up vs out is asked of one GPU record, else of one chip with the GPU's
 * part apart (gpus.csv chip); buy vs rent of the pick's chip. Words: plan_text.c.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

/* ---- the options: each placement resolved, predicted and judged ---- */

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
	model_price_run(&w->sc, p, &w->r, &w->cost);
	plan_option_judge(q, w);
	const hw_gpu *g = hw_gpu_find(db, w->sc.node.gpu_id);
	w->generation = hw_gpu_generation(g);
	w->chip = g && g->chip && *g->chip ? g->chip : w->sc.node.gpu_id;
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

/* Whether two options carry one GPU record (the same database id: one board, one clock, one power): scale up
 * against scale out compares topology alone only then (a GB200 at 1.2 kW is not a DGX B200's 1 kW B200). */
static bool same_gpu(const plan_option *a, const plan_option *b)
{
	return strcmp(a->sc.node.gpu_id, b->sc.node.gpu_id) == 0;
}

/* Whether two options carry one chip (gpus.csv chip), whatever its package: the same GPU model for scale up vs
 * out and for buy vs rent. */
static bool same_chip(const plan_option *a, const plan_option *b)
{
	return strcasecmp(a->chip, b->chip) == 0;
}

/* Time first: less time, then less money, then the table's order. */
static bool faster(const plan_question *q, const plan_option *a, const plan_option *b)
{
	int c = plan_num_cmp(a->v.time_s, b->v.time_s);
	if (!c)
		c = plan_num_cmp(a->v.cost_usd, b->v.cost_usd);
	return c ? c < 0 : plan_option_cmp(q, a, b) < 0;
}

/* What an option commits before its first run: its capex; a rental commits none. */
static double committed_usd(const plan_option *w)
{
	return isfinite(w->cost.capex_usd) ? w->cost.capex_usd : 0.0;
}

/* Money first: less money (the cost compared), then the option committing less (a rental before a purchase),
 * then less time, then the table's order (which ends in the system's id): never the order options came in. */
static bool cheaper(const plan_question *q, const plan_option *a, const plan_option *b)
{
	int c = plan_num_cmp(a->v.cost_usd, b->v.cost_usd);
	if (!c)
		c = plan_num_cmp(committed_usd(a), committed_usd(b));
	if (!c)
		c = plan_num_cmp(a->v.time_s, b->v.time_s);
	return c ? c < 0 : plan_option_cmp(q, a, b) < 0;
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


/* The cost compared as a number to order by: none is the dearest. */
static double cost_of(const plan_option *w)
{
	return isfinite(w->v.cost_usd) ? w->v.cost_usd : INFINITY;
}

/* Whether x beats w on both axes: at least as fast (point) and at most as costly, one of them strictly. */
static bool dominates(const plan_option *x, const plan_option *w)
{
	double tx = x->v.time_s, tw = w->v.time_s, cx = cost_of(x), cw = cost_of(w);
	return tx <= tw && cx <= cw && (tx < tw || cx < cw);
}

/* front: each qualifying option no qualifying option dominates. O(n^2). */
static int mark_front(plan_option *o, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		o[i].front = o[i].ok;
		for (int j = 0; j < n && o[i].front; j++)
			if (j != i && o[j].ok && dominates(&o[j], &o[i]))
				o[i].front = false;
		k += o[i].front;
	}
	return k;
}

/* as_fast: each qualifying option whose time over the fastest's has a 90% interval holding 1 (the fastest too). */
static int mark_as_fast(const plan_question *q, plan_option *o, int n, const plan_option *f)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		double x, lo, hi;
		o[i].as_fast = false;
		if (!o[i].ok)
			continue;
		if (&o[i] == f)
			o[i].as_fast = true;
		else {
			plan_time_ratio(q, &o[i], f, &x, &lo, &hi);
			o[i].as_fast = lo <= 1.0 && 1.0 <= hi;
		}
		k += o[i].as_fast;
	}
	return k;
}

/* The pick of PLAN_RULE: the cheapest (then fastest, then first in table order) of the options as fast as the
 * fastest that are on the front; the fastest always is (nothing is faster, and it is the cheapest of equal time). */
static const plan_option *rule_pick(const plan_question *q, const plan_option *o, int n)
{
	const plan_option *pick = NULL;
	for (int i = 0; i < n; i++)
		if (o[i].front && o[i].as_fast && (!pick || cheaper(q, &o[i], pick)))
			pick = &o[i];
	return pick;
}

/* How alike two options' GPUs must be for scale up vs out, closest first; any GPU last, so that the question is
 * answered wherever placements over fewer and more NVLink domains exist (the GPU's part stated apart). */
enum { SCALE_RECORD, SCALE_CHIP, SCALE_GENERATION, SCALE_ANY, SCALE_NLEVELS };

/* Whether two options match at that level: one GPU record, one chip, one generation, or any. */
static bool scale_match(const plan_option *a, const plan_option *b, int level)
{
	if (level == SCALE_RECORD)
		return same_gpu(a, b);
	if (level == SCALE_CHIP)
		return same_chip(a, b);
	if (level == SCALE_GENERATION)
		return a->generation && b->generation && strcasecmp(a->generation, b->generation) == 0;
	return true;
}

/* For like's GPU (record) or chip among the qualified options: the fastest of those spanning the fewest NVLink
 * domains (scale up) and the fastest of those spanning more (scale out). */
static bool pair_of(const plan_question *q, const plan_option *o, int n, const plan_option *like, int record,
		    const plan_option **up, const plan_option **out)
{
	int fewest = INT_MAX;
	*up = *out = NULL;
	for (int i = 0; i < n; i++)
		if (o[i].ok && scale_match(&o[i], like, record) && o[i].v.domains < fewest)
			fewest = o[i].v.domains;
	for (int i = 0; i < n; i++) {
		const plan_option *w = &o[i];
		if (!w->ok || !scale_match(w, like, record))
			continue;
		if (w->v.domains == fewest && (!*up || faster(q, w, *up)))
			*up = w;
		if (w->v.domains > fewest && (!*out || faster(q, w, *out)))
			*out = w;
	}
	return *up && *out;
}

/* The pair to weigh: the pick's GPU record, else its chip in two packages, else its generation; else (closest
 * level first) the pair holding the fastest option; else any GPU: the fastest over the fewest domains against
 * the fastest over more. */
static void scale_pair(const plan_question *q, const plan_option *o, int n, const plan_option *winner, plan_scale *s)
{
	const plan_option *up, *out;
	int found = -1;
	for (int level = 0; level < SCALE_ANY && found < 0; level++)
		if (pair_of(q, o, n, winner, level, &s->up, &s->out))
			found = level;
	for (int level = 0; level < SCALE_ANY && found < 0; level++) {
		s->up = s->out = NULL;
		for (int i = 0; i < n; i++) {
			if (!o[i].ok || scale_match(&o[i], winner, level) || !pair_of(q, o, n, &o[i], level, &up, &out))
				continue;
			const plan_option *f = faster(q, up, out) ? up : out;
			if (!s->up || faster(q, f, faster(q, s->up, s->out) ? s->up : s->out)) {
				s->up = up;
				s->out = out;
				found = level;
			}
		}
	}
	if (found < 0 && pair_of(q, o, n, winner, SCALE_ANY, &s->up, &s->out))
		found = SCALE_ANY;
	if (found < 0) {
		s->up = s->out = NULL;
		return;
	}
	s->same_gpu = found == SCALE_RECORD;
	s->generation = found == SCALE_GENERATION ? s->up->generation : NULL;
	s->any_gpu = found == SCALE_ANY; /* no closer pair anywhere: two chips of two generations */
}

/* With no placement over more NVLink domains than another: the pick against the fastest option of another GPU
 * record, closest first (its chip in another package, its generation, any), over as many domains. */
static bool gpu_pair(const plan_question *q, const plan_option *o, int n, const plan_option *winner, plan_scale *s)
{
	for (int level = SCALE_CHIP; level < SCALE_NLEVELS && !s->out; level++)
		for (int i = 0; i < n; i++)
			if (o[i].ok && !same_gpu(&o[i], winner) && scale_match(&o[i], winner, level) &&
			    (!s->out || faster(q, &o[i], s->out))) {
				s->out = &o[i];
				s->generation = level == SCALE_GENERATION ? winner->generation : NULL;
				s->any_gpu = level == SCALE_ANY;
			}
	if (!s->out)
		return false;
	s->up = winner;
	s->same_domains = true;
	return true;
}

/* Compute time per image of one GPU: what the GPU alone gives a placement. */
static double gpu_s_image(const plan_option *w)
{
	return w->sc.batch_per_gpu > 0 ? w->r.compute_s / w->sc.batch_per_gpu : NAN;
}

/* Scale up against scale out: the pair, their time ratio, the verdict (the faster; where the interval holds 1,
 * the cheaper), and with two GPU records the GPU's part of the ratio apart from the topology's. */
static void decide_scale(const plan_question *q, const plan_option *o, int n, plan_answer *a)
{
	plan_scale *s = &a->scale;
	scale_pair(q, o, n, a->winner, s);
	if (!s->up) { /* every qualifying option spans as many NVLink domains: the GPU is what differs */
		s->domains = a->winner->v.domains;
		if (!gpu_pair(q, o, n, a->winner, s))
			return;
	}
	plan_time_ratio(q, s->up, s->out, &s->time_x, &s->lo_x, &s->hi_x);
	s->tied = s->lo_x <= 1.0 && 1.0 <= s->hi_x;
	s->pick = s->tied ? (cheaper(q, s->up, s->out) ? s->up : s->out) : (faster(q, s->up, s->out) ? s->up : s->out);
	s->gpu_x = s->same_gpu ? 1.0 : gpu_s_image(s->up) / gpu_s_image(s->out);
	if (!isfinite(s->gpu_x) || !(s->gpu_x > 0))
		s->gpu_x = NAN;
	s->topo_x = s->time_x / s->gpu_x;
}

/* The rental the buy-vs-rent line weighs where the options hold one: the cheapest rented option (its cost per
 * run over the horizon) of the bought one's chip and GPU count, so that the line and the pick weigh the same
 * figures (NULL: none among them; a quote in hand, --rent-rate, is weighed instead). */
static const plan_option *rental_row(const plan_option *o, int n, const plan_option *buy)
{
	const plan_option *best = NULL;
	if (buy->sc.price.ref_rent_id && strcmp(buy->sc.price.ref_rent_id, PLAN_QUOTE_ID) == 0)
		return NULL;
	for (int i = 0; i < n; i++)
		if (o[i].r.fits && o[i].r.gpus == buy->r.gpus && !isfinite(o[i].cost.capex_usd) &&
		    isfinite(o[i].cost.rent_horizon_usd) && same_chip(&o[i], buy) &&
		    (!best || o[i].cost.rent_horizon_usd < best->cost.rent_horizon_usd))
			best = &o[i];
	return best;
}

/* Buy against rent for the winner's GPU: the winner (or the fastest option of its GPU model with a capex)
 * bought, against the cheapest rental of its GPU that plan_resolve found (ref_rent_*): the bought option's own
 * figures (model_result's break-even), the ones predict, compare's CSV, report and sweep print. */
static void buy_rent(const plan_question *q, const plan_option *o, int n, plan_answer *a)
{
	plan_buy_rent *b = &a->buy_rent;
	const plan_option *w = a->winner;
	for (int i = 0; i < n; i++) {
		const plan_option *x = &o[i];
		if (!x->r.fits || !same_chip(x, w) || !isfinite(x->cost.capex_usd) || b->buy == w || x->r.gpus != w->r.gpus)
			continue; /* the same GPUs bought: one count (several counts are one question, one count answers) */
		/* the winner itself, else one of its very GPU (a rented winner: the same GPU bought), else the fastest */
		bool exact = strcmp(x->sc.node.gpu_id, w->sc.node.gpu_id) == 0;
		bool b_exact = b->buy && strcmp(b->buy->sc.node.gpu_id, w->sc.node.gpu_id) == 0;
		if (!b->buy || x == w || (exact && !b_exact) || (exact == b_exact && faster(q, x, b->buy)))
			b->buy = x;
	}
	if (!b->buy || !b->buy->sc.price.ref_rent_id)
		return;
	const model_scenario *sc = &b->buy->sc;
	b->rent_id = sc->price.ref_rent_id;
	b->rent_usd_gpu_h = sc->price.ref_rent_usd_gpu_h;
	b->owner_usd_run = b->buy->cost.tco_usd;
	b->rent_today_usd_run = model_ref_rent_usd(sc, &b->buy->r, &b->buy->cost);
	b->rent_term_years = sc->price.rent_term_years;
	b->rent_usd_run = b->rent_today_usd_run * model_rent_horizon_factor(&sc->money, b->rent_term_years);
	b->rent_setup_s = b->buy->cost.rent_setup_s;
	b->rent_lo_usd_gpu_h = sc->price.ref_rent_market_usd_gpu_h;
	/* one comparison of a month of work (model_buy_rent_eval) against the same runs rented at the reference rate:
	 * the crossing, its side and the flip rate - the bought option's own figures, as model_run_money gives
	 * predict and the CSV (breakeven_runs_per_month, buy_wins_above, flip_usd_gpu_h) */
	model_cost lo = b->buy->cost;
	model_buy_rent m;
	lo.rent_usd = b->rent_usd_run;
	model_buy_rent_eval(sc, &b->buy->r, &b->buy->cost, sc, &b->buy->r, &lo, b->rent_usd_gpu_h, &m);
	b->max_runs_month = m.max_runs_month;
	b->breakeven_runs_month = m.breakeven_runs_month;
	b->buy_wins_above = m.buy_wins_above;
	b->flip_usd_gpu_h = m.flip_usd_gpu_h;
	b->rent_wins = m.rent_wins;
	/* where the rental is an option here, the run rented is its row's, as billed (increments, minimum, its own
	 * run): the answer's figures are the table's, and at the stated use the cheaper of the two figures it
	 * prints wins (rent is linear in its rate: the flip rate from the same two figures) */
	const plan_option *row = rental_row(o, n, b->buy);
	if (row) {
		const model_node *rn = &row->sc.node;
		const model_price *pr = &row->sc.price;
		bool cluster = pr->rent_max_gpus > 0 && row->cost.rent_gpus > pr->rent_max_gpus;
		b->rent_row = row;
		if (strcmp(rn->system_id, b->rent_id) != 0) { /* another rental than the database's cheapest: its crossing */
			model_cost x = row->cost;
			x.rent_usd = row->cost.rent_horizon_usd;
			b->rent_id = rn->system_id;
			b->rent_usd_gpu_h = cluster ? pr->rent_cluster_usd_gpu_h : pr->rent_usd_gpu_h;
			b->rent_lo_usd_gpu_h = cluster ? NAN : pr->rent_market_usd_gpu_h;
			model_buy_rent_eval(sc, &b->buy->r, &b->buy->cost, &row->sc, &row->r, &x, b->rent_usd_gpu_h, &m);
			b->breakeven_runs_month = m.breakeven_runs_month;
			b->buy_wins_above = m.buy_wins_above;
		}
		b->rent_usd_run = row->cost.rent_horizon_usd; /* as billed, over the horizon (= rent_usd with no decline) */
		b->rent_today_usd_run = row->cost.rent_usd;
		b->rent_term_years = pr->rent_term_years;
		b->rent_setup_s = row->cost.rent_setup_s;
		b->rent_wins = b->rent_usd_run < b->owner_usd_run;
		b->flip_usd_gpu_h = b->rent_usd_gpu_h * b->owner_usd_run / b->rent_usd_run;
	}
	/* the market's end (below the rate only: a spot or committed rate may be under the market's): rent is
	 * linear in the rate */
	b->rent_lo_usd_run = b->breakeven_lo_runs_month = NAN;
	if (isfinite(b->rent_lo_usd_gpu_h) && b->rent_lo_usd_gpu_h < b->rent_usd_gpu_h) {
		b->rent_lo_usd_run = b->rent_usd_run * b->rent_lo_usd_gpu_h / b->rent_usd_gpu_h;
		lo.rent_usd = b->rent_lo_usd_run;
		model_buy_rent_eval(sc, &b->buy->r, &b->buy->cost, sc, &b->buy->r, &lo, b->rent_lo_usd_gpu_h, &m);
		b->breakeven_lo_runs_month = m.breakeven_runs_month;
		b->rent_lo_wins = row ? b->rent_lo_usd_run < b->owner_usd_run : m.rent_wins;
	}
}

/* How far an option that fits, has its price and is inside the convergence data misses the budget and
 * deadline: the number of constraints it fails, then the relative miss; INFINITY for the others. */
static double miss_of(const plan_question *q, const plan_option *w)
{
	unsigned bd = PLAN_FAIL_BUDGET | PLAN_FAIL_DEADLINE | PLAN_FAIL_SITE;
	if (!w->v.fails || (w->v.fails & ~bd))
		return INFINITY;
	double m = (isnan(q->budget_usd) ? 0 : w->v.over_budget_usd / q->budget_usd) +
		   (isnan(q->deadline_s) ? 0 : w->v.late_s / q->deadline_s) +
		   (isnan(q->site_W) ? 0 : w->v.over_site_W / q->site_W);
	int k = ((w->v.fails & PLAN_FAIL_BUDGET) != 0) + ((w->v.fails & PLAN_FAIL_DEADLINE) != 0) +
		((w->v.fails & PLAN_FAIL_SITE) != 0);
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

/* The counts of the answer and each option's ok (a deadline met with 90% confidence by some: only those). */
static void qualify(const plan_question *q, plan_option *o, int n, plan_answer *a)
{
	for (int i = 0; i < n; i++) {
		a->ndeadline_sure += !o[i].v.fails && o[i].v.deadline_sure;
		a->ndeadline_likely += !o[i].v.fails && !isnan(q->deadline_s) && !o[i].v.deadline_sure;
	}
	for (int i = 0; i < n; i++) {
		plan_option *w = &o[i];
		w->ok = !w->v.fails && (a->ndeadline_sure == 0 || w->v.deadline_sure);
		w->front = w->as_fast = false;
		if (w->r.fits && w->r.extrapolated) {
			a->nextrapolated++;
			a->conv_max_batch = model_conv_max_batch(&w->sc);
		}
		a->nfail_budget += (w->v.fails & PLAN_FAIL_BUDGET) != 0;
		a->nfail_deadline += (w->v.fails & PLAN_FAIL_DEADLINE) != 0;
		a->nfail_site += (w->v.fails & PLAN_FAIL_SITE) != 0;
		a->nfail_price += (w->v.fails & PLAN_FAIL_PRICE) != 0;
		a->nrented += w->r.fits && !isfinite(w->cost.capex_usd) && isfinite(w->cost.rent_usd);
		if (!w->ok)
			continue;
		a->nqualified++;
		if (!a->fastest || faster(q, w, a->fastest))
			a->fastest = w;
		if (!isnan(w->v.cost_usd) && (!a->cheapest || cheaper(q, w, a->cheapest)))
			a->cheapest = w;
	}
}

void plan_decide(const plan_question *q, plan_option *o, int n, plan_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->options = o;
	a->noptions = n;
	a->fastest_x = a->fastest_lo = a->fastest_hi = NAN;
	qualify(q, o, n, a);
	for (int i = 0; i < n; i++) /* the flag each writer marks: none until the rule picks */
		o[i].v.pick = false;
	if (!a->fastest) {
		a->near_miss = near_miss(q, o, n);
		return;
	}
	a->nfront = mark_front(o, n);
	a->nas_fast = mark_as_fast(q, o, n, a->fastest);
	a->best_value = knee(q, o, n, a->fastest, a->cheapest);
	a->winner = plan_cost_first(q) && a->cheapest ? a->cheapest : rule_pick(q, o, n);
	if (a->winner)
		o[a->winner - o].v.pick = true;
	if (a->winner != a->fastest) {
		a->tied_faster = a->fastest;
		plan_time_ratio(q, a->fastest, a->winner, &a->fastest_x, &a->fastest_lo, &a->fastest_hi);
	}
	decide_scale(q, o, n, a);
	buy_rent(q, o, n, a);
}

/* ---- fewer GPUs as fast: the knee of time against cost at one count ---- */

int plan_fewer_gpus(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
		    plan_answer *a)
{
	const plan_option *w = a->winner;
	a->fewer.ok = false;
	if (!w)
		return 0;
	const hw_system *sys = hw_system_find(db, w->sc.node.system_id);
	long gpus = (long)w->sc.nodes * w->sc.node.gpus_per_node;
	if (!sys)
		return 0;
	for (long c = gpus / 2; c >= 1 && gpus % 2 == 0; gpus = c, c /= 2) {
		plan_option *o = NULL;
		int n = 0, cap = 0, sn = 0, sw = 0;
		if (plan_placements(db, s, p, q, &sys, 1, c, &o, &n, &cap, &sn, &sw)) {
			free(o);
			return ERR_INPUT;
		}
		const plan_option *best = NULL;
		for (int i = 0; i < n; i++)
			if (!o[i].v.fails && (!best || faster(q, &o[i], best)))
				best = &o[i];
		double x = NAN, lo = NAN, hi = NAN;
		if (best)
			plan_time_ratio(q, best, w, &x, &lo, &hi);
		bool as_fast = best && lo <= 1.0;
		if (as_fast) {
			a->fewer.ok = true;
			a->fewer.opt = *best;
			a->fewer.x = x;
			a->fewer.lo = lo;
			a->fewer.hi = hi;
		}
		free(o);
		if (!as_fast)
			break;
	}
	return 0;
}

/* the powers of two from 8 (a server) to 1024, the list `--gpus 8,16,...,1024` asks as one question; fewer than 8
 * GPUs is a server part-used (each answer names fewer GPUs as fast) */
int plan_deadline_counts(long *c, int max)
{
	int n = 0;
	for (long g = 8; g <= 1024 && n < max; g *= 2)
		c[n++] = g;
	return n;
}

int plan_deadline_count(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
			const hw_system *const *cand, int ncand, const long *counts, int n, plan_count *c)
{
	*c = (plan_count){.at = -1, .below_s = NAN};
	for (int k = 0; k < n; k++) {
		plan_option *o = NULL;
		int m = 0, cap = 0, sn = 0, sw = 0;
		if (plan_placements(db, s, p, q, cand, ncand, counts[k], &o, &m, &cap, &sn, &sw)) {
			free(o);
			return ERR_INPUT;
		}
		plan_answer a;
		plan_decide(q, o, m, &a);
		if (a.winner) {
			c->at = k;
			free(o);
			return 0;
		}
		const plan_option *best = NULL; /* why this count is not enough: its fastest, deadline aside */
		for (int i = 0; i < m; i++)
			if (!(o[i].v.fails & ~(unsigned)PLAN_FAIL_DEADLINE) && (!best || faster(q, &o[i], best)))
				best = &o[i];
		c->below = counts[k];
		c->below_s = best ? best->v.time_s : NAN;
		free(o);
	}
	return 0;
}
