/* cli/scenario.c: the options predict, compare, sweep and sim share, and the step from a hwdb system
 * plus user overrides to a prepared model scenario (model/model.h). No model logic here: only
 * parsing, validation with clear messages, and copying database figures into model_node.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

enum {
	O_SYSTEM = CLI_SCEN_OPT_BASE, O_GPU, O_GPN, O_INTRA, O_HOSTLINK, O_HOSTLINKS, O_CPU, O_CPUS, O_FABRIC,
	O_NICS, O_NODES, O_BATCH, O_GBATCH, O_PREC, O_MEASURED, O_EPOCHS, O_IMAGES, O_TARGET, O_DATA,
	O_STORAGE, O_STACK, O_PARAM, O_PROFILE, O_HWDB,
};

static const struct option scen_opts[] = {
	{"system", required_argument, NULL, O_SYSTEM},
	{"gpu", required_argument, NULL, O_GPU},
	{"gpus-per-node", required_argument, NULL, O_GPN},
	{"intra", required_argument, NULL, O_INTRA},
	{"host-link", required_argument, NULL, O_HOSTLINK},
	{"host-links", required_argument, NULL, O_HOSTLINKS},
	{"cpu", required_argument, NULL, O_CPU},
	{"cpus-per-node", required_argument, NULL, O_CPUS},
	{"fabric", required_argument, NULL, O_FABRIC},
	{"nics-per-node", required_argument, NULL, O_NICS},
	{"nodes", required_argument, NULL, O_NODES},
	{"batch-per-gpu", required_argument, NULL, O_BATCH},
	{"global-batch", required_argument, NULL, O_GBATCH},
	{"precision", required_argument, NULL, O_PREC},
	{"measured", required_argument, NULL, O_MEASURED},
	{"epochs", required_argument, NULL, O_EPOCHS},
	{"images", required_argument, NULL, O_IMAGES},
	{"target-top1", required_argument, NULL, O_TARGET},
	{"data", required_argument, NULL, O_DATA},
	{"storage", required_argument, NULL, O_STORAGE},
	{"stack", required_argument, NULL, O_STACK},
	{"param", required_argument, NULL, O_PARAM},
	{"profile", required_argument, NULL, O_PROFILE},
	{"hwdb", required_argument, NULL, O_HWDB},
};

void cli_scen_init(cli_scen *s, const char *cmd)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->nodes = 1;
	s->precision = MODEL_BF16;
	s->data = -1;
	s->images = 1281167; /* ImageNet-1k, reference/seed_facts.md */
	s->target_top1 = 0.759;
	model_params_default(&s->params);
}

void cli_scen_free(cli_scen *s)
{
	if (s && s->loaded)
		hw_db_free(&s->db);
	if (s)
		s->loaded = false;
}

int cli_scen_longopts(struct option *opts, int from, int max)
{
	for (size_t i = 0; i < sizeof(scen_opts) / sizeof(scen_opts[0]) && from < max; i++)
		opts[from++] = scen_opts[i];
	return from;
}

