/* hwdb: the hardware database - GPUs and their architectures, CPUs, links, fabrics, storage, node types
 * (systems) and software stacks - read from CSV tables (one row per item, a `source` column in every row, SI units
 * in column names).  The tables in hwdb/data/ are compiled into the binary as the default database;
 * a user directory of tables can be overlaid on it (same id replaces, new ids add).
 *
 * Units: every quantity is a double in SI units and its name says so: _flops (FLOP/s), _B (bytes),
 * _Bps (bytes/s, ONE direction unless the name says otherwise), _W, _hz, _s, _usd.
 * A value the sources do not give is NAN (test with hw_known); only optional columns may be empty.
 *
 * Failure contract: loaders are all-or-nothing. hw_db_load_default / hw_db_overlay_dir either succeed
 * or leave *db exactly as it was; they report EVERY problem found (one line per problem, of the form
 * "file:line:column(name): what was expected") to `errs` when it is not NULL, and leave a summary in
 * err_msg(). Pointers inside the db (hw_system.gpu etc.) stay valid until the next overlay or free.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_HW_H
#define SCALEPLAN_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The kinds of table; also the CSV file names (<kind>.csv) and `hw list` arguments. */
typedef enum hw_kind {
	HW_GPU,
	HW_CPU,
	HW_LINK,
	HW_FABRIC,
	HW_STORAGE,
	HW_SYSTEM,
	HW_STACK,
	HW_ARCH,
	HW_STACK_EFF,
	HW_NKINDS
} hw_kind;

/* What a link is (links.csv `kind`). */
typedef enum hw_link_kind {
	HW_LINK_PCIE,
	HW_LINK_NVLINK,
	HW_LINK_NVSWITCH,
	HW_LINK_IB,
	HW_LINK_ETH,
	HW_LINK_ROCE,
	HW_LINK_HOST, /* a CPU socket interconnect (UPI, Infinity Fabric) or host memory path */
} hw_link_kind;

/* How the GPUs inside one node talk to each other (systems.csv `intra_topology`). */
typedef enum hw_topo {
	HW_TOPO_SINGLE,        /* "single": one GPU, no intra-node traffic */
	HW_TOPO_NVSWITCH,      /* "nvswitch": full bandwidth between every pair (DGX-2, DGX A100/H100, HGX) */
	HW_TOPO_NVLINK_MESH,   /* "nvlink-mesh": direct NVLinks, every pair joined (C4140-K/M, testbed-h200x4) */
	HW_TOPO_HYBRID_CUBE,   /* "hybrid-cube": DGX-1 hybrid cube mesh, not every pair joined directly */
	HW_TOPO_PCIE_SWITCH,   /* "pcie-switch": GPUs behind PCIe switch(es), peer to peer through the switch */
	HW_TOPO_PCIE_HOST,     /* "pcie-host": each GPU on its own x16 to a CPU; peer traffic crosses the host */
} hw_topo;

/* Which of the model's fitted compute efficiencies an architecture's tensor cores take (archs.csv
 * `compute_eff`): eff_compute (Hopper's and Ada's fit) or eff_compute_sync (Volta, Turing, Ampere). */
typedef enum hw_tensor_eff { HW_EFF_COMPUTE, HW_EFF_COMPUTE_SYNC } hw_tensor_eff;

/* A GPU architecture (archs.csv): what the model and the report know of a GPU by its architecture. A GPU of
 * a new architecture needs a row here and its rows in gpus.csv, no code. */
typedef struct hw_arch {
	char *id;                 /* "Hopper", "Blackwell Ultra" (gpus.csv `arch` names one) */
	char *aliases;
	char *generation;         /* the vendor generation it belongs to: "Blackwell" for Blackwell Ultra */
	int sm;                   /* CUDA compute capability x 10 of its data-centre chip (90 = sm_90): the order
				   * of architectures, newest the largest */
	hw_tensor_eff compute_eff;/* the model's fitted efficiency its tensor cores take */
	double tensor_frac;       /* achieved tensor-core rate relative to its dense datasheet peak, next to
				   * Hopper's (1); 0 = no tensor cores (FP16 on CUDA cores) */
	char *source;
} hw_arch;

