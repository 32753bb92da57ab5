/* web/web_xlsx.c: costs.xlsx (libxlsxwriter) - the money of each option as formulas over its assumptions,
 * so that finance can change a price, the utilisation or the cost of capital and see every cost follow.
 * Sheet Assumptions: every money input (model_money, each with the flag that sets it and its source) as a
 * named cell, the owner's monthly factors derived from them, and one row per system with its prices and
 * their sources (hwdb). Sheet Options: one row per option (compare's rows), its physics as values (the
 * model's: time to accuracy, energy, power, GPUs, nodes and units bought, GPUs billed, the network and
 * storage the placement needs) and its money as formulas - capex parts, energy, the owner's cost per run and
 * per GPU-hour, rent per run, break-even against renting, the cash flow by year.
 * The formulas restate model/model_money.c (model_run_capex, model_run_money, capex_month,
 * fixed_month_per_usd, rent_billed, model_ref_rent_usd): they are all in the tables below, and
 * tests/whatif_xlsx.sh recalculates the workbook in LibreOffice against the command line's numbers.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "web/web.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "common/common.h"

enum { SYS_FIRST_ROW = 18, CASH_YEARS = 10 };

/* The money inputs: Assumptions!B2.. in this order, each a defined name the formulas use. */
typedef struct xl_input {
	const char *name, *label, *flag, *source;
	size_t off; /* in model_money; (size_t)-1: a constant */
	double constant;
} xl_input;

#define MONEY(f) offsetof(model_money, f)
static const xl_input inputs[] = {
	{"kwh_usd", "electricity, USD per kWh", "--kwh-price",
	 "EIA Electric Power Monthly table 5.6.B: U.S. commercial average 2024, 12-13 cents", MONEY(kwh_usd), 0},
	{"pue", "PUE (facility power / IT power)", "--pue",
	 "Uptime Institute Global Data Center Survey 2023: industry average 1.58", MONEY(pue), 0},
	{"facility_usd_kw_month", "facility (colocation), USD per kW-month of node max power", "--facility-price",
	 "wholesale colocation 150-250 USD per kW-month (2026 GPU TCO analyses; CBRE H2 2018: 120-140)",
	 MONEY(facility_usd_kw_month), 0},
	{"support_frac_year", "support, fraction of capex a year", "--support-frac",
	 "assumption: no public support price list found", MONEY(support_frac_year), 0},
	{"utilisation", "utilisation of the owned cluster (fraction of its time doing paid runs)", "--utilisation",
	 "Alibaba PAI trace (ATC'23 'Beware of Fragmentation'): 54% of GPUs held by running jobs",
	 MONEY(utilisation), 0},
	{"runs_per_month", "runs a month (0: the runs fill the utilised time)", "--runs-per-month",
	 "the reader's plan", MONEY(runs_per_month), 0},
	{"amortize_years", "amortisation, years", "--amortize-years",
	 "Amazon 2024 10-K: servers' useful life 5 years", MONEY(amortize_years), 0},
	{"finance_rate", "cost of capital, fraction a year (0: paid cash)", "--finance-rate",
	 "the buyer's; 0 = paid in cash", MONEY(finance_rate), 0},
	{"residual_frac", "residual value at the end, fraction of capex", "--residual",
	 "0 = written off to nothing (resale 25-35% after 3 years is reported)", MONEY(residual_frac), 0},
	{"month_s", "seconds in a month", "", "a Julian year / 12", (size_t)-1, 365.25 * 86400.0 / 12.0},
};
enum { NINPUTS = sizeof inputs / sizeof inputs[0] };

