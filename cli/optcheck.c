/* cli/optcheck.c: checks on what the user asked for that need more than one option or the database,
 * shared by predict, compare, sweep and report: input that would otherwise pass without a
 * word. Each prints "scaleplan CMD: ..." and returns an exit code. Then the small printing helpers the
 * commands share: why a cost is missing, text wrapped within PLAN_TEXT_WIDTH.
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

void cli_print_wrapped(FILE *out, const char *text)
{
	strbuf b;
	strbuf_init(&b);
	strbuf_add_wrapped(&b, text, PLAN_TEXT_WIDTH);
	fputs(b.s, out);
	strbuf_free(&b);
}