typedef struct hw_gpu {
	char *id;            /* "V100-SXM2-16GB" (MLPerf system-description spelling) */
	char *aliases;       /* ";"-separated other names matched by hw_gpu_find, "" when none */
	char *arch;          /* "Volta", "Ampere", "Hopper", ... (an archs.csv id or alias) */
	const hw_arch *arch_info; /* its archs.csv row; NULL when archs.csv has none (an older overlay's name) */
	char *chip;          /* the GPU model whatever its package ("B200" for B200-SXM-180GB and
			      * B200-GB200-186GB), "" when not given */
	char *checked_from_id; /* a GPU with results from which validate checks the default model's transfer to
				* this one (the miss widens the intervals of GPUs without results), "" when none */
	char *form;          /* "pcie" | "sxm" | "oam" ... */
	double fp32_flops;   /* peak non-tensor FP32 (FLOP/s, boost clock) */
	double tf32_flops;   /* dense TF32 tensor peak; NAN before Ampere */
	double fp16_flops;   /* dense FP16 tensor peak (no sparsity); NAN when not a fast path (P40) */
	double bf16_flops;   /* dense BF16 tensor peak; NAN before Ampere */
	double mem_B;        /* device memory bytes (GB = 1e9, GiB = 2^30 as the datasheet means it) */
	double mem_bw_Bps;   /* device memory bandwidth */
	double tdp_W;        /* board power / max TDP */
	int nvlink_gen;      /* 0 = no NVLink */
	int nvlinks;         /* NVLink links per GPU (0 = none) */
	double nvlink_bw_Bps;/* total NVLink bandwidth per GPU, one direction; NAN/0 when none */
	int pcie_gen;        /* host interface PCIe generation (x16) */
	double price_usd;    /* list price where public, else NAN */
	char *price_date;    /* "YYYY-MM" of the price, "" when none */
	char *source;
	double boost_clock_Hz;   /* the clock the datasheet's peaks are quoted at; NAN when not given */
	char *power_sibling_id;  /* the same silicon on a board with more power (an SXM part), "" when none:
				  * model_power_clock_x then says what clock this board's power allows */
} hw_gpu;

typedef struct hw_cpu {
	char *id;            /* "Xeon Gold 6148", "EPYC 7742" */
	char *aliases;
	char *vendor;        /* "Intel" | "AMD" */
	int cores;           /* physical cores per socket */
	int threads;         /* hardware threads per socket */
	double base_hz;      /* NAN when not public (OEM/cloud parts, test VMs) */
	double turbo_hz;     /* max single-core turbo; NAN when unknown */
	double tdp_W;        /* NAN when not public */
	char *source;
} hw_cpu;

typedef struct hw_link {
	char *id;            /* "pcie3-x16", "nvlink2", "ib-edr", "eth-100g" */
	char *aliases;
	hw_link_kind kind;
	int gen;             /* generation where it has one (PCIe 3, NVLink 2, ...), else 0 */
	double bw_Bps;       /* usable data rate, ONE direction, of one link / port / lane group */
	double latency_s;    /* typical one-way small-message latency; NAN when unknown */
	char *source;
} hw_link;

typedef struct hw_fabric {
	char *id;            /* "ib-edr-fattree" */
	char *aliases;
	char *nic_id;        /* column nic_link: id of the per-port link */
	const hw_link *nic;  /* resolved nic_id */
	char *topology;      /* "fat-tree", "single-switch", "dragonfly", "rail-optimized" ... */
	double switch_latency_s;
	double oversubscription; /* 1 = non-blocking */
	/* what one buys to build it (model_run_money sizes leaf/spine switches from the ports); NAN = not priced */
	int switch_ports;         /* ports of one switch at the NIC's rate; 0 = not given */
	double switch_usd;        /* one switch */
	double link_usd;          /* one link: transceivers at both ends and the fibre (or a copper cable) */
	double nic_usd;           /* one NIC port, counted where the server's price leaves the NICs out */
	char *price_kind;         /* list | quote | press | estimate ("" without prices) */
	char *price_date, *price_source;
	char *source;
} hw_fabric;

