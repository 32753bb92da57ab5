/* cli: what `calibrate` and `validate` both do before their own work - load the measurements (built-in
 * reference tables and the given files/directories), resolve ids against the hardware database, apply
 * --where, and read a profile (calibrate's --prior, validate's --profile).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>

#include "calibrate/cal.h"
#include "cli/cli.h"

int cli_cal_inputs(const char *cmd, const hw_db *db, const cli_cal_in *in, cal_data *d, cal_pset *ps)
{
	if (in->builtin && cal_data_load_builtin(d, stderr) < 0) {
		fprintf(stderr, "scaleplan %s: built-in reference data: %s\n", cmd, err_msg());
		return EXIT_ENV;
	}
	int before = d->n;
	for (int i = 0; i < in->npaths; i++) {
		int r = cal_data_load_path(d, in->paths[i], in->target_top1, in->strict, stderr);
		if (r < 0) {
			fprintf(stderr, "scaleplan %s: %s\n", cmd, err_msg());
			return exit_code_of(r);
		}
	}
	/* files the user named that gave nothing at all are a mistake, not "the built-in data alone" (one bad
	 * log among good ones is skipped with its message, as before) */
	if (in->npaths > 0 && d->n == before) {
		fprintf(stderr, "scaleplan %s: %s%s: no measurement read (expected measurement CSVs with a header "
				"row, MLLOG logs, or folders of them)\n", cmd, in->paths[0], in->npaths > 1 ? " ..." : "");
		return EXIT_INPUT;
	}
	cal_data_canonical(d, db);
	int r = in->where ? cal_data_filter(d, in->where) : 0;
	if (r == 0 && in->profile)
		r = cal_pset_load(ps, in->profile);
	if (r < 0) {
		fprintf(stderr, "scaleplan %s: %s\n", cmd, err_msg());
		return exit_code_of(r);
	}
	return EXIT_OK;
}
