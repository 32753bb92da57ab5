/* tests/test_money.c: the cost of a cluster (model/model_money.c) on hand-made nodes: the fabric's fat tree,
 * the store's units, rent as billed, the owner's cost at a utilisation, the break-even against renting and
 * the price ranges. Expected figures are worked by hand in the comments.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"
#include "model/model.h"
#include "model/model_internal.h" /* model/'s parts under test */
#include "plan/plan.h"
#include "tests/test.h"

#include <math.h>
#include <string.h>

/* An 8-GPU node priced 100,000 a unit with a 64-port fabric: switch 10,000, link 1,000. */
static void node_priced(model_scenario *sc, model_params *p)
{
	model_params_default(p);
	model_scenario_init(sc);
	model_node *n = &sc->node;
	model_price *pr = &sc->price;
	n->gpus_per_node = n->max_gpus_per_node = 8;
	n->nics_per_node = 8;
	pr->unit_nodes = 1;
	pr->unit_price_usd = 100000.0;
	pr->unit_price_lo_usd = 90000.0;
	pr->unit_price_hi_usd = 120000.0;
	pr->switch_ports = 64;
	pr->switch_usd = 10000.0;
	pr->link_usd = 1000.0;
	pr->oversubscription = 1.0;
	pr->net_width = 0.25;
	/* the other parts off: test_parts adds them */
	sc->money.frontend_ports_gpu = sc->money.mgmt_usd_node = sc->money.store_usd_TB = 0.0;
	sc->money.rack_usd = sc->money.cooling_usd_W = sc->money.install_frac = 0.0;
}

static void test_fabric(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	r.throughput_img_s = NAN;
	sc.nodes = 1; /* one node: nothing to join */
	model_run_capex(&sc, &p, &r, &rc);
	TEST_CHECK(t, rc.capex_network_usd == 0 && rc.capex_usd == 100000.0, "1 node: %g %g", rc.capex_network_usd, rc.capex_usd);
	sc.nodes = 8; /* 64 ports: one switch, 64 links = 74,000 */
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_network_usd, 74000.0, 1e-12);
	TEST_NEAR(t, rc.capex_usd, 874000.0, 1e-12);
	/* range: servers 8 x 90,000-120,000, network 74,000 x (1 -+ 0.25) */
	TEST_NEAR(t, rc.capex_lo_usd, 720000.0 + 55500.0, 1e-12);
	TEST_NEAR(t, rc.capex_hi_usd, 960000.0 + 92500.0, 1e-12);
	sc.nodes = 16; /* 128 ports: 4 leaves of 32 down, 128 up-links on 2 spines = 6 switches, 256 links */
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_network_usd, 6 * 10000.0 + 256 * 1000.0, 1e-12);
	sc.price.oversubscription = 3.0; /* leaves 48 down 16 up: 3 leaves, 43 up-links, 1 spine; 171 links */
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_network_usd, 4 * 10000.0 + (128 + 43) * 1000.0, 1e-12);
	sc.price.oversubscription = 1.0;
	sc.nodes = 1024; /* 8192 ports: 256 leaves > 64: three levels, 256 + 256 + 128 switches, 3 x 8192 links */
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_network_usd, 640 * 10000.0 + 3 * 8192 * 1000.0, 1e-12);
	/* NICs bought beside the server where its price leaves them out */
	sc.nodes = 8;
	sc.price.nics_in_price = false;
	sc.price.nic_usd = 500.0;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_network_usd, 74000.0 + 64 * 500.0, 1e-12);
	/* an unpriced fabric adds nothing; an unpriced server prices nothing */
	sc.price.switch_ports = 0;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_CHECK(t, rc.capex_network_usd == 0, "unpriced fabric %g", rc.capex_network_usd);
	sc.price.unit_price_usd = NAN;
	sc.price.price_usd = NAN;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_CHECK(t, isnan(rc.capex_usd) && isnan(rc.capex_network_usd), "no price: %g", rc.capex_usd);
}

/* The cluster's other parts: the compute fabric none inside one NVLink domain, front-end ports per GPU sold,
 * racks for the max power (none for a rack-scale unit), liquid cooling where needed, installation on top;
 * the same for any placement of the same hardware. */