typedef struct hw_storage {
	char *id;            /* "isilon-f800", "local-nvme", "nfs-head", "lustre", "wekaio-matrix" */
	char *aliases;
	char *kind;          /* "nas" | "local" | "nfs" | "parallel-fs" */
	double read_Bps;     /* aggregate sequential read bandwidth (kind local: per drive); NAN = depends on
			      * the deployment (a parallel file system that grows with its clients) */
	double node_Bps;     /* the most one node reads from it (client NIC, mount); NAN = its link's rate */
	double latency_s;    /* per-request latency; NAN when unknown */
	char *link_id;       /* column link: how nodes reach it, "" when local */
	const hw_link *link; /* resolved link_id, NULL when "" */
	/* what one buys to hold and serve the data set: whole units of unit_B usable bytes and unit_Bps read
	 * rate (model_run_money sizes them); NAN = not priced (kind local: the nodes' drives, in their price) */
	double price_usd;    /* one unit */
	double unit_B;       /* usable capacity of one unit */
	double unit_Bps;     /* read rate of one unit; NAN = read_Bps */
	char *price_kind, *price_date, *price_source;
	char *source;
} hw_storage;

typedef struct hw_stack hw_stack;
/* What a stack's GPU kernels are like (stacks.csv likeness; docs/stacks.md): its class predicts a stack with no
 * measured cell from the stacks like it. none = not said. */
typedef enum hw_likeness { HW_LIKE_NONE, HW_LIKE_FUSED, HW_LIKE_COMPILED, HW_LIKE_EAGER_NHWC, HW_LIKE_EAGER_NCHW,
			   HW_NLIKENESS } hw_likeness;
extern const char *const hw_likeness_names[];

