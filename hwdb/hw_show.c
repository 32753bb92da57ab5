/* hwdb printing: `hw list` tables and `hw show` details, every item with its source.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "hwdb/hw_internal.h"

#include "common/common.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Formats a value with an SI prefix and unit: 1.57e13 "FLOP/s" -> "15.7 TFLOP/s"; NAN -> "-". */
static const char *si(double v, const char *unit, char *buf, size_t len_B)
{
	static const struct { double f; const char *p; } pre[] = {
		{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
	if (!hw_known(v)) {
		snprintf(buf, len_B, "-");
		return buf;
	}
	if (v == 0) {
		snprintf(buf, len_B, "0 %s", unit);
		return buf;
	}
	size_t i = 0;
	while (i + 1 < sizeof pre / sizeof pre[0] && fabs(v) < pre[i].f)
		i++;
	snprintf(buf, len_B, "%.4g %s%s", v / pre[i].f, pre[i].p, unit);
	return buf;
}

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

/* Whole dollars with thousands separators: 3350000 -> "3,350,000"; NAN -> "-". */
static const char *money(double usd, char *buf, size_t len_B)
{
	char digits[32];
	if (!hw_known(usd) || fabs(usd) >= 1e18) {
		snprintf(buf, len_B, "-");
		return buf;
	}
	int n = snprintf(digits, sizeof digits, "%.0f", fabs(usd));
	size_t j = 0;
	if (usd < 0 && j + 1 < len_B)
		buf[j++] = '-';
	for (int i = 0; i < n && j + 2 < len_B; i++) {
		if (i && (n - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = digits[i];
	}
	buf[j] = '\0';
	return buf;
}

/* A rate per GPU-hour: "3.93"; NAN -> "-". */
static const char *rate(double usd_h, char *buf, size_t len_B)
{
	snprintf(buf, len_B, hw_known(usd_h) ? "%.2f" : "-", usd_h);
	return buf;
}

/* Copies s into buf cut to `width` characters, the cut marked with "..". */
static const char *trim(const char *s, int width, char *buf, size_t len_B)
{
	snprintf(buf, len_B, "%s", s);
	if ((int)strlen(buf) > width && width > 2 && (size_t)width < len_B)
		snprintf(buf + width - 2, len_B - (size_t)width + 2, "..");
	return buf;
}

/* A table whose column widths follow its widest cell, so a long id never pushes a row out of line. */
enum { TBL_COLS = 16, TBL_CELL = 96 };
typedef struct tbl {
	int ncols, nrows;
	const char *const *hdr;     /* [ncols] */
	const char *right;          /* [ncols] 'r' = right-aligned (numbers), else left */
	char (*cell)[TBL_COLS][TBL_CELL];
} tbl;

static void tbl_init(tbl *t, int ncols, const char *const *hdr, const char *right, int nrows)
{
	t->ncols = ncols;
	t->nrows = 0;
	t->hdr = hdr;
	t->right = right;
	t->cell = xcalloc((size_t)(nrows > 0 ? nrows : 1), sizeof *t->cell);
}

/* Sets cell (row, col) of the row being filled; row = t->nrows until tbl_next. */
static void tbl_set(tbl *t, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void tbl_set(tbl *t, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->cell[t->nrows][col], TBL_CELL, fmt, ap);
	va_end(ap);
}

static void tbl_print(tbl *t, FILE *out)
{
	int w[TBL_COLS];
	for (int c = 0; c < t->ncols; c++) {
		w[c] = (int)strlen(t->hdr[c]);
		for (int r = 0; r < t->nrows; r++)
			if ((int)strlen(t->cell[r][c]) > w[c])
				w[c] = (int)strlen(t->cell[r][c]);
	}
	for (int r = -1; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const char *v = r < 0 ? t->hdr[c] : t->cell[r][c];
			bool last = c == t->ncols - 1;
			if (t->right[c] == 'r')
				fprintf(out, "%s%*s", c ? " " : "", w[c], v);
			else
				fprintf(out, "%s%-*s", c ? " " : "", last ? 0 : w[c], v);
		}
		fputc('\n', out);
	}
	free(t->cell);
	t->cell = NULL;
}

/* `hw list systems`: the node, its network and stack, then price and rent with their source. */
static void list_systems(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"system", "gpu", "gpus", "domain", "intra", "nic", "fabric", "stack",
					   "price USD", "kind", "date", "rent $/GPU-h", "price/rent source"};
	tbl t;
	char a[40], b[TBL_CELL];
	tbl_init(&t, 13, hdr, "llrrllllrllrl", db->nsystems);
	for (int i = 0; i < db->nsystems; i++, t.nrows++) {
		const hw_system *s = &db->systems[i];
		tbl_set(&t, 0, "%s", s->id);
		tbl_set(&t, 1, "%s", s->gpu_id);
		tbl_set(&t, 2, "%d", s->gpus_per_node);
		tbl_set(&t, 3, "%d", s->domain_gpus > s->gpus_per_node ? s->domain_gpus : s->gpus_per_node);
		tbl_set(&t, 4, "%s", hw_topo_name(s->intra));
		if (*s->nic_id)
			tbl_set(&t, 5, "%dx %s", s->nics_per_node, s->nic_id);
		else
			tbl_set(&t, 5, "-");
		tbl_set(&t, 6, "%s", dash(s->fabric_id));
		tbl_set(&t, 7, "%s", dash(s->stack_id));
		tbl_set(&t, 8, "%s%s", money(s->price_usd, a, sizeof a), s->unit_nodes > 1 && hw_known(s->price_usd) ? "/unit" : "");
		tbl_set(&t, 9, "%s", dash(s->price_kind));
		tbl_set(&t, 10, "%s", hw_known(s->price_usd) ? dash(s->price_date) : dash(s->rent_date));
		tbl_set(&t, 11, "%s", rate(s->rent_usd_gpu_h, a, sizeof a));
		tbl_set(&t, 12, "%s", trim(*s->price_source ? s->price_source : dash(s->rent_source), 44, b, sizeof b));
	}
	tbl_print(&t, out);
	fprintf(out, "(domain: GPUs in one NVLink domain; price of one purchase unit, '/unit' = several nodes; date of the price,\n"
		" else of the rent; rent on demand per GPU-hour; `scaleplan hw show ID` for CPUs and every source in full)\n");
}

/* `hw list stacks`: what the model reads from each stack ('-' = its default). */
static void list_stacks(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"stack", "data", "staging", "threads/GPU", "decode thr", "img/s/c", "grad B",
					   "bucket", "hidden", "overhead", "speed", "like", "framework"};
	tbl t;
	char a[32];
	tbl_init(&t, 13, hdr, "lllrrrrrrrrll", db->nstacks);
	for (int i = 0; i < db->nstacks; i++, t.nrows++) {
		const hw_stack *x = &db->stacks[i];
		tbl_set(&t, 0, "%s", x->id);
		tbl_set(&t, 1, "%s", hw_data_path_name(x->data_path));
		tbl_set(&t, 2, "%s", hw_staging_name(x->staging));
		tbl_set(&t, 3, "%d", x->threads_per_gpu);
		tbl_set(&t, 4, "%d", x->decode_threads);
		tbl_set(&t, 5, hw_known(x->decode_img_s_core) ? "%.0f" : "-", x->decode_img_s_core);
		tbl_set(&t, 6, hw_known(x->grad_B) ? "%g" : "-", x->grad_B);
		tbl_set(&t, 7, "%s", si(x->bucket_B, "B", a, sizeof a));
		tbl_set(&t, 8, hw_known(x->comm_hidden_frac) ? "%g" : "-", x->comm_hidden_frac);
		tbl_set(&t, 9, "%s", si(x->step_overhead_s, "s", a, sizeof a));
		tbl_set(&t, 10, hw_known(x->compute_eff) ? "%.3g" : "-", x->compute_eff);
		tbl_set(&t, 11, "%s", x->likeness_k ? hw_likeness_names[x->likeness_k] : "-");
		char f[TBL_CELL];
		tbl_set(&t, 12, "%s", trim(x->framework, 60, f, sizeof f));
	}
	tbl_print(&t, out);
	fprintf(out, "('-' = the model's default parameter; speed = compute_eff, relative to MLPerf-grade software;\n"
		" `scaleplan hw show ID` for the sources)\n");
}

/* `hw list stack_effs`: the stack x GPU table of measured compute speeds. */
static void list_stack_effs(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"stack", "gpu", "arch", "prec", "speed", "version"};
	tbl t;
	tbl_init(&t, 6, hdr, "llllrl", db->nstack_effs);
	for (int i = 0; i < db->nstack_effs; i++, t.nrows++) {
		const hw_stack_eff *x = &db->stack_effs[i];
		tbl_set(&t, 0, "%s", x->stack_id);
		tbl_set(&t, 1, "%s", x->gpu_id);
		tbl_set(&t, 2, "%s", x->gpu ? x->gpu->arch : "-");
		tbl_set(&t, 3, "%s", hw_prec_class_names[x->prec]);
		tbl_set(&t, 4, "%.3f", x->compute_eff);
		tbl_set(&t, 5, "%s", dash(x->version));
	}
	tbl_print(&t, out);
	fprintf(out, "(speed: measured / the model's MLPerf-grade estimate on that GPU; a GPU without a cell takes the "
		"nearest cell's\n through the stack's generation exponent, docs/stacks.md; `scaleplan hw show ID` for the sources)\n");
}

