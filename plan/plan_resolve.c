/* plan_resolve.c: a hwdb system plus the user's overrides -> a prepared model scenario.
 * Database figures are copied into model_node (the hardware) and model_price (its prices and terms) here and
 * nowhere else, so predict, compare, sweep, report, sim, validate and the bench programs all see the same
 * machine.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

void plan_spec_init(plan_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->nodes = 1;
	s->precision = MODEL_BF16;
	s->data = -1;
	s->images = MODEL_IMAGENET_TRAIN_IMAGES;
	s->target_top1 = MODEL_MLPERF_TARGET_TOP1;
	s->rent_quote_usd_gpu_h = NAN;
	model_money_default(&s->money);
}

/* The first id of kind k that db does not know: sets *kind, *id and returns ERR_INPUT. */
#define CHECK_ID(k, findfn, field)                                                                        \
	do {                                                                                               \
		if (s->field && !findfn(db, s->field)) {                                                   \
			*kind = (k);                                                                       \
			*id = s->field;                                                                    \
			return err_set("unknown %s '%s'", hw_kind_singular(k), s->field);                  \
		}                                                                                          \
	} while (0)

int plan_check_ids(const hw_db *db, const plan_spec *s, hw_kind *kind, const char **id)
{
	CHECK_ID(HW_SYSTEM, hw_system_find, system_id);
	CHECK_ID(HW_GPU, hw_gpu_find, gpu_id);
	CHECK_ID(HW_LINK, hw_link_find, intra_id);
	CHECK_ID(HW_LINK, hw_link_find, host_link_id);
	CHECK_ID(HW_CPU, hw_cpu_find, cpu_id);
	CHECK_ID(HW_FABRIC, hw_fabric_find, fabric_id);
	CHECK_ID(HW_STORAGE, hw_storage_find, storage_id);
	CHECK_ID(HW_STACK, hw_stack_find, stack_id);
	CHECK_ID(HW_STACK, hw_stack_find, measured_stack_id);
	CHECK_ID(HW_SYSTEM, hw_system_find, measured_system_id);
	return 0;
}

/* The stack a run uses: the spec's --stack, else sys's default (sys NULL: the spec's system), else NULL. */
static const hw_stack *plan_stack(const hw_db *db, const plan_spec *s, const hw_system *sys)
{
	if (s->stack_id)
		return hw_stack_find(db, s->stack_id);
	if (!sys && s->system_id)
		sys = hw_system_find(db, s->system_id);
	return sys ? sys->stack : NULL;
}

static double known_or(double v, double dflt)
{
	return hw_known(v) ? v : dflt;
}

/* Per-GPU bandwidth of an intra-node link for a GPU: an NVLink counts all the GPU's links. */
static double intra_bw_of(const hw_link *l, const hw_gpu *g)
{
	if (l->kind == HW_LINK_NVLINK) {
		if (hw_known(g->nvlink_bw_Bps) && g->nvlink_bw_Bps > 0)
			return g->nvlink_bw_Bps;
		return l->bw_Bps * (g->nvlinks > 0 ? g->nvlinks : 1);
	}
	return l->bw_Bps;
}

/* The batch per GPU of least time to accuracy among 256 down to 8: epochs grow with the global batch
 * (model_epochs), so at scale a smaller per-GPU batch finishes sooner although each step is less
 * efficient. Batches inside the measured convergence range first (an extrapolated one only when none is);
 * none above an epoch. Ties (within 0.1%) go to the larger batch. 0 when none fits. */
int plan_auto_batch(model_scenario *sc, const model_params *p)
{
	static const int cand[] = {256, 128, 64, 32, 16, 8};
	int best = 0;
	double best_s = INFINITY;
	bool best_extra = true;
	for (unsigned i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		model_result r;
		sc->batch_per_gpu = cand[i];
		if (model_predict(sc, p, &r) != 0 || !r.fits)
			continue;
		bool better = best == 0 || (best_extra && !r.extrapolated) ||
			      (best_extra == r.extrapolated && r.tta_s < best_s * (1 - 1e-3));
		if (better) {
			best = cand[i];
			best_s = r.tta_s;
			best_extra = r.extrapolated;
		}
	}
	sc->batch_per_gpu = best;
	err_clear();
	return best;
}

