/* calibrate: fits the model's free parameters to measurements and reports hold-out error.
 *
 * Inputs (each row keeps its file, line and `source`):
 *   - measurement CSVs written by scaleplan-train (docs/design.md "Measurement CSV") and the reference
 *     throughput tables (refdata/throughput.csv, testbed_pytorch.csv): images/s vs GPUs, batch, transport;
 *   - all-reduce sweeps (`...,gpus,nodes,nccl_mode,dtype,bytes,time_s,algbw_GBps,busbw_GBps`);
 *   - input-pipeline sweeps (images/s vs decode workers);
 *   - convergence tables (epochs to target vs global batch) and MLPerf `:::MLLOG {json}` logs.
 *
 * Free parameters (names shared with the model's profile overlay; each has a scope, e.g. the GPU and
 * precision for compute, the machine and transport for an all-reduce link level):
 *   compute_eff        the model's stack compute_eff: divides the model's compute time (prior: the
 *                      point's stack in hwdb stacks.csv, 1 = MLPerf-grade)        (scope: compute key)
 *   b_half             the model's b_half: per-GPU batch at which the batch efficiency is one half
 *                                                                                  (scope: compute key)
 *   overlap            fraction of backward time that hides gradient all-reduce   (scope: compute key)
 *   alpha_s            all-reduce latency per ring step                           (scope: machine/transport)
 *   busbw_Bps          all-reduce bus bandwidth (nccl-tests definition)           (scope: machine/transport;
 *                      sockets between emulated nodes of one host: the host's at 2 nodes, each of n nodes
 *                      gets 2/n of it - one loopback and its copy threads shared by all the links)
 *                      (from sweeps, and from each multi-GPU engine run's own in-step all-reduce time, its
 *                      allreduce_s: a point of the run's transport that goes where the run goes in --where
 *                      and leave-one-out)
 *   slowdown_compute   factor: compute slowed while an all-reduce runs beside it  (scope: machine/transport)
 *   slowdown_comm      factor: all-reduce slowed while compute runs beside it     (scope: machine/transport)
 *   decode_img_s_core  JPEG decode + augmentation rate per CPU core (worker)      (scope: machine/pipeline)
 *   gpu_decode_img_s   exec --data-path jpeg-gpu runs: the GPU's decode on a rank's own path (1/it per image)
 *                      (scope: machine/GPU/stack)
 *   host_input_img_s_core  the same runs: what one core of the host carries of the stage its ranks share
 *                      (readers, host memory and PCIe, page cache; capacity = the system's cores x it)
 *                      (scope: machine/stack; fitted where the ranks a host vary and hwdb knows the host's
 *                      cores, else the model's default). Both after the compute group, on those runs alone;
 *                      no parameter per rank count: model_input_rank_img_s (model.h) gives each rank's rate
 *   socket_core_frac   the same runs: the share of that stage a host's NCCL socket transports take (emulated
 *                      nodes; model_input_cores_left) (scope: machine; fitted where runs of several ranks a
 *                      host ran with and without sockets)
 *   conv_e0, conv_b0   E(B) = conv_e0 (1 + B / conv_b0)                          (scope: convergence set)
 *   epoch_boundary_s   per-epoch cost outside steady training (eval, shuffle)     (scope: MLLOG platform)
 *
 * The throughput model fitted here (cal_predict) is model_step_run (model.h: the step model_predict calls)
 * on the scenario `predict` builds for the point (cal_point_compute_scenario: plan_resolve of its system, stack, precision, batch; one
 * explicit mapping for machines and precisions the database cannot describe), with the model's own
 * all-reduce on the fitted link levels:
 *   t_compute(B) = (compute_cal / compute_eff) x ((B + b_half) x per-image roofline time + per-iteration
 *                  weight traffic + optimizer step)   (model.c: layer table at 224 px, x image area)
 *   t_allreduce  = sum over buckets of model_allreduce_s (model_allreduce_phases, what predict and sim
 *                  use) on the node plan_resolve builds for the point's system (NVLink domain, NICs),
 *                  each level's alpha and busbw the fitted ones of the machine and transport: a ring
 *                  inside the node, ring or tree between nodes (the faster, as the model says)
 *                  (per gradient bucket: gradients in reverse layer order, a bucket closing at >= the
 *                  run's bucket_mb, else 25 MiB; each pays its own latency; reduced one after another)
 *   ready_i      = backward time until bucket i is complete (the model's buckets and layer times)
 *   exposed      = overlap x (end of the last bucket's all-reduce - end of backward)^+
 *                  + (1 - overlap) x t_allreduce   (model_step_exposed_s); overlap prior 1 for
 *                  scaleplan-train (every bucket launched from backward hooks, exec/ex_dist.c), else
 *                  the model's (model_overlap: the stack's comm_hidden_frac, else the default)
 *   contention   = scaleplan-train runs only: while a bucket's all-reduce is in flight backward runs
 *                  slowdown_compute times slower, and the all-reduce slowdown_comm times slower while
 *                  backward runs (per machine and transport; fitted from sweep rows timed beside a
 *                  compute load, exec --bench-allreduce --load resnet|gemm; 1 when there are none); the
 *                  pipeline above is then played with those rates (exposed also counts what backward lost)
 *   t_iter       = (t_compute + exposed + the stack's step_overhead_s) x (1 + straggler_cv sqrt(2 ln gpus))
 *                  (slowest of P GPUs; model.h, not fitted) - model_step_run
 *   img/s        = min(gpus x B / t_iter, decode_img_s_core x decode cores)   (decode only for JPEG data)
 *                  jpeg-gpu runs: gpus x model_input_rank_img_s(B / t_iter, ranks a host, gpu_decode_img_s,
 *                  host cores, host_input_img_s_core); measured: the mean of epochs 2 on where the CSV has them
 *
 * Fits use GSL's trust-region nonlinear least squares (gsl_multifit_nlinear) on relative residuals
 * (predicted / measured - 1); parameters are fitted in log (or logit) space so they stay physical, and
 * standard errors come from the covariance at the optimum scaled by chi2/dof. A parameter that the data
 * cannot determine (zero Jacobian column, rank-deficient Jacobian, or no degrees of freedom) keeps its
 * prior value and is reported as such; a fit that does not converge is reported and its values are not
 * used. No NaN is ever written to an output file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_CAL_H
#define SCALEPLAN_CAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

struct strbuf; /* common/common.h: the text cal_cg_default_grid appends to */

