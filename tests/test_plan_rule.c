/* tests/test_plan_rule.c: the decision's rule (PLAN_RULE, plan/plan_decide.c) on the built-in database, over every
 * default `compare` at 8, 16, 64, 144, 512 and 1024 GPUs with each --cost (run, the default, weighing bought and
 * rented options on one axis; capex, tco, rent) and over random subsets of the placements (a fixed seed):
 * - never beaten on both axes: no qualifying option is at least as fast (point) and at most as costly (the cost
 *   compared), one of them strictly;
 * - unmoved by what does not matter: removing any option that is neither the pick nor on the time-cost front
 *   leaves the pick unchanged;
 * each without constraints, with a budget (the median capex), with a deadline (1.5x the fastest time) and with a
 * site's power (the bought options' median peak draw);
 * - same hardware compares as same: two options of one GPU, node shape and stack have a time ratio interval of
 *   PLAN_SAME_HW_X either side.
 * - no order decides: the options shuffled give the same pick (a tie on the cost goes to the option committing
 *   less, then the name);
 * And known cases: at 512 GPUs gb200-nvl72 128x4 (beaten on both axes by hgx-h200 64x8) is not the
 * pick; adding hgx-b300 to gb200-nvl72 and hgx-h200 does not turn the pick to gb200-nvl72; a budget that excludes
 * every purchase picks a rental as cheap a run as any as fast; one run a month rents, 6,000 buy; a deadline without
 * a count finds the fewest GPUs with a pick, and the invariants hold there.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "hwdb/hw.h"
#include "plan/plan.h"
#include "plan/plan_internal.h" /* plan/'s parts under test */
#include "test.h"

typedef struct fix {
	const hw_db *db;
	plan_spec s;
	model_params p;
	plan_question q;
} fix;

/* The options of a compare over systems (NULL: the defaults) at gpus GPUs; *n how many (NULL on failure). */
static plan_option *options(fix *f, const char *systems, long gpus, int *n)
{
	const hw_system *cand[256];
	int ncand = 0, cap = 0, sn = 0, sw = 0;
	char unknown[64];
	plan_option *o = NULL;
	*n = 0;
	if (plan_candidates(f->db, &f->q, systems, cand, 256, &ncand, unknown, sizeof unknown) ||
	    plan_placements(f->db, &f->s, &f->p, &f->q, cand, ncand, gpus, &o, n, &cap, &sn, &sw)) {
		fprintf(stderr, "test_plan_rule: %s\n", err_msg());
		free(o);
		*n = 0;
		return NULL;
	}
	return o;
}

static double cost_of(const plan_option *w)
{
	return isfinite(w->v.cost_usd) ? w->v.cost_usd : INFINITY;
}

/* The pick of o[n] as an index into o (-1: none); o decided in place. */
static int pick_of(const fix *f, plan_option *o, int n)
{
	plan_answer a;
	plan_decide(&f->q, o, n, &a);
	return a.winner ? (int)(a.winner - o) : -1;
}

/* Invariant 1 on o[n] decided: no qualifying option beats the pick on both axes. Returns failures. */
static int beaten(const plan_option *o, int n, int p)
{
	int bad = 0;
	for (int i = 0; p >= 0 && i < n; i++) {
		const plan_option *x = &o[i], *w = &o[p];
		if (i == p || !x->ok)
			continue;
		double tx = x->v.time_s, tw = w->v.time_s, cx = cost_of(x), cw = cost_of(w);
		if (tx <= tw && cx <= cw && (tx < tw || cx < cw)) {
			fprintf(stderr, "  %s %dx%d beats the pick %s %dx%d: %.1f s <= %.1f s, %.0f <= %.0f\n",
				x->sc.node.system_id, x->sc.nodes, x->sc.node.gpus_per_node, w->sc.node.system_id, w->sc.nodes,
				w->sc.node.gpus_per_node, tx, tw, cx, cw);
			bad++;
		}
	}
	return bad;
}

/* Invariant 2: each option neither the pick nor on the front removed alone leaves the pick (by identity: system and
 * placement). Returns failures. */