static void test_parts(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	r.throughput_img_s = NAN;
	sc.nodes = 8;
	sc.price.nics_bought = 8;
	sc.money.frontend_ports_gpu = 0.5;
	sc.money.frontend_port_usd = 2000.0;
	sc.money.mgmt_usd_node = 250.0;
	sc.money.rack_usd = 6000.0;
	sc.money.rack_W = 40e3;
	sc.money.install_frac = 0.02;
	rc.power_max_W = 8 * 10.2e3; /* 81.6 kW: 3 racks */
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_frontend_usd, 8 * (8 * 0.5 * 2000.0 + 250.0), 1e-12);
	TEST_NEAR(t, rc.capex_racks_usd, 3 * 6000.0, 1e-12);
	TEST_NEAR(t, rc.capex_fabric_usd, 74000.0, 1e-12);
	TEST_NEAR(t, rc.capex_network_usd, rc.capex_fabric_usd + rc.capex_frontend_usd, 1e-12);
	TEST_CHECK(t, rc.capex_cooling_usd == 0, "air-cooled: no coolant distribution %g", rc.capex_cooling_usd);
	double hw = 800000.0 + rc.capex_network_usd + rc.capex_storage_usd + rc.capex_racks_usd;
	TEST_NEAR(t, rc.capex_install_usd, 0.02 * hw, 1e-12);
	TEST_NEAR(t, rc.capex_usd, hw * 1.02, 1e-12);
	TEST_CHECK(t, rc.capex_lo_usd < rc.capex_usd && rc.capex_usd < rc.capex_hi_usd, "range");
	/* a rack-scale unit of 18 trays of 4 GPUs, one NVLink domain of 72: 16 trays need no compute fabric;
	 * liquid cooling at 0.4 USD a W; its own rack: no racks bought */
	sc.node.gpus_per_node = sc.node.max_gpus_per_node = 4;
	sc.price.nics_bought = sc.node.nics_per_node = 4;
	sc.price.unit_nodes = 18;
	sc.node.domain_gpus = 72;
	sc.price.liquid_cooled = true;
	sc.money.cooling_usd_W = 0.4;
	sc.nodes = 16;
	rc.power_max_W = 120e3;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_CHECK(t, rc.capex_fabric_usd == 0, "one NVLink domain: no fabric %g", rc.capex_fabric_usd);
	TEST_CHECK(t, rc.capex_racks_usd == 0, "the unit is its rack %g", rc.capex_racks_usd);
	TEST_NEAR(t, rc.capex_cooling_usd, 0.4 * 120e3, 1e-12);
	TEST_NEAR(t, rc.capex_frontend_usd, 18 * (4 * 0.5 * 2000.0 + 250.0), 1e-12);
	double one = rc.capex_usd;
	sc.nodes = 18; /* the same rack with 2 GPUs a tray used: the same hardware, the same capex */
	sc.node.gpus_per_node = 2;
	sc.node.nics_per_node = 2;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_usd, one, 1e-12);
	sc.nodes = 32; /* two racks: the job spans two domains, a fabric for all 36 trays' 4 NICs */
	model_run_capex(&sc, &p, &r, &rc);
	TEST_CHECK(t, rc.capex_fabric_usd > 0, "two domains: a fabric %g", rc.capex_fabric_usd);
}

static void test_store(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	sc.nodes = 2;
	sc.price.store_shared = true;
	r.throughput_img_s = NAN;
	model_run_capex(&sc, &p, &r, &rc);
	/* an unpriced store: flash for the data set's copies, 145 GB x 3 x 220 USD per TB */
	sc.money.store_usd_TB = 220.0;
	sc.money.store_replicas = 3.0;
	sc.money.store_TB_gpu = 0.0;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_storage_usd, p.dataset_B / 1e12 * 3 * 220.0, 1e-12);
	/* sized to the cluster: 2 TB a GPU sold on 2 nodes of the node's GPUs, above the copies */
	sc.money.store_TB_gpu = 2.0;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_storage_usd, 2.0 * 2 * sc.node.gpus_per_node * 220.0, 1e-12);
	sc.money.store_TB_gpu = 0.0;
	TEST_CHECK(t, rc.capex_storage_usd > 0 && rc.capex_usd == 200000.0 + rc.capex_network_usd + rc.capex_storage_usd,
		   "the store in capex %g", rc.capex_usd);
	sc.price.store_unit_usd = 50000.0;
	sc.price.store_unit_B = 1e14;   /* 145 GB fit one unit */
	sc.price.store_unit_Bps = 5e9;  /* 100,000 img/s x 145e9 / 1,281,167 B = 11.3 GB/s: 3 units */
	sc.price.store_width = 0.05;
	r.throughput_img_s = 100000.0;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_storage_usd, 150000.0, 1e-12);
	sc.price.store_unit_B = 1e11;   /* 145 GB need 2 units of 100 GB; slow reads need 3 */
	r.throughput_img_s = NAN;
	model_run_capex(&sc, &p, &r, &rc);
	TEST_NEAR(t, rc.capex_storage_usd, 100000.0, 1e-12);
}

static void test_rent(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	sc.price.unit_price_usd = NAN;
	sc.price.price_usd = NAN;
	sc.price.rent_usd_gpu_h = 10.0;
	sc.price.rent_width = 0.05;
	sc.node.gpus_per_node = sc.node.max_gpus_per_node = 4;
	sc.nodes = 2;
	r.tta_s = 1800.0;
	rc.energy_J = 0.0;
	rc.capex_usd = rc.capex_lo_usd = rc.capex_hi_usd = NAN;
	sc.money.rent_session_s = 0.0; /* each run rented alone: the billing rules one run at a time */
	model_run_money(&sc, &r, &rc); /* 8 GPUs x 10 x 0.5 h */
	TEST_NEAR(t, rc.rent_usd, 40.0, 1e-12);
	TEST_NEAR(t, rc.rent_lo_usd, 38.0, 1e-12);
	sc.price.rent_unit_gpus = 72; /* a whole rack */
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.rent_usd, 360.0, 1e-12);
	TEST_CHECK(t, rc.rent_gpus == 72, "rent_gpus %g", rc.rent_gpus);
	sc.price.rent_unit_gpus = 0;
	sc.price.rent_increment_s = 3600.0; /* hourly: 3,601 s bill two hours */
	r.tta_s = 3601.0;
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.rent_usd, 160.0, 1e-12);
	sc.price.rent_increment_s = 1.0;
	sc.price.rent_min_s = 3600.0; /* at least an hour */
	r.tta_s = 1800.0;
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.rent_usd, 80.0, 1e-12);
	sc.price.rent_min_s = NAN;
	sc.price.rent_max_gpus = 4; /* beyond one instance: no cluster rate */
	model_run_money(&sc, &r, &rc);
	TEST_CHECK(t, isnan(rc.rent_usd), "beyond the instance: %g", rc.rent_usd);
	sc.price.rent_cluster_usd_gpu_h = 5.0;
	sc.price.rent_cluster_increment_s = 7 * 86400.0; /* a week */
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.rent_usd, 8 * 5.0 * 168.0, 1e-12);
	/* the market's rate is the range's low end: 3 of 10 a GPU-hour, 30% of the rent (within one instance) */
	sc.price.rent_max_gpus = 0;
	sc.price.rent_market_usd_gpu_h = 3.0;
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.rent_lo_usd, 0.3 * rc.rent_usd, 1e-12);
	sc.price.rent_market_usd_gpu_h = 9.9; /* never above the kind's own low end */
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.rent_lo_usd, 0.95 * rc.rent_usd, 1e-12);
}

