/* cli/cmd_sim.c: `scaleplan sim`: play a whole training run event by event (sim/sim.h) and report
 * the predict columns plus the spread over iterations and runs; optionally a Chrome trace.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "sim/sim.h"

/* The largest --jitter (lognormal sigma of a GPU's step): at 1 a step varies by e = 2.7x around its median,
 * far beyond the stragglers the model knows (straggler_cv 0.015, model_params.c); at 100 the simulated
 * throughput was 0 and at 1000 NaN. The message of a value outside [0, SIM_JITTER_MAX] says so. */
#define SIM_JITTER_MAX 1.0
#define SIM_JITTER_WANT \
	"a lognormal sigma in [0, 1] (1 lets one GPU's step run e^1 = 2.7x slower or faster than its median, already " \
	"beyond any straggler seen; larger values overflow the simulated times)"

/* sim's own settings as the options give them (the shared ones are cli_scen's). */
typedef struct sim_cli {
	const char *format, *trace_path, *columns; /* columns: the shared --columns */
	double jitter, slow_prob, slow_factor;
	long seed, runs, workers, prefetch, wa, wb;
	bool contention, warmup, replay, detail, window_given;
} sim_cli;

/* --trace-window A:B, both whole iterations counted from 1, A <= B; ctx is the sim_cli. */
static int opt_window(void *ctx, const cli_opt *o, const char *arg)
{
	sim_cli *c = ctx;
	char buf[64];
	const char *colon = strchr(arg, ':');
	c->window_given = true;
	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof buf)
		return cli_opt_bad("sim", o, arg);
	memcpy(buf, arg, (size_t)(colon - arg));
	buf[colon - arg] = 0;
	if (cli_parse_long(buf, 1, 1L << 40, &c->wa) || cli_parse_long(colon + 1, 1, 1L << 40, &c->wb) || c->wb < c->wa)
		return cli_opt_bad("sim", o, arg);
	return 0;
}

static const char *const formats[] = {"table", "csv", "json", NULL};
enum { SIM_NOPTS = 16 };

