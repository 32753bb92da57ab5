/* `scaleplan validate`: predicts every measurement on file without fitting to it; error table.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calibrate/cal.h"
#include "cli/cli.h"
#include "common/common.h"
#include "hwdb/hw.h"

static void validate_help(FILE *out)
{
	fprintf(out,
		"usage: scaleplan validate [--against DIR|FILE]... [--no-builtin] [--profile FILE] [--where EXPR]\n"
		"                          [--format table|csv|md] [--detail FILE] [--strict] [--hwdb DIR]\n"
		"\n"
		"Predicts every measurement on file - the reference data built into the binary and any --against\n"
		"data - without fitting to the point being predicted, and prints per group: points, mean absolute\n"
		"percentage error (MAPE) and the worst point.\n"
		"Without --profile each point is predicted by a fit of the other points of its group\n"
		"(leave-one-out; a group of one point is predicted from the priors). With --profile the points are\n"
		"predicted from that profile alone (nothing is fitted): use it for a hold-out set that the profile's\n"
		"calibration did not see.\n"
		"\n"
		"  --against P     measurements (CSV or directory, as calibrate reads them); may be repeated\n"
		"  --no-builtin    leave out the built-in reference data\n"
		"  --profile FILE  predict with this profile (written by `scaleplan calibrate`) instead of refitting\n"
		"  --where EXPR    keep only points with field=value[,...] (see `scaleplan calibrate --help`)\n"
		"  --format F      table (default), csv, or md (the Markdown table of docs/validate.md)\n"
		"  --detail FILE   also write one CSV row per point (measured, predicted, error, how)\n"
		"  --strict        malformed rows are fatal (default: reported with file:line, skipped)\n"
		"  --hwdb DIR      overlay DIR on the built-in hardware database\n");
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"against", required_argument, 0, 'a'}, {"no-builtin", no_argument, 0, 'n'},
		{"profile", required_argument, 0, 'p'}, {"where", required_argument, 0, 'w'},
		{"format", required_argument, 0, 'f'},  {"detail", required_argument, 0, 'd'},
		{"strict", no_argument, 0, 's'},        {"hwdb", required_argument, 0, 'H'},
		{"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
	const char *against[64], *profile = NULL, *where = NULL, *format = "table", *detail = NULL, *hwdb_dir = NULL;
	int nagainst = 0;
	bool builtin = true, strict = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "a:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (nagainst == 64) {
				fprintf(stderr, "scaleplan validate: at most 64 --against\n");
				return EXIT_INPUT;
			}
			against[nagainst++] = optarg;
			break;
		case 'n': builtin = false; break;
		case 'p': profile = optarg; break;
		case 'w': where = optarg; break;
		case 'f': format = optarg; break;
		case 'd': detail = optarg; break;
		case 's': strict = true; break;
		case 'H': hwdb_dir = optarg; break;
		case 'h': validate_help(stdout); return EXIT_OK;
		default: validate_help(stderr); return EXIT_INPUT;
		}
	}
	if (strcmp(format, "table") != 0 && strcmp(format, "csv") != 0 && strcmp(format, "md") != 0) {
		fprintf(stderr, "scaleplan validate: --format '%s': expected table, csv or md\n", format);
		return EXIT_INPUT;
	}
	if (optind < argc) {
		fprintf(stderr, "scaleplan validate: unexpected argument '%s'\n", argv[optind]);
		return EXIT_INPUT;
	}
	hw_db db;
	int rc = cli_load_db(&db, hwdb_dir);
	if (rc != EXIT_OK)
		return rc;
	cal_data d;
	cal_data_init(&d);
	cal_pset ps;
	cal_pset_init(&ps);
	cal_vtable vt = {0};
	FILE *df = NULL;
	if (builtin && cal_data_load_builtin(&d, stderr) < 0) {
		fprintf(stderr, "scaleplan validate: built-in reference data: %s\n", err_msg());
		rc = EXIT_ENV;
		goto out;
	}
	for (int i = 0; i < nagainst; i++) {
		int r = cal_data_load_path(&d, against[i], CAL_MLPERF_TARGET_TOP1, strict, stderr);
		if (r < 0) {
			fprintf(stderr, "scaleplan validate: %s\n", err_msg());
			rc = r == ERR_ENV ? EXIT_ENV : EXIT_INPUT;
			goto out;
		}
	}
	cal_data_canonical(&d, &db);
	if (where && cal_data_filter(&d, where) < 0) {
		fprintf(stderr, "scaleplan validate: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	if (profile && cal_pset_load(&ps, profile) < 0) {
		fprintf(stderr, "scaleplan validate: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	if (detail && !(df = fopen(detail, "w"))) {
		fprintf(stderr, "scaleplan validate: %s: cannot write\n", detail);
		rc = EXIT_ENV;
		goto out;
	}
	cal_opts o = {.db = &db, .strict = strict, .log = stderr};
	if (cal_validate(&vt, &d, profile ? &ps : NULL, &o, df) < 0) {
		fprintf(stderr, "scaleplan validate: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	cal_vtable_print(&vt, format, stdout);
	if (strcmp(format, "csv") != 0) {
		double all = 0;
		for (int i = 0; i < vt.n; i++)
			all += vt.rows[i].mape * vt.rows[i].n;
		printf("%s%d points in %d groups, overall MAPE %.1f%%%s; predicted %s\n", strcmp(format, "md") == 0 ? "\n" : "",
		       vt.npred, vt.n, 100 * all / vt.npred,
		       vt.nunpredictable ? " (some points could not be predicted: see stderr)" : "",
		       profile ? "from the profile only (no fitting)" : "leave-one-out within each fit group (a group of one: from the other groups' fits and the priors)");
	}
	rc = EXIT_OK;
out:
	if (df)
		fclose(df);
	cal_vtable_free(&vt);
	cal_pset_free(&ps);
	cal_data_free(&d);
	hw_db_free(&db);
	return rc;
}