void cli_scen_help(FILE *out)
{
	fprintf(out,
		"hardware (a --system, or components; every component flag overrides the system's):\n"
		"  --system ID            node type from the database (`scaleplan hw list systems`)\n"
		"  --gpu ID               GPU model (`hw list gpus`)\n"
		"  --gpus-per-node G      GPUs used per node (default: all of the system's)\n"
		"  --intra LINK           link between GPUs in a node (nvlink2, nvswitch3, pcie3-x16, ...)\n"
		"  --host-link LINK       CPU-GPU link; --host-links N  how many the node's GPUs share\n"
		"  --cpu ID --cpus-per-node N   host CPUs (decode threads = cores - reserved x GPUs)\n"
		"  --fabric ID --nics-per-node K   network between nodes (`hw list fabrics`)\n"
		"  --storage ID           storage holding the data set (default: the system's; `hw list storage`)\n"
		"  --stack ID             software stack: data path, staging, gradient bytes, buckets, overlap\n"
		"                         (default: the system's, e.g. ngc-mlperf, tf1-hvd; `hw list stacks`)\n"
		"run:\n"
		"  --nodes N              nodes (default 1)\n"
		"  --batch-per-gpu B      images per GPU per step (default auto: largest of 256..8 that fits)\n"
		"  --global-batch GB      alternatively the global batch (a multiple of the GPU count)\n"
		"  --precision P          fp32 | tf32 | fp16 | bf16 (default bf16; falls back to what the GPU has)\n"
		"  --data D               cpu (JPEG decode on CPU cores) | gpu (DALI) | synthetic (default: the stack's)\n"
		"  --epochs E             epochs to train (default: MLPerf convergence curve of the global batch)\n"
		"  --images N             training images per epoch (default 1281167, ImageNet-1k)\n"
		"  --target-top1 A        quality target (default 0.759, the curve's; others need --epochs)\n"
		"calibration and model parameters:\n"
		"  --measured G:B:IMG_S   measured img/s on G GPUs at B images per GPU (repeatable)\n"
		"  --param NAME=VALUE     set a model parameter (repeatable; list: `scaleplan predict --params`)\n"
		"  --profile FILE         model parameters from a CSV with columns param,value (calibrate's output)\n"
		"  --hwdb DIR             overlay the CSV tables in DIR on the built-in hardware database\n");
}

/* Parses a whole-string integer in [lo, hi]. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int bad(const cli_scen *s, const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "scaleplan %s: --%s '%s': expected %s\n", s->cmd, opt, arg, want);
	return -1;
}

int cli_scen_option(cli_scen *s, int opt, const char *arg)
{
	long v;
	double d;

	switch (opt) {
	case O_SYSTEM: s->system_id = arg; return 1;
	case O_GPU: s->gpu_id = arg; return 1;
	case O_INTRA: s->intra_id = arg; return 1;
	case O_HOSTLINK: s->host_link_id = arg; return 1;
	case O_CPU: s->cpu_id = arg; return 1;
	case O_FABRIC: s->fabric_id = arg; return 1;
	case O_STORAGE: s->storage_id = arg; return 1;
	case O_STACK: s->stack_id = arg; return 1;
	case O_HWDB: s->hwdb_dir = arg; return 1;
	case O_PROFILE: s->profile = arg; return 1;
	case O_GPN:
		if (parse_int(arg, 1, 1024, &v))
			return bad(s, "gpus-per-node", arg, "an integer 1..1024");
		s->gpus_per_node = (int)v;
		return 1;
	case O_HOSTLINKS:
		if (parse_int(arg, 1, 1024, &v))
			return bad(s, "host-links", arg, "an integer 1..1024");
		s->host_links = (int)v;
		return 1;
	case O_CPUS:
		if (parse_int(arg, 1, 64, &v))
			return bad(s, "cpus-per-node", arg, "an integer 1..64");
		s->cpus_per_node = (int)v;
		return 1;
	case O_NICS:
		if (parse_int(arg, 1, 1024, &v))
			return bad(s, "nics-per-node", arg, "an integer 1..1024");
		s->nics_per_node = (int)v;
		return 1;
	case O_NODES:
		if (parse_int(arg, 1, 100000, &v))
			return bad(s, "nodes", arg, "an integer 1..100000");
		s->nodes = (int)v;
		return 1;
	case O_BATCH:
		if (strcmp(arg, "auto") == 0) {
			s->batch_per_gpu = 0;
			return 1;
		}
		if (parse_int(arg, 1, 65536, &v))
			return bad(s, "batch-per-gpu", arg, "an integer 1..65536 or auto");
		s->batch_per_gpu = (int)v;
		return 1;
	case O_GBATCH:
		if (parse_int(arg, 1, 100000000, &v))
			return bad(s, "global-batch", arg, "an integer 1..100000000");
		s->global_batch = (int)v;
		return 1;
	case O_PREC: {
		int p = model_precision_parse(arg);
		if (p < 0)
			return bad(s, "precision", arg, "fp32, tf32, fp16 or bf16");
		s->precision = (model_precision)p;
		return 1;
	}
	case O_DATA: {
		int p = model_data_parse(arg);
		if (p < 0)
			return bad(s, "data", arg, "cpu, gpu (DALI) or synthetic");
		s->data = p;
		return 1;
	}
	case O_EPOCHS:
		if (parse_double(arg, 0.01, 10000, &d))
			return bad(s, "epochs", arg, "a number of epochs in 0.01..10000");
		s->epochs = d;
		return 1;
	case O_IMAGES:
		if (parse_double(arg, 1, 1e12, &d))
			return bad(s, "images", arg, "a number of images 1..1e12");
		s->images = d;
		return 1;
	case O_TARGET:
		if (parse_double(arg, 0.0, 100.0, &d) || d <= 0)
			return bad(s, "target-top1", arg, "a top-1 accuracy in (0, 1] or a percentage");
		s->target_top1 = d > 1.0 ? d / 100.0 : d;
		return 1;
	case O_MEASURED: {
		long g, b;
		double img;
		char buf[128], *c1, *c2;
		if (s->nmeasured >= MODEL_MAX_MEASURED)
			return bad(s, "measured", arg, "at most 16 measurements");
		snprintf(buf, sizeof(buf), "%s", arg);
		c1 = strchr(buf, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c1 || !c2)
			return bad(s, "measured", arg, "GPUS:BATCH_PER_GPU:IMG_S, e.g. 8:400:54948");
		*c1 = *c2 = '\0';
		if (parse_int(buf, 1, 1000000, &g) || parse_int(c1 + 1, 1, 65536, &b) ||
		    parse_double(c2 + 1, 1e-3, 1e9, &img))
			return bad(s, "measured", arg,
				   "GPUS:BATCH_PER_GPU:IMG_S with GPUs >= 1, batch >= 1, img/s > 0 (e.g. 8:400:54948)");
		s->measured[s->nmeasured++] = (model_measured){(int)g, (int)b, img};
		return 1;
	}
	case O_PARAM:
		if (s->nparams_set >= CLI_SCEN_MAX_LIST)
			return bad(s, "param", arg, "at most 64 --param options");
		/* checked now so the message comes before any work */
		if (model_params_parse(&s->params, arg)) {
			fprintf(stderr, "scaleplan %s: %s\n", s->cmd, err_msg());
			return -1;
		}
		s->params_set[s->nparams_set++] = arg;
		return 1;
	default:
		return 0;
	}
}

