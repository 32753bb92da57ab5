/* plan_decide.c: the placements of N GPUs on candidate systems and the one decision compare, report and
 * sweep print. Whole servers by default: nobody buys 64 eight-GPU servers to use one GPU in each, so a
 * placement occupies whole nodes unless --partial-nodes asks for the others (still costed for the whole
 * servers they occupy: model_result's capex and rent). A difference within the model's error band is a
 * tie, broken by fewer NVLink domains, then fewer nodes, then lower cost, then less time.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan.h"

#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *plan_goal_name(const plan_question *q)
{
	if (!isnan(q->deadline_s) || q->goal == PLAN_COST)
		return cost_words(q->cost);
	return q->goal == PLAN_GRID ? "grid order" : q->goal == PLAN_TTT ? "time to train (MLPerf-scored)"
										: "time to accuracy";
}

static bool cost_first(const plan_question *q)
{
	return !isnan(q->deadline_s) || q->goal == PLAN_COST;
}

void plan_rank_key(const plan_question *q, const model_result *r, double *key, double *tie)
{
	double tta = r->fits && isfinite(r->tta_s) ? r->tta_s : INFINITY;
	double cost = plan_cost_usd(q->cost, r);
	cost = r->fits && isfinite(cost) ? cost : INFINITY;
	if (cost_first(q)) {
		*key = !isnan(q->deadline_s) && tta > q->deadline_s ? INFINITY : cost;
		*tie = tta;
	} else if (q->goal == PLAN_TTT) {
		*key = r->fits && isfinite(r->ttt_s) ? r->ttt_s : INFINITY;
		*tie = tta;
	} else {
		*key = tta;
		*tie = isfinite(cost) ? cost : 0;
	}
	if (!isnan(q->budget_usd) && !(cost <= q->budget_usd))
		*key = INFINITY;
	if (r->extrapolated && !q->extrapolate)
		*key = INFINITY; /* epochs beyond the measured convergence range: listed, not recommended */
}

int plan_key_cmp(double key_a, double tie_a, double key_b, double tie_b)
{
	if (key_a != key_b)
		return key_a < key_b ? -1 : 1;
	if (tie_a != tie_b)
		return tie_a < tie_b ? -1 : 1;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const plan_option *x = a, *y = b;
	int c = plan_key_cmp(x->key, x->tie, y->key, y->tie);
	if (c)
		return c;
	if (x->sc.nodes != y->sc.nodes)
		return x->sc.nodes < y->sc.nodes ? -1 : 1;
	return strcmp(x->sc.node.system_id, y->sc.node.system_id);
}

void plan_options_sort(plan_option *o, int n)
{
	qsort(o, (size_t)n, sizeof(*o), by_key);
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
	w->partial = gpn < sys->gpus_per_node;
	plan_rank_key(q, &w->r, &w->key, &w->tie);
	w->ok = isfinite(w->key);
	(*n)++;
	return 0;
}

/* Whether `nodes` nodes of sys can be joined: a network, or all inside one NVLink domain. */
static bool joinable(const plan_spec *s, const hw_system *sys, int gpn, int nodes)
{
	if (nodes <= 1 || sys->nic || sys->fabric || s->fabric_id)
		return true;
	return sys->domain_gpus > 0 && (long)nodes * sys->gpus_per_node <= sys->domain_gpus && gpn > 0;
}

int plan_placements(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
		    const hw_system *const *cand, int ncand, long gpus, plan_option **o, int *n, int *cap,
		    int *skipped_net, int *skipped_whole)
{
	for (int k = 0; k < ncand; k++) {
		const hw_system *sys = cand[k];
		int G = sys->gpus_per_node;
		if (!q->partial_nodes) {
			int gpn = gpus < G ? (int)gpus : G;
			int nodes = (int)(gpus / gpn);
			if (gpus % gpn) {
				(*skipped_whole)++;
			} else if (!joinable(s, sys, gpn, nodes)) {
				(*skipped_net)++;
			} else if (add_option(db, s, p, q, sys, gpn, nodes, o, n, cap)) {
				return ERR_INPUT;
			}
			continue;
		}
		for (int gpn = G; gpn >= 1; gpn--) {
			if (gpus % gpn)
				continue;
			int nodes = (int)(gpus / gpn);
			if (!joinable(s, sys, gpn, nodes))
				(*skipped_net)++;
			else if (add_option(db, s, p, q, sys, gpn, nodes, o, n, cap))
				return ERR_INPUT;
		}
	}
	return 0;
}