/* Derived on Assumptions (rows after the inputs): model_money.c capex_month(m, 1) and fixed_month_per_usd. */
static const struct {
	const char *name, *label, *formula;
} derived[] = {
	{"capex_month_per_usd", "capex's cost a month per USD of capex (straight line less residual; financed: the "
				"annuity on capex less the residual's present value)",
	 "=IF(finance_rate>0,(1-residual_frac/(1+finance_rate/12)^(amortize_years*12))*(finance_rate/12)/"
	 "(1-(1+finance_rate/12)^(-amortize_years*12)),(1-residual_frac)/(amortize_years*12))"},
	{"fixed_per_usd", "owner's fixed cost a month per USD of capex (capex share + support)",
	 "=capex_month_per_usd+support_frac_year/12"},
};
enum { NDERIVED = sizeof derived / sizeof derived[0] };

/* One system's prices (Assumptions, from row SYS_FIRST_ROW), columns B.. in this order; NAN cells stay
 * empty so that the formulas see no price. */
typedef struct xl_sys_col { const char *key, *head; } xl_sys_col;
static const xl_sys_col sys_cols[] = {
	{"id", "system"}, {"unit_price", "unit price USD"}, {"unit_nodes", "nodes a unit"},
	{"price_source", "price source (kind, date)"}, {"rent_rate", "rent USD per GPU-hour (the term asked)"},
	{"rent_min", "least time billed s"}, {"rent_inc", "billing increment s"},
	{"rent_max", "most GPUs at that rate (0: no limit)"}, {"rent_cluster", "rate above that, USD per GPU-hour"},
	{"rent_cluster_inc", "its increment s"}, {"rent_source", "rent source (kind, date)"},
	{"ref_rate", "buy vs rent: cheapest rent of this GPU, USD per GPU-hour"}, {"ref_gpus", "GPUs an instance"},
	{"ref_id", "rented system"},
};
enum { NSYS_COLS = sizeof sys_cols / sizeof sys_cols[0] };

/* The Options sheet's columns: a value of the model (val) or a formula over Assumptions and the row's
 * other cells ({key}: this row's cell of that column; {sys.key}: the option's system row on Assumptions).
 * This table is where costs.xlsx restates model_money.c. */
typedef enum { XL_TEXT, XL_VAL, XL_FORMULA } xl_kind;
typedef struct xl_col {
	const char *key, *head;
	xl_kind kind;
	const char *formula; /* XL_FORMULA */
	int money;           /* format: 1 dollars, 2 cents */
	const char *priced;  /* a cell that must hold a number (a price) for the formula to apply, else the cell
			      * is left empty - as NAN propagates in model_money.c - or NULL */
} xl_col;

