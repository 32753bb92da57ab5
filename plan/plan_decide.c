/* plan_decide.c: the options (each placement of plan_place.c resolved, predicted and judged by plan_judge.c),
 * the one decision compare, report and sweep print, and its text. The answer names the fastest, the cheapest
 * and the best value (the knee of the time-cost front); an option is faster only when the 90% interval of its
 * time over the other's lies below 1 (plan_surely_faster: model_ratio, where what two predictions share
 * cancels), else the two are a tie: of the options no other is surely faster than, the pick is the cheapest
 * per run (owned: tco; rented: rent), capex last; money rankings rank by money. Scale up vs scale out is asked
 * of one GPU record at a time; buy vs rent of one GPU model.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <ctype.h>
#include <stdarg.h>
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
	int c = plan_num_cmp(a->v.time_s, b->v.time_s);
	if (!c)
		c = plan_num_cmp(a->v.cost_usd, b->v.cost_usd);
	return c ? c < 0 : plan_option_cmp(q, a, b) < 0;
}

/* Money first: less money, then less time, then the table's order. */
static bool cheaper(const plan_question *q, const plan_option *a, const plan_option *b)
{
	int c = plan_num_cmp(a->v.cost_usd, b->v.cost_usd);
	if (!c)
		c = plan_num_cmp(a->v.time_s, b->v.time_s);
	return c ? c < 0 : plan_option_cmp(q, a, b) < 0;
}