static void copy_stack(const plan_spec *s, const hw_stack *st, model_scenario *sc)
{
	model_stack *ms = &sc->stack;
	if (st) {
		ms->id = st->id;
		ms->staged = st->staging == HW_STAGE_LOCAL;
		ms->cores_reserved_per_gpu = st->threads_per_gpu;
		ms->decode_img_s_core = st->decode_img_s_core;
		ms->grad_B = st->grad_B;
		ms->bucket_B = st->bucket_B;
		ms->overlap = st->comm_hidden_frac;
		ms->step_overhead_s = st->step_overhead_s;
		/* fp32/tf32 runs have their own figure where the stack gives one */
		bool full = sc->precision == MODEL_FP32 || sc->precision == MODEL_TF32;
		ms->compute_eff = full && hw_known(st->compute_eff_fp32) ? st->compute_eff_fp32 : st->compute_eff;
		ms->gpu_decode_img_s = st->gpu_decode_img_s;
		sc->node.decode_threads = st->decode_threads;
	}
	sc->data = s->data >= 0 ? (model_data)s->data
		   : st && st->data_path == HW_DATA_GPU ? MODEL_DATA_GPU : MODEL_DATA_CPU;
}

/* The speed on this GPU of the stack the --measured runs ran (--measured-stack), where it is another than the
 * run's: 0 when it is the same (or none). */
static double measured_eff(const hw_db *db, const plan_spec *s, const hw_stack *run, const hw_gpu *gpu,
			   const model_params *p, const model_scenario *sc)
{
	const hw_stack *m = s->measured_stack_id ? hw_stack_find(db, s->measured_stack_id) : NULL;
	plan_eff e;
	if (!s->nmeasured || !m || m == run)
		return 0;
	plan_stack_eff(db, m, NULL, NULL, gpu, sc->precision, p, &e);
	return e.eff > 0 ? e.eff : 1.0;
}

/* The stack's speed on this GPU (plan_stack_eff) in place of its one figure. */
static void stack_eff_set(const hw_db *db, const plan_spec *s, const hw_stack *st, const hw_gpu *gpu,
			  const model_params *p, model_scenario *sc)
{
	plan_eff e;
	if (!st)
		return;
	plan_stack_eff(db, st, NULL, s->eff_skip_gpu ? hw_gpu_find(db, s->eff_skip_gpu) : NULL, gpu, sc->precision, p, &e);
	sc->stack.compute_eff = e.eff;
	sc->stack.eff_how = e.how;
	sc->stack.eff_from_gpu = e.from_gpu;
	sc->stack.eff_lo_x = e.lo_x;
	sc->stack.eff_hi_x = e.hi_x;
}

/* A GPU's own PCIe x16 link, one direction: 15.75 GB/s at gen 3, doubling each generation (PCI-SIG). */
static double gpu_pcie_Bps(const hw_gpu *gpu)
{
	return 15.75e9 * (gpu->pcie_gen >= 3 ? 1 << (gpu->pcie_gen - 3) : 1);
}

/* Between the GPUs of a node: --intra, else the system's topology, else the GPU's own NVLink, else
 * PCIe of the GPU's generation (15.75 GB/s per x16 at gen 3, doubling per generation). */
static void copy_intra(const hw_db *db, const plan_spec *s, const hw_system *sys, const hw_gpu *gpu,
		       model_node *n)
{
	if (s->intra_id) {
		const hw_link *l = hw_link_find(db, s->intra_id);
		n->intra_nvlink = l->kind == HW_LINK_NVLINK || l->kind == HW_LINK_NVSWITCH;
		n->intra_bw_Bps = intra_bw_of(l, gpu);
	} else if (sys && sys->intra != HW_TOPO_SINGLE) {
		n->intra_nvlink = sys->intra == HW_TOPO_NVSWITCH || sys->intra == HW_TOPO_NVLINK_MESH ||
				  sys->intra == HW_TOPO_HYBRID_CUBE;
		n->intra_bw_Bps = known_or(sys->intra_bw_Bps, sys->intra_link ? intra_bw_of(sys->intra_link, gpu) : 0);
	} else if (gpu->nvlinks > 0 && hw_known(gpu->nvlink_bw_Bps)) {
		n->intra_nvlink = true;
		n->intra_bw_Bps = gpu->nvlink_bw_Bps;
	} else {
		n->intra_bw_Bps = gpu_pcie_Bps(gpu);
	}
}

