/* model: the analytic model of data-parallel ResNet-50 training.
 *
 * This header starts with the ResNet-50 v1.5 layer table (shapes, parameters, FLOPs, bytes) that
 * exec/ trains from and sim/ replays; keep that part stable (API agreed in team.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_MODEL_H
#define SCALEPLAN_MODEL_H

#include <stdbool.h>
#include <stddef.h>

struct hw_arch; /* hwdb/hw.h */

/* ---- ResNet-50 layer table (agreed API; exec/ and sim/ depend on it) ---- */

typedef enum model_op { MODEL_OP_CONV, MODEL_OP_BN, MODEL_OP_RELU, MODEL_OP_MAXPOOL, MODEL_OP_AVGPOOL,
                        MODEL_OP_FC, MODEL_OP_ADD } model_op;

typedef struct model_layer {
	char name[48];      /* torchvision parameter prefix: "conv1", "layer1.0.conv2", "layer1.0.downsample.0", "fc" */
	model_op op;
	int input;          /* index of the layer whose output feeds this one; -1 = the input image */
	int input2;         /* MODEL_OP_ADD only: the residual (shortcut) input; else -1 */
	int in_c, in_h, in_w;
	int out_c, out_h, out_w;
	int kernel, stride, pad;   /* conv and pooling; 0 otherwise */
	long params;        /* trainable parameters (conv weight, bn gamma+beta, fc weight+bias); no conv bias */
	double fwd_flop;    /* per image, 2 x multiply-adds for conv/fc; elementwise ops count 1 per element */
	double bwd_flop;    /* per image: data grad + weight grad (about 2x fwd for conv/fc) */
	long in_elems, out_elems, weight_elems;  /* per image (weights: total) - callers multiply by bytes/element */
} model_layer;

typedef struct model_net {
	int nlayers;
	model_layer *layers;   /* [nlayers], forward topological order */
	int classes;
	int image_hw;
	long params;           /* sum of layers[].params */
	double fwd_flop;       /* per image, sum of layers[].fwd_flop */
	double bwd_flop;       /* per image, sum of layers[].bwd_flop */
} model_net;

/* Builds the ResNet-50 v1.5 layer table (torchvision resnet50) for `classes` outputs and square
 * input images of image_hw pixels. Layers are in forward topological order; those with parameters
 * appear in the exact order of torchvision's resnet50().parameters() (conv1, bn1, layer1.0.conv1,
 * layer1.0.bn1, ..., layer1.0.downsample.0, layer1.0.downsample.1, ..., fc). Layers without
 * parameters (relu, maxpool, add, avgpool) are interleaved where the forward pass runs them and
 * are named after their place ("relu", "maxpool", "layer1.0.relu1", "layer1.0.add", "avgpool").
 * v1.5: stride 2 sits on the 3x3 conv (conv2) of the first bottleneck of layer2-4.
 * FLOP conventions: conv/fc 2 per multiply-add; bn forward 2 per element (scale and shift after
 * the statistics), backward 4; relu 1 forward, 1 backward; add 1 forward, 0 backward; max pool
 * k*k per output forward, 1 per input backward; avg pool 1 per input forward and backward.
 * Conv/fc backward = data gradient (= forward) + weight gradient (= forward), except the stem
 * conv, whose input (the image) needs no gradient. fc has a bias, convs have none.
 * Returns 0, or ERR_INPUT (err set) when classes < 1 or image_hw < 32; *net is then empty. */
int model_net_resnet50(model_net *net, int classes, int image_hw); /* 0 or ERR_INPUT */
void model_net_free(model_net *net);



/* ---- Free parameters of the model (one struct; calibrate/ fits and overlays them by name) ----
 * Every default and its source is listed in model_params.c (table model_param_defs). */

typedef struct model_params {
	/* compute (roofline per layer on the GPU's peak and memory bandwidth) */
	double eff_compute;      /* fraction of the dense tensor peak conv/fc reach on tensor cores at large batch
				  * (x the architecture's node.tensor_frac) */
	double eff_compute_fp32; /* fraction of the CUDA-core peak (fp32 runs, GPUs without tensor cores, and the
				  * elementwise layers' arithmetic) */
	double eff_mem;          /* fraction of the memory bandwidth the layers' traffic reaches */
	double eff_compute_sync; /* eff_compute on GPUs whose tensor cores take synchronous register-fed MMAs
				  * (Volta, Turing, Ampere: node.tensor_sync) */
	double fuse_bn_relu;     /* 0..1: share of the batch-norm and ReLU layers' own memory traffic folded into
				  * the neighbouring convolutions (1: MLPerf-grade fused kernels, 0: each its own pass) */
	double b_half;           /* images per GPU at which the batch efficiency b/(b+b_half) is one half */
	double compute_eff;      /* > 0: replaces the stack's compute_eff (a calibrate profile's fit); 0: the stack's */
	double gen_gain_exp;     /* a framework stack gains (G2/G1)^x where MLPerf-grade software gains G2/G1 across
				  * GPU generations (model_stack_gen_eff); fused stacks take 1 */
	double gen_gain_exp_lo, gen_gain_exp_hi; /* the exponents the moves on file span (the unseen-generation interval) */
	double unseen_stack_err; /* |ln(predicted / measured)| a stack never seen reaches (leave-one-stack-out) */
	double opt_B_per_param;  /* optimizer-step bytes moved per parameter (SGD momentum, fp32) */
	double act_mem_factor;   /* activation memory = factor x sum(out_elems) x bytes/element x batch */
	double mem_overhead_B;   /* per-GPU memory besides weights/activations (context, workspace) */
	/* communication (alpha-beta per step, nccl-tests busbw convention) */
	double bw_eff_nvlink;    /* achieved busbw / per-GPU NVLink or NVSwitch bandwidth */
	double bw_eff_pcie;      /* achieved busbw / PCIe (or host-path) bandwidth */
	double bw_eff_net;       /* achieved busbw / (NICs per node x NIC bandwidth) */
	double alpha_nvlink_s;   /* per-step latency inside a node over NVLink/NVSwitch */
	double alpha_pcie_s;     /* per-step latency inside a node over PCIe / host memory */
	double alpha_net_s;      /* per-step latency between nodes */
	double overlap;          /* 0..1: weight of the bucket pipeline (1) vs no overlap (0) */
	/* contention while backward and an all-reduce run together, by the outermost link level of the
	 * all-reduce: backward slowed slowdown_compute_* times, the all-reduce slowdown_comm_* times
	 * (1 = none; measured by scaleplan-train --bench-allreduce --load resnet, fitted by calibrate) */
	double slowdown_compute_nvlink, slowdown_comm_nvlink;
	double slowdown_compute_pcie, slowdown_comm_pcie;
	double slowdown_compute_net, slowdown_comm_net;
	double bucket_B;         /* gradient bucket size (bytes) */
	double grad_B_lowp;      /* bytes per gradient element at fp16/bf16 (fp32/tf32: 4) */
	double algo;             /* 0 auto (faster of ring and tree), 1 ring, 2 tree */
	double straggler_cv;     /* per-GPU iteration time coefficient of variation: a synchronous step
				  * waits for the slowest of P GPUs, x (1 + cv sqrt(2 ln P)) */
	/* input pipeline and storage */
	double decode_img_s_core;   /* JPEG decode + augment rate per CPU core at decode_ref_hz */
	double decode_ref_hz;       /* CPU clock at which decode_img_s_core was measured */
	double cores_reserved_per_gpu; /* cores a framework keeps per GPU (TensorFlow: 4) */
	double decode_cores_min_frac;  /* decode keeps at least this share of the cores (see model.c) */
	double host_copy_B_per_img; /* bytes copied host->GPU per decoded image (224x224x3 uint8) */
	double host_input_img_s_core; /* data path gpu: img/s one host core carries of the input stage the ranks of a
					 * host share (model_input_rank_img_s) */
	double dataset_B;           /* training set size on storage */
	double val_images;          /* evaluation images per pass */
	double page_cache_frac;     /* fraction of host memory usable as page cache */
	double storage_default_Bps; /* one node's local drives when the system gives none (one NVMe) */
	/* convergence: epochs to target vs global batch */
	double conv_model;       /* 0: interpolate the MLPerf RCP points; 1: e0 (1 + (B/b0)^k) */
	double conv_e0, conv_b0, conv_k;
	double conv_cv;          /* run-to-run spread of the epochs to target (sd / mean): sim --runs */
	/* run-level costs (fitted to the MLPerf v4.0 logs: refdata/mlperf_v4_0_phases.csv, calibrate/cal.h) */
	double startup_s;        /* launch to run_start: process start, data indexing, NCCL init, compile */
	double startup_per_log2_node_s; /* ... + this x log2(nodes) */
	double startup_per_sqrt_node_s; /* ... + this x sqrt(nodes) */
	double startup_per_node_s; /* ... + this x nodes (the fit sets at most one of the three) */
	double run_lead_s;       /* scored time before steady epochs: run_start to the first epoch and the
				  * first evaluation's set-up: this + run_lead_steps x the step time */
	double run_lead_steps;   /* ... the lead-in's part that scales with the step (steps) */
	double cold_read_Bps;    /* per node: the first epoch reads its share of the data set at this rate
				  * (page cache dropped, as MLPerf does), overlapped with training */
	double cold_read_node_exp; /* n nodes read the data set at cold_read_Bps x n^this together (1: each
				  * node at its own rate; < 1: the storage they share serves more nodes slower) */
	double eval_fixed_s;     /* one evaluation pass: this + eval_step_frac x val_images / throughput */
	double eval_step_frac;   /* cost of an evaluation image relative to a training image */
	double epoch_boundary_s; /* per epoch: fixed gap between epochs (loader restart) */
	double epoch_boundary_iters; /* per epoch: gap in training steps (the partial last batch, restart) */
	double eval_every;       /* epochs between evaluation passes (MLPerf: 4) */
	double power_frac;       /* average draw / max power during training */
	double power_overhead;   /* node power = (GPU TDPs + CPU TDPs) x this, when the db has no node power */
} model_params;

