/* plan: from the hardware database and a user's description of a run to what the model predicts and
 * what a buyer is told.
 *
 * - plan_spec: what the user described (a system and/or component overrides, the run, the money);
 * - plan_resolve: the spec on one system, GPUs per node and node count turned into a prepared model
 *   scenario (model/model.h): database figures copied into model_node, the precision the GPU really
 *   runs, the stack, storage sizing, prices, the automatic batch;
 * - plan_placements / plan_decide (plan_decide.c): the ways to place N GPUs on candidate systems (whole
 *   servers by default) and the one decision compare, report and sweep all print.
 *
 * The module prints nothing: failures return ERR_INPUT with the reason in err_msg() (common/common.h).
 * It sits between cli/ (above) and hwdb/ + model/ (below); validate, sim and the bench programs use it
 * as the cli does.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_PLAN_H
#define SCALEPLAN_PLAN_H

#include <stdbool.h>

#include "hwdb/hw.h"
#include "model/model.h"

/* A run as the user described it. Ids are NULL when not given; counts 0 when not given. */
typedef struct plan_spec {
	const char *system_id, *gpu_id, *intra_id, *host_link_id, *cpu_id, *fabric_id, *storage_id, *stack_id;
	int gpus_per_node;         /* 0 = the system's */
	int host_links, cpus_per_node, nics_per_node; /* 0 = the system's */
	int nodes;                 /* default 1 */
	int batch_per_gpu;         /* 0 = automatic */
	int global_batch;          /* 0 = not given */
	model_precision precision;
	int data;                  /* model_data, or -1: the stack's data path */
	double epochs, images, target_top1;
	model_measured measured[MODEL_MAX_MEASURED];
	int nmeasured;
} plan_spec;

/* Defaults: 1 node, bf16, the stack's data path, ImageNet-1k, 75.9% top-1. */
void plan_spec_init(plan_spec *s);

/* Checks every id of the spec against db. 0, or ERR_INPUT with *kind and *id set to the first unknown one
 * (the caller prints suggestions: hw_suggest). */
int plan_check_ids(const hw_db *db, const plan_spec *s, hw_kind *kind, const char **id);

/* The stack a run uses: the spec's --stack, else sys's default (sys NULL: the spec's system), else NULL. */
const hw_stack *plan_stack(const hw_db *db, const plan_spec *s, const hw_system *sys);

/* The precision a GPU really runs when asked for `want` (no bf16 before Ampere: fp16; no fast fp16 or
 * tf32: fp32), as hw_gpu_peak_flops assumes. */
model_precision plan_precision_on(const hw_gpu *gpu, model_precision want);

/* Builds a prepared (and, with measurements, calibrated) scenario for system sys (NULL = the spec's
 * system, or components only) with gpn GPUs per node (0 = the spec's, else the system's) on `nodes` nodes
 * (0 = the spec's). The batch: --global-batch, else --batch-per-gpu, else automatic (the largest of 256..8 that fits). 0 or ERR_INPUT. */
int plan_resolve(const hw_db *db, const plan_spec *s, const model_params *p, const hw_system *sys, int gpn,
		 int nodes, model_scenario *sc);

#endif
