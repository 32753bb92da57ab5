/* cli/cmd_compare.c: `scaleplan compare --gpus N`: every way to place N GPUs on the candidate systems
 * (whole nodes; with --partial-nodes 1 x N ... N x 1 as far as a node holds them), ranked as the question
 * asks (plan_order_text), each with its bottleneck, money and the constraints it fails, then the one
 * decision (plan_decide): fastest, cheapest, best value, scale up vs out for one GPU model, buy vs rent.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

static const char *const formats[] = {"table", "csv", NULL};

/* compare's own options; the shared ones and the question's are cli_scen_opts' and cli_ask_opts'. */
enum { CMP_MAX_COUNTS = 16 };
typedef struct cmp_opts {
	const char *systems, *format, *outpath, *answer_json;
	int counts[CMP_MAX_COUNTS], ncounts; /* --gpus: one count, or several decided as one question */
	bool all_rows;
} cmp_opts;

static int opt_gpus(void *ctx, const cli_opt *o, const char *arg)
{
	cmp_opts *co = ctx;
	(void)o;
	if (!strpbrk(arg, ",-:")) { /* one count: its range said */
		long v;
		if (cli_parse_long(arg, 1, CLI_MAX_GPUS, &v)) {
			fprintf(stderr, "scaleplan compare: --gpus '%s': expected an integer 1..%d (or a list: 8,16,32)\n", arg,
				CLI_MAX_GPUS);
			return -1;
		}
		co->counts[0] = (int)v;
		co->ncounts = 1;
		return 0;
	}
	if (cli_parse_int_list("compare", "--gpus", arg, co->counts, CMP_MAX_COUNTS, &co->ncounts))
		return -1;
	for (int i = 0; i < co->ncounts; i++)
		if (co->counts[i] < 1 || co->counts[i] > CLI_MAX_GPUS) {
			fprintf(stderr, "scaleplan compare: --gpus '%s': %d: expected an integer 1..%d\n", arg, co->counts[i],
				CLI_MAX_GPUS);
			return -1;
		}
	return 0;
}

