/* cli/cmd_compare.c: `scaleplan compare --gpus N`: every way to place N GPUs on the candidate systems
 * (1 x N ... N x 1 nodes x GPUs per node, as far as a node holds them), sorted by time to accuracy,
 * each with its bottleneck: the scale-up vs scale-out answer.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* The seed systems of the white papers (reference/seed_facts.md) and current H100/H200 nodes. */
static const char *default_systems[] = {"c4130-p100", "c4140-b", "c4140-k", "c4140-m", "r740-p40", "dgx1-v100",
					 "apollo6500-v100", "dss8440-v100", "dgxh100", "hgx-h200"};

typedef cli_row cmp_row;

static int by_rank(const void *a, const void *b)
{
	const cmp_row *x = a, *y = b;
	int c = cli_rank_cmp(x->key, x->tie, y->key, y->tie);
	return c ? c : strcmp(x->sc.node.system_id, y->sc.node.system_id);
}

void cli_rows_sort(cli_row *rows, int n)
{
	qsort(rows, (size_t)n, sizeof *rows, by_rank);
}

int cli_candidates(cli_scen *s, const char *cmd, const char *systems, const hw_system **cand, int max, int *n)
{
	*n = 0;
	if (!systems) {
		for (size_t i = 0; i < sizeof(default_systems) / sizeof(default_systems[0]) && *n < max; i++) {
			const hw_system *sys = hw_system_find(&s->db, default_systems[i]);
			if (sys)
				cand[(*n)++] = sys;
		}
	} else if (strcmp(systems, "all") == 0) {
		for (int i = 0; i < s->db.nsystems && *n < max; i++)
			cand[(*n)++] = &s->db.systems[i];
	} else {
		char buf[2048], *save = NULL, where[64];
		snprintf(buf, sizeof(buf), "%s", systems);
		snprintf(where, sizeof where, "%s: --systems", cmd);
		for (char *tok = strtok_r(buf, ",", &save); tok && *n < max; tok = strtok_r(NULL, ",", &save)) {
			const hw_system *sys = hw_system_find(&s->db, tok);
			if (!sys)
				return cli_unknown_id(&s->db, where, HW_SYSTEM, tok);
			cand[(*n)++] = sys;
		}
	}
	if (*n == 0) {
		fprintf(stderr, "scaleplan %s: no candidate systems\n", cmd);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

int cli_placements(cli_scen *s, const char *cmd, const hw_system *const *cand, int ncand, long gpus, cli_rank rank,
		   cli_row **rows, int *nrows, int *cap, int *skipped)
{
	for (int k = 0; k < ncand; k++) {
		const hw_system *sys = cand[k];
		for (int gpn = sys->gpus_per_node; gpn >= 1; gpn--) {
			if (gpus % gpn)
				continue;
			int nodes = (int)(gpus / gpn);
			if (nodes > 1 && !sys->nic && !s->fabric_id) {
				(*skipped)++;
				continue;
			}
			if (*nrows == *cap) {
				*cap = *cap ? 2 * *cap : 64;
				*rows = xrealloc(*rows, (size_t)*cap * sizeof(**rows));
			}
			cli_row *row = &(*rows)[*nrows];
			int rc = cli_scen_resolve(s, sys, gpn, nodes, &row->sc);
			if (rc)
				return rc;
			if (model_predict(&row->sc, &s->params, &row->r)) {
				fprintf(stderr, "scaleplan %s: %s: %s\n", cmd, sys->id, err_msg());
				return EXIT_INPUT;
			}
			cli_rank_key(rank, &row->r, &row->key, &row->tie);
			(*nrows)++;
		}
	}
	return EXIT_OK;
}


/* The scale-up vs scale-out answer by time to accuracy. A margin under 5% is within the model's error on
 * whole runs (README's whole-run group), so a narrow scale-out win also says that scale-up needs one node:
 * the planner should not send someone to buy N servers for a difference the model cannot resolve. */
static void print_time_answer(const cmp_row *up, const cmp_row *outr)
{
	double margin = fmax(up->r.tta_s, outr->r.tta_s) / fmin(up->r.tta_s, outr->r.tta_s) - 1;
	bool out_wins = outr->r.tta_s < up->r.tta_s;
	printf("answer: scale %s (%.1f%% faster)", out_wins ? "out" : "up", 100 * margin);
	if (out_wins && margin < 0.05)
		printf("; within 5%%, so about a tie: scale-up does it on 1 node instead of %d", outr->sc.nodes);
	printf("\n");
}

static void compare_usage(FILE *out)
{
	fprintf(out,
		"usage: scaleplan compare --gpus N [--systems a,b,c] [--rank-by tta|ttt|cost] [--format table|csv]\n"
		"                         [--out FILE] [options]\n"
		"\n"
		"Every placement of N GPUs on each candidate system (nodes x GPUs per node: 1xN ... Nx1, as far as\n"
		"a node holds them), ranked, with the bottleneck and software stack of each: scale up or scale out?\n"
		"  --gpus N        total GPUs (1..65536)\n"
		"  --rank-by K     tta (default): wall-clock time to accuracy, tta_s; ttt: time to train as MLPerf\n"
		"                  scores it, ttt_s; cost: capex = node list price x nodes (placements without a\n"
		"                  price last, then by tta_s)\n"
		"  --systems LIST  candidate systems (default: the white papers' seed systems, dgxh100, hgx-h200;\n"
		"                  'all' = every system in the database)\n"
		"  --format F      table (default) or csv;  --out FILE  write the CSV to FILE (atomic)\n"
		"\n");
	cli_scen_help(out);
}

int cmd_compare(int argc, char **argv)
{
	struct option opts[64];
	cli_scen s;
	const char *systems = NULL, *format = "table", *outpath = NULL;
	long gpus = 0;
	int n, c, rc = EXIT_OK, nrows = 0, cap = 0, skipped = 0;
	const hw_system *cand[256];
	int ncand = 0;
	cmp_row *rows = NULL;
	cli_rank rank = CLI_RANK_TTA;

	cli_scen_init(&s, "compare");
	n = cli_scen_longopts(opts, 0, 58);
	opts[n++] = (struct option){"gpus", required_argument, NULL, 'g'};
	opts[n++] = (struct option){"systems", required_argument, NULL, 'S'};
	opts[n++] = (struct option){"format", required_argument, NULL, 'f'};
	opts[n++] = (struct option){"out", required_argument, NULL, 'o'};
	opts[n++] = (struct option){"rank-by", required_argument, NULL, 'R'};
	opts[n++] = (struct option){"help", no_argument, NULL, 'h'};
	opts[n] = (struct option){0};
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int hd = cli_scen_option(&s, c, optarg);
		if (hd < 0)
			return EXIT_INPUT;
		if (hd)
			continue;
		switch (c) {
		case 'R':
			if (cli_rank_parse("compare", optarg, false, &rank))
				return EXIT_INPUT;
			break;
		case 'g': {
			char *end;
			gpus = strtol(optarg, &end, 10);
			if (*end || end == optarg || gpus < 1 || gpus > 65536) {
				fprintf(stderr, "scaleplan compare: --gpus '%s': expected an integer 1..65536\n", optarg);
				return EXIT_INPUT;
			}
			break;
		}
		case 'S': systems = optarg; break;
		case 'o': outpath = optarg; break;
		case 'f':
			if (strcmp(optarg, "table") && strcmp(optarg, "csv")) {
				fprintf(stderr, "scaleplan compare: --format '%s': expected table or csv\n", optarg);
				return EXIT_INPUT;
			}
			format = optarg;
			break;
		case 'h': compare_usage(stdout); return EXIT_OK;
		default: fprintf(stderr, "scaleplan compare: see `scaleplan compare --help`\n"); return EXIT_INPUT;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "scaleplan compare: unexpected argument '%s'\n", argv[optind]);
		return EXIT_INPUT;
	}
	if (gpus < 1) {
		fprintf(stderr, "scaleplan compare: --gpus N is required (e.g. --gpus 8)\n");
		return EXIT_INPUT;
	}
	if (s.system_id || s.gpus_per_node || s.nodes != 1 || s.global_batch) {
		fprintf(stderr, "scaleplan compare: --system/--gpus-per-node/--nodes/--global-batch are chosen by "
				"compare; use --systems and --gpus (or `predict` for one placement)\n");
		return EXIT_INPUT;
	}
	rc = cli_scen_load(&s);
	if (rc)
		goto out;
	rc = cli_candidates(&s, "compare", systems, cand, 256, &ncand);
	if (rc)
		goto out;
	if (s.nmeasured && ncand > 1) {
		fprintf(stderr, "scaleplan compare: --measured describes one system; give exactly one in --systems\n");
		rc = EXIT_INPUT;
		goto out;
	}
	rc = cli_placements(&s, "compare", cand, ncand, gpus, rank, &rows, &nrows, &cap, &skipped);
	if (rc)
		goto out;
	if (nrows == 0) {
		fprintf(stderr, "scaleplan compare: no system can hold %ld GPUs (%d need a network the database "
				"does not give them: try --fabric ID)\n", gpus, skipped);
		rc = EXIT_INPUT;
		goto out;
	}
	cli_rows_sort(rows, nrows);
	if (outpath || strcmp(format, "csv") == 0) {
		csvw *w = outpath ? csvw_open(outpath) : csvw_stream(stdout);
		if (!w) {
			fprintf(stderr, "scaleplan compare: %s\n", err_msg());
			rc = EXIT_ENV;
			goto out;
		}
		cli_result_csv_header(w);
		for (int i = 0; i < nrows; i++)
			cli_result_csv_row(w, &rows[i].sc, &rows[i].r);
		if (csvw_close(w)) {
			fprintf(stderr, "scaleplan compare: %s\n", err_msg());
			rc = EXIT_ENV;
			goto out;
		}
		if (!outpath)
			goto out;
	}
	{
		char d[32], dt[32];
		const cmp_row *up = NULL, *outr = NULL;
		printf("scaleplan compare: %ld GPUs, ResNet-50 to 75.9%% top-1, %s, data %s; ranked by %s\n", gpus,
		       model_precision_name(s.precision), s.data >= 0 ? model_data_name((model_data)s.data) : "as each stack",
		       cli_rank_name(rank));
		printf("%4s %-16s %-16s %7s %6s %7s %9s %7s %-10s %6s %13s %12s %10s %9s  %s\n", "rank", "system", "gpu",
		       "nodes", "batch", "global", "img/s", "scaling", "bottleneck", "epochs", "time-to-train", "time-to-acc",
		       "capex $", "kWh", "stack (data path)");
		for (int i = 0; i < nrows; i++) {
			const cmp_row *w = &rows[i];
			char place[32], capex[24], kwh[24], st[96];
			snprintf(place, sizeof place, "%dx%d", w->sc.nodes, w->sc.node.gpus_per_node);
			snprintf(capex, sizeof capex, isfinite(w->r.capex_usd) ? "%.0f" : "-", w->r.capex_usd);
			snprintf(kwh, sizeof kwh, isfinite(w->r.energy_J) ? "%.0f" : "-", w->r.energy_J / 3.6e6);
			printf("%4d %-16.16s %-16.16s %7s %6d %7d %9.0f %6.1f%% %-10s %6.1f %13s %12s %10s %9s  %s\n", i + 1,
			       w->sc.node.system_id, w->sc.node.gpu_id, place, w->sc.batch_per_gpu, w->r.global_batch,
			       w->r.throughput_img_s, 100 * w->r.scaling_eff,
			       w->r.fits ? model_bottleneck_name(w->r.bottleneck) : "memory", w->r.epochs,
			       cli_fmt_duration(w->r.ttt_s, dt, sizeof dt), cli_fmt_duration(w->r.tta_s, d, sizeof d), capex,
			       kwh, cli_stack_label(&w->sc, st, sizeof st));
			if (w->r.fits && w->sc.nodes == 1 && !up)
				up = w;
			if (w->r.fits && w->sc.nodes > 1 && !outr)
				outr = w;
		}
		printf("\n");
		if (up)
			printf("best scale-up  (1 node):   %s 1x%d, %s, bottleneck %s\n", up->sc.node.system_id,
			       up->sc.node.gpus_per_node, cli_fmt_duration(up->r.tta_s, d, sizeof d),
			       model_bottleneck_name(up->r.bottleneck));
		if (outr)
			printf("best scale-out (%d nodes): %s %dx%d, %s, bottleneck %s\n", outr->sc.nodes, outr->sc.node.system_id,
			       outr->sc.nodes, outr->sc.node.gpus_per_node, cli_fmt_duration(outr->r.tta_s, d, sizeof d),
			       model_bottleneck_name(outr->r.bottleneck));
		if (up && outr && rank == CLI_RANK_COST && isfinite(up->key) && isfinite(outr->key))
			printf("answer: scale %s (capex %.1f%% lower)\n", up->key <= outr->key ? "up" : "out",
			       100 * (1 - fmin(up->key, outr->key) / fmax(up->key, outr->key)));
		else if (up && outr)
			print_time_answer(up, outr);
		printf("capex = list price x nodes (whole nodes are bought), '-' where the database has no price; "
		       "kWh = energy per run\n");
		if (skipped)
			printf("(%d multi-node placement%s skipped: system without a network in the database; --fabric ID adds one)\n",
			       skipped, skipped > 1 ? "s" : "");
	}
out:
	free(rows);
	cli_scen_free(&s);
	return rc;
}
