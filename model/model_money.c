/* model_money.c: what a run costs - the cluster bought (servers, network, storage), what owning it costs
 * a run (capex share, support, facility, energy at the meter at a stated utilisation), rent as the clouds
 * bill it, the break-even against renting, and the ranges of all of these from the prices' ranges.
 * model_price_run prices a prediction (model_result's times) into model_cost; pure arithmetic on model_price
 * (plan_resolve copies it from hwdb) and model_money; every default cites its source, and docs/prices.md
 * explains the choices.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "model/model_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"


#define MF(f) #f, offsetof(model_money, f)

/* One row per input; the comment above a row says more about its source where the row has no room. */
static const model_money_input inputs[] = {
	/* what a 2026 AI hall pays on a negotiated industrial tariff, not the all-sector commercial average (EIA's
	 * U.S. commercial 2024, 12-13 cents, was the default before); a site's own tariff goes in with --kwh-price */
	{MF(kwh_usd), "kwh-price", "USD", "electricity per kWh", "USD per kWh", 0.08, 0, 100, false, false, 1,
	 "a price per kWh in USD, 0..100 (e.g. 0.13)",
	 "AI data centres' blended cost 2026 about 0.065-0.090 USD per kWh before PUE (research-viewer.pages.dev "
	 "'Terrestrial data center energy cost', 2026; U.S. industrial 2025 about 0.06 in Iowa and Texas); about 0.08 "
	 "(aiinframap.com; docs/money_public.csv)"},
	/* a new GPU hall, liquid-cooled (a GB200 NVL72 needs it), not the all-data-centre average of 1.58 (Uptime
	 * Institute 2023, the default before) */
	{MF(pue), "pue", "P", "facility power / IT power (PUE)", "", 1.2, 1, 5, false, false, 1,
	 "a power usage effectiveness 1..5 (e.g. 1.58)",
	 "new data centres: PUE at most 1.2 (Germany's Energy Efficiency Act, 2023, as reported by Data Center World "
	 "Brasil, 2026); liquid-cooled AI halls 1.05-1.15 (ETDatacenters, 2026-05-15); industry average 1.55-1.58"},
	/* wholesale colocation, per kW of contracted IT power a month, power billed apart */
	{MF(facility_usd_kw_month), "facility-price", "USD", "colocation per kW of node max power a month",
	 "USD per kW-month", 200.0, 0, 1e5, false, false, 1, "USD per kW-month, 0..100000 (e.g. 180)",
	 "wholesale colocation 150-250 USD per kW-month (v2-pseo-ai.pages.dev GPU TCO analysis, 2026; CBRE H2 2018: "
	 "120-140 for 250 kW turnkey)"},
	{MF(support_frac_year), "support-frac", "F", "support contract a year as a fraction of capex", "fraction a year",
	 0.08, 0, 1, false, false, 1, "a fraction of capex a year, 0..1 (e.g. 0.1)",
	 "assumption: no public DGX support price list found"},
	/* a cluster is not busy all the time, and an idle hour is paid by the runs that are made */
	{MF(utilisation), "utilisation", "F", "fraction of the time the owned cluster does paid work", "fraction", 0.54,
	 0, 1, true, false, 1, "a fraction 0 < F <= 1 (e.g. 0.6)",
	 "GPUs held by running jobs in Alibaba's PAI trace, 54% of 6,212 (ATC'23 'Beware of Fragmentation', as summed "
	 "by affinode.io)"},
	/* straight line over the useful life large operators give servers in their filings */
	{MF(amortize_years), "amortize-years", "Y", "capex written off over", "years", 5.0, 0.1, 50, false, false, 1,
	 "years, 0.1..50", "Amazon 2024 10-K: 5 years for part of its servers from 2025, 6 before"},
	/* the cost of capital: money in servers is money not earning elsewhere; 0 for money that earns nothing */
	{MF(finance_rate), "finance-rate", "R", "cost of capital a year on the capex", "fraction a year", 0.08, 0, 1,
	 false, false, 1, "a yearly rate 0..1 (e.g. 0.07)",
	 "U.S. industries' weighted average cost of capital, most 6-10% (Damodaran, Cost of Equity and Capital (US), "
	 "January 2026; pre-tax cost of debt 5.29%)"},
	/* the midpoint of an H100's 10-15% in year 5, taken for the whole capex */
	{MF(residual_frac), "residual", "F", "resale value at the end as a fraction of capex", "fraction", 0.125, 0, 1,
	 false, true, 1, "a fraction of capex 0 <= F < 1 (e.g. 0.3)",
	 "GPU Lease Rate Index secondary-market analysis, 500+ transactions (v2-pseo-ai.pages.dev H100 depreciation "
	 "guide, 2026-01-08): 10-15% kept in year 5, 60-65% after 1, 25-35% after 3"},
	{MF(runs_per_month), "runs-per-month", "N", "runs a month the owner's fixed cost is spread over (0: the "
	 "utilised time)", "runs a month", 0.0, 0, 1e6, false, false, 1, "runs a month, 0.001..1000000",
	 "the reader's plan; at most the runs that fit the utilised wall clock of a month"},
	/* no public figure for how buyers batch; a day makes the start-up and copy 0.4% of an 8-GPU node's bill */
	{MF(rent_session_s), "rent-session-h", "H", "on demand: instances held for back-to-back runs, the start-up "
	 "and data copy paid once (0: each run rented alone)", "hours", 86400.0, 0, 744, false, false, 3600,
	 "hours 0..744 (0: each run rented alone)", "assumption: a rented cluster held a day at a time for a queue of runs"},
	/* CO2 alone; the other gases add about 1% */
	{MF(grid_kg_kwh), "grid-carbon", "KG", "grid carbon intensity at the meter", "kg CO2e per kWh", 0.39, 0, 2,
	 false, false, 1, "kg CO2e per kWh, 0..2 (e.g. 0.2)",
	 "EIA FAQ 'How much carbon dioxide is produced per kilowatthour of U.S. electricity generation?': 2022, 0.86 "
	 "lb per kWh, all sources"},
	/* a ResNet-50 shop needs less: 0 for the data set's copies alone */
	{MF(store_TB_gpu), "store-tb-per-gpu", "TB", "shared flash store a cluster buys per GPU sold", "TB per GPU",
	 15.5, 0, 1000, false, false, 1, "TB per GPU, 0..1000 (e.g. 2)",
	 "2026 training clusters: 10 PB data-set lake, 5 PB checkpoints, 0.5 PB models per 1,000 GPUs "
	 "(manishklach.github.io, 'Storage geometry of a 100k-GPU cluster')"},
	/* H100 rent fell from about 8 (2023) to about 2 (2025) USD per GPU-hour at the market, 50% a year, and AWS
	 * cut its P5 list rate by about 44% in June 2025, two years after launch: 1 - 0.56^(1/2) = 25% a year. The
	 * default is the slower of the two: a list price's cut, not the market's fall from a scarcity peak
	 * (costs.xlsx carries the same factor: rent_horizon_x) */
	{MF(rent_decline), "rent-decline", "F", "the market's rent falls a year over the horizon (0: today's rate)",
	 "fraction a year", 0.25, 0, 1, false, true, 1, "a fraction a year 0 <= F < 1 (e.g. 0.25)",
	 "history: AWS P5 list cut about 44% in June 2025, two years after launch (25% a year, the default; "
	 "docs/money_public.csv); H100 about 8 (2023) to about 2 (2025) USD per GPU-hour at the market (50% a year)"},
	/* ---- the cluster's parts: no option (an overlay or the workbook changes them) ---- */
	/* the DGX H100 has 2 dual-port ConnectX-7 cards for front-end, storage and in-band management beside its
	 * 8 compute NICs, a GB200 compute tray one dual-port BlueField-3 for its 4 GPUs */
	{MF(frontend_ports_gpu), NULL, NULL, "front-end and storage network ports per GPU sold", "ports", 0.5, 0, 100,
	 false, false, 1, "", "NVIDIA DGX H100 datasheet (2 dual-port CX-7 beside 8 compute NICs); GB200 tray "
	 "(BlueField-3 for 4 GPUs)"},
	/* 1,320 USD of optics and cable and a port on a leaf and on a spine of 64-port switches of 36,000 USD:
	 * an estimate, +-35% */
	{MF(frontend_port_usd), NULL, NULL, "one front-end port with its share of leaf and spine", "USD",
	 1320.0 + 2.0 * 36000.0 / 64.0, 0, 1e6, false, false, 1, "",
	 "the 2024 cost spreadsheet's 400 Gb/s figures (tech-talk-cto, 2024-08)"},
	{MF(mgmt_usd_node), NULL, NULL, "out-of-band management per node", "USD", 250.0, 0, 1e6, false, false, 1, "",
	 "assumption: two 1 GbE ports a node on 48-port switches of about 5,000 USD (no public figure found)"},
	{MF(store_usd_TB), NULL, NULL, "shared store (flash) per TB", "USD per TB", 220.0, 0, 1e6, false, false, 1, "",
	 "aijourn.com 'The 35 billion blind spot' (2026): a 122.88 TB QLC NVMe SSD about 27,000 USD"},
	{MF(store_replicas), NULL, NULL, "copies of the data set the store keeps (at least)", "copies", 3.0, 1, 100,
	 false, false, 1, "", "Ceph's default replicated pool size (docs.ceph.com, osd_pool_default_size = 3)"},
	{MF(rack_usd), NULL, NULL, "one rack with its power distribution", "USD", 6000.0, 0, 1e6, false, false, 1, "",
	 "assumption: a 42U rack with two metered 3-phase PDUs (no public price list found)"},
	{MF(rack_W), NULL, NULL, "IT power one rack holds", "W", 40e3, 1, 1e7, false, false, 1, "",
	 "NVIDIA DGX SuperPOD H100 reference: four DGX H100 of 10.2 kW a rack"},
	/* analysts put a GB200 NVL72 rack's liquid cooling in the tens of thousands of USD */
	{MF(cooling_usd_W), NULL, NULL, "liquid-cooling distribution per W of a liquid-cooled system", "USD per W", 0.4,
	 0, 100, false, false, 1, "", "assumption: coolant distribution units and secondary loop (no public price list "
	 "found)"},
	{MF(install_frac), NULL, NULL, "installation, cabling and acceptance as a fraction of the hardware", "fraction",
	 0.02, 0, 1, false, false, 1, "", "assumption: no public figure found"},
	{MF(spot_interrupt_month), NULL, NULL, "chance a spot instance is interrupted in a month", "fraction", 0.05, 0,
	 1, false, true, 1, "", "AWS EC2 Spot best practices: average interruption frequency below 5% (Spot Instance "
	 "Advisor)"},
	/* EC2 bills from the running state; an 8-GPU node's boot, drivers and fabric check take minutes */
	{MF(rent_boot_s), NULL, NULL, "rented instances: request to ready to run, billed", "s", 300.0, 0, 86400, false,
	 false, 1, "", "assumption: EC2 bills from the running state (martysweet.co.uk 'EC2 Launch Times', 2023-10); "
	 "no public figure for an 8-GPU node"},
	{MF(rent_copy_Bps), NULL, NULL, "rented node: copy of the data set from the provider's object store", "B/s",
	 100e9 / 8.0, 0, 1e15, true, false, 1, "",
	 "Amazon S3 performance guidelines: up to 100 Gb/s per EC2 instance in the same region"},
};
enum { NINPUTS = sizeof inputs / sizeof inputs[0] };