/* The achieved tensor-core throughput of a GPU architecture (hwdb's archs.csv row, `tensor_frac`, its source
 * there) relative to its datasheet dense peak, next to Hopper's (= 1): model_node's tensor_frac. 0 for
 * architectures without tensor cores (Pascal). NULL (no architecture known): 1. */
double model_arch_tensor_frac(const struct hw_arch *arch);
/* The share of its datasheet clock a board sustains in training when its power is below what that clock
 * needs (PCIe boards of SXM silicon: A100 PCIe 250-300 W against the SXM4's 400 W at the same 1410 MHz).
 * Dynamic power is C V^2 f and the voltage rises with the clock (Hennessy and Patterson, Computer
 * Architecture, 6th ed., section 1.5): P ~ f^3 per unit of silicon. The sibling (the same chip on a board
 * with the power to hold its clock) draws draw_frac of its tdp at its clock f_sib; this board at its clock f,
 * with peak_ratio of the sibling's peak (its SMs x f), needs draw_frac x sib_tdp x peak_ratio x (f / f_sib)^2.
 * Returns cbrt(tdp / need) when that is below 1, else 1 (and 1 for any figure not positive). */
double model_power_clock_x(double tdp_W, double sib_tdp_W, double peak_ratio, double clock_ratio, double draw_frac);
/* Whether the architecture's tensor cores take the model's eff_compute_sync (archs.csv `compute_eff`: the
 * synchronous, register-fed MMAs of Volta, Turing, Ampere) rather than eff_compute (Hopper's asynchronous
 * warp-group ones, Blackwell's, and Ada's, kept with the GPUs it was fitted on). NULL: false. */
bool model_arch_tensor_sync(const struct hw_arch *arch);

/* Fills *p with the documented defaults. */
void model_params_default(model_params *p);
/* Sets one parameter by name. 0, or ERR_INPUT (unknown name, with a suggestion; value out of its
 * range). */
int model_params_set(model_params *p, const char *name, double value);
/* Reads one parameter by name into *value. 0 or ERR_INPUT. */
int model_params_get(const model_params *p, const char *name, double *value);
/* Number of parameters and the i-th one's name, range, unit and source (for --help, calibrate). */
int model_params_count(void);
typedef struct model_param_info {
	const char *name;
	double def, lo, hi;
	const char *unit;
	const char *source;
} model_param_info;
const model_param_info *model_params_info(int i);
/* Parses "NAME=VALUE" and sets it. 0 or ERR_INPUT. */
int model_params_parse(model_params *p, const char *assignment);
/* Overlays a profile CSV with columns `param,value` (extra columns ignored). 0, ERR_INPUT (file:line
 * message) or ERR_ENV (unreadable). */
int model_params_load(model_params *p, const char *path);

/* ---- Scenario: one hardware configuration + run options; resolved to plain numbers ---- */

typedef enum model_precision { MODEL_FP32, MODEL_TF32, MODEL_FP16, MODEL_BF16 } model_precision;
typedef enum model_data { MODEL_DATA_CPU, MODEL_DATA_GPU, MODEL_DATA_SYNTHETIC } model_data;
typedef enum model_bottleneck { MODEL_BN_COMPUTE, MODEL_BN_COMM, MODEL_BN_DATA, MODEL_BN_IO } model_bottleneck;
/* How the prediction's GPU is known: measured (this GPU has results in the data or the user's --measured),
 * transfer (its architecture does), estimate (neither). It sets the width of the intervals. */
typedef enum model_basis { MODEL_BASIS_MEASURED, MODEL_BASIS_TRANSFER, MODEL_BASIS_ESTIMATE } model_basis;

enum { MODEL_MAX_BUCKETS = 128, MODEL_MAX_MEASURED = 16 };

/* Facts every module counts with, written once. */
#define MODEL_IMAGENET_TRAIN_IMAGES 1281167 /* ImageNet-1k (ILSVRC2012) training images, refdata/seed_facts.md */
#define MODEL_MLPERF_TARGET_TOP1 0.759 /* MLPerf ResNet-50 v1.5 quality target since v0.6: the convergence curve's */
/* A macro's value as a string literal, for help texts that print a default (MODEL_STR(MODEL_IMAGENET_...)). */
#define MODEL_STR(x) MODEL_STR_(x)
#define MODEL_STR_(x) #x
#define MODEL_MONTH_S (365.25 * 86400.0 / 12.0) /* a month of wall clock: a Julian year / 12 */

/* The node's hardware as flat numbers: what the time model reads, and the power its energy is priced from
 * (filled from hwdb by plan_resolve, or by hand in tests); its prices and terms are model_price. */