static void show_stack_eff(const hw_stack_eff *x, FILE *out)
{
	fprintf(out, "stack_eff %s\n", x->id);
	fprintf(out, "  stack %s on %s, %s: %.3f of MLPerf-grade speed%s%s\n", x->stack_id, x->gpu_id,
		hw_prec_class_names[x->prec], x->compute_eff, *x->version ? ", " : "", x->version);
	fprintf(out, "  source         %s\n", x->source);
}

/* `hw list archs`: what the model reads from each GPU architecture. */
static void list_archs(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"arch", "generation", "sm", "compute_eff", "tensor_frac"};
	tbl t;
	tbl_init(&t, 5, hdr, "llrlr", db->narchs);
	for (int i = 0; i < db->narchs; i++, t.nrows++) {
		const hw_arch *x = &db->archs[i];
		tbl_set(&t, 0, "%s", x->id);
		tbl_set(&t, 1, "%s", x->generation);
		tbl_set(&t, 2, "%d", x->sm);
		tbl_set(&t, 3, "%s", hw_tensor_eff_names[x->compute_eff]);
		tbl_set(&t, 4, "%g", x->tensor_frac);
	}
	tbl_print(&t, out);
}

/* `hw list gpus`: peaks, memory, NVLink, power. */
static void list_gpus(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"gpu", "fp32", "fp16/bf16", "memory", "mem bw", "nvlink", "tdp", "pcie", "price"};
	tbl t;
	char a[32], b[32];
	tbl_init(&t, 9, hdr, "lrrrrlrll", db->ngpus);
	for (int i = 0; i < db->ngpus; i++, t.nrows++) {
		const hw_gpu *g = &db->gpus[i];
		tbl_set(&t, 0, "%s", g->id);
		tbl_set(&t, 1, "%s", si(g->fp32_flops, "FLOP/s", a, sizeof a));
		tbl_set(&t, 2, "%s", si(g->fp16_flops, "FLOP/s", a, sizeof a));
		tbl_set(&t, 3, "%s", si(g->mem_B, "B", a, sizeof a));
		tbl_set(&t, 4, "%s", si(g->mem_bw_Bps, "B/s", a, sizeof a));
		if (g->nvlink_gen)
			tbl_set(&t, 5, "%d: %s", g->nvlink_gen, si(g->nvlink_bw_Bps, "B/s", b, sizeof b));
		else
			tbl_set(&t, 5, "-");
		tbl_set(&t, 6, "%s", si(g->tdp_W, "W", a, sizeof a));
		tbl_set(&t, 7, "gen%d", g->pcie_gen);
		tbl_set(&t, 8, "%s", money(g->price_usd, a, sizeof a));
	}
	tbl_print(&t, out);
}

