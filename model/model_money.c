/* model_money.c: what a run costs - the cluster bought (servers, network, storage), what owning it costs
 * a run (capex share, support, facility, energy at the meter at a stated utilisation), rent as the clouds
 * bill it, the break-even against renting, and the ranges of all of these from the prices' ranges.
 * Pure arithmetic on model_node's prices (plan_resolve copies them from hwdb); every default cites its
 * source, and docs/prices.md explains the choices.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "model/model.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"


void model_money_default(model_money *m)
{
	/* about the U.S. commercial-sector average retail price of 2024, 12-13 cents/kWh (EIA Electric
	 * Power Monthly, table 5.6.B); a site's own tariff goes in with --kwh-price */
	m->kwh_usd = 0.13;
	/* straight line over 5 years: the useful life large operators give servers in their filings
	 * (Amazon 2024 10-K: 5 years for part of its servers from 2025, 6 before) */
	m->amortize_years = 5.0;
	m->runs_per_month = 0.0; /* the runs fill the utilised time */
	/* GPUs held by running jobs in a snapshot of Alibaba's production PAI cluster: 54% of 6,212 (the
	 * ATC'23 "Beware of Fragmentation" trace, as summed by affinode.io); a cluster is not busy all the
	 * time, and an idle hour is paid by the runs that are made */
	m->utilisation = 0.54;
	/* Uptime Institute Global Data Center Survey 2023: industry average PUE 1.58 (flat at 1.55-1.59
	 * since 2020; journal.uptimeinstitute.com, 2024-02-07); a purpose-built liquid-cooled hall does
	 * better: --pue */
	m->pue = 1.58;
	/* wholesale colocation, per kW of contracted IT power a month, power billed apart: 150-250 USD
	 * (v2-pseo-ai.pages.dev GPU TCO analysis, 2026; CBRE H2 2018: 120-140 USD for 250 kW turnkey) */
	m->facility_usd_kw_month = 200.0;
	/* assumption: a hardware support contract of 8% of the purchase a year (no public DGX support
	 * price list found); --support-frac */
	m->support_frac_year = 0.08;
	m->finance_rate = 0.0;   /* paid in cash */
	m->residual_frac = 0.0;  /* written off to nothing (resale 25-35% after 3 years is reported: --residual) */
}

int model_money_check(const model_money *m)
{
	if (!(m->kwh_usd >= 0 && m->kwh_usd <= 100))
		return err_set("kWh price %g: expected 0..100 USD", m->kwh_usd);
	if (!(m->amortize_years >= 0.1 && m->amortize_years <= 50))
		return err_set("amortisation %g years: expected 0.1..50", m->amortize_years);
	if (!(m->utilisation > 0 && m->utilisation <= 1))
		return err_set("utilisation %g: expected a fraction 0 < F <= 1", m->utilisation);
	if (!(m->pue >= 1 && m->pue <= 5))
		return err_set("PUE %g: expected 1..5 (facility power / IT power)", m->pue);
	if (!(m->facility_usd_kw_month >= 0 && m->facility_usd_kw_month <= 1e5))
		return err_set("facility %g USD per kW-month: expected 0..100000", m->facility_usd_kw_month);
	if (!(m->support_frac_year >= 0 && m->support_frac_year <= 1))
		return err_set("support %g of capex a year: expected a fraction 0..1", m->support_frac_year);
	if (!(m->finance_rate >= 0 && m->finance_rate <= 1))
		return err_set("financing rate %g a year: expected a fraction 0..1", m->finance_rate);
	if (!(m->residual_frac >= 0 && m->residual_frac < 1))
		return err_set("residual value %g of capex: expected a fraction 0 <= F < 1", m->residual_frac);
	return 0;
}

double model_price_width(const char *kind)
{
	/* docs/prices.md: a vendor list price or a quote is known to a few percent; a press figure or an
	 * analyst's to about a quarter; our own arithmetic wider */
	if (kind && (strcasecmp(kind, "list") == 0 || strcasecmp(kind, "quote") == 0))
		return 0.05;
	if (kind && strcasecmp(kind, "press") == 0)
		return 0.25;
	return 0.35;
}

