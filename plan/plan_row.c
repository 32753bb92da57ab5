/* plan_row.c: one prediction as a row - the CSV columns predict, sim, compare, sweep and report write (the
 * names in docs/design.md first, the extras after, a judged option's verdict (compare, sweep, report), stack
 * last: readers keep their positions) and predict's and sim's JSON object of the same values, in the same
 * order: one table of columns (common/cols.c) drives the header, the cells and the JSON members.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "plan/plan_internal.h"

/* What a column reads: the scenario, its times and its cost; a judged option's columns (plan_option_csv_row) its
 * verdict too, its times over the pick's and what it fails. */
typedef struct row_in {
	const model_scenario *sc;
	const model_result *r;
	const model_cost *c;
	const plan_verdict *v;
	double x[2], lo[2], hi[2]; /* this row's ttt and tta over the pick's, with the 90% interval */
	const char *fails; /* plan_fails_text's, or "" */
} row_in;

#define SC(p) (((const row_in *)(p))->sc)
#define RS(p) (((const row_in *)(p))->r)
#define CS(p) (((const row_in *)(p))->c)
/* a getter of a model_result or a model_cost field, named after it */
#define R_GET(f) static double r_##f(const void *p) { return RS(p)->f; }
#define C_GET(f) static double r_##f(const void *p) { return CS(p)->f; }
R_GET(gpus) R_GET(global_batch) R_GET(throughput_img_s) R_GET(per_gpu_img_s) R_GET(scaling_eff) R_GET(iter_s)
R_GET(compute_s) R_GET(comm_s) R_GET(comm_exposed_s) R_GET(data_s) R_GET(io_s) R_GET(epochs) R_GET(epoch_s)
R_GET(tta_s) R_GET(ttt_s) R_GET(first_epoch_s) R_GET(eval_s) R_GET(startup_s) R_GET(staging_s) R_GET(boundary_s)
R_GET(warmup_s) R_GET(fits) R_GET(mem_per_gpu_B) R_GET(extrapolated) R_GET(ttt_lo_s) R_GET(ttt_hi_s)
R_GET(tta_lo_s) R_GET(tta_hi_s) R_GET(throughput_lo_img_s) R_GET(throughput_hi_img_s) R_GET(extrapolated_below)
C_GET(capex_usd) C_GET(power_W) C_GET(energy_J) C_GET(energy_usd) C_GET(rent_usd) C_GET(tco_usd)
C_GET(capex_servers_usd) C_GET(capex_network_usd) C_GET(capex_storage_usd) C_GET(facility_usd) C_GET(support_usd)
C_GET(rent_gpus) C_GET(breakeven_runs_per_month) C_GET(capex_lo_usd) C_GET(capex_hi_usd) C_GET(tco_lo_usd)
C_GET(tco_hi_usd) C_GET(rent_lo_usd) C_GET(rent_hi_usd) C_GET(rent_setup_s) C_GET(owned_usd_gpu_h)
C_GET(capex_fabric_usd) C_GET(capex_frontend_usd) C_GET(capex_racks_usd) C_GET(capex_cooling_usd)
C_GET(capex_install_usd) C_GET(breakeven_use) C_GET(flip_usd_gpu_h) C_GET(owned_month_usd) C_GET(rented_month_usd)
C_GET(co2_kg) C_GET(power_max_W)