/* sim's own options, bound to c, in --help's order. */
static void sim_table(sim_cli *c, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_STR("trace", &c->trace_path,
			  "  --trace FILE        write a Chrome trace-event JSON (Perfetto, chrome://tracing) of run 1\n"),
		CLI_O_CALLW("trace-window", opt_window, c, "A:B, iterations counted from 1 with A <= B (e.g. 2:4)",
			    "  --trace-window A:B  iterations A..B of the run, counted from 1 (default 1:3)\n"),
		CLI_O_LONG("seed", &c->seed, 0, 4294967295.0, "a whole number from 0 to 4294967295",
			   "  --seed S            GSL mt19937 seed (default 1)\n"),
		CLI_O_LONG("runs", &c->runs, 1, 100000, "a whole number from 1 to 100000",
			   "  --runs R            independent runs, for the spread of time to accuracy (default 1); each run\n"
			   "                      needs its own epochs (model conv_cv, the MLPerf reference runs' spread)\n"),
		CLI_O_DBL("jitter", &c->jitter, 0, SIM_JITTER_MAX, SIM_JITTER_WANT,
			  "  --jitter X          sigma of each GPU's lognormal per-iteration slowdown, 0..1 (default: the\n"
			  "                      model's straggler_cv, 0.015); 0 = none\n"),
		CLI_O_DBL("slow-prob", &c->slow_prob, 0, 1, "a probability in [0, 1]",
			  "  --slow-prob P       probability a GPU's iteration is a slow step (default 0)\n"),
		CLI_O_DBL("slow-factor", &c->slow_factor, 1, INFINITY, "a number >= 1",
			  "  --slow-factor F     slowdown of a slow step (default 3)\n"),
		CLI_O_ONOFF("contention", &c->contention,
			    "  --contention on|off flows share links max-min fairly (on, default) or run at the model's rate\n"),
		CLI_O_ONOFF("warmup", &c->warmup, "  --warmup on|off     loader queue refilled from empty each epoch (on, default), or the loader\n"
						  "                      as a pure rate limit as in the model\n"),
		CLI_O_ONOFF("detail", &c->detail, "  --detail on|off     simulate node 0 layer by layer with its flows in every iteration (off:\n"
						  "                      a per-bucket recurrence that gives the same times, much faster)\n"),
		CLI_O_ONOFF("replay", &c->replay, "  --replay on|off     replay identical epochs when jitter and slow steps are off (on, default)\n"),
		CLI_O_LONG("loader-workers", &c->workers, 1, 4096, "a whole number from 1 to 4096",
			   "  --loader-workers W  data loader workers per node (default 8); --prefetch Q queue depth (16)\n"),
		CLI_O_LONG("prefetch", &c->prefetch, 1, 1 << 20, "a whole number from 1 to 1048576", NULL),
		CLI_O_ENUM("format", &c->format, formats, "table, csv or json",
			   "  --format F          table (default), csv (predict columns + sim columns), json\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void sim_usage(FILE *out)
{
	sim_cli c;
	cli_opt own[SIM_NOPTS];
	sim_table(&c, own);
	fprintf(out,
		"usage: scaleplan sim --system ID | (--gpu ID --gpus-per-node G ...) [--nodes N] [--batch-per-gpu B]\n"
		"                     [--trace run.json [--trace-window A:B]] [--seed S] [--runs R]\n"
		"                     [--jitter X] [--slow-prob P] [--slow-factor F] [--contention on|off]\n"
		"                     [--warmup on|off] [--format table|csv|json]\n"
		"\n"
		"Simulates the whole training run event by event: per-layer forward/backward on every GPU of a\n"
		"node, gradient buckets all-reduced as flows sharing the node's links and NICs, the data loader\n"
		"filling a bounded queue, first-epoch storage reads, epoch boundaries, evaluation, and per-GPU\n"
		"jitter (a synchronous step waits for the slowest of all GPUs).\n");
	cli_opt_help(out, own, NULL);
	fprintf(out,
		"With --contention off --warmup off --jitter 0 --param straggler_cv=0 the times equal those of\n"
		"`scaleplan predict --param straggler_cv=0` (the model's straggler term off in both).\n"
		"Progress goes to stderr (a line now and then when stderr is not a terminal). SIGINT (^C) or\n"
		"SIGTERM stops the run and writes nothing (an existing --trace file is kept as it was); the exit\n"
		"status is then 130 (SIGINT) or 143 (SIGTERM).\n"
		"\n");
	cli_scen_help(out);
	fprintf(out, "\nexample: scaleplan sim --system dgxa100-80g --nodes 16 --runs 5 --trace run.json\n");
}

/* sim's own columns, one table for the CSV (after predict's first block, whose cells carry the simulated
 * figures) and the JSON "sim" object (compact, beside predict's "model" object): the JSON gives again, first, the
 * figures the CSV has in predict's columns (plan_row_json_run, by predict's names); the CSV gives the model's own
 * iteration and run time beside. */
#define SIM(p) ((const sim_result *)(p))
#define S_GET(f) static double s_##f(const void *p) { return (double)SIM(p)->f; }
S_GET(iter_p50_s) S_GET(iter_p95_s) S_GET(tta_p50_s) S_GET(tta_p95_s) S_GET(tta_min_s) S_GET(tta_max_s)
S_GET(straggler_s) S_GET(data_wait_s) S_GET(runs) S_GET(iters) S_GET(epochs_simulated) S_GET(epochs_replayed)
S_GET(events) S_GET(wall_s)
static double s_model_iter_s(const void *p) { return SIM(p)->model.iter_s; }
static double s_model_tta_s(const void *p) { return SIM(p)->model.tta_s; }

#define S_NUM(f, unit, only) {#f, unit, COL_NUM, 6, s_##f, NULL, only}
#define S_INT(f, unit, only) {#f, unit, COL_INT, 0, s_##f, NULL, only}
static const out_col sim_cols[] = {
	S_NUM(iter_p50_s, "s", 0), S_NUM(iter_p95_s, "s", 0), S_NUM(tta_p50_s, "s", 0), S_NUM(tta_p95_s, "s", 0),
	S_NUM(tta_min_s, "s", 0), S_NUM(tta_max_s, "s", 0), S_NUM(straggler_s, "s", 0), S_NUM(data_wait_s, "s", 0),
	S_NUM(model_iter_s, "s (the model's)", COL_CSV), S_NUM(model_tta_s, "s (the model's)", COL_CSV),
	S_INT(runs, "", 0), S_INT(iters, "per run", 0), S_INT(epochs_simulated, "per run", 0),
	S_INT(epochs_replayed, "per run", 0), {"events", "all runs", COL_COUNT, 12, s_events, NULL, 0},
	{"sim_wall_s", "s", COL_NUM, 4, s_wall_s, NULL, 0},
};
enum { SIM_NCOLS = sizeof(sim_cols) / sizeof(sim_cols[0]) };

/* --columns help: predict's columns up to the basis (the simulated figures), sim's own, then stack. */
static void columns_help(FILE *out)
{
	strbuf b;
	strbuf_init(&b);
	plan_row_columns_text(PLAN_ROW_FIRST, &b);
	fprintf(out, "sim's CSV columns, in order (name, then its unit or meaning):\n%s", b.s);
	for (int i = 0; i < SIM_NCOLS; i++)
		if ((!sim_cols[i].only || (sim_cols[i].only & COL_CSV)) && *sim_cols[i].unit)
			fprintf(out, "  %-26s %s\n", sim_cols[i].name, sim_cols[i].unit);
		else if (!sim_cols[i].only || (sim_cols[i].only & COL_CSV))
			fprintf(out, "  %s\n", sim_cols[i].name);
	fprintf(out, "  %-26s %s\n", "stack", "stacks.csv id");
	strbuf_free(&b);
}

static void csv_out(csvw *w, const model_scenario *sc, const sim_result *r)
{
	model_result m;
	model_cost c;
	sim_result_as_model(sc, r, &m, &c);

	plan_row_csv_header_cells(w);
	col_csv_header(w, sim_cols, SIM_NCOLS);
	csvw_text(w, "stack");
	csvw_end_row(w);
	plan_row_csv_cells(w, sc, &m, &c);
	col_csv_cells(w, sim_cols, SIM_NCOLS, r);
	csvw_text(w, sc->stack.id);
	csvw_end_row(w);
}

static void json_out(FILE *out, const model_scenario *sc, const sim_result *r)
{
	model_result m; /* the simulated figures in predict's columns */
	model_cost c;
	sim_result_as_model(sc, r, &m, &c);
	fputs("{\"model\":", out);
	plan_row_json(out, sc, &r->model, &r->cost);
	fputs(",\"sim\":{", out);
	plan_row_json_run(out, sc, &m);
	col_json_members(out, sim_cols, SIM_NCOLS, r, false, true);
	fputs("}}\n", out);
}

/* An epoch as plan_fmt_duration gives it, but in ms below a second: thousands of GPUs go through ImageNet in
 * tens of ms, where "0.0 s" would say nothing. */
static char *fmt_epoch(double s, char *buf, size_t len_B)
{
	if (isfinite(s) && s < 0.95)
		snprintf(buf, len_B, "%.1f ms", 1e3 * s);
	else
		plan_fmt_duration(s, buf, len_B);
	return buf;
}

static void table_out(const model_scenario *sc, const sim_result *r, const sim_opts *o)
{
	char d1[96], d2[32], d3[32];
	const model_result *m = &r->model;
	printf("scaleplan sim: %s (%s), %d node%s x %d GPUs = %d GPUs, batch %d/GPU (global %d), %s\n",
	       sc->node.system_id, sc->node.gpu_id, sc->nodes, sc->nodes > 1 ? "s" : "", sc->node.gpus_per_node,
	       r->gpus, sc->batch_per_gpu, r->global_batch, model_precision_name(sc->precision));
	printf("  stack              %s\n", plan_stack_label(sc, d1, sizeof d1));
	printf("  settings           %s, contention %s, warm-up %s, jitter %g, slow steps %g x%g, seed %lu, %d run%s\n",
	       o->detail ? "every iteration layer by layer" : "bucket recurrence", o->contention ? "on" : "off", o->warmup ? "on" : "off", o->jitter, o->slow_prob, o->slow_factor, o->seed,
	       r->runs, r->runs > 1 ? "s" : "");
	printf("                     %-14s %-14s\n", "simulated", "model");
	printf("  throughput img/s   %-14.0f %-14.0f\n", r->throughput_img_s, m->throughput_img_s);
	printf("  iteration s        %-14.5f %-14.5f  p50 %.5f  p95 %.5f\n", r->iter_s, m->iter_s, r->iter_p50_s,
	       r->iter_p95_s);
	printf("  compute s          %-14.5f %-14.5f\n", r->compute_s, m->compute_s);
	printf("  all-reduce s       %-14.5f %-14.5f\n", r->comm_s, m->comm_s);
	printf("  exposed comm s     %-14.5f %-14.5f\n", r->comm_exposed_s, m->comm_exposed_s);
	printf("  straggler wait s   %-14.5f %-14s  (slowest GPU minus the mean GPU, per iteration)\n", r->straggler_s, "-");
	printf("  data wait s        %-14.5f %-14s  (per iteration)\n", r->data_wait_s, "-");
	printf("  bottleneck         %-14s %-14s\n", model_bottleneck_name(r->bottleneck), model_bottleneck_name(m->bottleneck));
	printf("  epochs             %.2f (%ld iterations)%s\n", r->epochs, r->iters, cli_epochs_note(sc, m));
	printf("  epoch              %-14s %-14s  (first epoch %s)\n", fmt_epoch(r->epoch_s, d1, sizeof d1),
	       fmt_epoch(m->epoch_s, d2, sizeof d2), fmt_epoch(r->first_epoch_s, d3, sizeof d3));
	printf("  time to accuracy   %-14s %-14s  over %d run%s: p50 %.1f s  p95 %.1f s  (min %.1f, max %.1f)\n",
	       plan_fmt_duration(r->tta_s, d1, sizeof d1), plan_fmt_duration(m->tta_s, d2, sizeof d2), r->runs,
	       r->runs > 1 ? "s" : "", r->tta_p50_s, r->tta_p95_s, r->tta_min_s, r->tta_max_s);
	printf("  simulation         %llu events in %.3f s (%.2g events/s); %d epoch%s simulated, %d replayed%s\n",
	       (unsigned long long)r->events, r->wall_s, r->wall_s > 0 ? (double)r->events / r->wall_s : 0.0,
	       r->epochs_simulated, r->epochs_simulated == 1 ? "" : "s", r->epochs_replayed,
	       r->epochs_replayed ? " (identical epochs, jitter off: nothing random lost)" : "");
}

/* The checks across options, the database and the scenario: EXIT_OK or the exit code (message printed). */
static int sim_prepare(cli_scen *s, const sim_cli *c, model_scenario *sc)
{
	int rc;
	if ((rc = cli_check_not_both("sim", "--global-batch", s->spec.global_batch, "--batch-per-gpu",
				     s->spec.batch_per_gpu)) ||
	    (rc = cli_check_out("sim", "--trace", c->trace_path, false)))
		return rc;
	if (c->window_given && !c->trace_path) {
		fprintf(stderr, "scaleplan sim: --trace-window needs --trace FILE\n");
		return EXIT_INPUT;
	}
	if ((rc = cli_scen_load(s)) || (rc = cli_scen_resolve(s, NULL, 0, 0, sc)))
		return rc;
	const model_params *mp = &s->params;
	double f[] = { mp->slowdown_compute_nvlink, mp->slowdown_comm_nvlink, mp->slowdown_compute_pcie,
		       mp->slowdown_comm_pcie, mp->slowdown_compute_net, mp->slowdown_comm_net };
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i] != 1.0) {
			fprintf(stderr, "scaleplan sim: note: the compute/all-reduce contention factors (slowdown_*) "
					"are not simulated; `scaleplan predict` includes them\n");
			break;
		}
	return EXIT_OK;
}

