/* plan_row.c: one prediction as a row - the CSV columns predict, sim, compare, sweep and report write (the
 * names in docs/design.md first, the extras after, stack last: readers keep their positions) and predict's
 * and sim's JSON object of the same values.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>

#include "common/common.h"
#include "plan/plan_internal.h"

void plan_row_csv_header_cells(csvw *w)
{
	static const char *cols[] = {
		"system", "gpu", "nodes", "gpus_per_node", "gpus", "batch_per_gpu", "global_batch", "precision",
		"throughput_img_s", "per_gpu_img_s", "scaling_eff", "iter_s", "compute_s", "comm_s", "comm_exposed_s",
		"data_s", "io_s", "bottleneck", "epochs", "epoch_s", "tta_s", "ttt_s",
		/* extras */
		"first_epoch_s", "eval_s", "startup_s", "staging_s", "boundary_s", "warmup_s", "data", "fits", "mem_per_gpu_B", "capex_usd", "power_W", "energy_J", "compute_cal",
		"energy_usd", "rent_usd", "tco_usd", "nvlink_domain_gpus", "extrapolated",
		/* the whole cluster's cost */
		"capex_servers_usd", "capex_network_usd", "capex_storage_usd", "pue", "facility_usd", "support_usd",
		"utilisation", "power_basis", "rent_gpus", "breakeven_runs_per_month", "capex_lo_usd", "capex_hi_usd",
		"tco_lo_usd", "tco_hi_usd", "rent_lo_usd", "rent_hi_usd",
	};
	for (unsigned i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		csvw_text(w, cols[i]);
}

/* How the GPU is known and the 90% intervals: after the cells sim shares, before stack. */
static const char *const all_extra_cols[] = {"basis", "ttt_lo_s", "ttt_hi_s", "tta_lo_s", "tta_hi_s",
					     "throughput_lo_img_s", "throughput_hi_img_s", "extrapolated_below"};

/* Money columns after those (docs/prices.md), one list for the CSV and the JSON: names, then the values
 * in the same order. */
static const char *const money_cols[] = {"rent_setup_s", "owned_usd_per_gpu_hour", "capex_fabric_usd", "capex_frontend_usd",
					  "capex_racks_usd", "capex_cooling_usd", "capex_install_usd", "breakeven_use",
					  "buy_wins_above", "flip_usd_per_gpu_hour", "owned_month_usd", "rented_month_usd",
					  "co2_kg"};
enum { MONEY_NCOLS = sizeof(money_cols) / sizeof(money_cols[0]) };

static void money_values(const model_result *r, double v[MONEY_NCOLS])
{
	v[0] = r->rent_setup_s;
	v[1] = r->owned_usd_gpu_h;
	v[2] = r->capex_fabric_usd;
	v[3] = r->capex_frontend_usd;
	v[4] = r->capex_racks_usd;
	v[5] = r->capex_cooling_usd;
	v[6] = r->capex_install_usd;
	/* buy vs rent as a month of work against the reference rate (model_buy_rent_eval) */
	v[7] = r->breakeven_use;
	v[8] = isfinite(r->breakeven_use) ? (double)r->buy_wins_above : NAN;
	v[9] = r->flip_usd_gpu_h;
	v[10] = r->owned_month_usd;
	v[11] = r->rented_month_usd;
	v[12] = r->co2_kg;
}

void plan_row_csv_header_all(csvw *w)
{
	plan_row_csv_header_cells(w);
	for (unsigned i = 0; i < sizeof(all_extra_cols) / sizeof(all_extra_cols[0]); i++)
		csvw_text(w, all_extra_cols[i]);
	for (int i = 0; i < MONEY_NCOLS; i++)
		csvw_text(w, money_cols[i]);
}

void plan_row_csv_header(csvw *w)
{
	plan_row_csv_header_all(w);
	csvw_text(w, "stack"); /* columns added later go before it (README): readers keep their positions */
	csvw_end_row(w);
}