static double g_nodes(const void *p) { return SC(p)->nodes; }
static double g_gpn(const void *p) { return SC(p)->node.gpus_per_node; }
static double g_batch(const void *p) { return SC(p)->batch_per_gpu; }
static double g_compute_cal(const void *p) { return SC(p)->compute_cal; }
static double g_domain(const void *p) { return model_domain_gpus(SC(p)); }
static double g_pue(const void *p) { return SC(p)->money.pue; }
/* the use the owner's month is shared by: --utilisation, or what --runs-per-month implies */
static double g_use(const void *p) { return model_money_use(&SC(p)->money, RS(p)->tta_s); }
static double g_staged(const void *p) { return SC(p)->stack.staged; }
/* buy vs rent as a month of work against the reference rate (model_buy_rent_eval): none without a crossing */
static double g_liquid(const void *p) { return SC(p)->price.liquid_cooled; }
static double g_buy_above(const void *p) { return isfinite(CS(p)->breakeven_use) ? CS(p)->buy_wins_above : NAN; }
static const char *t_system(const void *p) { return SC(p)->node.system_id; }
static const char *t_gpu(const void *p) { return SC(p)->node.gpu_id; }
static const char *t_prec(const void *p) { return model_precision_name(SC(p)->precision); }
static const char *t_bottleneck(const void *p)
{
	return RS(p)->fits ? model_bottleneck_name(RS(p)->bottleneck) : "memory";
}
static const char *t_data(const void *p) { return model_data_name(SC(p)->data); }
static const char *t_power_basis(const void *p) { return plan_power_basis(SC(p), CS(p)); }
static const char *t_basis(const void *p) { return model_basis_name(RS(p)->basis); }
static const char *t_stack(const void *p) { return SC(p)->stack.id; }
/* a judged option's (compare, report and sweep) */
#define OR(p) ((const row_in *)(p))
static double o_meets(const void *p) { return OR(p)->v->fails ? 0 : 1; }
static const char *o_fails(const void *p) { return OR(p)->fails; }
static double o_over(const void *p) { return OR(p)->v->over_budget_usd; }
static double o_late(const void *p) { return OR(p)->v->late_s; }
static double o_idle(const void *p) { return OR(p)->v->idle_gpus; }
static double o_ttt_x(const void *p) { return OR(p)->x[0]; }
static double o_ttt_lo(const void *p) { return OR(p)->lo[0]; }
static double o_ttt_hi(const void *p) { return OR(p)->hi[0]; }
static double o_tta_x(const void *p) { return OR(p)->x[1]; }
static double o_tta_lo(const void *p) { return OR(p)->lo[1]; }
static double o_tta_hi(const void *p) { return OR(p)->hi[1]; }
static double o_deadline_p(const void *p) { return OR(p)->v->deadline_p; }
static double o_pick(const void *p) { return OR(p)->v->pick; }
static double o_flip(const void *p) { return OR(p)->v->flip_speed_x > 0 ? OR(p)->v->flip_speed_x : NAN; }
static double o_run_cost(const void *p) { return OR(p)->v->run_cost_usd; }

#define NUM(name, unit, d, get) {name, unit, COL_NUM, d, get, NULL, 0}
#define RNUM(f, unit, d) NUM(#f, unit, d, r_##f)
#define INT(name, unit, get) {name, unit, COL_INT, 0, get, NULL, 0}
#define BOOL(name, get) {name, "1 = yes", COL_BOOL, 0, get, NULL, 0}
#define TEXT(name, unit, get) {name, unit, COL_TEXT, 0, NULL, get, 0}
/* A figure of the run itself, which a simulation gives again (sim's JSON "sim" object, plan_row_json_run): this
 * table's own bit of out_col.only beside COL_CSV and COL_JSON (common/cols.c reads only those two). */
enum { ROW_RUN = 4 };
#define RUN_NUM(f, unit, d) {#f, unit, COL_NUM, d, r_##f, NULL, COL_CSV | COL_JSON | ROW_RUN}
#define RUN_INT(f, unit) {#f, unit, COL_INT, 0, r_##f, NULL, COL_CSV | COL_JSON | ROW_RUN}

/* The columns, in the order every format writes them: those of docs/design.md first, the extras after (sim
 * appends its own after the first block, CELLS_END), the basis and intervals, money (docs/prices.md), stack
 * last (columns added later go before it: readers keep their positions); staged in JSON only. */
