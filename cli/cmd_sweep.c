/* cli/cmd_sweep.c: `scaleplan sweep`: the procurement grid - systems x GPUs per node x nodes x batch
 * per GPU - one CSV row per configuration (atomic write), with capex, rent, owner's cost, power and energy
 * where the database has them and the constraints each row fails; --budget / --deadline keep the
 * configurations that meet them. The answer (plan_decide, as compare's) is given per GPU count of the
 * grid, or, for a grid of many counts, once over all of them and labelled so.
 * Per system and GPUs-per-node the model is prepared once; each grid point is one model_predict.
 * cmd_sweep reads as its steps: parse, candidates, grid, rank, write, answer.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* SW_MAX_COUNTS: GPU counts answered one by one (more: one answer over all, a screen of answers at most).
 * The decision re-predicts PLAN_SWEEP_TOP options per answer (the time-cost front of a million-row grid has a
 * few dozen points). */
enum { SW_MAXLIST = 1000000, SW_MAX_COUNTS = 16 };

/* What the command was asked. */
typedef struct sw_opts {
	cli_scen s;
	plan_question q;
	const char *systems, *outpath;
	int *nodes, *batches, *gpns, nn, nb, ng, global_batch;
	bool quiet, constrained;
} sw_opts;

/* Ranks the rows; millions take seconds: a progress bar unless quiet. 0 or ERR_INTR. */
static int sw_sort(plan_sweep_row *rows, long nrows, bool quiet)
{
	progress pg;
	if (quiet)
		return sort_intr(rows, (size_t)nrows, sizeof(*rows), plan_sweep_rank_cmp);
	progress_init(&pg, "sweep: ranking", nrows);
	int rc = sort_intr_progress(rows, (size_t)nrows, sizeof(*rows), plan_sweep_rank_cmp, &pg);
	if (rc == 0)
		progress_finish(&pg);
	else
		progress_break(&pg);
	return rc;
}

/* The message and exit status of a sweep stopped by SIGINT/SIGTERM. */
static int sw_interrupted(const char *when, const char *outpath)
{
	fprintf(stderr, "scaleplan sweep: interrupted (%s) %s; %s not written\n", intr_name(), when, outpath);
	return intr_exit_code();
}

/* ---- the answer ---- */

/* The decision over rows [from, to) (one GPU count, or all): the contenders predicted again as options. */
static void sw_decide(sw_opts *o, const plan_sweep *g, long from, long to, long gpus, const char *label)
{
	plan_option *opt = xcalloc(PLAN_SWEEP_TOP, sizeof(*opt));
	int n = plan_sweep_options(g, from, to, opt);
	plan_answer a;
	plan_decide(&o->q, opt, n, &a);
	cli_print_answer(label, &o->q, &a, gpus);
	plan_flip flip; /* what the pick rests on, as compare says it */
	strbuf rests;
	strbuf_init(&rests);
	plan_flip_find(&o->q, opt, n, &a, &o->s.params, &flip);
	plan_flip_text(&flip, &a, &rests);
	cli_print_wrapped(stdout, rests.s);
	strbuf_free(&rests);
	free(opt);
}

/* The answer per GPU count of the grid; with more counts than SW_MAX_COUNTS, once over all, labelled so
 * (the rows are then regrouped: the CSV is already written). */
static void sw_answer(sw_opts *o, plan_sweep *g)
{
	if (plan_sweep_by_gpus(g) > SW_MAX_COUNTS) {
		sw_decide(o, g, 0, g->nrows, 0, " (overall, not per GPU count: the grid has more than 16)");
		return;
	}
	for (long i = 0, j; i < g->nrows; i = j) {
		for (j = i; j < g->nrows && g->rows[j].gpus == g->rows[i].gpus; j++)
			;
		sw_decide(o, g, i, j, g->rows[i].gpus, "");
	}
}

/* ---- the options ---- */

/* --nodes, --batch-per-gpu and --gpus-per-node take lists in sweep: the shared options' entries of those
 * names are pointed here (same place in getopt's order and the help's). */
static int opt_list(void *ctx, const cli_opt *opt, const char *arg)
{
	sw_opts *o = ctx;
	if (strcmp(opt->name, "nodes") == 0)
		return cli_parse_int_list("sweep", "--nodes", arg, o->nodes, SW_MAXLIST, &o->nn) ? -1 : 0;
	if (strcmp(opt->name, "batch-per-gpu") == 0)
		return cli_parse_int_list("sweep", "--batch-per-gpu", arg, o->batches, SW_MAXLIST, &o->nb) ? -1 : 0;
	return cli_parse_int_list("sweep", "--gpus-per-node", arg, o->gpns, 1024, &o->ng) ? -1 : 0;
}