/* A reservation is paid around the clock: each run pays its share of the utilised month, so half the use
 * doubles a run's rent; a run rented by the run pays its start-up and data copy too. */
static void test_rent_reserved(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r, x;
	model_cost rc, xc;
	const double month_s = 365.25 * 86400.0 / 12.0;
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	sc.price.unit_price_usd = NAN;
	sc.price.price_usd = NAN;
	sc.price.rent_usd_gpu_h = 2.0;
	sc.price.rent_increment_s = 60.0;
	sc.nodes = 2;
	r.tta_s = 1800.0;
	rc.energy_J = 0.0;
	rc.capex_usd = rc.capex_lo_usd = rc.capex_hi_usd = NAN;
	/* on demand: 16 GPUs x 2 x (1,800 + 300 boot + 1e12 B / 12.5e9 B/s = 80 s copy) / 3,600, whole minutes */
	sc.money.rent_boot_s = 300.0;
	sc.money.rent_copy_Bps = 12.5e9;
	p.dataset_B = 1e12;
	r.staging_s = 0.0;
	rc.rent_setup_s = model_rent_setup_s(&sc, &p, &r);
	TEST_NEAR(t, rc.rent_setup_s, 380.0, 1e-9);
	sc.money.rent_session_s = 0.0; /* the run rented alone */
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.rent_usd, 16 * 2.0 * 2220.0 / 3600.0, 1e-9); /* 2,180 s billed as 37 minutes */
	/* in sessions of 4 h: 8 runs and the set-up once, 14,780 s billed as 247 minutes, over 8 runs */
	sc.money.rent_session_s = 4 * 3600.0;
	x = r;
	xc = rc;
	model_run_money(&sc, &x, &xc);
	TEST_NEAR(t, xc.rent_usd, 16 * 2.0 * 247 * 60.0 / 3600.0 / 8.0, 1e-9);
	/* a month of 3 runs (runs_per_month) is one session of 3 runs, shorter than 4 h */
	sc.money.runs_per_month = 3.0;
	model_run_money(&sc, &x, &xc);
	TEST_NEAR(t, xc.rent_usd, 16 * 2.0 * 97 * 60.0 / 3600.0 / 3.0, 1e-9); /* 5,780 s as 97 minutes */
	sc.money.runs_per_month = 0.0;
	sc.money.rent_session_s = 0.0;
	sc.money.utilisation = 1.0;
	x = r;
	xc = rc;
	model_run_money(&sc, &x, &xc);
	TEST_NEAR(t, xc.rent_usd, rc.rent_usd, 1e-12); /* on demand: the use does not matter */
	/* spot: interrupted 50% a month, a half-month run is billed t / 0.5^0.5 (expected reruns) */
	sc.price.rent_spot = true;
	sc.money.spot_interrupt_month = 0.5;
	sc.price.rent_increment_s = NAN;
	x = r;
	xc = rc;
	x.tta_s = month_s / 2.0;
	xc.rent_setup_s = 0.0;
	model_run_money(&sc, &x, &xc);
	TEST_NEAR(t, xc.rent_usd, 16 * 2.0 * month_s / 2.0 / sqrt(0.5) / 3600.0, 1e-9);
	sc.price.rent_spot = false;
	sc.price.rent_increment_s = 60.0;
	/* the staging already in tta_s is not copied twice */
	r.staging_s = 50.0;
	TEST_NEAR(t, model_rent_setup_s(&sc, &p, &r), 330.0, 1e-9);
	/* a 1-year reservation: no set-up (the nodes stay up with the data), the share of the month */
	sc.price.rent_reserved = true;
	TEST_NEAR(t, model_rent_setup_s(&sc, &p, &r), 0.0, 0);
	rc.rent_setup_s = 0.0;
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.rent_usd, 16 * 2.0 * 0.5, 1e-9); /* at full use: the run's own 0.5 h */
	sc.money.utilisation = 0.5;
	x = r;
	xc = rc;
	model_run_money(&sc, &x, &xc);
	TEST_NEAR(t, xc.rent_usd, 2.0 * rc.rent_usd, 1e-9);
	sc.money.runs_per_month = 10.0; /* ten runs carry the reserved month */
	model_run_money(&sc, &x, &xc);
	TEST_NEAR(t, xc.rent_usd, 16 * 2.0 * month_s / 3600.0 / 10.0, 1e-9);
}