void plan_row_csv_cells(csvw *w, const model_scenario *sc, const model_result *r)
{
	csvw_text(w, sc->node.system_id);
	csvw_text(w, sc->node.gpu_id);
	csvw_int(w, sc->nodes);
	csvw_int(w, sc->node.gpus_per_node);
	csvw_int(w, r->gpus);
	csvw_int(w, sc->batch_per_gpu);
	csvw_int(w, r->global_batch);
	csvw_text(w, model_precision_name(sc->precision));
	csvw_num(w, r->throughput_img_s, 6);
	csvw_num(w, r->per_gpu_img_s, 6);
	csvw_num(w, r->scaling_eff, 4);
	csvw_num(w, r->iter_s, 6);
	csvw_num(w, r->compute_s, 6);
	csvw_num(w, r->comm_s, 6);
	csvw_num(w, r->comm_exposed_s, 6);
	csvw_num(w, r->data_s, 6);
	csvw_num(w, r->io_s, 6);
	csvw_text(w, r->fits ? model_bottleneck_name(r->bottleneck) : "memory");
	csvw_num(w, r->epochs, 4);
	csvw_num(w, r->epoch_s, 6);
	csvw_num(w, r->tta_s, 6);
	csvw_num(w, r->ttt_s, 6);
	csvw_num(w, r->first_epoch_s, 6);
	csvw_num(w, r->eval_s, 6);
	csvw_num(w, r->startup_s, 6);
	csvw_num(w, r->staging_s, 6);
	csvw_num(w, r->boundary_s, 6);
	csvw_num(w, r->warmup_s, 6);
	csvw_text(w, model_data_name(sc->data));
	csvw_int(w, r->fits ? 1 : 0);
	csvw_num(w, r->mem_per_gpu_B, 6);
	csvw_num(w, r->capex_usd, 8);
	csvw_num(w, r->power_W, 6);
	csvw_num(w, r->energy_J, 6);
	csvw_num(w, sc->compute_cal, 6);
	csvw_num(w, r->energy_usd, 6);
	csvw_num(w, r->rent_usd, 8);
	csvw_num(w, r->tco_usd, 8);
	csvw_int(w, model_domain_gpus(sc));
	csvw_int(w, r->extrapolated ? 1 : 0);
	csvw_num(w, r->capex_servers_usd, 8);
	csvw_num(w, r->capex_network_usd, 8);
	csvw_num(w, r->capex_storage_usd, 8);
	csvw_num(w, sc->money.pue, 4);
	csvw_num(w, r->facility_usd, 6);
	csvw_num(w, r->support_usd, 6);
	csvw_num(w, sc->money.utilisation, 4);
	csvw_text(w, plan_power_basis(sc, r));
	csvw_num(w, r->rent_gpus, 8);
	csvw_num(w, r->breakeven_runs_per_month, 6);
	csvw_num(w, r->capex_lo_usd, 8);
	csvw_num(w, r->capex_hi_usd, 8);
	csvw_num(w, r->tco_lo_usd, 8);
	csvw_num(w, r->tco_hi_usd, 8);
	csvw_num(w, r->rent_lo_usd, 8);
	csvw_num(w, r->rent_hi_usd, 8);
}

const char *plan_power_basis(const model_scenario *sc, const model_result *r)
{
	if (!isfinite(r->power_W))
		return "";
	/* without a figure for the node: (GPU TDP x G + CPU TDP x sockets) x power_overhead, labelled */
	return sc->node.power_basis ? sc->node.power_basis : "tdp-fallback";
}

void plan_row_csv_cells_all(csvw *w, const model_scenario *sc, const model_result *r)
{
	plan_row_csv_cells(w, sc, r);
	csvw_text(w, model_basis_name(r->basis));
	csvw_num(w, r->ttt_lo_s, 6);
	csvw_num(w, r->ttt_hi_s, 6);
	csvw_num(w, r->tta_lo_s, 6);
	csvw_num(w, r->tta_hi_s, 6);
	csvw_num(w, r->throughput_lo_img_s, 6);
	csvw_num(w, r->throughput_hi_img_s, 6);
	csvw_int(w, r->extrapolated_below ? 1 : 0);
	double v[MONEY_NCOLS];
	money_values(r, v);
	for (int i = 0; i < MONEY_NCOLS; i++)
		csvw_num(w, v[i], 8);
}

void plan_row_csv(csvw *w, const model_scenario *sc, const model_result *r)
{
	plan_row_csv_cells_all(w, sc, r);
	csvw_text(w, sc->stack.id);
	csvw_end_row(w);
}

/* predict's JSON object spaces its members ("name": value, ); common/json.c writes them. */
static void jnum(FILE *out, const char *name, double v, bool comma)
{
	json_member_num(out, name, v, comma, false);
}

static void jstr(FILE *out, const char *name, const char *v)
{
	json_member_str(out, name, v, true, false);
}