#define CAL_MLPERF_TARGET_TOP1 MODEL_MLPERF_TARGET_TOP1 /* the MLLOG logs' default target, model.h's */
#define CAL_MLLOG_STR 128
/* All-reduce sweep rows below this size are not fitted: NCCL's low-latency protocols there do not follow
 * the alpha-beta form, and gradient buckets (25 MiB) are far above it. */
#define CAL_SWEEP_MIN_BYTES 1048576.0

/* ---- MLPerf MLLOG logs ---- */

enum { CAL_MLLOG_NULL, CAL_MLLOG_NUMBER, CAL_MLLOG_STRING, CAL_MLLOG_OTHER };

/* One `:::MLLOG {json}` event; fields absent from the line are NAN / "". */
typedef struct cal_mllog_event {
	double time_ms;
	char key[64];
	char event_type[24];
	int value_kind;            /* CAL_MLLOG_* */
	double value_num;          /* when value_kind == CAL_MLLOG_NUMBER (true/false are 1/0) */
	char value_str[CAL_MLLOG_STR];
	double epoch_num, first_epoch_num, epoch_count, samples_count; /* metadata */
	char status[24];           /* metadata.status ("success", "aborted") */
} cal_mllog_event;

/* The phases of one run, from its interval events (times in ms as logged; NAN or 0 when absent).
 * MLPerf logs bracket initialisation (init_start..init_stop), the scored run (run_start..run_stop),
 * blocks of epochs between evaluations (block_start..block_stop), each epoch (epoch_start..epoch_stop)
 * and each evaluation pass (eval_start..eval_stop); v4.0 result files end with `:::SYSJSON {...}`, the
 * system description, which gives the node and GPU counts. */
typedef struct cal_mllog_phases {
	double init_start_ms, init_stop_ms;
	double first_epoch_start_ms; /* the first epoch_start */
	double eval_samples;         /* images per evaluation pass (eval_samples) */
	int nodes, gpus_per_node;    /* from :::SYSJSON number_of_nodes / accelerators_per_node; 0 unknown */
	char accelerator[64];        /* :::SYSJSON accelerator_model_name ("NVIDIA H100-SXM5-80GB"); "" unknown */
	int nepochs;                 /* completed epoch_start..epoch_stop intervals */
	double epoch_sum_s;          /* their total time */
	double first_epoch_s;        /* the first one's time */
	int nevals;                  /* completed eval_start..eval_stop intervals */
	double eval_sum_s, first_eval_s;
	int nblocks;                 /* completed block_start..block_stop intervals */
	double block_sum_s;
} cal_mllog_phases;

/* What one log file says about its run. */
typedef struct cal_mllog_run {
	char *name;                /* file name */
	char platform[CAL_MLLOG_STR];
	char benchmark[64];
	char status[24];           /* run_stop status, "" when the run never stopped */
	double run_start_ms, run_stop_ms;
	double global_batch;
	double train_samples;      /* from the log; NAN when absent (ImageNet's count is then used) */
	double target_top1;
	int nevals;
	double top1;               /* last logged eval_accuracy */
	double last_eval_epoch;
	bool reached;              /* the target was reached (or the log says success) */
	double epochs;             /* epochs to target: epoch_num of the first eval at/above target */
	double tta_s;              /* run_stop - run_start (MLPerf time to train) */
	double throughput_img_s;   /* epochs x train_samples / tta_s */
	double block_img_s;        /* sum(epoch_count) x train_samples / sum(block_stop - block_start) */
	double first_block_ms;
	cal_mllog_phases ph;
	int nevents;               /* events read */
	int nbad;                  /* malformed MLLOG lines (reported, skipped) */
} cal_mllog_run;


/* ---- phase table: one row per MLPerf run, the time around and inside its scored interval ----
 * Written by `scaleplan calibrate --mllog DIR --phases-out FILE` (refdata/mlperf_v4_0_phases.csv is one),
 * read back by `validate` and by the fits of the run-level terms (cal_phase_fit). */

typedef struct cal_phase_row {
	char source[320];        /* repo@commit:path of the log (or the file name) */
	char submitter[64], system[128]; /* from a <submitter>/results/<system>/ path; else "" and the platform */
	char platform[CAL_MLLOG_STR];
	char status[24];         /* run_stop status ("success", "aborted"), "" when the run never stopped */
	double nodes, gpus_per_node, gpus;
	double global_batch, train_samples, eval_samples;
	double init_s;           /* init_start..init_stop */
	double init_to_run_s;    /* init_stop..run_start */
	double run_s;            /* run_start..run_stop: what MLPerf scores */
	double tta_s;            /* init_start..run_stop: wall clock of the logged run */
	double epochs;           /* completed epoch intervals */
	double epochs_to_target; /* epoch of the first evaluation at or above the target */
	double lead_s;           /* run_start..first epoch_start */
	double first_epoch_s, warm_epoch_s; /* the first epoch; mean of the others */
	double first_epoch_extra_s; /* first_epoch_s - warm_epoch_s (warm-up, cold reads) */
	double evals, eval_total_s, eval_first_s;
	double eval_pass_s;      /* mean of the evaluation passes after the first */
	double boundary_s;       /* run_s - lead - epochs - evaluations: gaps at epoch/block boundaries + tail */
	double train_img_s;      /* warm-epoch throughput: train_samples x (epochs - 1) / (their time) */
	double blocks;
	char accelerator[64];    /* the system description's accelerator_model_name */
} cal_phase_row;

