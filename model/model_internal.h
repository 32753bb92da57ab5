/* model/model_internal.h: what model/'s files share among themselves and with its generated sources (not a
 * public header: nothing outside model/ includes it).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_MODEL_INTERNAL_H
#define SCALEPLAN_MODEL_INTERNAL_H

#include <stddef.h>

#include "model/model.h"

/* model_step.c: the nodes of the scenario's NVLink domain (an NVL72 rack's trays, else 1) that the job uses:
 * the all-reduce's inner level (model.c) and the fabric's need (model_money.c) both start from it. */
int model_domain_nodes(const model_scenario *sc);

/* ---- model.c: parts of model_predict ---- */
/* Latency steps of an all-reduce over `ranks`: algo 1 ring 2(r-1), 2 tree 2 ceil(log2 r) (NCCL's double
 * binary tree), 0 the fewer. 0 for one rank. */
double model_ar_steps(int ranks, double algo);
/* Wall-clock seconds to copy the data set to every node's local drives before the clock starts: 0 unless
 * the stack stages (sc->stack.staged) and the data set lives on shared storage. Every node holds the whole
 * set (NVIDIA MLPerf run.sub copies it once per node; DALI's shards move each epoch), so the job reads
 * nodes x dataset_B from storage at min(aggregate, nodes x per-node share) and each node writes dataset_B to
 * its drives: t = dataset_B / min(storage_Bps / nodes, storage_link_Bps, local rate). 0 for synthetic data. */
double model_staging_s(const model_scenario *sc, const model_params *p);
/* The lead-in (s) of a predicted run (r: iter_s). */
double model_lead_in_s(const model_params *p, const model_result *r);
/* The first epoch's cold read of the data set (s) by `nodes` nodes together (before overlap with training). */
double model_cold_read_s(const model_params *p, double nodes);
/* The run's epochs: --epochs, else the curve x the scenario's epochs_scale. */
double model_run_epochs(const model_scenario *sc, const model_params *p, double global_batch);
/* Bytes per activation element at a precision (fp32/tf32 4, fp16/bf16 2). */
double model_precision_bytes(model_precision p);

/* ---- model_step.c: the step's parts ---- */
/* The expected slowest of `gpus` GPUs over the mean: 1 + cv sqrt(2 ln P) (1 for one GPU). */
double model_step_straggle(int gpus, double straggler_cv);
/* model_exposed_s's pipeline when backward and the all-reduces slow each other: backward runs at 1/slow_compute
 * of its speed while an all-reduce is in flight, an all-reduce at 1/slow_comm while backward runs.
 * ready_w[i]: backward work (s, unslowed, from backward's start) after which bucket i is complete,
 * non-decreasing, the last <= bwd_w; buckets are reduced one at a time in order. Writes when backward
 * and the last all-reduce end (s from backward's start). With factors 1 and 1, max(ends) - bwd_w equals
 * model_exposed_s. */
void model_pipeline_run(int n, const double *ready_w, const double *comm_s, double bwd_w, double slow_compute,
			double slow_comm, double *bwd_end_s, double *comm_end_s);
/* Images/s of each of k ranks of one host that decode their JPEGs on their GPUs (data path gpu), when the step
 * alone would run step_img_s images/s. Each image costs the rank 1/step_img_s of its step, plus what its GPU's
 * decode adds on the rank's own path (1/gpu_decode_img_s: nvJPEG's kernels share the SMs, its copies the
 * stream), and that part waits on what the ranks of the host share - the cores that read files and run the
 * hybrid decoder's host stage, host memory and PCIe, the page cache - as a queue at utilisation
 * U = k x rate / host_decode_img_s waits 1/(1 - U) times its service (M/M/1). The fixed point of
 *   1/rate = 1/step + (1/gpu_decode) / (1 - k rate / host_decode)
 * (a quadratic; its root below host_decode / k). host_decode_img_s infinite: no sharing, the ranks add. */
double model_gpu_decode_rank_img_s(double step_img_s, int k, double gpu_decode_img_s, double host_decode_img_s);

/* ---- model_money.c ---- */
/* No prices (NAN) and no rental terms; the NICs in the server price (model_scenario_init). */
void model_price_init(model_price *pr);
/* n rounded up to whole units of `unit` (a unit below 1 counts as 1): what is bought or billed whole (NVL72
 * racks of 18 trays, rental minimums of GPUs). */
long model_whole_units(long n, long unit);
/* Sets c's capex by part and its range from the node's prices and the nodes bought (model_price_run does),
 * with p's data set bytes and c's power_max_W (racks, cooling). Reads r->throughput_img_s for the store's read
 * rate (NAN: capacity alone). */
void model_run_capex(const model_scenario *sc, const model_params *p, const model_result *r, model_cost *c);
/* What a run rented by the run is billed beyond its tta_s: the instances' start-up (money.rent_boot_s) and
 * the copy of the data set from the provider's store to each node at money.rent_copy_Bps, less the staging
 * already in tta_s; for a bought node what renting its run would add (model_ref_rent_usd). 0 for a
 * reservation (its nodes stay up with the data) or a node without a rate. */
double model_rent_setup_s(const model_scenario *sc, const model_params *p, const model_result *r);

/* ---- model_resnet50.c: the layer table ---- */
/* Multiply-adds of the conv and fc layers per image (the "4.1 GMAC" usually quoted). */
double model_net_macs(const model_net *net);

/* ---- model_interval.c: 90% prediction intervals ---- */
/* Sets r->basis = sc->basis and r's lo/hi fields from the point values, model_interval_factors and
 * model_interval_tta (NAN points give NAN bounds). model_predict calls it: every prediction carries its
 * interval. */
void model_interval_apply(const model_scenario *sc, model_result *r);
/* Two independent errors' bounds (log) together: -sqrt(lo1^2 + lo2^2), +sqrt(hi1^2 + hi2^2). */
void model_interval_combine(double lo1, double hi1, double lo2, double hi2, double *lo, double *hi);

/* One interval: factors on the point; n residuals it came from. All 0 = no such row (factors 1 apply). */
typedef struct model_interval_row {
	double lo_x, hi_x;
	int n;
	double grow_z2; /* growth with the node count (model_interval_spread) */
} model_interval_row;

/* model/gen_intervals.c: generated from model/intervals.csv by tools/intervals_c.sh (make intervals). */
extern const model_interval_row model_interval_table[MODEL_NBASES][MODEL_NPOOLS][MODEL_NQUANTITIES];
extern const char *const model_measured_gpus[]; /* ends with NULL */
/* model/gen_ratios.c: generated from model/ratios.csv by tools/ratios_c.sh (make intervals): for each set of
 * differences (bits 1u << model_diff), by the stacks the two run (model_stacks), the 90% bounds of measured ratio / predicted ratio, lo_x and hi_x, as
 * model_ratio_bounds combines the rows of one difference (calibrate/cal_ratio.c writes them); [0]: unused (1, 1);
 * and the pairs each one-difference row came from. */
extern const double model_ratio_set[MODEL_NSTACKS][1 << MODEL_NDIFFS][MODEL_NQUANTITIES][2];
extern const int model_ratio_n[MODEL_NSTACKS][MODEL_NDIFFS][MODEL_NQUANTITIES];

#endif
