/* cli/optcheck.c: checks on what the user asked for that need more than one option or the database,
 * shared by predict, compare, sweep and report: input that would otherwise pass without a
 * word. Each prints "scaleplan CMD: ..." and returns an exit code.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"


int cli_check_runs_fit(const char *cmd, const model_money *m, double tta_s)
{
	char d[32];
	if (!(m->runs_per_month > 0) || !isfinite(tta_s) || !(tta_s > 0))
		return EXIT_OK;
	if (m->runs_per_month * tta_s <= MODEL_MONTH_S)
		return EXIT_OK;
	fprintf(stderr, "scaleplan %s: --runs-per-month %g: a run takes %s to accuracy (the fastest option), so at "
			"most %.0f runs fit a month of wall clock back to back; give at most that (or leave "
			"--runs-per-month out: runs back to back)\n",
		cmd, m->runs_per_month, cli_fmt_duration(tta_s, d, sizeof d), floor(MODEL_MONTH_S / tta_s));
	return EXIT_INPUT;
}

char *cli_target_label(const plan_spec *spec, char *buf, size_t len_B)
{
	if (spec->epochs > 0)
		snprintf(buf, len_B, "%.1f%% top-1 in %g epochs (--epochs)", 100 * spec->target_top1, spec->epochs);
	else
		snprintf(buf, len_B, "%.1f%% top-1", 100 * spec->target_top1);
	return buf;
}

int cli_batch_that_fits(model_scenario *sc, const model_params *p)
{
	int was = sc->batch_per_gpu, fit = 0;
	for (int b = was / 2; b >= 1 && !fit; b /= 2) {
		model_result r;
		sc->batch_per_gpu = b;
		if (model_predict(sc, p, &r) == 0 && r.fits)
			fit = b;
	}
	sc->batch_per_gpu = was;
	err_clear();
	return fit;
}

int cli_check_out(const char *cmd, const char *opt, const char *path, bool folder)
{
	int rc = folder ? out_check_dir(path) : out_check_file(path);
	if (rc)
		fprintf(stderr, "scaleplan %s: %s %s\n", cmd, opt, err_msg());
	return rc ? exit_code_of(rc) : EXIT_OK;
}

int cli_check_not_both(const char *cmd, const char *a, bool has_a, const char *b, bool has_b)
{
	if (!has_a || !has_b)
		return EXIT_OK;
	fprintf(stderr, "scaleplan %s: give %s or %s, not both\n", cmd, a, b);
	return EXIT_INPUT;
}
