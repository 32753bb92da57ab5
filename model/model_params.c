/* model_params.c: the free parameters of the analytic model, their defaults and sources.
 *
 * One table (model_param_defs) holds name, default, range, unit and source of every parameter, so
 * --help, `--param NAME=VALUE`, calibrate/ (GSL fits) and profile CSVs all use the same names.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "model/model_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

typedef struct param_def {
	model_param_info info;
	size_t off;
} param_def;

#define P(field, def, lo, hi, unit, src) {{#field, def, lo, hi, unit, src}, offsetof(model_params, field)}

/* Contention defaults to none: `overlap` (0.6) already stands for it in the default (PyTorch DDP) runs. */
#define SLOWDOWN_SRC                                                                                       \
	"1 = none (overlap 0.6 covers DDP's); measure with scaleplan-train --bench-allreduce --load resnet + "  \
	"scaleplan calibrate: 2x H200 engine step 1.29 (NVLink), 1.27 (host memory), 1.13 (sockets) compute, "  \
	"1.6 / 1.1 / 1.0 comm (bench/NOTES.md, Contention)"

/* Sources: refdata/ (measurements from outside this project, each row with its source). "assumption"
 * marks a value no reference pins down; calibrate/ fits those first. */
static const param_def model_param_defs[] = {
	P(eff_compute, 0.3015, 0.01, 1.0, "fraction",
	  "`scaleplan validate --group gpus` (calibrate/cal_gpus.c: GSL Nelder-Mead through plan_resolve + "
	  "model_predict, least squares in log img/s, each GPU weighted 1/sqrt(its points)) to the MLPerf v4.0 "
	  "single-node results of H100 SXM, H100 PCIe, H200 and L40S (warm-epoch img/s, refdata/mlperf_v4_0_phases.csv; "
	  "NVIDIA MXNet, no free factor), the PyTorch test-bed runs of H100 and H200 (refdata/testbed_pytorch.csv) and "
	  "this project's engine on the H100 (bench/NOTES.md; one free factor per stack): the fraction of the dense tensor peak ResNet-50's convolutions reach on asynchronous-MMA "
	  "GPUs; leave-one-GPU-out and leave-one-submitter-out errors in docs/model.md. Rounds before v4.0 are the "
	  "project's hold-out and were not used"),
	P(eff_compute_sync, 0.388, 0.01, 1.0, "fraction",
	  "same program: no V100 or A100 result of NVIDIA's MLPerf stack is on file, and every run of another stack "
	  "has a free factor, so the level is the bound the reference defines: the smallest value at which no "
	  "tensor-core run on file of another stack on such a GPU beats the model's MLPerf-grade estimate (binding: "
	  "DeepLearningExamples MXNet 20.12, V100, 1,376 img/s, refdata/throughput.csv:9). Volta/Turing/Ampere issue "
	  "synchronous register-fed MMAs; Hopper's dense peak needs asynchronous wgmma (Luo et al., arXiv 2402.13499); "
	  "Ada issues them too but stays with eff_compute, whose v4.0 L40S results it fits (docs/model.md)"),
	P(eff_compute_fp32, 1.0, 0.01, 1.0, "fraction",
	  "same program, at its bound: only the DeepLearningExamples PyTorch V100 fp32 / A100 tf32 pair "
	  "(refdata/throughput.csv:7, 14) moves it, and it would put the CUDA-core path above its peak"),
	P(eff_mem, 0.662, 0.01, 1.0, "fraction",
	  "same fit as eff_compute: what the layers' kernels reach of the datasheet bandwidth; the H200 / H100 "
	  "ratio of the v4.0 results (1.11 per GPU) pins how much of a step is memory-bound"),
	P(fuse_bn_relu, 1.0, 0.0, 1.0, "fraction",
	  "MLPerf-grade stacks fuse batch norm and ReLU into the convolutions (mlcommons/training_results_v4.0 "
	  "NVIDIA MXNet ResNet-50: cuDNN NormConvolution and BN-add-ReLU kernels); 0 = each its own pass (PyTorch "
	  "eager: the stacks' compute_eff absorb the difference, hwdb stacks.csv)"),
	P(b_half, 18.0, 0.0, 4096.0, "images",
	  "`scaleplan validate --group gpus`, fitted with eff_compute and eff_mem (docs/model.md): the batch pairs "
	  "refdata/testbed_pytorch.csv H100 bf16 channels-last 3718 img/s at 128, 3973 at 256, and this project's "
	  "engine on that H100 5847 / 6516 / 7069 img/s at 64 / 128 / 256 (bench/NOTES.md). "
	  "Was 19 from the first pair alone, before the weight traffic's share was refitted"),
	P(compute_eff, 0.0, 0.0, 20.0, "factor",
	  "0 = the software stack's (hwdb stacks.csv compute_eff: GPU compute speed next to MLPerf-grade software); "
	  "a profile from `scaleplan calibrate` fitted on one machine, GPU and stack sets the value it fitted there "
	  "(the compute time is divided by it, as by the stack's)"),
	P(gen_gain_exp, 0.721, 0.05, 2.0, "exponent",
	  "tools/fit_stack_gen.sh: mean of the 7 moves of a framework stack across GPU generations on file (DLE "
	  "PyTorch 21.03 and DLE MXNet 20.12 V100 -> A100, eager NCHW PyTorch A100 -> H100 and H200, fp16 and tf32; "
	  "hwdb stack_effs.csv): each gained the model's MLPerf-grade gain to the power 0.50-0.83; leave-one-out by "
	  "(stack, generation) 8.9% mean (docs/stacks.md)"),
	P(gen_gain_exp_lo, 0.497, 0.05, 2.0, "exponent",
	  "the least of those moves (DLE MXNet 20.12 V100 -> A100): the low end of an unseen generation's interval"),
	P(gen_gain_exp_hi, 0.827, 0.05, 2.0, "exponent",
	  "the most of those moves (eager NCHW PyTorch tf32 A100 -> H200): the high end"),
	P(unseen_stack_err, 0.27, 0.0, 5.0, "ln ratio",
	  "`scaleplan validate --group gpus`, leave-one-stack-out predicted from the stacks like it: the largest "
	  "|ln(predicted / measured)| of a held-out stack's points, 0.26 (DLE MXNet 20.12 on A100, -22.9%), rounded up (docs/stacks.md)"),
	P(opt_B_per_param, 20.0, 0.0, 200.0, "B",
	  "SGD with momentum in fp32: read weight, grad, momentum, write weight, momentum = 5 x 4 B"),
	P(act_mem_factor, 0.59, 0.1, 10.0, "factor",
	  "refdata/testbed_pytorch.csv: H100 bf16 batch 128 5.7 GiB, 256 11.0 GiB => 44.5 MB/img "
	  "= 0.59 x sum(out_elems) (37.6 M) x 2 B"),
	P(mem_overhead_B, 1.5e9, 0.0, 1e11, "B", "assumption: CUDA context about 0.5 GB + cuDNN workspace"),
	P(bw_eff_nvlink, 0.75, 0.01, 1.0, "fraction",
	  "refdata/testbed_allreduce.csv: 4x H200 NV18 (450 GB/s per GPU) busbw 338.8 GB/s at 256 MiB"),
	P(bw_eff_pcie, 0.70, 0.01, 1.0, "fraction",
	  "assumption: nccl-tests all-reduce busbw on PCIe Gen3 x16 switches about 11 of 15.75 GB/s"),
	P(bw_eff_net, 0.90, 0.01, 1.0, "fraction",
	  "assumption: nccl-tests busbw over IB EDR/HDR with GPUDirect RDMA about 90% of the port rate"),
	P(alpha_nvlink_s, 7e-6, 0.0, 1e-2, "s",
	  "refdata/testbed_allreduce.csv: 4x H200 NVLink 1 MiB in 50 us = 6 ring steps x 7.6 us + 4.6 us"),
	P(alpha_pcie_s, 10e-6, 0.0, 1e-2, "s", "assumption: NCCL ring step latency through PCIe/host memory"),
	P(alpha_net_s, 15e-6, 0.0, 1e-1, "s", "assumption: NCCL ring step latency over InfiniBand"),
	P(overlap, 0.6, 0.0, 1.0, "fraction",
	  "refdata/testbed_pytorch.csv: 4x H200 DDP over sockets 13,736 img/s = 19.5 ms exposed of about "
	  "40 ms all-reduce (testbed_allreduce.csv 3.8 GB/s); the bucket pipeline alone would expose about "
	  "10 ms, no overlap 40 ms => about 0.6-0.7 (NCCL kernels contend with backward for SMs)"),
	P(slowdown_compute_nvlink, 1.0, 1.0, 10.0, "factor", SLOWDOWN_SRC),
	P(slowdown_comm_nvlink, 1.0, 1.0, 10.0, "factor", SLOWDOWN_SRC),
	P(slowdown_compute_pcie, 1.0, 1.0, 10.0, "factor", SLOWDOWN_SRC),
	P(slowdown_comm_pcie, 1.0, 1.0, 10.0, "factor", SLOWDOWN_SRC),
	P(slowdown_compute_net, 1.0, 1.0, 10.0, "factor", SLOWDOWN_SRC),
	P(slowdown_comm_net, 1.0, 1.0, 10.0, "factor", SLOWDOWN_SRC),
	P(bucket_B, 26214400.0, 1024.0, 1e10, "B", "PyTorch DDP bucket_cap_mb = 25 (MiB)"),
	P(grad_B_lowp, 2.0, 2.0, 4.0, "B",
	  "NVIDIA MXNet MLPerf stacks and Horovod fp16 compression reduce fp16 gradients; 4 = fp32 grads"),
	P(algo, 0.0, 0.0, 2.0, "enum", "0 auto (faster of ring and tree, as NCCL tunes), 1 ring, 2 tree"),
	P(straggler_cv, 0.015, 0.0, 1.0, "fraction",
	  "fit: refdata/throughput.csv c4130-p100 97% scaling on 4 GPUs, 92% on 8 (2 nodes); "
	  "expected max of P normals (Gumbel) ~ mean (1 + cv sqrt(2 ln P))"),
	P(decode_img_s_core, 350.0, 1.0, 1e5, "img/s",
	  "refdata/testbed_input_pipeline.csv: libjpeg-turbo decode + RandomResizedCrop + flip, one thread, "
	  "350 img/s (TensorFlow and DALI-CPU use libjpeg-turbo; PIL in a PyTorch DataLoader: 256-266)"),
	P(decode_ref_hz, 2.1e9, 1e8, 1e10, "Hz",
	  "assumption: clock of the testbed-h100x1 VM Xeon the decode rate was measured on"),
	P(cores_reserved_per_gpu, 4.0, 0.0, 64.0, "cores",
	  "refdata/seed_facts.md: TensorFlow decode threads = physical cores - 4 x GPUs"),
	P(decode_cores_min_frac, 0.5, 0.0, 1.0, "fraction",
	  "assumption: the reserved launch/copy threads mostly wait and share cores through SMT, so the "
	  "4-per-GPU rule (sized on 4-GPU nodes) never leaves decode less than half the cores; without "
	  "it a DGX-2 (48 cores, 16 GPUs) would decode on 1 core"),
	P(host_input_img_s_core, 612.0, 1.0, 1e9, "img/s",
	  "scaleplan calibrate on the 4x H200 (64-core host) campaign of 2026-11-28 "
	  "(bench/data/h200x4-2026-11-28/campaign/profile.csv: the host's shared stage 39,182 +- 14,721 img/s, fitted on "
	  "jpeg-gpu runs of 1, 2 and 4 ranks a host, NVLink and emulated nodes) / 64 cores: what one core of the host "
	  "carries of the input stage the ranks of a host share (file readers, host memory and PCIe copies, page cache; "
	  "model_input_rank_img_s)"),
	P(host_copy_B_per_img, 150528.0, 0.0, 1e8, "B", "224 x 224 x 3 uint8 decoded image"),
	P(dataset_B, 1.45e11, 1e6, 1e15, "B", "refdata/seed_facts.md: ImageNet-1k about 140-150 GB"),
	P(val_images, 50000.0, 0.0, 1e9, "images", "refdata/seed_facts.md: ImageNet-1k 50,000 validation images"),
	P(page_cache_frac, 0.75, 0.0, 1.0, "fraction",
	  "assumption; refdata/seed_facts.md: 140-150 GB fits in 384 GB node memory (page cache)"),
	P(storage_default_Bps, 2e9, 1e6, 1e13, "B/s", "assumption: read rate of one node's local drives when the system gives none (one NVMe SSD)"),
	P(conv_model, 0.0, 0.0, 1.0, "enum",
	  "0: piecewise-linear through refdata/convergence_rcp.csv olympic means (MLPerf v4.0 RCPs); "
	  "no 3-parameter smooth curve comes within 5% of all ten points (best minimax 5.4%)"),
	P(conv_e0, 34.26, 1.0, 1000.0, "epochs", "minimax fit of e0 (1 + (B/b0)^k) to convergence_rcp.csv (5.5%)"),
	P(conv_b0, 48417.0, 1.0, 1e8, "images", "same fit"),
	P(conv_k, 0.95, 0.1, 10.0, "exponent", "same fit"),
	P(conv_cv, 0.013, 0.0, 1.0, "fraction",
	  "refdata/convergence_rcp.csv: run-to-run spread of the epochs to target, sd / mean, sd from each "
	  "point's max - min over its runs (expected range of 10-28 normal samples: 3.1-3.9 sd); median of the 10 "
	  "points 1.3% (3.2% at batch 1632, 0.6% at 67840). sim --runs draws each run's epochs with it"),
	/* run-level terms: `scaleplan calibrate --phases-fit builtin` (calibrate/cal.h cal_phase_fit, GSL) on the
	 * 165 successful v4.0 runs with blocks of refdata/mlperf_v4_0_phases.csv */
	P(startup_s, 42.32, 0.0, 1e5, "s",
	  "fit to init_start..run_start, refdata/mlperf_v4_0_phases.csv (MLPerf v4.0, 165 runs; MAPE 29%: 20-73 s "
	  "between submitters of one node); the growth from each system's own runs at its fewest and at more nodes "
	  "(cal_phases.c startup_pair_slope; the form whose slope fits those pairs best: a + b nodes), a the "
	  "geometric mean of every run less the growth; leave-one-organisation-out MAPE (anchored as validate's "
	  "whole-run group): a 30.3%, log2 30.0%, sqrt 29.7%, linear 48.5%: only NVIDIA ran past 8 nodes, so that "
	  "fold cannot see the growth"),
	P(startup_per_log2_node_s, 0.0, 0.0, 1e4, "s", "same fit: the log2(nodes) form fits the pairs less well (0)"),
	P(startup_per_sqrt_node_s, 0.0, 0.0, 1e4, "s", "same fit: the sqrt(nodes) form fits the pairs less well (0)"),
	P(startup_per_node_s, 0.2075, 0.0, 100.0, "s",
	  "same fit: 0.21 s more per node (pairs: eos 42 s at 1 node, 58 s at 8, 91 s at 316; HPE 42 -> 50 s at 2; "
	  "Oracle 31 -> 40 s at 8; NVIDIA's L40S 19.4 s at 2 and 16; coreweave's 448-node cluster 189 s against "
	  "eos at 1)"),
	P(run_lead_s, 0.5221, 0.0, 1e4, "s",
	  "fit a + k step to run_start..first epoch + first eval's extra, mlperf_v4_0_phases.csv, residuals / run_s; "
	  "form by leave-one-organisation-out error (0.60% of the run vs 0.62% for a constant; bench/NOTES.md, h7)"),
	P(run_lead_steps, 25.37, 0.0, 1e4, "steps", "same fit: the lead-in's part that scales with the step time"),
	P(cold_read_Bps, 4.642e9, 1e6, 1e13, "B/s",
	  "fit to the first epoch's extra: max(0, dataset_B / (nodes^cold_read_node_exp x this) - warm epoch) after "
	  "MLPerf's cache drop, mlperf_v4_0_phases.csv (warm-up with the lead-in: mean |err| 1.2% of run_s)"),
	P(cold_read_node_exp, 0.74, 0.0, 1.0, "exponent",
	  "n nodes cold-read the data set at cold_read_Bps x n^this: fit to the first epoch of each v4.0 multi-node "
	  "system against its submitter's single-node runs (HPE 2, Oracle/smc/eos 8, eos 316, coreweave 448 nodes), "
	  "mlperf_v4_0_phases.csv; 0.73-0.76 leaving out any one organisation (1 would shrink the read as 1/nodes)"),
	P(eval_fixed_s, 0.003851, 0.0, 1e4, "s",
	  "fit a + b val_images/(img/s) to the eval passes after the first, mlperf_v4_0_phases.csv (MAPE 6%)"),
	P(eval_step_frac, 0.38, 0.0, 10.0, "fraction", "same fit: evaluation image vs training image time"),
	P(epoch_boundary_s, 0.0, 0.0, 1e4, "s",
	  "fit a + b step to the gaps per epoch, mlperf_v4_0_phases.csv: a < 0 refitted as 0 (MAPE 1.7%)"),
	P(epoch_boundary_iters, 0.2479, 0.0, 100.0, "steps",
	  "same fit: a quarter of a training step per epoch on 1 to 448 nodes"),
	P(eval_every, 4.0, 0.0, 1000.0, "epochs", "MLPerf ResNet-50 rules: evaluate every 4 epochs (0 = never)"),
	P(power_frac, 0.8, 0.0, 1.0, "fraction", "assumption: average draw during training / max node power"),
	P(power_overhead, 1.3, 1.0, 5.0, "factor",
	  "assumption: fans, memory, NICs, PSU loss over GPU + CPU TDPs when the node power is unknown"),
};
#undef P