static int moved(const fix *f, const plan_option *o, int n, int p)
{
	int bad = 0;
	plan_option *sub = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*sub));
	for (int i = 0; p >= 0 && i < n; i++) {
		if (i == p || o[i].front)
			continue;
		int m = 0, want = -1;
		for (int j = 0; j < n; j++)
			if (j != i) {
				if (j == p)
					want = m;
				sub[m++] = o[j];
			}
		int got = pick_of(f, sub, m);
		if (got != want) {
			fprintf(stderr, "  removing %s %dx%d moved the pick from %s %dx%d\n", o[i].sc.node.system_id,
				o[i].sc.nodes, o[i].sc.node.gpus_per_node, o[p].sc.node.system_id, o[p].sc.nodes,
				o[p].sc.node.gpus_per_node);
			bad++;
		}
	}
	free(sub);
	return bad;
}

/* Both invariants on o[n]: decided in place. */
static void check_set(test_ctx *t, const fix *f, plan_option *o, int n, const char *what)
{
	int p = pick_of(f, o, n);
	TEST_CHECK(t, beaten(o, n, p) == 0, "%s: the pick is beaten on both time and %s", what, plan_cost_name(f->q.cost));
	TEST_CHECK(t, moved(f, o, n, p) == 0, "%s: an option off the front moved the pick", what);
}

static int by_num(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The question's constraint of kind k (0 none, 1 a budget at the options' median capex, 2 a deadline at 1.5x the
 * fastest time) set on f->q and every option judged again. */
static const char *constrain(fix *f, plan_option *o, int n, int k)
{
	double *v = xmalloc((size_t)n * sizeof(*v)), fastest = INFINITY;
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (isfinite(o[i].cost.capex_usd))
			v[m++] = o[i].cost.capex_usd;
		if (o[i].r.fits && o[i].r.tta_s < fastest)
			fastest = o[i].r.tta_s;
	}
	qsort(v, (size_t)m, sizeof(*v), by_num);
	f->q.budget_usd = k == 1 && m ? v[m / 2] : NAN;
	f->q.deadline_s = k == 2 ? 1.5 * fastest : NAN;
	f->q.site_W = NAN;
	if (k == 3) { /* the site's power at the bought options' median peak draw */
		m = 0;
		for (int i = 0; i < n; i++)
			if (isfinite(o[i].cost.capex_usd) && isfinite(o[i].cost.power_max_W))
				v[m++] = o[i].cost.power_max_W;
		qsort(v, (size_t)m, sizeof(*v), by_num);
		f->q.site_W = m ? v[m / 2] : NAN;
	}
	free(v);
	for (int i = 0; i < n; i++)
		plan_option_judge(&f->q, &o[i]);
	return k == 1 ? " --budget (median capex)" : k == 2 ? " --deadline (1.5x the fastest)"
	       : k == 3 ? " --site-kw (median peak draw)" : "";
}

/* Every default compare and random subsets of its options, with each cost compared and each kind of constraint. */
static void test_invariants(test_ctx *t, fix *f)
{
	static const long counts[] = {8, 16, 64, 144, 512, 1024};
	unsigned seed = 46;
	int subsets = 0;
	for (int c = PLAN_CAPEX; c <= PLAN_RUN; c++)
		for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
			for (int kind = 0; kind < 4; kind++) {
				char what[128];
				int n;
				f->q.cost = (plan_cost)c;
				plan_option *o = options(f, NULL, counts[k], &n);
				TEST_CHECK(t, o && n > 1, "compare --gpus %ld: options", counts[k]);
				if (!o)
					continue;
				const char *con = constrain(f, o, n, kind);
				snprintf(what, sizeof what, "compare --gpus %ld --cost %s%s", counts[k], plan_cost_name(f->q.cost), con);
				check_set(t, f, o, n, what);
				plan_option *sub = xmalloc((size_t)n * sizeof(*sub));
				for (int r = 0; r < 20; r++, subsets++) { /* 4 costs x 6 counts x 4 constraints x 20 = 1920 */
					int m = 0;
					for (int i = 0; i < n; i++)
						if (rand_r(&seed) % 2)
							sub[m++] = o[i];
					snprintf(what, sizeof what, "compare --gpus %ld --cost %s%s, subset %d of %d options", counts[k],
						 plan_cost_name(f->q.cost), con, r, m);
					check_set(t, f, sub, m, what);
				}
				free(sub);
				free(o);
			}
	f->q.cost = PLAN_RUN;
	f->q.budget_usd = f->q.deadline_s = f->q.site_W = NAN;
	TEST_CHECK(t, subsets == 1920, "1920 random subsets checked, got %d", subsets);
}

/* A list of counts is one question (compare --gpus 8,16,...,1024): the options of every count together, the
 * rule and both invariants over all of them, with each cost and constraint, and over random subsets. */