/* Walks DIR recursively (sorted; files containing ":::MLLOG"), one row per log, and writes the phase
 * table to OUT (through OUT.tmp). source = source_prefix + the path relative to DIR. Malformed lines are
 * reported to errs and skipped (fatal when strict). *nrows gets the rows written. 0, ERR_INPUT, ERR_ENV. */
int cal_phases_write_dir(const char *dir, const char *source_prefix, const char *out, double target_top1,
			 bool strict, FILE *errs, int *nrows);
/* Reads a phase table (a buffer; name for messages). *rows is malloc'ed (free it). 0 or ERR_INPUT with
 * "name:line:col (field): expected ..." */
int cal_phases_read_buf(const char *name, const char *buf, size_t len_B, cal_phase_row **rows, int *n);
/* The phase table built into the binary (refdata/mlperf_v4_0_phases.csv). */
int cal_phases_builtin(cal_phase_row **rows, int *n);
/* The stacks' one-GPU reference runs built into the binary (refdata/one_gpu_runs.csv: stack, system, precision,
 * batch_per_gpu, data, img_s, source), the points their compute_eff is fitted on (cal_gpus.c,
 * tools/fit_stack_eff.sh). 0 (free *t with csv_table_free) or ERR_INPUT. */
struct csv_table;

/* The run-level terms of the model (model.h: startup_*, run_lead_*, cold_read_Bps, eval_*, epoch_boundary_*)
 * fitted to a phase table with GSL; forms (why: the v4.0 data, bench/NOTES.md "Whole-run phases" and h7's
 * "forms ... chosen by nested cross-validation"):
 *   start-up   init_start..run_start            = startup_s + b g(nodes), g one of CAL_STARTUP_*
 *   warm-up    lead-in + first epoch's extra + first evaluation's extra
 *                                               = run_lead_s [+ run_lead_steps x step]
 *                                                 + max(0, dataset_B / (nodes^e x cold_read_Bps) - warm epoch)
 *   evaluation one pass                         = eval_fixed_s + eval_step_frac x eval_samples / train_img_s
 *   boundary   per epoch (gaps between intervals) = epoch_boundary_s + epoch_boundary_iters x step time
 * The start-up's g and whether the lead-in has a part in steps are chosen by leave-one-organisation-out
 * cross-validation on the runs used (the lowest pooled error; a later, less simple, form only when lower
 * by more than 1%; the in-sample error when there are fewer than two organisations).
 * Start-up, evaluation and boundary: weighted linear least squares on relative residuals (gsl_fit_wlinear);
 * warm-up: gsl_multifit_nlinear (cal_lsq_solve) on residuals relative to the run's scored time, with the
 * node exponent e (cold_read_node_exp) fitted before it on how one system's first epoch shrinks: each
 * multi-node run against the mean first epoch of its submitter's single-node runs of the same GPU and node
 * size, first_1 / nodes^e - warm epoch against its extra (least squares on a 0.001 grid of e in [0, 1],
 * residuals / run_s; e = 1 when the table has no such pair). Runs used:
 * status success, logs with blocks (the MLPerf reference/NGC layout; tinycorp's tinygrad logs have none and
 * a half-hour kernel search as start-up, another stack), and not of the organisation `exclude_org`. */
enum { CAL_STARTUP_CONST, CAL_STARTUP_LOG2, CAL_STARTUP_SQRT, CAL_STARTUP_LINEAR, CAL_STARTUP_NFORMS };
enum { CAL_LEAD_CONST, CAL_LEAD_STEPS, CAL_LEAD_NFORMS };
typedef struct cal_phase_fit {
	int nruns;                 /* runs used */
	int startup_form;          /* CAL_STARTUP_*: which of the slopes below is set (the others 0) */
	double startup_s, startup_per_log2_node_s, startup_per_sqrt_node_s, startup_per_node_s;
	int lead_form;             /* CAL_LEAD_*: CONST leaves run_lead_steps 0 */
	double run_lead_s, run_lead_steps, cold_read_Bps;
	double cold_read_node_exp; /* the cold read's node exponent, fitted first (1 when no pair) */
	int cold_pairs;            /* multi-node runs it was fitted to (each against its single-node runs) */
	double eval_fixed_s, eval_step_frac;
	double epoch_boundary_s, epoch_boundary_iters;
	double mape_startup, mape_eval, mape_boundary; /* in-sample mean |pred/meas - 1| */
	double mae_warmup_run;     /* in-sample mean |pred - meas| / run_s of the warm-up */
	double cv_startup[CAL_STARTUP_NFORMS]; /* cross-validated errors of each form (NAN: no fold) */
	double cv_warmup[CAL_LEAD_NFORMS];
	int anchor_runs;           /* cal_phase_anchor: runs it used (0: not anchored) */
	double anchor_nodes;       /* their node count */
	double anchor_startup_x, anchor_lead_x; /* the factors it applied to the start-up and lead-in terms */
} cal_phase_fit;

/* A start-up form's formula ("a + b log2(nodes)"). */
const char *cal_startup_form_name(int form);
/* Fits *f to the rows (exclude_org NULL or "": all). 0, or ERR_INPUT when too few runs or a fit fails. */
int cal_phase_fit_rows(const cal_phase_row *rows, int n, const char *exclude_org, double dataset_B, cal_phase_fit *f);
/* Anchors a fit on one system's own runs at one node count (a planner's measured node; in `validate`
 * the submitter's single-node result): the start-up's fixed part moves and the lead-in is scaled so that
 * their forms give what those runs measured at their node count and step time (the start-up's growth with
 * nodes is the fit's, as the fit measured it on each system's own pairs; anchor_startup_x says measured /
 * fitted), and the cold-read rate becomes dataset_B / (nodes^e x first epoch) when the
 * first epoch was slower than the others by more than 5% (else that figure is only a lower bound and the
 * fitted rate is kept if higher). Why: at one node the v4.0 submitters differ by 31-53 s of start-up,
 * 0.7-1.4 s of lead-in and 0.2-29 s of first-epoch extra - more than the node count explains
 * (bench/NOTES.md, "anchored on the single-node runs"). Rows used: fit_usable ones whose submitter and
 * system match (NULL: any). 0 (f->anchor_runs set), or ERR_INPUT when no row is usable or they span
 * several node counts. */
