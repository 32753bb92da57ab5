/* plan_sens.c: what could flip the answer at one GPU count - each money input at both ends of its range
 * (model_money_sensitivity) against the answer's alternative, and buying against renting the same runs:
 * the use below which renting wins, and whether the utilisation's range or the market's rate flips it.
 * Prints nothing; cli/cmd_report.c draws and words it.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"

static double sens_cost(const plan_option *w, bool rent)
{
	return rent ? w->cost.rent_usd : w->cost.tco_usd;
}

/* Whether an input, at either end of its range, turns which of answer and alternative costs less: prices and
 * speed err independently (the answer at one end, the alternative at the other), the site's inputs move both. */
static bool sens_flips(const plan_sens *rs, int i)
{
	double d0 = rs->base - rs->alt_base;
	bool indep = i == MODEL_SENS_PRICE || i == MODEL_SENS_SPEED;
	double d1 = rs->s[i].lo_usd - (indep ? rs->a[i].hi_usd : rs->a[i].lo_usd);
	double d2 = rs->s[i].hi_usd - (indep ? rs->a[i].lo_usd : rs->a[i].hi_usd);
	return (d0 < 0 && (d1 > 0 || d2 > 0)) || (d0 > 0 && (d1 < 0 || d2 < 0));
}

/* The option the answer is weighed against: the other option it names (the faster one left for money, else
 * the fastest, else the cheapest) when it has the same kind of cost, else the cheapest other that has. */
static const plan_option *alternative(const plan_answer *a, const plan_option *o, int n, bool rent)
{
	const plan_option *ru = a->tied_faster ? a->tied_faster : a->fastest != a->winner ? a->fastest
				: a->cheapest != a->winner ? a->cheapest : NULL;
	const plan_option *alt = ru && isfinite(sens_cost(ru, rent)) ? ru : NULL;
	for (int i = 0; !alt && i < n; i++)
		if (&o[i] != a->winner && o[i].r.fits && isfinite(sens_cost(&o[i], rent)))
			alt = &o[i];
	for (int i = 0; alt && i < n; i++) {
		const plan_option *w = &o[i];
		if (w != a->winner && w->r.fits && isfinite(sens_cost(w, rent)) && sens_cost(w, rent) < sens_cost(alt, rent) &&
		    alt != ru)
			alt = w;
	}
	return alt;
}

/* Buying against renting the same runs: the use below which renting wins (the break-even's share of the
 * runs a month can hold), at the stated use, over the utilisation's range and at the market's rate. */
static void sens_rent(const plan_buy_rent *b, plan_sens *rs)
{
	if (!b->buy || !b->rent_id || !isfinite(b->breakeven_runs_month) || !(b->max_runs_month > 0))
		return;
	const model_money *m = &b->buy->sc.money;
	rs->vs_rent = true;
	rs->buy = b->buy;
	rs->rent_id = b->rent_id;
	rs->use = model_money_use(m, b->buy->r.tta_s);
	rs->rent_use = b->breakeven_runs_month == 0 ? 0.0 : b->breakeven_runs_month / b->max_runs_month;
	model_sens_range(MODEL_SENS_UTIL, rs->use, &rs->use_lo, &rs->use_hi);
	rs->rent_wins = b->rent_wins;
	rs->buy_wins_above = b->buy_wins_above; /* against a reservation buying wins below the crossing */
	rs->flip_use = rs->rent_use > 0 && (rs->rent_use > rs->use_lo) != (rs->rent_use > rs->use_hi);
	rs->market_usd_gpu_h = b->rent_lo_usd_gpu_h;
	rs->flip_usd_gpu_h = b->flip_usd_gpu_h;
	rs->flip_market = isfinite(b->rent_lo_usd_run) && b->rent_lo_wins != rs->rent_wins;
}

void plan_sens_compute(const plan_question *q, plan_option *o, int n, int gpus, plan_sens *rs)
{
	plan_answer a;
	memset(rs, 0, sizeof *rs);
	rs->gpus = gpus;
	rs->rent_use = NAN;
	plan_decide(q, o, n, &a);
	if (!a.winner)
		return;
	rs->ans = a.winner;
	rs->rent = !isfinite(rs->ans->cost.tco_usd);
	rs->base = sens_cost(rs->ans, rs->rent);
	if (!isfinite(rs->base))
		return;
	rs->ok = true;
	rs->alt = alternative(&a, o, n, rs->rent);
	/* the speed's range: the prediction's interval where one was applied, else the model's whole-run error
	 * (the tie band, validate's whole-run group) */
	const model_result *r = &rs->ans->r;
	rs->speed_err = r->tta_hi_s > r->tta_lo_s ? (r->tta_hi_s - r->tta_lo_s) / (2.0 * r->tta_s) : q->tie_band;
	model_money_sensitivity(&rs->ans->sc, r, &rs->ans->cost, rs->speed_err, rs->rent, rs->s);
	if (rs->alt) {
		rs->alt_base = sens_cost(rs->alt, rs->rent);
		model_money_sensitivity(&rs->alt->sc, &rs->alt->r, &rs->alt->cost, rs->speed_err, rs->rent, rs->a);
		for (int i = 0; i < MODEL_SENS_N; i++)
			rs->flips[i] = sens_flips(rs, i);
	}
	sens_rent(&a.buy_rent, rs);
}