static const xl_col cols[] = {
	{"system", "system", XL_TEXT, NULL, 0, NULL},
	{"gpu", "GPU", XL_TEXT, NULL, 0, NULL},
	{"meets", "meets the budget and deadline (as compare judged it)", XL_TEXT, NULL, 0, NULL},
	{"nodes", "nodes", XL_VAL, NULL, 0, NULL},
	{"gpus_per_node", "GPUs per node", XL_VAL, NULL, 0, NULL},
	{"gpus", "GPUs", XL_VAL, NULL, 0, NULL},
	{"units", "units bought (whole units of the system)", XL_VAL, NULL, 0, NULL},
	{"tta_s", "time to accuracy s", XL_VAL, NULL, 0, NULL},
	{"energy_kwh", "energy per run kWh (IT)", XL_VAL, NULL, 0, NULL},
	{"power_max_kw", "max power of the nodes bought kW", XL_VAL, NULL, 0, NULL},
	{"rent_gpus", "GPUs billed when rented", XL_VAL, NULL, 0, NULL},
	{"capex_network_usd", "network capex USD (switches, links, NICs)", XL_VAL, NULL, 1, NULL},
	{"capex_storage_usd", "shared storage capex USD", XL_VAL, NULL, 1, NULL},
	/* model_run_capex */
	{"capex_servers_usd", "servers capex USD", XL_FORMULA, "={units}*{sys.unit_price}", 1, "{sys.unit_price}"},
	{"capex_usd", "capex USD", XL_FORMULA, "={capex_servers_usd}+{capex_network_usd}+{capex_storage_usd}", 1,
	 "{capex_servers_usd}"},
	/* model_run_money */
	{"energy_usd", "energy per run USD (at the meter)", XL_FORMULA, "={energy_kwh}*pue*kwh_usd", 2, NULL},
	{"share", "share of the month's fixed cost per run", XL_FORMULA,
	 "=MAX(IF(runs_per_month>0,1/runs_per_month,{tta_s}/(utilisation*month_s)),{tta_s}/month_s)", 0, NULL},
	{"facility_month_usd", "facility a month USD", XL_FORMULA, "=facility_usd_kw_month*{power_max_kw}", 2, NULL},
	{"fixed_month_usd", "owner's fixed cost a month USD", XL_FORMULA,
	 "={capex_usd}*fixed_per_usd+{facility_month_usd}", 2, "{capex_usd}"},
	{"capex_share_usd", "capex share per run USD", XL_FORMULA, "={capex_usd}*capex_month_per_usd*{share}", 2,
	 "{capex_usd}"},
	{"support_usd", "support per run USD", XL_FORMULA, "=support_frac_year*{capex_usd}/12*{share}", 2, "{capex_usd}"},
	{"facility_usd", "facility per run USD", XL_FORMULA, "={facility_month_usd}*{share}", 2, "{capex_usd}"},
	{"tco_usd", "owner's cost per run USD", XL_FORMULA, "={fixed_month_usd}*{share}+{energy_usd}", 2,
	 "{capex_usd}"},
	{"owned_usd_gpu_h", "owner's cost per GPU-hour USD", XL_FORMULA, "={tco_usd}/({gpus}*{tta_s}/3600)", 2,
	 "{capex_usd}"},
	/* rent_billed: above the rate's most GPUs the cluster rate and increment; at least the least time
	 * billed, rounded up to the increment */
	{"rent_rate", "rent rate used USD per GPU-hour", XL_FORMULA,
	 "=IF(AND(N({sys.rent_max})>0,{rent_gpus}>N({sys.rent_max})),IF(ISNUMBER({sys.rent_cluster}),"
	 "{sys.rent_cluster},\"\"),IF(ISNUMBER({sys.rent_rate}),{sys.rent_rate},\"\"))", 2, NULL},
	{"rent_billed_s", "time billed s", XL_FORMULA,
	 "=IF(AND(N({sys.rent_max})>0,{rent_gpus}>N({sys.rent_max})),IF(N({sys.rent_cluster_inc})>0,"
	 "CEILING(MAX({tta_s},N({sys.rent_min}))/{sys.rent_cluster_inc},1)*{sys.rent_cluster_inc},"
	 "MAX({tta_s},N({sys.rent_min}))),IF(N({sys.rent_inc})>0,CEILING(MAX({tta_s},N({sys.rent_min}))/"
	 "{sys.rent_inc},1)*{sys.rent_inc},MAX({tta_s},N({sys.rent_min}))))", 0, NULL},
	{"rent_usd", "rent per run USD", XL_FORMULA,
	 "=IF(ISNUMBER({rent_rate}),{rent_gpus}*{rent_rate}*{rent_billed_s}/3600,\"\")", 2, NULL},
	/* model_ref_rent_usd and the break-even: owning N runs a month costs fixed + N x energy, renting N x
	 * rent */
	{"ref_rent_usd", "the same run rented (buy vs rent) USD", XL_FORMULA,
	 "=IF(ISNUMBER({sys.ref_rate}),CEILING({gpus}/{sys.ref_gpus},1)*{sys.ref_gpus}*{sys.ref_rate}*{tta_s}/3600,"
	 "\"\")", 2, NULL},
	{"breakeven_runs_per_month", "buying is cheaper above, runs a month", XL_FORMULA,
	 "=IF(AND(ISNUMBER({ref_rent_usd}),ISNUMBER({capex_usd})),IF({ref_rent_usd}>{energy_usd},"
	 "{fixed_month_usd}/({ref_rent_usd}-{energy_usd}),\"never\"),\"\")", 0, NULL},
	{"runs_month", "runs a month at this use", XL_FORMULA, "=1/{share}", 0, NULL},
};
enum { NCOLS = sizeof cols / sizeof cols[0] };

