/* hw_import.c: MLPerf system descriptions (the systems/<name>.json file every MLPerf Training submitter
 * publishes, one JSON object of string fields) read into hwdb overlay rows: a systems.csv row per file,
 * and a cpus.csv row for a host CPU the database lacks.
 *
 * What maps (field -> column): accelerator_model_name -> gpu (an id or alias of gpus.csv, "NVIDIA "
 * dropped); accelerators_per_node -> gpus_per_node; accelerator_interconnect (+ _topology,
 * accelerator_host_interconnect) -> intra_topology, intra_link, intra_bw_Bps, host_link, host_links;
 * host_processor_model_name / _core_count / host_processors_per_node -> cpu, cpus_per_node;
 * host_memory_capacity -> mem_B; host_networking -> nic, nics_per_node (and the database's fabric for
 * that NIC); host_storage_type -> storage; framework -> stack; system_name -> name. Links, fabrics and
 * stacks are looked up in the database by kind, generation and bandwidth, never by a fixed id.
 * What does not map is named, field by field, in a `#` comment above the row and on `notes`; every
 * assumption made (a topology the file does not state) is written into the row's source.
 *
 * Failure contract: hw_import_add rejects a file it cannot make a valid row from (not JSON, not an
 * object, a field of the wrong type, a missing or bad required field, an unknown GPU) with ERR_INPUT
 * and "FILE: field 'x': what was expected"; the rows of earlier files are kept. Rows written are
 * checked to load as an overlay before the directory is put in place (hw_import_write_dir).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "hwdb/hw_internal.h"

#include "common/common.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One overlay row: a cell per schema column of its kind (NULL = empty), the `#` notes above it. */
typedef struct imp_row {
	char **cell;      /* [hw_kinds[kind].ncols] */
	char *notes;      /* "field (value): why; ..." or NULL */
	char *file;       /* the JSON it came from */
	long nodes;       /* systems: number_of_nodes of the submission, 0 when not given */
} imp_row;

struct hw_import {
	const hw_db *db;
	imp_row *sys;  int nsys;
	imp_row *cpu;  int ncpu;
};

/* The file being read: its JSON, the fields used so far, and the row's notes and assumptions. */
typedef struct imp_file {
	const char *name;
	json_t *root;
	const char *used[64];
	int nused;
	char *notes;      /* unmapped fields, "; "-joined */
	char *assumed;    /* assumptions, "; "-joined */
	FILE *out;        /* where notes are also printed (may be NULL) */
	char num[8][64];  /* numeric fields as text, a ring: field() results stay valid 8 calls */
	int nnum;
} imp_file;

hw_import *hw_import_new(const hw_db *db)
{
	hw_import *imp = xcalloc(1, sizeof *imp);
	imp->db = db;
	return imp;
}

static void row_free(imp_row *r, hw_kind kind)
{
	for (int c = 0; c < hw_kinds[kind].ncols; c++)
		free(r->cell[c]);
	free(r->cell);
	free(r->notes);
	free(r->file);
}

void hw_import_free(hw_import *imp)
{
	if (!imp)
		return;
	for (int i = 0; i < imp->nsys; i++)
		row_free(&imp->sys[i], HW_SYSTEM);
	for (int i = 0; i < imp->ncpu; i++)
		row_free(&imp->cpu[i], HW_CPU);
	free(imp->sys);
	free(imp->cpu);
	free(imp);
}

int hw_import_count(const hw_import *imp, hw_kind kind)
{
	return kind == HW_SYSTEM ? imp->nsys : kind == HW_CPU ? imp->ncpu : 0;
}

/* ---- small helpers ---- */

/* Appends "text" to a "; "-joined list. */
static void list_add(char **list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void list_add(char **list, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0) {
		fprintf(stderr, "scaleplan: out of memory\n");
		exit(EXIT_ENV);
	}
	va_end(ap);
	char *joined = *list ? xasprintf("%s; %s", *list, s) : xstrdup(s);
	free(*list);
	free(s);
	*list = joined;
}