static void copy_host(const hw_db *db, const plan_spec *s, const hw_system *sys, int gpn, model_node *n)
{
	const hw_link *hl = s->host_link_id ? hw_link_find(db, s->host_link_id) : sys ? sys->host_link : NULL;
	n->host_link_Bps = hl ? hl->bw_Bps : 0;
	n->host_links = s->host_links > 0 ? s->host_links : sys ? sys->host_links : 0;
	if (s->host_link_id && n->host_links <= 0)
		n->host_links = gpn;
	const hw_cpu *cpu = s->cpu_id ? hw_cpu_find(db, s->cpu_id) : sys ? sys->cpu : NULL;
	n->cpus = s->cpus_per_node > 0 ? s->cpus_per_node : sys && sys->cpus_per_node > 0 ? sys->cpus_per_node : 1;
	if (cpu) {
		n->cores = cpu->cores * n->cpus;
		n->cpu_hz = known_or(cpu->base_hz, 0);
		n->cpu_tdp_W = known_or(cpu->tdp_W, 0);
	}
	n->host_mem_B = sys ? known_or(sys->mem_B, 0) : 0;
}

/* The network: --fabric's NIC (its oversubscription divides the rate), else the system's NIC. */
static void copy_network(const hw_db *db, const plan_spec *s, const hw_system *sys, model_node *n)
{
	const hw_link *nic = NULL;
	double over = 1.0;
	if (s->fabric_id) {
		const hw_fabric *f = hw_fabric_find(db, s->fabric_id);
		nic = f->nic;
		over = hw_known(f->oversubscription) && f->oversubscription >= 1 ? f->oversubscription : 1.0;
	} else if (sys) {
		nic = sys->nic ? sys->nic : sys->fabric ? sys->fabric->nic : NULL;
		if (sys->fabric && hw_known(sys->fabric->oversubscription) && sys->fabric->oversubscription >= 1)
			over = sys->fabric->oversubscription;
	}
	n->nic_Bps = nic ? nic->bw_Bps / over : 0;
	n->nics_per_node = s->nics_per_node > 0 ? s->nics_per_node
			   : (sys && sys->nics_per_node > 0) ? sys->nics_per_node : (nic ? 1 : 0);
}

/* The NICs a node's GPUs can drive: a server spreads its NICs over its GPUs (DGX H100: one 400 Gb/s NIC
 * behind the PCIe switch of each GPU; NVIDIA DGX H100 user guide, network ports), and NCCL sends a GPU's
 * traffic through the NICs near it (GPU-NIC affinity, NCCL's topology search). So a node using gpn of its
 * G GPUs drives gpn x ceil(NICs / G) of them, and a GPU sends no faster than its own PCIe link (pcie_Bps,
 * GPUDirect RDMA through the switch): one GPU per DGX H100 gets one NIC, not the eight of the node. Needs
 * max_gpus_per_node and the network (copy_network). */
static void reachable_nics(model_node *n, double pcie_Bps)
{
	int G = n->max_gpus_per_node > n->gpus_per_node ? n->max_gpus_per_node : n->gpus_per_node;
	if (n->nics_per_node <= 0 || G <= 0)
		return;
	int per_gpu = (n->nics_per_node + G - 1) / G;
	if ((long)n->gpus_per_node * per_gpu < n->nics_per_node)
		n->nics_per_node = n->gpus_per_node * per_gpu;
	if (pcie_Bps > 0 && per_gpu * n->nic_Bps > pcie_Bps)
		n->nic_Bps = pcie_Bps / per_gpu;
}

