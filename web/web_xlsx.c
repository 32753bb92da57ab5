/* web/web_xlsx.c: costs.xlsx (libxlsxwriter) - the money of each option as formulas over its assumptions,
 * so that finance can change a price, the utilisation or the cost of capital and see every cost follow.
 * Sheet Assumptions: every money input (model_money, each with the flag that sets it and its source) as a
 * named cell, the owner's monthly factors derived from them, and one row per system with its prices and
 * their sources (hwdb). Sheet Options: one row per option (compare's rows), its physics as values (the
 * model's: time to accuracy, energy, power, GPUs, nodes and units bought, GPUs billed, the fabric's switches,
 * links and NIC ports (model_fabric_parts), the store's units (model_store_units), the data set and what
 * staging already copied) and its money as formulas - each capex part and both ends of the range, energy, the
 * owner's cost per run and per GPU-hour, rent as billed and at the market's rate, break-even against renting,
 * the owned cash by year and its discounted sum. Sheet Cash flow: the option report's cash flow follows
 * (plan_decide's bought option), year by year as formulas over its Options row - cash and book (straight-
 * line depreciation to the residual, book value), owned against the same runs rented. Sheet Sensitivity:
 * the rented month less the owned month over the use and the rental rate, and the use where they cross.
 * Every formula is stored with the value it computes (web_calc.c), so a viewer that does not recalculate
 * shows the figures; each system's prices are on one Assumptions row, the rentals weighed against on
 * their own rows.
 * The formulas restate model/model_money.c (model_run_capex, model_run_money, capex_month,
 * fixed_month_per_usd, run_share, rent_billed, model_rent_setup_s, model_ref_rent_usd, model_buy_rent_eval,
 * model_cashflow): they are all in the tables below, and tests/whatif_xlsx.sh recalculates the workbook in
 * LibreOffice against compare's CSV and report's cashflow.csv.
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
#include "web/web_calc_internal.h"

/* The money inputs are model_money_inputs' rows (Assumptions!B2.. in that order, each a defined name the
 * formulas use), then these constants. */
typedef struct xl_const {
	const char *name, *label, *source;
	double constant;   /* the constant, or (width set) model_price_width(width) */
	const char *width; /* a price kind whose range half-width the constant is */
} xl_const;
static const xl_const consts[] = {
	{"width_estimate", "half-width of an estimated price's range (fraction)", "docs/prices.md: our own arithmetic, +-35%",
	 0, "estimate"},
	{"width_press", "half-width of a press figure's range (fraction; the flash store)",
	 "docs/prices.md: a press or analyst figure, +-25%", 0, "press"},
	{"month_s", "seconds in a month", "a Julian year / 12", MODEL_MONTH_S, NULL},
};
enum { NCONSTS = sizeof consts / sizeof consts[0] };

/* Derived on Assumptions (rows after the inputs): model_money.c capex_month(m, 1) and fixed_month_per_usd. */
static const struct {
	const char *name, *label, *formula;
} derived[] = {
	{"capex_month_per_usd", "capex's cost a month per USD of capex (straight line less residual; with a cost of "
				"capital: the annuity on capex less the residual's present value)",
	 "=IF(finance_rate>0,(1-residual_frac/(1+finance_rate/12)^(amortize_years*12))*(finance_rate/12)/"
	 "(1-(1+finance_rate/12)^(-amortize_years*12)),(1-residual_frac)/(amortize_years*12))"},
	{"fixed_per_usd", "owner's fixed cost a month per USD of capex (capex share + support)",
	 "=capex_month_per_usd+support_frac_year/12"},
	{"horizon_months", "months of the horizon (model_rent_horizon_factor)", "=ROUNDUP(amortize_years*12-1E-9,0)"},
};
enum { NDERIVED = sizeof derived / sizeof derived[0], MIN_CASH_YEARS = 10 };

/* One system's prices (Assumptions, from row x->sys_first_row), columns B.. in this order; NAN cells stay
 * empty so that the formulas see no price. */