typedef struct model_node {
	const char *system_id;   /* for output; "custom" when none */
	const char *storage_id;  /* for output: where the data set lives; NULL = the nodes' drives */
	const char *gpu_id;
	int gpus_per_node;       /* G */
	int max_gpus_per_node;   /* the system's GPU count (G may be lower) */
	/* GPU */
	double peak_flops;       /* conv/fc peak at the chosen precision (dense tensor or FP32) */
	double tensor_frac;      /* the architecture's achieved tensor-core throughput relative to its datasheet
				  * peak, next to Hopper's (model_arch_tensor_frac); 0 = no tensor cores (conv/fc on
				  * CUDA cores at peak_flops); model_scenario_init sets 1 */
	bool tensor_sync;        /* synchronous register-fed tensor MMAs (Volta, Turing, Ampere): eff_compute_sync */
	double fp32_flops;       /* non-tensor peak (elementwise layers) */
	double mem_bw_Bps;
	double gpu_mem_B;
	double gpu_tdp_W;
	/* intra-node */
	bool intra_nvlink;       /* NVLink/NVSwitch between GPUs (else PCIe switch / host path) */
	double intra_bw_Bps;     /* per-GPU bandwidth between GPUs, one direction */
	/* host */
	double host_link_Bps;    /* one CPU-GPU link, one direction */
	int host_links;          /* host links shared by the node's GPUs; 0 = unknown: copies not modelled */
	int cores;               /* physical cores per node (all sockets); 0 = unknown: decode not modelled */
	double cpu_hz;           /* base clock */
	double cpu_tdp_W;        /* per socket */
	int cpus;                /* sockets */
	double host_mem_B;       /* NAN or 0 = unknown: the data set is assumed to fit the page cache */
	int decode_threads;      /* fixed decode threads (software stack), 0 = cores - reserved x G */
	/* network */
	double nic_Bps;          /* one NIC port, one direction; 0 = none */
	int nics_per_node;
	int domain_gpus;         /* GPUs in one NVLink domain, a multiple of the system's GPUs per node
				  * (GB200 NVL72: 72 over 18 trays); 0 = the node */
	/* storage: where the data set lives (model_storage_rate, model_staging_s) */
	double storage_Bps;      /* aggregate read rate of the shared storage holding the data set; 0 = none (the
				  * data set is on each node's local drives); INFINITY = grows with its clients */
	double storage_link_Bps; /* the most one node reads from the shared storage (client NIC); 0 = no cap */
	double local_Bps;        /* node-local drives, read rate per node; 0 = unknown: storage_default_Bps */
	/* power: what the nodes draw (the run's energy; model_price_run) */
	double power_W;          /* node max power, NAN when unknown */
	const char *power_basis; /* how power_W is known: measured, datasheet, estimate; NULL = none given */
} model_node;

/* What the nodes cost to buy and to rent, and the terms they are sold and rented on (filled from hwdb by
 * plan_resolve, or by hand in tests): model_price_run (model_money.c) prices a run from it; the time model never
 * reads it. */
typedef struct model_price {
	/* buy: whole units of unit_nodes nodes */
	double price_usd;        /* per node (unit_price_usd / unit_nodes), NAN when unknown */
	int unit_nodes;          /* nodes sold as one unit (an NVL72 rack: 18 trays); 0 or 1 = a node */
	double unit_price_usd;   /* list price of one unit, NAN when unknown */
	double unit_price_lo_usd, unit_price_hi_usd; /* the unit price's range (lo <= price <= hi) */
	double power_sold_W;     /* max power of a node as sold (all its GPUs), what the site contracts and
				  * cools for the nodes bought; NAN: power_W or the TDP sum of the GPUs used */
	bool liquid_cooled;      /* the system needs liquid-cooling distribution (GB200 NVL72) */
	/* what the cluster buys beside its servers (model_run_capex); NAN = not priced */
	bool nics_in_price;      /* the NICs come with the server (else nic_usd each) */
	int nics_bought;         /* compute-fabric NICs a node has as sold (all cabled, however many GPUs are used) */
	int switch_ports;        /* fabric: ports of one switch; 0 = the fabric is not priced */
	double switch_usd;       /* one switch */
	double link_usd;         /* one link: a transceiver at each end and the fibre */
	double nic_usd;          /* one NIC port (NAN: not priced) */
	double oversubscription; /* leaf down-ports per up-port (1 = non-blocking; 0 read as 1) */
	double net_width;        /* relative half-width of the fabric's prices (0.05 list .. 0.35 estimate) */
	bool store_shared;       /* the data set lives on a shared store that is bought with the cluster */
	double store_unit_usd;   /* one unit of it (NAN: not priced) */
	double store_unit_B;     /* usable bytes of one unit */
	double store_unit_Bps;   /* read rate of one unit (NAN: capacity alone sizes it) */
	double store_width;      /* relative half-width of its price */
	/* rent as billed (model_run_money) */
	double rent_usd_gpu_h;   /* rental rate per GPU-hour (whole nodes are rented), NAN when none */
	int rent_unit_gpus;      /* the fewest GPUs rented at once (an NVL72 rack: 72); 0 = one node */
	int rent_max_gpus;       /* the most GPUs at rent_usd_gpu_h (one instance's provider); 0 = no limit */
	double rent_increment_s; /* billing increment; NAN = continuous */
	double rent_min_s;       /* the least time billed; NAN = none */
	double rent_cluster_usd_gpu_h;   /* the rate above rent_max_gpus; NAN = none (not rentable so) */
	double rent_cluster_increment_s; /* its billing increment; NAN = continuous */
	double rent_width;       /* relative half-width of the rate */
	double rent_market_usd_gpu_h; /* the rate's low end: the market's and committed clusters' rate for the
				       * same GPU (NAN: rate x (1 - rent_width)) */
	bool rent_spot;          /* the rate is spot: an interrupted run starts again (money.spot_interrupt_month) */
	double rent_term_years;  /* a reservation's term (1 or 3 years; 0 on demand or spot): its rate is held that
				  * long, then renewed at the market's (money.rent_decline) */
	bool rent_reserved;      /* the rate is a 1- or 3-year reservation, paid around the clock for the term
				  * (the reference rate below too); else billed by the run (on demand, spot) */
	/* buy against rent: for a bought system, the cheapest rate at which the same GPU is rented in whole
	 * instances of ref_rent_gpus GPUs (plan_resolve finds it); NAN = none */
	double ref_rent_usd_gpu_h;
	double ref_rent_market_usd_gpu_h; /* that rental's low end (NAN: none) */
	int ref_rent_gpus;
	const char *ref_rent_id;
} model_price;

/* What money costs: the defaults (model_money_default) and their sources are in model_money.c. */
typedef struct model_money {
	double kwh_usd;          /* electricity price per kWh */
	double amortize_years;   /* capex written off over this period (straight line) */
	double runs_per_month;   /* runs a month the owner's cost is spread over; 0 = the runs fill the
				  * utilised time: each run pays the month's fixed cost x run time / (utilisation x month) */
	double utilisation;      /* fraction of the period the owned cluster does paid work, 0 < u <= 1 */
	double pue;              /* facility power / IT power, >= 1: energy is billed at the meter */
	double facility_usd_kw_month; /* colocation (space, cooling, power capacity) per kW of node max power */
	double support_frac_year;/* support contract a year as a fraction of capex */
	double finance_rate;     /* yearly interest on the capex (0 = paid cash): annuity instead of straight line */
	double residual_frac;    /* resale value at the end of the period as a fraction of capex */
	/* the cluster's other parts (model_run_capex; model_money_default gives each its source) */
	double frontend_ports_gpu;  /* front-end and storage network ports per GPU sold */
	double frontend_port_usd;   /* one such port: its share of a leaf and a spine switch, optics and cable */
	double mgmt_usd_node;       /* out-of-band management network per node */
	double store_usd_TB;        /* shared store per TB of flash */
	double store_replicas;      /* copies of the data set the store keeps */
	double store_TB_gpu;        /* shared store a cluster buys per GPU sold, TB (at least the copies) */
	double rack_usd;            /* one rack with its power distribution */
	double rack_W;              /* IT power one rack holds */
	double cooling_usd_W;       /* liquid-cooling distribution per W of a liquid-cooled system */
	double install_frac;        /* installation, cabling and acceptance as a fraction of the hardware */
	double spot_interrupt_month; /* chance that a spot instance is interrupted in a month */
	double rent_boot_s;      /* a rented run's instances: request to ready to run, billed */
	double rent_copy_Bps;    /* a rented node's copy of the data set from the provider's object store */
	double rent_session_s;   /* a rental session on demand: instances held for back-to-back runs, paying the
				  * start-up and copy once; 0 = each run rented alone (model_money_default says why) */
	double grid_kg_kwh;      /* grid carbon intensity, kg CO2e per kWh at the meter */
	double rent_decline;     /* the fraction a year the market's rent falls over the horizon (amortize_years) */
} model_money;
void model_money_default(model_money *m);
/* Checks a money description (from flags): 0, or ERR_INPUT naming the field and what was expected. */
int model_money_check(const model_money *m);
/* The owner's use of a bought cluster whose run takes tta_s: money.utilisation, or what money.runs_per_month
 * implies (runs x tta_s over a month), at most 1 (runs back to back). The figure the owner's month is shared by. */
