/* cli/cmd_sweep.c: `scaleplan sweep`: the procurement grid - systems x GPUs per node x nodes x batch
 * per GPU - one CSV row per configuration (atomic write), with capex, rent, owner's cost, power and energy
 * where the database has them; --budget / --deadline keep the configurations that meet them, and the
 * answer (plan_decide, as compare's) is printed at the end.
 * Per system and GPUs-per-node the model is prepared once; each grid point is one model_predict.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

enum { SW_NODES = 'n', SW_BATCH = 'b', SW_GPN = 'G', SW_MAXLIST = 1000000 };

/* One configuration to write once the grid is ranked: its block (prepared scenario of one system and
 * GPUs-per-node) and grid point; the prediction is made again when written (cheaper than keeping it). */
typedef struct sw_row {
	double key, tie;   /* plan_rank_key */
	int block, nodes, batch;
} sw_row;

static int sw_by_rank(const void *a, const void *b)
{
	const sw_row *x = a, *y = b;
	int c = plan_key_cmp(x->key, x->tie, y->key, y->tie);
	if (c)
		return c;
	if (x->block != y->block)
		return x->block - y->block;
	return x->nodes != y->nodes ? x->nodes - y->nodes : x->batch - y->batch;
}

/* Ranks the rows; millions take seconds: a progress bar unless quiet. 0 or ERR_INTR. */
static int sw_sort(sw_row *rows, long nrows, bool quiet)
{
	progress pg;
	if (quiet)
		return sort_intr(rows, (size_t)nrows, sizeof(*rows), sw_by_rank);
	progress_init(&pg, "sweep: ranking", nrows);
	int rc = sort_intr_progress(rows, (size_t)nrows, sizeof(*rows), sw_by_rank, &pg);
	if (rc == 0)
		progress_finish(&pg);
	else
		progress_break(&pg);
	return rc;
}

/* The message and exit status of a sweep stopped by SIGINT/SIGTERM after the grid was computed. */
static int sw_interrupted(const char *when, const char *outpath)
{
	fprintf(stderr, "scaleplan sweep: interrupted (%s) %s; %s not written\n", intr_name(), when, outpath);
	return intr_exit_code();
}

static void sw_keep(sw_row **rows, long *n, long *cap, double key, double tie, int block, const model_scenario *sc)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		*rows = xrealloc(*rows, (size_t)*cap * sizeof(**rows));
	}
	(*rows)[(*n)++] = (sw_row){key, tie, block, sc->nodes, sc->batch_per_gpu};
}

/* The answer over the grid: the rows within reach of the best (the tie band, and the runner-up) are
 * predicted again as options and decided as compare decides (plan_decide); the others cannot win. */
static void sw_answer(cli_scen *s, const plan_question *q, model_scenario *blocks, const sw_row *rows, long nrows)
{
	enum { SW_TOP = 64 };
	plan_option *o = xcalloc(SW_TOP, sizeof(*o));
	const sw_row *best = NULL, *next = NULL;
	int n = 0;
	for (long i = 0; i < nrows; i++)
		if (isfinite(rows[i].key) && (!best || rows[i].key < best->key))
			best = &rows[i];
	double band = best ? best->key * (1 + q->tie_band) : 0;
	for (long i = 0; i < nrows; i++) /* the runner-up when the band holds the best alone */
		if (rows[i].key > band && isfinite(rows[i].key) && (!next || rows[i].key < next->key))
			next = &rows[i];
	for (long i = 0; best && i < nrows && n < SW_TOP; i++) {
		const sw_row *w = &rows[i];
		if (!(w->key <= band) && w != next)
			continue;
		o[n].sc = blocks[w->block];
		o[n].sc.nodes = w->nodes;
		o[n].sc.batch_per_gpu = w->batch;
		if (model_predict(&o[n].sc, &s->params, &o[n].r))
			continue;
		o[n].partial = o[n].sc.node.max_gpus_per_node > o[n].sc.node.gpus_per_node;
		o[n].key = w->key;
		o[n].tie = w->tie;
		o[n].ok = true;
		n++;
	}
	plan_answer a;
	char text[2048];
	plan_decide(q, o, n, &a);
	printf("answer: %s\n", plan_answer_text(q, &a, a.winner ? a.winner->r.gpus : 0, text, sizeof text));
	free(o);
}