static const out_col cols[] = {
	TEXT("system", "systems.csv id", t_system), TEXT("gpu", "gpus.csv id", t_gpu), INT("nodes", "", g_nodes),
	INT("gpus_per_node", "", g_gpn), RUN_INT(gpus, ""), INT("batch_per_gpu", "images", g_batch),
	RUN_INT(global_batch, "images"), TEXT("precision", "bf16, fp16, ...", t_prec),
	RUN_NUM(throughput_img_s, "img/s", 6), RUN_NUM(per_gpu_img_s, "img/s", 6), RUN_NUM(scaling_eff, "0-1", 4),
	RUN_NUM(iter_s, "s", 6), RUN_NUM(compute_s, "s", 6), RUN_NUM(comm_s, "s", 6), RUN_NUM(comm_exposed_s, "s", 6),
	RUN_NUM(data_s, "s", 6), RUN_NUM(io_s, "s", 6),
	{"bottleneck", "compute, comm, data, io, memory", COL_TEXT, 0, NULL, t_bottleneck, COL_CSV | COL_JSON | ROW_RUN},
	RUN_NUM(epochs, "epochs", 4), RUN_NUM(epoch_s, "s", 6), RUN_NUM(tta_s, "s", 6), RNUM(ttt_s, "s", 6),
	/* extras */
	RUN_NUM(first_epoch_s, "s", 6), RNUM(eval_s, "s", 6), RNUM(startup_s, "s", 6), RNUM(staging_s, "s", 6),
	RNUM(boundary_s, "s", 6), RNUM(warmup_s, "s", 6), TEXT("data", "data path", t_data), BOOL("fits", r_fits),
	RNUM(mem_per_gpu_B, "B", 6), RNUM(capex_usd, "USD", 8), RNUM(power_W, "W", 6), RNUM(energy_J, "J", 6),
	NUM("compute_cal", "x", 6, g_compute_cal), RNUM(energy_usd, "USD", 6), RNUM(rent_usd, "USD", 8),
	RNUM(tco_usd, "USD", 8), INT("nvlink_domain_gpus", "GPUs", g_domain), BOOL("extrapolated", r_extrapolated),
	/* the whole cluster's cost */
	RNUM(capex_servers_usd, "USD", 8), RNUM(capex_network_usd, "USD", 8), RNUM(capex_storage_usd, "USD", 8),
	NUM("pue", "x", 4, g_pue), RNUM(facility_usd, "USD", 6), RNUM(support_usd, "USD", 6),
	NUM("utilisation", "0-1", 4, g_use), TEXT("power_basis", "measured, datasheet, ...", t_power_basis),
	RNUM(rent_gpus, "GPUs", 8), RNUM(breakeven_runs_per_month, "runs", 6), RNUM(capex_lo_usd, "USD", 8),
	RNUM(capex_hi_usd, "USD", 8), RNUM(tco_lo_usd, "USD", 8), RNUM(tco_hi_usd, "USD", 8),
	RNUM(rent_lo_usd, "USD", 8), RNUM(rent_hi_usd, "USD", 8),
	/* CELLS_END: how the GPU is known and the 90% intervals */
	TEXT("basis", "measured, transfer, estimate", t_basis), RNUM(ttt_lo_s, "s", 6), RNUM(ttt_hi_s, "s", 6),
	RNUM(tta_lo_s, "s", 6), RNUM(tta_hi_s, "s", 6), RNUM(throughput_lo_img_s, "img/s", 6),
	RNUM(throughput_hi_img_s, "img/s", 6), BOOL("extrapolated_below", r_extrapolated_below),
	/* money (docs/prices.md); the site: the peak draw of the nodes bought (the facility is charged on it, and
	 * --site-kw caps it) beside power_W, the average, and whether the system needs liquid cooling */
	RNUM(power_max_W, "W", 6), BOOL("liquid_cooled", g_liquid),
	RNUM(rent_setup_s, "s", 8), NUM("owned_usd_per_gpu_hour", "USD/GPU-h", 8, r_owned_usd_gpu_h),
	RNUM(capex_fabric_usd, "USD", 8), RNUM(capex_frontend_usd, "USD", 8), RNUM(capex_racks_usd, "USD", 8),
	RNUM(capex_cooling_usd, "USD", 8), RNUM(capex_install_usd, "USD", 8), RNUM(breakeven_use, "0-1", 8),
	NUM("buy_wins_above", "1 = above the break-even", 8, g_buy_above),
	NUM("flip_usd_per_gpu_hour", "USD/GPU-h", 8, r_flip_usd_gpu_h), RNUM(owned_month_usd, "USD", 8),
	RNUM(rented_month_usd, "USD", 8), RNUM(co2_kg, "kg", 8),
	/* JUDGED: a judged option's (compare, report, sweep), not predict's: the question's verdict, its times over
	 * the pick's with the 90% interval of that ratio (model_ratio; empty without a pick), the pick */
	{"meets", "1 = meets the budget and deadline", COL_INT, 0, o_meets, NULL, 0},
	{"fails", "what fails and by how much", COL_TEXT, 0, NULL, o_fails, 0},
	{"over_budget_usd", "USD", COL_NUM, 8, o_over, NULL, 0},
	{"late_s", "s", COL_NUM, 6, o_late, NULL, 0},
	{"idle_gpus", "GPUs bought and idle", COL_INT, 0, o_idle, NULL, 0},
	{"ttt_ratio", "time to train over the pick's", COL_NUM, 6, o_ttt_x, NULL, 0},
	{"ttt_ratio_lo", "its 90% interval", COL_NUM, 6, o_ttt_lo, NULL, 0},
	{"ttt_ratio_hi", "", COL_NUM, 6, o_ttt_hi, NULL, 0},
	{"tta_ratio", "time to accuracy over the pick's", COL_NUM, 6, o_tta_x, NULL, 0},
	{"tta_ratio_lo", "its 90% interval", COL_NUM, 6, o_tta_lo, NULL, 0},
	{"tta_ratio_hi", "", COL_NUM, 6, o_tta_hi, NULL, 0},
	{"deadline_p", "chance of meeting the deadline", COL_NUM, 4, o_deadline_p, NULL, 0},
	{"pick", "1 = the decision's pick", COL_INT, 0, o_pick, NULL, 0},
	{"run_cost_usd", "USD: a run as its buyer pays it (owned: tco; rented: rent), --cost run", COL_NUM, 8,
	 o_run_cost, NULL, 0},
	{"flip_speed_ratio", "the pick: the factor on its predicted speed below which another is picked", COL_NUM, 4,
	 o_flip, NULL, 0},
	/* STACK */
	TEXT("stack", "stacks.csv id", t_stack), {"staged", "1 = yes", COL_BOOL, 0, g_staged, NULL, COL_JSON},
};
enum { NCOLS = sizeof(cols) / sizeof(cols[0]) };

