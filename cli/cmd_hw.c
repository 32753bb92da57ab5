/* `scaleplan hw`: list, show and check the hardware database.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include "common/common.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void hw_usage(FILE *out)
{
	fprintf(out,
		"usage: scaleplan hw list [gpus|cpus|links|fabrics|storage|systems|stacks|archs] [--hwdb DIR]\n"
		"       scaleplan hw show ID... [--hwdb DIR]\n"
		"       scaleplan hw check DIR\n"
		"       scaleplan hw import FILE.json... --out DIR [--hwdb DIR]\n"
		"\n"
		"  list   a table of one kind of item (all kinds when none is named)\n"
		"  show   every field of an item (id or alias, any case) with its source; a system with its parts\n"
		"  check  validate a user database directory (any subset of gpus.csv, cpus.csv, links.csv,\n"
		"         fabrics.csv, storage.csv, systems.csv, stacks.csv) as an overlay on the built-in one;\n"
		"         prints every bad cell as file:line:column(name): what was expected\n"
		"  import MLPerf system descriptions (systems/<name>.json of any MLPerf Training results repository)\n"
		"         into a new overlay directory DIR: one systems.csv row per file (GPU, GPUs per node,\n"
		"         NVLink/NVSwitch/PCIe topology, host CPU and sockets, memory, NICs, storage, stack) and a\n"
		"         cpus.csv row for a CPU the database lacks; every field that does not map is named on\n"
		"         stderr and in a # comment above its row, every assumption in the row's source. An\n"
		"         unknown GPU is an error (with the nearest ids). DIR must not exist (or be empty); it is\n"
		"         written under a temporary name and renamed when complete (SIGINT/SIGTERM:\n"
		"         nothing written, exit 130/143). Then:\n"
		"         scaleplan predict --hwdb DIR --system ID --nodes N\n"
		"\n"
		"options:\n"
		"  --hwdb DIR  overlay DIR's tables on the built-in database (default: built-in only); a systems.csv\n"
		"              of id and price/rent columns only (id,price_usd,price_kind,price_date,price_source)\n"
		"              replaces the price or the rental rates of existing systems: your own quote\n"
		"  --out DIR   import: the overlay directory to write\n"
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
					"storage, systems, stacks, archs\n", args[0]);
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
		char *text = NULL;
		size_t len_B = 0;
		FILE *m = open_memstream(&text, &len_B);
		bool found = m && hw_db_show(db, args[i], m);
		if (m)
			fclose(m);
		if (found) /* a source of 400 characters wrapped under its value, as predict's lines */
			cli_print_wrapped(stdout, text);
		else
			rc = cli_unknown_id(db, "hw show", HW_NKINDS, args[i]);
		free(text);
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

/* `hw import`: every file is read before anything is written; any bad file fails the whole import. */
static int hw_import_files(const hw_db *db, int nargs, char **args, const char *out)
{
	if (nargs < 1 || !out) {
		fprintf(stderr, "scaleplan hw import: expected FILE.json... --out DIR\n");
		return EXIT_INPUT;
	}
	struct stat st;
	if (stat(out, &st) == 0 && !(S_ISDIR(st.st_mode) && dir_is_empty(out))) {
		/* before the files are read: not after a screen of their warnings */
		fprintf(stderr, "scaleplan hw import: --out %s: exists and is not %s; hw import writes a new directory "
				"(remove it or name another)\n", out, S_ISDIR(st.st_mode) ? "empty" : "a directory");
		return EXIT_INPUT;
	}
	if (intr_install()) {
		fprintf(stderr, "scaleplan hw import: %s\n", err_msg());
		return EXIT_ENV;
	}
	hw_import *imp = hw_import_new(db);
	int rc = EXIT_OK;
	for (int i = 0; i < nargs && rc == EXIT_OK; i++) {
		char *buf;
		size_t len;
		if (file_read_all(args[i], &buf, &len)) {
			fprintf(stderr, "scaleplan hw import: %s\n", err_msg());
			rc = EXIT_INPUT;
			break;
		}
		if (hw_import_add(imp, args[i], buf, len, stderr)) {
			fprintf(stderr, "scaleplan hw import: %s\n", err_msg());
			rc = EXIT_INPUT;
		}
		free(buf);
	}
	if (rc == EXIT_OK) {
		int w = hw_import_write_dir(imp, out, stderr);
		if (w) {
			fprintf(stderr, "scaleplan hw import: %s\n", err_msg());
			rc = w == ERR_INPUT ? EXIT_INPUT : w == ERR_INTR ? intr_exit_code() : EXIT_ENV;
		} else {
			printf("scaleplan hw import: %d system%s and %d new CPU%s written to %s%s\n",
			       hw_import_count(imp, HW_SYSTEM), hw_import_count(imp, HW_SYSTEM) == 1 ? "" : "s",
			       hw_import_count(imp, HW_CPU), hw_import_count(imp, HW_CPU) == 1 ? "" : "s", out,
			       out[0] && out[strlen(out) - 1] == '/' ? "" : "/");
			hw_import_print(imp, out, stdout);
		}
	}
	hw_import_free(imp);
	return rc;
}

int cmd_hw(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL;
	/* the usage lines above describe them (an option per subcommand) */
	const cli_opt own[] = {CLI_O_STR("hwdb", &dir, NULL), CLI_O_STR("out", &out, NULL), CLI_O_HELP, CLI_O_END};
	cli_parse p = {.cmd = "hw", .tables = {own}, .usage = hw_usage, .usage_on_error = true, .max_args = -1};
	int prc = cli_opt_parse(&p, argc, argv);
	if (prc || p.done)
		return prc;
	if (p.nargs < 1) {
		hw_usage(stderr);
		return EXIT_INPUT;
	}
	const char *sub = p.args[0];
	int nargs = p.nargs - 1;
	char **args = p.args + 1;
	if (strcmp(sub, "check") == 0) {
		if (dir)
			fprintf(stderr, "scaleplan hw check: --hwdb is ignored; the directory to check is the argument\n");
		return hw_check(nargs, args);
	}
	if (out && strcmp(sub, "import") != 0) {
		fprintf(stderr, "scaleplan hw %s: --out is for import only\n", sub);
		return EXIT_INPUT;
	}
	if (strcmp(sub, "list") != 0 && strcmp(sub, "show") != 0 && strcmp(sub, "import") != 0) {
		fprintf(stderr, "scaleplan hw: unknown subcommand '%s'; expected list, show, check or import\n", sub);
		return EXIT_INPUT;
	}
	int rc = cli_check_out("hw import", "--out", out, true);
	if (rc)
		return rc;
	hw_db db;
	char cmd[32];
	snprintf(cmd, sizeof cmd, "hw %s", sub);
	rc = cli_load_db(&db, cmd, dir);
	if (rc != EXIT_OK)
		return rc;
	if (strcmp(sub, "import") == 0)
		rc = hw_import_files(&db, nargs, args, out);
	else
		rc = strcmp(sub, "list") == 0 ? hw_list(&db, nargs, args) : hw_show(&db, nargs, args);
	hw_db_free(&db);
	return rc;
}