typedef struct hw_system {
	char *id;            /* "c4140-m", "dgxa100-80g", "testbed-h200x4" */
	char *aliases;
	char *name;          /* human name: "Dell PowerEdge C4140 configuration M" */
	char *gpu_id, *intra_link_id, *host_link_id, *cpu_id, *nic_id, *storage_id; /* columns */
	const hw_gpu *gpu;
	int gpus_per_node;
	hw_topo intra;            /* intra-node topology */
	const hw_link *intra_link;/* NVLink / NVSwitch / PCIe link between GPUs (NULL for single) */
	double intra_bw_Bps;      /* per-GPU intra-node bandwidth, one direction (NAN for single) */
	const hw_link *host_link; /* CPU-to-GPU link (one PCIe x16) */
	int host_links;           /* host x16 links shared by all GPUs (C4140-K 1, C4140-M 4); 0 = not given */
	const hw_cpu *cpu;        /* NULL when the sources do not name the CPU */
	int cpus_per_node;
	double mem_B;             /* host memory; NAN when not given */
	const hw_link *nic;       /* network port link (NULL for a node that is never networked) */
	int nics_per_node;
	const hw_storage *storage;/* where the data set lives (may be NULL: the node's local drives) */
	int local_drives;         /* node-local data drives (NVMe/SSD); 0 = not given */
	double local_drive_Bps;   /* sequential read rate of one local drive; NAN = not given */
	char *fabric_id, *stack_id;   /* columns fabric, stack */
	const hw_fabric *fabric;  /* default network between nodes (NULL: the node is not clustered) */
	const hw_stack *stack;    /* default software stack: how such systems were run (NULL: model defaults) */
	double price_usd;         /* list price of ONE purchase unit (unit_nodes nodes); NAN when not public */
	char *price_date;         /* "YYYY-MM" of the price, "" when none */
	char *price_kind;         /* "list" | "quote" | "press" | "estimate" (how in price_source); "" without price */
	char *price_source;       /* where the price comes from (publication, date); "" without price */
	double price_lo_usd;      /* the low and high ends of the price from its sources; NAN = the price kind's */
	double price_hi_usd;      /*   stated width (docs/prices.md) */
	char *price_includes;     /* what the unit's price holds (server, NICs, rack switches, cooling) */
	int price_nics;           /* 1: the NICs are in the price (DGX); 0: bought beside it (fabric nic_usd) */
	double power_W;           /* node max power; NAN when unknown */
	char *power_kind;         /* measured | datasheet | estimate ("" = none: the model's TDP fallback) */
	char *cooling;            /* air | liquid: liquid needs coolant distribution bought with it ("" = air) */
	char *power_source;       /* where power_W comes from */
	char *provider;           /* cloud provider ("AWS", "Azure", ...); "" for a server one buys */
	double rent_usd_gpu_h;    /* published on-demand rate per GPU-hour (instance rate / GPUs); NAN = none */
	double rent_1y_usd_gpu_h; /* 1-year committed rate per GPU-hour; NAN = not published */
	double rent_3y_usd_gpu_h; /* 3-year committed rate per GPU-hour; NAN = not published */
	char *rent_date;          /* date of the rates, "" when none */
	char *rent_source;        /* where the rates come from; "" when none */
	char *rent_kind;          /* list | quote | press | estimate: how the rates are known (sets their width) */
	double rent_market_usd_gpu_h; /* the low end of the rate: what the market and committed clusters charge for
				       * the same GPU (dated, sourced); NAN = the kind's width */
	char *rent_market_date;   /* its date, "" when none */
	char *rent_market_source; /* where it comes from */
	double rent_spot_usd_gpu_h; /* spot / preemptible rate per GPU-hour; NAN = not published */
	int rent_unit_gpus;       /* the fewest GPUs rented at once (a whole NVL72 rack: 72); 0 = one instance */
	int rent_max_gpus;        /* the most GPUs the rates cover (one instance's provider: 8); 0 = no limit */
	double rent_increment_s;  /* billing increment (per second 1, per minute 60); NAN = continuous */
	double rent_min_s;        /* minimum time billed per rental; NAN = none */
	double rent_cluster_usd_gpu_h; /* rate above rent_max_gpus (a provider's cluster product); NAN = none */
	double rent_cluster_increment_s; /* its billing increment (Lambda 1-Click Clusters: a week); NAN = none */
	int domain_gpus;          /* GPUs in one NVLink domain (reach each other over NVLink switches), a
				   * multiple of gpus_per_node; 0 = the node's own GPUs (NVL72: 72) */
	int unit_nodes;           /* nodes sold / installed as one unit (NVL72 rack: 18 trays); 1 when empty */
	char *status;             /* "current" (or "") | "eol": end of life, no longer sold (then its prices are
				   * historical); compare, report and sweep offer current systems by default */
	char *status_date;        /* when it reached end of life (YYYY-MM), "" when current */
	char *status_source;      /* where that is announced; "" when current */
	char *source;
} hw_system;

/* Where a stack decodes JPEGs (stacks.csv `data_path`) and whether it copies the data set to the
 * nodes before the clock starts (`staging`). */
typedef enum hw_data_path { HW_DATA_CPU, HW_DATA_GPU } hw_data_path;
typedef enum hw_staging { HW_STAGE_NONE, HW_STAGE_LOCAL } hw_staging;

/* A software stack: how it trains (refdata/seed_facts.md, MLPerf v4.0 NVIDIA configs). NAN = the model's
 * default parameter (model_params) applies. */