/* Where a group of the table ends: the index of the column that starts the next. */
static int index_of(const char *name)
{
	for (int i = 0; i < NCOLS; i++)
		if (strcmp(cols[i].name, name) == 0)
			return i;
	return NCOLS;
}
#define CELLS_END index_of("basis")
#define JUDGED index_of("meets")
#define STACK index_of("stack")

void plan_row_csv_header_cells(csvw *w)
{
	col_csv_header(w, cols, CELLS_END);
}

/* predict's columns: all but the judged ones */
void plan_row_csv_header(csvw *w)
{
	col_csv_header(w, cols, JUDGED);
	col_csv_header(w, cols + STACK, NCOLS - STACK);
	csvw_end_row(w);
}

void plan_row_csv_cells(csvw *w, const model_scenario *sc, const model_result *r, const model_cost *cost)
{
	row_in in = {.sc = sc, .r = r, .c = cost};
	col_csv_cells(w, cols, CELLS_END, &in);
}

void plan_row_csv(csvw *w, const model_scenario *sc, const model_result *r, const model_cost *cost)
{
	row_in in = {.sc = sc, .r = r, .c = cost};
	col_csv_cells(w, cols, JUDGED, &in);
	col_csv_cells(w, cols + STACK, NCOLS - STACK, &in);
	csvw_end_row(w);
}

void plan_option_csv_header(csvw *w)
{
	col_csv_header(w, cols, NCOLS);
	csvw_end_row(w);
}

void plan_option_csv_row(csvw *w, const plan_question *q, const model_scenario *sc, const model_result *r,
			 const model_cost *cost, const plan_verdict *v, const model_scenario *pick_sc,
			 const model_result *pick_r)
{
	row_in o = {sc, r, cost, v, {NAN, NAN}, {NAN, NAN}, {NAN, NAN}, ""};
	strbuf fails;
	strbuf_init(&fails);
	if (v->fails)
		o.fails = plan_fails_text(q, v, &fails);
	for (int k = 0; pick_sc && k < 2; k++) /* this row's time over the pick's, with its 90% interval */
		plan_ratio(sc, r, pick_sc, pick_r, k ? MODEL_Q_TTA : MODEL_Q_TTT, &o.x[k], &o.lo[k], &o.hi[k]);
	col_csv_cells(w, cols, NCOLS, &o);
	csvw_end_row(w);
	strbuf_free(&fails);
}

const char *plan_power_basis(const model_scenario *sc, const model_cost *cost)
{
	if (!isfinite(cost->power_W))
		return "";
	/* without a figure for the node: (GPU TDP x G + CPU TDP x sockets) x power_overhead, labelled */
	return sc->node.power_basis ? sc->node.power_basis : "tdp-fallback";
}

/* predict's JSON object spaces its members ("name": value, ); common/json.c writes them. */
void plan_row_json(FILE *out, const model_scenario *sc, const model_result *r, const model_cost *cost)
{
	row_in in = {.sc = sc, .r = r, .c = cost};
	fputc('{', out);
	col_json_members(out, cols, JUDGED, &in, true, false);
	col_json_members(out, cols + STACK, NCOLS - STACK, &in, false, false);
	fputc('}', out);
}

void plan_row_json_run(FILE *out, const model_scenario *sc, const model_result *r)
{
	out_col run[NCOLS];
	int n = 0;
	for (int i = 0; i < NCOLS; i++)
		if (cols[i].only & ROW_RUN) {
			run[n] = cols[i];
			run[n++].only = 0;
		}
	row_in in = {.sc = sc, .r = r};
	col_json_members(out, run, n, &in, true, true);
}

void plan_row_columns_text(plan_row_set set, strbuf *out)
{
	int judged_at = JUDGED, stack_at = STACK, cells_end = CELLS_END;
	for (int i = 0; i < NCOLS; i++) {
		bool judged = i >= judged_at && i < stack_at;
		if ((cols[i].only && !(cols[i].only & COL_CSV)) || (set == PLAN_ROW_PREDICT && judged) ||
		    (set == PLAN_ROW_FIRST && i >= cells_end))
			continue;
		if (*cols[i].unit)
			strbuf_addf(out, "  %-26s %s\n", cols[i].name, cols[i].unit);
		else
			strbuf_addf(out, "  %s\n", cols[i].name);
	}
}