/* The simulator's settings from the model's defaults and the options. */
static void sim_settings(const cli_scen *s, const sim_cli *c, sim_trace *tr, sim_opts *o)
{
	sim_opts_default(o, &s->params);
	o->contention = c->contention;
	o->warmup = c->warmup;
	o->replay = c->replay;
	o->detail = c->detail;
	if (!isnan(c->jitter))
		o->jitter = c->jitter;
	o->slow_prob = c->slow_prob;
	o->slow_factor = c->slow_factor;
	o->seed = (unsigned long)c->seed;
	o->runs = (int)c->runs;
	o->loader_workers = (int)c->workers;
	o->prefetch = (int)c->prefetch;
	if (tr) {
		o->trace = tr;
		o->trace_first = c->wa;
		o->trace_last = c->wb;
	}
}

/* Runs the simulation with progress and ^C; EXIT_OK or the exit code (message printed). */
static int sim_play(const cli_scen *s, model_scenario *sc, sim_opts *o, sim_result *r)
{
	progress prog;
	progress_init(&prog, "sim", 1);
	o->progress = &prog;
	if (intr_install()) {
		fprintf(stderr, "scaleplan sim: %s\n", err_msg());
		return EXIT_ENV;
	}
	o->stop = intr_pending;
	int src = sim_run(sc, &s->params, o, r);
	if (src == ERR_INTR) {
		progress_break(&prog);
		fprintf(stderr, "scaleplan sim: interrupted (%s): %s; nothing written\n", intr_name(), err_msg());
		return intr_exit_code();
	}
	if (src) {
		fprintf(stderr, "scaleplan sim: %s\n", err_msg());
		return src == ERR_ENV ? EXIT_ENV : EXIT_INPUT;
	}
	return EXIT_OK;
}

