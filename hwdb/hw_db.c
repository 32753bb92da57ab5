/* hwdb loader: schema of every table, CSV -> structs with range and reference checks, overlay.
 *
 * Loading is two-phase and all-or-nothing: phase 1 parses every row of every table given and reports
 * every bad cell; phase 2 merges into a copy of the db and checks references against the merged db.
 * Only when both phases found nothing is the copy swapped in, so a caller never sees a half-loaded db.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "hwdb/hw_internal.h"

#include "common/common.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const hw_topo_names[] = {"single", "nvswitch", "nvlink-mesh", "hybrid-cube",
				     "pcie-switch", "pcie-host", NULL};
const char *const hw_link_kind_names[] = {"pcie", "nvlink", "nvswitch", "ib", "eth", "roce", "host", NULL};
const char *const hw_data_path_names[] = {"cpu", "gpu", NULL};
const char *const hw_staging_names[] = {"none", "local", NULL};
const char *const hw_tensor_eff_names[] = {"eff_compute", "eff_compute_sync", NULL};
const char *const hw_prec_class_names[] = {"lowp", "fp32", NULL};
const char *const hw_likeness_names[] = {"none", "fused", "compiled", "eager-nhwc", "eager-nchw", NULL};

/* ---- schema ---- */

#define OFF(type, field) offsetof(type, field)
#define ID(type) {"id", HW_C_ID, true, OFF(type, id), 0, 0, "an id", NULL, 0, false}
#define ALIASES(type) {"aliases", HW_C_TEXT, false, OFF(type, aliases), 0, 0, "names separated by ;", NULL, 0, false}
#define SOURCE(type) {"source", HW_C_TEXT, true, OFF(type, source), 0, 0, "the source of the figures", NULL, 0, false}
#define TEXT(type, f, req, what) {#f, HW_C_TEXT, req, OFF(type, f), 0, 0, what, NULL, 0, false}
#define NUM(type, f, req, lo, hi, unit) {#f, HW_C_NUM, req, OFF(type, f), lo, hi, unit, NULL, 0, false}
#define INT(type, f, req, lo, hi, what) {#f, HW_C_INT, req, OFF(type, f), lo, hi, what, NULL, 0, false}
#define REF(type, col, f, req, kind) {col, HW_C_REF, req, OFF(type, f), 0, 0, "an id", NULL, kind, false}
/* Columns added after tables were in users' hands: a table may leave them out (= all empty). */
#define NUM_NEW(type, f, lo, hi, unit) {#f, HW_C_NUM, false, OFF(type, f), lo, hi, unit, NULL, 0, true}
#define INT_NEW(type, f, lo, hi, what) {#f, HW_C_INT, false, OFF(type, f), lo, hi, what, NULL, 0, true}
#define REF_NEW(type, col, f, kind) {col, HW_C_REF, false, OFF(type, f), 0, 0, "an id", NULL, kind, true}
#define ENUM_NEW(type, col, f, what, names) {col, HW_C_ENUM, false, OFF(type, f), 0, 0, what, names, 0, true}
#define TEXT_NEW(type, f, what) {#f, HW_C_TEXT, false, OFF(type, f), 0, 0, what, NULL, 0, true}
#define DATE_NEW(type, f) {#f, HW_C_DATE, false, OFF(type, f), 0, 0, "a date YYYY, YYYY-MM or YYYY-MM-DD", NULL, 0, true}

static const hw_col gpu_cols[] = {
	ID(hw_gpu),
	ALIASES(hw_gpu),
	TEXT(hw_gpu, arch, true, "an architecture name (Volta, Ampere, Hopper...; archs.csv)"),
	TEXT(hw_gpu, form, true, "a form factor (pcie, sxm)"),
	NUM(hw_gpu, fp32_flops, true, 1e12, 1e15, "FLOP/s, e.g. 1.57e13"),
	NUM(hw_gpu, tf32_flops, false, 1e12, 1e16, "FLOP/s, e.g. 1.56e14"),
	NUM(hw_gpu, fp16_flops, false, 1e12, 1e16, "FLOP/s, e.g. 1.25e14"),
	NUM(hw_gpu, bf16_flops, false, 1e12, 1e16, "FLOP/s, e.g. 3.12e14"),
	NUM(hw_gpu, mem_B, true, 1e9, 1e13, "bytes, e.g. 1.6e10 for 16 GB"),
	NUM(hw_gpu, mem_bw_Bps, true, 1e10, 1e14, "bytes/s, e.g. 9e11 for 900 GB/s"),
	NUM(hw_gpu, tdp_W, true, 10, 5000, "watts"),
	INT(hw_gpu, nvlink_gen, false, 0, 9, "an NVLink generation 0-9 (0 = none)"),
	INT(hw_gpu, nvlinks, false, 0, 64, "a count of NVLink links 0-64"),
	NUM(hw_gpu, nvlink_bw_Bps, false, 0, 1e14, "bytes/s one direction, e.g. 1.5e11"),
	INT(hw_gpu, pcie_gen, true, 1, 9, "a PCIe generation 1-9"),
	NUM(hw_gpu, price_usd, false, 1, 1e7, "US dollars"),
	{"price_date", HW_C_DATE, false, OFF(hw_gpu, price_date), 0, 0, "a date YYYY, YYYY-MM or YYYY-MM-DD", NULL, 0, false},
	SOURCE(hw_gpu),
	NUM_NEW(hw_gpu, boost_clock_Hz, 1e8, 1e10, "Hz, the clock of the datasheet's peaks, e.g. 1.41e9"),
	REF_NEW(hw_gpu, "power_sibling", power_sibling_id, HW_GPU),
	TEXT_NEW(hw_gpu, chip, "the GPU model whatever its package (B200 for B200-SXM-180GB and B200-GB200-186GB)"),
	REF_NEW(hw_gpu, "checked_from", checked_from_id, HW_GPU),
};

static const hw_col arch_cols[] = {
	ID(hw_arch),
	ALIASES(hw_arch),
	TEXT(hw_arch, generation, true, "the vendor generation it belongs to (Blackwell for Blackwell Ultra)"),
	INT(hw_arch, sm, true, 10, 999, "a CUDA compute capability x 10 (90 for sm_90)"),
	{"compute_eff", HW_C_ENUM, true, OFF(hw_arch, compute_eff), 0, 0, "a fitted compute efficiency",
	 hw_tensor_eff_names, 0, false},
	NUM(hw_arch, tensor_frac, true, 0, 2, "a fraction of the dense tensor peak next to Hopper's, 0-2 (0 = no tensor cores)"),
	SOURCE(hw_arch),
};

static const hw_col cpu_cols[] = {
	ID(hw_cpu),
	ALIASES(hw_cpu),
	TEXT(hw_cpu, vendor, true, "a vendor name"),
	INT(hw_cpu, cores, true, 1, 1024, "physical cores per socket 1-1024"),
	INT(hw_cpu, threads, false, 1, 4096, "hardware threads per socket"),
	NUM(hw_cpu, base_hz, false, 1e8, 1e10, "Hz, e.g. 2.4e9"),
	NUM(hw_cpu, turbo_hz, false, 1e8, 1e10, "Hz, e.g. 3.7e9"),
	NUM(hw_cpu, tdp_W, false, 1, 2000, "watts"),
	SOURCE(hw_cpu),
};

static const hw_col link_cols[] = {
	ID(hw_link),
	ALIASES(hw_link),
	{"kind", HW_C_ENUM, true, OFF(hw_link, kind), 0, 0, "a link kind", hw_link_kind_names, 0, false},
	INT(hw_link, gen, false, 0, 100, "a generation number"),
	NUM(hw_link, bw_Bps, true, 1e6, 1e14, "bytes/s one direction, e.g. 1.25e10 for 100 Gb/s"),
	NUM(hw_link, latency_s, false, 1e-9, 1e-1, "seconds, e.g. 1e-6"),
	SOURCE(hw_link),
};

