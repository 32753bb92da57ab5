/* cli/optcheck.c: checks on what the user asked for that need more than one option or the database,
 * shared by predict, compare, sweep and report: input that would otherwise pass without a
 * word. Each prints "scaleplan CMD: ..." and returns an exit code.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
		cmd, m->runs_per_month, plan_fmt_duration(tta_s, d, sizeof d), floor(MODEL_MONTH_S / tta_s));
	return EXIT_INPUT;
}

int cli_check_columns(const char *cmd, const char *columns, bool ok, const char *why)
{
	if (!columns || ok)
		return EXIT_OK;
	fprintf(stderr, "scaleplan %s: --columns %s: %s\n", cmd, columns, why);
	return EXIT_INPUT;
}

int cli_check_gpus(const char *cmd, long nodes, int gpus_per_node)
{
	if (nodes * gpus_per_node <= CLI_MAX_GPUS)
		return EXIT_OK;
	fprintf(stderr, "scaleplan %s: --nodes %ld x %d GPUs per node = %ld GPUs: expected at most %d GPUs (the limit "
			"of every command, as compare --gpus 1..%d)\n",
		cmd, nodes, gpus_per_node, nodes * gpus_per_node, CLI_MAX_GPUS, CLI_MAX_GPUS);
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

/* Row w's reason for a missing cost c into buf; NULL where c is priced or w does not fit. */
static const char *row_why(const plan_option *w, plan_cost c, char *buf, size_t len_B)
{
	plan_unpriced k = w->r.fits ? plan_cost_unpriced(c, &w->sc, &w->cost) : PLAN_PRICED;
	return k == PLAN_PRICED ? NULL : plan_unpriced_text(k, &w->sc.price, buf, len_B);
}

char *cli_why_unpriced(const model_scenario *sc, const model_cost *cost, plan_cost c, char *buf, size_t len_B)
{
	char t[200];
	plan_unpriced k = plan_cost_unpriced(c, sc, cost);
	if (k == PLAN_PRICED)
		return NULL;
	if (k == PLAN_RENT_LIMIT)
		snprintf(buf, len_B, "%s: %s (%.0f GPUs here)", sc->node.system_id,
			 plan_unpriced_text(k, &sc->price, t, sizeof t), cost->rent_gpus);
	else
		snprintf(buf, len_B, "%s: %s", sc->node.system_id, plan_unpriced_text(k, &sc->price, t, sizeof t));
	return buf;
}

/* true when row i is the first of rows with cost c missing for reason why (and, with id, of that system) */
static bool why_first(const plan_option *rows, int i, plan_cost c, const char *why, const char *id)
{
	char t[200];
	for (int j = 0; j < i; j++) {
		const char *w = row_why(&rows[j], c, t, sizeof t);
		if (w && strcmp(w, why) == 0 && (!id || strcmp(rows[j].sc.node.system_id, id) == 0))
			return false;
	}
	return true;
}

void cli_unpriced_notes(FILE *out, const plan_option *rows, int nrows)
{
	static const plan_cost costs[] = {PLAN_CAPEX, PLAN_RENT};
	char why[200], t[200];
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < nrows; i++) {
			plan_cost c = costs[k];
			if (!row_why(&rows[i], c, why, sizeof why) || !why_first(rows, i, c, why, NULL))
				continue;
			/* a line per reason, naming every system it holds for */
			fprintf(out, "('-' in %s: %s", c == PLAN_RENT ? "rent/run" : "capex and tco/run", rows[i].sc.node.system_id);
			for (int j = i + 1; j < nrows; j++) {
				const char *w = row_why(&rows[j], c, t, sizeof t);
				if (w && strcmp(w, why) == 0 && why_first(rows, j, c, why, rows[j].sc.node.system_id) &&
				    strcmp(rows[j].sc.node.system_id, rows[i].sc.node.system_id) != 0)
					fprintf(out, ", %s", rows[j].sc.node.system_id);
			}
			fprintf(out, ": %s)\n", why);
		}
}