typedef struct xl_sys_col { const char *key, *head; } xl_sys_col;
static const xl_sys_col sys_cols[] = {
	{"id", "system"}, {"unit_price", "unit price USD"}, {"unit_price_lo", "its range: low USD"},
	{"unit_price_hi", "high USD"}, {"unit_nodes", "nodes a unit"}, {"price_source", "price source (kind, date)"},
	{"liquid", "liquid-cooled (1 yes)"}, {"switch_usd", "fabric: one switch USD"}, {"link_usd", "one link USD"},
	{"nic_usd", "one NIC port USD (where not in the server price)"}, {"net_width", "fabric prices' half-width"},
	{"fabric_source", "fabric price source (kind, date)"}, {"store_unit_usd", "one unit of the shared store USD"},
	{"store_width", "its half-width"}, {"store_source", "store price source (kind, date)"},
	{"rent_rate", "rent USD per GPU-hour (the term asked)"}, {"rent_min", "least time billed s"},
	{"rent_inc", "billing increment s"}, {"rent_max", "most GPUs at that rate (0: no limit)"},
	{"rent_cluster", "rate above that, USD per GPU-hour"}, {"rent_cluster_inc", "its increment s"},
	{"reserved", "reserved for a term: paid around the clock (1 yes)"}, {"spot", "spot: reruns (1 yes)"},
	{"rent_width", "rate's half-width"}, {"rent_source", "rent source (kind, date)"},
	{"rent_market", "market rate, USD per GPU-hour (the low end)"}, {"market_source", "market rate source (date)"},
	{"rent_term_y", "rent term years (0: on demand)"},
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

#define SERVERS "{capex_servers_usd}"
#define CLUSTER_RENT "{rent_cluster}=1"
static const xl_col cols[] = {
	{"system", "system", XL_TEXT, NULL, 0, NULL},
	{"gpu", "GPU", XL_TEXT, NULL, 0, NULL},
	{"meets", "meets the budget and deadline (as compare judged it)", XL_TEXT, NULL, 0, NULL},
	/* the model's physics */
	{"nodes", "nodes", XL_VAL, NULL, 0, NULL},
	{"gpus_per_node", "GPUs per node", XL_VAL, NULL, 0, NULL},
	{"gpus", "GPUs", XL_VAL, NULL, 0, NULL},
	{"nodes_bought", "nodes bought", XL_VAL, NULL, 0, NULL},
	{"units", "units bought (whole units of the system)", XL_VAL, NULL, 0, NULL},
	{"gpus_node_sold", "GPUs a node as sold", XL_VAL, NULL, 0, NULL},
	{"tta_s", "time to accuracy s", XL_VAL, NULL, 0, NULL},
	{"energy_kwh", "energy per run kWh (IT)", XL_VAL, NULL, 0, NULL},
	{"power_max_kw", "max power of the nodes bought kW", XL_VAL, NULL, 0, NULL},
	{"rent_gpus", "GPUs billed when rented", XL_VAL, NULL, 0, NULL},
	{"fabric_switches", "compute fabric: switches (fat tree)", XL_VAL, NULL, 0, NULL},
	{"fabric_links", "compute fabric: links", XL_VAL, NULL, 0, NULL},
	{"fabric_nic_ports", "compute fabric: NIC ports priced apart", XL_VAL, NULL, 0, NULL},
	{"store_units", "units of the priced shared store (empty: flash for the copies)", XL_VAL, NULL, 0, NULL},
	{"dataset_TB", "data set TB", XL_VAL, NULL, 0, NULL},
	{"copy_GB", "data a rented node copies GB (0: synthetic data)", XL_VAL, NULL, 0, NULL},
	{"staging_s", "staging already in the time to accuracy s", XL_VAL, NULL, 0, NULL},
	/* model_run_capex: each part, installation over the hardware, both ends of the range */
	{"capex_servers_usd", "servers capex USD", XL_FORMULA, "={units}*{sys.unit_price}", 1, "{sys.unit_price}"},
	{"capex_fabric_usd", "compute fabric capex USD", XL_FORMULA,
	 "={fabric_switches}*N({sys.switch_usd})+{fabric_links}*N({sys.link_usd})+{fabric_nic_ports}*N({sys.nic_usd})", 1,
	 SERVERS},
	{"capex_frontend_usd", "front-end, storage and management networks capex USD", XL_FORMULA,
	 "={nodes_bought}*({gpus_node_sold}*frontend_ports_gpu*frontend_port_usd+mgmt_usd_node)", 1, SERVERS},
	{"capex_network_usd", "network capex USD", XL_FORMULA, "={capex_fabric_usd}+{capex_frontend_usd}", 1, SERVERS},
	{"capex_storage_usd", "shared store capex USD", XL_FORMULA,
	 "=IF(ISNUMBER({store_units}),{store_units}*{sys.store_unit_usd},MAX({dataset_TB}*store_replicas,"
	 "store_TB_gpu*{nodes_bought}*{gpus_node_sold})*store_usd_TB)", 1,
	 SERVERS},
	{"capex_racks_usd", "racks and power distribution capex USD", XL_FORMULA,
	 "=IF({sys.unit_nodes}>1,0,MAX(ROUNDUP({power_max_kw}*1000/rack_W-1E-9,0),0)*rack_usd)", 1, SERVERS},
	{"capex_cooling_usd", "liquid cooling capex USD", XL_FORMULA,
	 "=IF({sys.liquid}=1,{power_max_kw}*1000*cooling_usd_W,0)", 1, SERVERS},
	{"capex_install_usd", "installation capex USD", XL_FORMULA,
	 "=install_frac*({capex_servers_usd}+{capex_network_usd}+{capex_storage_usd}+{capex_racks_usd}+{capex_cooling_usd})",
	 1, SERVERS},
	{"capex_usd", "capex USD", XL_FORMULA,
	 "={capex_servers_usd}+{capex_network_usd}+{capex_storage_usd}+{capex_racks_usd}+{capex_cooling_usd}"
	 "+{capex_install_usd}", 1, SERVERS},
	{"store_width", "store price half-width used", XL_FORMULA,
	 "=IF(ISNUMBER({store_units}),{sys.store_width},width_press)", 0, NULL},
	{"capex_lo_usd", "capex, low end USD", XL_FORMULA,
	 "=({units}*{sys.unit_price_lo}+{capex_fabric_usd}*(1-N({sys.net_width}))+({capex_frontend_usd}+{capex_racks_usd}"
	 "+{capex_cooling_usd})*(1-width_estimate)+{capex_storage_usd}*(1-{store_width}))*(1+install_frac*(1-width_estimate))",
	 1, SERVERS},
	{"capex_hi_usd", "capex, high end USD", XL_FORMULA,
	 "=({units}*{sys.unit_price_hi}+{capex_fabric_usd}*(1+N({sys.net_width}))+({capex_frontend_usd}+{capex_racks_usd}"
	 "+{capex_cooling_usd})*(1+width_estimate)+{capex_storage_usd}*(1+{store_width}))*(1+install_frac*(1+width_estimate))",
	 1, SERVERS},
	/* model_run_money: the owner's cost */
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
	{"tco_lo_usd", "owner's cost per run, low end USD", XL_FORMULA,
	 "=({capex_lo_usd}*fixed_per_usd+{facility_month_usd})*{share}+{energy_usd}", 2, "{capex_usd}"},
	{"tco_hi_usd", "owner's cost per run, high end USD", XL_FORMULA,
	 "=({capex_hi_usd}*fixed_per_usd+{facility_month_usd})*{share}+{energy_usd}", 2, "{capex_usd}"},
	{"owned_usd_gpu_h", "owner's cost per GPU-hour USD", XL_FORMULA, "={tco_usd}/({gpus}*{tta_s}/3600)", 2,
	 "{capex_usd}"},
	/* rent_billed and model_rent_setup_s: above the rate's most GPUs the cluster rate and increment; by the
	 * run the start-up and the copy not staged, spot's reruns, at least the least time billed, rounded up
	 * to the increment; a reservation its share of the month around the clock */
	{"rent_cluster", "billed at the cluster rate (1 yes)", XL_FORMULA,
	 "=IF(AND(N({sys.rent_max})>0,{rent_gpus}>N({sys.rent_max})),1,0)", 0, NULL},
	{"rent_rate", "rent rate used USD per GPU-hour", XL_FORMULA,
	 "=IF(" CLUSTER_RENT ",IF(ISNUMBER({sys.rent_cluster}),{sys.rent_cluster},\"\"),"
	 "IF(ISNUMBER({sys.rent_rate}),{sys.rent_rate},\"\"))", 2, NULL},
	{"rent_inc_s", "billing increment used s", XL_FORMULA,
	 "=IF(" CLUSTER_RENT ",N({sys.rent_cluster_inc}),N({sys.rent_inc}))", 0, NULL},
	{"rent_setup_s", "rented run's start-up and data copy s", XL_FORMULA,
	 "=IF(OR({sys.reserved}=1,AND(NOT(ISNUMBER({sys.rent_rate})),NOT(ISNUMBER({ref.rate})))),0,"
	 "rent_boot_s+MAX({copy_GB}*1E9/rent_copy_Bps-{staging_s},0))", 0, NULL},
	{"rent_session_wall_s", "a rental session's runs, wall clock s", XL_FORMULA,
	 "=IF(rent_session_s>0,MAX({tta_s},MIN(rent_session_s,{tta_s}/{share})),{tta_s})", 0, NULL},
	{"rent_session_runs", "runs in a rental session", XL_FORMULA, "={rent_session_wall_s}/{tta_s}", 0, NULL},
	{"rent_t_s", "a session's time with spot's expected reruns and the set-up once s", XL_FORMULA,
	 "={rent_session_runs}*IF({sys.spot}=1,{tta_s}/(1-spot_interrupt_month)^({tta_s}/month_s),{tta_s})"
	 "+{rent_setup_s}", 0, NULL},
	{"rent_billed_s", "time billed a run s", XL_FORMULA,
	 "=IF({sys.reserved}=1,{share}*month_s,IF({rent_inc_s}>0,CEILING(MAX({rent_t_s},N({sys.rent_min}))/{rent_inc_s}"
	 "*(1-1E-12),1)*{rent_inc_s},MAX({rent_t_s},N({sys.rent_min})))/{rent_session_runs})", 0, NULL},
	{"rent_usd", "rent per run USD", XL_FORMULA,
	 "=IF(ISNUMBER({rent_rate}),{rent_gpus}*{rent_rate}*{rent_billed_s}/3600,\"\")", 2, NULL},
	{"rent_lo_usd", "rent per run at the market's rate (low end) USD", XL_FORMULA,
	 "=IF(ISNUMBER({rent_usd}),IF(AND(ISNUMBER({sys.rent_market}),{rent_cluster}=0),{rent_usd}*MIN({sys.rent_market}/"
	 "{sys.rent_rate},1-{sys.rent_width}),{rent_usd}*(1-{sys.rent_width})),\"\")", 2, NULL},
	{"rent_hi_usd", "rent per run, high end USD", XL_FORMULA,
	 "=IF(ISNUMBER({rent_usd}),{rent_usd}*(1+{sys.rent_width}),\"\")", 2, NULL},
	/* model_ref_rent_usd and model_buy_rent_eval: a month of N runs owned costs fixed + N x energy; rented,
	 * a reservation's month whatever N, or N x the rent by the run */
	/* model_rent_horizon_factor: the rent's average over the horizon's months as it falls rent_decline a year,
	 * each month at its middle, a reservation at its term's start; summed in closed form (geometric series):
	 * on demand keep^(1/24) (1 - keep^(M/12)) / (1 - keep^(1/12)), a term of T years (12T months each) the
	 * whole terms' 12T (1 - keep^(T j)) / (1 - keep^T) and the months left at keep^(T j) */
	{"rent_term_y", "rent held years (0: on demand)", XL_FORMULA, "={sys.rent_term_y}", 0, NULL},
	{"rent_terms", "whole rent terms in the horizon", XL_FORMULA,
	 "=IF({sys.rent_term_y}>0,CEILING((horizon_months+1)/(12*{sys.rent_term_y}),1)-1,0)", 0, NULL},
	{"rent_horizon_x", "rent over the horizon as it falls, times today's", XL_FORMULA,
	 "=IF(rent_decline>0,IF({sys.rent_term_y}>0,(12*{sys.rent_term_y}*(1-(1-rent_decline)^({sys.rent_term_y}*"
	 "{rent_terms}))/(1-(1-rent_decline)^{sys.rent_term_y})+(horizon_months-12*{sys.rent_term_y}*{rent_terms})*"
	 "(1-rent_decline)^({sys.rent_term_y}*{rent_terms}))/horizon_months,(1-rent_decline)^(1/24)*(1-(1-"
	 "rent_decline)^(horizon_months/12))/(1-(1-rent_decline)^(1/12))/horizon_months),1)", 0, NULL},
	{"ref_rent_usd", "the same run rented (buy vs rent), over the horizon USD", XL_FORMULA,
	 "=IF(AND(ISNUMBER({ref.rate}),N({ref.gpus})>0),CEILING({gpus}/{ref.gpus},1)*{ref.gpus}*"
	 "{ref.rate}*IF({sys.reserved}=1,{share}*month_s,{rent_t_s}/{rent_session_runs})/3600*{rent_horizon_x},\"\")", 2,
	 NULL},
	{"ref_fix_month_usd", "that rental's month (a reservation) USD", XL_FORMULA,
	 "=IF({sys.reserved}=1,{ref_rent_usd}/{share},0)", 2, "{ref_rent_usd}"},
	{"ref_run_usd", "that rental by the run USD", XL_FORMULA, "=IF({sys.reserved}=1,0,{ref_rent_usd})", 2,
	 "{ref_rent_usd}"},
	/* on demand the rented month of N runs is piecewise linear (model_money.c rent_pieces): each run alone
	 * below one run a month, one session of them all up to a full session's runs (the set-up once), full
	 * sessions beyond; the crossing is the largest N where the two months meet, on the piece that holds it */
	{"ref_sec_usd", "that rental billed a second USD", XL_FORMULA,
	 "=CEILING({gpus}/{ref.gpus},1)*{ref.gpus}*{ref.rate}/3600*{rent_horizon_x}", 4, "{ref_rent_usd}"},
	{"ref_run_billed_s", "a run billed (spot's reruns) s", XL_FORMULA,
	 "=({rent_t_s}-{rent_setup_s})/{rent_session_runs}", 0, "{ref_rent_usd}"},
	{"rent_full_runs", "runs a full rental session holds", XL_FORMULA,
	 "=IF(rent_session_s>0,MAX(1,rent_session_s/{tta_s}),1)", 0, "{ref_rent_usd}"},
	{"rent_slope_one", "rented month per run, each run its own session USD", XL_FORMULA,
	 "={ref_sec_usd}*({ref_run_billed_s}+{rent_setup_s})", 2, "{ref_rent_usd}"},
	{"rent_slope_in", "rented month per run within one session USD", XL_FORMULA,
	 "={ref_sec_usd}*{ref_run_billed_s}", 2, "{ref_rent_usd}"},
	{"rent_slope_full", "rented month per run in full sessions USD", XL_FORMULA,
	 "={ref_sec_usd}*({ref_run_billed_s}+{rent_setup_s}/{rent_full_runs})", 2, "{ref_rent_usd}"},
	{"be_full", "crossing on full sessions, runs a month (-1: none)", XL_FORMULA,
	 "=IF({rent_slope_full}>{energy_usd},{fixed_month_usd}/({rent_slope_full}-{energy_usd}),-1)", 0,
	 "{ref_rent_usd}"},
	{"be_in", "crossing within one session, runs a month (-1: none)", XL_FORMULA,
	 "=IF({rent_slope_in}<>{energy_usd},({fixed_month_usd}-{ref_sec_usd}*{rent_setup_s})/({rent_slope_in}-"
	 "{energy_usd}),-1)", 0, "{ref_rent_usd}"},
	{"be_one", "crossing below one run a month (-1: none)", XL_FORMULA,
	 "=IF({rent_slope_one}>{energy_usd},{fixed_month_usd}/({rent_slope_one}-{energy_usd}),-1)", 0,
	 "{ref_rent_usd}"},
	{"breakeven_runs_per_month", "owning and renting cost the same, runs a month", XL_FORMULA,
	 "=IF(AND(ISNUMBER({capex_usd}),ISNUMBER({ref_rent_usd})),IF({sys.reserved}=1,IF({energy_usd}>0,MAX(({fixed_month_usd}-"
	 "{ref_fix_month_usd})/(0-{energy_usd}),0),IF({fixed_month_usd}<={ref_fix_month_usd},0,\"never\")),"
	 "IF({be_full}>={rent_full_runs},{be_full},IF(AND({rent_full_runs}>1,{be_in}>=1,{be_in}<={rent_full_runs}),"
	 "{be_in},IF(AND({be_one}>=0,{be_one}<=1),{be_one},0)))),\"\")",
	 0, "{ref_rent_usd}"},
	{"buy_wins_above", "buying wins above that (1), below it (0: a reservation)", XL_FORMULA,
	 "=IF(ISNUMBER({breakeven_runs_per_month}),IF({sys.reserved}=1,0,IF({be_full}>={rent_full_runs},1,"
	 "IF(AND({rent_full_runs}>1,{be_in}>=1,{be_in}<={rent_full_runs}),IF({rent_slope_in}>{energy_usd},1,0),"
	 "IF(AND({be_one}>=0,{be_one}<=1),1,IF({rent_slope_full}>{energy_usd},1,0))))),\"\")", 0, "{ref_rent_usd}"},
	{"breakeven_use", "owning and renting cost the same at this use", XL_FORMULA,
	 "=IF(ISNUMBER({breakeven_runs_per_month}),{breakeven_runs_per_month}*{tta_s}/month_s,\"\")", 4,
	 "{ref_rent_usd}"},
	{"owned_month_usd", "a month owned at this use USD", XL_FORMULA,
	 "=IF(ISNUMBER({capex_usd}),{fixed_month_usd}+{energy_usd}/{share},\"\")", 2, "{capex_usd}"},
	{"rented_month_usd", "the same month rented USD", XL_FORMULA,
	 "=IF(AND(ISNUMBER({capex_usd}),ISNUMBER({ref_rent_usd})),{ref_fix_month_usd}+{ref_run_usd}/{share},\"\")", 2,
	 "{ref_rent_usd}"},
	{"flip_usd_gpu_h", "the rental rate at which they cost the same at this use USD per GPU-hour", XL_FORMULA,
	 "=IF(AND(ISNUMBER({owned_month_usd}),ISNUMBER({rented_month_usd})),{ref.rate}*{owned_month_usd}/"
	 "{rented_month_usd},\"\")", 2, "{ref_rent_usd}"},
	{"co2_kg", "kg CO2e per run (energy at the meter x grid)", XL_FORMULA, "={energy_kwh}*pue*grid_kg_kwh", 2,
	 NULL},
	{"runs_month", "runs a month at this use", XL_FORMULA, "=1/{share}", 0, NULL},
};
enum { NCOLS = sizeof cols / sizeof cols[0] };

/* model_cashflow, the owner's cash by year (year 0 .. the amortisation rounded up; empty after): year 0 buys;
 * each later year (the last one the part of a year left) pays support, facility and the energy of its runs;
 * the resale comes back in the last. */
static const char *const cash_year =
	"=IF({year}>ROUNDUP(amortize_years-1E-9,0),\"\",IF({year}=0,{capex_usd},0)"
	"+IF({year}=0,0,MIN(1,amortize_years-({year}-1)))*(support_frac_year*{capex_usd}+12*{facility_month_usd}"
	"+12*{runs_month}*{energy_usd})-IF({year}=ROUNDUP(amortize_years-1E-9,0),residual_frac*{capex_usd},0))";
/* ... and their sum discounted at the cost of capital to the purchase: year y x (1 + rate)^-y */
static const char *const cash_pv_term = "N({cash})/(1+finance_rate)^{year}";

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

/* Where an Options row's formulas read: its own row, its system's prices and its rental's on Assumptions,
 * and the year of a cash-flow cell. */
typedef struct xl_at { int row, sys_row, ref_row, year; } xl_at;

/* Writes the cell a template's {key} stands for onto out; ctx is what the expander's caller passed. */
typedef void (*xl_key_fn)(const char *key, const void *ctx, strbuf *out);

/* Expands a formula template: its text as written, each {key} as key_ref writes it. The one loop for the
 * book's templates (expand, over_row). Returns a heap string. */
static char *tpl_expand(const char *tpl, xl_key_fn key_ref, const void *ctx)
{
	strbuf out;
	strbuf_init(&out);
	for (const char *p = tpl; *p;) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL;
		if (!end) { /* text up to the next reference, as written */
			size_t n = strcspn(p + 1, "{") + 1;
			strbuf_addn(&out, p, n);
			p += n;
			continue;
		}
		strbuf key; /* the name between the braces, whatever its length */
		strbuf_init(&key);
		strbuf_addn(&key, p + 1, (size_t)(end - p - 1));
		key_ref(key.s, ctx, &out);
		strbuf_free(&key);
		p = end + 1;
	}
	return out.s;
}