static void test_owner(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	const double month_s = 365.25 * 86400.0 / 12.0;
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	sc.nodes = 8;
	sc.money.utilisation = 1.0;
	sc.money.support_frac_year = 0.12;
	sc.money.facility_usd_kw_month = 100.0;
	sc.money.finance_rate = 0.0; /* the straight line first */
	sc.money.residual_frac = 0.0;
	sc.money.pue = 1.5;
	sc.money.kwh_usd = 0.1;
	r.throughput_img_s = NAN;
	r.gpus = 64;
	model_run_capex(&sc, &p, &r, &rc); /* capex 874,000 */
	r.tta_s = 3600.0;
	rc.energy_J = 50e3 * 3600.0;   /* 50 kWh */
	rc.power_max_W = 80e3;         /* 80 kW contracted */
	model_run_money(&sc, &r, &rc);
	double share = 3600.0 / month_s;
	TEST_NEAR(t, rc.energy_usd, 50 * 1.5 * 0.1, 1e-12);
	TEST_NEAR(t, rc.support_usd, 0.12 * 874000.0 / 12.0 * share, 1e-12);
	TEST_NEAR(t, rc.facility_usd, 100.0 * 80.0 * share, 1e-12);
	TEST_NEAR(t, rc.tco_usd, 874000.0 / 60.0 * share + rc.support_usd + rc.facility_usd + rc.energy_usd, 1e-12);
	TEST_CHECK(t, rc.tco_lo_usd < rc.tco_usd && rc.tco_usd < rc.tco_hi_usd, "tco range %g %g %g", rc.tco_lo_usd, rc.tco_usd,
		   rc.tco_hi_usd);
	double busy = rc.tco_usd;
	sc.money.utilisation = 0.5; /* half the runs carry the same month: fixed costs per run double */
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.tco_usd - rc.energy_usd, 2.0 * (busy - rc.energy_usd), 1e-12);
	sc.money.utilisation = 1.0;
	sc.money.finance_rate = 0.06; /* annuity: 874,000 x r / (1 - (1 + r)^-60), r = 0.005 */
	model_run_money(&sc, &r, &rc);
	double ann = 874000.0 * 0.005 / (1.0 - pow(1.005, -60.0));
	TEST_NEAR(t, rc.tco_usd, ann * share + rc.support_usd + rc.facility_usd + rc.energy_usd, 1e-9);
	sc.money.finance_rate = 0.0;
	sc.money.residual_frac = 0.25;
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.tco_usd, 0.75 * 874000.0 / 60.0 * share + rc.support_usd + rc.facility_usd + rc.energy_usd, 1e-12);
	sc.money.residual_frac = 0.0;
	/* break-even: fixed a month / (rent per run - energy per run); rent 64 x 4 x 1 h = 256 at today's rate */
	sc.money.rent_decline = 0;
	sc.price.ref_rent_usd_gpu_h = 4.0;
	sc.price.ref_rent_gpus = 8;
	model_run_money(&sc, &r, &rc);
	double fix = 874000.0 / 60.0 + 0.12 * 874000.0 / 12.0 + 100.0 * 80.0;
	TEST_NEAR(t, rc.breakeven_runs_per_month, fix / (256.0 - 7.5), 1e-12);
	TEST_CHECK(t, rc.buy_wins_above, "on demand: buying wins above the crossing");
	sc.price.ref_rent_usd_gpu_h = 0.1; /* renting cheaper than the energy alone */
	model_run_money(&sc, &r, &rc);
	TEST_CHECK(t, rc.breakeven_runs_per_month == 0 && !rc.buy_wins_above, "never: %g", rc.breakeven_runs_per_month);
	/* reserved at 4 a GPU-hour: 64 x 4 x 730.5 h = 187,008 a month against the owner's 31,307 + 7.5 a run:
	 * buying wins below (187,008 - 31,307) / 7.5 runs, far above the 730.5 a month holds; at 0.1 (4,675 a
	 * month, below the owner's fixed month) never */
	sc.price.rent_reserved = true;
	sc.price.ref_rent_usd_gpu_h = 4.0;
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.breakeven_runs_per_month, (64 * 4.0 * month_s / 3600.0 - fix) / 7.5, 1e-9);
	TEST_CHECK(t, !rc.buy_wins_above && rc.breakeven_use > 1, "reserved, owning always: %g", rc.breakeven_use);
	sc.price.ref_rent_usd_gpu_h = 0.1;
	model_run_money(&sc, &r, &rc);
	TEST_CHECK(t, rc.breakeven_runs_per_month == 0 && !rc.buy_wins_above, "reserved, never: %g",
		   rc.breakeven_runs_per_month);
}

/* The priced 8-node (64-GPU) cluster both buy-vs-rent tests weigh: a 10-minute run drawing 20 kW (80 kW at
 * most), owned at 54% use. */
static void cluster_64(model_scenario *sc, model_params *p, model_result *r, model_cost *c)
{
	memset(r, 0, sizeof *r);
	memset(c, 0, sizeof *c);
	node_priced(sc, p);
	sc->nodes = 8;
	sc->money.utilisation = 0.54;
	sc->money.rent_decline = 0; /* today's rate: the rules below weigh it (the fall: test_rent_decline) */
	r->gpus = 64;
	r->throughput_img_s = NAN;
	model_run_capex(sc, p, r, c);
	r->tta_s = 600.0;
	c->energy_J = 20e3 * 600.0; /* 20 kW for 10 minutes */
	c->power_max_W = 80e3;
}