const model_money_input *model_money_inputs(int *n)
{
	*n = NINPUTS;
	return inputs;
}

const model_money_input *model_money_input_find(const char *flag)
{
	for (int i = 0; i < NINPUTS; i++)
		if (inputs[i].flag && strcmp(inputs[i].flag, flag) == 0)
			return &inputs[i];
	return NULL;
}

static double *field(model_money *m, const model_money_input *in)
{
	return (double *)((char *)m + in->off);
}

double model_money_get(const model_money *m, const model_money_input *in)
{
	return *(const double *)((const char *)m + in->off) / in->scale;
}

void model_money_default(model_money *m)
{
	memset(m, 0, sizeof *m);
	for (int i = 0; i < NINPUTS; i++)
		*field(m, &inputs[i]) = inputs[i].def;
}

int model_money_check(const model_money *m)
{
	for (int i = 0; i < NINPUTS; i++) {
		const model_money_input *in = &inputs[i];
		double v = model_money_get(m, in);
		bool lo_ok = in->open_lo ? v > in->lo : v >= in->lo, hi_ok = in->open_hi ? v < in->hi : v <= in->hi;
		if (!(lo_ok && hi_ok))
			return err_set("%s %g%s%s: expected %s%g..%g%s", in->label, v, *in->unit ? " " : "", in->unit,
				       in->open_lo ? "above " : "", in->lo, in->hi, in->open_hi ? " (not the end)" : "");
	}
	return 0;
}

