/* report/: the procurement report's documents - report.md and index.html (the same sections and tables), the
 * charts they show (plot/: tta.svg, cost.svg, sensitivity.svg, cashflow.svg) and cashflow.csv - written into a
 * folder the caller made (`scaleplan report` builds it as DIR.tmp-PID and renames it when complete).
 * Prints nothing: a chart that cannot be drawn is a note in the report (rep_made), a file that cannot be
 * written an error code with err set (docs/design.md, "Errors in the code").
 * All text placed in HTML is escaped; Markdown cells escape | and markup.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_REPORT_H
#define SCALEPLAN_REPORT_H

#include <stdbool.h>

#include "hwdb/hw.h"
#include "model/model.h"
#include "plan/plan.h"

enum { REP_NOTE_B = 512, REP_MAX_YEARS = 51 /* amortisation is at most 50 years (model_money_check) */ };

/* One GPU count's options: rows[first .. first+n), ranked (plan_options_sort). */
typedef struct rep_group {
	int gpus;
	int first, n;
} rep_group;

/* What the report is about: the run as asked, the question, and every placement of each GPU count. */
typedef struct rep_input {
	const char *cmdline;        /* "scaleplan report ...", quoted in the opening paragraph */
	const hw_db *db;
	const plan_spec *spec;
	const model_params *params;
	bool overlay;               /* the database has an --hwdb overlay */
	const plan_question *q;
	plan_option *rows;          /* rows[nrows], grouped by g[ng] */
	int nrows;
	const rep_group *g;
	int ng;
	const char *placements_csv; /* the rows as a table (compare's columns): the charts draw from it */
	bool whatif, xlsx;          /* whatif.html, costs.xlsx written beside (the Files section lists them) */
} rep_input;

/* The first GPU count's answer owned year by year beside the same runs rented (model_cashflow). */
typedef struct rep_cash {
	const plan_option *buy;   /* NULL: no bought option of the answer's GPU with a price */
	const char *rent_id;      /* the rental the runs are priced at; NULL: none */
	double rent_term_years;   /* that rent held a term at a time (0: on demand): the steps of its fall */
	int n;
	model_cash_year y[REP_MAX_YEARS];
	bool ok, chart_ok;
	char note[REP_NOTE_B];
} rep_cash;

/* What rep_charts drew, and why not where it could not (the documents say so). */
typedef struct rep_made {
	bool tta_ok, cost_ok, sens_ok;
	char tta_note[REP_NOTE_B], cost_note[REP_NOTE_B], sens_note[REP_NOTE_B];
	plan_sens sens; /* the first GPU count's answer against each input (plan_sens_compute) */
	rep_cash cash;
} rep_made;

/* tta.svg, cost.svg (from in->placements_csv), sensitivity.svg, cashflow.csv and cashflow.svg into dir, *m
 * filled. Never fails: what cannot be drawn or written has its reason in m's notes. */
void rep_charts(const char *dir, const rep_input *in, rep_made *m);
/* report.md and index.html into dir, from in and rep_charts' m. 0, or ERR_ENV with err set. */
int rep_docs(const char *dir, const rep_input *in, const rep_made *m);
/* Removes a flat folder and the files in it (a report folder given up). */
void rep_remove_dir(const char *dir);

#endif