/* Buy vs rent as a month of work reduces to the buyer's spreadsheet rule where the rented runs carry no
 * set-up: break-even use = owner's fixed $/GPU-hour / (rate - energy $/used GPU-hour), flip rate at use u =
 * fixed / u + energy; against a reservation the month's lines cross the other way. */
static void test_buy_rent(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r, x;
	model_cost rc, xc;
	const double month_s = 365.25 * 86400.0 / 12.0, gpu_h = 64 * month_s / 3600.0;
	cluster_64(&sc, &p, &r, &rc);
	sc.price.ref_rent_usd_gpu_h = 6.0;
	sc.price.ref_rent_gpus = 8;
	model_run_money(&sc, &r, &rc);
	x = r;
	xc = rc;
	xc.rent_usd = 64 * 6.0 * 600.0 / 3600.0; /* the run rented, no set-up */
	model_buy_rent b;
	model_buy_rent_eval(&sc, &r, &rc, &sc, &x, &xc, 6.0, &b);
	double e_gpu_h = rc.energy_usd / (64 * 600.0 / 3600.0);
	TEST_NEAR(t, b.energy_usd_gpu_h, e_gpu_h, 1e-12);
	TEST_NEAR(t, b.fixed_usd_gpu_h, (b.owned_month_usd - b.runs_month * rc.energy_usd) / gpu_h, 1e-12);
	TEST_NEAR(t, b.breakeven_use, b.fixed_usd_gpu_h / (6.0 - e_gpu_h), 1e-12);
	TEST_NEAR(t, b.flip_usd_gpu_h, b.fixed_usd_gpu_h / 0.54 + e_gpu_h, 1e-12);
	TEST_NEAR(t, b.use, 0.54, 1e-12);
	TEST_CHECK(t, b.buy_wins_above && b.rent_wins == (b.breakeven_use > 0.54), "use %g", b.breakeven_use);
	/* the model's own figures in the result (with the day's set-up share) within 1% of the rule */
	TEST_NEAR(t, rc.breakeven_use, b.breakeven_use, 0.01);
	TEST_NEAR(t, rc.flip_usd_gpu_h, b.flip_usd_gpu_h, 0.01);
	/* a reservation at 2 a GPU-hour: a flat month; buying wins below the use where energy closes the gap */
	sc.price.rent_reserved = true;
	xc.rent_usd = 64 * 2.0 * month_s / 3600.0 * (600.0 / (0.54 * month_s));
	model_buy_rent_eval(&sc, &r, &rc, &sc, &x, &xc, 2.0, &b);
	double fixed = b.fixed_usd_gpu_h;
	TEST_CHECK(t, !b.buy_wins_above, "a reservation: buying wins below");
	TEST_NEAR(t, b.rented_month_usd, 64 * 2.0 * month_s / 3600.0, 1e-12);
	TEST_NEAR(t, b.breakeven_use, (2.0 - fixed) / e_gpu_h, 1e-9);
	TEST_CHECK(t, b.rent_wins == (b.rented_month_usd < b.owned_month_usd), "one comparison");
	TEST_NEAR(t, b.flip_usd_gpu_h, fixed + 0.54 * e_gpu_h, 1e-12);
}

/* The cash flow by year: year 0 buys, 5 years of running costs, the resale back at the end; the sums and
 * the discounting at the cost of capital. */
static void test_cashflow(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	model_cash_year y[8];
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	sc.nodes = 8;
	sc.money.utilisation = 1.0;
	sc.money.support_frac_year = 0.1;
	sc.money.facility_usd_kw_month = 100.0;
	sc.money.finance_rate = 0.1;
	sc.money.residual_frac = 0.2;
	r.throughput_img_s = NAN;
	r.gpus = 64;
	model_run_capex(&sc, &p, &r, &rc); /* 874,000 */
	r.tta_s = 365.25 * 86400.0 / 12.0 / 100.0; /* 100 runs a month fill it */
	rc.energy_J = 3.6e6 / (sc.money.pue * sc.money.kwh_usd); /* 1 USD of energy a run at the default PUE and price */
	rc.power_max_W = 10e3;
	model_run_money(&sc, &r, &rc);
	TEST_NEAR(t, rc.owned_usd_gpu_h, rc.tco_usd / (64 * r.tta_s / 3600.0), 1e-12);
	sc.money.rent_decline = 0; /* today's rent every year (the fall: test_cashflow_rent) */
	int n = model_cashflow(&sc, &r, &rc, 50.0, 0, y, 8);
	TEST_CHECK(t, n == 6, "years 0..5: %d rows", n);
	TEST_NEAR(t, y[0].capex_usd, 874000.0, 1e-9);
	TEST_NEAR(t, y[1].runs, 1200.0, 1e-9);
	TEST_NEAR(t, y[1].support_usd, 87400.0, 1e-9);
	TEST_NEAR(t, y[1].facility_usd, 12 * 100.0 * 10.0, 1e-9);
	TEST_NEAR(t, y[1].energy_usd, 1200.0, 1e-6);
	TEST_NEAR(t, y[5].residual_usd, -0.2 * 874000.0, 1e-9);
	TEST_NEAR(t, y[5].owned_cum_usd, 874000.0 + 5 * (87400.0 + 12000.0 + 1200.0) - 174800.0, 1e-6);
	TEST_NEAR(t, y[5].rented_cum_usd, 5 * 1200.0 * 50.0, 1e-9);
	TEST_NEAR(t, y[1].rented_pv_cum_usd, 60000.0 / 1.1, 1e-6);
	TEST_CHECK(t, y[5].owned_pv_cum_usd < y[5].owned_cum_usd, "discounted below the sum");
	sc.money.amortize_years = 2.5; /* a half year at the end */
	n = model_cashflow(&sc, &r, &rc, 50.0, 0, y, 8);
	TEST_CHECK(t, n == 4, "2.5 years: %d rows", n);
	TEST_NEAR(t, y[3].runs, 600.0, 1e-9);
	rc.capex_usd = NAN;
	TEST_CHECK(t, model_cashflow(&sc, &r, &rc, 50.0, 0, y, 8) == 0, "no capex: no cash flow");
	/* the defaults: a cost of capital and a resale value, both sourced (model_money_default) */
	model_money m;
	model_money_default(&m);
	TEST_CHECK(t, m.finance_rate > 0 && m.residual_frac > 0, "defaults %g %g", m.finance_rate, m.residual_frac);
}