static void compare_table(cmp_opts *co, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_CALL("gpus", opt_gpus, co,
			   "  --gpus N        total GPUs (1.." CLI_STR(CLI_MAX_GPUS_N) "); a list (8,16,32,...) is one question:\n"
			   "                  the count is part of each option and the rule picks over all of them;\n"
			   "                  left out with --deadline: the fewest of 8,16,...,1024 at which an option\n"
			   "                  meets it, and the rule's pick at that count\n"),
		CLI_O_STR("systems", &co->systems, "  --systems LIST  candidate systems; " CLI_DEFAULT_SYSTEMS_HELP),
		CLI_O_ENUM("format", &co->format, formats, "table or csv",
			   "  --format F      table (default) or csv;  --out FILE  write the CSV to FILE (atomic)\n"),
		CLI_O_STR("out", &co->outpath, NULL),
		CLI_O_STR("answer-json", &co->answer_json,
			  "  --answer-json FILE  write the answer (pick, alternates, verdicts, what was left out) as JSON\n"),
		CLI_O_FLAG("all-rows", &co->all_rows,
			   "  --all-rows      one row per offer (default: offers of the same hardware and time folded into one)\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void compare_usage(FILE *out)
{
	cmp_opts co;
	cli_opt own[8];
	compare_table(&co, own);
	strbuf b; /* the rule is one sentence of 240 characters: the text wrapped at 200 */
	strbuf_init(&b);
	strbuf_addf(&b,
		"usage: scaleplan compare --gpus N [--systems a,b,c] [--rank-by tta|ttt|cost] [--cost run|capex|tco|rent]\n"
		"                         [--budget USD] [--deadline D] [--partial-nodes] [--format table|csv]\n"
		"                         [--out FILE] [options]\n"
		"       scaleplan compare --deadline D [options]   (the fewest GPUs at which an option meets D)\n"
		"\n"
		"Every way to place N GPUs on each candidate system on whole servers (nodes x the system's GPUs per\n"
		"node; --partial-nodes adds 1xN ... Nx1 as far as a node holds them), ranked, with the bottleneck,\n"
		"software stack and cost of each, then the answer: which to buy or rent, scale up or scale out?\n"
		"\n"
		"The pick (marked > in the table): %s. The cost compared (--cost run, the default) is a run's\n"
		"share of the month of work as its buyer pays it: owned, the owner's month over its runs; rented, the\n"
		"month's rent over the same runs, so buying and renting rank together; a tie goes to the option committing\n"
		"less (capex; a rental commits none), then the name. --budget caps the capex of bought options (rentals\n"
		"are outside it; a budget that excludes nothing changes nothing); --deadline alone asks for the cheapest\n"
		"option that meets it. An option without the price compared is left out.\n",
		PLAN_RULE);
	cli_print_wrapped(out, b.s);
	strbuf_free(&b);
	cli_opt_help(out, own, NULL);
	fprintf(out, "\n");
	cli_ask_help(out, false);
	fprintf(out, "\n");
	cli_scen_help_except(out, "system,gpus-per-node,nodes,global-batch"); /* compare chooses them */
}

/* The whole answer (plan_answer_json) into path through path.tmp (file_write_atomic). */
static int write_answer_json(const char *path, const plan_question *q, const plan_answer *a, const plan_flip *flip,
			     long gpus)
{
	char *buf = NULL;
	size_t len_B = 0;
	FILE *f = open_memstream(&buf, &len_B);
	if (!f) {
		fprintf(stderr, "scaleplan compare: --answer-json: out of memory\n");
		return EXIT_ENV;
	}
	plan_answer_json(f, q, a, flip, gpus);
	fclose(f);
	int rc = file_write_atomic(path, buf, len_B);
	free(buf);
	if (rc) {
		fprintf(stderr, "scaleplan compare: --answer-json %s\n", err_msg());
		return exit_code_of(rc);
	}
	return EXIT_OK;
}

/* The CSV to stdout, or to --out through FILE.tmp (before the table is printed), with SIGINT/SIGTERM held from
 * the last check to the rename, so exit 130/143 always means the old file is kept and exit 0 the new one is in place. */
static int write_csv(const char *outpath, const char *columns, const plan_question *q, plan_option *rows, int nrows,
		     const plan_answer *a)
{
	csvw *w = NULL;
	if (!outpath)
		w = csvw_stream(stdout);
	else {
		int crc = csvw_create(outpath, &w); /* README's rule: a missing folder is 1, permission or disk 2 */
		if (crc) {
			fprintf(stderr, "scaleplan compare: --out %s\n", err_msg());
			return exit_code_of(crc);
		}
	}
	const model_scenario *psc = a->winner ? &a->winner->sc : NULL;
	const model_result *pr = a->winner ? &a->winner->r : NULL;
	if (columns && strcmp(columns, "all") != 0)
		csvw_select(w, columns);
	plan_option_csv_header(w);
	for (int i = 0; i < nrows; i++)
		plan_option_csv_row(w, q, &rows[i].sc, &rows[i].r, &rows[i].cost, &rows[i].v, psc, pr);
	if (outpath)
		intr_phase("rename"); /* the test hook's signal before the hold: it must keep the old file */
	if (outpath && intr_hold()) {
		csvw_abort(w);
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		return EXIT_ENV;
	}
	int crc = csvw_close(w);
	if (crc) { /* only --columns is the user's input here; the rest is the disk's */
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		return exit_code_of(crc) == EXIT_INPUT && !columns ? EXIT_ENV : exit_code_of(crc);
	}
	return EXIT_OK;
}

/* One compare: the options and the question, then the candidates, the placements and what was left out. */
typedef struct cmp_run {
	cli_scen s;
	plan_question q;
	cmp_opts co;
	int col[PLAN_TABLE_MAX_COLS], ncol; /* the table's columns (--columns) */
	long gpus;                          /* one count, or 0: several counts, one question */
	char counts[CMP_MAX_COUNTS * 12];   /* "8,16,32" for the heading */
	bool find_count;                    /* --deadline alone: the fewest GPUs that meet it */
	plan_count found;
	const hw_system *cand[256];
	int ncand;
	plan_option *rows;
	int nrows, cap, skipped_net, skipped_whole;
} cmp_run;

/* --deadline without --gpus: the fewest of plan_deadline_counts at which an option meets it into the one count
 * (none: the largest, whose table shows how far it falls short) and c->found. */
static int deadline_count(cmp_run *c)
{
	long n_[PLAN_DEADLINE_NCOUNTS];
	int n = plan_deadline_counts(n_, PLAN_DEADLINE_NCOUNTS);
	if (plan_deadline_count(&c->s.db, &c->s.spec, &c->s.params, &c->q, c->cand, c->ncand, n_, n, &c->found)) {
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		return EXIT_INPUT;
	}
	c->co.counts[0] = (int)n_[c->found.at >= 0 ? c->found.at : n - 1];
	c->co.ncounts = 1;
	c->gpus = c->co.counts[0];
	snprintf(c->counts, sizeof c->counts, "%d", c->co.counts[0]);
	return EXIT_OK;
}

/* The options parsed and checked against each other, before anything is loaded: EXIT_OK, or the exit code with
 * the message printed (*done after --help). */
static int cmp_parse(cmp_run *c, int argc, char **argv, bool *done)
{
	cli_opt scen[CLI_SCEN_NOPTS], ask[CLI_ASK_NOPTS], own[8];
	cli_ask qa = {.cmd = "compare", .q = &c->q};
	cli_scen_opts(&c->s, scen);
	cli_ask_opts(&qa, ask);
	compare_table(&c->co, own);
	cli_parse p = {.cmd = "compare", .tables = {scen, ask, own}, .usage = compare_usage, .max_args = 0};
	int rc = cli_opt_parse(&p, argc, argv);
	*done = p.done;
	if (rc || p.done)
		return rc;
	c->gpus = c->co.ncounts == 1 ? c->co.counts[0] : 0;
	for (int k = 0; k < c->co.ncounts; k++)
		snprintf(c->counts + strlen(c->counts), sizeof c->counts - strlen(c->counts), "%s%d", k ? "," : "",
			 c->co.counts[k]);
	if ((rc = cli_check_out("compare", "--out", c->co.outpath, false)) ||
	    (rc = cli_check_out("compare", "--answer-json", c->co.answer_json, false)))
		return rc;
	if (strcmp(c->co.format, "table") == 0 && plan_table_columns(c->s.columns, c->col, &c->ncol)) {
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		return EXIT_INPUT;
	}
	c->find_count = c->co.ncounts < 1 && !isnan(c->q.deadline_s);
	if (c->co.ncounts < 1 && !c->find_count) {
		fprintf(stderr, "scaleplan compare: --gpus N is required (e.g. --gpus 8), unless --deadline T alone asks "
				"for the fewest GPUs that meet it\n");
		return EXIT_INPUT;
	}
	const plan_spec *sp = &c->s.spec;
	if (sp->system_id || sp->gpus_per_node || sp->nodes != 1 || sp->global_batch) {
		fprintf(stderr, "scaleplan compare: --system/--gpus-per-node/--nodes/--global-batch are chosen by "
				"compare; use --systems and --gpus (or `predict` for one placement)\n");
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* The database loaded, the candidates, the count (a deadline alone) and every placement of each count, sorted:
 * EXIT_OK, or the exit code with the message printed. */
static int cmp_place(cmp_run *c)
{
	int rc;
	if ((rc = cli_scen_load(&c->s)) ||
	    (rc = cli_candidates(&c->s, "compare", c->co.systems, &c->q, c->cand, 256, &c->ncand)))
		return rc;
	if (c->s.spec.nmeasured && c->ncand > 1 && !c->s.spec.measured_system_id) {
		fprintf(stderr, "scaleplan compare: --measured describes one system: name it with --measured-system ID "
				"(the others move from it by the model's GPU ratios), or give exactly one in --systems\n");
		return EXIT_INPUT;
	}
	c->found = (plan_count){.at = -1};
	if (c->find_count && (rc = deadline_count(c)))
		return rc;
	for (int k = 0; k < c->co.ncounts && !rc; k++) /* several counts: every placement of each, one question */
		rc = cli_placements(&c->s, "compare", &c->q, c->cand, c->ncand, c->co.counts[k], &c->rows, &c->nrows,
				    &c->cap, &c->skipped_net, &c->skipped_whole);
	if (rc)
		return rc;
	if (c->nrows == 0)
		return cli_no_placement("compare", c->co.counts[0], c->skipped_net, c->skipped_whole);
	plan_options_sort(&c->q, c->rows, c->nrows);
	return EXIT_OK;
}

/* text to stdout within PLAN_TEXT_WIDTH characters a line (wrap) or as it is, then freed */
static void put_text(strbuf *b, bool wrap)
{
	if (wrap)
		cli_print_wrapped(stdout, b->s);
	else
		fputs(b->s, stdout);
	strbuf_free(b);
}

/* After the table and the answer: the count a deadline alone chose, what the pick rests on, the legend. */
static void print_after(const cmp_run *c, const plan_answer *a, const plan_flip *flip)
{
	strbuf b;
	strbuf_init(&b);
	if (c->find_count)
		plan_count_text(&c->q, &c->found, c->gpus, &b);
	put_text(&b, false);
	strbuf_init(&b);
	plan_flip_text(flip, a, &b);
	put_text(&b, true);
	strbuf left_out;
	strbuf_init(&left_out);
	for (int k = 0; k < c->co.ncounts; k++)
		plan_left_out_names(&c->s.spec, &c->q, c->cand, c->ncand, c->co.counts[k], &left_out);
	strbuf_init(&b); /* the legend wrapped as the answer is */
	plan_table_notes(&c->s.db, &c->s.spec.money, &c->q, c->rows, c->nrows, c->skipped_net, c->skipped_whole,
			 left_out.s, &b);
	put_text(&b, true);
	strbuf_free(&left_out);
}

/* The CSV (to stdout, or --out), the answer's JSON, then the table, the answer and its notes. */
static int cmp_write(cmp_run *c, const plan_answer *a, const plan_flip *flip)
{
	int rc;
	bool csv = strcmp(c->co.format, "csv") == 0;
	if (!c->co.outpath && csv)
		return write_csv(NULL, c->s.columns, &c->q, c->rows, c->nrows, a);
	/* the files first: a reader that stops early (`| head`) ends the table with SIGPIPE, never the files */
	if (c->co.answer_json && (rc = write_answer_json(c->co.answer_json, &c->q, a, flip, c->gpus)))
		return rc;
	if (c->co.outpath && (rc = write_csv(c->co.outpath, csv ? c->s.columns : NULL, &c->q, c->rows, c->nrows, a)))
		return rc;
	strbuf b;
	strbuf_init(&b);
	plan_table_write(&c->s.spec, &c->q, c->counts, c->rows, c->nrows, c->co.all_rows, c->col, c->ncol, &b);
	put_text(&b, false);
	cli_print_answer("", &c->q, a, c->gpus);
	print_after(c, a, flip);
	return EXIT_OK;
}

int cmd_compare(int argc, char **argv)
{
	cmp_run *c = xcalloc(1, sizeof(*c));
	bool done = false;
	c->co.format = "table";
	plan_question_init(&c->q);
	cli_scen_init(&c->s, "compare");
	c->s.columns_help = cli_columns_judged;
	int rc = cmp_parse(c, argc, argv, &done);
	if (rc || done || (rc = cmp_place(c)))
		goto out;
	plan_answer a;
	plan_decide(&c->q, c->rows, c->nrows, &a); /* once: the table's mark, the answer and the CSV's ratios agree */
	if (c->gpus && plan_fewer_gpus(&c->s.db, &c->s.spec, &c->s.params, &c->q, &a)) { /* the knee: fewer GPUs */
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	plan_flip flip;
	plan_flip_find(&c->q, c->rows, c->nrows, &a, &c->s.params, &flip);
	if (a.winner)
		c->rows[a.winner - c->rows].v.flip_speed_x = flip.speed_x;
	rc = cmp_write(c, &a, &flip);
out:
	free(c->rows);
	cli_scen_free(&c->s);
	free(c);
	return rc;
}