/* A key of an Options row's formula (ctx an xl_at): {key} its column, {sys.key} and {ref.rate|gpus} the
 * Assumptions cells, {year} the year, {cash} that year's cash cell. */
static void key_at(const char *key, const void *ctx, strbuf *out)
{
	const xl_at *at = ctx;
	char c[16];
	if (strcmp(key, "year") == 0) {
		strbuf_addf(out, "%d", at->year);
		return;
	}
	if (strcmp(key, "cash") == 0) /* the cash flow of that year, after the columns */
		cell_name(at->row, NCOLS + at->year, c, sizeof c);
	else if (strncmp(key, "sys.", 4) == 0)
		cell_name(at->sys_row, sys_col_of(key + 4), c, sizeof c);
	else if (strncmp(key, "ref.", 4) == 0) /* write_refs: B id, C rate, D GPUs */
		cell_name(at->ref_row, strcmp(key + 4, "rate") == 0 ? 2 : 3, c, sizeof c);
	else
		cell_name(at->row, col_of(key), c, sizeof c);
	bool assumptions = strncmp(key, "sys.", 4) == 0 || strncmp(key, "ref.", 4) == 0;
	strbuf_addf(out, "%s%s", assumptions ? "Assumptions!" : "", c);
}

/* A formula template expanded for one Options row (key_at). Returns a heap string. */
static char *expand(const char *tpl, xl_at at)
{
	return tpl_expand(tpl, key_at, &at);
}

