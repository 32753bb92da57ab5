/* plot: charts from the CSV tables scaleplan writes, drawn by gnuplot.
 *
 * A chart is made in three steps, each usable on its own (plot/'s tests and fuzzer reach steps 2 and 3
 * through plot/plot_internal.h; `report` builds its series with plot_data_begin/add and calls plot_render):
 *   1. read the tables (csv_table_load) and decide the kind from the header (plot_kind_detect);
 *   2. turn the rows into named series (plot_data_build): columns are found by NAME, so new columns never
 *      break a chart; every bad cell is an error "file:line:column (name): expected ...";
 *   3. write a gnuplot script (plot_script_write: data as inline data blocks, every string placed in the
 *      script quoted by plot_gp_quote so no name can inject commands) and run gnuplot on it
 *      (plot_render: outputs go to PREFIX.svg.tmp / PREFIX.png.tmp and are renamed when gnuplot succeeds).
 *
 * Kinds:
 *   tta    predict/compare/sweep rows: tta_s (thick lines; ttt_s as small dots) vs GPUs, one line per system and
 *          GPUs per node (scale up vs scale out), log axes;
 *   cost   the same rows: capex, rent or TCO per run (plot_data.cost_col; and energy per run when energy_J is
 *          there) vs tta_s, the Pareto front (neither faster nor cheaper exists) marked, a budget as a line;
 * Placement charts mark extrapolated points (the CSV's extrapolated column), label time axes in s/min/h/d
 * at every scale and money in dollars ($250k, $1.5M), and name each line at its end (lines that end
 * together share one label).
 *   parity validate --detail rows: predicted vs measured, y = x and the +-10% band, log axes;
 *   epochs the engine's measurement CSV (docs/design.md "Measurement CSV"), rows with epoch >= 1: throughput
 *          and top-1 vs elapsed time;
 *   tornado a cost's sensitivity (report): one horizontal bar per input from the cost at its low end (x) to the
 *          cost at its high end (y), the base cost (y2) as a line, widest bar on top; built with plot_data_add_point,
 *          not from a CSV (plot_kind_parse does not offer it).
 *   cashflow money over the years (report): one line per series (owned, rented; cumulative USD, y) against the
 *          year (x), built with plot_data_add_point like tornado.
 * Depends on common only. SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_PLOT_H
#define SCALEPLAN_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/common.h"

typedef enum plot_kind { PLOT_AUTO, PLOT_TTA, PLOT_COST, PLOT_PARITY, PLOT_EPOCHS, PLOT_TORNADO, PLOT_CASHFLOW } plot_kind;

/* One line or point set of a chart; x, y, y2 have n entries. y2 is NAN where absent (tta: ttt_s;
 * cost: energy per run; epochs: top-1). */
typedef struct plot_series {
	char *label;
	int n, cap;
	double *x, *y, *y2;
	double *key;         /* tta/cost: the GPU count of each point (one point per count, the fastest); else NAN */
	unsigned char *mark; /* tta/cost: 1 = extrapolated (global batch outside the measured convergence range:
			      * the extrapolated or extrapolated_below column) */
	double *t_s;         /* tta/cost: the point's time to accuracy, which picks the fastest per GPU count */
} plot_series;

typedef struct plot_data {
	plot_kind kind;
	int nseries;
	plot_series *series; /* [nseries], in order of first appearance */
	bool has_y2;         /* some y2 is a number */
	bool has_mark;       /* some point is marked extrapolated */
	const char *cost_col; /* cost: the money column on y - capex_usd (NULL), rent_usd or tco_usd: the cost the
			       * reader ranks by. Set after plot_data_begin, before the rows. */
	int dropped;         /* placement charts: series left out to keep the chart readable (PLOT_MAX_SERIES) */
	int nfront;          /* cost charts that dropped series: the series kept because they hold a front point */
} plot_data;

/* A placement chart draws at most this many series (systems x GPUs per node), the fastest ones (a cost chart:
 * every series on the time-cost front, then the fastest others): more lines than a reader can tell apart say
 * nothing; the CSV keeps every row. */
enum { PLOT_MAX_SERIES = 10 };

typedef struct plot_opts {
	plot_kind kind;      /* PLOT_AUTO: from the first table's header */
	double budget_usd;   /* cost: a horizontal line; NAN = none */
	bool svg, png;       /* formats to write */
	const char *title;   /* NULL: the kind's default */
	const char *mark_label; /* tornado: a dashed line at mark_usd with this name (the alternative's cost); NULL none */
	double mark_usd;
	const char *xlabel;  /* tornado: the money axis' label; NULL: "cost (USD)" */
} plot_opts;

/* "tta", "cost", "parity", "epochs" -> kind; false for anything else. */
bool plot_kind_parse(const char *s, plot_kind *out);
const char *plot_kind_name(plot_kind k);
/* The kind a table's header asks for, or PLOT_AUTO when it is none scaleplan writes: measured+predicted
 * -> parity; epoch+throughput_img_s+top1 -> epochs; tta_s+gpus -> tta (cost is chosen with --kind). */
plot_kind plot_kind_detect(const csv_table *t);

/* The same in steps, for tables read in batches (csv_table_stream): memory is the chart's, not the file's.
 * begin; add each batch (ERR_INPUT as above, *d then emptied); end (name: for the "nothing to draw" message). */
void plot_data_begin(plot_data *d, plot_kind kind);
int plot_data_add(plot_data *d, const csv_table *t);
int plot_data_end(plot_data *d, const char *name);
void plot_data_free(plot_data *d);
/* Appends the point (x, y, y2) to the series labelled `label` (made when new). */
void plot_data_add_point(plot_data *d, const char *label, double x, double y, double y2);




/* Draws d to PREFIX.svg and/or PREFIX.png (per o) through gnuplot: script and outputs under temporary
 * names, renamed into place only when gnuplot exits 0. Fails with ERR_ENV when gnuplot is missing
 * ("gnuplot not found on PATH: install the Debian package gnuplot-nox") or fails. */
int plot_render(const plot_data *d, const plot_opts *o, const char *prefix);

#endif