/* docs/prices.md: a vendor list price or a quote is known to a few percent; a press figure or an analyst's to
 * about a quarter; our own arithmetic wider */
#define PRICE_WIDTH_LIST 0.05
#define PRICE_WIDTH_PRESS 0.25
#define PRICE_WIDTH_ESTIMATE 0.35

double model_price_width(const char *kind)
{
	if (kind && (strcasecmp(kind, "list") == 0 || strcasecmp(kind, "quote") == 0))
		return PRICE_WIDTH_LIST;
	if (kind && strcasecmp(kind, "press") == 0)
		return PRICE_WIDTH_PRESS;
	return PRICE_WIDTH_ESTIMATE;
}

void model_price_init(model_price *pr)
{
	memset(pr, 0, sizeof *pr);
	pr->price_usd = pr->unit_price_usd = pr->unit_price_lo_usd = pr->unit_price_hi_usd = NAN;
	pr->power_sold_W = NAN;
	pr->nics_in_price = true;
	pr->switch_usd = pr->link_usd = pr->nic_usd = NAN;
	pr->store_unit_usd = pr->store_unit_B = pr->store_unit_Bps = NAN;
	pr->rent_usd_gpu_h = pr->rent_increment_s = pr->rent_min_s = NAN;
	pr->rent_cluster_usd_gpu_h = pr->rent_cluster_increment_s = pr->rent_market_usd_gpu_h = NAN;
	pr->ref_rent_usd_gpu_h = pr->ref_rent_market_usd_gpu_h = NAN;
}

long model_whole_units(long n, long unit)
{
	if (unit < 1)
		unit = 1;
	return (n + unit - 1) / unit * unit;
}