void plan_row_json(FILE *out, const model_scenario *sc, const model_result *r)
{
	fputc('{', out);
	jstr(out, "system", sc->node.system_id);
	jstr(out, "gpu", sc->node.gpu_id);
	fprintf(out, "\"nodes\": %d, \"gpus_per_node\": %d, \"gpus\": %d, \"batch_per_gpu\": %d, \"global_batch\": %d, ",
		sc->nodes, sc->node.gpus_per_node, r->gpus, sc->batch_per_gpu, r->global_batch);
	jstr(out, "precision", model_precision_name(sc->precision));
	jnum(out, "throughput_img_s", r->throughput_img_s, true);
	jnum(out, "per_gpu_img_s", r->per_gpu_img_s, true);
	jnum(out, "scaling_eff", r->scaling_eff, true);
	jnum(out, "iter_s", r->iter_s, true);
	jnum(out, "compute_s", r->compute_s, true);
	jnum(out, "comm_s", r->comm_s, true);
	jnum(out, "comm_exposed_s", r->comm_exposed_s, true);
	jnum(out, "data_s", r->data_s, true);
	jnum(out, "io_s", r->io_s, true);
	jstr(out, "bottleneck", r->fits ? model_bottleneck_name(r->bottleneck) : "memory");
	jnum(out, "epochs", r->epochs, true);
	jnum(out, "epoch_s", r->epoch_s, true);
	jnum(out, "tta_s", r->tta_s, true);
	jnum(out, "ttt_s", r->ttt_s, true);
	jnum(out, "first_epoch_s", r->first_epoch_s, true);
	jnum(out, "eval_s", r->eval_s, true);
	jnum(out, "startup_s", r->startup_s, true);
	jnum(out, "staging_s", r->staging_s, true);
	jnum(out, "boundary_s", r->boundary_s, true);
	jnum(out, "warmup_s", r->warmup_s, true);
	jstr(out, "data", model_data_name(sc->data));
	fprintf(out, "\"fits\": %s, ", r->fits ? "true" : "false");
	jnum(out, "mem_per_gpu_B", r->mem_per_gpu_B, true);
	jnum(out, "capex_usd", r->capex_usd, true);
	jnum(out, "power_W", r->power_W, true);
	jnum(out, "energy_J", r->energy_J, true);
	jnum(out, "compute_cal", sc->compute_cal, true);
	jnum(out, "energy_usd", r->energy_usd, true);
	jnum(out, "rent_usd", r->rent_usd, true);
	jnum(out, "tco_usd", r->tco_usd, true);
	jnum(out, "capex_servers_usd", r->capex_servers_usd, true);
	jnum(out, "capex_network_usd", r->capex_network_usd, true);
	jnum(out, "capex_storage_usd", r->capex_storage_usd, true);
	jnum(out, "pue", sc->money.pue, true);
	jnum(out, "facility_usd", r->facility_usd, true);
	jnum(out, "support_usd", r->support_usd, true);
	jnum(out, "utilisation", sc->money.utilisation, true);
	jstr(out, "power_basis", plan_power_basis(sc, r));
	jnum(out, "rent_gpus", r->rent_gpus, true);
	jnum(out, "breakeven_runs_per_month", r->breakeven_runs_per_month, true);
	jnum(out, "capex_lo_usd", r->capex_lo_usd, true);
	jnum(out, "capex_hi_usd", r->capex_hi_usd, true);
	jnum(out, "tco_lo_usd", r->tco_lo_usd, true);
	jnum(out, "tco_hi_usd", r->tco_hi_usd, true);
	jnum(out, "rent_lo_usd", r->rent_lo_usd, true);
	jnum(out, "rent_hi_usd", r->rent_hi_usd, true);
	fprintf(out, "\"nvlink_domain_gpus\": %d, \"extrapolated\": %s, ", model_domain_gpus(sc),
		r->extrapolated ? "true" : "false");
	jstr(out, "basis", model_basis_name(r->basis));
	jnum(out, "ttt_lo_s", r->ttt_lo_s, true);
	jnum(out, "ttt_hi_s", r->ttt_hi_s, true);
	jnum(out, "tta_lo_s", r->tta_lo_s, true);
	jnum(out, "tta_hi_s", r->tta_hi_s, true);
	jnum(out, "throughput_lo_img_s", r->throughput_lo_img_s, true);
	jnum(out, "throughput_hi_img_s", r->throughput_hi_img_s, true);
	fprintf(out, "\"extrapolated_below\": %s, ", r->extrapolated_below ? "true" : "false");
	double v[MONEY_NCOLS];
	money_values(r, v);
	for (int i = 0; i < MONEY_NCOLS; i++)
		jnum(out, money_cols[i], v[i], true);
	jstr(out, "stack", sc->stack.id);
	fprintf(out, "\"staged\": %s", sc->stack.staged ? "true" : "false");
	fputc('}', out);
}
