/* scaleplan report: the planner's question for a purchase as one self-contained folder: report.md and
 * index.html (the same text and tables), charts as SVG (gnuplot, plot/) and the rows as CSV.
 * The rows are compare's (cli_placements): every placement of each GPU count on each system, ranked by time to
 * accuracy. The folder is built under DIR.tmp-PID and renamed to DIR at the end; DIR must not exist (or be an empty folder).
 * The documents and charts are report/'s (report.h); whatif.html and costs.xlsx web/'s.
 * Exit: 0 ok, 1 bad input (unknown system, bad list, DIR exists), 2 environment (cannot write); 130/143 after
 * SIGINT/SIGTERM, polled between the steps, with the temporary folder removed.
 * Without gnuplot the report is written without charts and says so.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"
#include "report/report.h"
#include "web/web.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPORT_MAX_GPUS_N 16 /* --gpus values at most (the help says so) */
enum { REPORT_MAX_GPUS = REPORT_MAX_GPUS_N, REPORT_MAX_SYSTEMS = 64 };

/* report's own options; the shared ones and the question's are cli_scen_opts' and cli_ask_opts'. */
typedef struct report_opts {
	const char *systems, *outdir;
	int gpus[REPORT_MAX_GPUS], ngpus;
} report_opts;

static int opt_gpus(void *ctx, const cli_opt *o, const char *arg)
{
	report_opts *ro = ctx;
	(void)o;
	return cli_parse_int_list("report", "--gpus", arg, ro->gpus, REPORT_MAX_GPUS, &ro->ngpus) ? -1 : 0;
}