int model_nodes_bought(const model_scenario *sc)
{
	return (int)model_whole_units(sc->nodes, sc->price.unit_nodes);
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

void model_fabric_parts(const model_scenario *sc, double *switches, double *links, double *nic_ports)
{
	const model_node *n = &sc->node;
	const model_price *pr = &sc->price;
	int bought = model_nodes_bought(sc);
	int nics = pr->nics_bought > 0 ? pr->nics_bought : n->nics_per_node;
	*switches = *links = *nic_ports = 0.0;
	if (bought <= 1 || pr->switch_ports < 2 || nics < 1 || model_domain_gpus(sc) >= sc->nodes * n->gpus_per_node)
		return;
	double E = (double)bought * nics;
	fat_tree(E, pr->switch_ports, pr->oversubscription >= 1 ? pr->oversubscription : 1.0, switches, links);
	*nic_ports = !pr->nics_in_price && isfinite(pr->nic_usd) ? E : 0.0;
}

/* The compute fabric between the nodes bought: NIC ports not in the server price, switches and links, for
 * every NIC the nodes have as sold (model_fabric_parts). 0 when the fabric is not priced. */
static double fabric_usd(const model_scenario *sc)
{
	const model_price *pr = &sc->price;
	double sw, links, nics;
	model_fabric_parts(sc, &sw, &links, &nics);
	if (sw + links + nics == 0)
		return 0.0;
	double usd = sw * pr->switch_usd + links * pr->link_usd + (nics > 0 ? nics * pr->nic_usd : 0.0);
	return isfinite(usd) ? usd : 0.0;
}

double model_store_units(const model_scenario *sc, const model_params *p, const model_result *r)
{
	const model_price *pr = &sc->price;
	if (!pr->store_shared || !isfinite(pr->store_unit_usd) || !(pr->store_unit_B > 0))
		return NAN;
	double units = ceil(p->dataset_B / pr->store_unit_B);
	double need_Bps = r->throughput_img_s * p->dataset_B / sc->images;
	if (pr->store_unit_Bps > 0 && isfinite(need_Bps))
		units = fmax(units, ceil(need_Bps / pr->store_unit_Bps));
	return fmax(units, 1.0);
}

/* The shared store that keeps the data set (nodes that stage it copy it from there): units of a priced
 * store (model_store_units); else flash at store_usd_TB, sized to the cluster (store_TB_gpu x the GPUs
 * sold) and never below the data set's copies (store_replicas). */
static double storage_usd(const model_scenario *sc, const model_params *p, const model_result *r)
{
	const model_node *n = &sc->node;
	const model_price *pr = &sc->price;
	const model_money *m = &sc->money;
	double units = model_store_units(sc, p, r);
	if (isnan(units)) {
		int per_node = n->max_gpus_per_node > 0 ? n->max_gpus_per_node : n->gpus_per_node;
		double gpus = (double)model_nodes_bought(sc) * per_node;
		return fmax(p->dataset_B / 1e12 * m->store_replicas, m->store_TB_gpu * gpus) * m->store_usd_TB;
	}
	return units * pr->store_unit_usd;
}

/* The other parts of the cluster bought (model_money's figures): front-end, storage and management networks
 * for the GPUs as sold, racks with power distribution for the max power (a rack-scale unit brings its own),
 * liquid-cooling distribution where the system needs it. */
static void parts_usd(const model_scenario *sc, model_cost *c, int bought)
{
	const model_node *n = &sc->node;
	const model_price *pr = &sc->price;
	const model_money *m = &sc->money;
	int per_node = n->max_gpus_per_node > 0 ? n->max_gpus_per_node : n->gpus_per_node;
	c->capex_frontend_usd = bought * (per_node * m->frontend_ports_gpu * m->frontend_port_usd + m->mgmt_usd_node);
	double kW_W = isfinite(c->power_max_W) ? c->power_max_W : 0.0;
	c->capex_racks_usd = pr->unit_nodes > 1 ? 0.0 : ceil(kW_W / m->rack_W - 1e-9) * m->rack_usd;
	c->capex_cooling_usd = pr->liquid_cooled ? kW_W * m->cooling_usd_W : 0.0;
}

void model_run_capex(const model_scenario *sc, const model_params *p, const model_result *r, model_cost *c)
{
	const model_price *pr = &sc->price;
	int per_unit = pr->unit_nodes > 1 ? pr->unit_nodes : 1;
	int bought = model_nodes_bought(sc);
	double units = (double)bought / per_unit;
	double lo, hi;

	if (isfinite(pr->unit_price_usd)) {
		c->capex_servers_usd = units * pr->unit_price_usd;
		lo = units * (isfinite(pr->unit_price_lo_usd) ? pr->unit_price_lo_usd : pr->unit_price_usd);
		hi = units * (isfinite(pr->unit_price_hi_usd) ? pr->unit_price_hi_usd : pr->unit_price_usd);
	} else { /* a node described by hand (tests, custom): per-node price or NAN */
		c->capex_servers_usd = lo = hi = pr->price_usd * sc->nodes;
	}
	if (!isfinite(c->capex_servers_usd)) {
		c->capex_network_usd = c->capex_storage_usd = c->capex_usd = c->capex_lo_usd = c->capex_hi_usd = NAN;
		c->capex_fabric_usd = c->capex_frontend_usd = c->capex_racks_usd = c->capex_cooling_usd = NAN;
		c->capex_install_usd = NAN;
		return;
	}
	c->capex_fabric_usd = fabric_usd(sc);
	parts_usd(sc, c, bought);
	c->capex_network_usd = c->capex_fabric_usd + c->capex_frontend_usd;
	c->capex_storage_usd = storage_usd(sc, p, r);
	bool unit_store = pr->store_shared && isfinite(pr->store_unit_usd) && pr->store_unit_B > 0;
	double store_w = unit_store ? pr->store_width : PRICE_WIDTH_PRESS;
	double est = PRICE_WIDTH_ESTIMATE;
	double other = c->capex_frontend_usd + c->capex_racks_usd + c->capex_cooling_usd;
	double hw = c->capex_servers_usd + c->capex_network_usd + c->capex_storage_usd + c->capex_racks_usd +
		    c->capex_cooling_usd;
	c->capex_install_usd = sc->money.install_frac * hw;
	c->capex_usd = hw + c->capex_install_usd;
	/* each part at the ends of its range; installation follows the hardware */
	double lo_hw = lo + c->capex_fabric_usd * (1.0 - pr->net_width) + other * (1.0 - est) +
		       c->capex_storage_usd * (1.0 - store_w);
	double hi_hw = hi + c->capex_fabric_usd * (1.0 + pr->net_width) + other * (1.0 + est) +
		       c->capex_storage_usd * (1.0 + store_w);
	c->capex_lo_usd = lo_hw * (1.0 + sc->money.install_frac * (1.0 - est));
	c->capex_hi_usd = hi_hw * (1.0 + sc->money.install_frac * (1.0 + est));
}

/* The share of a month's fixed cost one run pays: 1 of runs_per_month, else its share of the utilised time;
 * never below its share of the wall clock (no more runs fit a month than back to back). One rule for the
 * owner's capex, support and facility and for a reservation, both paid around the clock. */
static double run_share(const model_money *m, double tta_s)
{
	double share = m->runs_per_month > 0 ? 1.0 / m->runs_per_month : tta_s / (m->utilisation * MODEL_MONTH_S);
	return fmax(share, tta_s / MODEL_MONTH_S);
}

int model_money_tco_words(const model_money *m, const char *use, char *buf, size_t n)
{
	return snprintf(buf, n,
			"capex over %.3g years + support %.3g of capex a year + facility $%.4g per kW-month, at %s, + energy "
			"at $%.3g/kWh x PUE %.3g",
			m->amortize_years, m->support_frac_year, m->facility_usd_kw_month, use, m->kwh_usd, m->pue);
}

double model_money_use(const model_money *m, double tta_s)
{
	if (!(tta_s > 0))
		return m->utilisation;
	return tta_s / (run_share(m, tta_s) * MODEL_MONTH_S);
}

/* The runs a rental session on demand holds in a month of `runs`: money.rent_session_s of back-to-back runs
 * of tta_s, at most the month's runs (a month of 10 short runs is one session), never less than one run;
 * 1 with no session (each run rented alone). */
static double session_runs(const model_money *m, double tta_s, double runs)
{
	if (!(m->rent_session_s > 0))
		return 1.0;
	return fmax(1.0, fmin(m->rent_session_s / tta_s, runs));
}

/* A run's billed time on spot: its expected reruns, an interrupted run starting again with
 * p = 1 - (1 - f)^(t / month), so t / (1 - p) (the whole run again: a bound, as a checkpoint would save part). */
static double run_billed_s(const model_scenario *sc, double tta_s)
{
	if (!sc->price.rent_spot)
		return tta_s;
	return tta_s / pow(1.0 - sc->money.spot_interrupt_month, tta_s / MODEL_MONTH_S);
}

/* One run's share of a session's bill on demand at `rate` for `gpus`: the session's runs (session_runs, each
 * billed run_billed_s) plus the set-up once, at least min_s, rounded
 * up to the increment inc, over the runs in the session. With no session the run alone, as a provider bills
 * a single job. */
static double rent_on_demand(const model_scenario *sc, double rate, double gpus, double inc, double min_s,
			     const model_result *r, const model_cost *c)
{
	double runs = session_runs(&sc->money, r->tta_s, 1.0 / run_share(&sc->money, r->tta_s));
	double t = runs * run_billed_s(sc, r->tta_s) + c->rent_setup_s;
	if (isfinite(min_s))
		t = fmax(t, min_s);
	if (inc > 0)
		t = ceil(t / inc * (1.0 - 1e-12)) * inc;
	return gpus * rate * t / 3600.0 / runs;
}

/* The GPUs billed (whole instances of the node's GPUs, whole minimum units) and the rent of a run at the
 * rate. A reservation bills its share of the month around the clock (run_share); on demand the run's share
 * of its session (rent_on_demand); above rent_max_gpus the provider's cluster rate and increment (NAN where
 * there is none). */
static double rent_billed(const model_scenario *sc, double rate, const model_result *r, const model_cost *c,
			  double *gpus_out)
{
	const model_node *n = &sc->node;
	const model_price *pr = &sc->price;
	int per_node = n->max_gpus_per_node > 0 ? n->max_gpus_per_node : n->gpus_per_node;
	int unit = pr->rent_unit_gpus > per_node ? pr->rent_unit_gpus : per_node;
	double gpus = (double)model_whole_units((long)sc->nodes * per_node, unit);
	double inc = pr->rent_increment_s;

	*gpus_out = gpus;
	if (pr->rent_max_gpus > 0 && gpus > pr->rent_max_gpus) {
		rate = pr->rent_cluster_usd_gpu_h;
		inc = pr->rent_cluster_increment_s;
	}
	if (pr->rent_reserved)
		return gpus * rate * run_share(&sc->money, r->tta_s) * MODEL_MONTH_S / 3600.0;
	return rent_on_demand(sc, rate, gpus, inc, pr->rent_min_s, r, c);
}

double model_rent_setup_s(const model_scenario *sc, const model_params *p, const model_result *r)
{
	if (sc->price.rent_reserved || (!isfinite(sc->price.rent_usd_gpu_h) && !isfinite(sc->price.ref_rent_usd_gpu_h)))
		return 0.0;
	double copy_s = sc->data == MODEL_DATA_SYNTHETIC ? 0.0 : p->dataset_B / sc->money.rent_copy_Bps;
	return sc->money.rent_boot_s + fmax(copy_s - (isfinite(r->staging_s) ? r->staging_s : 0.0), 0.0);
}

/* The months of the horizon: the amortisation rounded up to whole months. */
static int horizon_months(const model_money *m)
{
	return (int)ceil(m->amortize_years * 12.0 - 1e-9);
}

/* The sum over months from .. to - 1 of the horizon of the market's rent as a fraction of today's, falling
 * rent_decline a year: month k at its middle t = (k + 0.5) / 12 pays keep^t on demand, keep^(term x floor(t /
 * term)) reserved (priced at its term's start, renewed at the market's rate). The one formula of the fall:
 * the horizon's average and each year's (model_rent_horizon_factor, rent_year_factor). The powers come as
 * running products, a pow a term, because a sweep prices every row through here. */
static double rent_month_sum(const model_money *m, double term_years, int from, int to)
{
	double sum = 0, keep = 1.0 - m->rent_decline;
	double month_x = pow(keep, 1.0 / 12.0), od = pow(keep, (from + 0.5) / 12.0), held = 1.0;
	int term = -1;
	for (int k = from; k < to; k++, od *= month_x) {
		if (!(term_years > 0)) {
			sum += od;
			continue;
		}
		int j = (int)floor((k + 0.5) / 12.0 / term_years);
		if (j != term) {
			term = j;
			held = pow(keep, term_years * j);
		}
		sum += held;
	}
	return sum;
}

double model_rent_horizon_factor(const model_money *m, double term_years)
{
	if (!(m->rent_decline > 0))
		return 1.0;
	int months = horizon_months(m);
	return months > 0 ? rent_month_sum(m, term_years, 0, months) / months : 1.0;
}

/* The same rate's average over year year's months of the horizon (1 = the first; the last year the months
 * left), as a fraction of today's rate: 1 with no fall, outside the horizon or for year 0 (model_cashflow). */
static double rent_year_factor(const model_money *m, double term_years, int year)
{
	int from = 12 * (year - 1), to = (int)fmin(12.0 * year, horizon_months(m));
	if (!(m->rent_decline > 0) || year < 1 || to <= from)
		return 1.0;
	return rent_month_sum(m, term_years, from, to) / (to - from);
}

/* The capex's cost a month: straight line less the residual value, or with a financing rate the annuity
 * that repays capex less the residual's present value (the capital recovery factor). */
static double capex_month(const model_money *m, double capex)
{
	double N = m->amortize_years * 12.0, rr = m->finance_rate / 12.0, res = m->residual_frac * capex;
	if (!(rr > 0))
		return (capex - res) / N;
	double grow = pow(1.0 + rr, N); /* one pow: (1 + rr)^-N is its inverse */
	return (capex - res / grow) * rr / (1.0 - 1.0 / grow);
}

/* The owner's fixed cost a month per dollar of capex: capex share and support. Both are linear in the capex
 * (capex_month of c is c x capex_month of 1), so one factor prices the capex and both ends of its range. */
static double fixed_month_per_usd(const model_money *m)
{
	return capex_month(m, 1.0) + m->support_frac_year / 12.0;
}

/* The owner's fixed cost a month: capex share, support and facility (the nodes' max power contracted). */
static double owner_fix_month_at(const model_scenario *sc, const model_cost *c, double per_usd)
{
	double fac_m = isfinite(c->power_max_W) ? sc->money.facility_usd_kw_month * c->power_max_W / 1e3 : 0.0;
	return c->capex_usd * per_usd + fac_m;
}

/* A rented month of N runs on demand under the session rule is piecewise linear in N, a + s x N on each piece:
 * below one run a month a run's session alone (a = 0); up to a full session's k runs one session of them all
 * (the set-up once: a = its bill); beyond, N / k full sessions (a = 0). Each piece from the rent of a run at the
 * stated workload (rent_c->rent_usd, by the second as model_ref_rent_usd bills: no increment or minimum), its
 * per-second bill recovered from that workload's session. Returns the pieces (at most 3) with their ends. */
typedef struct rent_piece { double lo, hi, a, s; } rent_piece;
static int rent_pieces(const model_scenario *sc, const model_result *r, const model_cost *c, rent_piece pc[3])
{
	const model_money *m = &sc->money;
	double t = run_billed_s(sc, r->tta_s), set = c->rent_setup_s;
	double k = session_runs(m, r->tta_s, INFINITY);
	double n0 = session_runs(m, r->tta_s, 1.0 / run_share(m, r->tta_s));
	double per_s = c->rent_usd / (t + set / n0); /* the rent of a second billed */
	int n = 0;
	pc[n++] = (rent_piece){0.0, 1.0, 0.0, per_s * (t + set)};
	if (k > 1.0)
		pc[n++] = (rent_piece){1.0, k, per_s * set, per_s * t};
	pc[n] = (rent_piece){pc[n - 1].hi, INFINITY, 0.0, per_s * (t + set / k)};
	n++;
	return n;
}

static double rent_month_at(const rent_piece *pc, int n, double runs)
{
	int i = 0;
	while (i < n - 1 && runs > pc[i].hi)
		i++;
	return pc[i].a + pc[i].s * runs;
}

/* The crossing of owned (fix + N x energy) and rented on demand (rent_pieces): the largest N where the two
 * months are equal, buying winning above it where renting's last piece is dearer per run than energy (the
 * months cannot cross again beyond it); none: 0 (renting wins at every N: buying never). */
static void on_demand_crossing(double fix, double energy, const rent_piece *pc, int n, model_buy_rent *o)
{
	o->buy_wins_above = pc[n - 1].s > energy;
	o->breakeven_runs_month = 0.0;
	for (int i = n - 1; i >= 0; i--) {
		double gap = fix - pc[i].a, slope = pc[i].s - energy; /* rented - owned = slope x N - gap */
		if (slope == 0.0) {
			if (gap == 0.0) { /* equal along the piece: the crossing is its low end */
				o->breakeven_runs_month = pc[i].lo;
				return;
			}
			continue;
		}
		double N = gap / slope;
		if (N >= pc[i].lo && N <= pc[i].hi) {
			o->breakeven_runs_month = fmax(N, 0.0);
			o->buy_wins_above = slope > 0;
			return;
		}
	}
}

/* model_buy_rent_eval with the owner's fixed month already known (model_run_money has it: the annuity's pow
 * once a prediction). */
static void buy_rent_at(double fix, const model_scenario *buy_sc, const model_result *buy_r, const model_cost *buy_c,
			const model_scenario *rent_sc, const model_result *rent_r, const model_cost *rent_c, double rate,
			model_buy_rent *o)
{
	double energy = isfinite(buy_c->energy_usd) ? buy_c->energy_usd : 0.0, rent = rent_c->rent_usd;
	double gpu_h_month = buy_r->gpus * MODEL_MONTH_S / 3600.0;
	memset(o, 0, sizeof *o);
	o->max_runs_month = MODEL_MONTH_S / buy_r->tta_s;
	o->runs_month = 1.0 / run_share(&buy_sc->money, buy_r->tta_s);
	o->use = o->runs_month / o->max_runs_month;
	o->rate_usd_gpu_h = rate;
	o->fixed_usd_gpu_h = fix / gpu_h_month;
	o->energy_usd_gpu_h = energy / (buy_r->gpus * buy_r->tta_s / 3600.0);
	o->breakeven_use = o->breakeven_runs_month = o->flip_usd_gpu_h = NAN;
	o->owned_month_usd = fix + o->runs_month * energy;
	o->rented_month_usd = NAN;
	o->buy_wins_above = true;
	if (!isfinite(fix) || !isfinite(rent) || !(rent_r->tta_s > 0))
		return;
	if (rent_sc->price.rent_reserved) {
		/* a reservation: its month whatever N, so buying wins below the N where energy closes the gap */
		double rent_fix = rent / run_share(&rent_sc->money, rent_r->tta_s), gap = fix - rent_fix;
		o->rented_month_usd = rent_fix;
		o->buy_wins_above = false;
		o->breakeven_runs_month = energy > 0 ? fmax(-gap / energy, 0.0) : gap <= 0 ? 0.0 : INFINITY;
	} else {
		rent_piece pc[3];
		int n = rent_pieces(rent_sc, rent_r, rent_c, pc);
		o->rented_month_usd = rent_month_at(pc, n, o->runs_month);
		on_demand_crossing(fix, energy, pc, n, o);
	}
	o->rent_wins = o->rented_month_usd < o->owned_month_usd;
	/* rent is linear in its rate: the rate that makes the two months equal at the stated use */
	if (o->rented_month_usd > 0)
		o->flip_usd_gpu_h = rate * o->owned_month_usd / o->rented_month_usd;
	o->breakeven_use = o->breakeven_runs_month / o->max_runs_month;
}

void model_buy_rent_eval(const model_scenario *buy_sc, const model_result *buy_r, const model_cost *buy_c,
			 const model_scenario *rent_sc, const model_result *rent_r, const model_cost *rent_c,
			 double rate_usd_gpu_h, model_buy_rent *out)
{
	double fix = owner_fix_month_at(buy_sc, buy_c, fixed_month_per_usd(&buy_sc->money));
	buy_rent_at(fix, buy_sc, buy_r, buy_c, rent_sc, rent_r, rent_c, rate_usd_gpu_h, out);
}

void model_run_money(const model_scenario *sc, const model_result *r, model_cost *c)
{
	const model_money *m = &sc->money;
	const model_price *pr = &sc->price;

	c->energy_usd = c->energy_J / 3.6e6 * m->pue * m->kwh_usd;
	c->rent_usd = rent_billed(sc, pr->rent_usd_gpu_h, r, c, &c->rent_gpus);
	/* the low end: the market's rate where it is known (rent is linear in the rate), else the kind's width */
	bool cluster = pr->rent_max_gpus > 0 && c->rent_gpus > pr->rent_max_gpus;
	c->rent_lo_usd = isfinite(pr->rent_market_usd_gpu_h) && !cluster
				 ? c->rent_usd * fmin(pr->rent_market_usd_gpu_h / pr->rent_usd_gpu_h, 1.0 - pr->rent_width)
				 : c->rent_usd * (1.0 - pr->rent_width);
	c->rent_hi_usd = c->rent_usd * (1.0 + pr->rent_width);
	double decline = model_rent_horizon_factor(m, pr->rent_term_years);
	c->rent_horizon_usd = c->rent_usd * decline;
	/* each run pays the month's fixed cost in the proportion of the month's runs it is (run_share) */
	double share = run_share(m, r->tta_s);
	double energy = isfinite(c->energy_usd) ? c->energy_usd : 0.0;
	double per_usd = fixed_month_per_usd(m);
	double fac_m = isfinite(c->power_max_W) ? m->facility_usd_kw_month * c->power_max_W / 1e3 : 0.0;
	double fix = owner_fix_month_at(sc, c, per_usd);
	c->support_usd = isfinite(c->capex_usd) ? m->support_frac_year * c->capex_usd / 12.0 * share : NAN;
	c->facility_usd = isfinite(c->capex_usd) ? fac_m * share : NAN;
	c->tco_usd = fix * share + energy;
	/* the owner's cost of a used GPU-hour, to set beside a rental rate */
	c->owned_usd_gpu_h = c->tco_usd / (r->gpus * r->tta_s / 3600.0);
	c->tco_lo_usd = (c->capex_lo_usd * per_usd + fac_m) * share + energy;
	c->tco_hi_usd = (c->capex_hi_usd * per_usd + fac_m) * share + energy;
	c->co2_kg = c->energy_J / 3.6e6 * m->pue * m->grid_kg_kwh;
	/* against the same runs rented at the reference rate (model_buy_rent_eval) */
	model_cost x = *c;
	model_buy_rent br;
	x.rent_usd = model_ref_rent_usd(sc, r, c) * decline; /* over the horizon, as the market's rent falls */
	buy_rent_at(fix, sc, r, c, sc, r, &x, pr->ref_rent_usd_gpu_h, &br); /* the flip: today's rate */
	c->breakeven_runs_per_month = br.breakeven_runs_month;
	c->breakeven_use = br.breakeven_use;
	c->buy_wins_above = br.buy_wins_above;
	c->flip_usd_gpu_h = br.flip_usd_gpu_h;
	c->owned_month_usd = br.owned_month_usd;
	c->rented_month_usd = br.rented_month_usd;
}


/* No run to bill (the batch does not fit memory): no energy, no money, no rental set-up. */
static void money_nan(model_cost *c)
{
	c->energy_J = c->energy_usd = c->rent_usd = c->tco_usd = NAN;
	c->facility_usd = c->support_usd = c->breakeven_runs_per_month = c->rent_gpus = c->owned_usd_gpu_h = NAN;
	c->rent_horizon_usd = NAN;
	c->breakeven_use = c->flip_usd_gpu_h = c->owned_month_usd = c->rented_month_usd = c->co2_kg = NAN;
	c->buy_wins_above = true;
	c->rent_setup_s = 0.0;
	c->tco_lo_usd = c->tco_hi_usd = c->rent_lo_usd = c->rent_hi_usd = NAN;
}

/* Power: the node's figure, else (GPU TDPs + CPU TDPs) x power_overhead; the run draws power_frac of it on the
 * nodes used, the site contracts the nodes bought at their power as sold. */
void model_price_run(const model_scenario *sc, const model_params *p, const model_result *r, model_cost *c)
{
	const model_node *n = &sc->node;
	double node_W = n->power_W;
	if (!(node_W > 0))
		node_W = (n->gpus_per_node * n->gpu_tdp_W + n->cpus * n->cpu_tdp_W) * p->power_overhead;
	c->power_W = node_W > 0 ? node_W * sc->nodes * p->power_frac : NAN;
	c->power_max_W = (sc->price.power_sold_W > 0 ? sc->price.power_sold_W : node_W > 0 ? node_W : NAN) *
			 model_nodes_bought(sc);
	model_run_capex(sc, p, r, c);
	if (!r->fits) {
		money_nan(c);
		return;
	}
	c->energy_J = c->power_W * r->tta_s;
	c->rent_setup_s = model_rent_setup_s(sc, p, r);
	model_run_money(sc, r, c);
}

double model_ref_rent_usd(const model_scenario *sc, const model_result *r, const model_cost *c)
{
	const model_price *pr = &sc->price;
	if (!isfinite(pr->ref_rent_usd_gpu_h) || pr->ref_rent_gpus <= 0)
		return NAN;
	double gpus = ceil((double)r->gpus / pr->ref_rent_gpus) * pr->ref_rent_gpus;
	if (pr->rent_reserved)
		return gpus * pr->ref_rent_usd_gpu_h * run_share(&sc->money, r->tta_s) * MODEL_MONTH_S / 3600.0;
	return rent_on_demand(sc, pr->ref_rent_usd_gpu_h, gpus, NAN, NAN, r, c);
}

int model_cashflow(const model_scenario *sc, const model_result *r, const model_cost *cost, double rent_run_usd,
		   double rent_term_years, model_cash_year *out, int max)
{
	const model_money *m = &sc->money;
	if (!isfinite(cost->capex_usd) || max < 1)
		return 0;
	int years = (int)ceil(m->amortize_years - 1e-9);
	double runs_year = 12.0 / run_share(m, r->tta_s);
	double fac_year = isfinite(cost->power_max_W) ? 12.0 * m->facility_usd_kw_month * cost->power_max_W / 1e3 : 0.0;
	double energy_run = isfinite(cost->energy_usd) ? cost->energy_usd : 0.0;
	double owned_cum = 0, rented_cum = 0, owned_pv = 0, rented_pv = 0;
	int n = 0;
	for (int y = 0; y <= years && n < max; y++, n++) {
		model_cash_year *c = &out[n];
		/* year 0 buys; years 1..N run (the last one the part of a year left); the resale comes in at the end */
		double f = y == 0 ? 0.0 : fmin(1.0, m->amortize_years - (y - 1));
		memset(c, 0, sizeof *c);
		c->year = y;
		c->capex_usd = y == 0 ? cost->capex_usd : 0.0;
		c->support_usd = f * m->support_frac_year * cost->capex_usd;
		c->facility_usd = f * fac_year;
		c->energy_usd = f * runs_year * energy_run;
		c->residual_usd = y == years ? -m->residual_frac * cost->capex_usd : 0.0;
		c->runs = f * runs_year;
		c->owned_usd = c->capex_usd + c->support_usd + c->facility_usd + c->energy_usd + c->residual_usd;
		/* the rent as the market's falls: that year's months' average (its sum over the years is the
		 * horizon's average the decision weighs, model_rent_horizon_factor) */
		c->rented_usd = c->runs * rent_run_usd * rent_year_factor(m, rent_term_years, y);
		/* discounted at the cost of capital to the purchase: year y x (1 + rate)^-y */
		double disc = pow(1.0 + m->finance_rate, -y);
		owned_cum += c->owned_usd;
		rented_cum += c->rented_usd;
		owned_pv += c->owned_usd * disc;
		rented_pv += c->rented_usd * disc;
		c->owned_cum_usd = owned_cum;
		c->rented_cum_usd = rented_cum;
		c->owned_pv_cum_usd = owned_pv;
		c->rented_pv_cum_usd = rented_pv;
	}
	return n;
}

const char *model_sens_name(model_sens_input i)
{
	static const char *const names[MODEL_SENS_N] = {"prices", "speed", "utilisation", "kWh price", "PUE"};
	return (unsigned)i < MODEL_SENS_N ? names[i] : "?";
}

/* The site's inputs' ranges, the one place they are stated: the month's use and the kWh price half to one and a
 * half times (the use at most 1: runs back to back), PUE 1.1 (a hyperscale hall; Uptime Institute 2023) to 1.8
 * (an older room), each widened to hold the value itself. */
void model_sens_range(model_sens_input i, double v, double *lo, double *hi)
{
	switch (i) {
	case MODEL_SENS_UTIL:
		*lo = v / 2.0;
		*hi = fmin(1.0, v * 1.5);
		break;
	case MODEL_SENS_KWH:
		*lo = v / 2.0;
		*hi = v * 1.5;
		break;
	case MODEL_SENS_PUE:
		*lo = fmin(1.1, v);
		*hi = fmax(1.8, v);
		break;
	default:
		*lo = *hi = v;
	}
}

char *model_sens_ranges_text(char *buf, size_t n)
{
	double ulo, uhi, klo, khi, plo, phi;
	model_sens_range(MODEL_SENS_UTIL, 0.5, &ulo, &uhi); /* a use whose x1.5 stays below 1 */
	model_sens_range(MODEL_SENS_KWH, 1.0, &klo, &khi);
	model_sens_range(MODEL_SENS_PUE, 1.2, &plo, &phi);
	snprintf(buf, n, "utilisation x%.3g-x%.3g; kWh price x%.3g-x%.3g; PUE %.3g (a hyperscale hall) to %.3g",
		 ulo / 0.5, uhi / 0.5, klo, khi, plo, phi);
	return buf;
}

/* The run's cost (owner's per run, or rent) after model_run_money on a changed copy. */
static double cost_of(const model_scenario *sc, const model_result *r, const model_cost *c, bool rent)
{
	model_cost x = *c;
	model_run_money(sc, r, &x);
	return rent ? x.rent_usd : x.tco_usd;
}

void model_money_sensitivity(const model_scenario *sc, const model_result *r, const model_cost *c,
			     double speed_err, bool rent, model_sens out[MODEL_SENS_N])
{
	model_scenario s = *sc;
	model_result x = *r;
	model_cost xc = *c;
	const model_money *m = &sc->money;

	/* prices: each at the low and the high end of its range */
	out[MODEL_SENS_PRICE].lo_in = rent ? c->rent_lo_usd : c->capex_lo_usd;
	out[MODEL_SENS_PRICE].hi_in = rent ? c->rent_hi_usd : c->capex_hi_usd;
	out[MODEL_SENS_PRICE].lo_usd = rent ? c->rent_lo_usd : c->tco_lo_usd;
	out[MODEL_SENS_PRICE].hi_usd = rent ? c->rent_hi_usd : c->tco_hi_usd;
	/* speed: the run (and its energy) shorter and longer by the prediction's error */
	for (int k = 0; k < 2; k++) {
		double f = k == 0 ? 1.0 - speed_err : 1.0 + speed_err;
		x = *r;
		xc = *c;
		x.tta_s = r->tta_s * f;
		xc.energy_J = c->energy_J * f;
		*(k == 0 ? &out[MODEL_SENS_SPEED].lo_in : &out[MODEL_SENS_SPEED].hi_in) = x.tta_s;
		*(k == 0 ? &out[MODEL_SENS_SPEED].lo_usd : &out[MODEL_SENS_SPEED].hi_usd) = cost_of(sc, &x, &xc, rent);
	}
	double in[3][2];
	model_sens_range(MODEL_SENS_UTIL, m->utilisation, &in[0][0], &in[0][1]);
	model_sens_range(MODEL_SENS_KWH, m->kwh_usd, &in[1][0], &in[1][1]);
	model_sens_range(MODEL_SENS_PUE, m->pue, &in[2][0], &in[2][1]);
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
			*(k == 0 ? &o->lo_usd : &o->hi_usd) = cost_of(&s, r, c, rent);
		}
}