static void sweep_table(sw_opts *o, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_STR("out", &o->outpath,
			  "  --out FILE       the CSV (written to FILE.tmp, renamed when complete; a grid that gives no row\n"
			  "                   leaves FILE as it was and exits 1 with the reason)\n"),
		CLI_O_STR("systems", &o->systems,
			  "  --systems LIST   candidate systems; " CLI_DEFAULT_SYSTEMS_HELP
			  "  --gpus-per-node LIST  default each system's own (fewer than the system's need\n"
			  "                   --partial-nodes beyond one node)\n"
			  "  --nodes LIST     default 1,2,4,8,16\n"
			  "  --batch-per-gpu LIST  default auto: of 256 ... 8 that fit, the one of least time to accuracy\n"
			  "  --budget/--deadline keep only the configurations that meet them (and have the --cost price)\n"
			  "  --system ID      the same as --systems ID\n"
			  "  --global-batch GB  instead of --batch-per-gpu: each configuration runs GB / its GPU count per GPU\n"
			  "                   (configurations whose GPU count does not divide GB are left out)\n"),
		CLI_O_FLAG("quiet", &o->quiet, "  --quiet          no progress bar\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

/* The shared options' table with the grid's list options taking lists into o. */
static void sweep_scen_table(sw_opts *o, cli_opt *t)
{
	int n = cli_scen_opts(&o->s, t);
	for (int i = 0; i < n; i++)
		if (t[i].name && (strcmp(t[i].name, "nodes") == 0 || strcmp(t[i].name, "batch-per-gpu") == 0 ||
				  strcmp(t[i].name, "gpus-per-node") == 0)) {
			t[i].kind = CLI_OPT_CALL;
			t[i].fn = opt_list;
			t[i].ctx = o;
		}
}

/* The header line that header writes, as text (a fresh string; "" where it cannot be had). */
static char *header_text(void (*header)(csvw *w))
{
	char *text = NULL;
	size_t len_B = 0;
	FILE *m = open_memstream(&text, &len_B);
	if (!m)
		return xasprintf("%s", "");
	csvw *w = csvw_stream(m);
	header(w);
	csvw_close(w);
	fclose(m);
	text[strcspn(text, "\r\n")] = '\0';
	return text;
}

/* The CSV's columns as the writers name them (so that the help cannot miss one): predict's, then the
 * question's (plan_option_csv_header), stack last. */
static void sw_usage_cols(FILE *out)
{
	char *all = header_text(plan_option_csv_header), *pred = header_text(plan_row_csv_header);
	size_t n = strlen(pred) > strlen("stack") ? strlen(pred) - strlen("stack") : 0; /* pred without stack */
	const char *extra = strncmp(all, pred, n) == 0 ? all + n : all;
	fprintf(out, "Columns: predict's (`scaleplan predict --format csv`), then");
	int col = 60;
	for (const char *c = extra; *c;) {
		size_t len = strcspn(c, ",");
		if (col + (int)len + 2 > 100) {
			fprintf(out, "\n ");
			col = 1;
		}
		fprintf(out, " %.*s%s", (int)len, c, c[len] ? "," : ".\n");
		col += (int)len + 2;
		c += len + (c[len] ? 1 : 0);
	}
	free(all);
	free(pred);
}

static void sweep_usage(FILE *out)
{
	sw_opts o;
	cli_opt own[5];
	sweep_table(&o, own);
	fprintf(out,
		"usage: scaleplan sweep --out FILE [--systems LIST|all] [--nodes LIST] [--batch-per-gpu LIST]\n"
		"                       [--gpus-per-node LIST] [--budget USD] [--deadline D] [--cost capex|tco|rent]\n"
		"                       [--rank-by tta|ttt|cost|none] [--include-eol] [options]\n"
		"\n"
		"Writes one CSV row per configuration of the grid systems x GPUs per node x nodes x batch per GPU,\n"
		"in the order the question asks, then prints the answer per GPU count of the grid (fastest,\n"
		"cheapest, best value); a grid of more than 16 GPU counts gets one answer over all of them,\n"
		"labelled overall.\n");
	sw_usage_cols(out);
	fprintf(out, "LIST: a,b,c or a-b or a-b:step (e.g. --nodes 1-64 --batch-per-gpu 32-256:32).\n");
	cli_opt_help(out, own, NULL);
	fprintf(out,
		"SIGINT (^C) or SIGTERM stops the sweep, removes FILE.tmp and keeps an existing FILE as it was;\n"
		"the exit status is then 130 (SIGINT) or 143 (SIGTERM).\n"
		"\n");
	cli_ask_help(out, true);
	fprintf(out, "\n");
	cli_scen_help_except(out, "system,gpus-per-node,nodes,batch-per-gpu,global-batch"); /* lists, above */
}

/* The checks between options once all are read. EXIT_OK or EXIT_INPUT (message printed). */
static int sw_check(sw_opts *o)
{
	/* the shared options --system and --global-batch name what sweep's own grid options would */
	if (cli_check_not_both("sweep", "--systems", o->systems, "--system", o->s.spec.system_id))
		return EXIT_INPUT;
	if (o->s.spec.system_id)
		o->systems = o->s.spec.system_id;
	o->global_batch = o->s.spec.global_batch;
	if (cli_check_not_both("sweep", "--global-batch", o->global_batch, "--batch-per-gpu", o->nb))
		return EXIT_INPUT;
	if (!o->outpath) {
		fprintf(stderr, "scaleplan sweep: --out FILE is required (the grid is written as CSV)\n");
		return EXIT_INPUT;
	}
	int orc = cli_check_out("sweep", "--out", o->outpath, false);
	if (orc)
		return orc;
	for (int i = 0; i < o->nb; i++)
		if (o->batches[i] > 65536) {
			fprintf(stderr, "scaleplan sweep: --batch-per-gpu %d: at most 65536\n", o->batches[i]);
			return EXIT_INPUT;
		}
	for (int i = 0; i < o->nn; i++)
		if (o->nodes[i] > CLI_MAX_GPUS) {
			fprintf(stderr, "scaleplan sweep: --nodes %d: at most %d\n", o->nodes[i], CLI_MAX_GPUS);
			return EXIT_INPUT;
		}
	if (o->nn == 0) {
		static const int dflt[] = {1, 2, 4, 8, 16};
		memcpy(o->nodes, dflt, sizeof(dflt));
		o->nn = 5;
	}
	o->constrained = !isnan(o->q.budget_usd) || !isnan(o->q.deadline_s);
	return EXIT_OK;
}

/* Parses argv into o. EXIT_OK, EXIT_INPUT, or -1 after --help. */
static int sw_parse(int argc, char **argv, sw_opts *o)
{
	cli_opt scen[CLI_SCEN_NOPTS], ask[CLI_ASK_NOPTS], own[5];
	cli_ask qa = {.cmd = "sweep", .q = &o->q, .allow_grid = true};
	sweep_scen_table(o, scen);
	cli_ask_opts(&qa, ask);
	sweep_table(o, own);
	cli_parse p = {.cmd = "sweep", .tables = {scen, ask, own}, .usage = sweep_usage, .max_args = 0};
	int rc = cli_opt_parse(&p, argc, argv);
	if (p.done)
		return -1;
	return rc ? rc : sw_check(o);
}

/* ---- the grid ---- */

/* What the grid's callbacks need. */
typedef struct sw_ctx {
	const sw_opts *o;
	csvw *w;
	progress pg;
} sw_ctx;

static void sw_row_cb(void *ctx, const model_scenario *sc, const model_result *r, const model_cost *cost,
		      const plan_verdict *v)
{
	sw_ctx *c = ctx;
	plan_option_csv_row(c->w, &c->o->q, sc, r, cost, v, NULL, NULL);
}

static void sw_say(void *ctx, const char *system_id)
{
	(void)ctx;
	if (system_id)
		fprintf(stderr, "scaleplan sweep: %s: %s\n", system_id, err_msg());
	else
		fprintf(stderr, "scaleplan sweep: %s\n", err_msg());
}

static void sw_progress(void *ctx, long done)
{
	sw_ctx *c = ctx;
	if (!c->o->quiet)
		progress_update(&c->pg, done);
}

/* Every block of the grid (plan_sweep_grid), with a progress bar unless quiet. EXIT_OK, EXIT_INPUT, or the
 * interrupt's exit code. */
static int sw_run_grid(sw_opts *o, plan_sweep *g, const hw_system *const *cand, int ncand, csvw *w)
{
	sw_ctx c = {.o = o, .w = w};
	*g = (plan_sweep){.db = &o->s.db, .spec = &o->s.spec, .params = &o->s.params, .q = &o->q, .nodes = o->nodes,
			  .batches = o->batches, .gpns = o->gpns, .nn = o->nn, .nb = o->nb, .ng = o->ng,
			  .global_batch = o->global_batch, .constrained = o->constrained, .row = sw_row_cb, .say = sw_say,
			  .progress = sw_progress, .ctx = &c};
	if (!o->quiet)
		progress_init(&c.pg, "sweep", plan_sweep_total(g, ncand));
	int rc = plan_sweep_grid(g, cand, ncand);
	if (rc == ERR_INTR) {
		if (!o->quiet)
			progress_break(&c.pg);
		fprintf(stderr, "scaleplan sweep: interrupted (%s) after %ld of %ld configurations; %s not written\n",
			intr_name(), g->done, g->total, o->outpath);
		return intr_exit_code();
	}
	if (rc)
		return EXIT_INPUT;
	if (!o->quiet) {
		progress_update(&c.pg, g->done);
		progress_finish(&c.pg);
	}
	return EXIT_OK;
}

/* Why configurations were left out, "; 5 with more GPUs per node than the system has" ... */
static void sw_print_skips(FILE *f, const sw_opts *o, const plan_sweep *g)
{
	if (g->skipped_budget)
		fprintf(f, "; %ld over budget, too slow or without a %s price", g->skipped_budget, plan_cost_name(o->q.cost));
	if (g->skipped_epoch)
		fprintf(f, "; %ld whose global batch is more than an epoch's images", g->skipped_epoch);
	if (g->skipped_partial)
		fprintf(f, "; %ld leaving GPUs of a node idle (--partial-nodes keeps them)", g->skipped_partial);
	if (g->skipped_net)
		fprintf(f, "; %ld multi-node without a network (--fabric ID adds one)", g->skipped_net);
	if (g->skipped_mem)
		fprintf(f, "; %ld do not fit GPU memory (bottleneck 'memory')", g->skipped_mem);
	if (g->skipped_nofit_block)
		fprintf(f, "; %ld on systems where not even 8 images per GPU fit", g->skipped_nofit_block);
	if (g->skipped_gb)
		fprintf(f, "; %ld whose GPU count does not divide --global-batch %d", g->skipped_gb, o->global_batch);
	if (g->skipped_gpn)
		fprintf(f, "; %ld with more GPUs per node than the system has", g->skipped_gpn);
}

/* The kept rows ranked and written (each predicted again), then the file closed and renamed: never an
 * empty one in place of a file (exit 1 with the reasons). EXIT_OK, EXIT_INPUT, EXIT_ENV or the interrupt's. */
static int sw_write(sw_opts *o, plan_sweep *g, csvw **w)
{
	intr_phase("sort"); /* millions of rows take seconds to rank and to write: both phases answer a signal */
	if (o->q.goal != PLAN_GRID && g->nrows > 0 && sw_sort(g->rows, g->nrows, o->quiet) == ERR_INTR)
		return sw_interrupted("while ranking the rows", o->outpath);
	intr_phase("write");
	progress pg;
	bool show = !o->quiet && o->q.goal != PLAN_GRID;
	model_scenario psc;
	model_result pr;
	model_cost pcost;
	double flip_x = NAN;
	bool picked = o->q.goal != PLAN_GRID && plan_sweep_pick(g, &psc, &pr, &pcost, &flip_x);
	if (show)
		progress_init(&pg, "sweep: writing", g->nrows);
	for (long i = 0; i < g->nrows && o->q.goal != PLAN_GRID; i++) {
		model_scenario *sc;
		model_result r;
		model_cost cost;
		if (intr_pending()) {
			if (show)
				progress_break(&pg);
			return sw_interrupted("while writing the rows", o->outpath);
		}
		if (show && (i & 4095) == 0)
			progress_update(&pg, i);
		if (plan_sweep_predict(g, i, &sc, &r, &cost)) { /* predicted once already: cannot fail */
			fprintf(stderr, "scaleplan sweep: %s: %s\n", sc->node.system_id, err_msg());
			return EXIT_INPUT;
		}
		plan_option_csv_row(*w, &o->q, sc, &r, &cost, &g->rows[i].v, picked ? &psc : NULL, picked ? &pr : NULL);
	}
	if (show) {
		progress_update(&pg, g->nrows);
		progress_finish(&pg);
	}
	if (intr_pending()) /* the streamed grid (--rank-by none) ends here */
		return sw_interrupted("while writing the rows", o->outpath);
	if (g->written == 0 && o->global_batch && g->skipped_gb == g->total) {
		fprintf(stderr, "scaleplan sweep: --global-batch %d is not a multiple of the GPU count of any configuration "
			"of the grid; %s left as it was\n", o->global_batch, o->outpath);
		return EXIT_INPUT;
	}
	if (g->written == 0) {
		fprintf(stderr, "scaleplan sweep: none of the %ld configurations gives a row", g->total);
		sw_print_skips(stderr, o, g);
		fprintf(stderr, "; %s left as it was\n", o->outpath);
		return EXIT_INPUT;
	}
	int crc = csvw_close(*w);
	*w = NULL;
	if (crc == ERR_INTR)
		return sw_interrupted("before the rename", o->outpath);
	if (crc) {
		fprintf(stderr, "scaleplan sweep: %s\n", err_msg());
		return EXIT_ENV;
	}
	char order[160];
	fprintf(stderr, "scaleplan sweep: %ld configuration%s, %ld row%s written to %s (%s first; ordered by %s)",
		g->total, g->total == 1 ? "" : "s", g->written, g->written == 1 ? "" : "s", o->outpath,
		plan_goal_name(&o->q), plan_order_text(&o->q, order, sizeof order));
	sw_print_skips(stderr, o, g);
	fprintf(stderr, "\n");
	return EXIT_OK;
}

/* The candidate systems: --systems LIST (any status), 'all' (every system of today), else today's products as
 * compare offers them (plan_default_system; --include-eol adds the end-of-life ones). */
static int sw_candidates(sw_opts *o, const hw_system ***cand, int *ncand)
{
	*cand = xcalloc((size_t)o->s.db.nsystems + 1, sizeof(**cand));
	int rc = cli_candidates(&o->s, "sweep", o->systems, &o->q, *cand, o->s.db.nsystems, ncand);
	if (!rc && o->s.spec.nmeasured && *ncand > 1 && !o->s.spec.measured_system_id) {
		fprintf(stderr, "scaleplan sweep: --measured describes one system: name it with --measured-system ID, or "
				"give exactly one in --systems\n");
		rc = EXIT_INPUT;
	}
	/* the grid's largest configuration within the GPU limit every command shares */
	int max_nodes = 0, max_gpn = 0;
	for (int i = 0; i < o->nn; i++)
		max_nodes = o->nodes[i] > max_nodes ? o->nodes[i] : max_nodes;
	for (int i = 0; i < o->ng; i++)
		max_gpn = o->gpns[i] > max_gpn ? o->gpns[i] : max_gpn;
	for (int i = 0; !rc && i < *ncand; i++)
		rc = cli_check_gpus("sweep", max_nodes, max_gpn ? max_gpn : (*cand)[i]->gpus_per_node);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	sw_opts o = {0};
	plan_sweep g = {0};
	const hw_system **cand = NULL;
	int ncand = 0, rc;
	csvw *w = NULL;

	plan_question_init(&o.q);
	cli_scen_init(&o.s, "sweep");
	o.s.columns_help = cli_columns_judged;
	o.nodes = xmalloc(SW_MAXLIST * sizeof(int));
	o.batches = xmalloc(SW_MAXLIST * sizeof(int));
	o.gpns = xmalloc(1024 * sizeof(int));
	rc = sw_parse(argc, argv, &o);
	if (rc)
		goto out;
	if ((rc = cli_scen_load(&o.s)) || (rc = sw_candidates(&o, &cand, &ncand)))
		goto out;
	/* before the temporary file exists: from here a signal stops the loop, which removes it */
	if (intr_install()) {
		fprintf(stderr, "scaleplan sweep: %s\n", err_msg());
		rc = EXIT_ENV;
		goto out;
	}
	intr_phase("compute");
	if ((rc = csvw_create(o.outpath, &w))) { /* README's rule: a missing folder is 1, permission or disk 2 */
		fprintf(stderr, "scaleplan sweep: --out %s\n", err_msg());
		rc = exit_code_of(rc);
		goto out;
	}
	if (o.s.columns && strcmp(o.s.columns, "all") != 0)
		csvw_select(w, o.s.columns);
	plan_option_csv_header(w);
	if (csvw_status(w)) {
		fprintf(stderr, "scaleplan sweep: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	if ((rc = sw_run_grid(&o, &g, cand, ncand, w)) || (rc = sw_write(&o, &g, &w)))
		goto out;
	if (o.q.goal != PLAN_GRID || o.constrained)
		sw_answer(&o, &g);
out:
	if (rc < 0)
		rc = EXIT_OK; /* --help */
	csvw_abort(w);
	plan_sweep_free(&g);
	free(o.nodes);
	free(o.batches);
	free(o.gpns);
	free(cand);
	cli_scen_free(&o.s);
	return rc;
}