static void list_cpus(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"cpu", "vendor", "cores", "base", "turbo", "tdp"};
	tbl t;
	char a[32];
	tbl_init(&t, 6, hdr, "llrrrr", db->ncpus);
	for (int i = 0; i < db->ncpus; i++, t.nrows++) {
		const hw_cpu *x = &db->cpus[i];
		tbl_set(&t, 0, "%s", x->id);
		tbl_set(&t, 1, "%s", x->vendor);
		tbl_set(&t, 2, "%d", x->cores);
		tbl_set(&t, 3, "%s", si(x->base_hz, "Hz", a, sizeof a));
		tbl_set(&t, 4, "%s", si(x->turbo_hz, "Hz", a, sizeof a));
		tbl_set(&t, 5, "%s", si(x->tdp_W, "W", a, sizeof a));
	}
	tbl_print(&t, out);
}

static void list_links(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"link", "kind", "gen", "bw (1 dir)", "latency"};
	tbl t;
	char a[32];
	tbl_init(&t, 5, hdr, "llrrr", db->nlinks);
	for (int i = 0; i < db->nlinks; i++, t.nrows++) {
		const hw_link *l = &db->links[i];
		tbl_set(&t, 0, "%s", l->id);
		tbl_set(&t, 1, "%s", hw_link_kind_name(l->kind));
		tbl_set(&t, 2, "%d", l->gen);
		tbl_set(&t, 3, "%s", si(l->bw_Bps, "B/s", a, sizeof a));
		tbl_set(&t, 4, "%s", si(l->latency_s, "s", a, sizeof a));
	}
	tbl_print(&t, out);
}