/* A formula written once the book is complete, with the value it computes (web_calc.c). */
typedef struct xl_pending {
	int sheet, row, col;
	char *formula;
	lxw_format *f;
} xl_pending;

enum { XL_AS, XL_OP, XL_CF, XL_SENS, XL_NSHEETS }; /* the sheets, in the book's order */

typedef struct xl {
	lxw_workbook *wb;
	lxw_worksheet *as, *op;
	lxw_worksheet *ws[XL_NSHEETS]; /* by index: as, op, cash flow, sensitivity */
	xc_book *calc;          /* every cell again, to compute the formulas' results */
	xl_pending *pending;
	int npending, pending_cap;
	lxw_format *bold, *usd, *cents, *num;
	const plan_question *q; /* how the options were judged (the meets column) */
	const plan_spec *spec;
	const model_params *p;  /* the data set's size (store, a rented node's copy) */
	const hw_db *db;
	int cash_years;         /* cash flow columns: years 0 .. cash_years */
	int sys_first_row;      /* Assumptions: the first row of the systems' prices (write_inputs) */
} xl;

/* Cells go to the book and to the calculator alike; formulas wait for put_results. */
static void put_num(xl *x, int sheet, int row, int col, double v, lxw_format *f)
{
	worksheet_write_number(x->ws[sheet], (lxw_row_t)row, (lxw_col_t)col, v, f);
	xc_set_num(x->calc, sheet, row, col, v);
}

static void put_text(xl *x, int sheet, int row, int col, const char *s, lxw_format *f)
{
	worksheet_write_string(x->ws[sheet], (lxw_row_t)row, (lxw_col_t)col, s, f);
	xc_set_text(x->calc, sheet, row, col, s);
}

static void put_formula(xl *x, int sheet, int row, int col, const char *formula, lxw_format *f)
{
	if (x->npending == x->pending_cap) {
		x->pending_cap = x->pending_cap ? 2 * x->pending_cap : 256;
		x->pending = xrealloc(x->pending, (size_t)x->pending_cap * sizeof *x->pending);
	}
	x->pending[x->npending++] = (xl_pending){sheet, row, col, xstrdup(formula), f};
	xc_set_formula(x->calc, sheet, row, col, formula);
}

static void define(xl *x, const char *name, int sheet, int row, int col)
{
	char def[64], c[16];
	cell_name(row, col, c, sizeof c);
	/* $B$2 from B2 */
	size_t k = strcspn(c, "0123456789");
	snprintf(def, sizeof def, "=%s!$%.*s$%s", sheet == XL_AS ? "Assumptions" : "Options", (int)k, c, c + k);
	workbook_define_name(x->wb, name, def);
	xc_define(x->calc, name, sheet, row, col);
}

/* Every formula with the value it computes stored beside it (a previewer shows it without recalculating);
 * the count of formulas whose value is an error (none in a book this file writes: a formula the calculator
 * cannot read is a bug here, and goes in without a value). */
static int put_results(xl *x)
{
	int bad = 0;
	for (int i = 0; i < x->npending; i++) {
		const xl_pending *p = &x->pending[i];
		xc_val v = xc_value(x->calc, p->sheet, p->row, p->col);
		lxw_worksheet *ws = x->ws[p->sheet];
		if (v.kind == XC_NUM)
			worksheet_write_formula_num(ws, (lxw_row_t)p->row, (lxw_col_t)p->col, p->formula, p->f, v.num);
		else if (v.kind == XC_TEXT)
			worksheet_write_formula_str(ws, (lxw_row_t)p->row, (lxw_col_t)p->col, p->formula, p->f, v.text);
		else {
			worksheet_write_formula(ws, (lxw_row_t)p->row, (lxw_col_t)p->col, p->formula, p->f);
			bad++;
		}
		free(x->pending[i].formula);
	}
	free(x->pending);
	x->pending = NULL;
	x->npending = x->pending_cap = 0;
	return bad;
}