/* Storage: a shared store (aggregate, per-node share) or the nodes' own drives. */
static void copy_storage(const hw_db *db, const plan_spec *s, const hw_system *sys, model_node *n)
{
	const hw_storage *st = s->storage_id ? hw_storage_find(db, s->storage_id) : sys ? sys->storage : NULL;
	bool local = !st || strcmp(st->kind, "local") == 0;
	if (sys && sys->local_drives > 0)
		n->local_Bps = sys->local_drives * sys->local_drive_Bps;
	else if (st && local && hw_known(st->read_Bps))
		n->local_Bps = st->read_Bps; /* one drive of that kind per node */
	if (st && !local) {
		/* unknown aggregate: a parallel file system that grows with its clients. A system's default
		 * store is the one its source was tested with (an Isilon F800 chassis for 4-16 C4140s): the
		 * planner sizes it to the cluster (scale-out NAS adds chassis), so only the per-node share
		 * binds; a store the user names with --storage is taken as it is. */
		n->storage_Bps = s->storage_id ? known_or(st->read_Bps, INFINITY) : INFINITY;
		n->storage_link_Bps = known_or(st->node_Bps, st->link ? st->link->bw_Bps : 0);
		n->storage_id = st->id;
	}
}

/* The rate of a system at the spec's rent term (on demand, 1y, 3y, spot), NAN when none. */
static double term_rate(const plan_spec *s, const hw_system *sys)
{
	return s->rent_term_years == 1 ? sys->rent_1y_usd_gpu_h : s->rent_term_years == 3 ? sys->rent_3y_usd_gpu_h
	       : s->rent_term_years == PLAN_RENT_SPOT ? sys->rent_spot_usd_gpu_h : sys->rent_usd_gpu_h;
}

/* The relative width of a rate: on demand by its kind; committed and spot rates are press figures or
 * estimates in our sources (providers quote them per account), so the estimate's width. */
static double rate_width(const plan_spec *s, const hw_system *sys)
{
	return s->rent_term_years == 0 ? model_price_width(sys->rent_kind) : model_price_width("estimate");
}

/* Whether sys rents `gpus` GPUs at its rate (within rent_max_gpus, or with a cluster rate). */
static bool rents(const plan_spec *s, const hw_system *sys, int gpus)
{
	if (!hw_known(term_rate(s, sys)))
		return false;
	return sys->rent_max_gpus <= 0 || gpus <= sys->rent_max_gpus || hw_known(sys->rent_cluster_usd_gpu_h);
}

/* Buy against rent: the cheapest rate (per GPU-hour at the spec's term) of a system that rents the same
 * GPU model for `gpus` GPUs; sets pr->ref_rent_*, NAN when none. */
static void copy_ref_rent(const hw_db *db, const plan_spec *s, const hw_system *sys, int gpus, model_price *pr)
{
	pr->ref_rent_usd_gpu_h = pr->ref_rent_market_usd_gpu_h = NAN;
	pr->ref_rent_gpus = 0;
	pr->ref_rent_id = NULL;
	if (isfinite(s->rent_quote_usd_gpu_h)) { /* a quote in hand (--rent-rate): the rental weighed, by the node */
		pr->ref_rent_usd_gpu_h = s->rent_quote_usd_gpu_h;
		pr->ref_rent_gpus = sys ? sys->gpus_per_node : 1;
		pr->ref_rent_id = PLAN_QUOTE_ID;
		return;
	}
	for (int i = 0; sys && i < db->nsystems; i++) {
		const hw_system *o = &db->systems[i];
		double rate = term_rate(s, o);
		if (o->gpu != sys->gpu || !rents(s, o, gpus))
			continue;
		if (o->rent_max_gpus > 0 && gpus > o->rent_max_gpus)
			rate = o->rent_cluster_usd_gpu_h;
		if (isfinite(pr->ref_rent_usd_gpu_h) && !(rate < pr->ref_rent_usd_gpu_h))
			continue;
		pr->ref_rent_usd_gpu_h = rate;
		/* the market's low end is an on-demand figure: weighed against on demand only (a term against its own) */
		pr->ref_rent_market_usd_gpu_h = hw_known(o->rent_market_usd_gpu_h) && rate == term_rate(s, o) &&
						       s->rent_term_years == 0
						   ? fmin(o->rent_market_usd_gpu_h, rate) : NAN;
		pr->ref_rent_gpus = o->rent_unit_gpus > o->gpus_per_node ? o->rent_unit_gpus : o->gpus_per_node;
		pr->ref_rent_id = o->id;
	}
}