double model_money_use(const model_money *m, double tta_s);
/* The owner's cost per run (tco_usd) in words, with m's figures and use naming the month's use ("54%
 * utilisation"): the one description that predict, compare's legend and the docs point at. snprintf's return. */
int model_money_tco_words(const model_money *m, const char *use, char *buf, size_t n);
/* The money inputs, one row each: the one table that model_money_default, model_money_check, the CLI's
 * options and --help (cli/scenario.c), report's money rows, costs.xlsx's Assumptions and whatif.html's
 * inputs read. A value as typed is the field / scale (hours for a field in seconds); lo..hi bound it as
 * typed (open_lo/open_hi: the end itself refused). */
typedef struct model_money_input {
	const char *name;    /* the model_money field, also the workbook's defined name */
	size_t off;          /* offsetof(model_money, name) */
	const char *flag;    /* long option without dashes; NULL: no option (a figure of the cluster's parts) */
	const char *meta;    /* --help's name for the value */
	const char *label;   /* what it is (tables, the workbook, the page) */
	const char *unit;    /* the unit as typed */
	double def;          /* the default, in the field's unit */
	double lo, hi;       /* the range as typed */
	bool open_lo, open_hi;
	double scale;        /* field = typed x scale */
	const char *want;    /* what a bad value's message says was expected */
	const char *source;  /* where the default comes from */
} model_money_input;
/* The table and its length. */
const model_money_input *model_money_inputs(int *n);
/* An input by its flag, NULL if none. */
const model_money_input *model_money_input_find(const char *flag);
/* The field of m an input describes, as typed (field / scale). */
double model_money_get(const model_money *m, const model_money_input *in);
/* The relative half-width of a price of a kind: list and quote 0.05, press 0.25, estimate 0.35, other 0.35
 * (docs/prices.md). */
double model_price_width(const char *kind);

/* Precomputed per (node, precision, params); filled by model_scenario_prepare. */
typedef struct model_prep {
	bool ready;
	const model_params *with;     /* the params it was prepared with */
	double fwd_img_s;        /* sum over layers of per-image forward roofline time (at eff 1 batch) */
	double bwd_img_s;
	double fwd_w_s;          /* per-iteration weight traffic time, forward */
	double bwd_w_s;
	double opt_s;            /* optimizer step per iteration */
	double act_B_per_img;    /* activation memory per image */
	double static_mem_B;     /* weights, grads, optimizer state, overhead */
	double grad_B;           /* total gradient bytes */
	double nparams;          /* trainable parameters */
	int nbuckets;
	double bucket_B[MODEL_MAX_BUCKETS];       /* gradient bytes of bucket i (i = 0 first reduced) */
	double bucket_ready_img[MODEL_MAX_BUCKETS]; /* backward time until bucket i is complete: */
	double bucket_ready_w[MODEL_MAX_BUCKETS];   /*   (b + b_half) x ready_img + ready_w (x cal) */
	int bucket_first_layer[MODEL_MAX_BUCKETS];  /* layer indices (forward order) in bucket i: */
	int bucket_last_layer[MODEL_MAX_BUCKETS];   /*   first..last, first <= last */
	double data_node_img_s;  /* decode + host copy capacity per node (img/s), before data_cal */
	double data_1gpu_img_s;  /* the same with one GPU in the node (for scaling efficiency) */
	bool cached;             /* data set fits in page cache after epoch 1 */
} model_prep;

/* Where a stack's compute speed on a GPU comes from: its stacks.csv figure (no cell), a cell measured on this
 * GPU, a cell of the same architecture or of another generation through the generation exponent, or the stacks
 * like it (no cell of its own). */
typedef enum model_eff_how { MODEL_EFF_STACK, MODEL_EFF_CELL, MODEL_EFF_SAME_ARCH, MODEL_EFF_OTHER_GEN,
			     MODEL_EFF_LIKENESS } model_eff_how;

/* A stack's speed on a GPU from its cell on another: e_cell x (g_img_s / cell_g_img_s)^(x - 1), g the model's
 * MLPerf-grade one-GPU img/s on each (a stack that captures only the power x of a generation's gain). */
double model_stack_gen_eff(double e_cell, double cell_g_img_s, double g_img_s, double x);

/* The software stack as numbers (filled from hwdb stacks.csv by the CLI, or by hand in tests): each NAN
 * field leaves the parameter of the same meaning in model_params in force. */
typedef struct model_stack {
	const char *id;               /* for output; "default" when none */
	bool staged;                  /* the data set is copied to every node's local drives before the clock
				       * starts (NVIDIA MLPerf run.sub); else the first epoch reads storage cold */
	double cores_reserved_per_gpu;/* params' cores_reserved_per_gpu */
	double decode_img_s_core;     /* params' decode_img_s_core */
	double grad_B;                /* params' grad_B_lowp (bytes per gradient element at fp16/bf16) */
	double bucket_B;              /* params' bucket_B */
	double overlap;               /* params' overlap */
	double step_overhead_s;       /* framework time per step beside the GPU work; NAN = none */
	double compute_eff;           /* GPU compute speed relative to MLPerf-grade software on this GPU; NAN = 1 */
	model_eff_how eff_how;        /* where compute_eff comes from (plan_resolve: plan_stack_eff) */
	const char *eff_from_gpu;     /* the GPU of the cell it was taken from (EFF_CELL .. EFF_OTHER_GEN), or NULL */
	double eff_lo_x, eff_hi_x;    /* the 90% interval its source adds on throughput (1, 1: none; 0 = 1) */
	double gpu_decode_img_s;      /* data path gpu: the GPU decode's term on a rank's path (img/s, model_gpu_decode_rank_img_s); NAN = none */
} model_stack;

/* One configuration to predict: the node's hardware, its prices, the stack, the run's shape and the site's money
 * figures; prep holds what model_scenario_prepare precomputed. */
typedef struct model_scenario {
	model_node node;         /* what the time model reads */
	model_price price;       /* what the nodes cost (model_price_run); the time model never reads it */
	model_stack stack;
	int nodes;
	int batch_per_gpu;
	model_precision precision;
	model_data data;
	double epochs;           /* > 0 overrides the convergence curve */
	double epochs_scale;     /* multiplies the curve (1; a recipe anchored on the user's run: --measured-epochs) */
	double epochs_anchor_batch; /* the global batch of that run (0 = none): widens the measured range */
	double images;           /* training images per epoch (ImageNet-1k 1,281,167) */
	double compute_cal;      /* multiplies GPU compute time (1 = database estimate; --measured) */
	double data_cal;         /* multiplies the data pipeline rate (1 = estimate) */
	double b_half;           /* < 0: use params' b_half; >= 0: fitted by model_calibrate (2+ batches) */
	model_basis basis;       /* how the GPU is known (plan_resolve decides; model_scenario_init: estimate):
				  * model_predict copies it to the result and applies its interval */
	model_money money;       /* the site's money figures (model_price_run); the time model never reads them */
	model_prep prep;
} model_scenario;

/* A prediction: the run's times, throughput, memory and bottleneck, epochs, and how the GPU is known with the 90%
 * intervals it gives (model_predict). What the run costs is model_cost's (model_price_run). */