static void num_or_empty(xl *x, int sheet, int row, int col, double v, lxw_format *f)
{
	if (isfinite(v))
		put_num(x, sheet, row, col, v, f);
}

/* The inputs (model_money_inputs, then the constants) and the derived factors on Assumptions; sets
 * x->sys_first_row, the first row of the systems' prices below them. */
static void write_inputs(xl *x, const model_money *m)
{
	static const char *const head[] = {"input", "value", "flag", "source"};
	int n, row = 1;
	const model_money_input *in = model_money_inputs(&n);
	for (int c = 0; c < 4; c++)
		put_text(x, XL_AS, 0, c, head[c], x->bold);
	for (int i = 0; i < n; i++, row++) {
		/* the field as the model holds it: a flag typed in other units says so */
		char *label = in[i].scale != 1 ? xasprintf("%s, s (%s takes %s)", in[i].label, in[i].flag, in[i].unit)
					       : xasprintf("%s%s%s", in[i].label, *in[i].unit ? ", " : "", in[i].unit);
		char *flag = in[i].flag ? xasprintf("--%s", in[i].flag) : xstrdup("");
		put_text(x, XL_AS, row, 0, label, NULL);
		put_num(x, XL_AS, row, 1, *(const double *)((const char *)m + in[i].off), x->num);
		put_text(x, XL_AS, row, 2, flag, NULL);
		put_text(x, XL_AS, row, 3, in[i].source, NULL);
		define(x, in[i].name, XL_AS, row, 1);
		free(label);
		free(flag);
	}
	for (int i = 0; i < NCONSTS; i++, row++) {
		put_text(x, XL_AS, row, 0, consts[i].label, NULL);
		put_num(x, XL_AS, row, 1, consts[i].width ? model_price_width(consts[i].width) : consts[i].constant, x->num);
		put_text(x, XL_AS, row, 3, consts[i].source, NULL);
		define(x, consts[i].name, XL_AS, row, 1);
	}
	for (int i = 0; i < NDERIVED; i++, row++) {
		put_text(x, XL_AS, row, 0, derived[i].label, NULL);
		put_formula(x, XL_AS, row, 1, derived[i].formula, x->num);
		put_text(x, XL_AS, row, 3, "model/model_money.c (a formula over the inputs above)", NULL);
		define(x, derived[i].name, XL_AS, row, 1);
	}
	x->sys_first_row = row + 3;
}

static char *sourced(const char *kind, const char *date, const char *source)
{
	return xasprintf("%s%s%s%s%s", source && *source ? source : "-", kind && *kind ? "; " : "", kind ? kind : "",
			 date && *date ? ", " : "", date ? date : "");
}

/* One system's row of prices: those the options' scenarios carry (the rent term asked, the fabric and store
 * the run uses), sources from the database. */
static void write_system(xl *x, int row, const plan_option *o)
{
	const model_node *n = &o->sc.node;
	const model_price *pr = &o->sc.price;
	const hw_system *sys = hw_system_find(x->db, n->system_id);
	const hw_fabric *fab = x->spec->fabric_id ? hw_fabric_find(x->db, x->spec->fabric_id) : sys ? sys->fabric : NULL;
	const hw_storage *st = n->storage_id ? hw_storage_find(x->db, n->storage_id) : NULL;
	bool unit = isfinite(pr->unit_price_usd);
	struct { const char *key; double v; lxw_format *f; } num[] = {
		{"unit_price", unit ? pr->unit_price_usd : pr->price_usd, x->usd},
		{"unit_price_lo", !unit ? pr->price_usd : isfinite(pr->unit_price_lo_usd) ? pr->unit_price_lo_usd : pr->unit_price_usd, x->usd},
		{"unit_price_hi", !unit ? pr->price_usd : isfinite(pr->unit_price_hi_usd) ? pr->unit_price_hi_usd : pr->unit_price_usd, x->usd},
		{"unit_nodes", pr->unit_nodes > 1 ? pr->unit_nodes : 1, NULL},
		{"liquid", pr->liquid_cooled ? 1 : 0, NULL},
		{"switch_usd", pr->switch_usd, x->usd},
		{"link_usd", pr->link_usd, x->usd},
		{"nic_usd", pr->nic_usd, x->usd},
		{"net_width", pr->net_width, x->num},
		{"store_unit_usd", pr->store_unit_usd, x->usd},
		{"store_width", pr->store_width, x->num},
		{"rent_rate", pr->rent_usd_gpu_h, x->cents},
		{"rent_min", pr->rent_min_s, x->num},
		{"rent_inc", pr->rent_increment_s, x->num},
		{"rent_max", pr->rent_max_gpus, NULL},
		{"rent_cluster", pr->rent_cluster_usd_gpu_h, x->cents},
		{"rent_cluster_inc", pr->rent_cluster_increment_s, x->num},
		{"reserved", pr->rent_reserved ? 1 : 0, NULL},
		{"spot", pr->rent_spot ? 1 : 0, NULL},
		{"rent_width", pr->rent_width, x->num},
		{"rent_market", pr->rent_market_usd_gpu_h, x->cents},
		{"rent_term_y", pr->rent_term_years > 0 ? pr->rent_term_years : 0, x->num},
	};
	for (size_t i = 0; i < sizeof num / sizeof num[0]; i++)
		num_or_empty(x, XL_AS, row, sys_col_of(num[i].key), num[i].v, num[i].f);
	struct { const char *key; char *text; } txt[] = {
		{"price_source", sourced(sys ? sys->price_kind : "", sys ? sys->price_date : "", sys ? sys->price_source : "")},
		{"fabric_source", sourced(fab ? fab->price_kind : "", fab ? fab->price_date : "", fab ? fab->price_source : "")},
		{"store_source", sourced(st ? st->price_kind : "", st ? st->price_date : "", st ? st->price_source : "")},
		{"rent_source", sourced(sys ? sys->rent_kind : "", sys ? sys->rent_date : "", sys ? sys->rent_source : "")},
		{"market_source", sourced("", sys ? sys->rent_market_date : "", sys ? sys->rent_market_source : "")},
		{"id", xstrdup(n->system_id)},
	};
	for (size_t i = 0; i < sizeof txt / sizeof txt[0]; i++) {
		put_text(x, XL_AS, row, sys_col_of(txt[i].key), txt[i].text, NULL);
		free(txt[i].text);
	}
}

/* Whether two options read the same prices of their system (one row): the same system, fabric and store. */
static bool same_prices(const plan_option *a, const plan_option *b)
{
	const model_price *x = &a->sc.price, *y = &b->sc.price;
	bool same_store = x->store_unit_usd == y->store_unit_usd || (isnan(x->store_unit_usd) && isnan(y->store_unit_usd));
	bool same_switch = x->switch_usd == y->switch_usd || (isnan(x->switch_usd) && isnan(y->switch_usd));
	return strcmp(a->sc.node.system_id, b->sc.node.system_id) == 0 && same_store && same_switch;
}

/* Whether two options weigh buying against the same rental: one rented system at one rate and instance. */
static bool same_ref(const plan_option *a, const plan_option *b)
{
	const model_price *x = &a->sc.price, *y = &b->sc.price;
	bool same_id = x->ref_rent_id == y->ref_rent_id ||
		       (x->ref_rent_id && y->ref_rent_id && strcmp(x->ref_rent_id, y->ref_rent_id) == 0);
	bool same_rate = x->ref_rent_usd_gpu_h == y->ref_rent_usd_gpu_h ||
			 (isnan(x->ref_rent_usd_gpu_h) && isnan(y->ref_rent_usd_gpu_h));
	return same_id && same_rate && x->ref_rent_gpus == y->ref_rent_gpus;
}