void plan_ref_rent_set(const hw_db *db, const plan_spec *s, const hw_system *sys, model_scenario *sc)
{
	if (isfinite(sc->price.unit_price_usd))
		copy_ref_rent(db, s, sys, sc->nodes * sc->node.gpus_per_node, &sc->price);
}

/* What the cluster buys beside its servers: the fabric's switches, links and NICs (the --fabric, else the
 * system's) and the shared store holding the data set (the --storage, else the system's), with the
 * widths of their price kinds. */
static void copy_parts(const hw_db *db, const plan_spec *s, const hw_system *sys, model_price *pr)
{
	const hw_fabric *f = s->fabric_id ? hw_fabric_find(db, s->fabric_id) : sys ? sys->fabric : NULL;
	const hw_storage *st = s->storage_id ? hw_storage_find(db, s->storage_id) : sys ? sys->storage : NULL;
	if (f && f->switch_ports >= 2) {
		pr->switch_ports = f->switch_ports;
		pr->switch_usd = f->switch_usd;
		pr->link_usd = f->link_usd;
		pr->nic_usd = f->nic_usd;
		pr->oversubscription = hw_known(f->oversubscription) ? f->oversubscription : 1.0;
		pr->net_width = model_price_width(f->price_kind);
	}
	pr->store_shared = st && strcmp(st->kind, "local") != 0;
	if (pr->store_shared) {
		pr->store_unit_usd = st->price_usd;
		pr->store_unit_B = st->unit_B;
		pr->store_unit_Bps = hw_known(st->unit_Bps) ? st->unit_Bps : st->read_Bps;
		pr->store_width = model_price_width(st->price_kind);
	}
}

/* The node's power (the system's figure where all its GPUs are used) and NVLink domain as the system has them;
 * a GPU given by hand (--gpu) describes another machine: neither (a hand-made node's domain is the node). */
static void copy_power(const plan_spec *s, const hw_system *sys, int gpn, model_node *n)
{
	bool as_sold = sys && !s->gpu_id;
	n->power_W = as_sold && gpn == sys->gpus_per_node && hw_known(sys->power_W) ? sys->power_W : NAN;
	n->power_basis = isfinite(n->power_W) && *sys->power_kind ? sys->power_kind : isfinite(n->power_W) ? "given" : NULL;
	n->domain_gpus = sys && !s->gpu_id && sys->domain_gpus > sys->gpus_per_node ? sys->domain_gpus : 0;
}

/* Money of the system as sold: whole units of unit_nodes nodes are bought (an NVL72 rack), whole nodes rented
 * (whole minimum units, as billed), even when fewer GPUs per node are used. A GPU given by hand (--gpu)
 * describes another machine: no price. Each price's range: its own low/high, else its kind's width. */
static void copy_money(const hw_db *db, const plan_spec *s, const hw_system *sys, int gpn, int nodes,
		       model_price *pr)
{
	bool as_sold = sys && !s->gpu_id;
	pr->unit_nodes = as_sold && sys->unit_nodes > 1 ? sys->unit_nodes : 1;
	pr->unit_price_usd = as_sold && hw_known(sys->price_usd) ? sys->price_usd : NAN;
	pr->price_usd = pr->unit_price_usd / pr->unit_nodes;
	if (isfinite(pr->unit_price_usd)) {
		double w = model_price_width(sys->price_kind);
		pr->unit_price_lo_usd = hw_known(sys->price_lo_usd) ? sys->price_lo_usd : pr->unit_price_usd * (1.0 - w);
		pr->unit_price_hi_usd = hw_known(sys->price_hi_usd) ? sys->price_hi_usd : pr->unit_price_usd * (1.0 + w);
		pr->nics_in_price = sys->price_nics == 1;
	}
	double rate = as_sold ? term_rate(s, sys) : NAN;
	pr->rent_usd_gpu_h = hw_known(rate) ? rate : NAN;
	pr->rent_reserved = s->rent_term_years == 1 || s->rent_term_years == 3; /* paid around the clock */
	pr->rent_term_years = pr->rent_reserved ? s->rent_term_years : 0;
	pr->rent_spot = s->rent_term_years == PLAN_RENT_SPOT;
	if (as_sold && hw_known(rate)) {
		pr->rent_unit_gpus = sys->rent_unit_gpus;
		pr->rent_max_gpus = sys->rent_max_gpus;
		pr->rent_increment_s = sys->rent_increment_s;
		pr->rent_min_s = sys->rent_min_s;
		pr->rent_cluster_usd_gpu_h = sys->rent_cluster_usd_gpu_h;
		pr->rent_cluster_increment_s = sys->rent_cluster_increment_s;
		pr->rent_width = rate_width(s, sys);
		pr->rent_market_usd_gpu_h = hw_known(sys->rent_market_usd_gpu_h) && s->rent_term_years == 0
						   ? sys->rent_market_usd_gpu_h : NAN; /* an on-demand figure */
	}
	pr->power_sold_W = as_sold && hw_known(sys->power_W) ? sys->power_W : NAN;
	pr->liquid_cooled = as_sold && sys->cooling && strcasecmp(sys->cooling, "liquid") == 0;
	if (isfinite(pr->unit_price_usd)) {
		copy_parts(db, s, sys, pr);
		copy_ref_rent(db, s, sys, nodes * gpn, pr);
	}
}