typedef struct model_result {
	int gpus;
	int global_batch;
	double compute_s, fwd_s, bwd_s, opt_s;   /* per iteration, per GPU */
	double comm_s;           /* total all-reduce time per iteration */
	double comm_exposed_s;   /* all-reduce time not hidden behind backward (with contention factors:
				  * also the time backward loses to the all-reduces beside it) */
	double decode_s;         /* data path gpu: what the GPU's JPEG decode adds to each step (model_gpu_decode_rank_img_s
				  * with the stack's gpu_decode_img_s; 0 otherwise) */
	double data_s;           /* CPU decode + host copy time per iteration (per node) */
	double io_s;             /* storage read time per iteration in epochs read from storage */
	double iter_s;           /* steady-state iteration time */
	double throughput_img_s, per_gpu_img_s, scaling_eff;
	model_bottleneck bottleneck; /* the resource busiest per iteration: compute_s, comm_s (all of it:
				      * overlap hides it only while it is shorter), data_s, io_s (when
				      * every epoch is read from storage) */
	/* run-level times (s). ttt_s is what MLPerf scores (run_start..run_stop): epochs x epoch_s +
	 * eval_s + boundary_s, data already staged, initialisation excluded. tta_s is wall clock from
	 * launch: startup_s + staging_s + ttt_s. first_epoch_s is the cold first epoch (storage reads);
	 * staging_s is the cost of getting the data where the stack reads it (see staging_time_s). */
	double epochs, epoch_s, first_epoch_s, eval_s, tta_s;
	double startup_s, staging_s, boundary_s, ttt_s;
	double warmup_s;         /* part of ttt_s: run_lead_s + the first epoch's cold page-cache read beyond
				  * what the storage path costs (that part is in staging_s) */
	double mem_per_gpu_B;
	bool fits;               /* false: the batch does not fit GPU memory; times are then NAN */
	bool extrapolated;       /* the global batch is above the largest measured convergence point
				  * (model_conv_max_batch): epochs come from the curve's last slope */
	bool extrapolated_below; /* the global batch is below the smallest measured convergence point
				  * (model_conv_min_batch): epochs held at that point's (model_epochs) */
	/* uncertainty: how the GPU is known and the 90% prediction interval of each time and the throughput
	 * (lo <= point <= hi; equal to the point until an interval is applied to the result) */
	model_basis basis;
	double throughput_lo_img_s, throughput_hi_img_s;
	double ttt_lo_s, ttt_hi_s, tta_lo_s, tta_hi_s;
} model_result;

/* What a predicted run draws and costs (model_price_run: the result's times on the node's model_price and the
 * site's model_money): power and energy, the cluster bought (capex), the owner's and the renter's cost of the
 * run, buy against rent. NAN where a price is unknown. */
typedef struct model_cost {
	double power_W;          /* average draw of the nodes used while training (node max x power_frac) */
	double power_max_W;      /* max power of the nodes bought (the facility's contracted kW) */
	double energy_J;         /* power_W x tta_s */
	/* capex_usd buys whole units (ceil(nodes / unit_nodes) x unit price): by part, servers (whole units),
	 * network (NICs not in the server price, leaf/spine switches and links sized to the nodes bought; a rack
	 * unit's own switches stay in its price), storage (units of a shared store sized to the data set's bytes
	 * and the first epoch's read rate; 0 on the nodes' own drives; NAN when the store is not priced, and then
	 * out of capex_usd); capex_usd their sum */
	double capex_usd, capex_servers_usd, capex_network_usd, capex_storage_usd;
	/* the network's two parts (capex_network_usd = fabric + frontend) and the other parts in capex_usd:
	 * the compute fabric (0 where one NVLink domain holds the job), the front-end, storage and management
	 * networks, racks with power distribution, liquid-cooling distribution, installation */
	double capex_fabric_usd, capex_frontend_usd, capex_racks_usd, capex_cooling_usd, capex_install_usd;
	/* per run: energy_usd = energy_J in kWh x pue x kwh_usd; facility (colocation) and support shares;
	 * tco_usd, the owner's cost of this run = capex share + support + facility + energy at the meter;
	 * rent_usd rents the whole nodes for tta_s (as billed) */
	double energy_usd, facility_usd, support_usd, tco_usd, rent_usd;
	double rent_gpus;        /* GPUs billed for the run (whole instances, minimum units) */
	double rent_setup_s;     /* billed once per rental session on demand, beyond its runs: the instances'
				  * start-up and the copy of the data set to the nodes (model_rent_setup_s); rent_usd
				  * carries the run's share of it (money.rent_session_s); 0 reserved; a bought node's:
				  * what renting would add */
	double rent_horizon_usd; /* rent_usd averaged over the owner's horizon as the market's rent falls
				  * (money.rent_decline; a reservation renewed at each term's end): what the decision
				  * weighs against owning (= rent_usd with no decline) */
	/* runs a month at which owning costs what renting the same GPUs at ref_rent_usd_gpu_h does (model_buy_rent:
	 * (fixed month - a reservation's month) / (rent per run - energy per run)); buying wins above it on
	 * demand (0: at any use; INFINITY: never), below it against a reservation (buy_wins_above false; 0:
	 * never); NAN: no price or no rate for that GPU */
	double breakeven_runs_per_month;
	/* the same comparison as a month of work (model_buy_rent against the reference rate): the use at which
	 * the two cost the same, whether buying wins above it (on demand) or below it (a reservation), the rate
	 * per GPU-hour at which they cost the same at the stated use, and the month owned and rented */
	double breakeven_use, flip_usd_gpu_h, owned_month_usd, rented_month_usd;
	bool buy_wins_above;
	double co2_kg;           /* the run's energy at the meter x money.grid_kg_kwh */
	double owned_usd_gpu_h;  /* tco_usd per GPU-hour of the run: the owner's rate beside a rental rate */
	/* price ranges (lo <= point <= hi): each price's range from its sources or its kind's width */
	double capex_lo_usd, capex_hi_usd, tco_lo_usd, tco_hi_usd, rent_lo_usd, rent_hi_usd;
} model_cost;

/* Sets defaults: nodes 1, batch 256, bf16, CPU data, 1,281,167 images, calibrations 1, stack "default"
 * (every field NAN: the params apply; not staged). */
void model_scenario_init(model_scenario *sc);

/* Validates sc->node and precomputes the batch- and node-count-independent constants with params p
 * (which must stay alive and unchanged while predictions use it). Re-run after changing node,
 * precision, data or params; nodes, batch, epochs, images and calibrations may change freely
 * afterwards. 0, or ERR_INPUT with the reason. */
int model_scenario_prepare(model_scenario *sc, const model_params *p);

/* The prediction: the run's times. Allocation-free; O(buckets). Fills *r. Returns 0, or ERR_INPUT when the
 * scenario is not prepared with p or nodes/batch are out of range. A batch that does not fit memory is not an
 * error: r->fits is false and the times are NAN. What the run costs is model_price_run's, after it. */
int model_predict(const model_scenario *sc, const model_params *p, model_result *r);
/* What the predicted run r draws and costs, into *c: its power and energy, the capex by part, then the money
 * (model_run_money). Where r does not fit memory: power and capex alone (the cluster can still be priced),
 * the rest NAN. Never fails. */
void model_price_run(const model_scenario *sc, const model_params *p, const model_result *r, model_cost *c);
/* The largest batch per GPU below sc's (halving) that fits the GPU's memory (model_predict's r->fits); 0 when
 * none does. sc's batch is left as it was; err is cleared. */
int model_batch_that_fits(model_scenario *sc, const model_params *p);

/* Nodes bought for the scenario's nodes: whole units (19 NVL72 trays buy 36). */
int model_nodes_bought(const model_scenario *sc);
/* The compute fabric's parts for the nodes bought (model_run_capex prices them): switches, links, and NIC
 * ports priced apart from the servers; all 0 where there is no fabric to buy (one node, one NVLink domain
 * holds the job, no switch priced). */
void model_fabric_parts(const model_scenario *sc, double *switches, double *links, double *nic_ports);
/* Units of the system's priced shared store that hold the data set and read it at the run's first-epoch rate
 * (at least 1), or NAN where the store is not a priced unit (flash for the copies: model_money's store_usd_TB). */
double model_store_units(const model_scenario *sc, const model_params *p, const model_result *r);
/* Sets c's energy_usd, rent_usd (as billed), facility_usd, support_usd, tco_usd, breakeven_runs_per_month
 * and the rent and tco ranges from r's tta_s and gpus and c's energy_J, power_max_W, capex and rent_setup_s
 * (model_price_run does; the simulator again with its simulated run time). */