/* The cash flow by year after the columns above (year 0 .. CASH_YEARS): bought for cash in year 0 (financed:
 * nothing then, the annuity each year), each year of the amortisation the support, facility and energy of
 * its runs, and in the last the residual value (cash purchase; financed, the annuity already nets it). */
static const char *const cash_year0 = "=IF(finance_rate>0,0,-{capex_usd})";
static const char *const cash_year_k =
	"=IF({year}>ROUNDUP(amortize_years,0),0,-(IF(finance_rate>0,12*{capex_usd}*capex_month_per_usd,0)"
	"+support_frac_year*{capex_usd}+12*{facility_month_usd}+12*{runs_month}*{energy_usd})"
	"+IF(AND(finance_rate=0,{year}=ROUNDUP(amortize_years,0)),residual_frac*{capex_usd},0))";

static int col_of(const char *key)
{
	for (int i = 0; i < NCOLS; i++)
		if (strcmp(cols[i].key, key) == 0)
			return i;
	return -1;
}

static int sys_col_of(const char *key)
{
	for (int i = 0; i < NSYS_COLS; i++)
		if (strcmp(sys_cols[i].key, key) == 0)
			return i + 1; /* column A holds nothing */
	return -1;
}

/* "AB12" for zero-based row and column. */
static void cell_name(int row, int col, char *buf, size_t len_B)
{
	char letters[4];
	int n = 0;
	for (int c = col + 1; c > 0; c = (c - 1) / 26)
		letters[n++] = (char)('A' + (c - 1) % 26);
	size_t at = 0;
	while (n > 0 && at + 1 < len_B)
		buf[at++] = letters[--n];
	snprintf(buf + at, len_B - at, "%d", row + 1);
}

/* Expands a formula template for one Options row (zero-based) whose system is on Assumptions row sys_row;
 * {year} becomes `year`. Returns a heap string. */
static char *expand(const char *tpl, int row, int sys_row, int year)
{
	size_t cap = strlen(tpl) * 2 + 64, at = 0;
	char *out = xmalloc(cap);
	for (const char *p = tpl; *p;) {
		char ref[64] = "";
		if (*p == '{') {
			const char *end = strchr(p, '}');
			char key[48];
			snprintf(key, sizeof key, "%.*s", (int)(end - p - 1), p + 1);
			if (strcmp(key, "year") == 0)
				snprintf(ref, sizeof ref, "%d", year);
			else if (strncmp(key, "sys.", 4) == 0) {
				char c[16];
				cell_name(sys_row, sys_col_of(key + 4), c, sizeof c);
				snprintf(ref, sizeof ref, "Assumptions!%s", c);
			} else
				cell_name(row, col_of(key), ref, sizeof ref);
			p = end + 1;
		} else
			ref[0] = *p++, ref[1] = '\0';
		size_t n = strlen(ref);
		if (at + n + 1 > cap)
			out = xrealloc(out, cap *= 2);
		memcpy(out + at, ref, n);
		at += n;
	}
	out[at] = '\0';
	return out;
}

typedef struct xl {
	lxw_workbook *wb;
	lxw_worksheet *as, *op;
	lxw_format *bold, *usd, *cents, *num;
	const plan_question *q; /* how the options were judged (the meets column) */
} xl;

static void num_or_empty(lxw_worksheet *ws, int row, int col, double v, lxw_format *f)
{
	if (isfinite(v))
		worksheet_write_number(ws, (lxw_row_t)row, (lxw_col_t)col, v, f);
}

