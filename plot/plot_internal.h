/* plot/plot_internal.h: the steps of a chart (plot.h's head comment) that only plot/, its tests and its
 * fuzzer call; other folders draw charts through plot.h (not a public header).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_PLOT_INTERNAL_H
#define SCALEPLAN_PLOT_INTERNAL_H

#include "plot/plot.h"

/* ---- Used only inside plot/ (and its tests and fuzzer) ---- */
/* Builds the series of chart `kind` (not PLOT_AUTO) from n tables. Fails with ERR_INPUT and err set
 * ("file: no column 'x' (a tta chart needs ...)", "file:line:col (name): expected ...") on a missing
 * column or bad cell, or when no row has anything to draw. *d is empty on failure (plot_data_free safe). */
int plot_data_build(plot_data *d, plot_kind kind, const csv_table *const *tables, int n);
/* true when an executable gnuplot is on PATH. */
bool plot_gnuplot_found(void);
/* A gnuplot string literal for s: single-quoted (gnuplot does no backslash or backquote substitution
 * there), ' doubled, control characters replaced by spaces. Fresh heap string. */
char *plot_gp_quote(const char *s);
/* Marks the Pareto front of n points, both coordinates to be minimised: on_front[i] is true when no other
 * point is <= in both and < in one. Points with a NAN coordinate are never on it. Exact duplicates of a
 * front point are on it too. Returns how many are on it. */
int plot_pareto(const double *x, const double *y, int n, bool *on_front);
/* Writes the whole gnuplot script: data blocks, then one chart per format of o (svg to svg_out, png to
 * png_out; NULL = not written). Returns 0 or ERR_ENV on a write error. */
int plot_script_write(FILE *f, const plot_data *d, const plot_opts *o, const char *svg_out, const char *png_out);

#endif