#define REPORT_STR(x) #x
#define REPORT_STR2(x) REPORT_STR(x)
static void report_table(report_opts *ro, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_STR("systems", &ro->systems, "  --systems LIST  candidate systems; " CLI_DEFAULT_SYSTEMS_HELP),
		CLI_O_CALL("gpus", opt_gpus, ro, "  --gpus LIST     GPU counts, e.g. 4,8,16 (at most " REPORT_STR2(REPORT_MAX_GPUS_N) ")\n"),
		CLI_O_STR("out", &ro->outdir, "  --out DIR       the folder to write (built as DIR.tmp-PID, renamed when complete)\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void report_usage(FILE *out)
{
	report_opts ro;
	cli_opt own[5];
	report_table(&ro, own);
	fprintf(out,
		"usage: scaleplan report [--systems a,b,c] --gpus 4,8,16 [--budget USD] [--deadline D] --out DIR [options]\n"
		"\n"
		"Writes DIR/ (new, or an empty folder): report.md and index.html (ranking by time to accuracy, each option's\n"
		"bottleneck and breakdown, stack, data path, storage, cost and energy, a Sensitivity section - the first GPU\n"
		"count's answer's cost per run at both ends of its prices, speed, utilisation, kWh price and PUE, and the\n"
		"input that could flip it against the runner-up -, buy against rent, the money and model assumptions with\n"
		"their sources), tta.svg, cost.svg and sensitivity.svg (gnuplot; left out with a note when it is missing\n"
		"or nothing is priced), cashflow.csv and cashflow.svg (the answer's cluster owned year by year beside the\n"
		"same runs rented, the rent falling with the market), placements.csv (compare's columns), whatif.html\n"
		"(the planner in one page: compare in the browser) and costs.xlsx (each option's money as formulas over\n"
		"an Assumptions sheet); whatif.html and costs.xlsx are left out, with the reason, where this build has no\n"
		"Emscripten or libxlsxwriter. Every placement of each GPU count on each system, as compare.\n");
	cli_opt_help(out, own, NULL);
	fprintf(out, "\n");
	cli_ask_help(out, false);
	fprintf(out, "\n");
	cli_scen_help_except(out, "system,gpus-per-node,nodes,global-batch,measured,measured-stack,measured-system,columns"); /* chosen per placement; every column */
}

/* whatif.html and costs.xlsx (web/) into dir, for the readers who will not run the command line; a file
 * this build cannot write is left out with its reason (printed, then the report goes on). EXIT_OK or
 * EXIT_ENV (a write failed). */
static int write_reader_files(const char *dir, int argc, char **argv, const struct option *opts, const cli_scen *s,
			      const plan_question *q, const plan_option *rows, int nrows, rep_input *rd)
{
	char why[512];
	char *path = xasprintf("%s/whatif.html", dir), *frag = web_fragment(argc, argv, opts);
	int rc = web_whatif_write(path, rd->cmdline, frag, why, sizeof why);
	free(path);
	free(frag);
	rd->whatif = rc == 0;
	if (rc == WEB_LEFT_OUT)
		printf("scaleplan report: whatif.html left out: %s\n", why);
	if (rc < 0)
		goto fail;
	path = xasprintf("%s/costs.xlsx", dir);
	rc = web_costs_write(path, &s->db, &s->spec, &s->params, q, rows, nrows, why, sizeof why);
	free(path);
	rd->xlsx = rc == 0;
	if (rc == WEB_LEFT_OUT)
		printf("scaleplan report: costs.xlsx left out: %s\n", why);
	if (rc < 0)
		goto fail;
	return EXIT_OK;
fail:
	fprintf(stderr, "scaleplan report: %s\n", err_msg());
	return EXIT_ENV;
}

/* True (message printed, *rc set to 130/143) once SIGINT or SIGTERM has arrived. */
static bool stopped(int *rc)
{
	if (!intr_pending())
		return false;
	fprintf(stderr, "scaleplan report: stopped by %s; no folder written\n", intr_name());
	*rc = intr_exit_code();
	return true;
}

/* One report being built: the options, the placements of each GPU count, the folder under construction. */
typedef struct report_run {
	cli_scen s;
	report_opts ro;
	plan_question q;
	struct option opts[80]; /* what getopt knew: the page's fragment reads the command line with them */
	const hw_system *cand[REPORT_MAX_SYSTEMS];
	int ncand, nrows, cap, skipped, skipped_whole;
	plan_option *rows;
	rep_group g[REPORT_MAX_GPUS];
	char *tmpdir, *csvp;
	char cmdline[1024]; /* "scaleplan report ...", as the documents and whatif.html quote it */
} report_run;

/* The options into r and their checks, before any work. EXIT_OK, EXIT_INPUT, or -1 after --help. */
static int report_parse(report_run *r, int argc, char **argv)
{
	cli_opt scen[CLI_SCEN_NOPTS], ask[CLI_ASK_NOPTS], own[5];
	cli_ask qa = {.cmd = "report", .q = &r->q};
	cli_scen_opts(&r->s, scen);
	cli_ask_opts(&qa, ask);
	report_table(&r->ro, own);
	cli_parse p = {.cmd = "report", .tables = {scen, ask, own}, .usage = report_usage, .max_args = 0};
	int rc = cli_opt_parse(&p, argc, argv);
	if (rc || p.done)
		return p.done ? -1 : rc;
	int n = cli_opt_longopts(scen, 0, r->opts, 0, 79);
	n = cli_opt_longopts(ask, 0, r->opts, n, 79);
	n = cli_opt_longopts(own, 0, r->opts, n, 79);
	r->opts[n] = (struct option){0};
	if ((rc = cli_check_columns("report", r->s.columns, false,
				    "the report's files hold every column (its page and workbook read them); `compare "
				    "--columns` selects the table's")))
		return rc;
	if (r->ro.ngpus == 0 || !r->ro.outdir) {
		fprintf(stderr, "scaleplan report: --gpus and --out are required (e.g. --gpus 4,8,16 --out rep; "
				"--systems as compare: today's products by default)\n");
		return EXIT_INPUT;
	}
	for (int i = 0; i < r->ro.ngpus; i++)
		if (r->ro.gpus[i] < 1 || r->ro.gpus[i] > CLI_MAX_GPUS) {
			fprintf(stderr, "scaleplan report: --gpus: %d: expected 1..%d\n", r->ro.gpus[i], CLI_MAX_GPUS);
			return EXIT_INPUT;
		}
	const plan_spec *sp = &r->s.spec;
	if (sp->system_id || sp->gpus_per_node || sp->nodes != 1 || sp->global_batch || sp->nmeasured) {
		fprintf(stderr, "scaleplan report: --system/--gpus-per-node/--nodes/--global-batch/--measured are chosen "
				"per placement; use --systems and --gpus\n");
		return EXIT_INPUT;
	}
	struct stat st;
	if ((rc = cli_check_out("report", "--out", r->ro.outdir, true)))
		return rc;
	if (stat(r->ro.outdir, &st) == 0 && !(S_ISDIR(st.st_mode) && dir_is_empty(r->ro.outdir))) {
		/* an empty folder is taken (the finished report is renamed onto it), as hw import takes one */
		fprintf(stderr, "scaleplan report: --out %s: exists%s; remove it or name another folder\n", r->ro.outdir,
			S_ISDIR(st.st_mode) ? " and is not empty" : " and is not a folder");
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* Every placement of each GPU count on the candidates, each count's rows ranked. EXIT_OK or EXIT_INPUT. */
static int report_place(report_run *r)
{
	int rc = cli_candidates(&r->s, "report", r->ro.systems, &r->q, r->cand, REPORT_MAX_SYSTEMS, &r->ncand);
	for (int k = 0; !rc && k < r->ro.ngpus; k++) {
		int net0 = r->skipped, whole0 = r->skipped_whole;
		rep_group *g = &r->g[k];
		g->gpus = r->ro.gpus[k];
		g->first = r->nrows;
		rc = cli_placements(&r->s, "report", &r->q, r->cand, r->ncand, g->gpus, &r->rows, &r->nrows, &r->cap,
				    &r->skipped, &r->skipped_whole);
		if (rc)
			break;
		g->n = r->nrows - g->first;
		if (g->n == 0) /* the true reason, as compare gives it: no network, or another node size */
			return cli_no_placement("report", g->gpus, r->skipped - net0, r->skipped_whole - whole0);
		plan_options_sort(&r->q, r->rows + g->first, g->n);
	}
	return rc;
}

/* DIR.tmp-PID made and placements.csv written in it: each GPU count's rows over its own pick (the answer's).
 * EXIT_OK or an exit code (message printed). */
static int report_placements_csv(report_run *r)
{
	int rc = EXIT_OK;
	r->tmpdir = xasprintf("%s.tmp-%ld", r->ro.outdir, (long)getpid());
	if (mkdir(r->tmpdir, 0777) != 0) {
		/* README's rule: a missing parent folder is 1, permission or disk 2 */
		rc = exit_code_of(err_path(r->tmpdir, errno, "a folder in an existing directory"));
		fprintf(stderr, "scaleplan report: --out %s\n", err_msg());
		free(r->tmpdir);
		r->tmpdir = NULL;
		return rc;
	}
	r->csvp = xasprintf("%s/placements.csv", r->tmpdir);
	csvw *w = csvw_open(r->csvp);
	if (!w) {
		fprintf(stderr, "scaleplan report: %s\n", err_msg());
		return EXIT_ENV;
	}
	plan_option_csv_header(w);
	for (int k = 0; k < r->ro.ngpus; k++) {
		plan_answer a;
		const rep_group *g = &r->g[k];
		plan_decide(&r->q, r->rows + g->first, g->n, &a);
		plan_flip flip; /* the pick's flip_speed_ratio, as compare's CSV */
		plan_flip_find(&r->q, r->rows + g->first, g->n, &a, &r->s.params, &flip);
		if (a.winner)
			r->rows[a.winner - r->rows].v.flip_speed_x = flip.speed_x;
		for (int i = g->first; i < g->first + g->n; i++)
			plan_option_csv_row(w, &r->q, &r->rows[i].sc, &r->rows[i].r, &r->rows[i].cost, &r->rows[i].v,
					    a.winner ? &a.winner->sc : NULL, a.winner ? &a.winner->r : NULL);
	}
	int crc = csvw_close(w);
	if (stopped(&rc)) /* a signal during the write: the writer refused to rename; say so as everywhere */
		return rc;
	if (crc) {
		fprintf(stderr, "scaleplan report: %s\n", err_msg());
		return exit_code_of(crc);
	}
	return EXIT_OK;
}

/* The charts, the sensitivity, the cash flow, the readers' files and the documents into the folder (report/,
 * web/). EXIT_OK or an exit code (message printed). */
static int report_files(report_run *r, int argc, char **argv, rep_input *in, rep_made *m)
{
	int rc = EXIT_OK;
	char *cmd = r->cmdline;
	snprintf(cmd, sizeof r->cmdline, "scaleplan");
	for (int i = 0; i < argc; i++)
		snprintf(cmd + strlen(cmd), sizeof r->cmdline - strlen(cmd), " %s", argv[i]);
	*in = (rep_input){.cmdline = cmd, .db = &r->s.db, .spec = &r->s.spec, .params = &r->s.params,
			  .overlay = r->s.hwdb_dir != NULL, .q = &r->q, .rows = r->rows, .nrows = r->nrows, .g = r->g,
			  .ng = r->ro.ngpus, .placements_csv = r->csvp};
	rep_charts(r->tmpdir, in, m);
	if (!m->tta_ok)
		fprintf(stderr, "scaleplan report: no charts: %s\n", m->tta_note);
	if (stopped(&rc))
		return rc;
	rc = write_reader_files(r->tmpdir, argc, argv, r->opts, &r->s, &r->q, r->rows, r->nrows, in);
	if (rc || stopped(&rc))
		return rc;
	if ((rc = rep_docs(r->tmpdir, in, m))) {
		fprintf(stderr, "scaleplan report: %s\n", err_msg());
		return exit_code_of(rc);
	}
	stopped(&rc);
	return rc;
}

/* The closing lines: what was written where, and what was left out. */
static void report_print_done(const report_run *r, const rep_input *in, const rep_made *m)
{
	int ng = r->ro.ngpus;
	printf("scaleplan report: %d option%s (%d system%s x %d GPU count%s) in %s/: report.md, index.html, "
	       "placements.csv%s%s%s%s\n",
	       r->nrows, r->nrows == 1 ? "" : "s", r->ncand, r->ncand == 1 ? "" : "s", ng, ng == 1 ? "" : "s",
	       r->ro.outdir, m->tta_ok ? ", tta.svg" : "", m->cost_ok ? ", cost.svg" : "",
	       in->whatif ? ", whatif.html" : "", in->xlsx ? ", costs.xlsx" : "");
	if (m->sens_ok)
		printf("sensitivity.svg: the answer's cost per run at %d GPUs against each input\n", r->g[0].gpus);
	if (r->skipped)
		printf("(%d multi-node placement%s skipped: system without a network in the database)\n", r->skipped,
		       r->skipped > 1 ? "s" : "");
}

int cmd_report(int argc, char **argv)
{
	report_run *r = xcalloc(1, sizeof *r);
	rep_made *m = xcalloc(1, sizeof *m);
	rep_input in = {0};
	plan_question_init(&r->q);
	cli_scen_init(&r->s, "report");
	r->s.columns_help = cli_columns_judged; /* placements.csv's */
	int rc = report_parse(r, argc, argv);
	if (rc == EXIT_OK && intr_install()) {
		fprintf(stderr, "scaleplan report: %s\n", err_msg());
		rc = EXIT_ENV;
	}
	if (rc == EXIT_OK && !(rc = cli_scen_load(&r->s)) && !(rc = report_place(r)) && !(rc = report_placements_csv(r)) &&
	    !(rc = report_files(r, argc, argv, &in, m))) {
		if (rename(r->tmpdir, r->ro.outdir) != 0) {
			fprintf(stderr, "scaleplan report: cannot rename %s to %s: %s\n", r->tmpdir, r->ro.outdir,
				strerror(errno));
			rc = EXIT_ENV;
		} else
			report_print_done(r, &in, m);
	}
	if (rc && r->tmpdir)
		rep_remove_dir(r->tmpdir);
	free(r->tmpdir);
	free(r->csvp);
	free(r->rows);
	cli_scen_free(&r->s);
	free(r);
	free(m);
	return rc < 0 ? EXIT_OK : rc; /* -1: --help printed */
}