/* The trace file, then the result on stdout in c's format; EXIT_OK or the exit code (message printed). */
static int sim_print(const sim_cli *c, sim_trace *tr, const model_scenario *sc, const sim_result *r, const sim_opts *o)
{
	if (tr) {
		int wrc = sim_trace_write(tr, c->trace_path);
		if (wrc) {
			fprintf(stderr, "scaleplan sim: %s\n", err_msg());
			return exit_code_of(wrc);
		}
		fprintf(stderr, "scaleplan sim: trace of iterations %ld-%ld (%zu spans) written to %s\n", c->wa, c->wb,
			sim_trace_count(tr), c->trace_path);
	}
	if (strcmp(c->format, "csv") == 0) {
		csvw *w = csvw_stream(stdout);
		if (c->columns && strcmp(c->columns, "all") != 0)
			csvw_select(w, c->columns);
		csv_out(w, sc, r);
		int crc = csvw_close(w);
		if (crc) {
			fprintf(stderr, "scaleplan sim: %s\n", err_msg());
			return crc == ERR_INPUT ? EXIT_INPUT : EXIT_ENV;
		}
	} else if (strcmp(c->format, "json") == 0) {
		json_out(stdout, sc, r);
	} else {
		table_out(sc, r, o);
	}
	return EXIT_OK;
}