static void write_inputs(xl *x, const model_money *m)
{
	static const char *const head[] = {"input", "value", "flag", "source"};
	for (int c = 0; c < 4; c++)
		worksheet_write_string(x->as, 0, (lxw_col_t)c, head[c], x->bold);
	for (int i = 0; i < NINPUTS; i++) {
		const xl_input *in = &inputs[i];
		double v = in->off == (size_t)-1 ? in->constant : *(const double *)((const char *)m + in->off);
		char def[64];
		worksheet_write_string(x->as, (lxw_row_t)(i + 1), 0, in->label, NULL);
		worksheet_write_number(x->as, (lxw_row_t)(i + 1), 1, v, x->num);
		worksheet_write_string(x->as, (lxw_row_t)(i + 1), 2, in->flag, NULL);
		worksheet_write_string(x->as, (lxw_row_t)(i + 1), 3, in->source, NULL);
		snprintf(def, sizeof def, "=Assumptions!$B$%d", i + 2);
		workbook_define_name(x->wb, in->name, def);
	}
	for (int i = 0; i < NDERIVED; i++) {
		int row = NINPUTS + 1 + i;
		char def[64];
		worksheet_write_string(x->as, (lxw_row_t)row, 0, derived[i].label, NULL);
		worksheet_write_formula(x->as, (lxw_row_t)row, 1, derived[i].formula, x->num);
		worksheet_write_string(x->as, (lxw_row_t)row, 3, "model/model_money.c (a formula over the inputs above)",
				       NULL);
		snprintf(def, sizeof def, "=Assumptions!$B$%d", row + 1);
		workbook_define_name(x->wb, derived[i].name, def);
	}
}

static char *sourced(const char *kind, const char *date, const char *source)
{
	return xasprintf("%s%s%s%s%s", source && *source ? source : "-", kind && *kind ? "; " : "", kind ? kind : "",
			 date && *date ? ", " : "", date ? date : "");
}

/* One system's row of prices: those the options' scenarios carry (the rent term asked, the reference
 * rental plan_resolve found), sources from the database. */
static void write_system(xl *x, int row, const hw_db *db, const plan_option *o)
{
	const model_node *n = &o->sc.node;
	const hw_system *sys = hw_system_find(db, n->system_id);
	lxw_worksheet *ws = x->as;
	lxw_row_t r = (lxw_row_t)row;
	worksheet_write_string(ws, r, (lxw_col_t)sys_col_of("id"), n->system_id, NULL);
	num_or_empty(ws, row, sys_col_of("unit_price"), isfinite(n->unit_price_usd) ? n->unit_price_usd : n->price_usd,
		     x->usd);
	worksheet_write_number(ws, r, (lxw_col_t)sys_col_of("unit_nodes"), n->unit_nodes > 1 ? n->unit_nodes : 1, NULL);
	char *s = sourced(sys ? sys->price_kind : "", sys ? sys->price_date : "", sys ? sys->price_source : "");
	worksheet_write_string(ws, r, (lxw_col_t)sys_col_of("price_source"), s, NULL);
	free(s);
	num_or_empty(ws, row, sys_col_of("rent_rate"), n->rent_usd_gpu_h, x->cents);
	num_or_empty(ws, row, sys_col_of("rent_min"), n->rent_min_s, x->num);
	num_or_empty(ws, row, sys_col_of("rent_inc"), n->rent_increment_s, x->num);
	worksheet_write_number(ws, r, (lxw_col_t)sys_col_of("rent_max"), n->rent_max_gpus, NULL);
	num_or_empty(ws, row, sys_col_of("rent_cluster"), n->rent_cluster_usd_gpu_h, x->cents);
	num_or_empty(ws, row, sys_col_of("rent_cluster_inc"), n->rent_cluster_increment_s, x->num);
	s = sourced(sys ? sys->rent_kind : "", sys ? sys->rent_date : "", sys ? sys->rent_source : "");
	worksheet_write_string(ws, r, (lxw_col_t)sys_col_of("rent_source"), s, NULL);
	free(s);
	num_or_empty(ws, row, sys_col_of("ref_rate"), n->ref_rent_usd_gpu_h, x->cents);
	if (n->ref_rent_gpus > 0)
		worksheet_write_number(ws, r, (lxw_col_t)sys_col_of("ref_gpus"), n->ref_rent_gpus, NULL);
	if (n->ref_rent_id)
		worksheet_write_string(ws, r, (lxw_col_t)sys_col_of("ref_id"), n->ref_rent_id, NULL);
}

