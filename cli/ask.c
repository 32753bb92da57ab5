/* cli/ask.c: the buyer's question that compare, report and sweep share - its options (plan_question), the
 * candidate systems, the placements of a GPU count on them and why none was left - and the answer printed:
 * parsing and messages only; the question is judged and decided in plan/.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

static int ask_bad(const char *cmd, const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "scaleplan %s: --%s '%s': expected %s\n", cmd, opt, arg, want);
	return -1;
}

/* The question's options whose values need more than a range; ctx is the cli_ask. */
static int opt_rank_by(void *ctx, const cli_opt *o, const char *arg)
{
	cli_ask *a = ctx;
	if (strcmp(arg, "tta") == 0)
		a->q->goal = PLAN_TTA;
	else if (strcmp(arg, "ttt") == 0)
		a->q->goal = PLAN_TTT;
	else if (strcmp(arg, "cost") == 0)
		a->q->goal = PLAN_COST;
	else if (a->allow_grid && strcmp(arg, "none") == 0)
		a->q->goal = PLAN_GRID;
	else
		return ask_bad(a->cmd, o->name, arg, a->allow_grid ? "tta, ttt, cost or none" : "tta, ttt or cost");
	return 0;
}

static int opt_cost(void *ctx, const cli_opt *o, const char *arg)
{
	cli_ask *a = ctx;
	int k = plan_cost_parse(arg);
	if (k < 0)
		return ask_bad(a->cmd, o->name, arg, "run, capex, tco or rent");
	a->q->cost = (plan_cost)k;
	return 0;
}

static int opt_deadline(void *ctx, const cli_opt *o, const char *arg)
{
	cli_ask *a = ctx;
	double v;
	(void)o;
	if (plan_parse_duration(arg, &v)) {
		fprintf(stderr, "scaleplan %s: --deadline %s\n", a->cmd, err_msg());
		return -1;
	}
	a->q->deadline_s = v;
	return 0;
}

static int opt_site_kw(void *ctx, const cli_opt *o, const char *arg)
{
	cli_ask *a = ctx;
	double kw;
	if (cli_parse_double(arg, 1e-3, 1e7, &kw))
		return ask_bad(a->cmd, o->name, arg, "kW of IT power, 0.001..10000000 (e.g. 700)");
	a->q->site_W = kw * 1e3;
	return 0;
}

int cli_ask_opts(cli_ask *a, cli_opt *t)
{
	plan_question *q = a->q;
	const cli_opt ask[] = {
		CLI_O_TEXT("the question:\n"),
		CLI_O_CALL("rank-by", opt_rank_by, a,
			   a->allow_grid ? "  --rank-by K       tta (default): wall-clock time to accuracy; ttt: MLPerf-scored time to train;\n"
					   "                    cost: the --cost below (options without that price listed last); none: grid order, streamed\n"
					 : "  --rank-by K       tta (default): wall-clock time to accuracy; ttt: MLPerf-scored time to train;\n"
					   "                    cost: the --cost below (options without that price listed last)\n"),
		CLI_O_CALL("cost", opt_cost, a,
			   "  --cost C          run (default): a run's share of the month of work as its buyer pays it - owned,\n"
			   "                    tco; rented, rent - so bought and rented options rank together | capex (servers\n"
			   "                    in whole units + network + a priced store; a rental counts as the dearest) | tco\n"
			   "                    (the owner's cost per run, spelt out with its figures in predict's owner's\n"
			   "                    cost line and compare's legend) | rent (as\n"
			   "                    billed: whole instances and minimum units at the rental rate)\n"),
		CLI_O_DBL("budget", &q->budget_usd, 1e-9, 1e15, "an amount in USD above 0 and at most 1e15 (e.g. 2500000)",
			  "  --budget USD      caps the capex of bought options (rentals commit none and stay in); a filter:\n"
			  "                    one that excludes nothing changes nothing\n"),
		CLI_O_CALL("deadline", opt_deadline, a,
			   "  --deadline D      options must reach accuracy within D (90min, 2.5h, 3d, s): those that do with 90%\n"
			   "                    confidence (the upper end of their interval) first; if none, those whose predicted\n"
			   "                    time does (with its probability); alone: the cheapest of them; with --budget:\n"
			   "                    the fastest within budget that meets it. Each option says what it fails and by how much\n"),
		CLI_O_CALL("site-kw", opt_site_kw, a,
			   "  --site-kw KW      the IT power the site gives the cluster: a bought option whose peak draw (CSV\n"
			   "                    power_max_W, all nodes bought at full load) is above it fails (rentals are off site)\n"),
		CLI_O_FLAG("partial-nodes", &q->partial_nodes,
			   "  --partial-nodes   also offer placements that leave GPUs of a node idle (costed as whole nodes);\n"
			   "                    default: whole nodes only (one partial node when the GPUs are fewer than a node)\n"),
		CLI_O_FLAG("extrapolate", &q->extrapolate,
			   "  --extrapolate     let configurations whose global batch is above the largest measured convergence\n"
			   "                    point (67,840) be recommended (default: listed, marked ~, never recommended)\n"),
		CLI_O_FLAG("include-eol", &q->include_eol,
			   "  --include-eol     offer end-of-life systems too (default: today's products; a system named in\n"
			   "                    --systems is offered whatever its status; its price is then historical)\n"),
		CLI_O_TEXT("  the answer names the fastest, the cheapest and the best value (the knee of the time-cost front);\n"
			   "  an option is faster only when the 90% interval of its time over the other's lies below 1 (what two\n"
			   "  predictions share cancels: model/ratios.csv); otherwise a tie, broken by the cost compared, then the\n"
			   "  capex committed (a rental none), then the name; CSV rows carry ttt_ratio, tta_ratio (over the pick's)\n"
			   "  with _lo, _hi\n"),
		CLI_O_END,
	};
	memcpy(t, ask, sizeof ask);
	return (int)(sizeof ask / sizeof ask[0]) - 1;
}