/* The objective the key measures (time or money) and the two tie-breakers after fewer nodes. */
static double cost_of(const plan_question *q, const plan_option *w)
{
	double c = plan_cost_usd(q->cost, &w->r);
	return isfinite(c) ? c : INFINITY;
}

/* NVLink domains an option spans: its nodes for 8-GPU servers, its racks for NVL72 trays. Fewer domains is
 * scale-up: less on the network, less to cable and run. */
static int domains(const plan_option *w)
{
	int d = model_domain_gpus(&w->sc);
	return d > 0 ? (w->r.gpus + d - 1) / d : w->sc.nodes;
}

/* Whether w is preferred to pick in a tie: fewer NVLink domains, then fewer nodes, then lower cost, then less
 * time. */
static bool preferred(const plan_question *q, const plan_option *w, const plan_option *pick)
{
	if (domains(w) != domains(pick))
		return domains(w) < domains(pick);
	if (w->sc.nodes != pick->sc.nodes)
		return w->sc.nodes < pick->sc.nodes;
	if (cost_of(q, w) != cost_of(q, pick))
		return cost_of(q, w) < cost_of(q, pick);
	return w->r.tta_s < pick->r.tta_s;
}

/* The criterion by which pick is preferred to other (preferred() must hold). */
static const char *why_preferred(const plan_question *q, const plan_option *pick, const plan_option *other)
{
	return domains(pick) < domains(other) ? "fewer NVLink domains (scale up)"
	       : pick->sc.nodes < other->sc.nodes ? "fewer nodes"
	       : cost_of(q, pick) < cost_of(q, other) ? "lower cost" : "less time";
}

/* Among the options within the band of the best, the preferred one; *why names the criterion that made it
 * win over `best` (NULL when it is best). */
static const plan_option *break_tie(const plan_question *q, const plan_option *o, int n, const plan_option *best,
				    const char **why)
{
	const plan_option *pick = best;
	for (int i = 0; i < n; i++) {
		const plan_option *w = &o[i];
		if (!w->ok || w == pick || w->key > best->key * (1 + q->tie_band))
			continue;
		if (preferred(q, w, pick))
			pick = w;
	}
	*why = pick != best ? why_preferred(q, pick, best) : NULL;
	return pick;
}

static bool one_domain(const plan_option *w)
{
	return w->r.gpus <= model_domain_gpus(&w->sc);
}