static void list_fabrics(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"fabric", "nic link", "topology", "switch lat", "oversub"};
	tbl t;
	char a[32];
	tbl_init(&t, 5, hdr, "lllrr", db->nfabrics);
	for (int i = 0; i < db->nfabrics; i++, t.nrows++) {
		const hw_fabric *x = &db->fabrics[i];
		tbl_set(&t, 0, "%s", x->id);
		tbl_set(&t, 1, "%s", x->nic_id);
		tbl_set(&t, 2, "%s", x->topology);
		tbl_set(&t, 3, "%s", si(x->switch_latency_s, "s", a, sizeof a));
		tbl_set(&t, 4, "%g", x->oversubscription);
	}
	tbl_print(&t, out);
}

static void list_storage(const hw_db *db, FILE *out)
{
	static const char *const hdr[] = {"storage", "kind", "read", "per node", "latency", "link"};
	tbl t;
	char a[32];
	tbl_init(&t, 6, hdr, "llrrrl", db->nstorage);
	for (int i = 0; i < db->nstorage; i++, t.nrows++) {
		const hw_storage *x = &db->storage[i];
		tbl_set(&t, 0, "%s", x->id);
		tbl_set(&t, 1, "%s", x->kind);
		tbl_set(&t, 2, "%s", si(x->read_Bps, "B/s", a, sizeof a));
		tbl_set(&t, 3, "%s", si(x->node_Bps, "B/s", a, sizeof a));
		tbl_set(&t, 4, "%s", si(x->latency_s, "s", a, sizeof a));
		tbl_set(&t, 5, "%s", dash(x->link_id));
	}
	tbl_print(&t, out);
}

void hw_db_list(const hw_db *db, hw_kind kind, FILE *out)
{
	switch (kind) {
	case HW_GPU:
		list_gpus(db, out);
		break;
	case HW_CPU:
		list_cpus(db, out);
		break;
	case HW_LINK:
		list_links(db, out);
		break;
	case HW_FABRIC:
		list_fabrics(db, out);
		break;
	case HW_STORAGE:
		list_storage(db, out);
		break;
	case HW_SYSTEM:
		list_systems(db, out);
		break;
	case HW_STACK:
		list_stacks(db, out);
		break;
	case HW_ARCH:
		list_archs(db, out);
		break;
	case HW_STACK_EFF:
		list_stack_effs(db, out);
		break;
	case HW_NKINDS:
		break;
	}
}

