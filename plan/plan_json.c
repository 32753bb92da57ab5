/* plan_json.c: the decision (plan_decide) as JSON - what compare --answer-json writes and the page reads: the
 * pick, its alternates, scale up vs out, buy vs rent, the counts, the fold of the table and the answer's lines
 * (plan_text.c's words), from the same struct the words come from. Decides nothing.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* One option: where it is, its time with the 90% interval and its money; null for none. */
static void json_option(FILE *f, const char *name, const plan_option *w, bool more)
{
	json_put_str(f, name);
	fputs(": ", f);
	if (!w)
		fputs("null", f);
	else {
		fputs("{", f);
		json_member_str(f, "system", w->sc.node.system_id, true, false);
		json_member_str(f, "gpu", w->sc.node.gpu_id, true, false);
		json_member_num(f, "nodes", w->sc.nodes, true, false);
		json_member_num(f, "gpus_per_node", w->sc.node.gpus_per_node, true, false);
		json_member_num(f, "time_s", w->v.time_s, true, false);
		json_member_num(f, "time_lo_s", w->v.time_lo_s, true, false);
		json_member_num(f, "time_hi_s", w->v.time_hi_s, true, false);
		json_member_num(f, "cost_usd", w->v.cost_usd, true, false);
		json_member_num(f, "run_cost_usd", w->v.run_cost_usd, true, false);
		json_member_num(f, "capex_usd", w->cost.capex_usd, true, false);
		json_member_num(f, "rent_usd", w->cost.rent_usd, true, false);
		json_member_num(f, "idle_gpus", w->v.idle_gpus, false, false);
		fputs("}", f);
	}
	fputs(more ? ",\n" : "\n", f);
}

static void json_scale(FILE *f, const plan_scale *s)
{
	fputs("\"scale\": ", f);
	if (!s->up) { /* nothing to weigh: every qualifying option spans as many NVLink domains */
		fprintf(f, "{\"up\": null, \"out\": null, \"domains\": %d},\n", s->domains);
		return;
	}
	fputs("{", f);
	json_option(f, "up", s->up, true);
	json_option(f, "out", s->out, true);
	json_member_str(f, "verdict", s->same_domains ? "neither" : s->pick == s->up ? "up" : "out", true, false);
	if (s->same_domains)
		fprintf(f, "\"domains\": %d, ", s->domains);
	fprintf(f, "\"as_fast\": %s, \"same_gpu\": %s, ", s->tied ? "true" : "false", s->same_gpu ? "true" : "false");
	if (s->generation)
		json_member_str(f, "generation", s->generation, true, false);
	fprintf(f, "\"any_gpu\": %s, ", s->any_gpu ? "true" : "false");
	json_member_num(f, "time_ratio", s->time_x, true, false);
	json_member_num(f, "time_ratio_lo", s->lo_x, true, false);
	json_member_num(f, "time_ratio_hi", s->hi_x, true, false);
	json_member_num(f, "gpu_ratio", s->gpu_x, true, false);
	json_member_num(f, "topology_ratio", s->topo_x, false, false);
	fputs("},\n", f);
}

static void json_buy_rent(FILE *f, const plan_buy_rent *b)
{
	fputs("\"buy_rent\": ", f);
	if (!b->buy || !b->rent_id) {
		fputs("null,\n", f);
		return;
	}
	fputs("{", f);
	json_option(f, "buy", b->buy, true);
	json_member_str(f, "rent_system", b->rent_id, true, false);
	json_member_num(f, "rent_usd_gpu_h", b->rent_usd_gpu_h, true, false);
	json_member_num(f, "owner_usd_run", b->owner_usd_run, true, false);
	json_member_num(f, "rent_usd_run", b->rent_usd_run, true, false);
	json_member_num(f, "breakeven_runs_month", b->breakeven_runs_month, true, false);
	json_member_num(f, "max_runs_month", b->max_runs_month, true, false);
	json_member_num(f, "flip_usd_gpu_h", b->flip_usd_gpu_h, false, false);
	fputs("},\n", f);
}

/* The answer's lines (plan_answer_write) as a JSON array of strings, without their indent. */
static void json_lines(FILE *f, const plan_question *q, const plan_answer *a, const plan_flip *flip, long gpus)
{
	strbuf b;
	strbuf_init(&b);
	plan_answer_write(q, a, gpus, &b);
	plan_flip_text(flip, a, &b); /* the page shows what the pick rests on as compare prints it */
	fputs("\"lines\": [", f);
	bool first = true;
	for (char *l = b.s; *l;) {
		char *e = strchr(l, '\n'), *next = e ? e + 1 : l + strlen(l);
		if (e)
			*e = '\0';
		fputs(first ? "" : ", ", f);
		json_put_str(f, l + strspn(l, " "));
		first = false;
		l = next;
	}
	fputs("]\n", f);
	strbuf_free(&b);
}

/* "fold": for each option in the CSV's order, the index of the row it folds into (plan_fold: offers of the
 * same hardware and time, as the table folds them), -1 for a row shown: the page folds its table by it. */
static void json_fold(FILE *f, const plan_answer *a)
{
	int *fold = xmalloc((size_t)(a->noptions > 0 ? a->noptions : 1) * sizeof(*fold));
	plan_fold(a->options, a->noptions, a->winner, fold);
	fputs("\"fold\": [", f);
	for (int i = 0; i < a->noptions; i++)
		fprintf(f, "%s%d", i ? ", " : "", fold[i]);
	fputs("],\n", f);
	free(fold);
}

void plan_answer_json(FILE *f, const plan_question *q, const plan_answer *a, const plan_flip *flip, long gpus)
{
	fputs("{", f);
	json_member_str(f, "rule", PLAN_RULE, true, false);
	json_member_num(f, "gpus", (double)gpus, true, false);
	json_member_str(f, "cost", plan_cost_name(q->cost), true, false);
	json_member_num(f, "budget_usd", q->budget_usd, true, false);
	json_member_num(f, "deadline_s", q->deadline_s, true, false);
	fputs("\n", f);
	json_option(f, "pick", a->winner, true);
	json_option(f, "fastest", a->fastest, true);
	json_option(f, "cheapest", a->cheapest, true);
	json_option(f, "best_value", a->best_value, true);
	json_option(f, "nearest", a->near_miss, true);
	json_scale(f, &a->scale);
	json_buy_rent(f, &a->buy_rent);
	fputs("\"counts\": {", f);
	json_member_num(f, "options", a->noptions, true, false);
	json_member_num(f, "qualified", a->nqualified, true, false);
	json_member_num(f, "front", a->nfront, true, false);
	json_member_num(f, "as_fast", a->nas_fast, true, false);
	json_member_num(f, "over_budget", a->nfail_budget, true, false);
	json_member_num(f, "past_deadline", a->nfail_deadline, true, false);
	json_member_num(f, "without_price", a->nfail_price, true, false);
	json_member_num(f, "extrapolated", a->nextrapolated, true, false);
	json_member_num(f, "rented", a->nrented, false, false);
	fputs("},\n", f);
	json_fold(f, a);
	json_lines(f, q, a, flip, gpus);
	fputs("}\n", f);
}