void plan_decide(const plan_question *q, plan_option *o, int n, plan_answer *a)
{
	memset(a, 0, sizeof(*a));
	const plan_option *best = NULL;
	for (int i = 0; i < n; i++) {
		plan_option *w = &o[i];
		if (w->r.fits && w->r.extrapolated) {
			a->nextrapolated++;
			a->conv_max_batch = model_conv_max_batch(&w->sc);
		}
		if (!w->ok)
			continue;
		a->nqualified++;
		if (!best || by_key(w, best) < 0)
			best = w;
		if (one_domain(w) && (!a->best_up || w->r.tta_s < a->best_up->r.tta_s))
			a->best_up = w;
		if (!one_domain(w) && (!a->best_out || w->r.tta_s < a->best_out->r.tta_s))
			a->best_out = w;
	}
	if (!best)
		return;
	a->winner = break_tie(q, o, n, best, &a->broken_by);
	for (int i = 0; i < n; i++) {
		const plan_option *w = &o[i];
		if (w->ok && w != a->winner && (!a->runner_up || by_key(w, a->runner_up) < 0))
			a->runner_up = w;
	}
	if (a->runner_up) {
		a->margin = a->runner_up->key / a->winner->key - 1;
		a->tie = fabs(a->margin) <= q->tie_band;
		if (a->tie && !a->broken_by && preferred(q, a->winner, a->runner_up))
			a->broken_by = why_preferred(q, a->winner, a->runner_up);
	}
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

/* "dgxh100 8x8 (8 nodes x 8 GPUs): 23.4 min to accuracy, capex $3,000,000, bottleneck compute" */
static size_t describe(const plan_question *q, const plan_option *w, char *buf, size_t len_B)
{
	char t[32], c[32];
	bool ttt = q->goal == PLAN_TTT && isnan(q->deadline_s);
	return (size_t)snprintf(buf, len_B, "%s %dx%d (%d node%s x %d GPUs%s): %s %s, %s %s, bottleneck %s",
				w->sc.node.system_id, w->sc.nodes, w->sc.node.gpus_per_node, w->sc.nodes,
				w->sc.nodes > 1 ? "s" : "", w->sc.node.gpus_per_node, w->partial ? ", GPUs left idle" : "",
				plan_fmt_duration(ttt ? w->r.ttt_s : w->r.tta_s, t, sizeof t),
				ttt ? "to train (MLPerf-scored)" : "to accuracy", plan_cost_name(q->cost),
				plan_fmt_usd(cost_of(q, w), c, sizeof c), model_bottleneck_name(w->r.bottleneck));
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

static void put_option(const plan_question *q, const plan_option *w, char *buf, size_t len_B, size_t *at)
{
	if (*at < len_B)
		*at += describe(q, w, buf + *at, len_B - *at);
}

/* Why nothing qualifies: beyond the convergence data, no fit, no price, over budget, too slow. */
static void put_none(const plan_question *q, const plan_answer *a, long gpus, char *buf, size_t len_B, size_t *at)
{
	char m[32], t[32];
	if (a->nextrapolated && !q->extrapolate) {
		double max_b = a->conv_max_batch;
		put(buf, len_B, at, "Nothing to recommend for %ld GPUs: even at 8 images per GPU the global batch (%ld) is "
				    "above the largest measured convergence point (%.0f): the epochs it needs are unknown "
				    "(extrapolated, they grow with the batch faster than the GPUs shorten an epoch). "
				    "Data-parallel ResNet-50 stays inside the measured convergence data up to about %.0f GPUs "
				    "at 8 images each (%.0f at 32, where a GPU still runs near its speed); --extrapolate ranks "
				    "these anyway.", gpus, gpus * 8, max_b, floor(max_b / 8), floor(max_b / 32));
	} else if (!isnan(q->budget_usd))
		put(buf, len_B, at, "No option for %ld GPUs has a %s within the budget of %s (unpriced systems cannot "
				    "qualify: an --hwdb overlay adds your quote).", gpus, plan_cost_name(q->cost),
		    plan_fmt_usd(q->budget_usd, m, sizeof m));
	else if (!isnan(q->deadline_s))
		put(buf, len_B, at, "No priced option for %ld GPUs reaches accuracy within %s.", gpus,
		    plan_fmt_duration(q->deadline_s, t, sizeof t));
	else if (q->goal == PLAN_COST)
		put(buf, len_B, at, "No option for %ld GPUs has a %s in the database.", gpus, cost_words(q->cost));
	else
		put(buf, len_B, at, "No placement of %ld GPUs fits in GPU memory.", gpus);
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
	if (!isnan(q->deadline_s))
		put(buf, len_B, &at, "Cheapest (%s) to reach accuracy within %s: ", cost_words(q->cost),
		    plan_fmt_duration(q->deadline_s, t, sizeof t));
	else if (!isnan(q->budget_usd))
		put(buf, len_B, &at, "Fastest within the budget of %s (%s): ", plan_fmt_usd(q->budget_usd, m, sizeof m),
		    plan_cost_name(q->cost));
	else
		put(buf, len_B, &at, "Best by %s for %ld GPUs: ", plan_goal_name(q), gpus);
	put_option(q, a->winner, buf, len_B, &at);
	put(buf, len_B, &at, ".");
	if (a->runner_up) {
		bool money = cost_first(q);
		put(buf, len_B, &at, " Runner-up: ");
		put_option(q, a->runner_up, buf, len_B, &at);
		put(buf, len_B, &at, "; %.1f%% %s", 100 * fabs(a->margin),
		    a->margin >= 0 ? (money ? "dearer" : "slower") : (money ? "cheaper" : "faster"));
		if (a->tie)
			put(buf, len_B, &at, ", within the %.0f%% band: a tie%s%s", 100 * q->tie_band,
			    a->broken_by ? ", broken by " : "", a->broken_by ? a->broken_by : "");
		put(buf, len_B, &at, ".");
	}
	if (a->best_up && a->best_out) {
		double up = a->best_up->r.tta_s, out = a->best_out->r.tta_s;
		double gap = fmax(up, out) / fmin(up, out) - 1;
		put(buf, len_B, &at, " Scale %s: one NVLink domain (%s %dx%d) %s, several (%s %dx%d) %s; %.1f%% apart%s.",
		    out < up && gap > q->tie_band ? "out" : "up", a->best_up->sc.node.system_id, a->best_up->sc.nodes,
		    a->best_up->sc.node.gpus_per_node, plan_fmt_duration(up, t, sizeof t), a->best_out->sc.node.system_id,
		    a->best_out->sc.nodes, a->best_out->sc.node.gpus_per_node, plan_fmt_duration(out, m, sizeof m),
		    100 * gap, gap <= q->tie_band ? ", within the band: scale up, it needs fewer domains" : "");
	}
	return buf;
}