int cal_phase_anchor(cal_phase_fit *f, const cal_phase_row *rows, int n, const char *submitter, const char *system,
		     double dataset_B);
/* Puts a fit's run-level terms into the model's parameters (model.h: start-up, lead-in, cold read,
 * evaluation, epoch boundary); the cold read's node exponent stays 1 when no multi-node pair fitted it. */
void cal_phase_fit_apply(const cal_phase_fit *f, model_params *p);

/* ---- validate's whole-run group (cal_wholerun.c) ----
 * Every MLPerf v4.0 multi-node result of the phase table predicted end to end from its submitter's
 * single-node result, the run-level terms fitted leave-one-organisation-out; prints nothing. */
typedef enum cal_wr_status {
	CAL_WR_PREDICTED,
	CAL_WR_SKIPPED,        /* not predicted: why says why */
	CAL_WR_FIT_FAILED,     /* the run-level fit failed: err */
	CAL_WR_PREDICT_FAILED, /* the scenario failed: err */
} cal_wr_status;
typedef struct cal_wr_result {
	cal_wr_status status;
	char name[200];              /* submitter/system */
	double nodes, gpus;
	char anchor[128];            /* the single-node result's system ("" when none) */
	const char *why;
	char err[256];
	double run_meas_s, tta_meas_s; /* MLPerf's scored means */
	double ttt_s, tta_s, epochs;   /* predicted with the logged epochs */
	double ttt_curve_s, tta_curve_s, epochs_curve; /* with the convergence curve's */
	double err_ttt, err_curve, err_tta; /* pred / meas - 1 */
} cal_wr_result;
typedef struct cal_wr_err {
	int n;
	double sum, worst, signed_sum; /* sum of |err|, the worst |err|, sum of err (the bias) */
} cal_wr_err;
typedef struct cal_wholerun {
	cal_wr_result *res;
	int n;
	cal_wr_err ttt, curve, tta; /* over the predicted results: logged epochs, curve epochs, tta */
} cal_wholerun;
/* Scores the built-in phase table against db (its systems; the measured anchor through plan_resolve).
 * 0 (free with cal_wholerun_free), ERR_ENV (the table cannot be read) or ERR_INTR. */
struct hw_db;
int cal_wholerun_score(const struct hw_db *db, cal_wholerun *w);
void cal_wholerun_free(cal_wholerun *w);

/* ---- measurements ---- */

typedef enum cal_kind {
	CAL_THROUGHPUT, /* images/s of a training configuration */
	CAL_ALLREDUCE,  /* all-reduce time of `bytes` on `gpus` ranks */
	CAL_PIPELINE,   /* input pipeline images/s with `workers` decode workers */
	CAL_EPOCHS,     /* epochs to target at a global batch */
	CAL_TTA,        /* MLLOG run: time to train (s) */
	CAL_CONTENTION, /* all-reduce beside a compute load: slowdown factor of the comm ("comm") or of the
	                 * load ("compute"; the point's variant) while both run (exec --load resnet|gemm) */
	CAL_NKINDS
} cal_kind;

/* One measured value and the configuration it was measured in. Unknown numbers are NAN. */
typedef struct cal_point {
	cal_kind kind;
	char *file;          /* where the row came from (file name) */
	int line;            /* 1-based line in that file */
	char *source;        /* the row's `source` column (or the file name) */
	char *machine;       /* machine / system id */
	char *gpu;           /* GPU id as written */
	char *precision;     /* fp32/tf32/fp16/bf16/amp/... as written, lower case */
	char *variant;       /* everything else that changes per-GPU speed (framework, layout, compiled) */
	char *framework;     /* throughput: the `framework` cell, lower case ("" when the table has none) */
	char *intra;         /* transport inside a node: "nvlink", "shm", "socket", "pcie", ... */
	char *inter;         /* transport between nodes: "socket", "ib", ... ("" for one node) */
	char *data;          /* "synthetic", "imagenet", ... */
	int nodes, gpus_per_node, gpus;
	double batch_per_gpu;   /* NAN when not given */
	double global_batch;
	double bytes;           /* all-reduce message size */
	double workers;         /* pipeline decode workers; CAL_TTA: epochs to target */
	double data_threads;    /* throughput: decode threads per node; pipeline: CPU cores (NAN: not said) */
	double grad_B_param;    /* throughput: all-reduced bytes per parameter (4 fp32, 2 bf16/fp16) */
	bool grad_B_said;       /* ... from the file's grad_precision, not a guess */
	double image_hw;        /* throughput: training image side (224 unless the file says) */
	bool no_overlap;        /* throughput: run with all-reduce after backward (exec --no-overlap) */
	double bucket_B;        /* throughput: gradient bucket size (bytes; exec bucket_mb; NAN: model default) */
	double meas_comm_s;     /* throughput: measured all-reduce time per iteration (exec allreduce_s) */
	double meas_exposed_s;  /* throughput: measured exposed communication per iteration */
	bool step_grads;        /* allreduce: one training step's gradients in the model's buckets, timed inside an
	                         * engine run (its allreduce_s), not a sweep of `bytes` */
	int step_ar;            /* throughput: index of its step_grads all-reduce point, -1 none */
	char *run_id;        /* throughput: the row's `run_id` ("" when the file has none) */
	int nranks;          /* throughput: rank files of one run combined into this point (exec writes one per
			      * process: out.csv, out.rank1.csv, ...; each run row holds the job's img/s) */
	double train_images;    /* CAL_TTA: images per epoch */
	double block_img_s;     /* CAL_TTA: steady throughput from the log's blocks */
	double measured;        /* img/s, time_s, img/s, epochs or tta_s by kind */
	double rise;            /* throughput, a run with epoch rows: its last epoch's img/s over the mean of its
				 * steady window (epochs 2 on) - 1; NAN: none. Above CAL_STEADY_RISE the run had not
				 * reached steady state: flagged, and its weight in a fit falls (CAL_STEADY_RISE / rise) */
} cal_point;

