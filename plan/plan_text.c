/* plan_text.c: the decision (plan_decide) in a buyer's words, read in 30 seconds: a first line with the pick, its
 * time with the 90% interval, its cost per run and its capex or rent; then at most five labelled lines (fastest,
 * cheapest, best value, scale up vs out, buy vs rent) with differences as "12% less time", "2.3x the capex", and
 * two or three significant figures; then, where the question has constraints, what they left out and why.
 * Decides nothing: every choice named here was made in plan_decide.c.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

/* A figure to 3 significant figures (2 for counts) and its words, into small buffers. */
enum { FIG = 48 };

/* x rounded to `sig` significant figures. */
static double round_sig(double x, int sig)
{
	if (!(x != 0) || !isfinite(x))
		return x;
	double p = pow(10.0, floor(log10(fabs(x))) - (sig - 1));
	return round(x / p) * p;
}

/* "$6.26", "$706", "$12.5k", "$542k", "$30.6M" ("-" for none). */
static const char *money(double usd, char *buf)
{
	double v = round_sig(usd, 3), a = fabs(v);
	if (!isfinite(usd))
		snprintf(buf, FIG, "-");
	else if (a >= 1e12)
		snprintf(buf, FIG, "$%.3gT", v / 1e12);
	else if (a >= 1e9)
		snprintf(buf, FIG, "$%.3gB", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, FIG, "$%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, FIG, "$%.3gk", v / 1e3);
	else if (a >= 100)
		plan_fmt_usd(v, buf, FIG);
	else
		snprintf(buf, FIG, "$%.2f", usd);
	return buf;
}

/* A count to two significant figures with thousands separators: "1,400", "31,000", "5.4". */
static const char *count2(double n, char *buf)
{
	double v = round_sig(n, 2);
	if (!isfinite(v))
		snprintf(buf, FIG, "-");
	else if (fabs(v) < 10)
		snprintf(buf, FIG, "%.2g", v);
	else
		plan_fmt_usd(v, buf, FIG), memmove(buf, buf + 1, strlen(buf)); /* "$1,400" without the "$" */
	return buf;
}

/* A share in percent, never "0%": "13%", "8.1%", "0.4%". */
static const char *pct(double p, char *buf)
{
	if (p >= 10)
		snprintf(buf, FIG, "%.0f%%", p);
	else if (p >= 1)
		snprintf(buf, FIG, "%.2g%%", p);
	else
		snprintf(buf, FIG, "%.1f%%", p);
	return buf;
}

/* The cost compared in words: "cost per run" (owned or rented), "capex", "tco", "rent". */
static const char *cost_label(plan_cost c)
{
	return c == PLAN_RUN ? "cost per run" : plan_cost_name(c);
}

/* The month of work the cost per run assumes: "1,000 runs a month", "54% use". */
static void month_words(strbuf *b, const model_money *m)
{
	char n[FIG], p[FIG];
	if (m->runs_per_month > 0)
		strbuf_addf(b, "%s run%s a month", count2(m->runs_per_month, n), m->runs_per_month == 1 ? "" : "s");
	else
		strbuf_addf(b, "%s use", pct(100 * m->utilisation, p));
}

/* "dgxb200 1x8" */
static void name(strbuf *b, const plan_option *w)
{
	strbuf_addf(b, "%s %dx%d", w->sc.node.system_id, w->sc.nodes, w->sc.node.gpus_per_node);
}

/* "8.5 min (6.8-11.0 min, estimate)": the time, its 90% interval and, unless measured, the basis. */
static void time_range(strbuf *b, const plan_option *w)
{
	char t[FIG], lo[FIG], hi[FIG];
	plan_fmt_duration(w->v.time_lo_s, lo, sizeof lo);
	plan_fmt_duration(w->v.time_hi_s, hi, sizeof hi);
	const char *ulo = strchr(lo, ' '), *uhi = strchr(hi, ' ');
	if (ulo && uhi && !strchr(ulo + 1, ' ') && strcmp(ulo, uhi) == 0)
		lo[ulo - lo] = '\0'; /* "6.8-11.0 min": one unit for both ends */
	strbuf_addf(b, "%s (%s-%s%s)", plan_fmt_duration(w->v.time_s, t, sizeof t), lo, hi,
		    w->r.basis == MODEL_BASIS_ESTIMATE ? ", estimate" : w->r.basis == MODEL_BASIS_TRANSFER ? ", transfer" : "");
}

/* w's time against base's: "the same time", "8% less time", "1.6x as fast", "12% more time", "3.5x the time". */
static void time_words(strbuf *b, double r)
{
	char p[FIG];
	if (!isfinite(r))
		strbuf_addf(b, "a time not comparable");
	else if (fabs(r - 1) < 0.0005)
		strbuf_addf(b, "the same time");
	else if (r <= 1 / 1.5)
		strbuf_addf(b, "%.2gx as fast", 1 / r);
	else if (r < 1)
		strbuf_addf(b, "%s less time", pct(100 * (1 - r), p));
	else if (r < 1.5)
		strbuf_addf(b, "%s more time", pct(100 * (r - 1), p));
	else
		strbuf_addf(b, "%.2gx the time", r);
}

/* w's cost against base's: "6.4x the capex", "59% less capex", "the same capex". */
static void cost_words(strbuf *b, const char *cn, double rc)
{
	char p[FIG];
	if (!isfinite(rc))
		strbuf_addf(b, "%s not comparable (a price is missing)", cn);
	else if (fabs(rc - 1) < 0.0005)
		strbuf_addf(b, "the same %s", cn);
	else if (rc >= 1.5)
		strbuf_addf(b, "%.2gx the %s", rc, cn);
	else if (rc > 1)
		strbuf_addf(b, "%s more %s", pct(100 * (rc - 1), p), cn);
	else
		strbuf_addf(b, "%s less %s", pct(100 * (1 - rc), p), cn);
}

/* "gb200-nvl72 2x4 (7.8 min), 8% less time for 6.4x the capex": w against the pick. */
static void against(strbuf *b, const plan_question *q, const plan_option *w, const plan_option *pick)
{
	char t[FIG];
	name(b, w);
	strbuf_addf(b, " (%s", plan_fmt_duration(w->v.time_s, t, sizeof t));
	if (w->v.idle_gpus > 0)
		strbuf_addf(b, ", %d GPUs idle", w->v.idle_gpus);
	strbuf_addf(b, "): ");
	time_words(b, w->v.time_s / pick->v.time_s);
	strbuf_addf(b, " for ");
	if (!isfinite(pick->v.cost_usd) && isfinite(w->v.run_cost_usd) && isfinite(pick->v.run_cost_usd)) {
		/* a rented pick has no capex: what a run costs each */
		cost_words(b, "cost per run", w->v.run_cost_usd / pick->v.run_cost_usd);
		return;
	}
	cost_words(b, cost_label(q->cost), w->v.cost_usd / pick->v.cost_usd);
}

/* The first line: the pick, its time and interval, its cost per run, its capex or rent, idle GPUs. */
static void first_line(strbuf *b, const plan_question *q, const plan_option *w)
{
	char m[FIG], c[FIG];
	bool owned = isfinite(w->cost.capex_usd);
	name(b, w);
	strbuf_addf(b, ": ");
	time_range(b, w);
	strbuf_addf(b, " %s, %s a run %s (a month's work: ", plan_ttt_goal(q) ? "to train" : "to accuracy",
		    money(w->v.run_cost_usd, m), owned ? "owned" : "rented");
	month_words(b, &w->sc.money);
	if (!owned && w->sc.money.rent_decline > 0) { /* the rent weighed: averaged over the horizon as it falls; the
						       * row's rent/run is today's bill, named beside it */
		char today[FIG];
		strbuf_addf(b, "; rent averaged over %.3g years, falling %s a year, from %s a run as billed today",
			    w->sc.money.amortize_years, pct(100 * w->sc.money.rent_decline, c), money(w->cost.rent_usd, today));
	}
	strbuf_addf(b, "), ");
	if (owned)
		strbuf_addf(b, "capex %s", money(w->cost.capex_usd, c));
	else { /* the rate billed: above a provider's instance limit, its cluster rate */
		const model_price *pr = &w->sc.price;
		bool cluster = pr->rent_max_gpus > 0 && w->r.gpus > pr->rent_max_gpus;
		strbuf_addf(b, "rent %s per GPU-hour", money(cluster ? pr->rent_cluster_usd_gpu_h : pr->rent_usd_gpu_h, c));
	}
	if (w->v.idle_gpus > 0)
		strbuf_addf(b, "; %d of its %d GPUs idle", w->v.idle_gpus, w->r.gpus + w->v.idle_gpus);
	strbuf_addf(b, "\n");
}

/* Fastest, cheapest and best value: those that are the pick on one line ("Fastest and cheapest: the pick"), each
 * other one against the pick. */
static void trio(strbuf *b, const plan_question *q, const plan_answer *a)
{
	const struct { const char *label; const plan_option *o; } t[] = {
		{"Fastest", a->fastest}, {"Cheapest", a->cheapest}, {"Best value", a->best_value},
	};
	enum { N = sizeof t / sizeof t[0] };
	int npick = 0, k = 0;
	for (int i = 0; i < N; i++)
		npick += t[i].o == a->winner;
	for (int i = 0; i < N && npick; i++) {
		if (t[i].o != a->winner)
			continue;
		strbuf_addf(b, "%s%s", k == 0 ? "  " : k == npick - 1 ? " and " : ", ", k ? "" : t[i].label);
		if (k)
			strbuf_addf(b, "%c%s", t[i].label[0] + ('a' - 'A'), t[i].label + 1);
		k++;
	}
	if (npick)
		strbuf_addf(b, ": the pick\n");
	for (int i = 0; i < N; i++) {
		if (!t[i].o || t[i].o == a->winner)
			continue;
		strbuf_addf(b, "  %s: ", t[i].label);
		against(b, q, t[i].o, a->winner);
		if (t[i].o == a->tied_faster && a->fastest_lo <= 1 && a->fastest_hi >= 1)
			strbuf_addf(b, "; as fast within the 90%% interval (%.2f-%.2f)", a->fastest_lo, a->fastest_hi);
		strbuf_addf(b, "\n");
	}
}

/* The GPUs of the pair: one chip "(B200) ", one generation "(Blackwell: B300 vs B200) ", else "(B200 vs H100) ". */
static void scale_gpus(strbuf *b, const plan_scale *s)
{
	if (s->generation)
		strbuf_addf(b, "  Scale up vs out (%s: %s vs %s): ", s->generation, s->up->chip, s->out->chip);
	else if (strcasecmp(s->up->chip, s->out->chip) != 0)
		strbuf_addf(b, "  Scale up vs out (%s vs %s): ", s->up->chip, s->out->chip);
	else
		strbuf_addf(b, "  Scale up vs out (%s): ", s->up->chip);
}

/* "Scale up vs out (B200): up - gb200-nvl72 2x72 (2 NVLink domains) against dgxb200 18x8 (18): 9% less time, for
 * 2.1x the capex; GPU alone 5% less time, topology 4% less time"; where no option spans more NVLink domains than
 * another, the pick against another GPU: "(B200 vs H100): neither - each option spans 8 NVLink domains; ...". */
static void scale_line(strbuf *b, const plan_question *q, const plan_answer *a)
{
	const plan_scale *s = &a->scale;
	if (!s->up) { /* nothing to weigh: the placements here differ in GPU, not in NVLink domains */
		strbuf_addf(b, "  Scale up vs out: every option here spans %d NVLink domain%s; none to weigh "
			    "(--partial-nodes adds placements over more)\n", s->domains, s->domains == 1 ? "" : "s");
		return;
	}
	const plan_option *p = s->pick, *o = p == s->up ? s->out : s->up;
	scale_gpus(b, s);
	if (s->same_domains) /* "Scale up vs out (Blackwell: B300 vs B200): neither - all 64 NVLink domains; ..." */
		strbuf_addf(b, "neither - each option spans %d NVLink domain%s; ", s->domains, s->domains == 1 ? "" : "s");
	else
		strbuf_addf(b, "%s - ", p == s->up ? "up" : "out");
	name(b, p);
	if (!s->same_domains)
		strbuf_addf(b, " (%d NVLink domain%s)", p->v.domains, p->v.domains == 1 ? "" : "s");
	if (s->tied) {
		strbuf_addf(b, " is as fast as ");
		name(b, o);
		if (!s->same_domains)
			strbuf_addf(b, " (%d)", o->v.domains);
		strbuf_addf(b, " within the 90%% interval, for ");
	} else {
		strbuf_addf(b, " against ");
		name(b, o);
		if (!s->same_domains)
			strbuf_addf(b, " (%d)", o->v.domains);
		strbuf_addf(b, ": ");
		time_words(b, p->v.time_s / o->v.time_s);
		strbuf_addf(b, ", for ");
	}
	cost_words(b, cost_label(q->cost), p->v.cost_usd / o->v.cost_usd);
	if (!s->same_gpu && isfinite(s->gpu_x)) { /* two GPU records (packages, chips): the GPU's part apart */
		double g = p == s->up ? s->gpu_x : 1 / s->gpu_x, t = p == s->up ? s->topo_x : 1 / s->topo_x;
		strbuf_addf(b, "; GPU alone ");
		time_words(b, g);
		strbuf_addf(b, s->same_domains ? ", the rest (one topology) " : ", topology ");
		time_words(b, t);
	}
	strbuf_addf(b, "\n");
}

/* Where buying wins, from the crossing of the two months (model_buy_rent_eval): above it on demand, below it
 * against a reservation (a flat month). */
static void crossing_words(strbuf *b, const plan_buy_rent *r)
{
	char n[FIG], p[FIG];
	double runs = r->breakeven_runs_month, max = r->max_runs_month;
	bool never = r->buy_wins_above ? !(runs <= max) : runs == 0;
	bool always = r->buy_wins_above ? runs == 0 : runs >= max;
	if (always)
		strbuf_addf(b, "buying wins at any use");
	else if (never)
		strbuf_addf(b, "renting wins at any use (the cluster runs at most %s a month)", count2(max, n));
	else
		strbuf_addf(b, "buying wins %s about %s runs a month (%s use)", r->buy_wins_above ? "above" : "below",
			    count2(runs, n), pct(100 * runs / max, p));
}

static void buy_rent_line(strbuf *b, const plan_answer *a)
{
	const plan_buy_rent *r = &a->buy_rent;
	char m1[FIG], m2[FIG];
	strbuf_addf(b, "  Buy vs rent (%s): ", a->winner->chip);
	if (!r->buy || !r->rent_id) {
		strbuf_addf(b, "%s\n", !r->buy ? "no bought option with a capex among these"
					      : "no rental of this GPU in the database at this --rent-term");
		return;
	}
	const model_scenario *sc = &r->buy->sc;
	strbuf_addf(b, "a run costs %s owned (", money(r->owner_usd_run, m1));
	name(b, r->buy);
	strbuf_addf(b, "), %s rented (%s", money(r->rent_usd_run, m2), r->rent_id);
	if (sc->price.rent_reserved)
		strbuf_addf(b, ", reserved: its month's share");
	else if (sc->money.rent_session_s > 0)
		strbuf_addf(b, ", its share of a %.3g h session", sc->money.rent_session_s / 3600.0);
	else
		strbuf_addf(b, ", rented alone");
	if (sc->money.rent_decline > 0)
		strbuf_addf(b, ", averaged over %.3g years as rent falls %s a year", sc->money.amortize_years,
			    pct(100 * sc->money.rent_decline, m2));
	strbuf_addf(b, "); ");
	crossing_words(b, r);
	if (isfinite(r->flip_usd_gpu_h))
		strbuf_addf(b, "; at the stated use %s wins (flips at %s/GPU-h)", r->rent_wins ? "renting" : "buying",
			    money(r->flip_usd_gpu_h, m1));
	if (isfinite(r->rent_lo_usd_run) && r->rent_lo_wins != r->rent_wins)
		strbuf_addf(b, "; at the market's %s/GPU-h %s wins", money(r->rent_lo_usd_gpu_h, m2),
			    r->rent_lo_wins ? "renting" : "buying");
	strbuf_addf(b, "\n");
}

/* Up to four system ids of options failing `bit` (price: `rate` true for those with a rental rate, i.e. held back
 * by a provider's limit), then "+N more". */
static void fail_names(strbuf *b, const plan_answer *a, unsigned bit, int rate)
{
	const char *seen[4];
	int ns = 0, more = 0;
	for (int i = 0; i < a->noptions; i++) {
		const plan_option *w = &a->options[i];
		if (!(w->v.fails & bit) || (rate >= 0 && isfinite(w->sc.price.rent_usd_gpu_h) != (rate == 1)))
			continue;
		bool dup = false;
		for (int k = 0; k < ns; k++)
			dup |= strcmp(seen[k], w->sc.node.system_id) == 0;
		if (dup)
			continue;
		if (ns < 4)
			seen[ns++] = w->sc.node.system_id;
		else
			more++;
	}
	for (int k = 0; k < ns; k++)
		strbuf_addf(b, "%s%s", k ? ", " : "", seen[k]);
	if (more)
		strbuf_addf(b, " +%d more", more);
}

/* The constraints and what they left out, where the question has any. */
static void constraints_line(strbuf *b, const plan_question *q, const plan_answer *a)
{
	char m[FIG], t[FIG];
	size_t start = b->len_B;
	strbuf_addf(b, "  Constraints:");
	if (!isnan(q->budget_usd)) {
		strbuf_addf(b, " budget %s caps the capex of bought options (%d rented outside it): ",
			    money(q->budget_usd, m), a->nrented);
		if (a->nfail_budget) {
			strbuf_addf(b, "%d over it (", a->nfail_budget);
			fail_names(b, a, PLAN_FAIL_BUDGET, -1);
			strbuf_addf(b, ");");
		} else
			strbuf_addf(b, "excludes nothing;");
	}
	if (!isnan(q->site_W)) {
		strbuf_addf(b, " site %.0f kW caps the peak draw of bought options (rentals are off site): ", q->site_W / 1e3);
		if (a->nfail_site) {
			strbuf_addf(b, "%d over it on power (", a->nfail_site);
			fail_names(b, a, PLAN_FAIL_SITE, -1);
			strbuf_addf(b, ");");
		} else
			strbuf_addf(b, "excludes nothing;");
	}
	if (!isnan(q->deadline_s))
		strbuf_addf(b, " deadline %s%s: %d meet it with 90%% confidence, %d at the prediction only, %d miss it;",
			    plan_fmt_duration(q->deadline_s, t, sizeof t),
			    isnan(q->budget_usd) && q->goal != PLAN_COST ? " (alone it asks for the cheapest option that meets it)"
									   : "",
			    a->ndeadline_sure, a->ndeadline_likely, a->nfail_deadline);
	if (a->nfail_price) {
		if (q->cost == PLAN_RUN)
			strbuf_addf(b, " left out %d without a purchase price or a rent at this count", a->nfail_price);
		else
			strbuf_addf(b, " left out %d without a %s price", a->nfail_price, plan_cost_name(q->cost));
		if (q->cost == PLAN_RENT || q->cost == PLAN_RUN) {
			size_t at = b->len_B;
			strbuf_addf(b, " (no rate: ");
			fail_names(b, a, PLAN_FAIL_PRICE, 0);
			if (b->len_B == at + strlen(" (no rate: ")) {
				b->len_B = at;
				b->s[at] = '\0';
				strbuf_addf(b, " (");
			}
			at = b->len_B;
			strbuf_addf(b, "%sa provider's limit at this count: ", b->s[at - 1] == '(' ? "" : "; ");
			size_t names = b->len_B;
			fail_names(b, a, PLAN_FAIL_PRICE, 1);
			if (b->len_B == names) {
				b->len_B = at;
				b->s[at] = '\0';
			}
			strbuf_addf(b, ")");
		}
		strbuf_addf(b, ";");
	}
	if (a->nextrapolated && !q->extrapolate)
		strbuf_addf(b, " left out %d beyond the measured convergence data (--extrapolate ranks them);", a->nextrapolated);
	if (b->len_B == start + strlen("  Constraints:")) { /* nothing to say */
		b->len_B = start;
		b->s[start] = '\0';
		return;
	}
	b->s[b->len_B - 1] = '\n'; /* the last ';' */
}

/* With no option qualifying: why, and the options nearest to the constraints. */
static void none_line(strbuf *b, const plan_question *q, const plan_answer *a, long gpus)
{
	char m[FIG], t[FIG];
	const char *s = gpus == 1 ? "" : "s";
	if (a->nextrapolated && !q->extrapolate && !a->near_miss) {
		double max_b = a->conv_max_batch;
		strbuf_addf(b, "Nothing to recommend for %ld GPU%s: even at 8 images per GPU the global batch (%ld) is above "
			       "the largest measured convergence point (%.0f), so the epochs it needs are unknown. "
			       "Data-parallel ResNet-50 stays inside the measured convergence data up to about %.0f GPUs at 8 "
			       "images each (%.0f at 32); --extrapolate ranks these anyway.\n",
			    gpus, s, gpus * 8, max_b, floor(max_b / 8), floor(max_b / 32));
		return;
	}
	if (!isnan(q->budget_usd) || !isnan(q->deadline_s) || !isnan(q->site_W) || a->nfail_price) {
		const char *sep = ": ";
		strbuf_addf(b, "No option for %ld GPU%s meets the constraints", gpus, s);
		if (a->nfail_budget) {
			strbuf_addf(b, "%s%d over the budget of %s", sep, a->nfail_budget, money(q->budget_usd, m));
			sep = ", ";
		}
		if (a->nfail_deadline) {
			strbuf_addf(b, "%s%d past the deadline of %s", sep, a->nfail_deadline,
				    plan_fmt_duration(q->deadline_s, t, sizeof t));
			sep = ", ";
		}
		if (a->nfail_site) {
			strbuf_addf(b, "%s%d over the site's %.0f kW at peak", sep, a->nfail_site, q->site_W / 1e3);
			sep = ", ";
		}
		if (a->nfail_price)
			strbuf_addf(b, "%s%d without a %s price", sep, a->nfail_price, cost_label(q->cost));
		strbuf_addf(b, ".\n");
	}
	else if (gpus > 0)
		strbuf_addf(b, "No placement of %ld GPU%s fits in GPU memory.\n", gpus, s);
	else
		strbuf_addf(b, "No configuration to answer with.\n");
	if (a->near_miss) {
		strbuf_addf(b, "  Nearest: ");
		name(b, a->near_miss);
		strbuf_addf(b, " (%s, %s %s) ", plan_fmt_duration(a->near_miss->v.time_s, t, sizeof t),
			    cost_label(q->cost), money(a->near_miss->v.cost_usd, m));
		plan_fails_text(q, &a->near_miss->v, b);
		strbuf_addf(b, "\n");
	}
}

void plan_answer_write(const plan_question *q, const plan_answer *a, long gpus, strbuf *b)
{
	if (!a->winner) {
		none_line(b, q, a, gpus);
		return;
	}
	first_line(b, q, a->winner);
	trio(b, q, a);
	if (gpus > 0) /* over several GPU counts (sweep's overall answer) scale up vs out is not one question */
		scale_line(b, q, a);
	buy_rent_line(b, a);
	if (a->fewer.ok) { /* the knee: the same system at fewer GPUs is as fast */
		const plan_option *f = &a->fewer.opt;
		strbuf_addf(b, "  Fewer GPUs: ");
		against(b, q, f, a->winner);
		strbuf_addf(b, "; %ld GPUs as fast as %ld within the 90%% interval (%.2f-%.2f)\n",
			    (long)f->sc.nodes * f->sc.node.gpus_per_node,
			    (long)a->winner->sc.nodes * a->winner->sc.node.gpus_per_node, a->fewer.lo, a->fewer.hi);
	}
	constraints_line(b, q, a);
}

void plan_count_text(const plan_question *q, const plan_count *found, long gpus, strbuf *out)
{
	long c[PLAN_DEADLINE_NCOUNTS];
	int n = plan_deadline_counts(c, PLAN_DEADLINE_NCOUNTS);
	char d[32], t[32];
	plan_fmt_duration(q->deadline_s, d, sizeof d);
	if (found->at < 0) {
		strbuf_addf(out, "No option meets the deadline of %s at up to %ld GPUs (tried %ld, %ld, ..., %ld", d, gpus,
			    c[0], c[1], c[n - 1]);
		if (isfinite(found->below_s))
			strbuf_addf(out, "; at %ld the fastest takes %s", found->below,
				    plan_fmt_duration(found->below_s, t, sizeof t));
		strbuf_addf(out, ").\n");
		return;
	}
	strbuf_addf(out, "GPUs: %ld, the fewest of %ld, %ld, ..., %ld at which an option meets the deadline of %s", gpus,
		    c[0], c[1], c[n - 1], d);
	if (found->below && isfinite(found->below_s))
		strbuf_addf(out, " (at %ld the fastest takes %s)", found->below,
			    plan_fmt_duration(found->below_s, t, sizeof t));
	else if (found->below)
		strbuf_addf(out, " (at %ld no option fits)", found->below);
	strbuf_addf(out, ".\n");
}