long model_whole_units(long n, long unit)
{
	if (unit < 1)
		unit = 1;
	return (n + unit - 1) / unit * unit;
}

int model_nodes_bought(const model_scenario *sc)
{
	return (int)model_whole_units(sc->nodes, sc->node.unit_nodes);
}

/* Switches and links of a folded-Clos fat tree joining E ports on R-port switches, leaves o:1
 * oversubscribed: one switch for E <= R; else leaves of d = R o / (1 + o) down-ports whose E / o up-links
 * meet spines of R down-ports (two levels while the leaves are at most R), or an aggregation and a core
 * level (three levels: 2 U / R + U / R switches for U up-links, the non-blocking 5 E / R of a 3-level
 * fat tree; Al-Fares et al., SIGCOMM 2008). Links: one per port at each level. */
static void fat_tree(double E, int R, double o, double *switches, double *links)
{
	if (E <= R) {
		*switches = E > 0 ? 1 : 0;
		*links = E;
		return;
	}
	double d = floor(R * o / (1.0 + o));
	if (d < 1)
		d = 1;
	double leaves = ceil(E / d), up = ceil(E / o);
	if (leaves <= R) {
		*switches = leaves + ceil(up / R);
		*links = E + up;
		return;
	}
	*switches = leaves + ceil(up / (R / 2.0)) + ceil(up / R);
	*links = E + 2.0 * up;
}

/* The fabric between the nodes bought: NIC ports not in the server price, switches and links. 0 for one
 * node (nothing to join); 0 when the fabric is not priced (switch_ports 0). */
static double network_usd(const model_scenario *sc, int bought)
{
	const model_node *n = &sc->node;
	if (bought <= 1 || n->switch_ports < 2 || n->nics_per_node < 1)
		return 0.0;
	double E = (double)bought * n->nics_per_node, sw, links;
	fat_tree(E, n->switch_ports, n->oversubscription >= 1 ? n->oversubscription : 1.0, &sw, &links);
	double usd = sw * n->switch_usd + links * n->link_usd;
	if (!n->nics_in_price && isfinite(n->nic_usd))
		usd += E * n->nic_usd;
	return isfinite(usd) ? usd : 0.0;
}

/* Units of a shared store that hold the data set and read it at the job's first-epoch rate (throughput x
 * bytes per image; NAN throughput: capacity alone), at least one. 0 when the data set lives on the nodes'
 * own drives (in their price); NAN when the store is not priced. */
static double storage_usd(const model_scenario *sc, const model_params *p, const model_result *r)
{
	const model_node *n = &sc->node;
	if (!n->store_shared)
		return 0.0;
	if (!isfinite(n->store_unit_usd) || !(n->store_unit_B > 0))
		return NAN;
	double units = ceil(p->dataset_B / n->store_unit_B);
	double need_Bps = r->throughput_img_s * p->dataset_B / sc->images;
	if (n->store_unit_Bps > 0 && isfinite(need_Bps))
		units = fmax(units, ceil(need_Bps / n->store_unit_Bps));
	return fmax(units, 1.0) * n->store_unit_usd;
}

void model_run_capex(const model_scenario *sc, const model_params *p, model_result *r)
{
	const model_node *n = &sc->node;
	int per_unit = n->unit_nodes > 1 ? n->unit_nodes : 1;
	int bought = model_nodes_bought(sc);
	double units = (double)bought / per_unit;
	double lo, hi;

	if (isfinite(n->unit_price_usd)) {
		r->capex_servers_usd = units * n->unit_price_usd;
		lo = units * (isfinite(n->unit_price_lo_usd) ? n->unit_price_lo_usd : n->unit_price_usd);
		hi = units * (isfinite(n->unit_price_hi_usd) ? n->unit_price_hi_usd : n->unit_price_usd);
	} else { /* a node described by hand (tests, custom): per-node price or NAN */
		r->capex_servers_usd = lo = hi = n->price_usd * sc->nodes;
	}
	r->capex_network_usd = isfinite(r->capex_servers_usd) ? network_usd(sc, bought) : NAN;
	r->capex_storage_usd = isfinite(r->capex_servers_usd) ? storage_usd(sc, p, r) : NAN;
	double store = isfinite(r->capex_storage_usd) ? r->capex_storage_usd : 0.0;
	r->capex_usd = r->capex_servers_usd + r->capex_network_usd + store;
	r->capex_lo_usd = lo + r->capex_network_usd * (1.0 - n->net_width) + store * (1.0 - n->store_width);
	r->capex_hi_usd = hi + r->capex_network_usd * (1.0 + n->net_width) + store * (1.0 + n->store_width);
}