/* How far a run's last epoch may lie above the mean of its steady window and still count as steady: 3%,
 * about the spread of repeated steady runs of one configuration (bench/NOTES.md). */
#define CAL_STEADY_RISE 0.03

/* A set of measurements; grows by loading files. */
typedef struct cal_data {
	cal_point *pts;
	int n, cap;
	int nbad;            /* rows / log lines skipped as malformed */
	int nskipped;        /* rows deliberately not used (per-epoch rows, unknown table kinds) */
} cal_data;

void cal_data_init(cal_data *d);
void cal_data_free(cal_data *d);
/* A directory (as above), a .csv file, or any other file as an MLLOG log. */
int cal_data_load_path(cal_data *d, const char *path, double target_top1, bool strict, FILE *errs);
/* Loads the reference tables built into the binary (refdata/). */
int cal_data_load_builtin(cal_data *d, FILE *errs);
/* Keeps only the points that satisfy `where` ("field=value" or "field!=value", comma-separated, all must
 * hold; fields: gpus, nodes,
 * gpus_per_node, batch_per_gpu, machine, gpu, intra, inter, kind, source, file). Points of other kinds
 * than throughput are kept unless the field is kind/source/file/machine. ERR_INPUT on a bad expression. */
int cal_data_filter(cal_data *d, const char *where);
/* Replaces machine and GPU names that the hardware database knows (ids or aliases, any case) by their
 * database ids, so that a sweep written as "h200x2" and runs written as "testbed-h200x2" share fits. */
struct hw_db;
void cal_data_canonical(cal_data *d, const struct hw_db *db);

/* ---- parameters ---- */

typedef enum cal_pstatus {
	CAL_PRIOR,        /* not fitted: the prior (default or database) value */
	CAL_FITTED,       /* fitted, standard error known */
	CAL_EXACT,        /* fitted with no degrees of freedom left: no standard error */
	CAL_UNDETERMINED, /* the data cannot determine it: prior kept */
	CAL_NOCONV,       /* the fit did not converge: prior kept */
} cal_pstatus;

typedef struct cal_param {
	char *name;          /* "compute_eff" */
	char *scope;         /* "H200-SXM-141GB|bf16|testbed-h200x2" */
	double value;
	double prior;
	double se;           /* standard error; NAN when unknown (written as an empty cell) */
	cal_pstatus status;
	char *rows;          /* "file:line;file:line" of the rows it was fitted to */
	char *unit;
} cal_param;

/* A parameter set (the profile). */
/* The correlation of two parameters of one fit (indices into the set's p). */
typedef struct cal_pcorr {
	int a, b;
	double rho;
} cal_pcorr;

typedef struct cal_pset {
	cal_param *p;
	int n, cap;
	cal_pcorr *corr;     /* correlations of parameters fitted together (the profile's '#corr,' lines) */
	int ncorr, corr_cap;
} cal_pset;

void cal_pset_init(cal_pset *ps);
void cal_pset_free(cal_pset *ps);
/* Writes the profile CSV (atomically). Header `param,value,stderr,unit,status,scope,rows`; its data rows
 * are the fitted parameters that mean exactly what model/model.h's parameters of the same name mean
 * (b_half, overlap, decode_img_s_core, conv_*, epoch_boundary_s, alpha_*_s, bw_eff_* derived from busbw
 * and the hwdb link bandwidth), so `model_params_load` (predict --profile) reads it; every parameter of
 * the calibration itself, scoped, is on a comment line "#cal,<same columns>" that model_params_load
 * skips and cal_pset_load reads. Never writes NaN (unknown standard errors are empty cells).
 * opts->db may be NULL (no bw_eff_* rows then). Messages about ambiguous rows go to opts->log.
 * 0 or ERR_ENV. */
struct cal_opts;
int cal_pset_write(const cal_pset *ps, const char *path, const struct cal_opts *opts);
/* Reads the "#cal," lines of a profile written by cal_pset_write into ps. 0, ERR_INPUT (file:line
 * message) or ERR_ENV. */
int cal_pset_load(cal_pset *ps, const char *path);
const char *cal_pstatus_name(cal_pstatus s);

/* ---- fitting ---- */

/* Options of a calibration. */
struct hw_db;

typedef struct cal_opts {
	const struct hw_db *db; /* hardware database for GPU peaks and link priors; NULL: nominal values */
	bool strict;
	bool verbose;
	FILE *log;           /* fit messages (non-convergence, undetermined parameters); may be NULL */
	/* Optional second predictor for cal_validate (the CLI passes the full analytic model, model_predict,
	 * one-point calibrated on `others`, the measurements of the point's fit group other than it).
	 * Returns NAN when it cannot predict point i. */
	double (*model_fn)(void *ctx, const cal_data *d, int i, const int *others, int nothers);
	void *model_ctx;
} cal_opts;

/* The outcome of all fits of a calibration, for the summary line. */
/* The 90% interval of calibrate's leave-one-out predictions (cal_loo_interval): split-conformal bounds (log) of
 * the residuals, each counted beyond its point's repeat half-range (cal_resid_beyond), and how many of the n
 * points fall inside the interval derived without them, widened by their own half-range. */
typedef struct cal_loo_iv {
	int n, in;
	double lo, hi;       /* ln(measured / predicted) bounds from all n points; 0 when n is 0 */
} cal_loo_iv;