/* The rented column falls with the market year by year: each year's rent is today's x the plain average of
 * that year's months' factor (each month's power summed here, apart from the running products), the years add
 * up to the runs at the horizon's average the decision weighs (within 1e-9 relative), year 1 above it and the
 * last year below (where a term ends inside the horizon); with no fall every year is today's rent. Over horizons (a half year at the end), on
 * demand and 1- and 3-year terms. */
static void test_cashflow_rent(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	model_cash_year y[12];
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	sc.nodes = 8;
	sc.money.utilisation = 1.0;
	r.gpus = 64;
	model_run_capex(&sc, &p, &r, &rc);
	r.tta_s = 365.25 * 86400.0 / 12.0 / 100.0; /* 100 runs a month */
	const double horizons[] = {5, 2.5, 7}, terms[] = {0, 1, 3}, today = 50.0;
	for (int h = 0; h < 3; h++)
		for (int k = 0; k < 3; k++) {
			sc.money.amortize_years = horizons[h];
			sc.money.rent_decline = 0.25;
			int n = model_cashflow(&sc, &r, &rc, today, terms[k], y, 12), months = (int)ceil(horizons[h] * 12 - 1e-9);
			double runs = 0;
			for (int i = 1; i < n; i++) {
				double sum = 0;
				int to = (int)fmin(12 * i, months);
				for (int m = 12 * (i - 1); m < to; m++) {
					double at = (m + 0.5) / 12;
					sum += pow(0.75, terms[k] > 0 ? terms[k] * floor(at / terms[k]) : at);
				}
				TEST_NEAR(t, y[i].rented_usd, y[i].runs * today * sum / (to - 12 * (i - 1)),
					  1e-12 * y[i].rented_usd);
				runs += y[i].runs;
			}
			double whole = runs * today * model_rent_horizon_factor(&sc.money, terms[k]);
			TEST_NEAR(t, y[n - 1].rented_cum_usd, whole, 1e-9 * whole);
			TEST_CHECK(t, terms[k] >= horizons[h] || /* one term holds today's rate throughout */
					      (y[1].rented_usd / y[1].runs > whole / runs &&
					       y[n - 1].rented_usd / y[n - 1].runs < whole / runs),
				   "%g years, term %g: year 1 above the horizon's average, the last below", horizons[h],
				   terms[k]);
			sc.money.rent_decline = 0;
			n = model_cashflow(&sc, &r, &rc, today, terms[k], y, 12);
			for (int i = 1; i < n; i++)
				TEST_NEAR(t, y[i].rented_usd, y[i].runs * today, 1e-12 * y[i].rented_usd);
		}
}

static void test_sensitivity(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	model_sens s[MODEL_SENS_N];
	memset(&r, 0, sizeof r);
	memset(&rc, 0, sizeof rc);
	node_priced(&sc, &p);
	sc.nodes = 8;
	r.throughput_img_s = NAN;
	r.gpus = 64;
	model_run_capex(&sc, &p, &r, &rc);
	r.tta_s = 3600.0;
	rc.energy_J = 50e3 * 3600.0;
	rc.power_max_W = 80e3;
	model_run_money(&sc, &r, &rc);
	model_money_sensitivity(&sc, &r, &rc, 0.1, false, s);
	TEST_NEAR(t, s[MODEL_SENS_PRICE].lo_usd, rc.tco_lo_usd, 1e-12);
	TEST_NEAR(t, s[MODEL_SENS_PRICE].hi_usd, rc.tco_hi_usd, 1e-12);
	TEST_NEAR(t, s[MODEL_SENS_SPEED].lo_in, 3240.0, 1e-12);
	TEST_CHECK(t, s[MODEL_SENS_SPEED].lo_usd < rc.tco_usd && rc.tco_usd < s[MODEL_SENS_SPEED].hi_usd, "speed %g %g",
		   s[MODEL_SENS_SPEED].lo_usd, s[MODEL_SENS_SPEED].hi_usd);
	/* a busier cluster spreads its month over more runs: the low utilisation costs more */
	TEST_CHECK(t, s[MODEL_SENS_UTIL].lo_usd > rc.tco_usd && rc.tco_usd > s[MODEL_SENS_UTIL].hi_usd, "utilisation %g %g",
		   s[MODEL_SENS_UTIL].lo_usd, s[MODEL_SENS_UTIL].hi_usd);
	TEST_NEAR(t, s[MODEL_SENS_UTIL].lo_in, sc.money.utilisation / 2, 1e-12);
	/* energy: kWh x 0.5 saves half the energy bill */
	TEST_NEAR(t, rc.tco_usd - s[MODEL_SENS_KWH].lo_usd, rc.energy_usd / 2, 1e-9);
	TEST_CHECK(t, s[MODEL_SENS_PUE].lo_in == 1.1 && s[MODEL_SENS_PUE].hi_in == 1.8, "PUE range %g-%g",
		   s[MODEL_SENS_PUE].lo_in, s[MODEL_SENS_PUE].hi_in);
	TEST_CHECK(t, strcmp(model_sens_name(MODEL_SENS_PUE), "PUE") == 0, "names");
}