/* The Assumptions row of each option's prices (rows[n]), each system once. */
static int write_systems(xl *x, const plan_option *o, int n, int *rows)
{
	put_text(x, XL_AS, x->sys_first_row - 2, 0, "Prices of each system (hw show ID has them all)", x->bold);
	for (int c = 0; c < NSYS_COLS; c++)
		put_text(x, XL_AS, x->sys_first_row - 1, c + 1, sys_cols[c].head, x->bold);
	int next = x->sys_first_row;
	for (int i = 0; i < n; i++) {
		rows[i] = -1;
		for (int k = 0; k < i && rows[i] < 0; k++)
			if (same_prices(&o[k], &o[i]))
				rows[i] = rows[k];
		if (rows[i] < 0) {
			rows[i] = next++;
			write_system(x, rows[i], &o[i]);
		}
	}
	return next;
}

/* The rentals buying is weighed against (Assumptions, from row first): one row per rented system, rate and
 * instance (ref_rows[n]); a rate that is a system's own on the rows above points at that cell, so that it
 * is written once. */
static void write_refs(xl *x, const plan_option *o, int n, const int *sys_rows, int first, int *ref_rows)
{
	static const char *const head[] = {"rented system (buy vs rent)", "USD per GPU-hour", "GPUs an instance"};
	put_text(x, XL_AS, first - 2, 0, "Rentals that buying is weighed against (the cheapest of each GPU)", x->bold);
	for (int c = 0; c < 3; c++)
		put_text(x, XL_AS, first - 1, c + 1, head[c], x->bold);
	int next = first;
	for (int i = 0; i < n; i++) {
		const model_price *pr = &o[i].sc.price;
		ref_rows[i] = -1;
		for (int k = 0; k < i && ref_rows[i] < 0; k++)
			if (same_ref(&o[k], &o[i]))
				ref_rows[i] = ref_rows[k];
		if (ref_rows[i] >= 0 || !pr->ref_rent_id || !isfinite(pr->ref_rent_usd_gpu_h))
			continue;
		int r = ref_rows[i] = next++, own = -1;
		for (int k = 0; k < n && own < 0; k++)
			if (strcmp(o[k].sc.node.system_id, pr->ref_rent_id) == 0 &&
			    o[k].sc.price.rent_usd_gpu_h == pr->ref_rent_usd_gpu_h)
				own = sys_rows[k];
		put_text(x, XL_AS, r, 1, pr->ref_rent_id, NULL);
		if (own >= 0) {
			char c[16], *f;
			cell_name(own, sys_col_of("rent_rate"), c, sizeof c);
			f = xasprintf("=%s", c);
			put_formula(x, XL_AS, r, 2, f, x->cents);
			free(f);
		} else
			put_num(x, XL_AS, r, 2, pr->ref_rent_usd_gpu_h, x->cents);
		num_or_empty(x, XL_AS, r, 3, pr->ref_rent_gpus > 0 ? pr->ref_rent_gpus : NAN, NULL);
	}
}

/* The physics of option o in column key (XL_VAL): the model's own figures (model_fabric_parts,
 * model_store_units), NAN for an empty cell. */