typedef struct cal_summary {
	int nfits;
	int nfailed;         /* fits that did not converge */
	int nundetermined;   /* parameters the data could not determine */
	int npoints;         /* points fitted */
	double fit_mape;     /* mean |pred/meas - 1| over the fitted points, in-sample */
	double loo_mape;     /* leave-one-out: each point predicted by a fit without it (NAN: none possible) */
	double fit_mape_spread, loo_mape_spread; /* the same, each point's error beyond the spread of its repeats
						  * (runs of the same configuration: 0 inside their range) */
	int nrepeat;         /* points run more than once (their spread is what the two above discount) */
	int nloo;
	cal_loo_iv iv;       /* the 90% interval of a leave-one-out prediction (cal_loo_interval) */
	cal_loo_iv iv_plain; /* the same with no point's repeat spread counted (every half-range 0) */
} cal_summary;

/* Fits every parameter the data in d can determine into ps (which may hold priors, e.g. from a previous
 * profile). Prints what it did to opts->log. Returns 0, or ERR_INPUT when d has nothing to fit. */
int cal_fit_all(cal_pset *ps, const cal_data *d, const cal_opts *opts, cal_summary *sum);


/* ---- validation ---- */

/* One row of the validation table. */
typedef struct cal_vrow {
	char *group;
	int n;
	double mape;          /* mean |pred/meas - 1| */
	double bias;          /* mean pred/meas - 1 (signed: > 0 predicts too high) */
	double worst;         /* largest |pred/meas - 1| */
	char *worst_where;    /* file:line of the worst point */
	double worst_pred, worst_meas;
	const char *how;      /* "leave-one-out", "other groups" (a fit group of one point), "profile", "mixed" */
	int model_n;          /* points opts->model_fn predicted */
	double model_mape;    /* its mean |pred/meas - 1| (NAN when model_n == 0) */
	double model_bias;    /* its mean pred/meas - 1 */
} cal_vrow;

typedef struct cal_vtable {
	cal_vrow *rows;
	int n;
	int npred;            /* points predicted */
	int nunpredictable;   /* points no fit could predict (listed on the log) */
} cal_vtable;

/* Predicts every point of d without fitting to it: when `fixed` is NULL, each point by a fit of all other
 * points (leave-one-out, within its fit group); else with the parameters in `fixed` only (no fitting).
 * Groups: "<kind> <machine> <what varies>". When `detail` is not NULL, writes one CSV line per point
 * (group,file,line,measured,predicted,err_pct). Returns 0 or ERR_INPUT (nothing to validate). */
int cal_validate(cal_vtable *vt, const cal_data *d, const cal_pset *fixed, const cal_opts *opts, FILE *detail);
void cal_vtable_free(cal_vtable *vt);
/* Prints the table for people (format "table"), as CSV ("csv") or as a Markdown table ("md"). */
void cal_vtable_print(const cal_vtable *vt, const char *format, FILE *out);

/* ---- 90% prediction intervals from held-out residuals (cal_interval.c) ----
 * `scaleplan validate` records each held-out prediction it makes (the model column's throughput points, the
 * whole-run group's ttt and tta); cal_interval_derive turns them into model/intervals.csv's table
 * (`make intervals`), cal_interval_coverage checks how often they fall inside. */
typedef struct cal_resid {
	model_quantity q;
	model_basis basis;   /* how the point's GPU is known without the point (cal_point_basis) */
	int nodes;
	double measured, predicted;
	int pool;            /* MODEL_POOL_*: the stack's (model_pool_of) */
	double startup_s;    /* tta: the predicted start-up inside `predicted` (model_interval_tta); else 0 */
	double repeat_hw;    /* a point its campaign ran more than once: half the log range of its runs,
			      * ln(largest / least) / 2 (cal_repeat_spread); 0: run once. Its score for the
			      * intervals is its residual beyond that, and its own interval is widened by it */
} cal_resid;
/* The least and largest measured value of the throughput runs of point i's configuration (machine, GPU, stack,
 * precision, placement, transport, batch, data path; i's included); false where the point was run once. */
bool cal_repeat_spread(const cal_data *d, int i, double *lo, double *hi);

/* How far the default model (no --measured) missed one generation against another: the mean of
 * ln(predicted / measured) over `to`'s points minus the same over `from`'s (the error of the model's
 * to/from speed ratio), on the points of the stacks both have (else all of each GPU's points). */
typedef struct cal_miss {
	const char *from, *to;   /* database GPU ids */
	bool same_arch;          /* a transfer within an architecture (H100 -> H200) */
	bool same_stack;         /* computed on shared stacks */
	int n_from, n_to;        /* points used (0: no such points: miss NAN) */
	double miss;             /* log */
} cal_miss;

/* The derived table: log bounds lo <= 0 <= hi of ln(measured / predicted), per basis, pool and quantity
 * (tta's row unused: model_interval_tta derives it). */
typedef struct cal_itable {
	double lo[MODEL_NBASES][MODEL_NPOOLS][MODEL_NQUANTITIES];
	double hi[MODEL_NBASES][MODEL_NPOOLS][MODEL_NQUANTITIES];
	int n[MODEL_NBASES][MODEL_NPOOLS][MODEL_NQUANTITIES];
	double grow[MODEL_NBASES][MODEL_NPOOLS][MODEL_NQUANTITIES]; /* grow_z2: model_interval_spread */
	char how[MODEL_NBASES][MODEL_NPOOLS][MODEL_NQUANTITIES][200];
} cal_itable;

/* The basis point i's GPU would have without the point: measured when another point of kind throughput
 * has its GPU, transfer when one of its architecture does (db), else estimate. */
model_basis cal_point_basis(const cal_data *d, int i, const struct hw_db *db);
/* Builds the table (rules in cal_interval.c's head comment; model_interval_conformal per pool). skip >= 0
 * leaves residual `skip` out (leave-one-out coverage). 0, or ERR_INPUT when there is no measured throughput
 * residual to start from. */
int cal_interval_derive(const cal_resid *res, int n, int skip, const cal_miss *miss, int nmiss, cal_itable *t);
/* The database ids of the GPUs with results in d (throughput and run points) and in the built-in MLPerf v4.0
 * phase table, sorted, into *ids (caller frees each and the array). Returns how many. */