static void sweep_usage(FILE *out)
{
	fprintf(out,
		"usage: scaleplan sweep --out FILE [--systems LIST|all] [--nodes LIST] [--batch-per-gpu LIST]\n"
		"                       [--gpus-per-node LIST] [--budget USD] [--deadline D] [--cost capex|tco|rent]\n"
		"                       [--rank-by tta|ttt|cost|none] [options]\n"
		"\n"
		"Writes one CSV row (predict's columns) per configuration of the grid systems x GPUs per node x\n"
		"nodes x batch per GPU, best first, then prints the answer (winner, runner-up, margin). LIST: a,b,c\n"
		"or a-b or a-b:step (e.g. --nodes 1-64 --batch-per-gpu 32-256:32).\n"
		"  --out FILE       the CSV (written to FILE.tmp, renamed when complete)\n"
		"  --systems LIST   systems (default all); --gpus-per-node LIST (default each system's own; fewer than\n"
		"                   the system's need --partial-nodes)\n"
		"  --nodes LIST     default 1,2,4,8,16;  --batch-per-gpu LIST  default auto: of 256 ... 8 that fit,\n"
		"                   the one of least time to accuracy\n"
		"  --budget/--deadline keep only the configurations that meet them (and have the --cost price)\n"
		"  --system ID      the same as --systems ID\n"
		"  --global-batch GB  instead of --batch-per-gpu: each configuration runs GB / its GPU count per GPU\n"
		"                   (configurations whose GPU count does not divide GB are left out)\n"
		"  --quiet          no progress bar\n"
		"SIGINT (^C) or SIGTERM stops the sweep, removes FILE.tmp and keeps an existing FILE as it was;\n"
		"the exit status is then 130 (SIGINT) or 143 (SIGTERM).\n"
		"\n");
	cli_ask_help(out, true);
	fprintf(out, "\n");
	cli_scen_help_except(out, "system,gpus-per-node,nodes,batch-per-gpu,global-batch"); /* lists, above */
}