static double value_of(const xl *x, const plan_option *o, const char *key)
{
	const model_result *r = &o->r;
	const model_cost *c = &o->cost;
	const model_node *n = &o->sc.node;
	const model_price *pr = &o->sc.price;
	int per_unit = pr->unit_nodes > 1 ? pr->unit_nodes : 1;
	double fab[3] = {0, 0, 0};
	if (c->capex_fabric_usd > 0) /* 0: nothing bought, or a part unpriced (model_money.c prices none then) */
		model_fabric_parts(&o->sc, &fab[0], &fab[1], &fab[2]);
	struct { const char *key; double v; } v[] = {
		{"nodes", o->sc.nodes},
		{"gpus_per_node", n->gpus_per_node},
		{"gpus", r->gpus},
		{"nodes_bought", model_nodes_bought(&o->sc)},
		{"units", model_nodes_bought(&o->sc) / per_unit},
		{"gpus_node_sold", n->max_gpus_per_node > 0 ? n->max_gpus_per_node : n->gpus_per_node},
		{"tta_s", r->tta_s},
		{"energy_kwh", isfinite(c->energy_J) ? c->energy_J / 3.6e6 : 0.0},
		{"power_max_kw", isfinite(c->power_max_W) ? c->power_max_W / 1e3 : 0.0},
		{"rent_gpus", c->rent_gpus},
		{"fabric_switches", fab[0]},
		{"fabric_links", fab[1]},
		{"fabric_nic_ports", fab[2]},
		{"store_units", model_store_units(&o->sc, x->p, r)},
		{"dataset_TB", x->p->dataset_B / 1e12},
		{"copy_GB", o->sc.data == MODEL_DATA_SYNTHETIC ? 0.0 : x->p->dataset_B / 1e9},
		{"staging_s", isfinite(r->staging_s) ? r->staging_s : 0.0},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (strcmp(v[i].key, key) == 0)
			return v[i].v;
	return NAN;
}

/* One formula cell: the template expanded, inside IF(ISNUMBER(priced),...,"") when priced is set. */
static void write_formula(xl *x, int col, const char *tpl, const char *priced, xl_at at, lxw_format *f)
{
	char *t = priced ? xasprintf("=IF(ISNUMBER(%s),%s,\"\")", priced, tpl + 1) : xstrdup(tpl);
	char *fx = expand(t, at);
	put_formula(x, XL_OP, at.row, col, fx, f);
	free(fx);
	free(t);
}

/* The text of option o in column key (XL_TEXT); what fails is appended to buf. */
static const char *text_of(const plan_question *q, const plan_option *o, const char *key, strbuf *buf)
{
	if (strcmp(key, "system") == 0)
		return o->sc.node.system_id;
	if (strcmp(key, "gpu") == 0)
		return o->sc.node.gpu_id;
	return o->v.fails ? plan_fails_text(q, &o->v, buf) : "meets";
}

static void write_option(xl *x, xl_at at, const plan_option *o)
{
	for (int c = 0; c < NCOLS; c++) {
		const xl_col *k = &cols[c];
		lxw_format *f = k->money == 1 ? x->usd : k->money == 2 ? x->cents : x->num;
		if (k->kind == XL_TEXT) {
			strbuf text;
			strbuf_init(&text);
			put_text(x, XL_OP, at.row, c, text_of(x->q, o, k->key, &text), NULL);
			strbuf_free(&text);
		} else if (k->kind == XL_VAL)
			num_or_empty(x, XL_OP, at.row, c, value_of(x, o, k->key), f);
		else
			write_formula(x, c, k->formula, k->priced, at, f);
	}
	strbuf pv;
	strbuf_init(&pv);
	strbuf_addf(&pv, "=");
	for (int y = 0; y <= x->cash_years; y++) {
		at.year = y;
		write_formula(x, NCOLS + y, cash_year, "{capex_usd}", at, x->usd);
		char *t = expand(cash_pv_term, at);
		strbuf_addf(&pv, "%s%s", y ? "+" : "", t);
		free(t);
	}
	at.year = 0;
	write_formula(x, NCOLS + x->cash_years + 1, pv.s, "{capex_usd}", at, x->usd);
	strbuf_free(&pv);
}

static void write_options(xl *x, const plan_option *o, int n, const int *sys_rows, const int *ref_rows, int no_ref)
{
	for (int c = 0; c < NCOLS; c++)
		put_text(x, XL_OP, 0, c, cols[c].head, x->bold);
	for (int y = 0; y <= x->cash_years; y++) {
		char h[48];
		snprintf(h, sizeof h, "owned cash year %d USD", y);
		put_text(x, XL_OP, 0, NCOLS + y, h, x->bold);
	}
	put_text(x, XL_OP, 0, NCOLS + x->cash_years + 1, "owned cash over the life, discounted at the cost of capital USD",
		 x->bold);
	for (int i = 0; i < n; i++)
		write_option(x, (xl_at){i + 1, sys_rows[i], ref_rows[i] >= 0 ? ref_rows[i] : no_ref, 0}, &o[i]);
	worksheet_freeze_panes(x->op, 1, 2);
}

/* ---- Cash flow and Sensitivity: the answer's bought option (report's cash flow) as formulas over its
 * Options row ---- */

/* The Options row (1-based, as on the sheet) of the option the report's cash flow follows: plan_decide's
 * bought option of the buy-vs-rent pair among the first GPU count's options; 0 when there is none. */
static int cash_row(const plan_question *q, const plan_option *o, int n)
{
	int k = 0;
	while (k < n && o[k].r.gpus == o[0].r.gpus)
		k++;
	if (k == 0)
		return 0;
	plan_option *copy = xmalloc((size_t)k * sizeof *copy);
	memcpy(copy, o, (size_t)k * sizeof *copy);
	plan_answer a;
	plan_decide(q, copy, k, &a);
	int row = 0;
	for (int i = 0; i < k && a.winner && a.buy_rent.buy && !row; i++)
		if (strcmp(o[i].sc.node.system_id, a.buy_rent.buy->sc.node.system_id) == 0 &&
		    o[i].sc.nodes == a.buy_rent.buy->sc.nodes && o[i].sc.node.gpus_per_node == a.buy_rent.buy->sc.node.gpus_per_node)
			row = i + 1;
	free(copy);
	return row;
}

/* "Options!$X$r" of column key on Options row r into buf. */
static const char *op_cell(int r, const char *key, char *buf, size_t len_B)
{
	char c[16];
	cell_name(r, col_of(key), c, sizeof c);
	size_t k = strcspn(c, "0123456789");
	snprintf(buf, len_B, "Options!$%.*s$%s", (int)k, c, c + k);
	return buf;
}

/* A key of a template over one Options row (ctx the row, an int): that row's cell of column key (op_cell). */
static void key_op_row(const char *key, const void *ctx, strbuf *out)
{
	char ref[64];
	strbuf_addf(out, "%s", op_cell(*(const int *)ctx, key, ref, sizeof ref));
}

/* A template over one Options row: {key} is that row's cell (op_cell); the rest, cf_formula's @ and %X
 * included, stays as written. Returns a heap string. */
static char *over_row(const char *tpl, int op_row)
{
	return tpl_expand(tpl, key_op_row, &op_row);
}

/* The cash-flow sheet's columns: each year's figure as a formula of the year in column A (a row's A cell is
 * written as @) and the Options row ({key}); $F is the year's share of a full year of running. */
static const struct { const char *head, *formula; int money; } cf_cols[] = {
	{"year", NULL, 0},
	{"share of the year run", "=IF(@=0,0,MAX(0,MIN(1,amortize_years-(@-1))))", 0},
	{"runs", "=%B*12*{runs_month}", 0},
	{"capex (cash out) USD", "=IF(@=0,N({capex_usd}),0)", 1},
	{"support USD", "=%B*support_frac_year*N({capex_usd})", 1},
	{"facility USD", "=%B*12*N({facility_month_usd})", 1},
	{"energy USD", "=%C*{energy_usd}", 1},
	{"resale (cash in) USD", "=IF(@=ROUNDUP(amortize_years-1E-9,0),-residual_frac*N({capex_usd}),0)", 1},
	{"owned cash USD", "=%D+%E+%F+%G+%H", 1},
	{"depreciation (book, straight line to the residual) USD", "=%B*N({capex_usd})*(1-residual_frac)/amortize_years", 1},
	{"book value at the year's end USD", "=IF(@=0,N({capex_usd}),%K^-%J)", 1},
	{"owned cost on the books USD", "=%J+%E+%F+%G", 1},
	{"owned cash, cumulative USD", "=%I+%M^", 1},
	{"rented USD (the same runs)",
	 "=IF(ISNUMBER({rented_month_usd}),%B*12*{rented_month_usd}/{rent_horizon_x}*%U,\"\")", 1},
	{"rented, cumulative USD", "=IF(ISNUMBER(%N),N(%N)+N(%O^),\"\")", 1},
	{"owned cash, discounted to the purchase USD", "=%I/(1+finance_rate)^@", 1},
	{"rented, discounted USD", "=IF(ISNUMBER(%N),%N/(1+finance_rate)^@,\"\")", 1},
	/* model_cashflow: the rent's fall that year, the horizon's months' sum (Options' rent_horizon_x,
	 * the same closed forms) to the year's end less that to the year before's, over the year's months; the
	 * rent above is the horizon's average's run (rented_month_usd) at that year's factor instead */
	{"months of the horizon by the year's end", "=MIN(12*@,horizon_months)", 0},
	{"whole rent terms by then", "=IF({rent_term_y}>0,CEILING((%R+1)/(12*{rent_term_y}),1)-1,0)", 0},
	{"rent summed month by month to then, in months at today's rate",
	 "=IF(rent_decline>0,IF({rent_term_y}>0,12*{rent_term_y}*(1-(1-rent_decline)^({rent_term_y}*%S))/(1-(1-"
	 "rent_decline)^{rent_term_y})+(%R-12*{rent_term_y}*%S)*(1-rent_decline)^({rent_term_y}*%S),(1-rent_decline)"
	 "^(1/24)*(1-(1-rent_decline)^(%R/12))/(1-(1-rent_decline)^(1/12))),%R)", 0},
	{"rent that year as the market's falls, times today's", "=(%T-%T^)/(%R-%R^)", 0},
};
enum { CF_NCOLS = sizeof cf_cols / sizeof cf_cols[0], CF_FIRST_ROW = 3 };

/* A cash-flow template for sheet row `row`: @ the year (column A), %X column X of this row, %X^ the row above. */
static char *cf_formula(const char *tpl, int row, int op_row)
{
	char *t = over_row(tpl, op_row);
	strbuf out;
	strbuf_init(&out);
	for (const char *p = t; *p;) {
		char ref[24];
		if (*p == '@') {
			snprintf(ref, sizeof ref, "A%d", row + 1);
			p++;
		} else if (*p == '%' && p[1] >= 'A' && p[1] <= 'Z') {
			bool up = p[2] == '^';
			snprintf(ref, sizeof ref, "%c%d", p[1], row + 1 - (up ? 1 : 0));
			p += up ? 3 : 2;
		} else
			ref[0] = *p++, ref[1] = '\0';
		strbuf_addf(&out, "%s", ref);
	}
	free(t);
	return out.s;
}

/* Cash flow by year of the Options row op_row (years 0 .. cash_years; empty after the amortisation): cash
 * against book (straight-line depreciation to the residual), owned against the same runs rented. */
static void write_cashflow(xl *x, int op_row, const plan_option *o)
{
	char title[256];
	snprintf(title, sizeof title, "Owning %s %dx%d (Options row %d) year by year, cash and book, against renting the "
		 "same runs%s%s", o->sc.node.system_id, o->sc.nodes, o->sc.node.gpus_per_node, op_row + 1,
		 o->sc.price.ref_rent_id ? " on " : "", o->sc.price.ref_rent_id ? o->sc.price.ref_rent_id : "");
	put_text(x, XL_CF, 0, 0, title, x->bold);
	for (int c = 0; c < CF_NCOLS; c++)
		put_text(x, XL_CF, CF_FIRST_ROW - 1, c, cf_cols[c].head, x->bold);
	for (int y = 0; y <= x->cash_years; y++) {
		int row = CF_FIRST_ROW + y;
		put_num(x, XL_CF, row, 0, y, x->num);
		for (int c = 1; c < CF_NCOLS; c++) {
			const char *tpl = cf_cols[c].formula;
			/* the first row's cumulative columns start from 0, not from the heading */
			if (y == 0 && (c == 12 || c == 14))
				tpl = c == 12 ? "=%I" : "=IF(ISNUMBER(%N),N(%N),\"\")";
			if (y == 0 && c == 20) /* no months run: no fall */
				tpl = "=1";
			/* after the amortisation the row stays empty: a longer one typed on Assumptions fills it */
			char *body = cf_formula(tpl, row, op_row);
			char *f = xasprintf("=IF(@>ROUNDUP(amortize_years-1E-9,0),\"\",%s)", body + 1);
			char *g = cf_formula(f, row, op_row);
			put_formula(x, XL_CF, row, c, g, cf_cols[c].money ? x->usd : x->num);
			free(body);
			free(f);
			free(g);
		}
	}
	worksheet_set_column(x->ws[XL_CF], 0, (lxw_col_t)(CF_NCOLS - 1), 18, NULL);
}

/* Two-way sensitivity of buying against renting for the Options row op_row: the use (rows) against the
 * rental rate (columns, multiples of the rate weighed against, rate_cell), each cell the rented month less
 * the owned month (positive: owning saves that much a month), the two straight lines of
 * model_buy_rent_eval: owned = fixed + runs x energy, rented = (reservation's month + runs x rent a run) x
 * rate / its rate; the last row the use where they cross. */
static void write_sensitivity(xl *x, int op_row, const char *rate_cell)
{
	static const double use[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
	static const double mult[] = {0.3, 0.5, 0.7, 0.85, 1.0, 1.15, 1.3};
	enum { NU = sizeof use / sizeof use[0], NM = sizeof mult / sizeof mult[0], R0 = 3 };
	put_text(x, XL_SENS, 0, 0, "Rented month less owned month, USD (positive: owning saves that much a month): the "
				  "use of the bought cluster down, the rental rate across (multiples of the rate weighed against)", x->bold);
	put_text(x, XL_SENS, R0 - 1, 0, "use \\ USD per GPU-hour", x->bold);
	for (int j = 0; j < NM; j++) {
		char *h = xasprintf("=%g*N(%s)", mult[j], rate_cell);
		put_formula(x, XL_SENS, R0 - 1, j + 1, h, x->cents);
		free(h);
	}
	for (int i = 0; i <= NU; i++) {
		int row = R0 + i;
		if (i < NU)
			put_num(x, XL_SENS, row, 0, use[i], x->num);
		else
			put_text(x, XL_SENS, row, 0, "use where they cost the same (on demand buying wins above, reserved below)",
				 x->bold);
		for (int j = 0; j < NM; j++) {
			char u[16], r[16];
			cell_name(row, 0, u, sizeof u);
			cell_name(R0 - 1, j + 1, r, sizeof r);
			/* k = the rate over the rate weighed against; runs = use x month / run time */
			char *tpl = i < NU
				? xasprintf("=IF(AND(ISNUMBER({capex_usd}),ISNUMBER({ref_rent_usd}),N(%s)>0),({ref_fix_month_usd}+"
					    "%s*month_s/{tta_s}*{ref_run_usd})*%s/%s-({fixed_month_usd}+%s*month_s/{tta_s}*"
					    "{energy_usd}),\"\")", rate_cell, u, r, rate_cell, u)
				: xasprintf("=IF(AND(ISNUMBER({capex_usd}),ISNUMBER({ref_rent_usd}),N(%s)>0),IF({ref_run_usd}*%s/%s="
					    "{energy_usd},\"\",({fixed_month_usd}-{ref_fix_month_usd}*%s/%s)/(month_s/{tta_s}*"
					    "({ref_run_usd}*%s/%s-{energy_usd}))),\"\")", rate_cell, r, rate_cell, r, rate_cell, r,
					    rate_cell);
			char *f = over_row(tpl, op_row);
			put_formula(x, XL_SENS, row, j + 1, f, i < NU ? x->usd : x->num);
			free(f);
			free(tpl);
		}
	}
	worksheet_set_column(x->ws[XL_SENS], 0, 0, 40, NULL);
	worksheet_set_column(x->ws[XL_SENS], 1, NM, 14, NULL);
}

int web_costs_write(const char *path, const hw_db *db, const plan_spec *spec, const model_params *p,
		    const plan_question *q, const plan_option *o, int n, char *why, size_t why_len)
{
	(void)why, (void)why_len; /* this build always writes the book */
	/* at least MIN_CASH_YEARS columns, so that a longer amortisation typed on Assumptions still shows */
	int years = (int)ceil(spec->money.amortize_years - 1e-9);
	xl x = {.q = q, .spec = spec, .p = p, .db = db, .cash_years = years > MIN_CASH_YEARS ? years : MIN_CASH_YEARS};
	x.wb = workbook_new(path);
	if (!x.wb) {
		err_set("cannot write %s (libxlsxwriter)", path);
		return ERR_ENV;
	}
	static const char *const names[XL_NSHEETS] = {"Assumptions", "Options", "Cash flow", "Sensitivity"};
	for (int i = 0; i < XL_NSHEETS; i++)
		x.ws[i] = workbook_add_worksheet(x.wb, names[i]);
	x.as = x.ws[XL_AS];
	x.op = x.ws[XL_OP];
	x.calc = xc_new(XL_NSHEETS, names);
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
	worksheet_set_column(x.op, 0, (lxw_col_t)(NCOLS + x.cash_years + 1), 14, NULL);
	write_inputs(&x, &spec->money);
	int *sys_rows = xcalloc((size_t)(n > 0 ? n : 1), sizeof *sys_rows);
	int *ref_rows = xcalloc((size_t)(n > 0 ? n : 1), sizeof *ref_rows);
	int first_ref = write_systems(&x, o, n, sys_rows) + 3;
	write_refs(&x, o, n, sys_rows, first_ref, ref_rows);
	int no_ref = first_ref + n + 1; /* a row left empty: the rental of an option that has none */
	write_options(&x, o, n, sys_rows, ref_rows, no_ref);
	int cr = cash_row(q, o, n);
	if (cr > 0) {
		char rate[32], c[16];
		cell_name(ref_rows[cr - 1] >= 0 ? ref_rows[cr - 1] : no_ref, 2, c, sizeof c);
		snprintf(rate, sizeof rate, "Assumptions!%s", c);
		write_cashflow(&x, cr, &o[cr - 1]);
		write_sensitivity(&x, cr, rate);
	} else {
		put_text(&x, XL_CF, 0, 0, "no bought option with a capex among the first GPU count's options", NULL);
		put_text(&x, XL_SENS, 0, 0, "no bought option with a capex among the first GPU count's options", NULL);
	}
	free(sys_rows);
	free(ref_rows);
	int bad = put_results(&x);
	xc_free(x.calc);
	lxw_error e = workbook_close(x.wb);
	if (bad) {
		err_set("%s: %d formulas the workbook's calculator could not compute (web/web_calc.c)", path, bad);
		return ERR_ENV;
	}
	if (e != LXW_NO_ERROR) {
		err_set("cannot write %s: %s", path, lxw_strerror(e));
		return ERR_ENV;
	}
	return 0;
}