int cal_measured_gpus(const cal_data *d, const struct hw_db *db, char ***ids);
/* Writes model/intervals.csv: comment lines, the header kind,basis,pool,quantity,n,lo_x,hi_x,what, one
 * interval row per basis x pool x quantity (throughput, ttt, startup) and one gpu row per id (through
 * PATH.tmp, renamed). 0 or ERR_ENV / ERR_INPUT (err_path). */
int cal_interval_write(const cal_itable *t, const cal_miss *miss, int nmiss, char *const *gpus, int ngpus,
		       const char *path);
/* Coverage: the share of residuals whose measured / predicted lies inside the interval of their basis,
 * pool and quantity, with the built-in table (model_interval_factors, model_interval_tta) and leave-one-out
 * (each against a table derived without it), by basis, scale, pool and quantity, with the median width of
 * the built-in intervals ((hi - lo) / predicted). Prints a short table to out. */
void cal_interval_coverage(const cal_resid *res, int n, const cal_miss *miss, int nmiss, FILE *out);

/* ---- 90% intervals of the ratio of two predictions, from pairs of measured results (cal_ratio.c) ----
 * A pair: two measured results of one source (one submitter and round, one white paper, one test bed) that
 * differ in what `differs` says (model_ratio_differs bits), both predicted by the default model. */
typedef struct cal_rpair {
	model_quantity q;
	unsigned differs;        /* 1u << model_diff of each difference; never 0 */
	double rho;              /* ln(measured ratio) - ln(predicted ratio) */
	model_stacks stacks;     /* both at the reference efficiency (model_stack_reference), or any */
} cal_rpair;

/* The derived table, per class of stacks: log bounds per difference (the pool a pair joins: its first
 * difference in the order gpu, stack, precision, system, scale) and quantity. Any stacks: every pair; a
 * difference no pair has first takes every pair's. Reference stacks: the pairs of two reference stacks; a
 * difference none of them has first takes any stacks' row. */
typedef struct cal_rtable {
	double lo[MODEL_NSTACKS][MODEL_NDIFFS][MODEL_NQUANTITIES], hi[MODEL_NSTACKS][MODEL_NDIFFS][MODEL_NQUANTITIES];
	int n[MODEL_NSTACKS][MODEL_NDIFFS][MODEL_NQUANTITIES];
	char how[MODEL_NSTACKS][MODEL_NDIFFS][MODEL_NQUANTITIES][160];
} cal_rtable;

/* Builds the table (model_interval_conformal per pool); skip >= 0 leaves pair `skip` out. 0, or ERR_INPUT
 * when there is no pair at all. */
int cal_ratio_derive(const cal_rpair *p, int n, int skip, cal_rtable *t);
/* Writes model/ratios.csv (header kind,differs,quantity,n,lo_x,hi_x,what; through PATH.tmp, renamed). 0 or
 * ERR_ENV / ERR_INPUT (err_path). */
int cal_ratio_write(const cal_rtable *t, int npairs, const char *path);
/* Coverage of the ratio intervals: the share of pairs whose measured ratio lies inside the interval of their
 * differences (model_ratio_bounds), with the table derived from all pairs and leave-one-out, and the median
 * interval width (hi_x - lo_x over the point ratio), by pool and quantity. Prints a short table to out. */
void cal_ratio_coverage(const cal_rpair *p, int n, FILE *out);

/* ---- validate's model column (cal_mcol.c) ----
 * Each throughput point predicted by the model that predicts (plan_resolve + model_predict) as a user
 * would ask for it: its system, placement, batch, precision, data path and stack, and as --measured the
 * single-node points of its fit group that fit on its node. Transports the database cannot describe
 * (host memory, sockets on one host) are not predicted. */
enum { CAL_MCOL_MAX_STACKS = 16 };
typedef struct cal_stack_err {
	const char *id;          /* hwdb stack id */
	int n;
	double abs_sum, sum;     /* sums of |pred / measured - 1| and of pred / measured - 1 */
} cal_stack_err;
typedef struct cal_mcol {
	const struct hw_db *db;
	const model_params *params;  /* the model's parameters: the defaults, or a profile's */
	int npred, nfail;            /* points predicted, points it could not describe or predict */
	cal_stack_err stacks[CAL_MCOL_MAX_STACKS]; /* the column's errors per stack */
	int nstacks;
	bool skip_own_gpu;           /* the stack's speed without its cell on the point's GPU (plan_spec
				      * eff_skip_gpu): a generation predicted from the others, as for a new GPU */
} cal_mcol;
/* cal_opts.model_fn: point i predicted with `others` (indices into d) as its --measured candidates;
 * NAN when the model cannot describe it. Counts it in m (ctx) and tallies its error by stack. */
double cal_mcol_point(void *ctx, const cal_data *d, int i, const int *others, int nothers);
/* The hwdb stack a point ran (stacks.csv), from its source and framework, then layout and compilation
 * (variant) for PyTorch: TensorFlow / Horovod tf1-hvd; PyTorch pytorch-ddp, -nchw, -compile or -dle;
 * NVIDIA's MXNet ngc-mlperf (MLPerf) or mxnet-dle, other MXNet (Dell's white papers) mxnet-dell; this
 * engine scaleplan-train. NULL (the system's default stack) when nothing names one. */
const char *cal_point_stack(const cal_point *p);

/* ---- GPU-generation fit (cal_gpus.c) ----
 * Fits eff_compute, eff_mem and eff_compute_fp32 of `base` through plan_resolve + model_predict to every
 * GPU's throughput on file (MLPerf v4.0 single-node results; DeepLearningExamples and test-bed runs of two
 * GPUs per stack) and prints the fit, its errors by GPU, leave-one-GPU-out and leave-one-submitter-out
 * errors to out (`scaleplan validate --group gpus`). 0, or ERR_INPUT (a point the database cannot place,
 * a fit that fails; err set). */
struct hw_db;
struct model_params;
int cal_gpu_report(const struct hw_db *db, const struct model_params *base, FILE *out);