/* A value for messages: at most 60 characters, control characters as '?'. */
static const char *shown(const char *v, char *buf, size_t len_B)
{
	size_t n = 0;
	for (; v[n] && n + 4 < len_B && n < 60; n++)
		buf[n] = (unsigned char)v[n] < 0x20 || v[n] == 0x7f ? '?' : v[n];
	if (v[n]) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/* Notes a field that is given but not mapped, with the reason. */
static void note(imp_file *f, const char *field, const char *value, const char *why)
{
	char b[72];
	list_add(&f->notes, "%s '%s': %s", field, shown(value, b, sizeof b), why);
	if (f->out)
		fprintf(f->out, "%s: not mapped: %s '%s': %s\n", f->name, field, b, why);
}

/* Sets a cell of row r by column name (a column the schema no longer has is an internal error). */
static void set(imp_row *r, hw_kind kind, const char *col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void set(imp_row *r, hw_kind kind, const char *col, const char *fmt, ...)
{
	const hw_kind_desc *k = &hw_kinds[kind];
	for (int c = 0; c < k->ncols; c++) {
		if (strcmp(k->cols[c].name, col) != 0)
			continue;
		va_list ap;
		va_start(ap, fmt);
		free(r->cell[c]);
		if (vasprintf(&r->cell[c], fmt, ap) < 0) {
			fprintf(stderr, "scaleplan: out of memory\n");
			exit(EXIT_ENV);
		}
		va_end(ap);
		return;
	}
	fprintf(stderr, "scaleplan: hw_import: %s.csv has no column '%s' (the importer needs updating)\n", k->name, col);
	exit(EXIT_ENV);
}

/* Field `key` of the file as text: a string, or a number printed as given. NULL when absent, null or
 * empty (also "N/A", "-"). Fails (ERR_INPUT) on another JSON type. */
static int field(imp_file *f, const char *key, const char **out)
{
	*out = NULL;
	if (f->nused < (int)(sizeof f->used / sizeof f->used[0]))
		f->used[f->nused++] = key;
	json_t *v = json_object_get(f->root, key);
	if (!v || json_is_null(v))
		return 0;
	char *num = f->num[f->nnum++ % 8];
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		while (isspace((unsigned char)*s))
			s++;
		if (*s && strcasecmp(s, "N/A") != 0 && strcasecmp(s, "NA") != 0 && strcmp(s, "-") != 0)
			*out = s;
		return 0;
	}
	if (json_is_integer(v)) {
		snprintf(num, sizeof f->num[0], "%lld", (long long)json_integer_value(v));
		*out = num;
		return 0;
	}
	if (json_is_real(v)) {
		snprintf(num, sizeof f->num[0], "%.17g", json_real_value(v));
		*out = num;
		return 0;
	}
	return err_set("%s: field '%s': expected a string or a number, found %s", f->name, key,
		       json_is_object(v) ? "an object" : json_is_array(v) ? "an array" : "true/false");
}

/* A whole number lo..hi in field `key` (a string "8" or the number 8). */
static int count_of(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	while (isspace((unsigned char)*s))
		s++;
	long v = strtol(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int required_count(imp_file *f, const char *key, long lo, long hi, long *out)
{
	const char *s;
	if (field(f, key, &s))
		return ERR_INPUT;
	char b[72];
	if (!s)
		return err_set("%s: field '%s': missing; expected a whole number %ld-%ld", f->name, key, lo, hi);
	if (count_of(s, lo, hi, out))
		return err_set("%s: field '%s': '%s': expected a whole number %ld-%ld", f->name, key,
			       shown(s, b, sizeof b), lo, hi);
	return 0;
}

/* Bytes from "2.0 TB", "512 GB", "3.0 TiB", "81559 MiB", "256GB" (decimal units as the vendors use
 * them, binary ones where written so). -1 when it is not of that form. */
static double bytes_of(const char *s)
{
	static const struct { const char *u; double f; } units[] = {
		{"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15}, {"B", 1.0},
		{"G", 1e9}, {"T", 1e12}, /* "80G" */
	};
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || !isfinite(v))
		return -1;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t n = strlen(units[i].u);
		if (strncasecmp(end, units[i].u, n) == 0) {
			const char *rest = end + n;
			while (isspace((unsigned char)*rest))
				rest++;
			return *rest ? -1 : v * units[i].f;
		}
	}
	return -1;
}

/* The generation after "gen", "Gen", "PCIe " or "PCIe" in s ("PCIe 5.0x16", "PCIe Gen5", "gen4"); 0 when none. */
static int pcie_gen_of(const char *s)
{
	const char *p = strcasestr(s, "pcie");
	if (!p)
		return 0;
	p += 4;
	while (*p == ' ' || *p == '-')
		p++;
	if (strncasecmp(p, "gen", 3) == 0)
		p += 3;
	while (*p == ' ')
		p++;
	return isdigit((unsigned char)*p) && !isdigit((unsigned char)p[1]) ? *p - '0' : 0;
}

/* The first link of a kind and generation (gen < 0: any) with bandwidth bw_Bps (<= 0: any). */
static const hw_link *link_like(const hw_db *db, hw_link_kind kind, int gen, double bw_Bps)
{
	for (int i = 0; i < db->nlinks; i++) {
		const hw_link *l = &db->links[i];
		if (l->kind == kind && (gen < 0 || l->gen == gen) && (bw_Bps <= 0 || fabs(l->bw_Bps / bw_Bps - 1) < 1e-6))
			return l;
	}
	return NULL;
}

/* Trims and collapses spaces in place. */
static void squeeze(char *s)
{
	char *w = s;
	bool space = true;
	for (char *r = s; *r; r++) {
		if (isspace((unsigned char)*r)) {
			if (!space)
				*w++ = ' ';
			space = true;
		} else {
			*w++ = *r;
			space = false;
		}
	}
	if (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

/* Makes s a valid id of the tables (letters, digits, inner spaces and - _ . + ( ), starting with a
 * letter or digit so that no CSV writer quotes it as a formula): other characters become '-'. */
static void id_clean(char *s)
{
	for (char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.+() ", *p))
			*p = '-';
	char *start = s;
	while (*start && !isalnum((unsigned char)*start))
		start++;
	memmove(s, start, strlen(start) + 1);
	squeeze(s);
}

/* Removes every occurrence of `what` (case-insensitive) from s. */
static void cut_all(char *s, const char *what)
{
	size_t n = strlen(what);
	char *p;
	while ((p = strcasestr(s, what)) != NULL)
		memmove(p, p + n, strlen(p + n) + 1);
}

/* "did you mean ..." (hw_suggest), or else the 3 nearest ids of the kind by edit distance: an unknown
 * name always gets somewhere to look. */
static const char *nearest(const hw_db *db, hw_kind kind, const char *name, char *buf, size_t len_B)
{
	hw_suggest(db, kind, name, buf, len_B);
	if (*buf)
		return buf;
	const char *best[3] = { 0 };
	int bestd[3] = { 0 };
	for (int i = 0; i < hw_count(db, kind); i++) {
		const char *id = *(char **)hw_item(db, kind, i);
		int d = str_edit_distance(name, id);
		for (int j = 0; j < 3; j++)
			if (!best[j] || d < bestd[j]) {
				for (int m = 2; m > j; m--) {
					best[m] = best[m - 1];
					bestd[m] = bestd[m - 1];
				}
				best[j] = id;
				bestd[j] = d;
				break;
			}
	}
	snprintf(buf, len_B, "nearest ids: %s%s%s%s%s", best[0] ? best[0] : "none", best[1] ? ", " : "",
		 best[1] ? best[1] : "", best[2] ? ", " : "", best[2] ? best[2] : "");
	return buf;
}

/* ---- the mappings ---- */

static int map_gpu(imp_file *f, hw_import *imp, imp_row *r, const hw_gpu **gpu)
{
	const char *s;
	char b[72], name[256], sug[256];
	if (field(f, "accelerator_model_name", &s))
		return ERR_INPUT;
	if (!s)
		return err_set("%s: field 'accelerator_model_name': missing; expected a GPU name such as "
			       "'NVIDIA H100-SXM5-80GB'", f->name);
	snprintf(name, sizeof name, "%s", s);
	*gpu = hw_gpu_find(imp->db, name);
	if (!*gpu && strncasecmp(name, "NVIDIA ", 7) == 0) {
		memmove(name, name + 7, strlen(name + 7) + 1);
		squeeze(name);
		*gpu = hw_gpu_find(imp->db, name);
	}
	if (!*gpu) {
		return err_set("%s: field 'accelerator_model_name': unknown GPU '%s'; %s (a GPU needs its peak "
			       "figures: add it to gpus.csv of an overlay, see scaleplan hw list gpus)", f->name,
			       shown(s, b, sizeof b), nearest(imp->db, HW_GPU, name, sug, sizeof sug));
	}
	set(r, HW_SYSTEM, "gpu", "%s", (*gpu)->id);

	/* memory: a check that the file means this GPU (81559 MiB for an 80 GB part is the same) */
	if (field(f, "accelerator_memory_capacity", &s))
		return ERR_INPUT;
	if (s) {
		double mem = bytes_of(s);
		if (mem < 0)
			note(f, "accelerator_memory_capacity", s, "not a size such as '80 GB'");
		else if (hw_known((*gpu)->mem_B) && fabs(mem / (*gpu)->mem_B - 1) > 0.1)
			note(f, "accelerator_memory_capacity", s, "differs by more than 10% from the GPU's mem_B "
			     "(another variant of the GPU?)");
	}
	return 0;
}

/* The host link: the PCIe generation the file names (host: accelerator_host_interconnect; text: the
 * interconnect fields), else the GPU's, at most the GPU's. NULL (err set) when links.csv has no such x16 link. */
static const hw_link *host_link_of(imp_file *f, const hw_db *db, const hw_gpu *gpu, const char *host,
				   const char *text)
{
	int hgen = host ? pcie_gen_of(host) : 0;
	if (!hgen)
		hgen = pcie_gen_of(text);
	if (!hgen) {
		hgen = gpu->pcie_gen;
		list_add(&f->assumed, "host link PCIe %d x16 (the GPU's; the file names none)", hgen);
	}
	if (hgen > gpu->pcie_gen) {
		list_add(&f->assumed, "host link at the GPU's PCIe %d (the file says %d)", gpu->pcie_gen, hgen);
		hgen = gpu->pcie_gen;
	}
	const hw_link *hl = link_like(db, HW_LINK_PCIE, hgen, 0);
	if (!hl)
		err_set("%s: field 'accelerator_host_interconnect': no PCIe %d x16 link in the database (links.csv)",
			f->name, hgen);
	return hl;
}

/* NVLink through NVSwitch among gpn GPUs (the file names NVSwitch, or an HGX board of more than 4 SXM
 * GPUs). */
static int map_nvswitch(imp_file *f, const hw_db *db, imp_row *r, const hw_gpu *gpu, long gpn, bool named,
			bool sxm)
{
	const hw_link *l = link_like(db, HW_LINK_NVSWITCH, gpu->nvlink_gen - 1, 0);
	if (!l)
		return err_set("%s: field 'accelerator_interconnect': NVSwitch for NVLink %d: no such link in the "
			       "database (links.csv kind nvswitch, gen %d)", f->name, gpu->nvlink_gen, gpu->nvlink_gen - 1);
	if (!named)
		list_add(&f->assumed, "NVLink among %ld SXM GPUs runs through NVSwitch (HGX board)", gpn);
	if (!sxm)
		list_add(&f->assumed, "NVSwitch for PCIe GPUs as the file says");
	set(r, HW_SYSTEM, "intra_topology", "nvswitch");
	set(r, HW_SYSTEM, "intra_link", "%s", l->id);
	set(r, HW_SYSTEM, "intra_bw_Bps", "%.6g", gpu->nvlink_bw_Bps >= 1e8 ? gpu->nvlink_bw_Bps : l->bw_Bps);
	return 0;
}

/* SXM GPUs joined by NVLink without a switch: every pair directly, each GPU on its own host link. */
static int map_nvlink_mesh(imp_file *f, const hw_db *db, imp_row *r, const hw_gpu *gpu, long gpn)
{
	const hw_link *l = link_like(db, HW_LINK_NVLINK, gpu->nvlink_gen, 0);
	if (!l)
		return err_set("%s: field 'accelerator_interconnect': no NVLink %d link in the database", f->name,
			       gpu->nvlink_gen);
	list_add(&f->assumed, "NVLink without NVSwitch: every GPU pair joined directly (nvlink-mesh)");
	set(r, HW_SYSTEM, "intra_topology", "nvlink-mesh");
	set(r, HW_SYSTEM, "intra_link", "%s", l->id);
	if (gpu->nvlink_bw_Bps >= 1e8)
		set(r, HW_SYSTEM, "intra_bw_Bps", "%.6g", gpu->nvlink_bw_Bps);
	set(r, HW_SYSTEM, "host_links", "%ld", gpn);
	list_add(&f->assumed, "each GPU on its own host x16 link");
	return 0;
}

/* Intra-node topology and links from the accelerator interconnect fields and the GPU. */
static int map_links(imp_file *f, hw_import *imp, imp_row *r, const hw_gpu *gpu, long gpn)
{
	const char *ic, *topo, *host;
	if (field(f, "accelerator_interconnect", &ic) || field(f, "accelerator_interconnect_topology", &topo) ||
	    field(f, "accelerator_host_interconnect", &host))
		return ERR_INPUT;
	char text[512];
	snprintf(text, sizeof text, "%s %s", ic ? ic : "", topo ? topo : "");
	bool nvswitch = strcasestr(text, "nvswitch") != NULL;
	bool nvlink = strcasestr(text, "nvlink") != NULL;
	const hw_link *hl = host_link_of(f, imp->db, gpu, host, text);
	if (!hl)
		return ERR_INPUT;
	set(r, HW_SYSTEM, "host_link", "%s", hl->id);

	if (gpn == 1) {
		set(r, HW_SYSTEM, "intra_topology", "single");
		if (ic)
			note(f, "accelerator_interconnect", ic, "one GPU per node: no intra-node traffic");
		return 0;
	}
	/* SXM modules sit on a board whose GPUs NVLink joins (HGX: through NVSwitch with more than 4 GPUs),
	 * whatever the field says (some files name the host link or the network there) */
	bool sxm = strcmp(gpu->form, "sxm") == 0 && gpu->nvlink_gen >= 1;
	if (sxm && !nvlink && !nvswitch) {
		list_add(&f->assumed, "%s GPUs joined by NVLink %d as on their board (accelerator_interconnect names "
			 "no NVLink)", gpu->form, gpu->nvlink_gen);
		if (ic)
			note(f, "accelerator_interconnect", ic, "not a GPU-to-GPU link of an SXM board");
	}
	if ((nvswitch || (sxm && gpn > 4)) && gpu->nvlink_gen >= 2)
		return map_nvswitch(f, imp->db, r, gpu, gpn, nvswitch, sxm);
	if (sxm)
		return map_nvlink_mesh(f, imp->db, r, gpu, gpn);
	if (nvlink)
		note(f, "accelerator_interconnect", ic ? ic : topo, "NVLink bridges between pairs of PCIe GPUs are "
		     "not modelled: GPUs talk over PCIe");
	/* PCIe only: the files do not say whether a switch sits between GPUs and CPUs */
	if (gpn > 4) {
		set(r, HW_SYSTEM, "intra_topology", "pcie-switch");
		list_add(&f->assumed, "%ld PCIe GPUs behind PCIe switches (pcie-switch)", gpn);
	} else {
		set(r, HW_SYSTEM, "intra_topology", "pcie-host");
		set(r, HW_SYSTEM, "host_links", "%ld", gpn);
		list_add(&f->assumed, "%ld PCIe GPUs each on its own CPU x16 link (pcie-host)", gpn);
	}
	set(r, HW_SYSTEM, "intra_link", "%s", hl->id);
	set(r, HW_SYSTEM, "intra_bw_Bps", "%.6g", hl->bw_Bps);
	return 0;
}

/* A host_processor_model_name s as the database names CPUs: clean without trademarks, clock and "CPU" /
 * "Processor" ("Intel(R) Xeon(R) Platinum 8480C CPU @ 2.0GHz" -> "Intel Xeon Platinum 8480C"), id without the
 * vendor's name ("Xeon Platinum 8480C"), and the cores the name gives ("AMD EPYC 9374F 32-Core Processor":
 * 32; else 0). */
static void cpu_names(const char *s, char clean[256], char id[256], long *name_cores)
{
	*name_cores = 0;
	snprintf(clean, 256, "%s", s);
	cut_all(clean, "(R)");
	cut_all(clean, "(TM)");
	char *at = strchr(clean, '@');
	if (at)
		*at = '\0';
	/* "AMD EPYC 9374F 32-Core Processor": the core count is part of the name */
	char *core = strcasestr(clean, "-Core Processor");
	if (core) {
		char *d = core;
		while (d > clean && isdigit((unsigned char)d[-1]))
			d--;
		*name_cores = strtol(d, NULL, 10);
		*d = '\0';
	}
	cut_all(clean, " CPU");
	cut_all(clean, " Processor");
	squeeze(clean);
	snprintf(id, 256, "%s", clean);
	if (strncasecmp(clean, "Intel ", 6) == 0)
		snprintf(id, 256, "%s", clean + 6);
	else if (strncasecmp(clean, "AMD ", 4) == 0)
		snprintf(id, 256, "%s", clean + 4);
	id_clean(id);
}

/* A CPU the database lacks, from the file: a new cpus.csv row (model name s as clean and id, cores; clocks
 * and power left empty) that the system row r names. */
static void add_cpu(imp_file *f, hw_import *imp, imp_row *r, const char *s, const char *clean, const char *id,
		    long cores, const char *sug)
{
	char b[72];
	imp->cpu = xrealloc(imp->cpu, (size_t)(imp->ncpu + 1) * sizeof *imp->cpu);
	imp_row *c = &imp->cpu[imp->ncpu++];
	memset(c, 0, sizeof *c);
	c->cell = xcalloc((size_t)hw_kinds[HW_CPU].ncols, sizeof *c->cell);
	c->file = xstrdup(f->name);
	set(c, HW_CPU, "id", "%s", id);
	if (strcmp(id, clean) != 0 && !strchr(clean, ';'))
		set(c, HW_CPU, "aliases", "%s", shown(clean, b, sizeof b));
	set(c, HW_CPU, "vendor", "%s", strcasestr(clean, "EPYC") || strcasestr(clean, "AMD") ? "AMD" :
		strcasestr(clean, "Xeon") || strcasestr(clean, "Intel") ? "Intel" : "unknown");
	set(c, HW_CPU, "cores", "%ld", cores);
	set(c, HW_CPU, "source", "MLPerf system description %s: host_processor_model_name '%s', %ld cores per "
	    "socket; clocks, threads and power not in the file", f->name, shown(s, b, sizeof b), cores);
	set(r, HW_SYSTEM, "cpu", "%s", id);
	if (f->out)
		fprintf(f->out, "%s: unknown CPU '%s': added to cpus.csv as '%s' (%ld cores); %s\n", f->name,
			shown(s, b, sizeof b), id, cores, sug);
}

/* Host CPU: an id of the database, or a new cpus.csv row with the cores the file gives. */
static int map_cpu(imp_file *f, hw_import *imp, imp_row *r)
{
	const char *s, *cores_s;
	char b[72], clean[256], id[256], sug[256];
	long sockets, cores = 0, name_cores;
	if (required_count(f, "host_processors_per_node", 1, 64, &sockets))
		return ERR_INPUT;
	set(r, HW_SYSTEM, "cpus_per_node", "%ld", sockets);
	if (field(f, "host_processor_model_name", &s) || field(f, "host_processor_core_count", &cores_s))
		return ERR_INPUT;
	if (!s)
		return 0;
	cpu_names(s, clean, id, &name_cores);
	if (cores_s && count_of(cores_s, 1, 1024, &cores)) {
		note(f, "host_processor_core_count", cores_s, "not a whole number 1-1024");
		cores = 0;
	}
	if (name_cores > 0 && cores > 0 && cores != name_cores) {
		note(f, "host_processor_core_count", cores_s, "differs from the cores in the CPU's name (used)");
		cores = name_cores;
	} else if (name_cores > 0) {
		cores = name_cores;
	}
	const hw_cpu *cpu = hw_cpu_find(imp->db, clean);
	if (!cpu)
		cpu = hw_cpu_find(imp->db, id);
	if (cpu) {
		set(r, HW_SYSTEM, "cpu", "%s", cpu->id);
		if (cores > 0 && cores != cpu->cores)
			note(f, "host_processor_core_count", cores_s ? cores_s : s, "differs from the database's cores");
		return 0;
	}
	for (int i = 0; i < imp->ncpu; i++)
		if (strcasecmp(imp->cpu[i].cell[0], id) == 0) {
			set(r, HW_SYSTEM, "cpu", "%s", id);
			return 0;
		}
	nearest(imp->db, HW_CPU, id, sug, sizeof sug);
	if (cores <= 0 || !*id) {
		note(f, "host_processor_model_name", s, "unknown CPU and no core count: cpu left empty");
		if (f->out)
			fprintf(f->out, "%s: unknown CPU '%s': %s\n", f->name, shown(s, b, sizeof b), sug);
		return 0;
	}
	add_cpu(f, imp, r, s, clean, id, cores, sug);
	return 0;
}

/* One part of host_networking: "8x ConnectX-7 IB NDR 400Gb/s" -> count 8, link ib at 50e9 B/s. */
static const hw_link *nic_of(const hw_db *db, const char *part, long *count)
{
	const char *p = strchr(part, ':'); /* "Compute: 8x ...": the count follows the label */
	p = p ? p + 1 : part;
	while (*p == ' ')
		p++;
	*count = 1;
	if (isdigit((unsigned char)*p)) {
		char *end;
		long n = strtol(p, &end, 10);
		while (*end == ' ')
			end++;
		if ((*end == 'x' || *end == 'X') && n >= 1 && n <= 64)
			*count = n;
	}
	double gbps = 0;
	for (const char *q = part; *q; q++) {
		if (!isdigit((unsigned char)*q) || (q > part && (isalnum((unsigned char)q[-1]) || q[-1] == '.')))
			continue;
		char *end;
		double v = strtod(q, &end);
		while (*end == ' ')
			end++;
		if (strncasecmp(end, "Gb", 2) == 0 && end[2] != 'y' && end[2] != 'Y' && v > 0)
			gbps = v;
		q = end - 1;
	}
	bool ib = strcasestr(part, "IB ") || strcasestr(part, "InfiniBand") || strcasestr(part, " NDR") ||
		  strcasestr(part, " HDR") || strcasestr(part, " EDR") || strcasestr(part, " XDR");
	if (ib && gbps == 0)
		gbps = strcasestr(part, "XDR") ? 800 : strcasestr(part, "NDR") ? 400 : strcasestr(part, "HDR") ? 200 :
		       strcasestr(part, "EDR") ? 100 : 0;
	if (gbps == 0 && strcasestr(part, "Gig Ethernet"))
		gbps = 1;
	if (gbps == 0)
		return NULL;
	hw_link_kind kind = ib ? HW_LINK_IB : strcasestr(part, "roce") ? HW_LINK_ROCE : HW_LINK_ETH;
	return link_like(db, kind, -1, gbps * 1e9 / 8);
}

/* The compute NICs named in a text ("Storage: 2x ..., Compute: 8x ConnectX-7 IB NDR 400Gb/s"): parts
 * labelled storage, management or north-south skipped, a part labelled compute (or EW) preferred,
 * else the most bandwidth. NULL when no part names a link the database has. */
static const hw_link *nics_in(const hw_db *db, const char *text, long *count)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", text);
	/* parts: split at ',' ';' and " and " */
	char *parts[16];
	int np = 0;
	for (char *p = buf; p && np < 16;) {
		parts[np++] = p;
		char *next = strpbrk(p, ",;");
		char *and = strcasestr(p, " and ");
		if (and && (!next || and < next)) {
			*and = '\0';
			p = and + 5;
		} else if (next) {
			*next = '\0';
			p = next + 1;
		} else {
			p = NULL;
		}
	}
	const hw_link *best = NULL;
	bool best_compute = false;
	for (int i = 0; i < np; i++) {
		const char *part = parts[i];
		bool compute = strcasestr(part, "compute") || strcasestr(part, " EW");
		if (strcasestr(part, "storage") || strcasestr(part, "management") || strcasestr(part, " NS") ||
		    strcasestr(part, "data bandwidth"))
			continue;
		long n;
		const hw_link *l = nic_of(db, part, &n);
		if (!l)
			continue;
		if (!best || (compute && !best_compute) ||
		    (compute == best_compute && l->bw_Bps * (double)n > best->bw_Bps * (double)*count)) {
			best = l;
			*count = n;
			best_compute = compute;
		}
	}
	return best;
}

/* host_networking, else host_network_card_count or host_networking_topology (some submitters list the
 * NICs there). */
static int map_network(imp_file *f, hw_import *imp, imp_row *r)
{
	static const char *const keys[] = { "host_networking", "host_network_card_count", "host_networking_topology" };
	const hw_link *best = NULL;
	long n = 0;
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const char *s;
		if (field(f, keys[k], &s))
			return ERR_INPUT;
		if (!s || best)
			continue;
		best = nics_in(imp->db, s, &n);
		if (!best)
			note(f, keys[k], s, "no NIC with a speed the database knows (e.g. '8x ConnectX-7 IB NDR 400Gb/s')");
	}
	if (!best)
		return 0;
	set(r, HW_SYSTEM, "nic", "%s", best->id);
	set(r, HW_SYSTEM, "nics_per_node", "%ld", n);
	for (int i = 0; i < imp->db->nfabrics; i++)
		if (imp->db->fabrics[i].nic == best) {
			set(r, HW_SYSTEM, "fabric", "%s", imp->db->fabrics[i].id);
			list_add(&f->assumed, "fabric %s (the database's for %s NICs)", imp->db->fabrics[i].id, best->id);
			break;
		}
	return 0;
}

/* The row's id: submitter and file name, lower case, [a-z0-9.-] only. */
static void make_id(char *id, size_t len_B, const char *submitter, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char raw[256];
	size_t n = strlen(base);
	if (n > 5 && strcasecmp(base + n - 5, ".json") == 0)
		n -= 5;
	if (submitter && strncasecmp(base, submitter, strlen(submitter)) == 0)
		submitter = NULL; /* the file name starts with it already */
	snprintf(raw, sizeof raw, "%s%s%.*s", submitter ? submitter : "", submitter ? "-" : "", (int)n, base);
	size_t w = 0;
	for (const char *p = raw; *p && w + 1 < len_B; p++) {
		char c = (char)tolower((unsigned char)*p);
		if (!isalnum((unsigned char)c) && c != '.')
			c = '-';
		if (c == '-' && (w == 0 || id[w - 1] == '-'))
			continue;
		id[w++] = c;
	}
	while (w > 0 && id[w - 1] == '-')
		w--;
	id[w] = '\0';
	if (w == 0)
		snprintf(id, len_B, "imported");
}

/* Fields known to carry nothing the tables hold (software, cooling, clocks...): named as unmapped
 * like any other field, but only when they say something. */
static void note_rest(imp_file *f)
{
	const char *key;
	json_t *v;
	json_object_foreach(f->root, key, v) {
		bool used = false;
		for (int i = 0; i < f->nused && !used; i++)
			used = strcmp(f->used[i], key) == 0;
		if (used)
			continue;
		char b[96];
		if (json_is_string(v)) {
			const char *s = json_string_value(v);
			while (isspace((unsigned char)*s))
				s++;
			if (!*s || strcasecmp(s, "N/A") == 0 || strcmp(s, "-") == 0)
				continue;
			note(f, key, s, "no column for it");
		} else if (json_is_object(v) || json_is_array(v)) {
			size_t n = json_is_object(v) ? json_object_size(v) : json_array_size(v);
			if (n == 0)
				continue;
			snprintf(b, sizeof b, "(%s of %zu)", json_is_object(v) ? "object" : "array", n);
			note(f, key, b, "no column for it");
		} else if (json_is_number(v)) {
			snprintf(b, sizeof b, "%g", json_number_value(v));
			note(f, key, b, "no column for it");
		}
	}
}

/* The system's name (and, where it differs from the id and is one name, its alias). 0 or ERR_INPUT. */
static int map_name(imp_file *f, imp_row *r, const char *id)
{
	const char *s;
	char b[72];
	if (field(f, "system_name", &s))
		return ERR_INPUT;
	if (!s)
		return err_set("%s: field 'system_name': missing; expected the system's name", f->name);
	set(r, HW_SYSTEM, "name", "%s", shown(s, b, sizeof b));
	if (strcasecmp(s, id) != 0 && !strchr(s, ';') && !strchr(s, ',')) /* alias: the name as published */
		set(r, HW_SYSTEM, "aliases", "%s", shown(s, b, sizeof b));
	return 0;
}

/* Host memory and storage: a size of 1 GB-100 TB; NVMe drives map to local-nvme (their count and speed do
 * not). 0 or ERR_INPUT. */
static int map_host(imp_file *f, const hw_import *imp, imp_row *r)
{
	const char *s;
	if (field(f, "host_memory_capacity", &s))
		return ERR_INPUT;
	if (s) {
		double mem = bytes_of(s);
		if (mem >= 1e9 && mem <= 1e14)
			set(r, HW_SYSTEM, "mem_B", "%.6g", mem);
		else
			note(f, "host_memory_capacity", s, "not a size 1 GB-100 TB such as '2.0 TB'");
	}
	if (field(f, "host_storage_type", &s))
		return ERR_INPUT;
	if (s && strcasestr(s, "nvme") && hw_storage_find(imp->db, "local-nvme")) {
		set(r, HW_SYSTEM, "storage", "local-nvme");
		const char *cap;
		if (field(f, "host_storage_capacity", &cap))
			return ERR_INPUT;
		if (cap)
			note(f, "host_storage_capacity", cap, "drive count and speed not mapped (local_drives)");
	} else if (s) {
		note(f, "host_storage_type", s, "only NVMe maps (to local-nvme)");
	}
	return 0;
}

/* The software stack: a framework naming MXNet or NGC is NVIDIA's ResNet-50 implementation (ngc-mlperf).
 * 0 or ERR_INPUT. */
static int map_stack(imp_file *f, const hw_import *imp, imp_row *r)
{
	const char *s;
	if (field(f, "framework", &s))
		return ERR_INPUT;
	if (s && (strcasestr(s, "mxnet") || strcasestr(s, "ngc")) && hw_stack_find(imp->db, "ngc-mlperf")) {
		set(r, HW_SYSTEM, "stack", "ngc-mlperf");
		list_add(&f->assumed, "stack ngc-mlperf (the framework names MXNet or NGC: NVIDIA's ResNet-50 "
			 "implementation)");
	} else if (s) {
		note(f, "framework", s, "no stack in the database matches");
	}
	return 0;
}

int hw_import_add(hw_import *imp, const char *name, const char *buf, size_t len_B, FILE *notes)
{
	imp_file f = { .name = name, .out = notes };
	imp_row r = { 0 };
	json_error_t jerr;
	int rc = ERR_INPUT;
	const char *s;
	char b[72];
	long gpn, nodes = 0;

	r.cell = xcalloc((size_t)hw_kinds[HW_SYSTEM].ncols, sizeof *r.cell);
	f.root = json_loadb(buf, len_B, JSON_REJECT_DUPLICATES, &jerr);
	if (!f.root) {
		err_set("%s:%d:%d: not valid JSON: %s", name, jerr.line, jerr.column, jerr.text);
		goto out;
	}
	if (!json_is_object(f.root)) {
		err_set("%s: expected a JSON object of fields (an MLPerf systems/*.json), found %s", name,
			json_is_array(f.root) ? "an array" : "a single value");
		goto out;
	}
	const char *submitter, *division, *status;
	if (field(&f, "submitter", &submitter) || field(&f, "division", &division) || field(&f, "status", &status))
		goto out;
	char id[128];
	make_id(id, sizeof id, submitter, name);
	for (int i = 0; i < imp->nsys; i++)
		if (strcasecmp(imp->sys[i].cell[0], id) == 0) {
			err_set("%s: system id '%s' already imported from %s (the same file twice?)", name, id,
				imp->sys[i].file);
			goto out;
		}
	set(&r, HW_SYSTEM, "id", "%s", id);
	if (map_name(&f, &r, id))
		goto out;
	if (required_count(&f, "accelerators_per_node", 1, 1024, &gpn))
		goto out;
	set(&r, HW_SYSTEM, "gpus_per_node", "%ld", gpn);
	const hw_gpu *gpu;
	if (map_gpu(&f, imp, &r, &gpu) || map_links(&f, imp, &r, gpu, gpn) || map_cpu(&f, imp, &r) ||
	    map_network(&f, imp, &r))
		goto out;
	if (map_host(&f, imp, &r) || map_stack(&f, imp, &r))
		goto out;
	if (field(&f, "number_of_nodes", &s))
		goto out;
	if (s && count_of(s, 1, 1000000, &nodes))
		note(&f, "number_of_nodes", s, "not a whole number");
	note_rest(&f);
	char where[96] = "";
	if (nodes)
		snprintf(where, sizeof where, "; submitted on %ld node%s", nodes, nodes == 1 ? "" : "s");
	set(&r, HW_SYSTEM, "source", "MLPerf system description %s (submitter %s; %s; %s%s)%s%s", name,
	    submitter ? shown(submitter, b, sizeof b) : "not given", division ? division : "division not given",
	    status ? status : "status not given", where, f.assumed ? "; assumed: " : "", f.assumed ? f.assumed : "");
	r.notes = f.notes;
	f.notes = NULL;
	r.file = xstrdup(name);
	r.nodes = nodes;
	imp->sys = xrealloc(imp->sys, (size_t)(imp->nsys + 1) * sizeof *imp->sys);
	imp->sys[imp->nsys++] = r;
	memset(&r, 0, sizeof r);
	rc = 0;
out:
	if (r.cell)
		row_free(&r, HW_SYSTEM);
	free(f.notes);
	free(f.assumed);
	json_decref(f.root);
	return rc;
}

/* Text of a notes comment: one line, no CR/LF. */
static void comment(FILE *out, const char *prefix, const char *text)
{
	fputs("# ", out);
	fputs(prefix, out);
	for (const char *p = text; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
	fputs("\n", out);
}

int hw_import_write_table(const hw_import *imp, hw_kind kind, FILE *out)
{
	const hw_kind_desc *k = &hw_kinds[kind];
	const imp_row *rows = kind == HW_SYSTEM ? imp->sys : imp->cpu;
	int n = hw_import_count(imp, kind);
	fprintf(out, "# Written by scaleplan hw import from MLPerf system descriptions; each row's source names "
		"its file and what was assumed,\n# the comment above a row what the file gives that no column "
		"holds.\n");
	csvw *w = csvw_stream(out);
	for (int c = 0; c < k->ncols; c++)
		csvw_text(w, k->cols[c].name);
	csvw_end_row(w);
	for (int i = 0; i < n; i++) {
		if (rows[i].notes) {
			fflush(out);
			char *pre = xasprintf("%s: not mapped: ", rows[i].cell[0]);
			comment(out, pre, rows[i].notes);
			free(pre);
		}
		for (int c = 0; c < k->ncols; c++)
			csvw_text(w, rows[i].cell[c] ? rows[i].cell[c] : "");
		csvw_end_row(w);
	}
	if (csvw_close(w) || fflush(out) != 0 || ferror(out)) {
		err_set("write failed");
		return ERR_ENV;
	}
	return 0;
}

/* Cell of a row by column name, "" when empty. */
static const char *cell(const imp_row *r, hw_kind kind, const char *col)
{
	const hw_kind_desc *k = &hw_kinds[kind];
	for (int c = 0; c < k->ncols; c++)
		if (strcmp(k->cols[c].name, col) == 0)
			return r->cell[c] ? r->cell[c] : "";
	return "";
}

void hw_import_print(const hw_import *imp, const char *dir, FILE *out)
{
	for (int i = 0; i < imp->nsys; i++) {
		const imp_row *r = &imp->sys[i];
		const char *nic = cell(r, HW_SYSTEM, "nic");
		fprintf(out, "%s: %s x %s (%s), %s x %s, NICs %s%s%s\n", cell(r, HW_SYSTEM, "id"),
			cell(r, HW_SYSTEM, "gpus_per_node"), cell(r, HW_SYSTEM, "gpu"), cell(r, HW_SYSTEM, "intra_topology"),
			cell(r, HW_SYSTEM, "cpus_per_node"), *cell(r, HW_SYSTEM, "cpu") ? cell(r, HW_SYSTEM, "cpu") : "CPU not given",
			*nic ? cell(r, HW_SYSTEM, "nics_per_node") : "not given", *nic ? " x " : "", nic);
		fprintf(out, "  scaleplan predict --hwdb %s --system %s --nodes %ld\n", dir, cell(r, HW_SYSTEM, "id"),
			r->nodes > 0 ? r->nodes : 1);
	}
}

/* Writes DIR/<kind>.csv. */
static int write_file(const hw_import *imp, hw_kind kind, const char *dir)
{
	char *path = xasprintf("%s/%s.csv", dir, hw_kinds[kind].name);
	int rc = 0;
	FILE *out = fopen(path, "w");
	if (!out) {
		err_set("%s: cannot create: %s", path, strerror(errno));
		rc = ERR_ENV;
		goto done;
	}
	rc = hw_import_write_table(imp, kind, out);
	if (fclose(out) != 0 && rc == 0) {
		err_set("%s: write failed: %s", path, strerror(errno));
		rc = ERR_ENV;
	} else if (rc) {
		err_prefix("%s", path);
	}
done:
	free(path);
	return rc;
}

/* Removes a directory of plain files (the temporary one). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *p = xasprintf("%s/%s", dir, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

int hw_import_write_dir(const hw_import *imp, const char *dir, FILE *errs)
{
	struct stat st;
	int rc = ERR_ENV;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return err_set("%s: exists and is not a directory", dir);
		if (!dir_is_empty(dir))
			return err_set("%s: exists and is not empty; hw import writes a new directory (remove it or "
				       "name another)", dir);
	}
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	char *tmp = xasprintf("%.*s.tmp-XXXXXX", (int)n, dir);
	if (!mkdtemp(tmp)) {
		/* README's rule: a missing parent folder is the user's (1), permission or disk the machine's (2) */
		rc = err_path(tmp, errno, "a folder in an existing directory");
		free(tmp);
		return rc;
	}
	/* mkdtemp makes the folder 0700 (private while it is filled); the folder the user gets is made as
	 * mkdir(DIR, 0777) would: the user's umask decides */
	mode_t mask = umask(0);
	umask(mask);
	if (chmod(tmp, 0777 & ~mask) != 0) {
		rc = err_path(tmp, errno, "a folder whose mode can be set");
		goto fail;
	}
	if ((imp->ncpu && write_file(imp, HW_CPU, tmp)) || write_file(imp, HW_SYSTEM, tmp))
		goto fail;
	/* what is written must load as an overlay: a failure here is the importer's bug */
	if (hw_db_check_dir(tmp, errs)) {
		err_set("%s: the imported tables do not load (a bug in hw import; messages above)", dir);
		rc = ERR_ENV;
		goto fail;
	}
	if (intr_pending()) { /* SIGINT/SIGTERM while writing (the CLI installed intr_install) */
		err_set("%s: interrupted (%s); nothing written", dir, intr_name());
		rc = ERR_INTR;
		goto fail;
	}
	if (rename(tmp, dir) != 0) {
		err_set("%s: cannot rename %s into place: %s", dir, tmp, strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	remove_dir(tmp);
	free(tmp);
	return rc;
}