/* The GPUs billed (whole instances of the node's GPUs, whole minimum units) and the rent of tta_s at the
 * rate, as billed: at least rent_min_s, rounded up to the increment; above rent_max_gpus the provider's
 * cluster rate and increment (NAN where there is none). */
static double rent_billed(const model_scenario *sc, double rate, double tta_s, double *gpus_out)
{
	const model_node *n = &sc->node;
	int per_node = n->max_gpus_per_node > 0 ? n->max_gpus_per_node : n->gpus_per_node;
	int unit = n->rent_unit_gpus > per_node ? n->rent_unit_gpus : per_node;
	double gpus = (double)model_whole_units((long)sc->nodes * per_node, unit);
	double inc = n->rent_increment_s, t = tta_s;

	*gpus_out = gpus;
	if (n->rent_max_gpus > 0 && gpus > n->rent_max_gpus) {
		rate = n->rent_cluster_usd_gpu_h;
		inc = n->rent_cluster_increment_s;
	}
	if (isfinite(n->rent_min_s))
		t = fmax(t, n->rent_min_s);
	if (inc > 0)
		t = ceil(t / inc * (1.0 - 1e-12)) * inc;
	return gpus * rate * t / 3600.0;
}

/* The capex's cost a month: straight line less the residual value, or with a financing rate the annuity
 * that repays capex less the residual's present value (the capital recovery factor). */
static double capex_month(const model_money *m, double capex)
{
	double N = m->amortize_years * 12.0, rr = m->finance_rate / 12.0, res = m->residual_frac * capex;
	if (!(rr > 0))
		return (capex - res) / N;
	return (capex - res / pow(1.0 + rr, N)) * rr / (1.0 - pow(1.0 + rr, -N));
}

/* The owner's fixed cost a month per dollar of capex: capex share and support. Both are linear in the capex
 * (capex_month of c is c x capex_month of 1), so one factor prices the capex and both ends of its range. */
static double fixed_month_per_usd(const model_money *m)
{
	return capex_month(m, 1.0) + m->support_frac_year / 12.0;
}

void model_run_money(const model_scenario *sc, model_result *r)
{
	const model_money *m = &sc->money;
	const model_node *n = &sc->node;

	r->energy_usd = r->energy_J / 3.6e6 * m->pue * m->kwh_usd;
	r->rent_usd = rent_billed(sc, n->rent_usd_gpu_h, r->tta_s, &r->rent_gpus);
	r->rent_lo_usd = r->rent_usd * (1.0 - n->rent_width);
	r->rent_hi_usd = r->rent_usd * (1.0 + n->rent_width);
	/* each run pays the month's fixed cost in the proportion of the month's runs it is: 1 of
	 * runs_per_month, else its share of the utilised time */
	double share = m->runs_per_month > 0 ? 1.0 / m->runs_per_month : r->tta_s / (m->utilisation * MODEL_MONTH_S);
	/* no more runs fit a month than its wall clock holds back to back: never below that share */
	share = fmax(share, r->tta_s / MODEL_MONTH_S);
	double energy = isfinite(r->energy_usd) ? r->energy_usd : 0.0;
	double per_usd = fixed_month_per_usd(m);
	double fac_m = isfinite(r->power_max_W) ? m->facility_usd_kw_month * r->power_max_W / 1e3 : 0.0;
	double fix = r->capex_usd * per_usd + fac_m;
	r->support_usd = isfinite(r->capex_usd) ? m->support_frac_year * r->capex_usd / 12.0 * share : NAN;
	r->facility_usd = isfinite(r->capex_usd) ? fac_m * share : NAN;
	r->tco_usd = fix * share + energy;
	r->tco_lo_usd = (r->capex_lo_usd * per_usd + fac_m) * share + energy;
	r->tco_hi_usd = (r->capex_hi_usd * per_usd + fac_m) * share + energy;
	/* owning N runs a month costs fix + N x energy, renting the same GPUs N x rent: equal at N* */
	r->breakeven_runs_per_month = NAN;
	double rent = model_ref_rent_usd(sc, r);
	if (isfinite(fix) && isfinite(rent))
		r->breakeven_runs_per_month = rent > energy ? fix / (rent - energy) : INFINITY;
}