enum { NPARAMS = sizeof(model_param_defs) / sizeof(model_param_defs[0]) };

void model_params_default(model_params *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < NPARAMS; i++)
		*(double *)((char *)p + model_param_defs[i].off) = model_param_defs[i].info.def;
}

int model_params_count(void)
{
	return NPARAMS;
}

const model_param_info *model_params_info(int i)
{
	return (i >= 0 && i < NPARAMS) ? &model_param_defs[i].info : NULL;
}

static const param_def *param_find(const char *name)
{
	for (int i = 0; i < NPARAMS; i++)
		if (strcasecmp(model_param_defs[i].info.name, name) == 0)
			return &model_param_defs[i];
	return NULL;
}

static int param_unknown(const char *name)
{
	int best = -1, bestd = 1 << 30;

	for (int i = 0; i < NPARAMS; i++) {
		int d = str_edit_distance(name, model_param_defs[i].info.name);
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	if (best >= 0 && bestd <= 4)
		return err_set("unknown model parameter '%s' (did you mean %s?)", name,
			       model_param_defs[best].info.name);
	return err_set("unknown model parameter '%s' (the list: `scaleplan predict --params`)", name);
}

int model_params_set(model_params *p, const char *name, double value)
{
	const param_def *d = param_find(name);

	if (!d)
		return param_unknown(name);
	if (!isfinite(value) || value < d->info.lo || value > d->info.hi)
		return err_set("model parameter %s = %g out of range [%g, %g] (%s)", d->info.name, value, d->info.lo,
			       d->info.hi, d->info.unit);
	*(double *)((char *)p + d->off) = value;
	return 0;
}

int model_params_get(const model_params *p, const char *name, double *value)
{
	const param_def *d = param_find(name);

	if (!d)
		return param_unknown(name);
	*value = *(const double *)((const char *)p + d->off);
	return 0;
}

int model_params_parse(model_params *p, const char *assignment)
{
	char name[64];
	const char *eq = strchr(assignment, '=');
	char *end;
	double v;
	size_t n;

	if (!eq || eq == assignment)
		return err_set("--param '%s': expected NAME=VALUE", assignment);
	n = (size_t)(eq - assignment);
	if (n >= sizeof(name))
		return err_set("--param '%s': name too long", assignment);
	memcpy(name, assignment, n);
	name[n] = '\0';
	v = strtod(eq + 1, &end);
	if (end == eq + 1 || *end != '\0')
		return err_set("--param %s: '%s' is not a number", name, eq + 1);
	return model_params_set(p, name, v);
}

int model_params_load(model_params *p, const char *path)
{
	csv_table t;
	model_params tmp = *p;
	int rc, cn, cv;

	rc = csv_table_load(&t, path);
	if (rc)
		return rc;
	cn = csv_table_col(&t, "param");
	cv = csv_table_col(&t, "value");
	if (cn < 0 || cv < 0) {
		rc = err_set("%s:1: expected columns 'param' and 'value'", path);
		goto out;
	}
	for (int r = 0; r < t.nrows; r++) {
		double v;
		rc = csv_cell_double(&t, r, cv, &v);
		if (rc)
			goto out;
		rc = model_params_set(&tmp, t.cells[r][cn], v);
		if (rc) {
			err_prefix("%s:%d:%d(param)", path, t.line[r], cn + 1);
			goto out;
		}
	}
	*p = tmp;
out:
	csv_table_free(&t);
	return rc;
}
