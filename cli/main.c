/* scaleplan: plan ResNet-50 training on GPU clusters - scale up or scale out?
 * `scaleplan <command> [options]`: this file only dispatches; each command is cli/cmd_<name>.c.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include "common/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCALEPLAN_VERSION
#define SCALEPLAN_VERSION "0.1.0"
#endif

/* The commands. Owners: add one line for yours (keep the order of docs/design.md). */
static const cli_cmd commands[] = {
	{"hw", cmd_hw, "hardware database: hw list [KIND] | show ID | check DIR | import FILE.json --out DIR"},
	{"predict", cmd_predict, "one configuration: throughput, breakdown, bottleneck, time to accuracy"},
	{"compare", cmd_compare, "every placement of N GPUs on the candidate systems: scale up or scale out?"},
	{"sweep", cmd_sweep, "procurement grid (systems x nodes x batch) to CSV, with capex and energy"},
	{"sim", cmd_sim, "simulate the whole run event by event: contention, stragglers, warm-up, trace"},
	{"calibrate", cmd_calibrate, "fit the model's free parameters to measurements (GSL); profile CSV"},
	{"campaign", cmd_campaign, "calibration campaign: mpirun/Slurm scripts for a grid of runs; --run runs and fits"},
	{"validate", cmd_validate, "predict every measurement on file without fitting to it: error table"},
	{"report", cmd_report, "procurement report folder (Markdown, HTML, SVG, CSV): ranking, breakdown, cost"},
	{"plot", cmd_plot, "charts (SVG, PNG) from scaleplan's CSVs with gnuplot: tta, cost, parity, epochs"},
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: scaleplan <command> [options]\n"
		"       scaleplan [--hwdb DIR] <command> [options]\n"
		"       scaleplan --help | --version\n"
		"\n"
		"Plans ResNet-50 training on GPU clusters: scale up (more GPUs per server) or scale out\n"
		"(more servers), and how long it takes to reach the target accuracy.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n"
		"global option (accepted by every command that reads the hardware database):\n"
		"  --hwdb DIR  overlay the CSV tables in DIR on the built-in database (same id replaces, new ids add)\n"
		"\n"
		"`scaleplan <command> --help` describes a command. Exit status: 0 ok, 1 bad input, 2 environment.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("scaleplan %s\n", SCALEPLAN_VERSION);
		return EXIT_OK;
	}
	/* `scaleplan --hwdb DIR cmd ...` -> `cmd --hwdb DIR ...`: the command parses it. */
	char **args = argv;
	if ((strcmp(argv[1], "--hwdb") == 0 && argc >= 4) || (strncmp(argv[1], "--hwdb=", 7) == 0 && argc >= 3)) {
		int nopt = argv[1][6] == '=' ? 1 : 2;
		args = xcalloc((size_t)argc + 1, sizeof *args);
		args[0] = argv[0];
		args[1] = argv[1 + nopt];
		for (int i = 0; i < nopt; i++)
			args[2 + i] = argv[1 + i];
		for (int i = 2 + nopt; i < argc; i++)
			args[i] = argv[i];
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(args[1], commands[i].name) == 0) {
			/* Every command stops cleanly on SIGINT/SIGTERM: the writers (common/csv.c, util.c) refuse
			 * to rename a temporary file once a signal came, long loops poll intr_pending(), and a
			 * command that did not notice still exits 128 + signal here (README "Exit status"). */
			if (intr_install()) {
				fprintf(stderr, "scaleplan: %s\n", err_msg());
				return EXIT_ENV;
			}
			int rc = commands[i].fn(argc - 1, args + 1);
			if (args != argv)
				free(args);
			if (intr_pending() && rc != intr_exit_code()) {
				fprintf(stderr, "scaleplan %s: interrupted (%s)\n", commands[i].name, intr_name());
				rc = intr_exit_code();
			}
			return rc;
		}
	fprintf(stderr, "scaleplan: unknown command '%s'", args[1]);
	int bestd = 1 << 30;
	const char *best = NULL;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		int d = str_edit_distance(args[1], commands[i].name);
		if (d < bestd) {
			bestd = d;
			best = commands[i].name;
		}
	}
	if (best && bestd <= 2)
		fprintf(stderr, "; did you mean '%s'?", best);
	fprintf(stderr, "\n\n");
	usage(stderr);
	if (args != argv)
		free(args);
	return EXIT_INPUT;
}
