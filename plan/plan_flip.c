/* plan/plan_flip.c: what the pick rests on - the factor on the pick's predicted GPU compute speed below which the
 * rule (plan_decide) picks another option, found by deciding again with the pick's GPU slowed (in every option
 * of that GPU, bought or rented). It weighs
 * whatever the decision compares (time, capex, owner's cost or rent, constraints): the slowed pick is
 * predicted and priced again (model_predict, model_price_run), so its time and every cost that follows from the
 * time move together.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

#define FLIP_MIN_X 0.25 /* below a quarter of its predicted speed the search stops: the pick rests on nothing near */
enum { FLIP_STEPS = 14 }; /* bisection steps: the factor to 0.75 / 2^14, finer than any figure it is quoted to */

/* The chip an option's GPU is (gpus.csv chip: a B200 in an HGX server and in a GB200 rack alike), else its id. */
static const char *chip_of(const plan_option *o)
{
	return o->chip ? o->chip : o->sc.node.gpu_id;
}

/* The index of the option the rule picks when the pick's chip (index w) runs at x times its predicted compute
 * speed in every option that has it: what is unknown is the chip on the buyer's software, so every bought and
 * rented option of that chip slows together; -1 when it picks none. tmp: scratch room for n options. */
static int pick_at(const plan_question *q, const plan_option *o, int n, int w, double x, const model_params *p,
		   plan_option *tmp)
{
	plan_answer a;
	memcpy(tmp, o, (size_t)n * sizeof(*tmp));
	for (int i = 0; i < n; i++) {
		if (strcmp(chip_of(&o[i]), chip_of(&o[w])) != 0)
			continue;
		tmp[i].sc.compute_cal = o[i].sc.compute_cal / x;
		if (model_predict(&tmp[i].sc, p, &tmp[i].r)) {
			err_clear();
			if (i == w)
				return -1;
			tmp[i] = o[i]; /* an option the model cannot place slowed keeps its figures */
			continue;
		}
		model_price_run(&tmp[i].sc, p, &tmp[i].r, &tmp[i].cost);
		plan_option_judge(q, &tmp[i]);
	}
	plan_decide(q, tmp, n, &a);
	return a.winner ? (int)(a.winner - tmp) : -1;
}

void plan_flip_find(const plan_question *q, const plan_option *o, int n, const plan_answer *a, const model_params *p,
		    plan_flip *f)
{
	*f = (plan_flip){.speed_x = NAN, .then = NULL};
	if (!a->winner || n < 2)
		return;
	int w = (int)(a->winner - o);
	if (w < 0 || w >= n)
		return;
	plan_option *tmp = xmalloc((size_t)n * sizeof(*tmp));
	int at_min = pick_at(q, o, n, w, FLIP_MIN_X, p, tmp);
	if (at_min != w && at_min >= 0) {
		double lo = FLIP_MIN_X, hi = 1.0; /* the pick changes at lo, holds at hi */
		for (int i = 0; i < FLIP_STEPS; i++) {
			double mid = 0.5 * (lo + hi);
			if (pick_at(q, o, n, w, mid, p, tmp) == w)
				hi = mid;
			else
				lo = mid;
		}
		f->speed_x = hi;
		f->then = &o[pick_at(q, o, n, w, lo, p, tmp)];
	}
	free(tmp);
}

/* "an" before a chip whose name is read with a vowel sound first (an A100, an H100, an MI300X), else "a" (a B200). */
static const char *article(const char *chip)
{
	return chip[0] && strchr("AEFHILMNORSX", chip[0]) ? "an" : "a";
}

void plan_flip_text(const plan_flip *f, const plan_answer *a, strbuf *out)
{
	const plan_option *w = a->winner;
	if (!w)
		return;
	const char *chip = chip_of(w);
	if (!(f->speed_x > 0) || !f->then) {
		strbuf_addf(out, "  Rests on: %s stays the pick even at %.2fx its predicted speed (%s)\n", w->sc.node.system_id,
			    FLIP_MIN_X, model_basis_name(w->r.basis));
		return;
	}
	strbuf_addf(out, "  Rests on: %s stays the pick unless %s %s runs under %.2fx its predicted speed (then %s %dx%d); "
		    "predicted %.0f img/s (%.0f-%.0f), %s%s\n", w->sc.node.system_id, article(chip), chip, f->speed_x,
		    f->then->sc.node.system_id, f->then->sc.nodes, f->then->sc.node.gpus_per_node, w->r.throughput_img_s,
		    w->r.throughput_lo_img_s, w->r.throughput_hi_img_s, model_basis_name(w->r.basis),
		    w->r.basis == MODEL_BASIS_ESTIMATE ? ": no measured run of this GPU on file" : "");
}