static void test_count_list(test_ctx *t, fix *f)
{
	static const long counts[] = {8, 16, 32, 64, 128, 256, 512, 1024};
	unsigned seed = 8;
	for (int c = PLAN_CAPEX; c <= PLAN_RUN; c++)
		for (int kind = 0; kind < 4; kind++) {
			plan_option *all = NULL;
			int n = 0;
			f->q.cost = (plan_cost)c;
			for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
				int m;
				plan_option *o = options(f, NULL, counts[k], &m);
				all = xrealloc(all, (size_t)(n + m) * sizeof(*all));
				for (int i = 0; o && i < m; i++)
					all[n++] = o[i];
				free(o);
			}
			char what[160];
			const char *con = constrain(f, all, n, kind);
			snprintf(what, sizeof what, "compare --gpus 8,16,...,1024 --cost %s%s", plan_cost_name(f->q.cost), con);
			check_set(t, f, all, n, what);
			plan_option *sub = xmalloc((size_t)n * sizeof(*sub));
			for (int r = 0; r < 5; r++) {
				int m = 0;
				for (int i = 0; i < n; i++)
					if (rand_r(&seed) % 2)
						sub[m++] = all[i];
				check_set(t, f, sub, m, what);
			}
			free(sub);
			free(all);
		}
	f->q.cost = PLAN_RUN;
	f->q.budget_usd = f->q.deadline_s = f->q.site_W = NAN;
}

/* Whether two options are one placement of one system. */
static bool same_option(const plan_option *a, const plan_option *b)
{
	return strcmp(a->sc.node.system_id, b->sc.node.system_id) == 0 && a->sc.nodes == b->sc.nodes &&
	       a->sc.node.gpus_per_node == b->sc.node.gpus_per_node;
}

/* No order decides: each default compare's options shuffled (Fisher-Yates, a fixed seed) five times, under each
 * cost and constraint, give the pick of the options in their first order. */
static void test_shuffled(test_ctx *t, fix *f)
{
	static const long counts[] = {8, 64, 512};
	unsigned seed = 53;
	for (int c = PLAN_CAPEX; c <= PLAN_RUN; c++)
		for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
			for (int kind = 0; kind < 3; kind++) {
				int n;
				f->q.cost = (plan_cost)c;
				plan_option *o = options(f, NULL, counts[k], &n);
				if (!o)
					continue;
				const char *con = constrain(f, o, n, kind);
				int p = pick_of(f, o, n);
				plan_option want = o[p >= 0 ? p : 0];
				for (int r = 0; r < 5; r++) {
					for (int i = n - 1; i > 0; i--) {
						int j = (int)(rand_r(&seed) % (unsigned)(i + 1));
						plan_option x = o[i];
						o[i] = o[j];
						o[j] = x;
					}
					int q = pick_of(f, o, n);
					TEST_CHECK(t, (p < 0) == (q < 0) && (p < 0 || same_option(&o[q], &want)),
						   "compare --gpus %ld --cost %s%s shuffled: pick %s, was %s", counts[k],
						   plan_cost_name(f->q.cost), con, q >= 0 ? o[q].sc.node.system_id : "(none)",
						   p >= 0 ? want.sc.node.system_id : "(none)");
				}
				free(o);
			}
	f->q.cost = PLAN_RUN;
	f->q.budget_usd = f->q.deadline_s = f->q.site_W = NAN;
}

/* The pick of a compare over systems at gpus under the question in f, copied to *w; false when none. */
static bool pick_option(fix *f, const char *systems, long gpus, plan_option *w)
{
	int n;
	plan_option *o = options(f, systems, gpus, &n);
	int p = o ? pick_of(f, o, n) : -1;
	if (p >= 0)
		*w = o[p];
	free(o);
	return p >= 0;
}

/* The buyer's axis: a budget that excludes every purchase picks a rental as cheap a run as any rental as fast (was
 * coreweave-gb200-nvl72 at $98 a run over lambda-hgx-b200's $7.68: rentals tied on an infinite capex); one run a
 * month of 64 H100s rents, 6,000 buy at today's rate (--rent-decline 0). */
