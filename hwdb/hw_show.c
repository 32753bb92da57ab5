/* hwdb printing: `hw list` tables and `hw show` details, every item with its source.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "hwdb/hw_internal.h"

#include "common/common.h"

#include <math.h>
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

void hw_db_list(const hw_db *db, hw_kind kind, FILE *out)
{
	char a[32], b[32], c[32], d[32], e[32], f[32];
	switch (kind) {
	case HW_GPU:
		fprintf(out, "%-20s %-12s %-12s %-12s %-10s %-12s %-7s %-7s %s\n", "gpu", "fp32", "fp16/bf16", "memory",
			"mem bw", "nvlink", "tdp", "pcie", "price");
		for (int i = 0; i < db->ngpus; i++) {
			const hw_gpu *g = &db->gpus[i];
			char nv[32];
			if (g->nvlink_gen)
				snprintf(nv, sizeof nv, "%d: %s", g->nvlink_gen, si(g->nvlink_bw_Bps, "B/s", e, sizeof e));
			else
				snprintf(nv, sizeof nv, "-");
			fprintf(out, "%-20s %-12s %-12s %-12s %-10s %-12s %-7s gen%-4d %s\n", g->id, si(g->fp32_flops, "FLOP/s", a, sizeof a),
				si(g->fp16_flops, "FLOP/s", b, sizeof b), si(g->mem_B, "B", c, sizeof c),
				si(g->mem_bw_Bps, "B/s", d, sizeof d), nv, si(g->tdp_W, "W", f, sizeof f), g->pcie_gen,
				hw_known(g->price_usd) ? "known" : "-");
		}
		break;
	case HW_CPU:
		fprintf(out, "%-26s %-6s %5s %10s %10s %8s\n", "cpu", "vendor", "cores", "base", "turbo", "tdp");
		for (int i = 0; i < db->ncpus; i++) {
			const hw_cpu *x = &db->cpus[i];
			fprintf(out, "%-26s %-6s %5d %10s %10s %8s\n", x->id, x->vendor, x->cores, si(x->base_hz, "Hz", a, sizeof a),
				si(x->turbo_hz, "Hz", b, sizeof b), si(x->tdp_W, "W", c, sizeof c));
		}
		break;
	case HW_LINK:
		fprintf(out, "%-16s %-9s %4s %14s %10s\n", "link", "kind", "gen", "bw (1 dir)", "latency");
		for (int i = 0; i < db->nlinks; i++) {
			const hw_link *l = &db->links[i];
			fprintf(out, "%-16s %-9s %4d %14s %10s\n", l->id, hw_link_kind_name(l->kind), l->gen,
				si(l->bw_Bps, "B/s", a, sizeof a), si(l->latency_s, "s", b, sizeof b));
		}
		break;
	case HW_FABRIC:
		fprintf(out, "%-22s %-14s %-16s %10s %6s\n", "fabric", "nic link", "topology", "switch lat", "oversub");
		for (int i = 0; i < db->nfabrics; i++) {
			const hw_fabric *x = &db->fabrics[i];
			fprintf(out, "%-22s %-14s %-16s %10s %6g\n", x->id, x->nic_id, x->topology,
				si(x->switch_latency_s, "s", a, sizeof a), x->oversubscription);
		}
		break;
	case HW_STORAGE:
		fprintf(out, "%-16s %-12s %12s %12s %10s %s\n", "storage", "kind", "read", "per node", "latency", "link");
		for (int i = 0; i < db->nstorage; i++) {
			const hw_storage *x = &db->storage[i];
			fprintf(out, "%-16s %-12s %12s %12s %10s %s\n", x->id, x->kind, si(x->read_Bps, "B/s", a, sizeof a),
				si(x->node_Bps, "B/s", c, sizeof c), si(x->latency_s, "s", b, sizeof b), dash(x->link_id));
		}
		break;
	case HW_SYSTEM:
		fprintf(out, "%-24s %-18s %4s %-12s %-11s %-22s %-10s %-14s %-16s %s\n", "system", "gpu", "gpus", "intra",
			"host links", "cpu", "memory", "nic", "fabric", "stack");
		for (int i = 0; i < db->nsystems; i++) {
			const hw_system *s = &db->systems[i];
			char host[32], cpu[48], nic[32];
			if (s->host_links)
				snprintf(host, sizeof host, "%dx %s", s->host_links, s->host_link_id);
			else
				snprintf(host, sizeof host, "?x %s", s->host_link_id);
			snprintf(cpu, sizeof cpu, "%dx %s", s->cpus_per_node, *s->cpu_id ? s->cpu_id : "?");
			if (*s->nic_id)
				snprintf(nic, sizeof nic, "%dx %s", s->nics_per_node, s->nic_id);
			else
				snprintf(nic, sizeof nic, "-");
			fprintf(out, "%-24s %-18s %4d %-12s %-11s %-22s %-10s %-14s %-16s %s\n", s->id, s->gpu_id, s->gpus_per_node,
				hw_topo_name(s->intra), host, cpu, si(s->mem_B, "B", a, sizeof a), nic, dash(s->fabric_id),
				dash(s->stack_id));
		}
		break;
	case HW_STACK:
		fprintf(out, "%-14s %-5s %-7s %11s %10s %8s %7s %10s %8s %9s  %s\n", "stack", "data", "staging",
			"threads/GPU", "decode thr", "img/s/c", "grad B", "bucket", "hidden", "overhead", "framework");
		for (int i = 0; i < db->nstacks; i++) {
			const hw_stack *x = &db->stacks[i];
			char dr[16], gb[16], hid[16];
			snprintf(dr, sizeof dr, hw_known(x->decode_img_s_core) ? "%.0f" : "-", x->decode_img_s_core);
			snprintf(gb, sizeof gb, hw_known(x->grad_B) ? "%g" : "-", x->grad_B);
			snprintf(hid, sizeof hid, hw_known(x->comm_hidden_frac) ? "%g" : "-", x->comm_hidden_frac);
			fprintf(out, "%-14s %-5s %-7s %11d %10d %8s %7s %10s %8s %9s  %s\n", x->id, hw_data_path_name(x->data_path),
				hw_staging_name(x->staging), x->threads_per_gpu, x->decode_threads, dr, gb,
				si(x->bucket_B, "B", a, sizeof a), hid, si(x->step_overhead_s, "s", b, sizeof b), x->framework);
		}
		fprintf(out, "('-' = the model's default parameter; `scaleplan hw show ID` for the sources)\n");
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
	fprintf(out, "%s  source         %s\n", ind, s->source);
}

static void show_fabric(const hw_fabric *f, const char *ind, FILE *out)
{
	char a[32];
	fprintf(out, "%sfabric %s: %s, oversubscription %g, switch latency %s\n", ind, f->id, f->topology,
		f->oversubscription, si(f->switch_latency_s, "s", a, sizeof a));
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
	fprintf(out, "%s  cpu threads    %d kept per GPU, decode threads %d%s\n", ind, x->threads_per_gpu,
		x->decode_threads, x->decode_threads ? "" : " (cores - threads_per_gpu x GPUs)");
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
	fprintf(out, "%s  source         %s\n", ind, x->source);
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
	if (hw_known(s->price_usd))
		fprintf(out, "  price          %.0f USD (%s)\n", s->price_usd, dash(s->price_date));
	else
		fprintf(out, "  price          not public\n");
	fprintf(out, "  power          %s\n", si(s->power_W, "W", a, sizeof a));
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
		case HW_NKINDS:
			break;
		}
	}
	return any;
}