/* The sensitivity in words (plan_sens_text): the use below which renting wins, a flip inside the utilisation's
 * range, the market's rate. */
static void test_sens_words(test_ctx *t)
{
	plan_option buy;
	plan_sens s;
	strbuf sb;
	const char *text;
	strbuf_init(&sb);
	memset(&buy, 0, sizeof buy);
	memset(&s, 0, sizeof s);
	model_scenario_init(&buy.sc);
	buy.sc.node.system_id = "dgxh100";
	buy.sc.node.gpus_per_node = 8;
	buy.sc.nodes = 2;
	s.ok = true;
	s.gpus = 16;
	s.ans = s.buy = &buy;
	s.vs_rent = true;
	s.rent_id = "coreweave-hgx-h100";
	s.use = 0.3;
	s.use_lo = 0.15;
	s.use_hi = 0.45;
	s.rent_use = 0.19;
	s.buy_wins_above = true;
	s.flip_use = true;
	s.market_usd_gpu_h = 1.85;
	s.flip_market = true;
	s.flip_usd_gpu_h = 3.93;
	plan_sens_text(&s, &sb);
	text = sb.s;
	TEST_CHECK(t, strstr(text, "At 16 GPUs, dgxh100 2x8") != NULL, "%s", text);
	TEST_CHECK(t, strstr(text, "wins below 19% use") && strstr(text, "stated 30%: buying wins"), "%s", text);
	TEST_CHECK(t, strstr(text, "the utilisation flips it within 15-45%") != NULL, "%s", text);
	TEST_CHECK(t, strstr(text, "at the market's $1.85 per GPU-hour renting wins") != NULL, "%s", text);
	s.rent_use = 0.0; /* a reservation dearer than owning: buying at any use */
	strbuf_free(&sb);
	strbuf_init(&sb);
	plan_sens_text(&s, &sb);
	text = sb.s;
	TEST_CHECK(t, strstr(text, "beats renting the same runs on coreweave-hgx-h100 at any use") != NULL, "%s", text);
	strbuf_free(&sb);
}

static void test_checks(test_ctx *t)
{
	model_money m;
	model_money_default(&m);
	TEST_CHECK(t, model_money_check(&m) == 0, "defaults pass");
	TEST_CHECK(t, m.pue > 1 && m.utilisation > 0 && m.utilisation < 1, "defaults: pue %g utilisation %g", m.pue,
		   m.utilisation);
	m.utilisation = 0;
	TEST_CHECK(t, model_money_check(&m) != 0, "utilisation 0 refused");
	m.utilisation = 1.5;
	TEST_CHECK(t, model_money_check(&m) != 0, "utilisation 1.5 refused");
	m.utilisation = 1;
	m.pue = 0.9;
	TEST_CHECK(t, model_money_check(&m) != 0, "pue 0.9 refused");
	TEST_CHECK(t, model_price_width("list") < model_price_width("press") &&
			      model_price_width("press") < model_price_width("estimate"),
		   "widths: list narrow, press and estimate wide");
}

/* The crossing is exact under the session rule: at the break-even runs a month, the owner's month (the run's
 * tco x N) equals the same N runs rented as billed at N (model_ref_rent_usd x N, its session from N), for
 * sessions of 24 h, none and 720 h, at rates that put the crossing above and below one full session. */
static void test_breakeven_exact(test_ctx *t)
{
	static const double session_h[] = {24.0, 0.0, 720.0}, rate[] = {4.0, 12.0, 40.0};
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost rc;
	int below = 0;
	cluster_64(&sc, &p, &r, &rc);
	rc.rent_setup_s = 311.6; /* start-up and data copy, once a session */
	sc.price.ref_rent_gpus = 8;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			model_scenario s = sc;
			model_result x = r;
			model_cost xc = rc;
			s.money.rent_session_s = session_h[i] * 3600.0;
			s.price.ref_rent_usd_gpu_h = rate[j];
			model_run_money(&s, &x, &xc);
			double N = xc.breakeven_runs_per_month, full = s.money.rent_session_s / r.tta_s;
			TEST_CHECK(t, xc.buy_wins_above && N > 0 && isfinite(N), "session %g h rate %g: %g", session_h[i],
				   rate[j], N);
			below += N < full;
			s.money.runs_per_month = N; /* the month comparison evaluated at the crossing */
			model_run_money(&s, &x, &xc);
			double owned = N * xc.tco_usd, rented = N * model_ref_rent_usd(&s, &x, &xc);
			TEST_NEAR(t, rented, owned, 1e-3);
			TEST_NEAR(t, xc.owned_month_usd, owned, 1e-9);
			TEST_NEAR(t, xc.rented_month_usd, rented, 1e-9);
			/* the flip rate at that use is the rate itself */
			TEST_NEAR(t, xc.flip_usd_gpu_h, rate[j], 1e-3);
		}
	TEST_CHECK(t, below >= 2, "crossings below one full session: %d", below);
}