static void test_one_axis(test_ctx *t, fix *f)
{
	plan_option w, l;
	f->q.budget_usd = 1;
	int n;
	plan_option *o = options(f, NULL, 8, &n);
	TEST_CHECK(t, o != NULL, "compare --gpus 8");
	int p = o ? pick_of(f, o, n) : -1;
	TEST_CHECK(t, p >= 0 && !isfinite(o[p].cost.capex_usd), "--gpus 8 --budget 1: a rental");
	for (int i = 0; p >= 0 && i < n; i++) /* nothing as fast (its interval over the fastest holds 1) is cheaper */
		TEST_CHECK(t, !(o[i].ok && o[i].as_fast && o[i].v.run_cost_usd < o[p].v.run_cost_usd),
			   "--gpus 8 --budget 1: %s is as fast and cheaper a run than the pick %s", o[i].sc.node.system_id,
			   o[p].sc.node.system_id);
	free(o);
	f->q.budget_usd = NAN;
	TEST_CHECK(t, pick_option(f, "lambda-hgx-b200", 8, &l), "lambda-hgx-b200 alone");
	f->q.budget_usd = 1;
	TEST_CHECK(t, pick_option(f, NULL, 8, &w) && w.v.run_cost_usd <= l.v.run_cost_usd + 1e-9,
		   "--gpus 8 --budget 1: the pick's run costs at most lambda-hgx-b200's");
	f->q.budget_usd = NAN;
	double runs = f->s.money.runs_per_month;
	f->s.money.runs_per_month = 1;
	TEST_CHECK(t, pick_option(f, "dgxh100,coreweave-hgx-h100", 64, &w) && !isfinite(w.cost.capex_usd),
		   "dgxh100 against coreweave-hgx-h100 at 64 GPUs, 1 run a month: the rental");
	f->s.money.runs_per_month = 6000;
	double decline = f->s.money.rent_decline;
	f->s.money.rent_decline = 0; /* today's rate held */
	TEST_CHECK(t, pick_option(f, "dgxh100,coreweave-hgx-h100", 64, &w) && isfinite(w.cost.capex_usd),
		   "dgxh100 against coreweave-hgx-h100 at 64 GPUs, 6,000 runs a month, --rent-decline 0: the purchase");
	f->s.money.rent_decline = decline;
	f->s.money.runs_per_month = runs;
	/* the years: rent falling 20% a year over the horizon; both invariants over the default compare at 64 */
	f->s.money.rent_decline = 0.2;
	int m;
	plan_option *d = options(f, NULL, 64, &m);
	if (d)
		check_set(t, f, d, m, "compare --gpus 64 --rent-decline 0.2");
	free(d);
	f->s.money.rent_decline = decline;
}

static const char *pick_name(const fix *f, const char *systems, long gpus, char *buf, size_t len_B)
{
	int n;
	plan_option *o = options((fix *)f, systems, gpus, &n);
	int p = o ? pick_of(f, o, n) : -1;
	snprintf(buf, len_B, "%s", p >= 0 ? o[p].sc.node.system_id : "(none)");
	free(o);
	return buf;
}

/* Two known cases: the 512-GPU pick was gb200-nvl72 128x4, which hgx-h200 64x8 beats on time and capex; adding
 * hgx-b300 (not picked) flipped the pick of gb200-nvl72,hgx-h200 from hgx-h200 to gb200-nvl72. */
static void test_known_cases(test_ctx *t, fix *f)
{
	char a[64], b[64], c[64];
	pick_name(f, NULL, 512, a, sizeof a);
	TEST_CHECK(t, strcmp(a, "gb200-nvl72") != 0, "compare --gpus 512 picks gb200-nvl72 128x4, beaten on both axes");
	pick_name(f, "gb200-nvl72,hgx-h200", 512, b, sizeof b);
	pick_name(f, "gb200-nvl72,hgx-h200,hgx-b300", 512, c, sizeof c);
	TEST_CHECK(t, strcmp(b, "hgx-h200") == 0, "gb200-nvl72,hgx-h200 at 512: hgx-h200 (faster and cheaper), got %s", b);
	TEST_CHECK(t, strcmp(c, "gb200-nvl72") != 0, "adding hgx-b300 turns the pick to gb200-nvl72");
}

/* dgxh100 and xe9680-h100 are both 8 H100 SXM on NVLink with the same stack: at 16 GPUs the same hardware, their
 * time ratio's interval PLAN_SAME_HW_X either side (was the system row's 0.41-2.46: organisations' start-ups). */