int cmd_sim(int argc, char **argv)
{
	cli_scen s;
	model_scenario sc;
	sim_opts o;
	sim_result r;
	sim_trace *tr = NULL;
	sim_cli c = {.format = "table", .jitter = NAN, .slow_factor = 3, .seed = 1, .runs = 1, .workers = 8,
		     .prefetch = 16, .wa = 1, .wb = 3, .contention = true, .warmup = true, .replay = true};
	cli_opt scen[CLI_SCEN_NOPTS], own[SIM_NOPTS];

	cli_scen_init(&s, "sim");
	s.columns_help = columns_help;
	cli_scen_opts(&s, scen);
	sim_table(&c, own);
	cli_parse p = {.cmd = "sim", .tables = {scen, own}, .usage = sim_usage, .max_args = 0};
	int rc = cli_opt_parse(&p, argc, argv);
	if (rc || p.done)
		goto out;
	if ((rc = cli_check_columns("sim", s.columns, strcmp(c.format, "csv") == 0,
				    "the table and JSON are of one run; --format csv selects columns")))
		goto out;
	c.columns = s.columns;
	if ((rc = sim_prepare(&s, &c, &sc)))
		goto out;
	if (c.trace_path)
		tr = sim_trace_new();
	sim_settings(&s, &c, tr, &o);
	if ((rc = sim_play(&s, &sc, &o, &r)) == EXIT_OK)
		rc = sim_print(&c, tr, &sc, &r, &o);
out:
	sim_trace_free(tr);
	cli_scen_free(&s);
	return rc;
}