/* Looks up an id of a kind; prints "unknown ... did you mean" on failure. */
#define CHECK_ID(kind, findfn, id)                                                                         \
	do {                                                                                               \
		if ((id) && !findfn(&s->db, (id))) {                                                       \
			return cli_unknown_id(&s->db, s->cmd, (kind), (id));                                 \
		}                                                                                          \
	} while (0)

int cli_scen_load(cli_scen *s)
{
	int rc;

	if (!s->loaded) {
		rc = cli_load_db(&s->db, s->hwdb_dir);
		if (rc)
			return rc;
		s->loaded = true;
	}
	model_params_default(&s->params);
	if (s->profile && model_params_load(&s->params, s->profile)) {
		fprintf(stderr, "scaleplan %s: --profile: %s\n", s->cmd, err_msg());
		return EXIT_INPUT;
	}
	for (int i = 0; i < s->nparams_set; i++)
		if (model_params_parse(&s->params, s->params_set[i])) {
			fprintf(stderr, "scaleplan %s: %s\n", s->cmd, err_msg());
			return EXIT_INPUT;
		}
	CHECK_ID(HW_SYSTEM, hw_system_find, s->system_id);
	CHECK_ID(HW_GPU, hw_gpu_find, s->gpu_id);
	CHECK_ID(HW_LINK, hw_link_find, s->intra_id);
	CHECK_ID(HW_LINK, hw_link_find, s->host_link_id);
	CHECK_ID(HW_CPU, hw_cpu_find, s->cpu_id);
	CHECK_ID(HW_FABRIC, hw_fabric_find, s->fabric_id);
	CHECK_ID(HW_STORAGE, hw_storage_find, s->storage_id);
	CHECK_ID(HW_STACK, hw_stack_find, s->stack_id);
	s->system = s->system_id ? hw_system_find(&s->db, s->system_id) : NULL;
	if (fabs(s->target_top1 - 0.759) > 1e-9 && !(s->epochs > 0)) {
		fprintf(stderr,
			"scaleplan %s: --target-top1 %g: the convergence curve is for 75.9%% top-1 (MLPerf); give "
			"--epochs for another target\n",
			s->cmd, s->target_top1);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

int cli_rank_parse(const char *cmd, const char *arg, bool allow_none, cli_rank *out)
{
	if (strcmp(arg, "tta") == 0)
		*out = CLI_RANK_TTA;
	else if (strcmp(arg, "ttt") == 0)
		*out = CLI_RANK_TTT;
	else if (strcmp(arg, "cost") == 0)
		*out = CLI_RANK_COST;
	else if (allow_none && strcmp(arg, "none") == 0)
		*out = CLI_RANK_NONE;
	else {
		fprintf(stderr, "scaleplan %s: --rank-by '%s': expected tta (time to accuracy, wall clock), ttt (time to "
				"train as MLPerf scores it) or cost (capex: list price x nodes)%s\n", cmd, arg,
			allow_none ? " or none (grid order)" : "");
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

const char *cli_rank_name(cli_rank k)
{
	return k == CLI_RANK_COST ? "capex" : k == CLI_RANK_NONE ? "grid order"
	       : k == CLI_RANK_TTT ? "time to train (MLPerf-scored)" : "time to accuracy";
}

void cli_rank_key(cli_rank k, const model_result *r, double *key, double *tie)
{
	double tta = r->fits && isfinite(r->tta_s) ? r->tta_s : INFINITY;
	*key = tta;
	*tie = 0;
	if (k == CLI_RANK_TTT) {
		*key = r->fits && isfinite(r->ttt_s) ? r->ttt_s : INFINITY;
		*tie = tta;
	} else if (k == CLI_RANK_COST) {
		*key = r->fits && isfinite(r->capex_usd) ? r->capex_usd : INFINITY;
		*tie = tta;
	}
}

int cli_rank_cmp(double key_a, double tie_a, double key_b, double tie_b)
{
	if (key_a != key_b)
		return key_a < key_b ? -1 : 1;
	if (tie_a != tie_b)
		return tie_a < tie_b ? -1 : 1;
	return 0;
}

const hw_stack *cli_scen_stack(const cli_scen *s, const hw_system *sys)
{
	if (s->stack_id)
		return hw_stack_find(&s->db, s->stack_id);
	if (!sys)
		sys = s->system;
	return sys ? sys->stack : NULL;
}

char *cli_stack_label(const model_scenario *sc, char *buf, size_t len_B)
{
	snprintf(buf, len_B, "%s (%s decode%s)", sc->stack.id, sc->data == MODEL_DATA_GPU ? "gpu" : sc->data == MODEL_DATA_CPU ? "cpu" : "no",
		 sc->stack.staged ? ", staged" : "");
	return buf;
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


/* The precision a GPU really runs when asked for `want`: a GPU without bf16 (before Ampere) trains
 * in fp16, one without fast fp16 or tf32 in fp32, as hw_gpu_peak_flops assumes; results then name
 * the precision used, not the one asked for. */
static model_precision precision_on(const hw_gpu *gpu, model_precision want)
{
	if (want == MODEL_BF16 && !hw_known(gpu->bf16_flops))
		want = MODEL_FP16;
	if (want == MODEL_FP16 && !hw_known(gpu->fp16_flops))
		want = MODEL_FP32;
	if (want == MODEL_TF32 && !hw_known(gpu->tf32_flops))
		want = MODEL_FP32;
	return want;
}

/* The largest batch per GPU from 256 down to 8 that fits; 0 when none. */
static int auto_batch(model_scenario *sc, const model_params *p)
{
	static const int cand[] = {256, 128, 64, 32, 16, 8};
	for (unsigned i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		model_result r;
		sc->batch_per_gpu = cand[i];
		if (model_predict(sc, p, &r) == 0 && r.fits)
			return cand[i];
	}
	return 0;
}

int cli_scen_resolve(cli_scen *s, const hw_system *sys, int gpn, int nodes, model_scenario *sc)
{
	model_node *n = &sc->node;
	const hw_gpu *gpu;
	const char *what;

	if (!sys)
		sys = s->system;
	model_scenario_init(sc);
	gpu = s->gpu_id ? hw_gpu_find(&s->db, s->gpu_id) : sys ? sys->gpu : NULL;
	if (!gpu) {
		fprintf(stderr, "scaleplan %s: give --system ID or --gpu ID (see `scaleplan hw list`)\n", s->cmd);
		return EXIT_INPUT;
	}
	if (gpn <= 0)
		gpn = s->gpus_per_node > 0 ? s->gpus_per_node : sys ? sys->gpus_per_node : 0;
	if (gpn <= 0) {
		fprintf(stderr, "scaleplan %s: --gpu without --system needs --gpus-per-node G\n", s->cmd);
		return EXIT_INPUT;
	}
	if (sys && gpn > sys->gpus_per_node && !s->gpu_id) {
		fprintf(stderr, "scaleplan %s: system %s has %d GPUs per node; %d requested\n", s->cmd, sys->id,
			sys->gpus_per_node, gpn);
		return EXIT_INPUT;
	}
	sc->nodes = nodes > 0 ? nodes : s->nodes;
	sc->precision = precision_on(gpu, s->precision);
	{
		const hw_stack *st = cli_scen_stack(s, sys);
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
			n->decode_threads = st->decode_threads;
		}
		sc->data = s->data >= 0 ? (model_data)s->data
			   : st && st->data_path == HW_DATA_GPU ? MODEL_DATA_GPU : MODEL_DATA_CPU;
	}
	sc->epochs = s->epochs;
	sc->images = s->images;

	n->system_id = sys ? sys->id : "custom";
	n->gpu_id = gpu->id;
	n->gpus_per_node = gpn;
	n->max_gpus_per_node = (sys && !s->gpu_id) ? sys->gpus_per_node : 0;
	n->peak_flops = hw_gpu_peak_flops(gpu, model_precision_name(sc->precision));
	n->fp32_flops = gpu->fp32_flops;
	n->mem_bw_Bps = gpu->mem_bw_Bps;
	n->gpu_mem_B = gpu->mem_B;
	n->gpu_tdp_W = known_or(gpu->tdp_W, 0);
	/* intra-node */
	if (s->intra_id) {
		const hw_link *l = hw_link_find(&s->db, s->intra_id);
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
		n->intra_bw_Bps = 15.75e9 * (gpu->pcie_gen >= 3 ? 1 << (gpu->pcie_gen - 3) : 1);
	}
	/* host */
	{
		const hw_link *hl = s->host_link_id ? hw_link_find(&s->db, s->host_link_id) : sys ? sys->host_link : NULL;
		n->host_link_Bps = hl ? hl->bw_Bps : 0;
		n->host_links = s->host_links > 0 ? s->host_links : sys ? sys->host_links : 0;
		if (s->host_link_id && n->host_links <= 0)
			n->host_links = gpn;
	}
	{
		const hw_cpu *cpu = s->cpu_id ? hw_cpu_find(&s->db, s->cpu_id) : sys ? sys->cpu : NULL;
		n->cpus = s->cpus_per_node > 0 ? s->cpus_per_node : sys && sys->cpus_per_node > 0 ? sys->cpus_per_node : 1;
		if (cpu) {
			n->cores = cpu->cores * n->cpus;
			n->cpu_hz = known_or(cpu->base_hz, 0);
			n->cpu_tdp_W = known_or(cpu->tdp_W, 0);
		}
	}
	n->host_mem_B = sys ? known_or(sys->mem_B, 0) : 0;
	/* network */
	{
		const hw_link *nic = NULL;
		double over = 1.0;
		if (s->fabric_id) {
			const hw_fabric *f = hw_fabric_find(&s->db, s->fabric_id);
			nic = f->nic;
			over = hw_known(f->oversubscription) && f->oversubscription >= 1 ? f->oversubscription : 1.0;
		} else if (sys) {
			nic = sys->nic ? sys->nic : sys->fabric ? sys->fabric->nic : NULL;
			if (sys->fabric && hw_known(sys->fabric->oversubscription) && sys->fabric->oversubscription >= 1)
				over = sys->fabric->oversubscription;
		}
		n->nic_Bps = nic ? nic->bw_Bps / over : 0;
		n->nics_per_node = s->nics_per_node > 0 ? s->nics_per_node : (sys && sys->nics_per_node > 0) ? sys->nics_per_node : (nic ? 1 : 0);
	}
	/* storage: a shared store (aggregate, per-node share) or the nodes' own drives */
	{
		const hw_storage *st = s->storage_id ? hw_storage_find(&s->db, s->storage_id) : sys ? sys->storage : NULL;
		bool local = !st || strcmp(st->kind, "local") == 0;
		if (sys && sys->local_drives > 0)
			n->local_Bps = sys->local_drives * sys->local_drive_Bps;
		else if (st && local && hw_known(st->read_Bps))
			n->local_Bps = st->read_Bps; /* one drive of that kind per node */
		if (st && !local) {
			/* unknown aggregate: a parallel file system that grows with its clients. A system's
			 * default store is the one its source was tested with (an Isilon F800 chassis for 4-16
			 * C4140s): the planner sizes it to the cluster (scale-out NAS adds chassis), so only the
			 * per-node share binds; a store the user names with --storage is taken as it is. */
			n->storage_Bps = s->storage_id ? known_or(st->read_Bps, INFINITY) : INFINITY;
			n->storage_link_Bps = known_or(st->node_Bps, st->link ? st->link->bw_Bps : 0);
			n->storage_id = st->id;
		}
	}
	/* whole nodes are bought even when fewer GPUs per node are used */
	n->price_usd = (sys && !s->gpu_id) ? sys->price_usd : NAN;
	n->power_W = (sys && !s->gpu_id && gpn == sys->gpus_per_node) ? sys->power_W : NAN;
	if (!hw_known(n->price_usd))
		n->price_usd = NAN;
	if (!hw_known(n->power_W))
		n->power_W = NAN;

	what = sys ? sys->id : gpu->id;
	if (sc->nodes > 1 && !(n->nic_Bps > 0)) {
		fprintf(stderr,
			"scaleplan %s: %s is a single machine with no network between nodes in the database; for %d nodes "
			"give --fabric ID [--nics-per-node K] (`scaleplan hw list fabrics`)\n",
			s->cmd, what, sc->nodes);
		return EXIT_INPUT;
	}
	if (model_scenario_prepare(sc, &s->params)) {
		fprintf(stderr, "scaleplan %s: %s\n", s->cmd, err_msg());
		return EXIT_INPUT;
	}
	/* batch */
	if (s->global_batch > 0) {
		int gpus = gpn * sc->nodes;
		if (s->global_batch % gpus) {
			fprintf(stderr, "scaleplan %s: --global-batch %d is not a multiple of the %d GPUs\n", s->cmd,
				s->global_batch, gpus);
			return EXIT_INPUT;
		}
		sc->batch_per_gpu = s->global_batch / gpus;
	} else if (s->batch_per_gpu > 0) {
		sc->batch_per_gpu = s->batch_per_gpu;
	} else if (!auto_batch(sc, &s->params)) {
		fprintf(stderr, "scaleplan %s: %s: not even 8 images per GPU fit %s's memory\n", s->cmd, what, gpu->id);
		return EXIT_INPUT;
	}
	if (s->nmeasured && model_calibrate(sc, &s->params, s->measured, s->nmeasured)) {
		fprintf(stderr, "scaleplan %s: %s\n", s->cmd, err_msg());
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

int cli_parse_int_list(const char *what, const char *arg, int *out, int max, int *n)
{
	char buf[1024], *save = NULL, *tok;

	*n = 0;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long a, b, step = 1;
		char *dash = strchr(tok + 1, '-'), *colon = strchr(tok, ':');
		if (colon) {
			*colon = '\0';
			if (parse_int(colon + 1, 1, INT_MAX, &step))
				goto bad;
		}
		if (dash) {
			*dash = '\0';
			if (parse_int(tok, 1, INT_MAX, &a) || parse_int(dash + 1, 1, INT_MAX, &b) || b < a)
				goto bad;
		} else {
			if (parse_int(tok, 1, INT_MAX, &a))
				goto bad;
			b = a;
		}
		for (long v = a; v <= b; v += step) {
			if (*n >= max) {
				fprintf(stderr, "scaleplan: %s '%s': more than %d values\n", what, arg, max);
				return EXIT_INPUT;
			}
			out[(*n)++] = (int)v;
		}
	}
	if (*n == 0)
		goto bad;
	return EXIT_OK;
bad:
	fprintf(stderr, "scaleplan: %s '%s': expected positive integers as a,b,c or a-b or a-b:step\n", what, arg);
	return EXIT_INPUT;
}

void cli_result_csv_header_cells(csvw *w)
{
	static const char *cols[] = {
		"system", "gpu", "nodes", "gpus_per_node", "gpus", "batch_per_gpu", "global_batch", "precision",
		"throughput_img_s", "per_gpu_img_s", "scaling_eff", "iter_s", "compute_s", "comm_s", "comm_exposed_s",
		"data_s", "io_s", "bottleneck", "epochs", "epoch_s", "tta_s", "ttt_s",
		/* extras */
		"first_epoch_s", "eval_s", "startup_s", "staging_s", "boundary_s", "warmup_s", "data", "fits", "mem_per_gpu_B", "capex_usd", "power_W", "energy_J", "compute_cal",
	};
	for (unsigned i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		csvw_text(w, cols[i]);
}

void cli_result_csv_header(csvw *w)
{
	cli_result_csv_header_cells(w);
	csvw_text(w, "stack"); /* columns added later go last: readers keep their positions */
	csvw_end_row(w);
}

void cli_result_csv_cells(csvw *w, const model_scenario *sc, const model_result *r)
{
	csvw_text(w, sc->node.system_id);
	csvw_text(w, sc->node.gpu_id);
	csvw_int(w, sc->nodes);
	csvw_int(w, sc->node.gpus_per_node);
	csvw_int(w, r->gpus);
	csvw_int(w, sc->batch_per_gpu);
	csvw_int(w, r->global_batch);
	csvw_text(w, model_precision_name(sc->precision));
	csvw_num(w, r->throughput_img_s, 6);
	csvw_num(w, r->per_gpu_img_s, 6);
	csvw_num(w, r->scaling_eff, 4);
	csvw_num(w, r->iter_s, 6);
	csvw_num(w, r->compute_s, 6);
	csvw_num(w, r->comm_s, 6);
	csvw_num(w, r->comm_exposed_s, 6);
	csvw_num(w, r->data_s, 6);
	csvw_num(w, r->io_s, 6);
	csvw_text(w, r->fits ? model_bottleneck_name(r->bottleneck) : "memory");
	csvw_num(w, r->epochs, 4);
	csvw_num(w, r->epoch_s, 6);
	csvw_num(w, r->tta_s, 6);
	csvw_num(w, r->ttt_s, 6);
	csvw_num(w, r->first_epoch_s, 6);
	csvw_num(w, r->eval_s, 6);
	csvw_num(w, r->startup_s, 6);
	csvw_num(w, r->staging_s, 6);
	csvw_num(w, r->boundary_s, 6);
	csvw_num(w, r->warmup_s, 6);
	csvw_text(w, model_data_name(sc->data));
	csvw_int(w, r->fits ? 1 : 0);
	csvw_num(w, r->mem_per_gpu_B, 6);
	csvw_num(w, r->capex_usd, 8);
	csvw_num(w, r->power_W, 6);
	csvw_num(w, r->energy_J, 6);
	csvw_num(w, sc->compute_cal, 6);
}

void cli_result_csv_row(csvw *w, const model_scenario *sc, const model_result *r)
{
	cli_result_csv_cells(w, sc, r);
	csvw_text(w, sc->stack.id);
	csvw_end_row(w);
}

/* A JSON number; null for NAN/inf (JSON has no NaN). */
static void jnum(FILE *out, const char *name, double v, bool comma)
{
	if (isfinite(v))
		fprintf(out, "\"%s\": %.9g%s", name, v, comma ? ", " : "");
	else
		fprintf(out, "\"%s\": null%s", name, comma ? ", " : "");
}

/* A JSON string (ids come from the database: escape quotes, backslashes and controls anyway). */
static void jstr(FILE *out, const char *name, const char *v)
{
	fprintf(out, "\"%s\": \"", name);
	for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fprintf(out, "\", ");
}

void cli_result_json(FILE *out, const model_scenario *sc, const model_result *r)
{
	fputc('{', out);
	jstr(out, "system", sc->node.system_id);
	jstr(out, "gpu", sc->node.gpu_id);
	fprintf(out, "\"nodes\": %d, \"gpus_per_node\": %d, \"gpus\": %d, \"batch_per_gpu\": %d, \"global_batch\": %d, ",
		sc->nodes, sc->node.gpus_per_node, r->gpus, sc->batch_per_gpu, r->global_batch);
	jstr(out, "precision", model_precision_name(sc->precision));
	jnum(out, "throughput_img_s", r->throughput_img_s, true);
	jnum(out, "per_gpu_img_s", r->per_gpu_img_s, true);
	jnum(out, "scaling_eff", r->scaling_eff, true);
	jnum(out, "iter_s", r->iter_s, true);
	jnum(out, "compute_s", r->compute_s, true);
	jnum(out, "comm_s", r->comm_s, true);
	jnum(out, "comm_exposed_s", r->comm_exposed_s, true);
	jnum(out, "data_s", r->data_s, true);
	jnum(out, "io_s", r->io_s, true);
	jstr(out, "bottleneck", r->fits ? model_bottleneck_name(r->bottleneck) : "memory");
	jnum(out, "epochs", r->epochs, true);
	jnum(out, "epoch_s", r->epoch_s, true);
	jnum(out, "tta_s", r->tta_s, true);
	jnum(out, "ttt_s", r->ttt_s, true);
	jnum(out, "first_epoch_s", r->first_epoch_s, true);
	jnum(out, "eval_s", r->eval_s, true);
	jnum(out, "startup_s", r->startup_s, true);
	jnum(out, "staging_s", r->staging_s, true);
	jnum(out, "boundary_s", r->boundary_s, true);
	jnum(out, "warmup_s", r->warmup_s, true);
	jstr(out, "data", model_data_name(sc->data));
	fprintf(out, "\"fits\": %s, ", r->fits ? "true" : "false");
	jnum(out, "mem_per_gpu_B", r->mem_per_gpu_B, true);
	jnum(out, "capex_usd", r->capex_usd, true);
	jnum(out, "power_W", r->power_W, true);
	jnum(out, "energy_J", r->energy_J, true);
	jnum(out, "compute_cal", sc->compute_cal, true);
	jstr(out, "stack", sc->stack.id);
	fprintf(out, "\"staged\": %s", sc->stack.staged ? "true" : "false");
	fputc('}', out);
}

void cli_params_print(FILE *out, const model_params *p)
{
	fprintf(out, "%-24s %12s %12s %-9s %s\n", "param", "value", "default", "unit", "source");
	for (int i = 0; i < model_params_count(); i++) {
		const model_param_info *in = model_params_info(i);
		double v = 0;
		model_params_get(p, in->name, &v);
		fprintf(out, "%-24s %12.6g %12.6g %-9s %s\n", in->name, v, in->def, in->unit, in->source);
	}
}

char *cli_fmt_duration(double s, char *buf, size_t len_B)
{
	if (!isfinite(s))
		snprintf(buf, len_B, "-");
	else if (s < 120)
		snprintf(buf, len_B, "%.1f s", s);
	else if (s < 7200)
		snprintf(buf, len_B, "%.1f min", s / 60);
	else if (s < 3 * 86400)
		snprintf(buf, len_B, "%.0f h %02.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
	else
		snprintf(buf, len_B, "%.1f days", s / 86400);
	return buf;
}
