/* `scaleplan hw`: list, show and check the hardware database.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include "common/common.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void hw_usage(FILE *out)
{
	fprintf(out,
		"usage: scaleplan hw list [gpus|cpus|links|fabrics|storage|systems|stacks] [--hwdb DIR]\n"
		"       scaleplan hw show ID... [--hwdb DIR]\n"
		"       scaleplan hw check DIR\n"
		"\n"
		"  list   a table of one kind of item (all kinds when none is named)\n"
		"  show   every field of an item (id or alias, any case) with its source; a system with its parts\n"
		"  check  validate a user database directory (any subset of gpus.csv, cpus.csv, links.csv,\n"
		"         fabrics.csv, storage.csv, systems.csv, stacks.csv) as an overlay on the built-in one;\n"
		"         prints every bad cell as file:line:column(name): what was expected\n"
		"\n"
		"options:\n"
		"  --hwdb DIR  overlay DIR's tables on the built-in database (default: built-in only)\n"
		"  --help      this text\n");
}

static int hw_list(const hw_db *db, int nargs, char **args)
{
	if (nargs > 1) {
		fprintf(stderr, "scaleplan hw list: at most one kind, got %d arguments\n", nargs);
		return EXIT_INPUT;
	}
	if (nargs == 1) {
		int k = hw_kind_parse(args[0]);
		if (k < 0) {
			fprintf(stderr, "scaleplan hw list: unknown kind '%s'; expected one of gpus, cpus, links, fabrics, "
					"storage, systems, stacks\n", args[0]);
			return EXIT_INPUT;
		}
		hw_db_list(db, (hw_kind)k, stdout);
		return EXIT_OK;
	}
	for (int k = 0; k < HW_NKINDS; k++) {
		if (k)
			printf("\n");
		printf("== %s ==\n", hw_kind_name((hw_kind)k));
		hw_db_list(db, (hw_kind)k, stdout);
	}
	return EXIT_OK;
}

static int hw_show(const hw_db *db, int nargs, char **args)
{
	if (nargs < 1) {
		fprintf(stderr, "scaleplan hw show: which id? (scaleplan hw list shows them)\n");
		return EXIT_INPUT;
	}
	int rc = EXIT_OK;
	for (int i = 0; i < nargs; i++) {
		if (i)
			printf("\n");
		if (!hw_db_show(db, args[i], stdout))
			rc = cli_unknown_id(db, "hw show", HW_NKINDS, args[i]);
	}
	return rc;
}

static int hw_check(int nargs, char **args)
{
	if (nargs != 1) {
		fprintf(stderr, "scaleplan hw check: expected one directory\n");
		return EXIT_INPUT;
	}
	int rc = hw_db_check_dir(args[0], stderr);
	if (rc == ERR_ENV)
		return EXIT_ENV;
	if (rc < 0) {
		fprintf(stderr, "scaleplan hw check: %s: not valid\n", args[0]);
		return EXIT_INPUT;
	}
	printf("%s: ok\n", args[0]);
	return EXIT_OK;
}

int cmd_hw(int argc, char **argv)
{
	static const struct option opts[] = {
		{"hwdb", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0},
	};
	const char *dir = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'h':
			hw_usage(stdout);
			return EXIT_OK;
		default:
			hw_usage(stderr);
			return EXIT_INPUT;
		}
	}
	if (optind >= argc) {
		hw_usage(stderr);
		return EXIT_INPUT;
	}
	const char *sub = argv[optind];
	int nargs = argc - optind - 1;
	char **args = argv + optind + 1;
	if (strcmp(sub, "check") == 0) {
		if (dir)
			fprintf(stderr, "scaleplan hw check: --hwdb is ignored; the directory to check is the argument\n");
		return hw_check(nargs, args);
	}
	if (strcmp(sub, "list") != 0 && strcmp(sub, "show") != 0) {
		fprintf(stderr, "scaleplan hw: unknown subcommand '%s'; expected list, show or check\n", sub);
		return EXIT_INPUT;
	}
	hw_db db;
	int rc = cli_load_db(&db, dir);
	if (rc != EXIT_OK)
		return rc;
	rc = strcmp(sub, "list") == 0 ? hw_list(&db, nargs, args) : hw_show(&db, nargs, args);
	hw_db_free(&db);
	return rc;
}