void cli_ask_help(FILE *out, bool allow_grid)
{
	plan_question q;
	cli_ask a = {.cmd = "", .q = &q, .allow_grid = allow_grid};
	cli_opt t[CLI_ASK_NOPTS];
	cli_ask_opts(&a, t);
	cli_opt_help(out, t, NULL);
}

int cli_candidates(cli_scen *s, const char *cmd, const char *systems, const plan_question *q, const hw_system **cand,
		   int max, int *n)
{
	char unknown[256], where[64], list[1024];
	if (systems) { /* "dgxb200, dgxh100" as typed in a shell: the blanks around each id dropped */
		size_t k = 0;
		for (const char *c = systems; *c && k + 1 < sizeof list; c++)
			if (*c != ' ' && *c != '\t')
				list[k++] = *c;
		list[k] = '\0';
		systems = list;
	}
	if (!plan_candidates(&s->db, q, systems, cand, max, n, unknown, sizeof unknown))
		return EXIT_OK;
	snprintf(where, sizeof where, "%s: --systems", cmd);
	if (*unknown)
		return cli_unknown_id(&s->db, where, HW_SYSTEM, unknown);
	fprintf(stderr, "scaleplan %s: %s\n", cmd, err_msg());
	return EXIT_INPUT;
}

int cli_placements(cli_scen *s, const char *cmd, const plan_question *q, const hw_system *const *cand, int ncand,
		   long gpus, plan_option **rows, int *nrows, int *cap, int *skipped_net, int *skipped_whole)
{
	if (plan_placements(&s->db, &s->spec, &s->params, q, cand, ncand, gpus, rows, nrows, cap, skipped_net,
			    skipped_whole)) {
		fprintf(stderr, "scaleplan %s: %s\n", cmd, err_msg());
		return EXIT_INPUT;
	}
	double best_s = INFINITY;
	for (int i = 0; i < *nrows; i++)
		if ((*rows)[i].r.fits && (*rows)[i].r.tta_s < best_s)
			best_s = (*rows)[i].r.tta_s;
	return cli_check_runs_fit(cmd, &s->spec.money, best_s);
}

int cli_no_placement(const char *cmd, long gpus, int skipped_net, int skipped_whole)
{
	fprintf(stderr, "scaleplan %s: no candidate system can hold %ld GPUs", cmd, gpus);
	if (skipped_net)
		fprintf(stderr, ": %d placement%s over several nodes need%s a network between nodes that the database "
				"does not give the system (a test bed, a single server: --fabric ID adds one)", skipped_net,
			skipped_net > 1 ? "s" : "", skipped_net > 1 ? "" : "s");
	if (skipped_whole)
		fprintf(stderr, "%s %d system%s another node size (--partial-nodes offers %s)", skipped_net ? ";" : ":",
			skipped_whole, skipped_whole > 1 ? "s have" : " has", skipped_whole > 1 ? "them" : "it");
	fprintf(stderr, "\n");
	return EXIT_INPUT;
}

void cli_print_answer(const char *label, const plan_question *q, const plan_answer *a, long gpus)
{
	strbuf b;
	strbuf_init(&b);
	strbuf_addf(&b, "answer%s: ", label);
	plan_answer_write(q, a, gpus, &b);
	cli_print_wrapped(stdout, b.s);
	strbuf_free(&b);
}