/* Whether two options read the same prices: one system, and the same reference rental (plan_resolve picks
 * the cheapest rental of the GPU for the GPU count, so one system can have two). */
static bool same_prices(const plan_option *a, const plan_option *b)
{
	const model_node *x = &a->sc.node, *y = &b->sc.node;
	bool same_id = x->ref_rent_id == y->ref_rent_id ||
		       (x->ref_rent_id && y->ref_rent_id && strcmp(x->ref_rent_id, y->ref_rent_id) == 0);
	bool same_rate = x->ref_rent_usd_gpu_h == y->ref_rent_usd_gpu_h ||
			 (isnan(x->ref_rent_usd_gpu_h) && isnan(y->ref_rent_usd_gpu_h));
	return strcmp(x->system_id, y->system_id) == 0 && same_id && same_rate && x->ref_rent_gpus == y->ref_rent_gpus;
}

/* The Assumptions row of each option's prices (rows[n]); each set of prices written once. */
static void write_systems(xl *x, const hw_db *db, const plan_option *o, int n, int *rows)
{
	worksheet_write_string(x->as, SYS_FIRST_ROW - 2, 0, "Prices of each system (hw show ID has them all)", x->bold);
	for (int c = 0; c < NSYS_COLS; c++)
		worksheet_write_string(x->as, SYS_FIRST_ROW - 1, (lxw_col_t)(c + 1), sys_cols[c].head, x->bold);
	int next = SYS_FIRST_ROW;
	for (int i = 0; i < n; i++) {
		rows[i] = -1;
		for (int k = 0; k < i && rows[i] < 0; k++)
			if (same_prices(&o[k], &o[i]))
				rows[i] = rows[k];
		if (rows[i] < 0) {
			rows[i] = next++;
			write_system(x, rows[i], db, &o[i]);
		}
	}
}

/* The physics of option o in column c (XL_VAL). */
static double value_of(const plan_option *o, const char *key)
{
	const model_result *r = &o->r;
	int per_unit = o->sc.node.unit_nodes > 1 ? o->sc.node.unit_nodes : 1;
	if (strcmp(key, "nodes") == 0) return o->sc.nodes;
	if (strcmp(key, "gpus_per_node") == 0) return o->sc.node.gpus_per_node;
	if (strcmp(key, "gpus") == 0) return r->gpus;
	if (strcmp(key, "units") == 0) return model_nodes_bought(&o->sc) / per_unit;
	if (strcmp(key, "tta_s") == 0) return r->tta_s;
	if (strcmp(key, "energy_kwh") == 0) return isfinite(r->energy_J) ? r->energy_J / 3.6e6 : 0.0;
	if (strcmp(key, "power_max_kw") == 0) return isfinite(r->power_max_W) ? r->power_max_W / 1e3 : 0.0;
	if (strcmp(key, "rent_gpus") == 0) return r->rent_gpus;
	if (strcmp(key, "capex_network_usd") == 0) return r->capex_network_usd;
	if (strcmp(key, "capex_storage_usd") == 0) return isfinite(r->capex_storage_usd) ? r->capex_storage_usd : 0.0;
	return NAN;
}

/* One formula cell: the template expanded, inside IF(ISNUMBER(priced),...,"") when priced is set. */
static void write_formula(lxw_worksheet *ws, int row, int col, const char *tpl, const char *priced, int sys_row,
			  int year, lxw_format *f)
{
	char *t = priced ? xasprintf("=IF(ISNUMBER(%s),%s,\"\")", priced, tpl + 1) : xstrdup(tpl);
	char *fx = expand(t, row, sys_row, year);
	worksheet_write_formula(ws, (lxw_row_t)row, (lxw_col_t)col, fx, f);
	free(fx);
	free(t);
}