static void show_gpu(const hw_gpu *g, const char *ind, FILE *out)
{
	char a[32];
	fprintf(out, "%sgpu %s%s%s%s\n", ind, g->id, *g->aliases ? " (also " : "", g->aliases, *g->aliases ? ")" : "");
	fprintf(out, "%s  architecture   %s, %s\n", ind, g->arch, g->form);
	fprintf(out, "%s  fp32           %s\n", ind, si(g->fp32_flops, "FLOP/s", a, sizeof a));
	fprintf(out, "%s  tf32 tensor    %s\n", ind, si(g->tf32_flops, "FLOP/s", a, sizeof a));
	fprintf(out, "%s  fp16 tensor    %s\n", ind, si(g->fp16_flops, "FLOP/s", a, sizeof a));
	fprintf(out, "%s  bf16 tensor    %s\n", ind, si(g->bf16_flops, "FLOP/s", a, sizeof a));
	fprintf(out, "%s  memory         %s", ind, si(g->mem_B, "B", a, sizeof a));
	fprintf(out, " at %s\n", si(g->mem_bw_Bps, "B/s", a, sizeof a));
	fprintf(out, "%s  tdp            %s\n", ind, si(g->tdp_W, "W", a, sizeof a));
	if (g->nvlink_gen)
		fprintf(out, "%s  nvlink         gen %d, %d links, %s per direction\n", ind, g->nvlink_gen, g->nvlinks,
			si(g->nvlink_bw_Bps, "B/s", a, sizeof a));
	else
		fprintf(out, "%s  nvlink         none\n", ind);
	fprintf(out, "%s  pcie           gen %d x16\n", ind, g->pcie_gen);
	if (hw_known(g->price_usd))
		fprintf(out, "%s  price          %.0f USD (%s)\n", ind, g->price_usd, dash(g->price_date));
	fprintf(out, "%s  source         %s\n", ind, g->source);
}

static void show_arch(const hw_arch *x, FILE *out)
{
	fprintf(out, "arch %s%s%s%s\n", x->id, *x->aliases ? " (also " : "", x->aliases, *x->aliases ? ")" : "");
	fprintf(out, "  generation     %s (sm_%d)\n", x->generation, x->sm);
	fprintf(out, "  tensor cores   %g of the dense peak next to Hopper's, efficiency %s\n", x->tensor_frac,
		hw_tensor_eff_names[x->compute_eff]);
	fprintf(out, "  source         %s\n", x->source);
}

static void show_cpu(const hw_cpu *c, int count, const char *ind, FILE *out)
{
	char a[32], b[32], d[32];
	fprintf(out, "%scpu %s%s: %s %d cores%s%.0d%s, %s base, %s turbo, %s\n", ind, count > 1 ? "" : "", c->id,
		c->vendor, c->cores, c->threads ? "/" : "", c->threads, c->threads ? " threads" : "",
		si(c->base_hz, "Hz", a, sizeof a), si(c->turbo_hz, "Hz", b, sizeof b), si(c->tdp_W, "W", d, sizeof d));
	if (count > 1)
		fprintf(out, "%s  x %d sockets = %d cores\n", ind, count, count * c->cores);
	fprintf(out, "%s  source         %s\n", ind, c->source);
}

static void show_link(const hw_link *l, const char *role, const char *ind, FILE *out)
{
	char a[32], b[32];
	fprintf(out, "%s%s%s %s: %s gen %d, %s per direction, latency %s\n", ind, role, *role ? " link" : "link", l->id,
		hw_link_kind_name(l->kind), l->gen, si(l->bw_Bps, "B/s", a, sizeof a), si(l->latency_s, "s", b, sizeof b));
	fprintf(out, "%s  source         %s\n", ind, l->source);
}

static void show_storage(const hw_storage *s, const char *ind, FILE *out)
{
	char a[32], b[32], c[32];
	fprintf(out, "%sstorage %s: %s, read %s%s, per node %s, latency %s, via %s\n", ind, s->id, s->kind,
		si(s->read_Bps, "B/s", a, sizeof a), strcmp(s->kind, "local") == 0 ? " per drive" : " aggregate",
		si(s->node_Bps, "B/s", c, sizeof c), si(s->latency_s, "s", b, sizeof b), dash(s->link_id));
	if (hw_known(s->price_usd))
		fprintf(out, "%s  price          %s USD a unit of %s (%s, %s): %s\n", ind, money(s->price_usd, a, sizeof a),
			si(s->unit_B, "B", b, sizeof b), dash(s->price_kind), dash(s->price_date), dash(s->price_source));
	fprintf(out, "%s  source         %s\n", ind, s->source);
}