double model_ref_rent_usd(const model_scenario *sc, const model_result *r)
{
	const model_node *n = &sc->node;
	if (!isfinite(n->ref_rent_usd_gpu_h) || n->ref_rent_gpus <= 0)
		return NAN;
	double gpus = ceil((double)r->gpus / n->ref_rent_gpus) * n->ref_rent_gpus;
	return gpus * n->ref_rent_usd_gpu_h * r->tta_s / 3600.0;
}

const char *model_sens_name(model_sens_input i)
{
	static const char *const names[MODEL_SENS_N] = {"prices", "speed", "utilisation", "kWh price", "PUE"};
	return (unsigned)i < MODEL_SENS_N ? names[i] : "?";
}

/* The run's cost (owner's per run, or rent) after model_run_money on a changed copy. */
static double cost_of(const model_scenario *sc, const model_result *r, bool rent)
{
	model_result x = *r;
	model_run_money(sc, &x);
	return rent ? x.rent_usd : x.tco_usd;
}

void model_money_sensitivity(const model_scenario *sc, const model_result *r, double speed_err, bool rent,
			     model_sens out[MODEL_SENS_N])
{
	model_scenario s = *sc;
	model_result x = *r;
	const model_money *m = &sc->money;

	/* prices: each at the low and the high end of its range */
	out[MODEL_SENS_PRICE].lo_in = rent ? r->rent_lo_usd : r->capex_lo_usd;
	out[MODEL_SENS_PRICE].hi_in = rent ? r->rent_hi_usd : r->capex_hi_usd;
	out[MODEL_SENS_PRICE].lo_usd = rent ? r->rent_lo_usd : r->tco_lo_usd;
	out[MODEL_SENS_PRICE].hi_usd = rent ? r->rent_hi_usd : r->tco_hi_usd;
	/* speed: the run (and its energy) shorter and longer by the prediction's error */
	for (int k = 0; k < 2; k++) {
		double f = k == 0 ? 1.0 - speed_err : 1.0 + speed_err;
		x = *r;
		x.tta_s = r->tta_s * f;
		x.energy_J = r->energy_J * f;
		*(k == 0 ? &out[MODEL_SENS_SPEED].lo_in : &out[MODEL_SENS_SPEED].hi_in) = x.tta_s;
		*(k == 0 ? &out[MODEL_SENS_SPEED].lo_usd : &out[MODEL_SENS_SPEED].hi_usd) = cost_of(sc, &x, rent);
	}
	/* the site's inputs: utilisation half to one and a half times (at most 1), kWh price half to one and a
	 * half times, PUE 1.1 (a hyperscale hall; Uptime Institute 2023) to 1.8 (an older room) */
	double in[3][2] = {{m->utilisation / 2.0, fmin(1.0, m->utilisation * 1.5)},
			   {m->kwh_usd / 2.0, m->kwh_usd * 1.5},
			   {fmin(1.1, m->pue), fmax(1.8, m->pue)}};
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 2; k++) {
			s = *sc;
			double v = in[i][k];
			if (i == 0)
				s.money.utilisation = v;
			else if (i == 1)
				s.money.kwh_usd = v;
			else
				s.money.pue = v;
			model_sens *o = &out[MODEL_SENS_UTIL + i];
			*(k == 0 ? &o->lo_in : &o->hi_in) = v;
			*(k == 0 ? &o->lo_usd : &o->hi_usd) = cost_of(&s, r, rent);
		}
}