static const hw_col fabric_cols[] = {
	ID(hw_fabric),
	ALIASES(hw_fabric),
	REF(hw_fabric, "nic_link", nic_id, true, HW_LINK),
	TEXT(hw_fabric, topology, true, "a topology name (fat-tree, single-switch...)"),
	NUM(hw_fabric, switch_latency_s, false, 1e-9, 1e-2, "seconds, e.g. 1.3e-7"),
	NUM(hw_fabric, oversubscription, true, 1, 100, "a ratio >= 1 (1 = non-blocking)"),
	INT_NEW(hw_fabric, switch_ports, 2, 100000, "ports of one switch 2-100000"),
	NUM_NEW(hw_fabric, switch_usd, 1, 1e8, "US dollars for one switch"),
	NUM_NEW(hw_fabric, link_usd, 1, 1e6, "US dollars for one link (both transceivers and the cable)"),
	NUM_NEW(hw_fabric, nic_usd, 1, 1e6, "US dollars for one NIC port"),
	TEXT_NEW(hw_fabric, price_kind, "list, quote, press or estimate"),
	DATE_NEW(hw_fabric, price_date),
	TEXT_NEW(hw_fabric, price_source, "where the prices come from (publication, date)"),
	SOURCE(hw_fabric),
};

static const hw_col storage_cols[] = {
	ID(hw_storage),
	ALIASES(hw_storage),
	TEXT(hw_storage, kind, true, "a storage kind (nas, local, nfs, parallel-fs)"),
	NUM(hw_storage, read_Bps, false, 1e6, 1e13, "bytes/s, e.g. 1.5e10"),
	NUM_NEW(hw_storage, node_Bps, 1e6, 1e13, "bytes/s one node reads at most, e.g. 5e9"),
	NUM(hw_storage, latency_s, false, 1e-7, 1, "seconds"),
	REF(hw_storage, "link", link_id, false, HW_LINK),
	NUM_NEW(hw_storage, price_usd, 1, 1e9, "US dollars for one unit"),
	NUM_NEW(hw_storage, unit_B, 1e9, 1e18, "usable bytes of one unit, e.g. 1e14 for 100 TB"),
	NUM_NEW(hw_storage, unit_Bps, 1e6, 1e13, "bytes/s one unit reads, e.g. 1e10"),
	TEXT_NEW(hw_storage, price_kind, "list, quote, press or estimate"),
	DATE_NEW(hw_storage, price_date),
	TEXT_NEW(hw_storage, price_source, "where the price comes from (publication, date)"),
	SOURCE(hw_storage),
};

static const hw_col system_cols[] = {
	ID(hw_system),
	ALIASES(hw_system),
	TEXT(hw_system, name, true, "a human-readable name"),
	REF(hw_system, "gpu", gpu_id, true, HW_GPU),
	INT(hw_system, gpus_per_node, true, 1, 1024, "GPUs per node 1-1024"),
	{"intra_topology", HW_C_ENUM, true, OFF(hw_system, intra), 0, 0, "an intra-node topology", hw_topo_names, 0, false},
	REF(hw_system, "intra_link", intra_link_id, false, HW_LINK),
	NUM(hw_system, intra_bw_Bps, false, 1e8, 1e14, "bytes/s per GPU one direction, e.g. 1.5e11"),
	REF(hw_system, "host_link", host_link_id, true, HW_LINK),
	INT(hw_system, host_links, false, 1, 1024, "host x16 links 1-1024"),
	REF(hw_system, "cpu", cpu_id, false, HW_CPU),
	INT(hw_system, cpus_per_node, true, 1, 64, "CPU sockets 1-64"),
	NUM(hw_system, mem_B, false, 1e9, 1e14, "bytes, e.g. 3.84e11 for 384 GB"),
	REF(hw_system, "nic", nic_id, false, HW_LINK),
	INT(hw_system, nics_per_node, false, 0, 1024, "NICs per node"),
	REF(hw_system, "storage", storage_id, false, HW_STORAGE),
	INT_NEW(hw_system, local_drives, 0, 1024, "node-local data drives 0-1024"),
	NUM_NEW(hw_system, local_drive_Bps, 1e7, 1e12, "bytes/s read per drive, e.g. 7e9"),
	REF_NEW(hw_system, "fabric", fabric_id, HW_FABRIC),
	REF_NEW(hw_system, "stack", stack_id, HW_STACK),
	NUM(hw_system, price_usd, false, 1, 1e9, "US dollars for one purchase unit of unit_nodes nodes"),
	{"price_date", HW_C_DATE, false, OFF(hw_system, price_date), 0, 0, "a date YYYY, YYYY-MM or YYYY-MM-DD", NULL, 0, false},
	TEXT_NEW(hw_system, price_kind, "list, quote, press or estimate"),
	TEXT_NEW(hw_system, price_source, "where the price comes from (publication, date)"),
	NUM_NEW(hw_system, price_lo_usd, 1, 1e9, "US dollars, the low end of the price from its sources"),
	NUM_NEW(hw_system, price_hi_usd, 1, 1e9, "US dollars, the high end of the price from its sources"),
	TEXT_NEW(hw_system, price_includes, "what the unit's price holds (server, NICs, rack switches, cooling)"),
	INT_NEW(hw_system, price_nics, 0, 1, "1 when the NICs are in the price, 0 or empty when bought beside it"),
	NUM(hw_system, power_W, false, 10, 1e6, "watts"),
	TEXT_NEW(hw_system, power_kind, "measured, datasheet or estimate"),
	TEXT_NEW(hw_system, power_source, "where power_W comes from"),
	TEXT_NEW(hw_system, cooling, "air or liquid (empty: air)"),
	INT_NEW(hw_system, domain_gpus, 0, 100000, "GPUs in one NVLink domain, a multiple of gpus_per_node (empty: the node's)"),
	INT_NEW(hw_system, unit_nodes, 1, 10000, "nodes per purchase unit 1-10000 (empty: 1)"),
	TEXT_NEW(hw_system, provider, "a cloud provider name (AWS, Azure, Google Cloud...)"),
	NUM_NEW(hw_system, rent_usd_gpu_h, 0.01, 1000, "US dollars per GPU-hour on demand, e.g. 3.93"),
	NUM_NEW(hw_system, rent_1y_usd_gpu_h, 0.01, 1000, "US dollars per GPU-hour with a 1-year commitment"),
	NUM_NEW(hw_system, rent_3y_usd_gpu_h, 0.01, 1000, "US dollars per GPU-hour with a 3-year commitment"),
	DATE_NEW(hw_system, rent_date),
	TEXT_NEW(hw_system, rent_source, "where the rental rates come from (price page, date)"),
	TEXT_NEW(hw_system, rent_kind, "list, quote, press or estimate"),
	NUM_NEW(hw_system, rent_market_usd_gpu_h, 0.01, 1000, "US dollars per GPU-hour, the market's low end"),
	DATE_NEW(hw_system, rent_market_date),
	TEXT_NEW(hw_system, rent_market_source, "where the market rate comes from (publication, date)"),
	NUM_NEW(hw_system, rent_spot_usd_gpu_h, 0.01, 1000, "US dollars per GPU-hour on spot"),
	INT_NEW(hw_system, rent_unit_gpus, 0, 100000, "the fewest GPUs rented at once (empty: one instance)"),
	INT_NEW(hw_system, rent_max_gpus, 0, 1000000, "the most GPUs the rates cover (empty: no limit)"),
	NUM_NEW(hw_system, rent_increment_s, 1, 1e8, "seconds, the billing increment (1 per second, 60 per minute)"),
	NUM_NEW(hw_system, rent_min_s, 1, 1e9, "seconds, the least time billed"),
	NUM_NEW(hw_system, rent_cluster_usd_gpu_h, 0.01, 1000, "US dollars per GPU-hour above rent_max_gpus"),
	NUM_NEW(hw_system, rent_cluster_increment_s, 1, 1e9, "seconds, the cluster product's billing increment"),
	TEXT_NEW(hw_system, status, "current or eol (end of life)"),
	DATE_NEW(hw_system, status_date),
	TEXT_NEW(hw_system, status_source, "where the end of life is announced (publication, date)"),
	SOURCE(hw_system),
};