static void show_fabric(const hw_fabric *f, const char *ind, FILE *out)
{
	char a[32];
	fprintf(out, "%sfabric %s: %s, oversubscription %g, switch latency %s\n", ind, f->id, f->topology,
		f->oversubscription, si(f->switch_latency_s, "s", a, sizeof a));
	if (f->switch_ports >= 2) {
		char b[40], c[40];
		fprintf(out, "%s  prices         switch of %d ports %s USD, link %s USD, NIC %s (%s, %s)\n", ind, f->switch_ports,
			money(f->switch_usd, a, sizeof a), money(f->link_usd, b, sizeof b),
			hw_known(f->nic_usd) ? money(f->nic_usd, c, sizeof c) : "- (in the servers' price)", dash(f->price_kind),
			dash(f->price_date));
		fprintf(out, "%s  price source   %s\n", ind, dash(f->price_source));
	}
	fprintf(out, "%s  source         %s\n", ind, f->source);
}

/* A stack, every field; NAN ones say that the model's default applies. */
static void show_stack(const hw_stack *x, const char *ind, FILE *out)
{
	char a[32];
	fprintf(out, "%sstack %s: %s\n", ind, x->id, x->framework);
	fprintf(out, "%s  data path      %s decode%s\n", ind, hw_data_path_name(x->data_path),
		x->data_path == HW_DATA_GPU ? " (DALI/nvJPEG on the GPU)" : " on CPU cores");
	fprintf(out, "%s  staging        %s\n", ind,
		x->staging == HW_STAGE_LOCAL ? "local: data set copied to every node's drives before the clock starts"
					     : "none: the first epoch reads the system's storage");
	/* 0 decode threads means "not fixed by the stack": the node's cores less those kept per GPU */
	if (x->decode_threads)
		fprintf(out, "%s  cpu threads    %d kept per GPU, decode threads %d\n", ind, x->threads_per_gpu,
			x->decode_threads);
	else
		fprintf(out, "%s  cpu threads    %d kept per GPU; decode threads: the node's cores - %d x GPUs\n", ind,
			x->threads_per_gpu, x->threads_per_gpu);
	if (hw_known(x->decode_img_s_core))
		fprintf(out, "%s  decode rate    %.0f img/s per core\n", ind, x->decode_img_s_core);
	else
		fprintf(out, "%s  decode rate    model default (decode_img_s_core)\n", ind);
	if (hw_known(x->grad_B))
		fprintf(out, "%s  gradients      %g B per element at fp16/bf16\n", ind, x->grad_B);
	else
		fprintf(out, "%s  gradients      model default (grad_B_lowp)\n", ind);
	fprintf(out, "%s  bucket         %s\n", ind, hw_known(x->bucket_B) ? si(x->bucket_B, "B", a, sizeof a) : "model default (bucket_B)");
	if (hw_known(x->comm_hidden_frac))
		fprintf(out, "%s  overlap        %g of the all-reduce pipeline hidden behind backward\n", ind, x->comm_hidden_frac);
	else
		fprintf(out, "%s  overlap        model default (overlap)\n", ind);
	fprintf(out, "%s  step overhead  %s\n", ind, hw_known(x->step_overhead_s) ? si(x->step_overhead_s, "s", a, sizeof a) : "none");
	if (hw_known(x->compute_eff))
		fprintf(out, "%s  compute speed  %.3g of MLPerf-grade software (the model's compute time / %.3g)\n", ind,
			x->compute_eff, x->compute_eff);
	else
		fprintf(out, "%s  compute speed  MLPerf-grade (1)\n", ind);
	if (hw_known(x->compute_eff_fp32))
		fprintf(out, "%s  compute speed fp32/tf32 %.3g of MLPerf-grade software\n", ind, x->compute_eff_fp32);
	if (hw_known(x->gpu_decode_img_s))
		fprintf(out, "%s  GPU decode     %.0f img/s per GPU\n", ind, x->gpu_decode_img_s);
	fprintf(out, "%s  source         %s\n", ind, x->source);
}