/* Rent that falls over the horizon: no decline keeps today's rate; 20% a year averages below 1 over 5 years (the
 * continuous average (1 - 0.8^5) / (5 ln 1.25) = 0.6006, within a month's step); a 3-year reservation holds its
 * rate longer, so it averages higher than on demand; one year of ownership averages about 0.9. */
static void test_rent_decline(test_ctx *t)
{
	model_money m;
	model_money_default(&m);
	TEST_CHECK(t, m.rent_decline > 0 && m.rent_decline < 0.5, "the default fall %g a year: sourced, 0..0.5",
		   m.rent_decline);
	m.rent_decline = 0;
	TEST_NEAR(t, model_rent_horizon_factor(&m, 0), 1.0, 1e-12);
	m.rent_decline = 0.2;
	double od = model_rent_horizon_factor(&m, 0), r3 = model_rent_horizon_factor(&m, 3);
	TEST_NEAR(t, od, (1 - pow(0.8, 5)) / (5 * log(1.25)), 2e-3);
	TEST_CHECK(t, r3 > od && r3 < 1, "3-year reservation %g above on demand %g", r3, od);
	TEST_NEAR(t, r3, (3 * 1.0 + 2 * 0.8 * 0.8 * 0.8) / 5, 1e-9); /* years 0-2 at today's, 3-4 at 0.8^3 */
	/* the running products against each month's power summed plainly, over horizons, falls and terms */
	const double years[] = {1, 2.5, 5, 7}, falls[] = {0.05, 0.25, 0.5}, terms[] = {0, 1, 3};
	for (int y = 0; y < 4; y++)
		for (int f = 0; f < 3; f++)
			for (int k = 0; k < 3; k++) {
				m.amortize_years = years[y];
				m.rent_decline = falls[f];
				int months = (int)ceil(years[y] * 12 - 1e-9);
				double sum = 0;
				for (int i = 0; i < months; i++) {
					double at = (i + 0.5) / 12;
					sum += pow(1 - falls[f], terms[k] > 0 ? terms[k] * floor(at / terms[k]) : at);
				}
				TEST_NEAR(t, model_rent_horizon_factor(&m, terms[k]), sum / months, 1e-12);
			}
	m.rent_decline = 0.2;
	m.amortize_years = 1;
	TEST_NEAR(t, model_rent_horizon_factor(&m, 0), (1 - 0.8) / log(1.25), 2e-3);
}

/* model_price_run on a predicted run: power from the node (the run draws power_frac of it, the site contracts
 * the nodes bought as sold), energy = power x tta_s, then capex and money; a run that does not fit memory keeps
 * its capex and power, its money NAN (nothing to bill). */
static void test_price_run(test_ctx *t)
{
	model_scenario sc;
	model_params p;
	model_result r;
	model_cost c;
	memset(&r, 0, sizeof r);
	node_priced(&sc, &p);
	sc.nodes = 8;
	sc.node.power_W = 10e3;
	sc.price.power_sold_W = 12e3;
	r.gpus = 64;
	r.fits = true;
	r.throughput_img_s = NAN;
	r.tta_s = 3600.0;
	r.staging_s = 0.0;
	model_price_run(&sc, &p, &r, &c);
	TEST_NEAR(t, c.power_W, 8 * 10e3 * p.power_frac, 1e-12);
	TEST_NEAR(t, c.power_max_W, 8 * 12e3, 1e-12);
	TEST_NEAR(t, c.energy_J, c.power_W * 3600.0, 1e-12);
	TEST_NEAR(t, c.capex_usd, 874000.0, 1e-12); /* test_fabric's 8 nodes */
	TEST_CHECK(t, isfinite(c.tco_usd) && c.tco_usd > c.energy_usd, "owner's cost %g", c.tco_usd);
	sc.node.power_W = NAN; /* no figure: (GPU TDPs + CPU TDPs) x power_overhead */
	sc.node.gpu_tdp_W = 700.0;
	sc.node.cpus = 2;
	sc.node.cpu_tdp_W = 350.0;
	model_price_run(&sc, &p, &r, &c);
	TEST_NEAR(t, c.power_W, 8 * (8 * 700.0 + 2 * 350.0) * p.power_overhead * p.power_frac, 1e-9);
	r.fits = false;
	r.tta_s = NAN;
	model_price_run(&sc, &p, &r, &c);
	TEST_NEAR(t, c.capex_usd, 874000.0, 1e-12);
	TEST_CHECK(t, isnan(c.energy_J) && isnan(c.tco_usd) && isnan(c.rent_usd) && c.rent_setup_s == 0,
		   "no fit: no money (%g %g %g)", c.energy_J, c.tco_usd, c.rent_usd);
}

int main(void)
{
	test_ctx t = {0};
	test_fabric(&t);
	test_store(&t);
	test_parts(&t);
	test_rent(&t);
	test_buy_rent(&t);
	test_breakeven_exact(&t);
	test_rent_reserved(&t);
	test_owner(&t);
	test_price_run(&t);
	test_cashflow(&t);
	test_cashflow_rent(&t);
	test_sensitivity(&t);
	test_sens_words(&t);
	test_checks(&t);
	test_rent_decline(&t);
	return test_report(&t);
}