static const hw_col stack_cols[] = {
	ID(hw_stack),
	ALIASES(hw_stack),
	TEXT(hw_stack, framework, true, "a framework name"),
	ENUM_NEW(hw_stack, "data_path", data_path, "a data path", hw_data_path_names),
	ENUM_NEW(hw_stack, "staging", staging, "a staging mode", hw_staging_names),
	INT(hw_stack, threads_per_gpu, true, 0, 64, "CPU threads kept per GPU 0-64"),
	INT(hw_stack, decode_threads, true, 0, 4096, "decode threads per node (0 = cores - threads_per_gpu x GPUs)"),
	NUM_NEW(hw_stack, decode_img_s_core, 1, 1e5, "images/s decoded per CPU core, e.g. 350"),
	NUM_NEW(hw_stack, grad_B, 1, 4, "bytes per gradient element 1-4 (fp16 2, fp32 4)"),
	NUM_NEW(hw_stack, bucket_B, 1024, 1e10, "bytes, e.g. 67108864 for 64 MiB"),
	NUM_NEW(hw_stack, comm_hidden_frac, 0, 1, "a fraction 0-1"),
	NUM_NEW(hw_stack, step_overhead_s, 0, 1, "seconds per step, e.g. 0.002"),
	NUM_NEW(hw_stack, compute_eff, 0.01, 2, "a speed relative to MLPerf-grade software, 0.01-2 (e.g. 0.6)"),
	NUM_NEW(hw_stack, compute_eff_fp32, 0.01, 2, "a speed relative to MLPerf-grade software, 0.01-2 (e.g. 0.6)"),
	NUM_NEW(hw_stack, gpu_decode_img_s, 1, 1e7, "images/s of the GPU's JPEG decode term on a rank's path (1/it an image on top of the step), e.g. 320000"),
	ENUM_NEW(hw_stack, "likeness", likeness_k, "a likeness class", hw_likeness_names),
	SOURCE(hw_stack),
};

static const hw_col stack_eff_cols[] = {
	ID(hw_stack_eff),
	ALIASES(hw_stack_eff),
	REF(hw_stack_eff, "stack", stack_id, true, HW_STACK),
	REF(hw_stack_eff, "gpu", gpu_id, true, HW_GPU),
	{"precision", HW_C_ENUM, true, OFF(hw_stack_eff, prec), 0, 0, "a precision class (lowp or fp32)",
	 hw_prec_class_names, 0, false},
	NUM(hw_stack_eff, compute_eff, true, 0.01, 2, "a speed relative to MLPerf-grade software, 0.01-2 (e.g. 0.6)"),
	TEXT_NEW(hw_stack_eff, version, "the container or framework version of the runs"),
	SOURCE(hw_stack_eff),
};

#define KIND(nm, sing, type, arr, n, cols) \
	{nm, sing, sizeof(type), offsetof(hw_db, arr), offsetof(hw_db, n), cols, (int)(sizeof cols / sizeof cols[0])}

const hw_kind_desc hw_kinds[HW_NKINDS] = {
	[HW_GPU] = KIND("gpus", "gpu", hw_gpu, gpus, ngpus, gpu_cols),
	[HW_CPU] = KIND("cpus", "cpu", hw_cpu, cpus, ncpus, cpu_cols),
	[HW_LINK] = KIND("links", "link", hw_link, links, nlinks, link_cols),
	[HW_FABRIC] = KIND("fabrics", "fabric", hw_fabric, fabrics, nfabrics, fabric_cols),
	[HW_STORAGE] = KIND("storage", "storage", hw_storage, storage, nstorage, storage_cols),
	[HW_SYSTEM] = KIND("systems", "system", hw_system, systems, nsystems, system_cols),
	[HW_STACK] = KIND("stacks", "stack", hw_stack, stacks, nstacks, stack_cols),
	[HW_ARCH] = KIND("archs", "arch", hw_arch, archs, narchs, arch_cols),
	[HW_STACK_EFF] = KIND("stack_effs", "stack_eff", hw_stack_eff, stack_effs, nstack_effs, stack_eff_cols),
};

/* ---- generic item access ---- */

/* The item arrays are typed pointers (hw_gpu *, ...) in hw_db: read and write them with memcpy, never
 * through a char ** lvalue, which strict aliasing would let the compiler reorder. */
static char *arr_get(const hw_db *db, hw_kind kind)
{
	char *p;
	memcpy(&p, (const char *)db + hw_kinds[kind].arr_off, sizeof p);
	return p;
}

static void arr_set(hw_db *db, hw_kind kind, void *p)
{
	memcpy((char *)db + hw_kinds[kind].arr_off, &p, sizeof p);
}

static int *count_slot(const hw_db *db, hw_kind kind)
{
	return (int *)((char *)db + hw_kinds[kind].n_off);
}

void *hw_item(const hw_db *db, hw_kind kind, int i)
{
	return arr_get(db, kind) + (size_t)i * hw_kinds[kind].size;
}

int hw_count(const hw_db *db, hw_kind kind)
{
	return *count_slot(db, kind);
}

static char **str_field(void *item, const hw_col *c)
{
	return (char **)((char *)item + c->off);
}

static bool is_str_col(const hw_col *c)
{
	return c->type == HW_C_ID || c->type == HW_C_TEXT || c->type == HW_C_DATE || c->type == HW_C_REF;
}

static void item_free(hw_kind kind, void *item)
{
	const hw_kind_desc *k = &hw_kinds[kind];
	for (int c = 0; c < k->ncols; c++)
		if (is_str_col(&k->cols[c])) {
			free(*str_field(item, &k->cols[c]));
			*str_field(item, &k->cols[c]) = NULL;
		}
}

static void item_dup(hw_kind kind, void *dst, const void *src)
{
	const hw_kind_desc *k = &hw_kinds[kind];
	memcpy(dst, src, k->size);
	for (int c = 0; c < k->ncols; c++)
		if (is_str_col(&k->cols[c])) {
			char *s = *str_field((void *)src, &k->cols[c]);
			*str_field(dst, &k->cols[c]) = xstrdup(s ? s : "");
		}
}

static void item_append(hw_db *db, hw_kind kind, const void *item)
{
	int *n = count_slot(db, kind);
	size_t sz = hw_kinds[kind].size;
	char *arr = xrealloc(arr_get(db, kind), (size_t)(*n + 1) * sz);
	memcpy(arr + (size_t)*n * sz, item, sz);
	arr_set(db, kind, arr);
	(*n)++;
}

void hw_db_free(hw_db *db)
{
	if (!db)
		return;
	for (int k = 0; k < HW_NKINDS; k++) {
		for (int i = 0; i < hw_count(db, k); i++)
			item_free(k, hw_item(db, k, i));
		free(arr_get(db, k));
	}
	memset(db, 0, sizeof *db);
}

static void db_copy(hw_db *dst, const hw_db *src)
{
	memset(dst, 0, sizeof *dst);
	for (int k = 0; k < HW_NKINDS; k++) {
		int n = hw_count(src, k);
		size_t sz = hw_kinds[k].size;
		char *arr = n ? xmalloc((size_t)n * sz) : NULL;
		for (int i = 0; i < n; i++)
			item_dup(k, arr + (size_t)i * sz, hw_item(src, k, i));
		arr_set(dst, k, arr);
		*count_slot(dst, k) = n;
	}
}

/* ---- lookups ---- */