void model_run_money(const model_scenario *sc, const model_result *r, model_cost *c);
/* One year of owning the cluster and of renting the same runs instead (model_cashflow): year 0 buys, years
 * 1..amortize_years run it at the stated use, the last year sells it at the residual value (negative). */
typedef struct model_cash_year {
	int year;
	double runs;             /* runs made that year (the utilised time, or runs_per_month x 12) */
	double capex_usd, support_usd, facility_usd, energy_usd, residual_usd;
	double owned_usd, owned_cum_usd, owned_pv_cum_usd;    /* the year's sum, cumulative, and discounted at
							       * finance_rate to the purchase */
	double rented_usd, rented_cum_usd, rented_pv_cum_usd; /* the same runs at rent_run_usd each, falling with
							       * the market (model_cashflow) */
} model_cash_year;
/* The cash flow by year of the run r priced c into out (at most max rows), the same runs rented at rent_run_usd
 * each as billed today (NAN: no rental), held rent_term_years at a time (0: on demand), each year at the
 * average over its months of the market's fall that model_rent_horizon_factor averages over the horizon: the
 * years' rent sums to the runs at the horizon's average where the horizon is whole months. Returns the rows written
 * (ceil(amortize_years) + 1), 0 when c has no capex. */
int model_cashflow(const model_scenario *sc, const model_result *r, const model_cost *c, double rent_run_usd,
		   double rent_term_years, model_cash_year *out, int max);
/* The average over the horizon (money.amortize_years) of a rental rate that falls money.rent_decline a year,
 * held for term_years at a time (0: on demand, re-priced continuously), as a fraction of today's rate. */
double model_rent_horizon_factor(const model_money *m, double term_years);
/* Buy against rent as a month of work: N runs a month (money.runs_per_month, else the utilisation of the bought
 * cluster). Owned: the fixed month (capex as an annuity, support, facility) + N x energy. Rented on demand: N
 * runs in sessions of money.rent_session_s, each session billing its instances' start-up and data copy once
 * (rent_c->rent_usd is a run's share at the stated workload, billed by the second); a reservation: its month
 * whatever N. The rented month on demand is piecewise linear in N (each run alone below one run a month, one
 * session of them all up to a full session's runs, full sessions beyond), so the crossing is solved on the
 * piece that holds it: the largest N where the months are equal, exact under the session rule at any use:
 * breakeven_use (0: buying never wins on demand, or at any use where buy_wins_above; INFINITY: a
 * reservation never dearer; NAN: a price missing). The flip rate is the rental rate at which the two
 * months are equal at the stated use (rent is linear in its rate). fixed_usd_gpu_h and energy_usd_gpu_h are
 * the spreadsheet's terms: the fixed month over the month's GPU-hours, the energy over a used GPU-hour. */
typedef struct model_buy_rent {
	double runs_month, use;           /* the workload: runs a month, and that as a use of the bought cluster */
	double max_runs_month;            /* runs back to back in a month */
	double owned_month_usd, rented_month_usd;
	double fixed_usd_gpu_h, energy_usd_gpu_h, rate_usd_gpu_h; /* the rate: rent_r's billed rate */
	/* the runs a month at which owning buy's cluster costs what renting as rent_r is billed does (on
	 * demand: buying wins above it, 0 at any use, INFINITY never; a reservation: buying wins below it);
	 * NAN: a price missing. One rule for breakeven_runs_per_month and the answer. */
	double breakeven_use, breakeven_runs_month;
	bool buy_wins_above;              /* on demand: buying wins above breakeven_use; a reservation: below */
	bool rent_wins;                   /* at the stated use */
	double flip_usd_gpu_h;
} model_buy_rent;
void model_buy_rent_eval(const model_scenario *buy_sc, const model_result *buy_r, const model_cost *buy_c,
			 const model_scenario *rent_sc, const model_result *rent_r, const model_cost *rent_c,
			 double rate_usd_gpu_h, model_buy_rent *out);
/* The rent of r's run (its GPUs in whole instances of ref_rent_gpus, for its tta_s, with c's rent_setup_s)
 * at the node's reference rate of the same GPU (ref_rent_usd_gpu_h): what breakeven_runs_per_month weighs
 * owning against. NAN without a reference rate. */
double model_ref_rent_usd(const model_scenario *sc, const model_result *r, const model_cost *c);

/* Sensitivity of a run's cost (the owner's per run, or with `rent` its rent) to one input at a time, each at
 * both ends of a stated range: prices (their ranges), speed (the run time +-speed_err, e.g. the model's
 * whole-run error), utilisation, kWh price and PUE (each over model_sens_range).
 * lo_in/hi_in: the input at each end (prices: capex or rent; speed: tta_s); lo_usd/hi_usd: the cost there. */
typedef enum model_sens_input {
	MODEL_SENS_PRICE, MODEL_SENS_SPEED, MODEL_SENS_UTIL, MODEL_SENS_KWH, MODEL_SENS_PUE, MODEL_SENS_N
} model_sens_input;
typedef struct model_sens { double lo_in, hi_in, lo_usd, hi_usd; } model_sens;
void model_money_sensitivity(const model_scenario *sc, const model_result *r, const model_cost *c,
			     double speed_err, bool rent, model_sens out[MODEL_SENS_N]);
const char *model_sens_name(model_sens_input i); /* "prices", "speed", "utilisation", "kWh price", "PUE" */
/* The range of a site's input of value v (MODEL_SENS_UTIL, _KWH, _PUE; the others lo = hi = v), as
 * model_money_sensitivity and the decision's use range (plan_sens) move it; model_sens_ranges_text says the
 * same in words for reports. */
void model_sens_range(model_sens_input i, double v, double *lo, double *hi);
char *model_sens_ranges_text(char *buf, size_t n);

/* Calibrates sc->compute_cal (and sc->data_cal when the data pipeline alone would be slower than a
 * measurement) so that predictions match measured throughputs: n points of (gpus on nodes of
 * sc->node.gpus_per_node GPUs, batch per GPU, img/s). Least squares in log throughput (exact for one
 * point). With points at two or more batch sizes, sc->b_half (the small-batch efficiency) is fitted
 * too (golden section over 0..1024 around the inner fit of compute_cal).
 * 0, or ERR_INPUT (no point, bad point, GPU count not placeable). */
typedef struct model_measured { int gpus; int batch_per_gpu; double img_s; } model_measured;
int model_calibrate(model_scenario *sc, const model_params *p, const model_measured *m, int n);

/* ---- Pieces for sim/ (reproduce model_predict exactly with jitter and contention off) ----
 * Per-GPU iteration: forward layers in order, backward layers in reverse order; bucket i is handed
 * to the all-reduce stream when backward has finished layer bucket_first_layer[i]; buckets are
 * reduced one at a time in order i = 0, 1, ...; the optimizer step runs after backward and the
 * last all-reduce. exposed comm = overlap x (end of last all-reduce - end of backward)^+ +
 * (1 - overlap) x comm_s. iter_s = max((fwd+bwd+opt+exposed) x straggle, data_s, io_s if not cached)
 * with straggle = 1 + straggler_cv sqrt(2 ln P) (expected maximum of P normal iteration times).
 * sim with jitter off matches model_predict with straggler_cv = 0. */

/* Per-layer forward and backward time (s) at batch b on one GPU, arrays of net->nlayers. The sum
 * equals r.fwd_s / r.bwd_s of model_predict for the same scenario. net must be ResNet-50 at the
 * scenario's classes (1000). */
void model_layer_times(const model_scenario *sc, const model_params *p, const model_net *net, int batch,
		       double *fwd_s, double *bwd_s);