/* The text of option o in column key (XL_TEXT). */
static const char *text_of(const plan_question *q, const plan_option *o, const char *key, char *buf, size_t len_B)
{
	if (strcmp(key, "system") == 0)
		return o->sc.node.system_id;
	if (strcmp(key, "gpu") == 0)
		return o->sc.node.gpu_id;
	return o->v.fails ? plan_fails_text(q, &o->v, buf, len_B) : "meets";
}

static void write_option(xl *x, int row, int sys_row, const plan_option *o)
{
	lxw_row_t r = (lxw_row_t)row;
	char text[128];
	for (int c = 0; c < NCOLS; c++) {
		const xl_col *k = &cols[c];
		lxw_format *f = k->money == 1 ? x->usd : k->money == 2 ? x->cents : x->num;
		if (k->kind == XL_TEXT)
			worksheet_write_string(x->op, r, (lxw_col_t)c, text_of(x->q, o, k->key, text, sizeof text), NULL);
		else if (k->kind == XL_VAL)
			num_or_empty(x->op, row, c, value_of(o, k->key), f);
		else
			write_formula(x->op, row, c, k->formula, k->priced, sys_row, 0, f);
	}
	for (int y = 0; y <= CASH_YEARS; y++)
		write_formula(x->op, row, NCOLS + y, y == 0 ? cash_year0 : cash_year_k, "{capex_usd}", sys_row, y, x->usd);
}

static void write_options(xl *x, const plan_option *o, int n, const int *sys_rows)
{
	for (int c = 0; c < NCOLS; c++)
		worksheet_write_string(x->op, 0, (lxw_col_t)c, cols[c].head, x->bold);
	for (int y = 0; y <= CASH_YEARS; y++) {
		char h[48];
		snprintf(h, sizeof h, "cash flow year %d USD", y);
		worksheet_write_string(x->op, 0, (lxw_col_t)(NCOLS + y), h, x->bold);
	}
	for (int i = 0; i < n; i++)
		write_option(x, i + 1, sys_rows[i], &o[i]);
	worksheet_freeze_panes(x->op, 1, 2);
}

int web_costs_write(const char *path, const hw_db *db, const plan_spec *spec, const plan_question *q,
		    const plan_option *o, int n, char *why, size_t why_len)
{
	(void)why, (void)why_len; /* this build always writes the book */
	xl x = {.q = q};
	x.wb = workbook_new(path);
	if (!x.wb) {
		err_set("cannot write %s (libxlsxwriter)", path);
		return ERR_ENV;
	}
	x.as = workbook_add_worksheet(x.wb, "Assumptions");
	x.op = workbook_add_worksheet(x.wb, "Options");
	x.bold = workbook_add_format(x.wb);
	format_set_bold(x.bold);
	x.usd = workbook_add_format(x.wb);
	format_set_num_format(x.usd, "$#,##0");
	x.cents = workbook_add_format(x.wb);
	format_set_num_format(x.cents, "$#,##0.00");
	x.num = workbook_add_format(x.wb);
	format_set_num_format(x.num, "General");
	worksheet_set_column(x.as, 0, 0, 60, NULL);
	worksheet_set_column(x.as, 1, (lxw_col_t)NSYS_COLS, 16, NULL);
	worksheet_set_column(x.op, 0, (lxw_col_t)(NCOLS + CASH_YEARS), 14, NULL);
	write_inputs(&x, &spec->money);
	int *sys_rows = xcalloc((size_t)(n > 0 ? n : 1), sizeof *sys_rows);
	write_systems(&x, db, o, n, sys_rows);
	write_options(&x, o, n, sys_rows);
	free(sys_rows);
	lxw_error e = workbook_close(x.wb);
	if (e != LXW_NO_ERROR) {
		err_set("cannot write %s: %s", path, lxw_strerror(e));
		return ERR_ENV;
	}
	return 0;
}