/* True when `name` equals one of the ;-separated aliases (surrounding blanks ignored). */
static bool alias_match(const char *aliases, const char *name)
{
	size_t nl = strlen(name);
	const char *p = aliases;
	while (p && *p) {
		const char *end = strchr(p, ';');
		const char *e = end ? end : p + strlen(p);
		while (p < e && isspace((unsigned char)*p))
			p++;
		const char *q = e;
		while (q > p && isspace((unsigned char)q[-1]))
			q--;
		if ((size_t)(q - p) == nl && nl && strncasecmp(p, name, nl) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

static int find_index(const hw_db *db, hw_kind kind, const char *id, bool aliases)
{
	if (!id || !*id)
		return -1;
	int n = hw_count(db, kind);
	for (int i = 0; i < n; i++) {
		char **s = hw_item(db, kind, i);  /* every item starts with char *id, *aliases */
		if (strcasecmp(s[0], id) == 0)
			return i;
	}
	if (aliases)
		for (int i = 0; i < n; i++) {
			char **s = hw_item(db, kind, i);
			if (alias_match(s[1], id))
				return i;
		}
	return -1;
}

const void *hw_find(const hw_db *db, hw_kind kind, const char *id)
{
	int i = find_index(db, kind, id, true);
	return i < 0 ? NULL : hw_item(db, kind, i);
}

const hw_gpu *hw_gpu_find(const hw_db *db, const char *id) { return hw_find(db, HW_GPU, id); }
const hw_cpu *hw_cpu_find(const hw_db *db, const char *id) { return hw_find(db, HW_CPU, id); }
const hw_link *hw_link_find(const hw_db *db, const char *id) { return hw_find(db, HW_LINK, id); }
const hw_fabric *hw_fabric_find(const hw_db *db, const char *id) { return hw_find(db, HW_FABRIC, id); }
const hw_storage *hw_storage_find(const hw_db *db, const char *id) { return hw_find(db, HW_STORAGE, id); }
const hw_system *hw_system_find(const hw_db *db, const char *id) { return hw_find(db, HW_SYSTEM, id); }
const hw_stack *hw_stack_find(const hw_db *db, const char *id) { return hw_find(db, HW_STACK, id); }
const hw_arch *hw_arch_find(const hw_db *db, const char *id) { return hw_find(db, HW_ARCH, id); }

const char *hw_gpu_generation(const hw_gpu *g)
{
	if (!g)
		return NULL;
	if (g->arch_info && g->arch_info->generation && *g->arch_info->generation)
		return g->arch_info->generation;
	return g->arch && *g->arch ? g->arch : NULL;
}

char *hw_suggest(const hw_db *db, hw_kind kind, const char *id, char *buf, size_t len_B)
{
	enum { NBEST = 3 };
	const char *best[NBEST] = {0};
	int bestd[NBEST];
	/* farther than this is noise, not a typo: at most one edit in two characters ('nosuch' is 5 edits from
	 * aws-p5: nothing near; 'dgxb300' 1 from dgxb200) */
	int lim = ((int)strlen(id) + 1) / 2;
	for (int k = 0; k < HW_NKINDS; k++) {
		if (kind != HW_NKINDS && (int)kind != k)
			continue;
		for (int i = 0; i < hw_count(db, k); i++) {
			const char *cand = *(char **)hw_item(db, k, i);
			int d = str_edit_distance(id, cand);
			/* a prefix or substring ("h100" in "H100-SXM5-80GB") is as good as a near typo */
			if (strlen(id) >= 3 && strcasestr(cand, id))
				d = d < 2 ? d : 2;
			if (d > lim)
				continue;
			for (int j = 0; j < NBEST; j++)
				if (!best[j] || d < bestd[j]) {
					for (int m = NBEST - 1; m > j; m--) {
						best[m] = best[m - 1];
						bestd[m] = bestd[m - 1];
					}
					best[j] = cand;
					bestd[j] = d;
					break;
				}
		}
	}
	if (len_B)
		buf[0] = '\0';
	if (!best[0] || !len_B)
		return buf;
	size_t used = (size_t)snprintf(buf, len_B, "did you mean %s", best[0]);
	for (int j = 1; j < NBEST && best[j] && used < len_B; j++)
		used += (size_t)snprintf(buf + used, len_B - used, "%s%s", j == NBEST - 1 || !best[j + 1] ? " or " : ", ", best[j]);
	if (used < len_B)
		snprintf(buf + used, len_B - used, "?");
	return buf;
}

/* ---- names ---- */

const char *hw_kind_name(hw_kind kind)
{
	return kind < HW_NKINDS ? hw_kinds[kind].name : "?";
}

const char *hw_kind_singular(hw_kind kind)
{
	return kind < HW_NKINDS ? hw_kinds[kind].singular : "id";
}

int hw_kind_parse(const char *s)
{
	for (int k = 0; k < HW_NKINDS; k++)
		if (strcasecmp(s, hw_kinds[k].name) == 0 || strcasecmp(s, hw_kinds[k].singular) == 0)
			return k;
	return -1;
}

const char *hw_topo_name(hw_topo topo)
{
	return (unsigned)topo < sizeof hw_topo_names / sizeof hw_topo_names[0] - 1 ? hw_topo_names[topo] : "?";
}

const char *hw_link_kind_name(hw_link_kind kind)
{
	return (unsigned)kind < sizeof hw_link_kind_names / sizeof hw_link_kind_names[0] - 1 ? hw_link_kind_names[kind] : "?";
}

const char *hw_data_path_name(hw_data_path d)
{
	return (unsigned)d < 2 ? hw_data_path_names[d] : "?";
}

const char *hw_staging_name(hw_staging st)
{
	return (unsigned)st < 2 ? hw_staging_names[st] : "?";
}

bool hw_known(double v)
{
	return !isnan(v);
}

double hw_gpu_peak_flops(const hw_gpu *gpu, const char *precision)
{
	if (strcasecmp(precision, "fp32") == 0)
		return gpu->fp32_flops;
	if (strcasecmp(precision, "tf32") == 0)
		return hw_known(gpu->tf32_flops) ? gpu->tf32_flops : gpu->fp32_flops;
	if (strcasecmp(precision, "fp16") == 0)
		return hw_known(gpu->fp16_flops) ? gpu->fp16_flops : gpu->fp32_flops;
	if (strcasecmp(precision, "bf16") == 0)
		return hw_known(gpu->bf16_flops) ? gpu->bf16_flops
		       : hw_known(gpu->fp16_flops) ? gpu->fp16_flops : gpu->fp32_flops;
	return NAN;
}

/* ---- loading ---- */

/* State of one load: where problems go and how many there were. */
typedef struct hw_load {
	FILE *errs;
	int nerr;
	char first[1024];
} hw_load;

static void report(hw_load *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(hw_load *ld, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (ld->nerr++ == 0)
		snprintf(ld->first, sizeof ld->first, "%s", msg);
	if (ld->errs)
		fprintf(ld->errs, "%s\n", msg);
}

/* Reports a problem in one cell: "file:line:col(name): ...". */
static void report_cell(hw_load *ld, const csv_table *t, int row, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void report_cell(hw_load *ld, const csv_table *t, int row, int col, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (col < 0)  /* an omitted (optional) column */
		report(ld, "%s:%d: %s", t->name, t->line[row], msg);
	else
		report(ld, "%s:%d:%d(%s): %s", t->name, t->line[row], col + 1, t->header[col], msg);
}

/* Quotes a cell for a message, cut at 40 characters and with control characters replaced. */
static const char *cellq(const char *s, char *buf, size_t len_B)
{
	size_t j = 0;
	for (size_t i = 0; s[i] && j + 4 < len_B && i < 40; i++)
		buf[j++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (strlen(s) > 40 && j + 4 < len_B) {
		memcpy(buf + j, "...", 3);
		j += 3;
	}
	buf[j] = '\0';
	return buf;
}

static bool is_blank(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

static bool valid_date(const char *s)
{
	size_t n = strlen(s);
	if (n != 4 && n != 7 && n != 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool dash = i == 4 || i == 7;
		if (dash ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return false;
	}
	if (n >= 7 && (atoi(s + 5) < 1 || atoi(s + 5) > 12))
		return false;
	if (n == 10 && (atoi(s + 8) < 1 || atoi(s + 8) > 31))
		return false;
	return true;
}

/* A hint when a number is off by a unit prefix: 16 for mem_B probably means 16 GB. */
static const char *unit_hint(const hw_col *c, double v, char *buf, size_t len_B)
{
	static const struct { double f; const char *p; } pre[] = {{1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}, {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
	buf[0] = '\0';
	if (v <= 0)
		return buf;
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (v * pre[i].f >= c->min && v * pre[i].f <= c->max) {
			snprintf(buf, len_B, " (a %s-prefixed value? this column wants plain SI units: %.6g x %g = %.6g)",
				 pre[i].p, v, pre[i].f, v * pre[i].f);
			break;
		}
	return buf;
}

/* Parses one row into a zeroed item. Returns the number of problems reported. */
/* An id, reference or text cell (ids and references: letters, digits, inner spaces and - _ . + ( )), or a
 * date, into its string field; a bad cell is reported and left out. */
static void parse_text_cell(hw_load *ld, const csv_table *t, int row, int tc, const hw_col *sc, const char *cell,
			    bool blank, void *item)
{
	char q[64];
	if ((sc->type == HW_C_ID || sc->type == HW_C_REF) && !blank) {
		bool ok = !isspace((unsigned char)cell[0]) && !isspace((unsigned char)cell[strlen(cell) - 1]);
		for (const char *p = cell; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("-_.+() ", *p))
				ok = false;
		if (!ok) {
			report_cell(ld, t, row, tc, "'%s' is not an id; expected letters, digits, inner spaces and - _ . + ( )",
				    cellq(cell, q, sizeof q));
			return;
		}
	}
	if (sc->type == HW_C_DATE && !blank && !valid_date(cell)) {
		report_cell(ld, t, row, tc, "'%s' is not %s", cellq(cell, q, sizeof q), sc->unit);
		return;
	}
	*str_field(item, sc) = xstrdup(cell);
}

/* A number or whole number cell: finite, not negative, within the column's plausible range (a unit hint
 * when the value looks like another unit); blank: NAN (numbers) or 0 (counts). A bad cell is reported and
 * left out. */
static void parse_num_cell(hw_load *ld, const csv_table *t, int row, int tc, const hw_col *sc, const char *cell,
			   bool blank, void *item)
{
	char q[64], hint[160];
	double v = sc->type == HW_C_NUM ? NAN : 0;
	if (!blank) {
		char *end;
		errno = 0;
		v = strtod(cell, &end);
		while (*end && isspace((unsigned char)*end))
			end++;
		if (end == cell || *end || errno == ERANGE || !isfinite(v)) {
			report_cell(ld, t, row, tc, "'%s' is not a number; expected %s", cellq(cell, q, sizeof q), sc->unit);
			return;
		}
		if (sc->type == HW_C_INT && v != floor(v)) {
			report_cell(ld, t, row, tc, "'%s' is not a whole number; expected %s", cellq(cell, q, sizeof q), sc->unit);
			return;
		}
		if (v < 0) {
			report_cell(ld, t, row, tc, "%g is negative; expected %s", v, sc->unit);
			return;
		}
		if (v < sc->min || v > sc->max) {
			report_cell(ld, t, row, tc, "%g is out of the plausible range [%g, %g]; expected %s%s", v, sc->min,
				    sc->max, sc->unit, unit_hint(sc, v, hint, sizeof hint));
			return;
		}
	}
	if (sc->type == HW_C_NUM)
		*(double *)((char *)item + sc->off) = v;
	else
		*(int *)((char *)item + sc->off) = (int)v;
}

/* Appends "a, b, c": the names a cell may take, for its error message. */
static const char *names_list(strbuf *b, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		strbuf_addf(b, "%s%s", i ? ", " : "", names[i]);
	return b->s;
}

/* An enumeration cell: one of the column's names (any case); blank: the first name, the default. A bad cell
 * is reported with the names it may take and left out. */
static void parse_enum_cell(hw_load *ld, const csv_table *t, int row, int tc, const hw_col *sc, const char *cell,
			    bool blank, void *item)
{
	char q[64];
	int e = -1;
	if (blank) {
		*(int *)((char *)item + sc->off) = 0;
		return;
	}
	for (int i = 0; sc->names[i]; i++)
		if (strcasecmp(cell, sc->names[i]) == 0)
			e = i;
	if (e < 0) {
		strbuf list;
		strbuf_init(&list);
		report_cell(ld, t, row, tc, "'%s' is not %s; expected one of %s", cellq(cell, q, sizeof q), sc->unit,
			    names_list(&list, sc->names));
		strbuf_free(&list);
		return;
	}
	*(int *)((char *)item + sc->off) = e;
}

static int parse_row(hw_load *ld, hw_kind kind, const csv_table *t, int row, const int *colmap, bool patch, void *item)
{
	const hw_kind_desc *k = &hw_kinds[kind];
	int before = ld->nerr;
	for (int c = 0; c < k->ncols; c++) {
		const hw_col *sc = &k->cols[c];
		int tc = colmap[c];
		const char *cell = tc >= 0 ? t->cells[row][tc] : "";
		bool blank = is_blank(cell);
		/* a price table gives some columns: the others read as empty and are not copied */
		if (blank && sc->required && !(patch && tc < 0)) {
			report_cell(ld, t, row, tc, "empty; expected %s", sc->unit);
			continue;
		}
		switch (sc->type) {
		case HW_C_ID:
		case HW_C_TEXT:
		case HW_C_REF:
		case HW_C_DATE:
			parse_text_cell(ld, t, row, tc, sc, cell, blank, item);
			break;
		case HW_C_NUM:
		case HW_C_INT:
			parse_num_cell(ld, t, row, tc, sc, cell, blank, item);
			break;
		case HW_C_ENUM:
			parse_enum_cell(ld, t, row, tc, sc, cell, blank, item);
			break;
		}
	}
	/* string fields never stay NULL, so printing and copying need no checks */
	for (int c = 0; c < k->ncols; c++)
		if (is_str_col(&k->cols[c]) && !*str_field(item, &k->cols[c]))
			*str_field(item, &k->cols[c]) = xstrdup("");
	return ld->nerr - before;
}

/* The kinds of price a system may carry (systems.csv price_kind). */
static const char *const price_kinds[] = {"list", "quote", "press", "estimate", NULL};

/* The kinds of power figure (systems.csv power_kind). */
static const char *const power_kinds[] = {"measured", "datasheet", "estimate", NULL};
/* How a system is cooled (systems.csv cooling). */
static const char *const coolings[] = {"air", "liquid", NULL};

/* A kind cell (empty or one of names); reports another word at its cell. */
static void check_kind(hw_load *ld, const csv_table *t, int row, const char *col, const char *v,
		       const char *const *names)
{
	char q[64];
	if (!*v)
		return;
	for (int i = 0; names[i]; i++)
		if (strcasecmp(v, names[i]) == 0)
			return;
	strbuf list;
	strbuf_init(&list);
	report_cell(ld, t, row, csv_table_col(t, col), "'%s' is not a %s; expected %s", cellq(v, q, sizeof q), col,
		    names_list(&list, names));
	strbuf_free(&list);
}

/* The word cells of a row whose other cells did not parse (its checks of the whole row cannot run): each
 * word that is none of its column's named at its cell, so that one pass names every bad cell of the row. */
static void check_kind_cells(hw_load *ld, hw_kind kind, const csv_table *t, int row)
{
	static const struct {
		hw_kind kind;
		const char *col;
		const char *const *names;
	} words[] = {
		{HW_SYSTEM, "price_kind", price_kinds}, {HW_SYSTEM, "rent_kind", price_kinds},
		{HW_SYSTEM, "power_kind", power_kinds}, {HW_SYSTEM, "cooling", coolings},
		{HW_FABRIC, "price_kind", price_kinds}, {HW_STORAGE, "price_kind", price_kinds},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		int c = words[i].kind == kind ? csv_table_col(t, words[i].col) : -1;
		if (c >= 0 && !is_blank(t->cells[row][c]))
			check_kind(ld, t, row, words[i].col, t->cells[row][c], words[i].names);
	}
}

/* A price's range: low <= price <= high where given (a low above its high is refused at the low's cell). */
static void check_range(hw_load *ld, const csv_table *t, int row, const char *lo_col, const char *hi_col, double lo,
			double v, double hi)
{
	if (hw_known(lo) && hw_known(hi) && lo > hi)
		report_cell(ld, t, row, csv_table_col(t, lo_col), "%g is above the high end %g; expected low <= high", lo, hi);
	else if (hw_known(lo) && hw_known(v) && lo > v)
		report_cell(ld, t, row, csv_table_col(t, lo_col), "%g is above the price %g; expected low <= price", lo, v);
	else if (hw_known(hi) && hw_known(v) && hi < v)
		report_cell(ld, t, row, csv_table_col(t, hi_col), "%g is below the price %g; expected price <= high", hi, v);
	else if ((hw_known(lo) || hw_known(hi)) && !hw_known(v))
		report_cell(ld, t, row, csv_table_col(t, lo_col), "a price range needs the price itself");
}

/* A fabric's or store's prices need their kind and source. */
static void check_part_price(hw_load *ld, const csv_table *t, int row, bool priced, const char *kind, const char *src)
{
	check_kind(ld, t, row, "price_kind", kind, price_kinds);
	if (priced && !*kind)
		report_cell(ld, t, row, csv_table_col(t, "price_kind"), "empty; a price needs price_kind (list, quote, press "
			    "or estimate)");
	if (priced && is_blank(src))
		report_cell(ld, t, row, csv_table_col(t, "price_source"), "empty; a price needs price_source");
}

/* A price needs its kind and its source; a rental rate its date and source (every figure cites one). */
static void check_price(hw_load *ld, const csv_table *t, int row, const hw_system *s)
{
	char q[64];
	bool kind_ok = false;
	for (int i = 0; price_kinds[i]; i++)
		kind_ok |= strcasecmp(s->price_kind, price_kinds[i]) == 0;
	if (*s->price_kind && !kind_ok)
		report_cell(ld, t, row, csv_table_col(t, "price_kind"), "'%s' is not a price kind; expected list, quote, press or estimate",
			    cellq(s->price_kind, q, sizeof q));
	else if (hw_known(s->price_usd) && !*s->price_kind)
		report_cell(ld, t, row, csv_table_col(t, "price_kind"), "empty; price_usd %.0f needs price_kind (list, quote, press or estimate)",
			    s->price_usd);
	else if (!hw_known(s->price_usd) && *s->price_kind)
		report_cell(ld, t, row, csv_table_col(t, "price_usd"), "empty; price_kind '%s' is given without a price", s->price_kind);
	if (hw_known(s->price_usd) && is_blank(s->price_source))
		report_cell(ld, t, row, csv_table_col(t, "price_source"), "empty; price_usd %.0f needs price_source (where the price comes from)",
			    s->price_usd);
	check_range(ld, t, row, "price_lo_usd", "price_hi_usd", s->price_lo_usd, s->price_usd, s->price_hi_usd);
	check_kind(ld, t, row, "rent_kind", s->rent_kind, price_kinds);
	check_kind(ld, t, row, "power_kind", s->power_kind, power_kinds);
	check_kind(ld, t, row, "cooling", s->cooling, coolings);
	if (hw_known(s->power_W) && *s->power_kind && is_blank(s->power_source))
		report_cell(ld, t, row, csv_table_col(t, "power_source"), "empty; power_kind '%s' needs power_source (where "
			    "power_W comes from)", s->power_kind);
	bool rent = hw_known(s->rent_usd_gpu_h) || hw_known(s->rent_1y_usd_gpu_h) || hw_known(s->rent_3y_usd_gpu_h) ||
		    hw_known(s->rent_spot_usd_gpu_h);
	if (rent && !*s->rent_date)
		report_cell(ld, t, row, csv_table_col(t, "rent_date"), "empty; a rental rate needs rent_date (a date YYYY-MM or YYYY-MM-DD)");
	if (rent && is_blank(s->rent_source))
		report_cell(ld, t, row, csv_table_col(t, "rent_source"), "empty; a rental rate needs rent_source (where the rate is published)");
	if (hw_known(s->rent_market_usd_gpu_h) && (!*s->rent_market_date || is_blank(s->rent_market_source)))
		report_cell(ld, t, row, csv_table_col(t, "rent_market_usd_gpu_h"), "a market rate needs rent_market_date "
			    "and rent_market_source");
	if (hw_known(s->rent_market_usd_gpu_h) && hw_known(s->rent_usd_gpu_h) && s->rent_market_usd_gpu_h > s->rent_usd_gpu_h)
		report_cell(ld, t, row, csv_table_col(t, "rent_market_usd_gpu_h"), "%g is above the on-demand rate %g (the "
			    "market rate is the range's low end)", s->rent_market_usd_gpu_h, s->rent_usd_gpu_h);
}

/* A system is current (empty: current) or end of life, and an end of life names its date and source. */
static void check_status(hw_load *ld, const csv_table *t, int row, const hw_system *s)
{
	char q[64];
	if (*s->status && strcmp(s->status, "current") && strcmp(s->status, "eol"))
		report_cell(ld, t, row, csv_table_col(t, "status"), "'%s' is not a status; expected current or eol",
			    cellq(s->status, q, sizeof q));
	else if (strcmp(s->status, "eol") == 0 && (!*s->status_date || is_blank(s->status_source)))
		report_cell(ld, t, row, csv_table_col(t, *s->status_date ? "status_source" : "status_date"),
			    "empty; status eol needs status_date (YYYY-MM) and status_source (where it is announced)");
}

/* Checks that relate several cells of one row. */
static void check_row(hw_load *ld, hw_kind kind, const csv_table *t, int row, const void *item)
{
	int col;
	if (kind == HW_CPU) {
		const hw_cpu *c = item;
		if (hw_known(c->turbo_hz) && hw_known(c->base_hz) && c->turbo_hz < c->base_hz) {
			col = csv_table_col(t, "turbo_hz");
			report_cell(ld, t, row, col, "turbo %g Hz is below base %g Hz", c->turbo_hz, c->base_hz);
		}
		if (c->threads && c->threads < c->cores)
			report_cell(ld, t, row, csv_table_col(t, "threads"), "%d threads is fewer than %d cores", c->threads, c->cores);
	} else if (kind == HW_GPU) {
		const hw_gpu *g = item;
		if (hw_known(g->fp16_flops) && g->fp16_flops < g->fp32_flops)
			report_cell(ld, t, row, csv_table_col(t, "fp16_flops"), "FP16 peak %g is below FP32 peak %g", g->fp16_flops, g->fp32_flops);
		if ((g->nvlink_gen == 0) != (g->nvlinks == 0))
			report_cell(ld, t, row, csv_table_col(t, "nvlinks"), "nvlinks %d does not match nvlink_gen %d (both 0 or both set)",
				    g->nvlinks, g->nvlink_gen);
	} else if (kind == HW_SYSTEM) {
		const hw_system *s = item;
		if ((s->gpus_per_node == 1) != (s->intra == HW_TOPO_SINGLE))
			report_cell(ld, t, row, csv_table_col(t, "intra_topology"),
				    "'%s' does not fit gpus_per_node %d ('single' exactly when 1 GPU)", hw_topo_name(s->intra),
				    s->gpus_per_node);
		else if (s->intra != HW_TOPO_SINGLE && (!*s->intra_link_id || !hw_known(s->intra_bw_Bps)))
			report_cell(ld, t, row, csv_table_col(t, *s->intra_link_id ? "intra_bw_Bps" : "intra_link"),
				    "empty; a node with %d GPUs needs intra_link and intra_bw_Bps", s->gpus_per_node);
		if (*s->nic_id && s->nics_per_node < 1)
			report_cell(ld, t, row, csv_table_col(t, "nics_per_node"), "must be >= 1 when nic is given");
		if (*s->fabric_id && !*s->nic_id)
			report_cell(ld, t, row, csv_table_col(t, "nic"), "empty; a system with a fabric needs nic and nics_per_node");
		if ((s->local_drives > 0) != hw_known(s->local_drive_Bps))
			report_cell(ld, t, row, csv_table_col(t, s->local_drives > 0 ? "local_drive_Bps" : "local_drives"),
				    "local_drives %d and local_drive_Bps %g: give both or neither", s->local_drives,
				    s->local_drive_Bps);
		if (s->domain_gpus && (s->domain_gpus < s->gpus_per_node || s->domain_gpus % s->gpus_per_node))
			report_cell(ld, t, row, csv_table_col(t, "domain_gpus"),
				    "%d is not a multiple of gpus_per_node %d; expected the GPUs of whole nodes (NVL72: 72 = 18 x 4)",
				    s->domain_gpus, s->gpus_per_node);
		check_price(ld, t, row, s);
		check_status(ld, t, row, s);
	} else if (kind == HW_FABRIC) {
		const hw_fabric *f = item;
		bool priced = hw_known(f->switch_usd) || hw_known(f->link_usd) || hw_known(f->nic_usd);
		check_part_price(ld, t, row, priced, f->price_kind, f->price_source);
		if (hw_known(f->switch_usd) && f->switch_ports < 2)
			report_cell(ld, t, row, csv_table_col(t, "switch_ports"), "empty; switch_usd needs switch_ports (>= 2)");
	} else if (kind == HW_STORAGE) {
		const hw_storage *st = item;
		check_part_price(ld, t, row, hw_known(st->price_usd), st->price_kind, st->price_source);
		if (hw_known(st->price_usd) && !hw_known(st->unit_B))
			report_cell(ld, t, row, csv_table_col(t, "unit_B"), "empty; price_usd needs unit_B (usable bytes of one unit)");
	}
}

/* Column groups a price table replaces whole: a new price brings its own kind, date and source. */
static const char *price_group(const char *col)
{
	if (strncmp(col, "price_", 6) == 0)
		return "price_";
	if (strncmp(col, "rent_", 5) == 0)
		return "rent_";
	return NULL;
}

/* A systems.csv of id and price/rent columns only (a user's own quote or rate): it changes the price
 * of systems that exist, nothing else. */
static bool is_price_table(hw_kind kind, const csv_table *t)
{
	if (kind != HW_SYSTEM || csv_table_col(t, "id") < 0)
		return false;
	for (int tc = 0; tc < t->ncols; tc++)
		if (strcmp(t->header[tc], "id") != 0 && !price_group(t->header[tc]))
			return false;
	return true;
}

/* Maps schema columns to table columns; reports unknown and missing columns (none for a price
 * table, which gives only some). -1 when unusable. */
static int map_header(hw_load *ld, hw_kind kind, const csv_table *t, int hdr, int *colmap)
{
	const hw_kind_desc *k = &hw_kinds[kind];
	bool patch = is_price_table(kind, t);
	int bad = 0;
	char q[64];
	for (int tc = 0; tc < t->ncols; tc++) {
		int found = -1;
		for (int c = 0; c < k->ncols; c++)
			if (strcmp(t->header[tc], k->cols[c].name) == 0)
				found = c;
		if (found < 0) {
			int bestd = 1 << 30;
			const char *best = NULL;
			for (int c = 0; c < k->ncols; c++) {
				int d = str_edit_distance(t->header[tc], k->cols[c].name);
				if (d < bestd) {
					bestd = d;
					best = k->cols[c].name;
				}
			}
			report(ld, "%s:%d:%d: unknown column '%s' in %s.csv%s%s%s", t->name, hdr, tc + 1,
			       cellq(t->header[tc], q, sizeof q), k->name, bestd <= 4 ? "; did you mean '" : "",
			       bestd <= 4 ? best : "", bestd <= 4 ? "'?" : "");
			bad++;
		}
	}
	for (int c = 0; c < k->ncols; c++) {
		colmap[c] = csv_table_col(t, k->cols[c].name);
		if (colmap[c] < 0 && !k->cols[c].omittable && !patch) {
			report(ld, "%s:%d: missing column '%s' (%s)", t->name, hdr, k->cols[c].name, k->cols[c].unit);
			bad++;
		}
	}
	return bad ? -1 : 0;
}

/* One parsed table waiting to be merged. */
typedef struct hw_staged {
	const csv_table *t;
	int *colmap;      /* [ncols of schema] */
	char *items;      /* [nitems] items */
	int *rows;        /* [nitems] table row of each item */
	int nitems;
	bool patch;       /* a price table: rows change price/rent cells of systems that exist */
} hw_staged;

static void staged_free(hw_kind kind, hw_staged *s)
{
	for (int i = 0; i < s->nitems; i++)
		item_free(kind, s->items + (size_t)i * hw_kinds[kind].size);
	free(s->items);
	free(s->rows);
	free(s->colmap);
	memset(s, 0, sizeof *s);
}

/* Phase 1 for one table: header, cells, duplicates inside the table. */
static void stage_table(hw_load *ld, hw_kind kind, const csv_table *t, int hdr, hw_staged *s)
{
	const hw_kind_desc *k = &hw_kinds[kind];
	s->t = t;
	s->colmap = xmalloc((size_t)k->ncols * sizeof *s->colmap);
	if (map_header(ld, kind, t, hdr, s->colmap) < 0)
		return;
	s->patch = is_price_table(kind, t);
	s->items = xcalloc((size_t)t->nrows + 1, k->size);
	s->rows = xcalloc((size_t)t->nrows + 1, sizeof *s->rows);
	int idcol = s->colmap[0];
	for (int r = 0; r < t->nrows; r++) {
		void *item = s->items + (size_t)s->nitems * k->size;
		memset(item, 0, k->size);
		int bad = parse_row(ld, kind, t, r, s->colmap, s->patch, item);
		if (kind == HW_SYSTEM && ((hw_system *)item)->unit_nodes == 0)
			((hw_system *)item)->unit_nodes = 1;  /* empty: one node is the unit */
		if (!bad && !s->patch) {  /* a price table's rows are checked merged into their system */
			int before = ld->nerr;
			check_row(ld, kind, t, r, item);
			bad = ld->nerr - before;
		} else if (bad) {
			check_kind_cells(ld, kind, t, r);
		}
		const char *id = t->cells[r][idcol];
		for (int j = 0; j < s->nitems && !is_blank(id); j++) {
			char **other = (char **)(s->items + (size_t)j * k->size);
			if (strcasecmp(other[0], id) == 0) {
				report_cell(ld, t, r, idcol, "duplicate id '%s' (first at line %d)", other[0], t->line[s->rows[j]]);
				bad++;
				break;
			}
		}
		if (bad) {
			item_free(kind, item);
			continue;
		}
		s->rows[s->nitems++] = r;
	}
}

/* True when a table has a row with this id, even a row rejected for another problem (reported already). */
static bool in_table(const csv_table *t, const char *id)
{
	int c = t ? csv_table_col(t, "id") : -1;
	for (int r = 0; c >= 0 && r < t->nrows; r++)
		if (strcasecmp(t->cells[r][c], id) == 0)
			return true;
	return false;
}

/* Phase 2: the merged db's references; reports each unknown one at its cell. */
static void check_refs(hw_load *ld, const hw_db *db, hw_kind kind, const hw_staged *s, csv_table *const tabs[HW_NKINDS])
{
	const hw_kind_desc *k = &hw_kinds[kind];
	char sug[256], q[64];
	if (!s->t || !s->items)  /* no table, or its header was unusable (reported) */
		return;
	/* every row, also those rejected for another cell, so that each broken cell is named */
	for (int r = 0; r < s->t->nrows; r++) {
		for (int c = 0; c < k->ncols; c++) {
			const hw_col *sc = &k->cols[c];
			if (sc->type != HW_C_REF || s->colmap[c] < 0)
				continue;
			const char *ref = s->t->cells[r][s->colmap[c]];
			if (is_blank(ref) || hw_find(db, sc->ref, ref) || in_table(tabs[sc->ref], ref))
				continue;
			hw_suggest(db, sc->ref, ref, sug, sizeof sug);
			report_cell(ld, s->t, r, s->colmap[c], "unknown %s '%s'%s%s", hw_kinds[sc->ref].singular,
				    cellq(ref, q, sizeof q), *sug ? "; " : "", sug);
		}
	}
}

/* Points every reference of the db at its item (after a merge the arrays moved). */
static void resolve(hw_db *db)
{
	/* an architecture archs.csv lacks is allowed (tables written before it): the model's defaults then */
	for (int i = 0; i < db->ngpus; i++)
		db->gpus[i].arch_info = hw_arch_find(db, db->gpus[i].arch);
	for (int i = 0; i < db->nfabrics; i++)
		db->fabrics[i].nic = hw_link_find(db, db->fabrics[i].nic_id);
	for (int i = 0; i < db->nstorage; i++)
		db->storage[i].link = hw_link_find(db, db->storage[i].link_id);
	for (int i = 0; i < db->nsystems; i++) {
		hw_system *s = &db->systems[i];
		s->gpu = hw_gpu_find(db, s->gpu_id);
		s->intra_link = hw_link_find(db, s->intra_link_id);
		s->host_link = hw_link_find(db, s->host_link_id);
		s->cpu = hw_cpu_find(db, s->cpu_id);
		s->nic = hw_link_find(db, s->nic_id);
		s->storage = hw_storage_find(db, s->storage_id);
		s->fabric = hw_fabric_find(db, s->fabric_id);
		s->stack = hw_stack_find(db, s->stack_id);
	}
	for (int i = 0; i < db->nstack_effs; i++) {
		db->stack_effs[i].stack = hw_stack_find(db, db->stack_effs[i].stack_id);
		db->stack_effs[i].gpu = hw_gpu_find(db, db->stack_effs[i].gpu_id);
	}
}

/* Copies the price/rent cells of one price-table row onto its system: every column of a group the
 * table gives (price_*, rent_*), so an old source never stays beside a new figure. */
static void patch_system(hw_system *dst, const hw_system *src, const hw_staged *s)
{
	const hw_kind_desc *k = &hw_kinds[HW_SYSTEM];
	for (int c = 0; c < k->ncols; c++) {
		const hw_col *sc = &k->cols[c];
		const char *grp = price_group(sc->name);
		bool given = false;
		for (int o = 0; grp && o < k->ncols; o++) {
			const char *og = price_group(k->cols[o].name);
			given |= s->colmap[o] >= 0 && og && strcmp(og, grp) == 0;
		}
		if (!given)
			continue;
		if (is_str_col(sc)) {
			char **d = str_field(dst, sc);
			free(*d);
			*d = xstrdup(*str_field((void *)src, sc));
		} else {
			memcpy((char *)dst + sc->off, (const char *)src + sc->off, sc->type == HW_C_NUM ? sizeof(double) : sizeof(int));
		}
	}
}

/* Phase 2 of a price table: each row names a system of the merged db (id or alias) whose price or
 * rent it replaces; the result is checked as a whole row (a price needs its kind and source). */
static void apply_price_table(hw_load *ld, hw_db *out, const hw_staged *s)
{
	char sug[256], q[64];
	for (int i = 0; i < s->nitems; i++) {
		const hw_system *row = (const hw_system *)(s->items + (size_t)i * sizeof(hw_system));
		int at = find_index(out, HW_SYSTEM, row->id, true);
		if (at < 0) {
			hw_suggest(out, HW_SYSTEM, row->id, sug, sizeof sug);
			report_cell(ld, s->t, s->rows[i], s->colmap[0],
				    "unknown system '%s'%s%s; a table of only id and price/rent columns changes the price of a "
				    "system that exists (a new system needs every column of systems.csv)",
				    cellq(row->id, q, sizeof q), *sug ? "; " : "", sug);
			continue;
		}
		patch_system(&out->systems[at], row, s);
		check_price(ld, s->t, s->rows[i], &out->systems[at]);
	}
}

/* Overlays parsed tables (tabs[kind], NULL where absent) on *db; the heart of every load. */
static int overlay_tables(hw_db *db, csv_table *const tabs[HW_NKINDS], const int hdr[HW_NKINDS], int nprior,
			  FILE *errs)
{
	hw_load ld = {.errs = errs};
	hw_staged st[HW_NKINDS];
	hw_db out;
	memset(st, 0, sizeof st);
	for (int k = 0; k < HW_NKINDS; k++)
		if (tabs[k])
			stage_table(&ld, k, tabs[k], hdr[k], &st[k]);
	if (nprior)  /* a table failed to parse: its ids are unknown, so references cannot be judged */
		goto fail_staged;

	db_copy(&out, db);
	for (int k = 0; k < HW_NKINDS; k++) {
		size_t sz = hw_kinds[k].size;
		if (st[k].patch) {
			apply_price_table(&ld, &out, &st[k]);
			continue;
		}
		for (int i = 0; i < st[k].nitems; i++) {
			void *item = st[k].items + (size_t)i * sz;
			int at = find_index(&out, k, *(char **)item, false);
			void *dst = NULL;
			if (at >= 0) {
				dst = hw_item(&out, k, at);
				item_free(k, dst);
				item_dup(k, dst, item);
			} else {
				void *tmp = xmalloc(sz); /* heap: no declared type, so the struct stores are defined */
				item_dup(k, tmp, item);
				item_append(&out, k, tmp);
				free(tmp);
			}
		}
	}
	for (int k = 0; k < HW_NKINDS; k++)
		check_refs(&ld, &out, k, &st[k], tabs);
	if (ld.nerr) {
		hw_db_free(&out);
		goto fail_staged;
	}
	resolve(&out);
	for (int k = 0; k < HW_NKINDS; k++)
		staged_free(k, &st[k]);
	hw_db_free(db);
	*db = out;
	return 0;

fail_staged:
	for (int k = 0; k < HW_NKINDS; k++)
		staged_free(k, &st[k]);
	if (ld.nerr == 0)  /* only the earlier file-level problems: their message stays */
		return ERR_INPUT;
	if (ld.nerr == 1 && !nprior)
		err_set("%s", ld.first);
	else
		err_set("%s (and %d more problems)", ld.first, ld.nerr - 1 + nprior);
	return ERR_INPUT;
}

/* The kind a file name stands for ("dir/gpus.csv" -> HW_GPU), -1 when none. */
static int kind_of_file(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (int k = 0; k < HW_NKINDS; k++) {
		size_t n = strlen(hw_kinds[k].name);
		if (strncmp(base, hw_kinds[k].name, n) == 0 && strcmp(base + n, ".csv") == 0)
			return k;
	}
	return -1;
}

/* 1-based line of the header: the first line that is neither blank nor a '#' comment. */
static int header_line(const char *buf, size_t len_B)
{
	int line = 1;
	size_t i = 0;
	while (i < len_B) {
		size_t j = i;
		while (j < len_B && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\r'))
			j++;
		if (j < len_B && buf[j] != '\n' && buf[i] != '#')
			return line;
		while (i < len_B && buf[i] != '\n')
			i++;
		i++;
		line++;
	}
	return 1;
}

/* Parses one table; on a CSV-level problem prints it to errs. 0 or ERR_INPUT. */
static int parse_table(csv_table *t, const char *name, const char *buf, size_t len_B, int *hdr, FILE *errs)
{
	*hdr = header_line(buf, len_B);
	if (csv_table_parse(t, name, buf, len_B) == 0)
		return 0;
	if (errs)
		fprintf(errs, "%s\n", err_msg());
	csv_table_free(t);
	memset(t, 0, sizeof *t);
	return ERR_INPUT;
}

/* Reads a whole file. NULL with err set (ERR_ENV) when it cannot. */
static char *read_all(const char *path, size_t *len_B)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		err_set("%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		err_set("%s: read error", path);
		free(buf);
		return NULL;
	}
	*len_B = n;
	return buf;
}

int hw_db_overlay_buf(hw_db *db, const char *name, const char *buf, size_t len_B, FILE *errs)
{
	int kind = kind_of_file(name);
	if (kind < 0) {
		err_set("%s: not a hwdb table name (gpus.csv, cpus.csv, links.csv, fabrics.csv, storage.csv, "
			"systems.csv or stacks.csv)", name);
		if (errs)
			fprintf(errs, "%s\n", err_msg());
		return ERR_INPUT;
	}
	csv_table t;
	int hdr[HW_NKINDS] = {0};
	memset(&t, 0, sizeof t);
	if (parse_table(&t, name, buf, len_B, &hdr[kind], errs) < 0)
		return ERR_INPUT;
	csv_table *tabs[HW_NKINDS] = {0};
	tabs[kind] = &t;
	int rc = overlay_tables(db, tabs, hdr, 0, errs);
	csv_table_free(&t);
	return rc;
}

int hw_db_load_default(hw_db *db, FILE *errs)
{
	csv_table t[HW_NKINDS];
	csv_table *tabs[HW_NKINDS] = {0};
	int hdr[HW_NKINDS] = {0};
	int nbad = 0;
	memset(db, 0, sizeof *db);
	memset(t, 0, sizeof t);
	for (int i = 0; i < hw_embedded_ntables; i++) {
		const hw_embedded *e = &hw_embedded_tables[i];
		int k = kind_of_file(e->name);
		if (k < 0 || tabs[k])
			continue;
		char *name = xasprintf("hwdb/data/%s", e->name);
		if (parse_table(&t[k], name, (const char *)e->data, e->len_B, &hdr[k], errs) < 0)
			nbad++;
		else
			tabs[k] = &t[k];
		free(name);
	}
	int rc = overlay_tables(db, tabs, hdr, nbad, errs);
	for (int k = 0; k < HW_NKINDS; k++)
		csv_table_free(&t[k]);
	return rc;
}

int hw_db_overlay_dir(hw_db *db, const char *dir, FILE *errs)
{
	csv_table t[HW_NKINDS];
	csv_table *tabs[HW_NKINDS] = {0};
	int hdr[HW_NKINDS] = {0};
	int nbad = 0, nfound = 0;
	bool env = false;
	memset(t, 0, sizeof t);
	DIR *d;
	int orc = dir_open(dir, &d); /* README's rule: missing or not a folder is 1, permission 2 */
	if (orc) {
		if (errs)
			fprintf(errs, "%s\n", err_msg());
		return orc;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 4 || strcmp(de->d_name + n - 4, ".csv") != 0)
			continue;
		int k = kind_of_file(de->d_name);
		if (k < 0) {
			err_set("%s/%s: unknown table; expected gpus.csv, cpus.csv, links.csv, fabrics.csv, storage.csv, "
				"systems.csv or stacks.csv", dir, de->d_name);
			if (errs)
				fprintf(errs, "%s\n", err_msg());
			nbad++;
			continue;
		}
		char *path = xasprintf("%s/%s", dir, de->d_name);
		size_t len = 0;
		char *buf = read_all(path, &len);
		if (!buf) {
			if (errs)
				fprintf(errs, "%s\n", err_msg());
			env = true;
		} else if (parse_table(&t[k], path, buf, len, &hdr[k], errs) < 0) {
			nbad++;
		} else {
			tabs[k] = &t[k];
			nfound++;
		}
		free(buf);
		free(path);
	}
	closedir(d);
	int rc;
	if (env) {
		rc = ERR_ENV;
	} else if (nbad == 0 && nfound == 0) {
		rc = err_set("%s: no hwdb tables (gpus.csv, cpus.csv, links.csv, fabrics.csv, storage.csv, systems.csv, "
			     "stacks.csv)", dir);
		if (errs)
			fprintf(errs, "%s\n", err_msg());
	} else {
		rc = overlay_tables(db, tabs, hdr, nbad, errs);
	}
	for (int k = 0; k < HW_NKINDS; k++)
		csv_table_free(&t[k]);
	return rc;
}

int hw_db_check_dir(const char *dir, FILE *errs)
{
	hw_db db;
	int rc = hw_db_load_default(&db, errs);
	if (rc == 0)
		rc = hw_db_overlay_dir(&db, dir, errs);
	hw_db_free(&db);
	return rc;
}