/* Pairs of MLPerf v4.0 single-node results of one submitter (cal_gpus.c: the results the fit above uses; NVIDIA's
 * MLPerf stack on both sides: reference stacks),
 * each predicted through plan_resolve + model_predict with p (the default model): for throughput, ttt and tta
 * (a run's time is its images over its speed: rho of a time is minus the speed's), appended to *pairs (*npairs,
 * capacity *cap; grown). 0 or ERR_INPUT (a result the database cannot place). */
int cal_mlperf_pairs(const struct hw_db *db, const struct model_params *p, cal_rpair **pairs, int *npairs, int *cap);

/* ---- what validate's intervals are derived from, gathered (cal_resid.c) ----
 * Residuals and pairs in growing arrays; validate prints the coverage and writes the tables. */
typedef struct cal_resids {
	cal_resid *r;
	int n, cap;
} cal_resids;
typedef struct cal_rpairs {
	cal_rpair *p;
	int n, cap;
} cal_rpairs;
/* Adds one residual (skipped when measured or predicted is not a positive number). */
void cal_resids_add(cal_resids *v, const cal_resid *r);
void cal_resids_free(cal_resids *v);
/* The interval pool of a measurement's stack (model_pool_of; the point's system's stack when it names none). */
int cal_point_pool(const struct hw_db *db, const cal_point *p);
/* The whole-run group's ttt and tta residuals (cal_wholerun_score; basis measured, pool mlperf) into v, and
 * their pairs against the single-node anchors (scale, and system when the anchor is another cluster) into pp.
 * A result that repeats an earlier one (one log filed twice) counts once. 0, or cal_wholerun_score's error. */
int cal_wholerun_resids(const struct hw_db *db, cal_resids *v, cal_rpairs *pp);
/* The MLPerf v4.0 single-node throughput residuals (cal_gpu_heldout) and the v4.0 systems' start-up residuals
 * (cal_phase_startup_heldout) into v. 0, or a negative error (err set; what came before it is kept). */
int cal_mlperf_resids(const struct hw_db *db, cal_resids *v);
/* Pairs of the throughput points of one source that the default model predicts (pred[i] finite; stack[i] the
 * point's stack, may be NULL): throughput, ttt and tta, into pp. */
void cal_point_pairs(const struct hw_db *db, const cal_data *d, const double *pred, const char *const *stack,
		     cal_rpairs *pp);
/* The default model's misses over the transfers the data can check, as cal_transfer_miss: each GPU of the db
 * with a checked_from (gpus.csv: A100 -> H100 across an architecture, H100 -> H200 within one), in the
 * table's order, at most CAL_MAX_TRANSFERS. Returns how many. */
enum { CAL_MAX_TRANSFERS = 16 };
int cal_transfer_misses(const cal_data *d, const double *pred, const char *const *stack, const struct hw_db *db,
			cal_miss miss[CAL_MAX_TRANSFERS]);

/* ---- a calibration campaign (calibrate/cal_campaign.c): the grid of scaleplan-train runs and the scripts
 * that run them ---- */
enum { CAL_CG_MAX = 16, CAL_CG_MAX_RUNS = 4096 };

/* One axis of the grid: integers or names. */
typedef struct cal_cg_axis {
	int n;
	long v[CAL_CG_MAX];
	const char *s[CAL_CG_MAX];
} cal_cg_axis;

typedef struct cal_cg_grid {
	cal_cg_axis gpn, nodes, batch, data, transport;
} cal_cg_grid;

typedef struct cal_cg_run {
	int gpn, nodes, batch;
	const char *data, *transport; /* data synthetic, jpeg-gpu or jpeg-cpu; transport "none" for one GPU */
	char id[96];
	int copy;                     /* 1, or K for the K-th run of a repeated point (id suffix _rK) */
	double img_s_gpu;             /* its throughput per GPU as the model predicts it (the caller sets it) */
} cal_cg_run;

/* What the scripts say besides the runs. */
typedef struct cal_campaign {
	const char *train, *folder, *machine; /* scaleplan-train, the JPEG folder (or NULL), the CSVs' machine */
	char *out_abs;         /* the campaign folder as an absolute path (the Slurm script's copy runs elsewhere) */
	int iters, epochs;     /* synthetic runs' timed steps, JPEG runs' epochs */
	double run_timeout_s;  /* each run's limit; 0: twice its predicted time (img_s_gpu), at least 120 s */
	long train_n, val_n;   /* JPEGs in the folder's train/ and val/ */
} cal_campaign;

/* The runs of spec: grids separated by '|' (their union; @FILE: one grid), then each emulated run repeated
 * `repeat` times in all (copies last, id suffix _r2, _r3, ...). The count (may exceed CAL_CG_MAX_RUNS), or -1
 * with err as cal_cg_grid_parse. */
int cal_cg_plan(const char *spec, int repeat, cal_cg_run *runs);
/* The default grid of a host of host_gpus GPUs into buf (with jpeg-gpu runs where jpeg). */
const char *cal_cg_default_grid(int host_gpus, bool jpeg, struct strbuf *out); /* appends; returns out->s */
/* Writes dir/grid.csv, dir/run_mpirun.sh and dir/campaign.sbatch, each complete or absent. 0 or ERR_ENV. */
int cal_cg_write(const char *dir, const cal_campaign *c, const char *spec, const cal_cg_run *runs, int n);
/* Regular files in each class folder of dir/sub (one level, as the loader scans); -1 where unreadable. */
long cal_cg_count_images(const char *dir, const char *sub);
/* dir holds a campaign already (its grid or scripts). */
bool cal_cg_exists(const char *dir);
/* Adds (or rewrites) the column `steady` of a campaign's runs.csv from the runs' points in d: "yes", "rising
 * +X.X%" where its last epoch lies more than CAL_STEADY_RISE above the mean of its steady window (calibrate
 * weighs it less), empty where the run has no epochs to judge. Written atomically. 0 or the file's error. */
int cal_cg_mark_steady(const char *runs_csv, const cal_data *d);

#endif