model_basis plan_basis(const hw_db *db, const hw_gpu *gpu, int nmeasured)
{
	if (nmeasured > 0 || model_gpu_measured(gpu->id))
		return MODEL_BASIS_MEASURED;
	for (int i = 0; gpu->arch && i < db->ngpus; i++) {
		const hw_gpu *g = &db->gpus[i];
		if (g != gpu && g->arch && strcmp(g->arch, gpu->arch) == 0 && model_gpu_measured(g->id))
			return MODEL_BASIS_TRANSFER;
	}
	return MODEL_BASIS_ESTIMATE;
}

/* The batch: --global-batch, --batch-per-gpu or automatic; then the one-point (or more) calibration. */
static int resolve_batch(const plan_spec *s, const model_params *p, const char *what, double measured_eff,
			 bool elsewhere, model_scenario *sc)
{
	if (s->global_batch > 0) {
		int gpus = sc->node.gpus_per_node * sc->nodes;
		if (s->global_batch % gpus)
			return err_set("--global-batch %d is not a multiple of the %d GPUs", s->global_batch, gpus);
		sc->batch_per_gpu = s->global_batch / gpus;
	} else if (s->batch_per_gpu > 0) {
		sc->batch_per_gpu = s->batch_per_gpu;
	} else if (!plan_auto_batch(sc, p)) {
		sc->batch_per_gpu = 8; /* the smallest candidate: why even it failed */
		if (model_batch_over_epoch(sc))
			return err_set("%s: %d GPUs x 8 images is more than the %.0f images of an epoch", what,
				       sc->node.gpus_per_node * sc->nodes, sc->images);
		return err_set("%s: not even 8 images per GPU fit %s's memory", what, sc->node.gpu_id);
	}
	if (!s->nmeasured || elsewhere)
		return 0;
	/* calibrated at the measured stack's speed on this GPU: compute_cal is then the GPU's, and the run's own
	 * stack differs from the measurement by the model's ratio of the two speeds alone */
	double own = sc->stack.compute_eff;
	if (measured_eff > 0)
		sc->stack.compute_eff = measured_eff;
	int rc = plan_check_measured(sc, s->measured, s->nmeasured) || model_calibrate(sc, p, s->measured, s->nmeasured);
	sc->stack.compute_eff = own;
	if (rc == 0 && measured_eff > 0)
		rc = model_scenario_prepare(sc, p);
	return rc ? ERR_INPUT : 0;
}

/* --measured runs on another system (--measured-system): calibrated there on the measured stack, as a predict
 * of that system would be, and the fitted compute factor (and small-batch shape) carried to this option's GPU,
 * which then moves from the measured GPU only by the model's ratio between the two GPUs (and stacks). The
 * input pipeline's factor stays with the measured host. Another GPU keeps its own basis: its interval is the
 * model's ratio's, not the measurement's. */