struct hw_stack {
	char *id;                 /* "tf1-hvd", "mxnet", "pytorch-ddp" */
	char *aliases;
	char *framework;
	hw_data_path data_path;   /* cpu: decode on CPU cores; gpu: DALI/nvJPEG decode on the GPU */
	hw_staging staging;       /* local: data set copied to node-local drives before the clock starts;
				   * none: the first epoch reads the system's storage (cold) */
	int threads_per_gpu;      /* cores a framework keeps per GPU (TensorFlow: 4) */
	int decode_threads;       /* fixed decode threads per node, 0 = cores - threads_per_gpu x GPUs */
	double decode_img_s_core; /* CPU decode + augment rate per core; NAN = model default */
	double grad_B;            /* bytes per gradient element in the all-reduce at fp16/bf16; NAN = default */
	double bucket_B;          /* gradient bucket / fusion buffer; NAN = default */
	double comm_hidden_frac;  /* 0..1: how much of the bucket pipeline hides the all-reduce behind
				   * backward (model overlap); NAN = default */
	double step_overhead_s;   /* framework time per step outside the GPU work; NAN = none */
	double compute_eff;       /* GPU compute speed relative to the best known software (NVIDIA's MLPerf
				   * code) in fp16/bf16: the model's compute time / this; NAN = 1 */
	double compute_eff_fp32;  /* the same for fp32/tf32 runs; NAN = compute_eff */
	double gpu_decode_img_s;  /* data path gpu: the GPU decode's term on a rank's path, img/s (model_gpu_decode_rank_img_s); NAN = none */
	hw_likeness likeness_k;   /* what its GPU kernels are like (docs/stacks.md), said before any fit */
	char *source;
};

/* A software stack's compute speed measured on one GPU (stack_effs.csv): the cell of the stack x GPU
 * generation table the model reads a stack's efficiency from (plan_stack_eff). */
typedef enum hw_prec_class { HW_PREC_LOWP, HW_PREC_FP32 } hw_prec_class;
typedef struct hw_stack_eff {
	char *id;                 /* "pytorch-nchw.H100.lowp" */
	char *aliases;
	char *stack_id, *gpu_id;  /* columns stack, gpu */
	const hw_stack *stack;
	const hw_gpu *gpu;
	hw_prec_class prec;       /* lowp: fp16/bf16 runs; fp32: fp32/tf32 runs */
	double compute_eff;       /* measured / the model's MLPerf-grade estimate on that GPU (geometric mean) */
	char *version;            /* the container or framework version of the runs, "" when not known */
	char *source;
} hw_stack_eff;

/* The database: one array per kind, owned by the db. */
typedef struct hw_db {
	hw_gpu *gpus;         int ngpus;
	hw_cpu *cpus;         int ncpus;
	hw_link *links;       int nlinks;
	hw_fabric *fabrics;   int nfabrics;
	hw_storage *storage;  int nstorage;
	hw_system *systems;   int nsystems;
	hw_stack *stacks;     int nstacks;
	hw_arch *archs;       int narchs;
	hw_stack_eff *stack_effs; int nstack_effs;
} hw_db;

/* Loads the built-in tables into *db (which need not be initialised). 0, or ERR_INPUT (a bug in the
 * shipped data; every problem printed to errs). */
int hw_db_load_default(hw_db *db, FILE *errs);
/* Overlays the tables found in DIR (any subset of <kind>.csv) on *db: same id (case-insensitive)
 * replaces, new ids add; references are resolved against the merged db. 0, ERR_INPUT (bad table: every
 * problem printed to errs, *db unchanged) or ERR_ENV (DIR unreadable). */
int hw_db_overlay_dir(hw_db *db, const char *dir, FILE *errs);
/* Validates DIR as an overlay on the default db without keeping it; prints every problem to errs.
 * Returns 0, ERR_INPUT or ERR_ENV. */
int hw_db_check_dir(const char *dir, FILE *errs);
void hw_db_free(hw_db *db);