static void test_same_hardware(test_ctx *t, fix *f)
{
	int n;
	plan_option *o = options(f, "dgxh100,xe9680-h100", 16, &n);
	TEST_CHECK(t, o && n == 2, "two options");
	if (!o || n != 2) {
		free(o);
		return;
	}
	double x, lo, hi;
	TEST_CHECK(t, plan_same_hardware(&o[0].sc, &o[1].sc), "dgxh100 2x8 and xe9680-h100 2x8: the same hardware");
	plan_time_ratio(&f->q, &o[0], &o[1], &x, &lo, &hi);
	TEST_NEAR(t, hi / x, PLAN_SAME_HW_X, 1e-9);
	TEST_NEAR(t, x / lo, PLAN_SAME_HW_X, 1e-9);
	free(o);
	o = options(f, "dgxh100,dgxb200", 16, &n);
	TEST_CHECK(t, o && n == 2 && !plan_same_hardware(&o[0].sc, &o[1].sc), "dgxh100 and dgxb200: another GPU");
	free(o);
	/* the white paper's C4140 K and M: one GPU and NVLink mesh, one host link against four (the difference it measured) */
	o = options(f, "c4140-k,c4140-m", 4, &n);
	TEST_CHECK(t, o && n == 2 && !plan_same_hardware(&o[0].sc, &o[1].sc), "c4140-k and c4140-m: other host links");
	free(o);
}

/* A deadline without a GPU count (compare --deadline T alone): the count found is the fewest of 8..1024 at which
 * the rule picks; no smaller count has a pick; at that count the invariants hold and the pick meets the deadline;
 * a deadline nothing meets finds none. Deadlines between the fastest options' times at 8 and 1024 GPUs. */
static void test_deadline_count(test_ctx *t, fix *f)
{
	static const long counts[] = {8, 16, 32, 64, 128, 256, 512, 1024};
	enum { NC = sizeof counts / sizeof counts[0] };
	static const double deadlines_s[] = {3600, 1800, 600, 300, 180, 120, 90, 1};
	const hw_system *cand[256];
	int ncand = 0;
	char unknown[64];
	TEST_CHECK(t, plan_candidates(f->db, &f->q, NULL, cand, 256, &ncand, unknown, sizeof unknown) == 0,
		   "default candidates");
	int found = 0;
	for (size_t d = 0; d < sizeof deadlines_s / sizeof deadlines_s[0]; d++) {
		plan_count c;
		f->q.deadline_s = deadlines_s[d];
		TEST_CHECK(t, plan_deadline_count(f->db, &f->s, &f->p, &f->q, cand, ncand, counts, NC, &c) == 0,
			   "deadline %.0f s: counts tried", deadlines_s[d]);
		int last = c.at >= 0 ? c.at : NC - 1;
		for (int k = 0; k <= last; k++) {
			int n;
			plan_option *o = options(f, NULL, counts[k], &n);
			int p = pick_of(f, o, n);
			char what[96];
			snprintf(what, sizeof what, "compare --deadline %.0fs (found at %ld GPUs)", deadlines_s[d], counts[k]);
			if (k < c.at || c.at < 0)
				TEST_CHECK(t, p < 0, "%s: a pick at %ld GPUs, fewer than the count found", what, counts[k]);
			else {
				TEST_CHECK(t, p >= 0 && o[p].v.time_s <= deadlines_s[d], "%s: no pick meeting it", what);
				check_set(t, f, o, n, what);
				found++;
			}
			free(o);
		}
		if (c.at > 0)
			TEST_CHECK(t, c.below == counts[c.at - 1] && c.below_s > deadlines_s[d],
				   "deadline %.0f s: the count below (%ld, fastest %.0f s) said to miss it", deadlines_s[d],
				   c.below, c.below_s);
		if (deadlines_s[d] < 2)
			TEST_CHECK(t, c.at < 0, "deadline 1 s: met at %ld GPUs", c.at >= 0 ? counts[c.at] : 0);
	}
	TEST_CHECK(t, found >= 5, "a count found for at least 5 of the deadlines, got %d", found);
	f->q.deadline_s = NAN;
}

int main(void)
{
	test_ctx t = {0};
	hw_db db;
	if (hw_db_load_default(&db, stderr) != 0) {
		fprintf(stderr, "built-in database: %s\n", err_msg());
		return 1;
	}
	fix f = {.db = &db};
	plan_spec_init(&f.s);
	model_params_default(&f.p);
	plan_question_init(&f.q);
	test_invariants(&t, &f);
	test_known_cases(&t, &f);
	test_shuffled(&t, &f);
	test_count_list(&t, &f);
	test_one_axis(&t, &f);
	test_same_hardware(&t, &f);
	test_deadline_count(&t, &f);
	hw_db_free(&db);
	return test_report(&t);
}