static int measured_elsewhere(const hw_db *db, const plan_spec *s, const model_params *p, const hw_system *msys,
			      const hw_gpu *gpu, model_scenario *sc)
{
	plan_spec ms = *s;
	model_scenario msc;
	ms.measured_system_id = NULL;
	ms.system_id = msys->id;
	ms.gpu_id = NULL;
	ms.gpus_per_node = 0;
	ms.nodes = 1;
	ms.global_batch = 0;
	if (plan_resolve(db, &ms, p, msys, 0, 1, &msc))
		return err_prefix("--measured-system %s", msys->id);
	sc->compute_cal = msc.compute_cal;
	sc->b_half = msc.b_half;
	sc->basis = gpu == msys->gpu ? msc.basis : plan_basis(db, gpu, 0);
	return model_scenario_prepare(sc, p) ? ERR_INPUT : 0;
}

int plan_resolve(const hw_db *db, const plan_spec *s, const model_params *p, const hw_system *sys, int gpn,
		 int nodes, model_scenario *sc)
{
	model_node *n = &sc->node;

	if (!sys && s->system_id)
		sys = hw_system_find(db, s->system_id);
	model_scenario_init(sc);
	const hw_gpu *gpu = s->gpu_id ? hw_gpu_find(db, s->gpu_id) : sys ? sys->gpu : NULL;
	if (!gpu)
		return err_set("give --system ID or --gpu ID (see `scaleplan hw list`)");
	if (gpn <= 0)
		gpn = s->gpus_per_node > 0 ? s->gpus_per_node : sys ? sys->gpus_per_node : 0;
	if (gpn <= 0)
		return err_set("--gpu without --system needs --gpus-per-node G");
	if (sys && gpn > sys->gpus_per_node && !s->gpu_id)
		return err_set("system %s has %d GPUs per node; %d requested", sys->id, sys->gpus_per_node, gpn);
	sc->nodes = nodes > 0 ? nodes : s->nodes;
	sc->precision = plan_precision_on(gpu, s->precision);
	copy_stack(s, plan_stack(db, s, sys), sc);
	sc->epochs = s->epochs;
	sc->images = s->images;
	sc->money = s->money;
	if (s->epochs_anchor_batch > 0) {
		/* the user's recipe needed anchor_epochs at anchor_batch: the curve scaled through that point */
		sc->epochs_scale = s->anchor_epochs / model_epochs(p, s->epochs_anchor_batch);
		sc->epochs_anchor_batch = s->epochs_anchor_batch;
	}

	n->system_id = sys ? sys->id : "custom";
	n->gpus_per_node = gpn;
	n->max_gpus_per_node = (sys && !s->gpu_id) ? sys->gpus_per_node : 0;
	plan_gpu_node(db, gpu, sc->precision, p, n);
	stack_eff_set(db, s, plan_stack(db, s, sys), gpu, p, sc);
	sc->basis = plan_basis(db, gpu, s->nmeasured);
	copy_intra(db, s, sys, gpu, n);
	copy_host(db, s, sys, gpn, n);
	copy_network(db, s, sys, n);
	sc->price.nics_bought = n->nics_per_node; /* all cabled to the fabric, however few GPUs use them */
	reachable_nics(n, gpu_pcie_Bps(gpu));
	copy_storage(db, s, sys, n);
	copy_power(s, sys, gpn, n);
	copy_money(db, s, sys, gpn, sc->nodes, &sc->price);

	const char *what = sys ? sys->id : gpu->id;
	if (sys ? !plan_joinable(s, sys, gpn, sc->nodes) : sc->nodes > 1 && !(n->nic_Bps > 0))
		return err_set("%s is a single machine with no network between nodes in the database; for %d nodes "
			       "give --fabric ID [--nics-per-node K] (`scaleplan hw list fabrics`)",
			       what, sc->nodes);
	if (model_scenario_prepare(sc, p))
		return ERR_INPUT;
	const hw_system *msys = s->nmeasured && s->measured_system_id ? hw_system_find(db, s->measured_system_id) : NULL;
	bool elsewhere = msys && (msys != sys || s->gpu_id);
	if (resolve_batch(s, p, what, measured_eff(db, s, plan_stack(db, s, sys), gpu, p, sc), elsewhere, sc))
		return ERR_INPUT;
	return elsewhere ? measured_elsewhere(db, s, p, msys, gpu, sc) : 0;
}