/* Lookups: id or alias, case-insensitive. NULL when absent. */
const hw_gpu *hw_gpu_find(const hw_db *db, const char *id);
const hw_cpu *hw_cpu_find(const hw_db *db, const char *id);
const hw_link *hw_link_find(const hw_db *db, const char *id);
const hw_fabric *hw_fabric_find(const hw_db *db, const char *id);
const hw_storage *hw_storage_find(const hw_db *db, const char *id);
const hw_system *hw_system_find(const hw_db *db, const char *id);
const hw_stack *hw_stack_find(const hw_db *db, const char *id);
extern const char *const hw_prec_class_names[];
/* A GPU's generation: archs.csv's generation of its architecture ("Blackwell" for Blackwell Ultra), else its
 * gpus.csv arch; NULL for no GPU or none given. */
const char *hw_gpu_generation(const hw_gpu *g);

/* Writes "did you mean X, Y, Z?" (up to 3 nearest ids of that kind by str_edit_distance; kind
 * HW_NKINDS = all kinds) into buf, or "" when nothing is near. Returns buf. */
char *hw_suggest(const hw_db *db, hw_kind kind, const char *id, char *buf, size_t len_B);

/* Names: hw_kind_name(HW_GPU) = "gpus"; hw_kind_parse("gpus"/"gpu") = HW_GPU, -1 when unknown. */
const char *hw_kind_name(hw_kind kind);
const char *hw_kind_singular(hw_kind kind);   /* "gpu", "system"; "id" for HW_NKINDS */
int hw_kind_parse(const char *s);

/* True when a value is given (not NAN). */
bool hw_known(double v);

/* Per-GPU peak tensor/FP32 FLOP/s for a precision name "fp32" | "tf32" | "fp16" | "bf16";
 * falls back to the next lower precision the GPU has (bf16 -> fp16 -> fp32, tf32 -> fp32).
 * Returns NAN for an unknown precision name. */
double hw_gpu_peak_flops(const hw_gpu *gpu, const char *precision);

/* Prints one item with its source (`hw show`). Returns false when id matches nothing. */
bool hw_db_show(const hw_db *db, const char *id, FILE *out);
/* Prints a table of one kind (`hw list`). */
void hw_db_list(const hw_db *db, hw_kind kind, FILE *out);

/* ---- MLPerf system descriptions as input (hw_import.c) ---- */

/* Rows imported so far: a systems.csv row per file, a cpus.csv row per CPU the db lacks. */
typedef struct hw_import hw_import;

/* Starts an import that resolves GPU, CPU, link, fabric, storage and stack ids against db (kept, not
 * copied: db must outlive the import). */
hw_import *hw_import_new(const hw_db *db);
void hw_import_free(hw_import *imp);
/* Adds the system of one MLPerf systems/<name>.json (`name` is the file name used in messages and in the
 * row's source). Fields it cannot map are named on `notes` (when not NULL) and kept for the table's
 * comments. 0, or ERR_INPUT with "name: field 'x': what was expected" (the import is unchanged). */
int hw_import_add(hw_import *imp, const char *name, const char *buf, size_t len_B, FILE *notes);
/* Rows of a kind (HW_SYSTEM, HW_CPU) imported so far. */
int hw_import_count(const hw_import *imp, hw_kind kind);
/* Prints each imported system (GPUs, topology, CPUs, NICs) and the predict command for it at the
 * submission's node count, reading the overlay DIR. */
void hw_import_print(const hw_import *imp, const char *dir, FILE *out);
/* Writes the overlay directory DIR (cpus.csv when a CPU was added, systems.csv): into a temporary
 * directory beside it, checked to load as an overlay (problems to errs), then renamed to DIR. DIR
 * must not exist or be empty. 0, ERR_INPUT (DIR exists and is not empty), ERR_INTR (a signal recorded
 * by intr_install arrived: the temporary directory is removed) or ERR_ENV. */
int hw_import_write_dir(const hw_import *imp, const char *dir, FILE *errs);

#endif