/* ---- The all-reduce: the one description model, sim and calibrate share ----
 * Hierarchical: reduce-scatter among the GPUs of one NVLink domain (the node, or an NVL72 rack's 18
 * trays), all-reduce of each GPU's 1/g shard between domains over the domain's NICs, all-gather in the
 * domain. Each level alpha-beta: steps x alpha + 2(r-1)/r x bytes / busbw (nccl-tests PERFORMANCE.md
 * defines busbw so). A phase as one flow per GPU: latency (its steps x alpha), the bytes each GPU sends,
 * and the per-GPU rate the model assumes (the simulator shares links among such flows). */
typedef enum model_ar_kind { MODEL_AR_RS, MODEL_AR_INTER, MODEL_AR_AG } model_ar_kind;
typedef struct model_ar_phase {
	model_ar_kind kind;
	double latency_s;  /* steps x alpha */
	double size_B;     /* bytes each GPU sends in the phase */
	double rate_Bps;   /* per-GPU rate */
} model_ar_phase;
enum { MODEL_AR_MAX_PHASES = 3 };
/* GPUs of the scenario in one NVLink domain: gpus_per_node x min(nodes, nodes per domain). */
int model_domain_gpus(const model_scenario *sc);
/* The phases of one all-reduce of `bytes` on the scenario (RS, INTER, AG; those that apply) into
 * ph[MODEL_AR_MAX_PHASES]; returns how many. */
int model_allreduce_phases(const model_scenario *sc, const model_params *p, double bytes, model_ar_phase *ph);
/* Their time: the sum of latency + size / rate. */
double model_allreduce_s(const model_scenario *sc, const model_params *p, double bytes);
/* Input pipeline capacity of one node (img/s) and storage read capacity of the whole job in its first
 * epoch (img/s): staged (or no shared storage): nodes x the node's local drives; else the shared storage,
 * min(aggregate, nodes x per-node share) - so 500 nodes read through one server only when the scenario
 * names such storage. Both INFINITY for synthetic data (and the data rate for GPU decode without a known
 * host link). */
double model_data_rate(const model_scenario *sc, const model_params *p);
double model_storage_rate(const model_scenario *sc, const model_params *p);
/* The stack's value of a parameter where it gives one, else p's (overlap, bucket, gradient bytes). */
double model_overlap(const model_scenario *sc, const model_params *p);
/* One evaluation pass and the gap at one epoch boundary (s) of a predicted run (r: throughput, iter_s). */
double model_eval_pass_s(const model_params *p, const model_result *r);
double model_boundary_epoch_s(const model_params *p, const model_result *r);
/* The start-up (s) of a cluster of `nodes` nodes. */
double model_startup_s(const model_params *p, double nodes);
/* Epochs to the target top-1 at a global batch under p's convergence curve. */
double model_epochs(const model_params *p, double global_batch);
/* Whether the scenario's global batch is more than an epoch's images (a step would see some twice):
 * model_predict refuses it. */
bool model_batch_over_epoch(const model_scenario *sc);
/* The largest global batch whose epochs were measured: the last MLPerf v4.0 reference convergence point
 * (67,840), or the user's anchored run when larger. */
double model_conv_max_batch(const model_scenario *sc);
/* The smallest: the first MLPerf v4.0 reference convergence point (1,632), or the anchored run when smaller. */
double model_conv_min_batch(const model_scenario *sc);
/* Given per-bucket ready times and all-reduce times, the exposed time after backward ends. */
double model_exposed_s(int n, const double *ready_s, const double *comm_s, double bwd_end_s);

/* ---- The step: one iteration on one GPU (model_step.c), shared by model_predict, calibrate and sim ----
 * forward, backward and the optimizer step from the prepared scenario's per-image and per-iteration costs
 * (model_prep) x k at batch_img images; bucket i ready when backward has done its layers; its all-reduce
 * comm_s[i] (the caller's: the model's links, or calibrate's fitted levels); exposed communication =
 * overlap x the all-reduce left after backward (with contention: also what backward lost) + (1 - overlap)
 * x all of it; gpu_s = (compute + exposed + the stack's step overhead) x the straggler factor. */
typedef struct model_step_in {
	double k;             /* compute time scale: compute_cal / compute_eff */
	double batch_img;     /* images the per-image work is counted for: batch per GPU + b_half (x image area) */
	const double *comm_s; /* [sc->prep.nbuckets] each bucket's all-reduce (s); not read for one GPU */
	double overlap;       /* model.h overlap: the stack's (model_overlap) or a fitted one */
	double slow_compute, slow_comm; /* contention factors while both run; 1 and 1: none */
	int gpus;             /* GPUs of the job: more than one all-reduce and wait for the slowest */
	double straggler_cv;
} model_step_in;
typedef struct model_step {
	double fwd_s, bwd_s, opt_s, compute_s;
	double comm_s;           /* the buckets' all-reduces added up */
	double comm_exposed_s;   /* what the iteration waits for beyond compute */
	double comm_after_bwd_s; /* all-reduce time after backward ended */
	double comm_waited_s;    /* the exposure rule on comm_after_bwd_s: what the engine measures as exposed
				  * (comm_exposed_s without what backward lost to contention) */
	double gpu_s;            /* the GPU's iteration: compute + exposed + step overhead, x straggle */
} model_step;
void model_step_run(const model_scenario *sc, const model_step_in *in, model_step *st);
/* The exposure rule alone: overlap x the all-reduce after backward + (1 - overlap) x all of it (the
 * simulator applies it to its simulated pipeline). */
double model_step_exposed_s(double overlap, double after_bwd_s, double comm_s);
/* The same rate with the shared stage's capacity from the host: host_cores x host_input_img_s_core (model_params
 * host_input_img_s_core: images/s one core of the host carries of the stage the ranks share; the queue's
 * 1/(1 - U) is the stage's saturation as more ranks of the host decode). host_cores <= 0 (unknown): no shared
 * stage. model_predict (hence the simulator) and calibrate's fit of jpeg-gpu runs both call it. */
double model_input_rank_img_s(double step_img_s, int ranks_host, double gpu_decode_img_s, double host_cores,
			      double host_input_img_s_core);
/* The host's cores left to that shared stage (model_input_rank_img_s's host_cores) where the host also runs
 * NCCL socket transports (socket_nodes > 0: emulated nodes on one host, or a node of its own over TCP): they
 * take socket_core_frac of the stage's cores (their threads copy through the host memory and caches the
 * decode's copies use), one share for the host whatever the nodes: on 4x H200 the JPEG runs of 4 emulated nodes
 * kept 0.90-0.94 of their synthetic img/s, as 4 GPUs over NVLink (0.89), while a share per node fitted at 2
 * nodes predicted them 19-38% too slow (bench/NOTES.md). At least 5% of the cores stay. socket_nodes 0 (NVLink,
 * InfiniBand: the transport runs on the NIC): host_cores. */
double model_input_cores_left(int host_cores, int socket_nodes, double socket_core_frac);
/* The bottleneck rule: the resource with the most busy time per iteration (compute, all of the all-reduce -
 * overlap hides it only while it is shorter -, the data pipeline, storage reads when they recur; ties go to
 * the earlier). */
model_bottleneck model_bottleneck_of(double compute_s, double comm_s, double data_s, double io_s);

/* ---- 90% prediction intervals (model_interval.c) ----
 * Split-conformal: held-out residuals rho = ln(measured / predicted) of `scaleplan validate`, pooled by basis
 * and by stack (MLPerf-grade or a framework's: their errors differ several-fold), give factors
 * lo_x <= 1 <= hi_x on throughput, time to train and start-up at one node. Beyond one node the log-width
 * grows with the straggler spread of n nodes, by model_interval_spread: a run waits for the slowest of its nodes
 * (start-up, staging, each all-reduce), and the slowest of n draws lies about sqrt(2 ln n) standard deviations
 * out, so a model whose per-node spread is a little off misses by that error times sqrt(2 ln n). Time to accuracy adds the start-up's error to time to
 * train's (model_interval_tta), so its interval moves with the start-up's share of the run, continuously.
 * The table is generated data (model/intervals.csv, written by `make intervals` = `scaleplan validate
 * --intervals FILE`) compiled into the library; its rows say how each was derived. */
