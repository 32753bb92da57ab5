/* libFuzzer target for the chart CSV reader (plot/): any bytes must parse or be rejected with a message,
 * never crash, hang or read out of bounds; every kind that builds must give finite, log-safe numbers and a
 * script without a line that starts outside the chart's own commands (epochs may hold empty cells: NaN). Build and run: make fuzz-plot.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot.h"
#include "plot/plot_internal.h" /* plot/'s parts under test */

static void check(const plot_data *d)
{
	for (int i = 0; i < d->nseries; i++) {
		const plot_series *s = &d->series[i];
		if (!s->label || s->n < 1)
			abort();
		for (int j = 0; j < s->n; j++)
			if (!isfinite(s->x[j]) || (d->kind != PLOT_EPOCHS && !(s->y[j] > 0 && s->x[j] > 0 && isfinite(s->y[j]))))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	csv_table t;
	if (csv_table_parse(&t, "fuzz.csv", (const char *)data, size) < 0) {
		csv_table_free(&t);
		return 0;
	}
	(void)plot_kind_detect(&t);
	const csv_table *tp = &t;
	for (int k = PLOT_TTA; k <= PLOT_EPOCHS; k++) {
		plot_data d;
		if (plot_data_build(&d, (plot_kind)k, &tp, 1) < 0)
			continue;
		check(&d);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		plot_opts o = {.kind = (plot_kind)k, .budget_usd = 1e6, .svg = true, .png = true};
		if (!f || plot_script_write(f, &d, &o, "o.svg", "o.png") < 0)
			abort();
		fclose(f);
		/* every line of the script is one the writer made: a data line, a block marker or a command */
		for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			static const char *const ok[] = {"$", "EOD", "set ", "unset ", "plot ", "     ", "reset", "#", "-", "N"};
			int good = line[0] >= '0' && line[0] <= '9';
			for (size_t m = 0; m < sizeof ok / sizeof ok[0] && !good; m++)
				good = strncmp(line, ok[m], strlen(ok[m])) == 0;
			if (!good)
				abort();
		}
		free(buf);
		plot_data_free(&d);
	}
	csv_table_free(&t);
	return 0;
}