/* Cost per run first (plan_run_cost_usd), then capex, then time, then the table's order. */
static bool run_cheaper(const plan_question *q, const plan_option *a, const plan_option *b)
{
	int c = plan_num_cmp(plan_run_cost_usd(a), plan_run_cost_usd(b));
	if (!c)
		c = plan_num_cmp(a->r.capex_usd, b->r.capex_usd);
	if (!c)
		c = plan_num_cmp(a->v.time_s, b->v.time_s);
	return c ? c < 0 : plan_option_cmp(q, a, b) < 0;
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
	b->rent_setup_s = b->buy->r.rent_setup_s;
	b->max_runs_month = MODEL_MONTH_S / b->buy->r.tta_s;
	b->rent_lo_usd_gpu_h = b->buy->sc.node.ref_rent_market_usd_gpu_h;
	const model_scenario *rent_sc = &b->buy->sc;
	model_result lo = b->buy->r;
	lo.rent_usd = b->rent_usd_run;
	/* the rental among the options at the same GPU count: its own row's figures (its speed, as billed) */
	for (int i = 0; i < n; i++) {
		const plan_option *x = &o[i];
		if (!x->r.fits || !isfinite(x->r.rent_usd) || x->r.gpus != b->buy->r.gpus ||
		    strcmp(x->sc.node.system_id, b->rent_id) != 0)
			continue;
		b->rent_usd_gpu_h = x->sc.node.rent_usd_gpu_h;
		b->rent_usd_run = x->r.rent_usd;
		b->rent_setup_s = x->r.rent_setup_s;
		b->rent_lo_usd_gpu_h = x->sc.node.rent_market_usd_gpu_h;
		rent_sc = &x->sc;
		lo = x->r;
		break;
	}
	/* one comparison of a month of work (model_buy_rent_eval) gives the crossing, its side and the flip rate */
	model_buy_rent m;
	model_buy_rent_eval(&b->buy->sc, &b->buy->r, rent_sc, &lo, b->rent_usd_gpu_h, &m);
	b->breakeven_runs_month = m.breakeven_runs_month;
	b->buy_wins_above = m.buy_wins_above;
	b->flip_usd_gpu_h = m.flip_usd_gpu_h;
	b->rent_wins = m.rent_wins;
	/* the market's end (below the rate only: a spot or committed rate may be under the market's): rent is
	 * linear in the rate */
	b->rent_lo_usd_run = b->breakeven_lo_runs_month = NAN;
	if (isfinite(b->rent_lo_usd_gpu_h) && b->rent_lo_usd_gpu_h < b->rent_usd_gpu_h) {
		b->rent_lo_usd_run = b->rent_usd_run * b->rent_lo_usd_gpu_h / b->rent_usd_gpu_h;
		lo.rent_usd = b->rent_lo_usd_run;
		model_buy_rent_eval(&b->buy->sc, &b->buy->r, rent_sc, &lo, b->rent_lo_usd_gpu_h, &m);
		b->breakeven_lo_runs_month = m.breakeven_runs_month;
	}
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
	/* the figure as the CSV states it (csvw_num's 8 significant digits, plan_row.c): whatif.html formats the
	 * CSV's text, and rounding the full value here but its 8-digit text there gave $3,458,430 on the command
	 * line and 3,458,431 on the page (3458430.5 rounded up) */
	snprintf(digits, sizeof digits, "%.8g", usd);
	usd = strtod(digits, NULL);
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
	else if (s > 0 && s < 0.1) /* "0.0 s" would hide it: an epoch on 100,000 GPUs takes milliseconds */
		snprintf(buf, len_B, "%.3g ms", s * 1e3);
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

char *plan_fmt_range(double s, double lo_s, double hi_s, char *buf, size_t len_B)
{
	double unit = 1.0;
	const char *name = "s";
	if (!isfinite(s) || !isfinite(lo_s) || !isfinite(hi_s) || (lo_s == s && hi_s == s))
		return plan_fmt_duration(s, buf, len_B);
	/* plan_fmt_duration's units; hours as decimals so that the range reads in the point's unit */
	if (s >= 3 * 86400.0)
		unit = 86400.0, name = "days";
	else if (s >= 7200.0)
		unit = 3600.0, name = "h";
	else if (s >= 120.0)
		unit = 60.0, name = "min";
	snprintf(buf, len_B, "%.1f %s (%.1f-%.1f)", s / unit, name, lo_s / unit, hi_s / unit);
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

/* "s" after a GPU count other than one: "1 GPU", "8 GPUs". */
static const char *gpus_s(long n)
{
	return n == 1 ? "" : "s";
}

/* "dgxh100 8x8 (8 nodes x 8 GPUs): 23.4 min (22.2-24.6, estimate) to accuracy, capex $3,000,000, bottleneck
 * compute", with the GPUs bought and left idle. */
static void put_option(const plan_question *q, const plan_option *w, char *buf, size_t len_B, size_t *at)
{
	char t[96], c[32];
	int bought = w->r.gpus + w->v.idle_gpus;
	put(buf, len_B, at, "%s %dx%d (%d node%s x %d GPU%s%s): %s %s, %s %s, bottleneck %s", w->sc.node.system_id,
	    w->sc.nodes, w->sc.node.gpus_per_node, w->sc.nodes, w->sc.nodes > 1 ? "s" : "", w->sc.node.gpus_per_node,
	    gpus_s(w->sc.node.gpus_per_node), w->partial ? ", GPUs left idle" : "", fmt_time(w, t, sizeof t), plan_ttt_goal(q) ? "to train (MLPerf-scored)" : "to accuracy",
	    plan_cost_name(q->cost), plan_fmt_usd(w->v.cost_usd, c, sizeof c), model_bottleneck_name(w->r.bottleneck));
	if (w->v.idle_gpus > 0)
		put(buf, len_B, at, "; %d of the %d GPUs bought sit%s idle", w->v.idle_gpus, bought,
		    w->v.idle_gpus == 1 ? "s" : "");
}

/* "gb200-nvl72 2x4 (7.0 min, capex $3,000,000)" */
static void put_short(const plan_question *q, const plan_option *w, char *buf, size_t len_B, size_t *at)
{
	char t[32], c[32];
	put(buf, len_B, at, "%s %dx%d (%s, %s %s", w->sc.node.system_id, w->sc.nodes, w->sc.node.gpus_per_node,
	    plan_fmt_duration(w->v.time_s, t, sizeof t), plan_cost_name(q->cost), plan_fmt_usd(w->v.cost_usd, c, sizeof c));
	if (w->v.idle_gpus > 0)
		put(buf, len_B, at, ", %d GPU%s idle", w->v.idle_gpus, gpus_s(w->v.idle_gpus));
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
	put(buf, len_B, at, "%s", isnan(q->deadline_s) ? "." : " (a deadline is missed where the predicted time is past it).");
}

/* Why nothing qualifies: beyond the convergence data, no fit, no price, over budget, too slow. */
static void put_none(const plan_question *q, const plan_answer *a, long gpus, char *buf, size_t len_B, size_t *at)
{
	char m[32], t[32];
	bool budget = !isnan(q->budget_usd), deadline = !isnan(q->deadline_s);
	if (a->nextrapolated && !q->extrapolate && !a->near_miss) {
		double max_b = a->conv_max_batch;
		put(buf, len_B, at, "Nothing to recommend for %ld GPU%s: even at 8 images per GPU the global batch (%ld) is "
				    "above the largest measured convergence point (%.0f): the epochs it needs are unknown "
				    "(extrapolated, they grow with the batch faster than the GPUs shorten an epoch). "
				    "Data-parallel ResNet-50 stays inside the measured convergence data up to about %.0f GPUs "
				    "at 8 images each (%.0f at 32, where a GPU still runs near its speed); --extrapolate ranks "
				    "these anyway.", gpus, gpus_s(gpus), gpus * 8, max_b, floor(max_b / 8), floor(max_b / 32));
		return;
	}
	if (budget && deadline)
		put(buf, len_B, at, "No option for %ld GPU%s has a %s within the budget of %s and reaches accuracy within %s "
				    "(at the prediction): %d over budget, %d past the deadline, %d without a %s price.", gpus, gpus_s(gpus),
		    plan_cost_name(q->cost), plan_fmt_usd(q->budget_usd, m, sizeof m),
		    plan_fmt_duration(q->deadline_s, t, sizeof t), a->nfail_budget, a->nfail_deadline, a->nfail_price,
		    plan_cost_name(q->cost));
	else if (budget)
		put(buf, len_B, at, "No option for %ld GPU%s has a %s within the budget of %s (unpriced systems cannot "
				    "qualify: an --hwdb overlay adds your quote).", gpus, gpus_s(gpus), plan_cost_name(q->cost),
		    plan_fmt_usd(q->budget_usd, m, sizeof m));
	else if (deadline)
		put(buf, len_B, at, "No priced option for %ld GPU%s reaches accuracy within %s (at the prediction).", gpus, gpus_s(gpus),
		    plan_fmt_duration(q->deadline_s, t, sizeof t));
	else if (q->goal == PLAN_COST)
		put(buf, len_B, at, "No option for %ld GPU%s has a %s in the database.", gpus, gpus_s(gpus), plan_cost_words(q->cost));
	else if (gpus > 0)
		put(buf, len_B, at, "No placement of %ld GPU%s fits in GPU memory.", gpus, gpus_s(gpus));
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

/* Where buying wins, from the crossing of the two months (model_buy_rent_eval): above it on demand, below it
 * against a reservation. */
static void put_crossing(const plan_buy_rent *b, double runs, char *buf, size_t len_B, size_t *at)
{
	double max = b->max_runs_month;
	bool never = b->buy_wins_above ? !(runs <= max) : runs == 0;
	bool always = b->buy_wins_above ? runs == 0 : runs >= max;
	if (always)
		put(buf, len_B, at, "buying wins at any use");
	else if (never)
		put(buf, len_B, at, "renting wins at any use");
	else
		put(buf, len_B, at, "buying wins %s %.1f runs a month (%.0f%% use)", b->buy_wins_above ? "above" : "below",
		    runs, 100 * runs / max);
}

/* Buy vs rent at the market's end of the rate, and the rate at which the decision flips at the stated use. */
static void put_rent_ends(const plan_buy_rent *b, char *buf, size_t len_B, size_t *at)
{
	char m1[32], m2[32];
	if (isfinite(b->rent_lo_usd_run)) {
		put(buf, len_B, at, " At the market's low end (%s per GPU-hour, %s a run) ",
		    plan_fmt_usd(b->rent_lo_usd_gpu_h, m1, sizeof m1), plan_fmt_usd(b->rent_lo_usd_run, m2, sizeof m2));
		put_crossing(b, b->breakeven_lo_runs_month, buf, len_B, at);
		put(buf, len_B, at, ".");
	}
	if (isfinite(b->flip_usd_gpu_h))
		put(buf, len_B, at, " At the stated use %s wins; the decision flips at %s per GPU-hour (renting wins below it).",
		    b->rent_wins ? "renting" : "buying", plan_fmt_usd(b->flip_usd_gpu_h, m1, sizeof m1));
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
			    "(%s, %s per GPU-hour) %s", b->buy->sc.node.gpu_id, b->buy->sc.node.system_id,
	    b->buy->sc.nodes, b->buy->sc.node.gpus_per_node, plan_fmt_usd(b->owner_usd_run, m1, sizeof m1), b->rent_id,
	    plan_fmt_usd(b->rent_usd_gpu_h, m3, sizeof m3), plan_fmt_usd(b->rent_usd_run, m2, sizeof m2));
	if (b->buy->sc.node.rent_reserved)
		put(buf, len_B, at, " (a reservation paid around the clock, its share at the stated use); ");
	else if (b->buy->sc.money.rent_session_s > 0)
		put(buf, len_B, at, " (its share of a %.3g h rental session's %s of instance start-up and data copy); ",
		    b->buy->sc.money.rent_session_s / 3600.0, plan_fmt_duration(b->rent_setup_s, m3, sizeof m3));
	else
		put(buf, len_B, at, " (rented alone, with %s of instance start-up and data copy billed); ",
		    plan_fmt_duration(b->rent_setup_s, m3, sizeof m3));
	put_crossing(b, b->breakeven_runs_month, buf, len_B, at);
	put(buf, len_B, at, "; at most %.0f runs fit a month back to back.", b->max_runs_month);
	put_rent_ends(b, buf, len_B, at);
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
		put(buf, len_B, &at, "Cheapest (%s) to reach accuracy within %s (%s): ", plan_cost_words(q->cost),
		    plan_fmt_duration(q->deadline_s, t, sizeof t), sure);
	else if (!isnan(q->budget_usd))
		put(buf, len_B, &at, "Fastest within the budget of %s (%s)%s: ", plan_fmt_usd(q->budget_usd, m, sizeof m),
		    plan_cost_name(q->cost), tied);
	else if (gpus > 0)
		put(buf, len_B, &at, "Best by %s for %ld GPU%s%s: ", plan_goal_name(q), gpus, gpus_s(gpus), tied);
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