typedef enum model_quantity {
	MODEL_Q_THROUGHPUT, MODEL_Q_TTT, MODEL_Q_TTA, MODEL_Q_STARTUP, MODEL_NQUANTITIES
} model_quantity;
/* pools: MODEL_POOL_MLPERF (a stack at MLPerf-grade speed: compute_eff empty or 1), MODEL_POOL_FRAMEWORK */
enum { MODEL_POOL_MLPERF, MODEL_POOL_FRAMEWORK, MODEL_NPOOLS };
enum { MODEL_NSCALES = 3, MODEL_NBASES = 3 }; /* scales (for reports): one node, 2-16 nodes, more */
/* The scale of a run of `nodes` nodes: 0 (one node), 1 (2-16), 2 (17 or more); validate reports by it. */
int model_scale_of(int nodes);
/* What a reader of a time beyond 16 nodes should know (the report and compare say it), after "Beyond 16 nodes ": */
#define MODEL_SCALE_TOP_NOTE "time to accuracy is wide on the slow side: the start-up of the runs of hundreds " \
	"of nodes in MLPerf v4.0 took about 2-4 times what the model predicts"
const char *model_scale_name(int scale);          /* "1", "2-16", "17+" */
const char *model_basis_name(model_basis b);       /* "measured", "transfer", "estimate" */
const char *model_quantity_name(model_quantity q); /* "throughput", "ttt", "tta", "startup" */
/* The pool of a stack of this compute_eff (NAN: MLPerf-grade, as stacks.csv's empty cell). */
int model_pool_of(double stack_compute_eff);
const char *model_pool_name(int pool);             /* "mlperf", "framework" */
/* The built-in interval of throughput, ttt or startup for a basis and pool: factors on the point (measured /
 * predicted lies in [lo_x, hi_x] nine times in ten). 1 and 1 when the table has no such row (and for tta:
 * model_interval_tta). */
void model_interval_factors(model_basis b, int pool, model_quantity q, int nodes, double *lo_x, double *hi_x);
/* How much wider in log terms a run of `nodes` nodes is than one node: sqrt(1 + grow_z2 x 2 ln nodes), where
 * grow_z2 (intervals.csv) is the fitted ratio of the straggler term's variance per unit of 2 ln n to the
 * one-node variance (rho^2 = a + b 2 ln n, grow_z2 = b / a; cal_interval_growth). 1 at one node or grow_z2 0. */
double model_interval_spread(double grow_z2, int nodes);
/* Time to accuracy's interval: its start-up part (startup_s) and the rest (tta_s - startup_s: time to train
 * and staging) miss independently, each by its own factors; the bounds add the two misses in quadrature,
 * tta_s -+ sqrt((rest (1 - lo_x))^2 + (startup (1 - lo_x))^2) (hi alike). */
void model_interval_tta(model_basis b, int pool, int nodes, double tta_s, double startup_s, double *lo_s, double *hi_s);
/* The same from given factors (time to train's and the start-up's lo_x, hi_x): the one formula. */
void model_interval_tta_x(double tta_s, double startup_s, double ttt_lo_x, double ttt_hi_x, double startup_lo_x,
			  double startup_hi_x, double *lo_s, double *hi_s);
/* Whether the data the tool was built with holds results of this GPU (a database id; exact match). */
bool model_gpu_measured(const char *gpu_id);
/* Split-conformal bounds (log) of n residuals rho = ln(measured / predicted), 90%: n >= 19: the
 * floor(0.05 (n+1))-th and ceil(0.95 (n+1))-th smallest (asymmetric); 1 <= n < 19: +-the ceil(0.9 (n+1))-th
 * smallest |rho|, the largest below n = 9 (symmetric: too few points for each tail). The |rho| rule holds a
 * new residual with probability >= n / (n + 1) when n < 9 (0.89 at 8); the observed range would hold it only
 * (n - 1) / (n + 1) (0.78 at 8). Bounds always hold 0 (the point). rho is not changed (sorted copy).
 * Returns 0, or -1 when n < 1 (*lo = *hi = 0). Vovk et al., Algorithmic Learning in a Random World (2005);
 * Lei et al., Distribution-free predictive inference for regression, JASA 2018 (split conformal). */
int model_interval_conformal(const double *rho, int n, double *lo, double *hi);

/* ---- Paired uncertainty: the 90% interval of the ratio of two predictions (model_ratio.c) ----
 * Two predictions of one model share most of their error (the convergence curve, start-up, evaluation, the
 * stack's efficiency): what both scenarios share cancels in their ratio, and what differs (the GPU, the
 * placement, the system, the stack, the precision) keeps its own error. The bounds per difference are
 * generated data (model/ratios.csv, `make intervals`): split-conformal quantiles of ln(measured ratio /
 * predicted ratio) over pairs of measured results of one source (calibrate/cal_ratio.c). */
typedef enum model_diff {
	MODEL_DIFF_GPU,       /* another GPU (another system around it comes with it) */
	MODEL_DIFF_SCALE,     /* another node count or GPUs per node */
	MODEL_DIFF_SYSTEM,    /* the same GPU in another system (host, NVLink domain, fabric) */
	MODEL_DIFF_STACK,     /* another software stack */
	MODEL_DIFF_PRECISION, /* another precision */
	MODEL_NDIFFS
} model_diff;
/* Which stacks a pair ran: both at the model's reference efficiency (model_stack_reference: the stack MLPerf
 * results are run with, or one the model takes as fast), or any. The model's per-GPU figures are fitted on the
 * reference stack; other stacks' speed across GPU generations is known only as well as their own factor. */
typedef enum model_stacks { MODEL_STACKS_REFERENCE, MODEL_STACKS_ANY, MODEL_NSTACKS } model_stacks;
const char *model_stacks_name(model_stacks c); /* "reference", "any" */
/* Whether the model runs a stack at its reference efficiency: compute_eff unset (NAN) or 1. */
bool model_stack_reference(const model_stack *st);
const char *model_diff_name(model_diff k);   /* "gpu", "scale", "system", "stack", "precision" */
/* What differs between two scenarios: bit (1u << k) for each model_diff k. 0: the same configuration. */
unsigned model_ratio_differs(const model_scenario *a, const model_scenario *b);
/* The log bounds lo <= 0 <= hi of ln(true ratio / predicted ratio) for the differences `differs` and a
 * table of per-difference bounds (lo[k][q], hi[k][q]): each difference's bounds added in quadrature
 * (independent errors); 0, 0 when nothing differs. widen (log, >= 0) is added to both sides (a GPU known
 * only by transfer or estimate). The one rule the compiled table and validate's held-out check use. */
void model_ratio_bounds(const double lo[MODEL_NDIFFS][MODEL_NQUANTITIES], const double hi[MODEL_NDIFFS][MODEL_NQUANTITIES],
			unsigned differs, model_quantity q, double widen, double *lo_log, double *hi_log);
/* The ratio a over b of quantity q (MODEL_Q_TTT or MODEL_Q_TTA: times; MODEL_Q_THROUGHPUT: speeds) of two
 * predictions, and its 90% interval as values (lo_x <= ratio <= hi_x), from the compiled table (the reference
 * stacks' rows when both run at the reference efficiency, else any stacks'): where the
 * GPUs differ and either is not measured, widened by how much wider that basis's own interval is than a
 * measured one's (model_interval_factors). NAN, NAN, NAN when either point is not a positive number. */
void model_ratio(const model_scenario *a, const model_result *ra, const model_scenario *b, const model_result *rb,
		 model_quantity q, double *ratio, double *lo_x, double *hi_x);

const char *model_precision_name(model_precision p);
int model_precision_parse(const char *s);     /* -1 when unknown */
const char *model_bottleneck_name(model_bottleneck b);
const char *model_data_name(model_data d);
int model_data_parse(const char *s);          /* -1 when unknown */

#endif