/* The NVLink domain: the node's GPUs, or a rack of nodes joined by NVLink switches (NVL72). */
static void show_domain(const hw_system *s, FILE *out)
{
	if (s->domain_gpus > s->gpus_per_node)
		fprintf(out, "  nvlink domain  %d GPUs = %d nodes of %d\n", s->domain_gpus, s->domain_gpus / s->gpus_per_node,
			s->gpus_per_node);
	else
		fprintf(out, "  nvlink domain  the node's %d GPU%s\n", s->gpus_per_node, s->gpus_per_node == 1 ? "" : "s");
}

/* Price of a purchase unit and rental rates, each with its source. */
static void show_price(const hw_system *s, FILE *out)
{
	char a[40], b[16], c[16], d[16], e[40];
	if (*s->provider)
		fprintf(out, "  provider       %s\n", s->provider);
	if (hw_known(s->price_usd)) {
		fprintf(out, "  price          %s USD (%s, %s) per unit of %d node%s (%d GPUs)\n", money(s->price_usd, a, sizeof a),
			dash(s->price_kind), dash(s->price_date), s->unit_nodes, s->unit_nodes == 1 ? "" : "s",
			s->unit_nodes * s->gpus_per_node);
		fprintf(out, "  price source   %s\n", dash(s->price_source));
		if (hw_known(s->price_lo_usd) || hw_known(s->price_hi_usd))
			fprintf(out, "  price range    %s to %s USD from the sources\n", money(s->price_lo_usd, a, sizeof a),
				money(s->price_hi_usd, e, sizeof e));
		fprintf(out, "  price holds    %s%s\n", dash(s->price_includes),
			s->price_nics == 1 || !*s->price_includes ? "" : " (NICs bought beside it)");
	} else {
		fprintf(out, "  price          not public\n");
	}
	if (s->unit_nodes > 1 && !hw_known(s->price_usd))
		fprintf(out, "  sold as        units of %d nodes (%d GPUs)\n", s->unit_nodes, s->unit_nodes * s->gpus_per_node);
	if (hw_known(s->rent_usd_gpu_h) || hw_known(s->rent_1y_usd_gpu_h) || hw_known(s->rent_3y_usd_gpu_h)) {
		fprintf(out, "  rent           USD per GPU-hour: on demand %s, 1-year %s, 3-year %s (%s)\n",
			rate(s->rent_usd_gpu_h, b, sizeof b), rate(s->rent_1y_usd_gpu_h, c, sizeof c),
			rate(s->rent_3y_usd_gpu_h, d, sizeof d), dash(s->rent_date));
		fprintf(out, "  rent source    %s\n", dash(s->rent_source));
		fprintf(out, "  rent as billed %s: spot %s USD per GPU-hour; at least %d GPUs; increment %s; minimum %s",
			dash(s->rent_kind), rate(s->rent_spot_usd_gpu_h, b, sizeof b),
			s->rent_unit_gpus > s->gpus_per_node ? s->rent_unit_gpus : s->gpus_per_node,
			si(s->rent_increment_s, "s", a, sizeof a), si(s->rent_min_s, "s", e, sizeof e));
		if (s->rent_max_gpus > 0)
			fprintf(out, "; up to %d GPUs, beyond: %s USD per GPU-hour", s->rent_max_gpus,
				rate(s->rent_cluster_usd_gpu_h, c, sizeof c));
		fprintf(out, "\n");
	} else {
		fprintf(out, "  rent           no published rate\n");
	}
	if (strcmp(s->status, "eol") == 0) {
		fprintf(out, "  status         end of life since %s: no longer sold, prices historical\n", dash(s->status_date));
		fprintf(out, "  status source  %s\n", dash(s->status_source));
	}
}