/* "a, b and c" of the inputs that flip, appended to b; the count. */
static int flip_names(const plan_sens *s, strbuf *b)
{
	int n = 0, total = 0;
	for (int i = 0; i < MODEL_SENS_N; i++)
		total += s->flips[i];
	for (int i = 0; i < MODEL_SENS_N; i++) {
		if (!s->flips[i])
			continue;
		n++;
		strbuf_addf(b, "%s%s", n == 1 ? "" : n == total ? " and " : ", ", model_sens_name((model_sens_input)i));
	}
	return n;
}

/* Buy against rent over the use: which wins on each side of the crossing, then what flips it. */
static void sens_rent_text(const plan_sens *s, strbuf *out)
{
	char a[32], b[32];
	const plan_option *w = s->buy;
	if (!s->buy_wins_above && s->rent_use > 0 && s->rent_use < 1)
		strbuf_addf(out, " Buying %s %dx%d wins below %.0f%% use, renting the same runs on %s (reserved) above "
				 "(stated %.0f%%: %s wins)",
			    w->sc.node.system_id, w->sc.nodes, w->sc.node.gpus_per_node, 100 * s->rent_use, s->rent_id,
			    100 * s->use, s->rent_wins ? "renting" : "buying");
	else if (s->buy_wins_above ? s->rent_use == 0 : s->rent_use >= 1)
		strbuf_addf(out, " Buying %s %dx%d beats renting the same runs on %s at any use", w->sc.node.system_id,
			    w->sc.nodes, w->sc.node.gpus_per_node, s->rent_id);
	else if (!isfinite(s->rent_use) || s->rent_use >= 1 || !s->buy_wins_above)
		strbuf_addf(out, " Renting the same runs on %s beats buying %s at any use", s->rent_id, w->sc.node.system_id);
	else
		strbuf_addf(out, " Renting the same runs on %s wins below %.0f%% use, buying %s above (stated %.0f%%: %s wins)",
			    s->rent_id, 100 * s->rent_use, w->sc.node.system_id, 100 * s->use,
			    s->rent_wins ? "renting" : "buying");
	strbuf_addf(out, "; %s %.0f-%.0f%%", s->flip_use ? "the utilisation flips it within" : "no flip over the utilisation's",
		    100 * s->use_lo, 100 * s->use_hi);
	if (isfinite(s->market_usd_gpu_h))
		strbuf_addf(out, "; at the market's %s per GPU-hour %s", plan_fmt_usd(s->market_usd_gpu_h, a, sizeof a),
			    s->flip_market ? (s->rent_wins ? "buying wins" : "renting wins") : "the same one wins");
	if (isfinite(s->flip_usd_gpu_h))
		strbuf_addf(out, "; the rate that flips it: %s per GPU-hour", plan_fmt_usd(s->flip_usd_gpu_h, b, sizeof b));
}

void plan_sens_text(const plan_sens *s, strbuf *out)
{
	if (!s->ok) {
		strbuf_addf(out, "At %d GPUs: no answer with a cost to move.", s->gpus);
		return;
	}
	const plan_option *w = s->ans;
	strbuf_addf(out, "At %d GPUs, %s %dx%d", s->gpus, w->sc.node.system_id, w->sc.nodes, w->sc.node.gpus_per_node);
	if (s->alt) {
		strbuf_addf(out, " against %s %dx%d: ", s->alt->sc.node.system_id, s->alt->sc.nodes,
			    s->alt->sc.node.gpus_per_node);
		if (flip_names(s, out))
			strbuf_addf(out, " could flip which costs less per run.");
		else
			strbuf_addf(out, "no input over its range flips which costs less.");
	} else {
		strbuf_addf(out, ": no other option with such a cost.");
	}
	if (!s->vs_rent)
		return;
	sens_rent_text(s, out);
	strbuf_addf(out, ".");
}
