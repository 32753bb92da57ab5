/* cli/db.c: the hardware database as every command loads it (built in, then --hwdb DIR) and the message for
 * an unknown id. Apart from main.c so that a front end without main's command table (web/'s WebAssembly
 * build of compare) links the same code.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include "common/common.h"

#include <dirent.h>
#include <stdio.h>

int cli_load_db(hw_db *db, const char *cmd, const char *hwdb_dir)
{
	if (hw_db_load_default(db, stderr) < 0) {
		fprintf(stderr, "scaleplan %s: the built-in hardware database is broken (a bug): %s\n", cmd, err_msg());
		return EXIT_ENV;
	}
	if (!hwdb_dir)
		return EXIT_OK;
	/* a folder the user named that is not there (or is a file) is bad input, exit 1 (README) */
	DIR *d;
	int rc = dir_open(hwdb_dir, &d);
	if (rc) {
		hw_db_free(db);
		fprintf(stderr, "scaleplan %s: --hwdb: %s\n", cmd, err_msg());
		return exit_code_of(rc);
	}
	closedir(d);
	rc = hw_db_overlay_dir(db, hwdb_dir, stderr);
	if (rc < 0) {
		hw_db_free(db);
		fprintf(stderr, "scaleplan %s: --hwdb %s not loaded\n", cmd, hwdb_dir);
		return rc == ERR_ENV ? EXIT_ENV : EXIT_INPUT;
	}
	return EXIT_OK;
}

int cli_unknown_id(const hw_db *db, const char *where, hw_kind kind, const char *id)
{
	char sug[256];
	hw_suggest(db, kind, id, sug, sizeof sug);
	if (!*sug) /* nothing near: where the ids are listed */
		snprintf(sug, sizeof sug, "see `scaleplan hw list%s%s`", kind < HW_NKINDS ? " " : "",
			 kind < HW_NKINDS ? hw_kind_name(kind) : "");
	fprintf(stderr, "scaleplan %s: unknown %s '%s'; %s\n", where, hw_kind_singular(kind), id, sug);
	return EXIT_INPUT;
}