static void show_system(const hw_system *s, FILE *out)
{
	char a[32];
	fprintf(out, "system %s: %s%s%s%s\n", s->id, s->name, *s->aliases ? " (also " : "", s->aliases, *s->aliases ? ")" : "");
	fprintf(out, "  gpus           %d x %s\n", s->gpus_per_node, s->gpu_id);
	fprintf(out, "  intra-node     %s", hw_topo_name(s->intra));
	if (s->intra != HW_TOPO_SINGLE)
		fprintf(out, " over %s, %s per GPU per direction", dash(s->intra_link_id), si(s->intra_bw_Bps, "B/s", a, sizeof a));
	if (s->host_links && s->host_link)
		fprintf(out, "\n  host links     %d x %s (%s total per direction)\n", s->host_links, s->host_link_id,
			si(s->host_links * s->host_link->bw_Bps, "B/s", a, sizeof a));
	else
		fprintf(out, "\n  host links     %s (count not given)\n", s->host_link_id);
	fprintf(out, "  cpus           %d x %s\n", s->cpus_per_node, *s->cpu_id ? s->cpu_id : "(model not given)");
	fprintf(out, "  memory         %s\n", si(s->mem_B, "B", a, sizeof a));
	if (*s->nic_id)
		fprintf(out, "  nics           %d x %s\n", s->nics_per_node, s->nic_id);
	else
		fprintf(out, "  nics           none listed\n");
	fprintf(out, "  storage        %s\n", dash(s->storage_id));
	if (s->local_drives > 0)
		fprintf(out, "  local drives   %d x %s read\n", s->local_drives, si(s->local_drive_Bps, "B/s", a, sizeof a));
	else
		fprintf(out, "  local drives   not given\n");
	fprintf(out, "  network        %s%s\n", dash(s->fabric_id), *s->fabric_id ? "" : " (not clustered: give --fabric ID)");
	fprintf(out, "  stack          %s\n", *s->stack_id ? s->stack_id : "- (model defaults)");
	show_domain(s, out);
	show_price(s, out);
	if (hw_known(s->power_W))
		fprintf(out, "  power          %s per node (%s: %s)\n", si(s->power_W, "W", a, sizeof a), dash(s->power_kind),
			dash(s->power_source));
	else
		fprintf(out, "  power          not given\n");
	fprintf(out, "  source         %s\n", s->source);
	fprintf(out, "components:\n");
	if (s->gpu)
		show_gpu(s->gpu, "  ", out);
	if (s->cpu)
		show_cpu(s->cpu, s->cpus_per_node, "  ", out);
	if (s->intra_link)
		show_link(s->intra_link, "intra", "  ", out);
	if (s->host_link)
		show_link(s->host_link, "host", "  ", out);
	if (s->nic)
		show_link(s->nic, "nic", "  ", out);
	if (s->storage)
		show_storage(s->storage, "  ", out);
	if (s->fabric)
		show_fabric(s->fabric, "  ", out);
	if (s->stack)
		show_stack(s->stack, "  ", out);
}

bool hw_db_show(const hw_db *db, const char *id, FILE *out)
{
	bool any = false;
	for (int k = 0; k < HW_NKINDS; k++) {
		const void *item = hw_find(db, k, id);
		if (!item)
			continue;
		if (any)
			fputc('\n', out);
		any = true;
		switch ((hw_kind)k) {
		case HW_GPU:
			show_gpu(item, "", out);
			break;
		case HW_CPU:
			show_cpu(item, 1, "", out);
			break;
		case HW_LINK:
			show_link(item, "", "", out);
			break;
		case HW_FABRIC: {
			const hw_fabric *f = item;
			show_fabric(f, "", out);
			if (f->nic)
				show_link(f->nic, "nic", "  ", out);
			break;
		}
		case HW_STORAGE:
			show_storage(item, "", out);
			break;
		case HW_SYSTEM:
			show_system(item, out);
			break;
		case HW_STACK:
			show_stack(item, "", out);
			break;
		case HW_ARCH:
			show_arch(item, out);
			break;
		case HW_STACK_EFF:
			show_stack_eff(item, out);
			break;
		case HW_NKINDS:
			break;
		}
	}
	return any;
}