int cmd_sweep(int argc, char **argv)
{
	struct option opts[80];
	cli_scen s;
	const char *systems = NULL, *outpath = NULL;
	int *nodes = NULL, *batches = NULL, *gpns = NULL, nn = 0, nb = 0, ng = 0;
	const hw_system **cand = NULL;
	int ncand = 0, n, c, rc = EXIT_OK;
	bool quiet = false;
	long total, done = 0, written = 0, skipped_net = 0, skipped_budget = 0, skipped_mem = 0, skipped_gpn = 0;
	csvw *w = NULL;
	progress pg;
	plan_question q;
	long skipped_partial = 0;
	sw_row *rows = NULL;
	model_scenario *blocks = NULL;
	long nrows = 0, caprows = 0, skipped_gb = 0, skipped_epoch = 0;
	int nblocks = 0, global_batch;
	bool constrained;

	plan_question_init(&q);
	cli_scen_init(&s, "sweep");
	n = cli_scen_longopts(opts, 0, 60);
	n = cli_ask_longopts(opts, n, 72);
	for (int i = 0; i < n; i++) {
		if (strcmp(opts[i].name, "nodes") == 0)
			opts[i].val = SW_NODES;
		else if (strcmp(opts[i].name, "batch-per-gpu") == 0)
			opts[i].val = SW_BATCH;
		else if (strcmp(opts[i].name, "gpus-per-node") == 0)
			opts[i].val = SW_GPN;
	}
	opts[n++] = (struct option){"systems", required_argument, NULL, 'S'};
	opts[n++] = (struct option){"out", required_argument, NULL, 'o'};
	opts[n++] = (struct option){"quiet", no_argument, NULL, 'q'};
	opts[n++] = (struct option){"help", no_argument, NULL, 'h'};
	opts[n] = (struct option){0};
	nodes = xmalloc(SW_MAXLIST * sizeof(int));
	batches = xmalloc(SW_MAXLIST * sizeof(int));
	gpns = xmalloc(1024 * sizeof(int));
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int hd = cli_scen_option(&s, c, optarg);
		if (!hd)
			hd = cli_ask_option("sweep", &q, c, optarg, true);
		if (hd < 0) {
			rc = EXIT_INPUT;
			goto out;
		}
		if (hd)
			continue;
		switch (c) {
		case SW_NODES:
			rc = cli_parse_int_list("--nodes", optarg, nodes, SW_MAXLIST, &nn);
			break;
		case SW_BATCH:
			rc = cli_parse_int_list("--batch-per-gpu", optarg, batches, SW_MAXLIST, &nb);
			break;
		case SW_GPN:
			rc = cli_parse_int_list("--gpus-per-node", optarg, gpns, 1024, &ng);
			break;
		case 'S': systems = optarg; break;
		case 'o': outpath = optarg; break;
		case 'q': quiet = true; break;
		case 'h': sweep_usage(stdout); goto out;
		default:
			fprintf(stderr, "scaleplan sweep: see `scaleplan sweep --help`\n");
			rc = EXIT_INPUT;
		}
		if (rc)
			goto out;
	}
	if (optind < argc) {
		fprintf(stderr, "scaleplan sweep: unexpected argument '%s'\n", argv[optind]);
		rc = EXIT_INPUT;
		goto out;
	}
	/* the shared options --system and --global-batch name what sweep's own grid options would */
	if (s.spec.system_id && systems) {
		fprintf(stderr, "scaleplan sweep: give --systems LIST or --system ID, not both\n");
		rc = EXIT_INPUT;
		goto out;
	}
	if (s.spec.system_id)
		systems = s.spec.system_id;
	global_batch = s.spec.global_batch;
	if (global_batch && nb) {
		fprintf(stderr, "scaleplan sweep: give --global-batch or --batch-per-gpu, not both\n");
		rc = EXIT_INPUT;
		goto out;
	}
	if (!outpath) {
		fprintf(stderr, "scaleplan sweep: --out FILE is required (the grid is written as CSV)\n");
		rc = EXIT_INPUT;
		goto out;
	}
	for (int i = 0; i < nb; i++)
		if (batches[i] > 65536) {
			fprintf(stderr, "scaleplan sweep: --batch-per-gpu %d: at most 65536\n", batches[i]);
			rc = EXIT_INPUT;
			goto out;
		}
	for (int i = 0; i < nn; i++)
		if (nodes[i] > 100000) {
			fprintf(stderr, "scaleplan sweep: --nodes %d: at most 100000\n", nodes[i]);
			rc = EXIT_INPUT;
			goto out;
		}
	if (nn == 0) {
		static const int dflt[] = {1, 2, 4, 8, 16};
		memcpy(nodes, dflt, sizeof(dflt));
		nn = 5;
	}
	rc = cli_scen_load(&s);
	if (rc)
		goto out;
	cand = xcalloc((size_t)s.db.nsystems + 1, sizeof(*cand));
	if (!systems || strcmp(systems, "all") == 0) {
		for (int i = 0; i < s.db.nsystems; i++)
			cand[ncand++] = &s.db.systems[i];
	} else {
		char buf[4096], *save = NULL;
		rc = cli_check_systems_unique("sweep", &s.db, systems);
		if (rc)
			goto out;
		snprintf(buf, sizeof(buf), "%s", systems);
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			const hw_system *sys = hw_system_find(&s.db, tok);
			if (!sys) {
				rc = cli_unknown_id(&s.db, "sweep: --systems", HW_SYSTEM, tok);
				goto out;
			}
			if (ncand < s.db.nsystems)
				cand[ncand++] = sys;
		}
	}
	if (s.spec.nmeasured && ncand > 1) {
		fprintf(stderr, "scaleplan sweep: --measured describes one system; give exactly one in --systems\n");
		rc = EXIT_INPUT;
		goto out;
	}
	total = (long)ncand * (ng ? ng : 1) * nn * (nb ? nb : 1);
	constrained = !isnan(q.budget_usd) || !isnan(q.deadline_s);
	/* before the temporary file exists: from here a signal stops the loop, which removes it */
	if (intr_install()) {
		fprintf(stderr, "scaleplan sweep: %s\n", err_msg());
		rc = EXIT_ENV;
		goto out;
	}
	intr_phase("compute");
	rc = csvw_create(outpath, &w); /* README's rule: a missing folder is 1, permission or disk 2 */
	if (rc) {
		fprintf(stderr, "scaleplan sweep: --out %s\n", err_msg());
		rc = exit_code_of(rc);
		goto out;
	}
	cli_result_csv_header(w);
	if (!quiet)
		progress_init(&pg, "sweep", total);
	for (int k = 0; k < ncand; k++) {
		const hw_system *sys = cand[k];
		for (int gi = 0; gi < (ng ? ng : 1); gi++) {
			int gpn = ng ? gpns[gi] : sys->gpus_per_node;
			model_scenario sc;
			if (gpn > sys->gpus_per_node) {
				skipped_gpn += (long)nn * (nb ? nb : 1);
				done += (long)nn * (nb ? nb : 1);
				continue;
			}
			if (gpn < sys->gpus_per_node && !q.partial_nodes) { /* whole servers unless asked */
				skipped_partial += (long)nn * (nb ? nb : 1);
				done += (long)nn * (nb ? nb : 1);
				continue;
			}
			/* prepared once; auto batch and calibration at one node */
			s.spec.batch_per_gpu = 0;
			s.spec.global_batch = 0;
			rc = cli_scen_resolve(&s, sys, gpn, 1, &sc);
			if (rc == EXIT_INPUT && !s.spec.nmeasured) {
				/* e.g. nothing fits: the whole block is skipped, not the sweep */
				skipped_mem += (long)nn * (nb ? nb : 1);
				done += (long)nn * (nb ? nb : 1);
				rc = EXIT_OK;
				continue;
			}
			if (rc)
				goto out;
			int auto_b = sc.batch_per_gpu;
			if (q.goal != PLAN_GRID || constrained) {
				blocks = xrealloc(blocks, (size_t)(nblocks + 1) * sizeof(*blocks));
				blocks[nblocks++] = sc;
			}
			for (int ni = 0; ni < nn; ni++) {
				sc.nodes = nodes[ni];
				bool nonet = model_domain_gpus(&sc) < sc.nodes * gpn &&
					     !(sc.node.nic_Bps > 0 && sc.node.nics_per_node > 0);
				for (int bi = 0; bi < (nb ? nb : 1); bi++) {
					model_result r;
					if (intr_pending()) {
						if (!quiet)
							progress_break(&pg);
						fprintf(stderr, "scaleplan sweep: interrupted (%s) after %ld of %ld "
							"configurations; %s not written\n", intr_name(), done, total, outpath);
						rc = intr_exit_code();
						goto out; /* csvw_abort removes the temporary file */
					}
					done++;
					if (nonet) {
						skipped_net++;
						continue;
					}
					sc.batch_per_gpu = nb ? batches[bi] : auto_b;
					if (!nb && !global_batch && sc.nodes > 1 && !s.spec.nmeasured &&
					    !plan_auto_batch(&sc, &s.params))
						sc.batch_per_gpu = auto_b; /* least time to accuracy at this size */
					if (global_batch) {
						int gpus = gpn * sc.nodes;
						if (global_batch % gpus) {
							skipped_gb++;
							continue;
						}
						sc.batch_per_gpu = global_batch / gpus;
					}
					if (model_batch_over_epoch(&sc)) {
						skipped_epoch++; /* a step would see images twice: refused */
						continue;
					}
					if (model_predict(&sc, &s.params, &r)) {
						fprintf(stderr, "scaleplan sweep: %s: %s\n", sys->id, err_msg());
						rc = EXIT_INPUT;
						goto out;
					}
					double key, tie;
					plan_rank_key(&q, &r, &key, &tie);
					if (constrained && r.fits && !isfinite(key)) {
						skipped_budget++;
						continue;
					}
					if (!r.fits)
						skipped_mem++;
					written++;
					if (q.goal == PLAN_GRID) {
						cli_result_csv_row(w, &sc, &r);
						if (constrained)
							sw_keep(&rows, &nrows, &caprows, key, tie, nblocks - 1, &sc);
						continue;
					}
					sw_keep(&rows, &nrows, &caprows, key, tie, nblocks - 1, &sc);
				}
				if (!quiet && (ni & 63) == 0)
					progress_update(&pg, done);
			}
		}
	}
	if (!quiet) {
		progress_update(&pg, done);
		progress_finish(&pg);
	}
	/* millions of rows take seconds to rank and to write: both phases answer a signal too */
	intr_phase("sort");
	if (q.goal != PLAN_GRID && nrows > 0 && sw_sort(rows, nrows, quiet) == ERR_INTR) {
		rc = sw_interrupted("while ranking the rows", outpath);
		goto out;
	}
	intr_phase("write");
	if (!quiet && q.goal != PLAN_GRID)
		progress_init(&pg, "sweep: writing", nrows);
	for (long i = 0; i < nrows && q.goal != PLAN_GRID; i++) {
		model_scenario *sc = &blocks[rows[i].block];
		model_result r;
		if (intr_pending()) {
			if (!quiet)
				progress_break(&pg);
			rc = sw_interrupted("while writing the rows", outpath);
			goto out;
		}
		if (!quiet && (i & 4095) == 0)
			progress_update(&pg, i);
		sc->nodes = rows[i].nodes;
		sc->batch_per_gpu = rows[i].batch;
		if (model_predict(sc, &s.params, &r)) { /* predicted once already: cannot fail */
			fprintf(stderr, "scaleplan sweep: %s: %s\n", sc->node.system_id, err_msg());
			rc = EXIT_INPUT;
			goto out;
		}
		cli_result_csv_row(w, sc, &r);
	}
	if (!quiet && q.goal != PLAN_GRID) {
		progress_update(&pg, nrows);
		progress_finish(&pg);
	}
	if (intr_pending()) { /* the streamed grid (--rank-by none) ends here */
		rc = sw_interrupted("while writing the rows", outpath);
		goto out;
	}
	if (global_batch && written == 0 && skipped_gb > 0) {
		fprintf(stderr, "scaleplan sweep: --global-batch %d is not a multiple of the GPU count of any configuration "
			"of the grid; nothing written\n", global_batch);
		rc = EXIT_INPUT;
		goto out;
	}
	int crc = csvw_close(w);
	w = NULL;
	if (crc == ERR_INTR) {
		rc = sw_interrupted("before the rename", outpath);
		goto out;
	}
	if (crc) {
		fprintf(stderr, "scaleplan sweep: %s\n", err_msg());
		rc = EXIT_ENV;
		goto out;
	}
	fprintf(stderr, "scaleplan sweep: %ld configuration%s, %ld row%s written to %s (%s first)", total,
		total == 1 ? "" : "s", written, written == 1 ? "" : "s", outpath,
		plan_goal_name(&q));
	if (skipped_budget)
		fprintf(stderr, "; %ld over budget, too slow or without a %s price", skipped_budget, plan_cost_name(q.cost));
	if (skipped_epoch)
		fprintf(stderr, "; %ld whose global batch is more than an epoch's images", skipped_epoch);
	if (skipped_partial)
		fprintf(stderr, "; %ld leaving GPUs of a node idle (--partial-nodes keeps them)", skipped_partial);
	if (skipped_net)
		fprintf(stderr, "; %ld multi-node without a network (--fabric ID adds one)", skipped_net);
	if (skipped_mem)
		fprintf(stderr, "; %ld do not fit GPU memory (bottleneck 'memory')", skipped_mem);
	if (skipped_gb)
		fprintf(stderr, "; %ld whose GPU count does not divide --global-batch %d", skipped_gb, global_batch);
	if (skipped_gpn)
		fprintf(stderr, "; %ld with more GPUs per node than the system has", skipped_gpn);
	fprintf(stderr, "\n");
	if (q.goal != PLAN_GRID || constrained)
		sw_answer(&s, &q, blocks, rows, nrows);
out:
	csvw_abort(w);
	free(rows);
	free(blocks);
	free(nodes);
	free(batches);
	free(gpns);
	free(cand);
	cli_scen_free(&s);
	return rc;
}
