/* hwdb tests: the shipped tables, lookups, every class of bad input (each reported at its
 * file:line:column), all-or-nothing overlays, and directory overlays.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"
#include "hwdb/hw.h"
#include "hwdb/hw_internal.h" /* hwdb/'s parts under test */
#include "tests/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char GPU_HDR[] = "id,aliases,arch,form,fp32_flops,tf32_flops,fp16_flops,bf16_flops,mem_B,mem_bw_Bps,tdp_W,"
			      "nvlink_gen,nvlinks,nvlink_bw_Bps,pcie_gen,price_usd,price_date,source\n";
static const char GPU_ROW[] = "X100,,Test,pcie,1e13,,1e14,,1.6e10,9e11,250,0,0,,4,,,test\n";
static const char SYS_HDR[] = "id,aliases,name,gpu,gpus_per_node,intra_topology,intra_link,intra_bw_Bps,host_link,host_links,"
			      "cpu,cpus_per_node,mem_B,nic,nics_per_node,storage,price_usd,price_date,power_W,source\n";

/* Overlays one buffer on a fresh default db; returns rc, the problems printed into *errs (malloc'd). */
static int overlay(hw_db *db, const char *name, const char *text, char **errs)
{
	size_t len = 0;
	FILE *f = open_memstream(errs, &len);
	int rc = hw_db_overlay_buf(db, name, text, strlen(text), f);
	fclose(f);
	return rc;
}

/* Counts lines of a message buffer. */
static int nlines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Expects the overlay of `text` to fail with a message containing every needle; db unchanged. */
static void expect_bad(test_ctx *t, const char *name, const char *text, const char *needle1, const char *needle2)
{
	hw_db db;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "default db loads");
	int ngpus = db.ngpus, nsys = db.nsystems;
	const hw_gpu *gpus = db.gpus;
	char *errs = NULL;
	int rc = overlay(&db, name, text, &errs);
	TEST_CHECK(t, rc == ERR_INPUT, "%s: rc %d, expected ERR_INPUT for:\n%s", name, rc, text);
	TEST_CHECK(t, strstr(errs, needle1) != NULL, "message lacks '%s': %s", needle1, errs);
	if (needle2)
		TEST_CHECK(t, strstr(errs, needle2) != NULL, "message lacks '%s': %s", needle2, errs);
	TEST_CHECK(t, strstr(err_msg(), needle1) != NULL || nlines(errs) > 1, "err_msg names the first problem: %s", err_msg());
	TEST_CHECK(t, db.ngpus == ngpus && db.nsystems == nsys && db.gpus == gpus, "db unchanged after a failed overlay");
	free(errs);
	hw_db_free(&db);
}

static void test_default_db(test_ctx *t)
{
	static const char *const ids[] = {
		"c4130-p100", "c4140-b", "c4140-k", "c4140-m", "r740-p40", "dgx1-v100", "apollo6500-v100",
		"dss8440-v100", "dgx2h-v100", "dgxa100-40g", "dgxa100-80g", "dgxh100", "hgx-h200", "xe8545-a100-40g",
		"xe8545-a100-80g", "xe9680-h100", "xe8640-h100", "r750xa-a100-pcie-80g", "dss8440-a100-pcie-40g",
		"testbed-h100x1", "testbed-h200x1", "testbed-h200x2", "testbed-h200x4"};
	static const char *const gpus[] = {
		"P100-PCIe-16GB", "P100-SXM2-16GB", "P40", "T4", "V100-PCIe-16GB", "V100-PCIe-32GB", "V100-SXM2-16GB",
		"V100-SXM2-32GB", "V100-SXM3-32GB", "V100-SXM3-32GB-H", "V100S-PCIe-32GB", "A30", "A100-PCIe-40GB",
		"A100-PCIe-80GB", "A100-SXM4-40GB", "A100-SXM4-80GB", "L40S", "H100-PCIe-80GB", "H100-SXM5-80GB",
		"H200-SXM-141GB", "B200"};
	static const char *const cpus[] = {
		"Xeon E5-2698 v4", "Xeon Silver 4116", "Xeon Gold 6148", "Xeon Gold 6248", "Xeon Gold 6248R",
		"Xeon Gold 6338", "Xeon Gold 6448Y", "Xeon Platinum 8168", "Xeon Platinum 8174", "Xeon Platinum 8380",
		"Xeon Platinum 8462Y+", "Xeon Platinum 8468", "Xeon Platinum 8470", "Xeon Platinum 8480+",
		"Xeon Platinum 8480C", "EPYC 7742", "EPYC 7713", "EPYC 7763", "EPYC 7V12"};
	static const char *const links[] = {"pcie3-x16", "pcie4-x16", "pcie5-x16", "nvlink1", "nvlink2", "nvlink3",
					    "nvlink4", "nvlink5", "nvswitch1", "nvswitch2", "nvswitch3", "ib-edr",
					    "ib-hdr", "ib-ndr", "ib-xdr", "eth-1g", "eth-10g", "eth-25g", "eth-40g",
					    "eth-100g", "eth-200g", "eth-400g", "roce-100g"};
	hw_db db;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "default db loads: %s", err_msg());
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		const hw_system *s = hw_system_find(&db, ids[i]);
		TEST_CHECK(t, s != NULL, "system %s exists", ids[i]);
		if (!s)
			continue;
		TEST_CHECK(t, s->gpu && s->host_link, "%s: gpu and host link resolved", ids[i]);
		TEST_CHECK(t, *s->source, "%s has a source", ids[i]);
		TEST_CHECK(t, s->intra == HW_TOPO_SINGLE || (s->intra_link && s->intra_bw_Bps > 0),
			   "%s: intra link for a multi-GPU node", ids[i]);
	}
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
		const hw_gpu *g = hw_gpu_find(&db, gpus[i]);
		TEST_CHECK(t, g && *g->source && g->fp32_flops > 0 && g->mem_B > 0, "gpu %s with source", gpus[i]);
	}
	for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++) {
		const hw_cpu *c = hw_cpu_find(&db, cpus[i]);
		TEST_CHECK(t, c && c->cores > 0 && *c->source, "cpu %s with cores and source", cpus[i]);
	}
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
		TEST_CHECK(t, hw_link_find(&db, links[i]) != NULL, "link %s", links[i]);
	for (int i = 0; i < db.nstorage; i++)
		TEST_CHECK(t, *db.storage[i].source, "storage %s has a source", db.storage[i].id);

	/* the facts later modules rely on */
	const hw_system *k = hw_system_find(&db, "c4140-k"), *m = hw_system_find(&db, "c4140-m");
	if (k && m) {
		TEST_CHECK(t, k->host_links == 1 && m->host_links == 4, "C4140-K 1 x16, C4140-M 4 x16 (%d, %d)",
			   k->host_links, m->host_links);
		TEST_CHECK(t, k->cpu && k->cpu->cores == 12 && m->cpu && m->cpu->cores == 20, "K 12 cores, M 20 cores");
		TEST_NEAR(t, m->mem_B, 384e9, 1e-12);
		TEST_CHECK(t, k->gpu == m->gpu, "same GPU item");
	}
	const hw_system *x4 = hw_system_find(&db, "testbed-h200x4");
	if (x4) {
		TEST_CHECK(t, x4->gpus_per_node == 4 && x4->cpu && x4->cpu->cores * x4->cpus_per_node == 64, "h200x4: 4 GPUs 64 cores");
		TEST_NEAR(t, x4->intra_bw_Bps, 18 * 25e9, 1e-12); /* 18 NVLink4 links of 25 GB/s per direction */
	}
	const hw_gpu *h100 = hw_gpu_find(&db, "H100-SXM5-80GB");
	if (h100) {
		TEST_NEAR(t, hw_gpu_peak_flops(h100, "bf16"), 989.4e12, 1e-9);
		TEST_NEAR(t, hw_gpu_peak_flops(h100, "fp32"), 67e12, 1e-9);
		TEST_NEAR(t, h100->nvlink_bw_Bps, 450e9, 1e-12);
	}
	const hw_gpu *v100 = hw_gpu_find(&db, "V100-SXM2-16GB");
	if (v100) {
		TEST_NEAR(t, hw_gpu_peak_flops(v100, "bf16"), 125e12, 1e-9); /* no bf16: falls back to fp16 */
		TEST_NEAR(t, hw_gpu_peak_flops(v100, "tf32"), 15.7e12, 1e-9); /* no tf32: falls back to fp32 */
		TEST_CHECK(t, isnan(hw_gpu_peak_flops(v100, "fp8")), "unknown precision is NAN");
	}
	const hw_gpu *p40 = hw_gpu_find(&db, "P40");
	if (p40)
		TEST_NEAR(t, hw_gpu_peak_flops(p40, "fp16"), 12e12, 1e-9); /* no fast fp16: fp32 */
	const hw_link *pcie3 = hw_link_find(&db, "pcie3-x16");
	if (pcie3)
		TEST_NEAR(t, pcie3->bw_Bps, 15.75e9, 1e-12);
	/* ids unique across kinds, so `hw show ID` is unambiguous */
	for (int i = 0; i < db.nsystems; i++)
		TEST_CHECK(t, !hw_gpu_find(&db, db.systems[i].id) && !hw_cpu_find(&db, db.systems[i].id) &&
				      !hw_link_find(&db, db.systems[i].id) && !hw_storage_find(&db, db.systems[i].id),
			   "system id %s is not also another kind's id", db.systems[i].id);
	for (int i = 0; i < db.ngpus; i++)
		TEST_CHECK(t, !hw_cpu_find(&db, db.gpus[i].id) && !hw_link_find(&db, db.gpus[i].id), "gpu id %s unique", db.gpus[i].id);
	hw_db_free(&db);
	hw_db_free(&db); /* free twice is safe: the first left it empty */
	hw_db_free(NULL);
}

static void test_lookup(test_ctx *t)
{
	hw_db db;
	char buf[256];
	TEST_CHECK(t, hw_db_load_default(&db, NULL) == 0, "loads");
	TEST_CHECK(t, hw_gpu_find(&db, "h100-sxm5-80gb") == hw_gpu_find(&db, "H100-SXM5-80GB"), "case-insensitive");
	TEST_CHECK(t, hw_gpu_find(&db, "H100-80GB-HBM3") == hw_gpu_find(&db, "H100-SXM5-80GB"), "alias (testbed name)");
	TEST_CHECK(t, hw_cpu_find(&db, "gold 6148") == hw_cpu_find(&db, "Xeon Gold 6148"), "cpu alias");
	TEST_CHECK(t, hw_system_find(&db, "nope") == NULL, "absent id is NULL");
	TEST_CHECK(t, hw_gpu_find(&db, "") == NULL && hw_gpu_find(&db, NULL) == NULL, "empty id is NULL");
	TEST_CHECK(t, hw_gpu_find(&db, "c4140-m") == NULL, "a system id is not a gpu");
	hw_suggest(&db, HW_SYSTEM, "c4140m", buf, sizeof buf);
	TEST_CHECK(t, strstr(buf, "c4140-m") != NULL, "suggests c4140-m: '%s'", buf);
	hw_suggest(&db, HW_GPU, "V100-SXM2", buf, sizeof buf);
	TEST_CHECK(t, strstr(buf, "V100-SXM2-16GB") != NULL, "suggests V100-SXM2-16GB: '%s'", buf);
	hw_suggest(&db, HW_NKINDS, "zzzzzzzzzzzzzzzzzzzzzzzzz", buf, sizeof buf);
	TEST_CHECK(t, buf[0] == '\0', "nothing near: '%s'", buf);
	hw_suggest(&db, HW_NKINDS, "dgx", buf, 8);
	TEST_CHECK(t, strlen(buf) < 8, "suggestion fits a small buffer");
	TEST_CHECK(t, hw_kind_parse("gpus") == HW_GPU && hw_kind_parse("system") == HW_SYSTEM && hw_kind_parse("x") < 0, "kinds");
	TEST_CHECK(t, strcmp(hw_topo_name(HW_TOPO_PCIE_SWITCH), "pcie-switch") == 0, "topo name");
	FILE *f = fopen("/dev/null", "w");
	TEST_CHECK(t, hw_db_show(&db, "c4140-m", f) && !hw_db_show(&db, "nope", f), "show");
	fclose(f);
	hw_db_free(&db);
}

static void test_errors(test_ctx *t)
{
	char buf[2048];
	/* wrong type */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,fast,,1e14,,1.6e10,9e11,250,0,0,,4,,,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:2:5(fp32_flops)", "not a number");
	/* a unit in the cell */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,1e13,,1e14,,16GB,9e11,250,0,0,,4,,,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:2:9(mem_B)", "bytes");
	/* wrong unit: GB where bytes are wanted gets a hint */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,1e13,,1e14,,16,9e11,250,0,0,,4,,,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:2:9(mem_B)", "G-prefixed");
	/* negative */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,1e13,,1e14,,1.6e10,9e11,-250,0,0,,4,,,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:2:11(tdp_W)", "negative");
	/* absurd */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,1e20,,1e21,,1.6e10,9e11,250,0,0,,4,,,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:2:5(fp32_flops)", "out of the plausible range");
	/* not finite, not whole */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,inf,,1e14,,1.6e10,9e11,250,0,0,,4.5,,,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:2:5(fp32_flops)", "gpus.csv:2:15(pcie_gen)");
	/* duplicate id (case-insensitive) */
	snprintf(buf, sizeof buf, "%s%s# comment\nx100,,Test,pcie,1e13,,1e14,,1.6e10,9e11,250,0,0,,4,,,test\n", GPU_HDR, GPU_ROW);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:4:1(id)", "duplicate id 'X100' (first at line 2)");
	/* empty required cell */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,1e13,,1e14,,1.6e10,9e11,250,0,0,,4,,,\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:2:18(source)", "empty");
	/* bad date */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,1e13,,1e14,,1.6e10,9e11,250,0,0,,4,100,2020-13,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv:2:17(price_date)", "YYYY");
	/* rows that contradict themselves */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,1e13,,1e12,,1.6e10,9e11,250,2,0,,4,,,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "(fp16_flops): FP16 peak", "(nvlinks)");
	expect_bad(t, "cpus.csv", "id,aliases,vendor,cores,threads,base_hz,turbo_hz,tdp_W,source\nC1,,Intel,8,16,3e9,2e9,100,x\n",
		   "cpus.csv:2:7(turbo_hz)", "below base");
	/* missing column, unknown column (with a near-name hint) */
	expect_bad(t, "cpus.csv", "id,aliases,vendor,cores,threads,base_hz,turbo_hz,source\nC1,,Intel,8,16,3e9,4e9,x\n",
		   "cpus.csv:1: missing column 'tdp_W'", NULL);
	expect_bad(t, "cpus.csv", "id,aliases,vendor,cores,threads,base_hz,turbo_hz,tdp_W,sorce,source\nC1,,Intel,8,16,3e9,4e9,1,x,y\n",
		   "cpus.csv:1:9: unknown column 'sorce'", "did you mean 'source'");
	/* bad enum */
	expect_bad(t, "links.csv", "id,aliases,kind,gen,bw_Bps,latency_s,source\nL1,,infiniband,0,1e10,,x\n",
		   "links.csv:2:3(kind)", "expected one of pcie, nvlink");
	/* an id with a comma-free but odd character */
	expect_bad(t, "links.csv", "id,aliases,kind,gen,bw_Bps,latency_s,source\nL/1,,ib,0,1e10,,x\n", "links.csv:2:1(id)", "not an id");
	/* unknown reference, with a suggestion */
	snprintf(buf, sizeof buf, "%ss1,,S,V100-SXM2-61GB,4,nvlink-mesh,nvlink2,1.5e11,pcie3-x16,1,,2,,,,,,,,x\n", SYS_HDR);
	expect_bad(t, "systems.csv", buf, "systems.csv:2:4(gpu): unknown gpu 'V100-SXM2-61GB'", "did you mean V100-SXM2-16GB");
	snprintf(buf, sizeof buf, "%ss1,,S,T4,1,single,,,pcie9-x16,1,Gold 9999,1,,,,,,,,x\n", SYS_HDR);
	expect_bad(t, "systems.csv", buf, "systems.csv:2:9(host_link): unknown link 'pcie9-x16'", "systems.csv:2:11(cpu): unknown cpu");
	/* topology that does not fit the GPU count */
	snprintf(buf, sizeof buf, "%ss1,,S,T4,2,single,,,pcie3-x16,1,,1,,,,,,,,x\n", SYS_HDR);
	expect_bad(t, "systems.csv", buf, "systems.csv:2:6(intra_topology)", "'single' exactly when 1 GPU");
	/* CSV-level problems: ragged row, bad quoting */
	snprintf(buf, sizeof buf, "%sX100,,Test,pcie,1e13\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv", NULL);
	snprintf(buf, sizeof buf, "%sX100,,\"Test,pcie,1e13,,1e14,,1.6e10,9e11,250,0,0,,4,,,test\n", GPU_HDR);
	expect_bad(t, "gpus.csv", buf, "gpus.csv", NULL);
	/* not a table name */
	expect_bad(t, "gpu.csv", "id\nx\n", "gpu.csv", NULL);

	/* every problem is reported, each at its cell */
	hw_db db;
	char *errs = NULL;
	hw_db_load_default(&db, NULL);
	snprintf(buf, sizeof buf, "%sA,,Test,pcie,x,,1e14,,1.6e10,9e11,250,0,0,,4,,,t\nB,,Test,pcie,1e13,,1e14,,16,9e11,250,0,0,,4,,,t\n"
		 "C,,Test,pcie,1e13,,1e14,,1.6e10,9e11,-1,0,0,,4,,,t\n", GPU_HDR);
	TEST_CHECK(t, overlay(&db, "gpus.csv", buf, &errs) == ERR_INPUT, "three bad rows");
	TEST_CHECK(t, nlines(errs) == 3 && strstr(errs, ":2:5(") && strstr(errs, ":3:9(") && strstr(errs, ":4:11("),
		   "all three reported: %s", errs);
	TEST_CHECK(t, strstr(err_msg(), "and 2 more problems") != NULL, "summary counts them: %s", err_msg());
	free(errs);
	hw_db_free(&db);
}

static void test_overlay(test_ctx *t)
{
	hw_db db;
	char buf[2048], *errs = NULL;
	TEST_CHECK(t, hw_db_load_default(&db, NULL) == 0, "loads");
	int ngpus = db.ngpus, nsys = db.nsystems;
	/* a new GPU, and the V100-SXM2-16GB replaced (same id, any case): the systems that use it follow */
	snprintf(buf, sizeof buf, "%s%sv100-sxm2-16gb,V100,Volta,sxm,15e12,,120e12,,16e9,8e11,300,2,6,150e9,3,9000,2019-01,my measurement\n",
		 GPU_HDR, GPU_ROW);
	TEST_CHECK(t, overlay(&db, "gpus.csv", buf, &errs) == 0, "overlay ok: %s", errs);
	free(errs);
	TEST_CHECK(t, db.ngpus == ngpus + 1, "one new gpu (%d -> %d)", ngpus, db.ngpus);
	const hw_gpu *v = hw_gpu_find(&db, "V100-SXM2-16GB");
	TEST_CHECK(t, v && v->fp32_flops == 15e12 && v->price_usd == 9000 && strcmp(v->source, "my measurement") == 0, "replaced");
	const hw_system *m = hw_system_find(&db, "c4140-m");
	TEST_CHECK(t, m && m->gpu == v, "c4140-m points at the replaced GPU");
	TEST_CHECK(t, hw_gpu_find(&db, "X100") != NULL, "added");
	/* a system naming the new GPU, and c4140-m with more memory */
	snprintf(buf, sizeof buf,
		 "%smybox,,My box,X100,2,pcie-switch,pcie4-x16,3.15e10,pcie4-x16,1,EPYC 7742,1,2.56e11,eth-100g,1,nfs-head,,,1500,quote\n"
		 "C4140-M,,C4140 M with more memory,V100-SXM2-16GB,4,nvlink-mesh,nvlink2,1.5e11,pcie3-x16,4,Xeon Gold 6148,2,7.68e11,ib-edr,1,,,,,mine\n",
		 SYS_HDR);
	TEST_CHECK(t, overlay(&db, "systems.csv", buf, &errs) == 0, "systems overlay ok: %s", errs);
	free(errs);
	TEST_CHECK(t, db.nsystems == nsys + 1, "one new system");
	const hw_system *mine = hw_system_find(&db, "mybox");
	TEST_CHECK(t, mine && mine->gpu == hw_gpu_find(&db, "X100") && mine->cpu && mine->cpu->cores == 64 && mine->storage,
		   "new system resolved");
	m = hw_system_find(&db, "c4140-m");
	TEST_CHECK(t, m && m->mem_B == 7.68e11 && strcmp(m->id, "C4140-M") == 0, "c4140-m replaced");
	/* a failing overlay after successful ones changes nothing */
	const hw_system *before = db.systems;
	snprintf(buf, sizeof buf, "%sother,,O,X200,2,pcie-switch,pcie4-x16,3e10,pcie4-x16,1,,1,,,,,,,,x\n", SYS_HDR);
	TEST_CHECK(t, overlay(&db, "systems.csv", buf, &errs) == ERR_INPUT, "unknown X200");
	free(errs);
	TEST_CHECK(t, db.systems == before && db.nsystems == nsys + 1 && hw_system_find(&db, "other") == NULL,
		   "nothing half-loaded");
	hw_db_free(&db);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_dir(test_ctx *t)
{
	char dir[] = "/tmp/test_hwdb_XXXXXX";
	char path[512], buf[2048];
	TEST_CHECK(t, mkdtemp(dir) != NULL, "mkdtemp");
	hw_db db;
	hw_db_load_default(&db, NULL);
	TEST_CHECK(t, hw_db_overlay_dir(&db, "/nonexistent/hwdb", NULL) == ERR_INPUT, "missing dir is the user's error (ERR_INPUT: exit 1)");
	TEST_CHECK(t, hw_db_overlay_dir(&db, dir, NULL) == ERR_INPUT, "empty dir is ERR_INPUT");
	/* gpus.csv adds a GPU that systems.csv in the same dir uses */
	snprintf(path, sizeof path, "%s/gpus.csv", dir);
	snprintf(buf, sizeof buf, "%s%s", GPU_HDR, GPU_ROW);
	write_file(path, buf);
	snprintf(path, sizeof path, "%s/systems.csv", dir);
	snprintf(buf, sizeof buf, "%sbox1,,Box,X100,1,single,,,pcie4-x16,1,,1,,,,,,,,x\n", SYS_HDR);
	write_file(path, buf);
	snprintf(path, sizeof path, "%s/notes.txt", dir);
	write_file(path, "ignored\n");
	TEST_CHECK(t, hw_db_overlay_dir(&db, dir, stderr) == 0, "dir overlay: %s", err_msg());
	TEST_CHECK(t, hw_system_find(&db, "box1") && hw_system_find(&db, "box1")->gpu == hw_gpu_find(&db, "X100"), "cross-table");
	TEST_CHECK(t, hw_db_check_dir(dir, NULL) == 0, "check ok");
	/* a misnamed table is an error, and check leaves nothing behind */
	snprintf(path, sizeof path, "%s/gpu.csv", dir);
	write_file(path, "id\n");
	TEST_CHECK(t, hw_db_check_dir(dir, NULL) == ERR_INPUT, "gpu.csv is not a table name");
	remove(path);
	snprintf(path, sizeof path, "%s/gpus.csv", dir);
	remove(path);
	TEST_CHECK(t, hw_db_check_dir(dir, NULL) == ERR_INPUT, "box1 now names an unknown GPU");
	snprintf(path, sizeof path, "%s/systems.csv", dir);
	remove(path);
	snprintf(path, sizeof path, "%s/notes.txt", dir);
	remove(path);
	rmdir(dir);
	hw_db_free(&db);
}

/* Every system that can be clustered has a default network and every system a default stack
 * that matches how such systems were run; the stack rows carry what the model reads. */
static void test_stacks_networks(test_ctx *t)
{
	static const char *const whitepaper[] = {"c4130-p100", "c4140-b", "c4140-k", "c4140-m", "r740-p40",
						  "apollo6500-v100", "dss8440-v100"};
	static const char *const mlperf[] = {"dgx1-v100", "dgx2-v100", "dgxa100-80g", "dgxh100", "hgx-h200",
					     "xe9680-h100", "xe8640-h100", "dss8440-a100-pcie-40g"};
	hw_db db;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "default db loads");
	for (int i = 0; i < db.nsystems; i++) {
		const hw_system *s = &db.systems[i];
		bool testbed = strncmp(s->id, "testbed-", 8) == 0;
		/* the GPU test machines are single VMs with no network between them; every other system is
		 * sold to be clustered */
		TEST_CHECK(t, testbed || (s->fabric && s->nic && s->nics_per_node >= 1),
			   "%s: a clusterable system has a default fabric and NICs", s->id);
		TEST_CHECK(t, !testbed || !s->fabric, "%s: a test VM has no network", s->id);
		TEST_CHECK(t, s->stack != NULL, "%s has a default stack", s->id);
		TEST_CHECK(t, (s->local_drives > 0) == hw_known(s->local_drive_Bps), "%s: drives and their rate", s->id);
	}
	for (size_t i = 0; i < sizeof whitepaper / sizeof *whitepaper; i++) {
		const hw_system *s = hw_system_find(&db, whitepaper[i]);
		TEST_CHECK(t, s && s->stack && strcmp(s->stack->id, "tf1-hvd") == 0, "%s runs TensorFlow + Horovod", whitepaper[i]);
	}
	for (size_t i = 0; i < sizeof mlperf / sizeof *mlperf; i++) {
		const hw_system *s = hw_system_find(&db, mlperf[i]);
		TEST_CHECK(t, s && s->stack && strcmp(s->stack->id, "ngc-mlperf") == 0, "%s runs the NGC MLPerf stack", mlperf[i]);
	}
	const hw_system *xe = hw_system_find(&db, "xe9680-h100");
	TEST_CHECK(t, xe && xe->fabric && xe->nics_per_node == 8 && xe->nic && xe->nic->bw_Bps == 50e9,
		   "xe9680-h100: 8 x 400 Gb/s (--nodes 2 needs a network)");
	const hw_stack *ngc = hw_stack_find(&db, "ngc-mlperf"), *tf = hw_stack_find(&db, "tf1-hvd");
	TEST_CHECK(t, ngc && ngc->data_path == HW_DATA_GPU && ngc->staging == HW_STAGE_LOCAL && ngc->grad_B == 2 &&
			      ngc->comm_hidden_frac == 0 && ngc->bucket_B == 67108864,
		   "ngc-mlperf: DALI, staged, fp16 grads, 64 MiB fusion, no backward overlap");
	TEST_CHECK(t, tf && tf->data_path == HW_DATA_CPU && tf->staging == HW_STAGE_NONE && tf->threads_per_gpu == 4 &&
			      isnan(tf->grad_B) && isnan(tf->step_overhead_s),
		   "tf1-hvd: CPU decode, cold reads, 4 threads per GPU, the rest the model's defaults");
	TEST_CHECK(t, hw_stack_find(&db, "NGC") == ngc, "stack aliases");
	for (int i = 0; i < db.nstacks; i++)
		TEST_CHECK(t, strlen(db.stacks[i].source) > 20, "stack %s has a source", db.stacks[i].id);
	hw_db_free(&db);

	/* the new stack columns are checked like the others */
	static const char STK_HDR[] = "id,aliases,framework,data_path,staging,threads_per_gpu,decode_threads,decode_img_s_core,"
				      "grad_B,bucket_B,comm_hidden_frac,step_overhead_s,source\n";
	char buf[1024];
	snprintf(buf, sizeof buf, "%sx,,X,gpu,cached,0,0,,,,,,src\n", STK_HDR);
	expect_bad(t, "stacks.csv", buf, "stacks.csv:2:5(staging): 'cached' is not a staging mode; expected one of none, local", NULL);
	snprintf(buf, sizeof buf, "%sx,,X,gpu,local,0,0,,16,,,,src\n", STK_HDR);
	expect_bad(t, "stacks.csv", buf, "stacks.csv:2:9(grad_B): 16 is out of the plausible range [1, 4]", NULL);
	snprintf(buf, sizeof buf, "%sx,,X,gpu,local,0,0,,,,1.5,,src\n", STK_HDR);
	expect_bad(t, "stacks.csv", buf, "stacks.csv:2:11(comm_hidden_frac): 1.5 is out of the plausible range", NULL);
	/* an old stacks.csv without the new columns still loads: cpu, not staged, defaults */
	hw_db d2;
	char *errs = NULL;
	TEST_CHECK(t, hw_db_load_default(&d2, stderr) == 0, "default db loads");
	TEST_CHECK(t, overlay(&d2, "stacks.csv", "id,aliases,framework,threads_per_gpu,decode_threads,source\nold,,Old,2,8,src\n", &errs) == 0,
		   "an old stacks.csv loads: %s", errs);
	const hw_stack *old = hw_stack_find(&d2, "old");
	TEST_CHECK(t, old && old->data_path == HW_DATA_CPU && old->staging == HW_STAGE_NONE && isnan(old->grad_B) &&
			      old->threads_per_gpu == 2,
		   "omitted columns read as empty");
	free(errs);
	hw_db_free(&d2);
}

/* systems.csv with the price and rent columns. Columns 1-19 as SYS_HDR, then 20 price_kind,
 * 21 price_source, 22 provider, 23-25 the three rates, 26 rent_date, 27 rent_source, 28 domain_gpus,
 * 29 unit_nodes, 30 source. */
static const char SYS_PRICE_HDR[] = "id,aliases,name,gpu,gpus_per_node,intra_topology,intra_link,intra_bw_Bps,host_link,"
				    "host_links,cpu,cpus_per_node,mem_B,nic,nics_per_node,storage,price_usd,price_date,"
				    "power_W,price_kind,price_source,provider,rent_usd_gpu_h,rent_1y_usd_gpu_h,"
				    "rent_3y_usd_gpu_h,rent_date,rent_source,domain_gpus,unit_nodes,source\n";

/* The price and rent cells of one test row, each replaceable by a case. */
enum { P_PRICE, P_DATE, P_KIND, P_PSRC, P_RENT, P_R1Y, P_R3Y, P_RDATE, P_RSRC, P_DOMAIN, P_UNIT, P_N };

static void price_row(char *buf, size_t len_B, int which, const char *value)
{
	const char *v[P_N] = {"250000", "2026-10", "quote", "my quote", "2.5", "2.0", "1.5", "2026-11", "price page",
			      "8", "1"};
	if (which >= 0)
		v[which] = value;
	snprintf(buf, len_B, "%snb,,New box,T4,4,pcie-host,pcie3-x16,15.75e9,pcie3-x16,4,,2,,eth-100g,1,,%s,%s,1000,%s,%s,"
		 "Cloud,%s,%s,%s,%s,%s,%s,%s,src\n", SYS_PRICE_HDR, v[P_PRICE], v[P_DATE], v[P_KIND], v[P_PSRC], v[P_RENT],
		 v[P_R1Y], v[P_R3Y], v[P_RDATE], v[P_RSRC], v[P_DOMAIN], v[P_UNIT]);
}

static void test_prices(test_ctx *t)
{
	static const struct { int which; const char *value, *needle; } bad[] = {
		{P_PRICE, "-5", "systems.csv:2:17(price_usd): -5 is negative"},
		{P_PRICE, "0", "systems.csv:2:17(price_usd): 0 is out of the plausible range"},
		{P_PRICE, "$250k", "systems.csv:2:17(price_usd): '$250k' is not a number"},
		{P_DATE, "10/2026", "systems.csv:2:18(price_date): '10/2026' is not a date"},
		{P_KIND, "cheap", "systems.csv:2:20(price_kind): 'cheap' is not a price kind; expected list, quote, press or estimate"},
		{P_KIND, "", "systems.csv:2:20(price_kind): empty; price_usd 250000 needs price_kind"},
		{P_PSRC, "", "systems.csv:2:21(price_source): empty; price_usd 250000 needs price_source"},
		{P_RENT, "-1", "systems.csv:2:23(rent_usd_gpu_h): -1 is negative"},
		{P_RENT, "0", "systems.csv:2:23(rent_usd_gpu_h): 0 is out of the plausible range"},
		{P_RENT, "cheap", "systems.csv:2:23(rent_usd_gpu_h): 'cheap' is not a number"},
		{P_R1Y, "x", "systems.csv:2:24(rent_1y_usd_gpu_h): 'x' is not a number"},
		{P_R3Y, "-2", "systems.csv:2:25(rent_3y_usd_gpu_h): -2 is negative"},
		{P_RDATE, "2025-13", "systems.csv:2:26(rent_date): '2025-13' is not a date"},
		{P_RDATE, "", "systems.csv:2:26(rent_date): empty; a rental rate needs rent_date"},
		{P_RSRC, "", "systems.csv:2:27(rent_source): empty; a rental rate needs rent_source"},
		{P_DOMAIN, "6", "systems.csv:2:28(domain_gpus): 6 is not a multiple of gpus_per_node 4"},
		{P_DOMAIN, "2", "systems.csv:2:28(domain_gpus): 2 is not a multiple of gpus_per_node 4"},
		{P_DOMAIN, "many", "systems.csv:2:28(domain_gpus): 'many' is not a number"},
		{P_UNIT, "0", "systems.csv:2:29(unit_nodes): 0 is out of the plausible range"},
		{P_UNIT, "1.5", "systems.csv:2:29(unit_nodes): '1.5' is not a whole number"},
	};
	char buf[2048], *errs = NULL;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		price_row(buf, sizeof buf, bad[i].which, bad[i].value);
		expect_bad(t, "systems.csv", buf, bad[i].needle, NULL);
	}
	/* the good row loads with every field */
	hw_db db;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "default db loads");
	price_row(buf, sizeof buf, P_DOMAIN, "72");
	TEST_CHECK(t, overlay(&db, "systems.csv", buf, &errs) == 0, "a priced row loads: %s", errs);
	free(errs);
	const hw_system *nb = hw_system_find(&db, "nb");
	TEST_CHECK(t, nb && nb->price_usd == 250000 && strcmp(nb->price_kind, "quote") == 0 && nb->rent_usd_gpu_h == 2.5 &&
			      nb->rent_1y_usd_gpu_h == 2.0 && nb->rent_3y_usd_gpu_h == 1.5 && nb->domain_gpus == 72 &&
			      nb->unit_nodes == 1 && strcmp(nb->provider, "Cloud") == 0 && strcmp(nb->rent_source, "price page") == 0,
		   "every new field read");

	/* a user's quote: a table of id and price columns changes the price of a system that exists (id or
	 * alias), with its own kind, date and source, and leaves the rest (rent included) as it was */
	const hw_system *h = hw_system_find(&db, "dgxh100");
	double mem = h ? h->mem_B : NAN, rent = h ? h->rent_usd_gpu_h : NAN;
	TEST_CHECK(t, overlay(&db, "systems.csv",
			      "id,price_usd,price_kind,price_date,price_source\n"
			      "dgx-h100,287000,quote,2026-10,quote from our reseller (2026-10-02)\n"
			      "dgx1,99000,quote,2026-09,used-market quote\n", &errs) == 0,
		   "a price table loads: %s", errs);
	free(errs);
	h = hw_system_find(&db, "dgxh100");
	const hw_system *d1 = hw_system_find(&db, "dgx1-v100");
	TEST_CHECK(t, h && h->price_usd == 287000 && strcmp(h->price_kind, "quote") == 0 &&
			      strcmp(h->price_source, "quote from our reseller (2026-10-02)") == 0 && strcmp(h->price_date, "2026-10") == 0,
		   "the overlay price wins");
	TEST_CHECK(t, h && h->mem_B == mem && (h->rent_usd_gpu_h == rent || (isnan(rent) && isnan(h->rent_usd_gpu_h))) &&
			      h->gpu && strcmp(h->gpu->id, "H100-SXM5-80GB") == 0,
		   "the rest of dgxh100 unchanged");
	TEST_CHECK(t, d1 && d1->price_usd == 99000 && strcmp(d1->price_source, "used-market quote") == 0, "dgx1 quote by alias");
	/* a rent table replaces the rates only; rates left out of it are gone (not kept from another source) */
	TEST_CHECK(t, overlay(&db, "systems.csv", "id,rent_usd_gpu_h,rent_date,rent_source\ndgxh100,1.99,2026-11,our colo\n", &errs) == 0,
		   "a rent table loads: %s", errs);
	free(errs);
	h = hw_system_find(&db, "dgxh100");
	TEST_CHECK(t, h && h->rent_usd_gpu_h == 1.99 && isnan(h->rent_1y_usd_gpu_h) && h->price_usd == 287000 &&
			      strcmp(h->rent_source, "our colo") == 0,
		   "rent replaced, price kept");
	hw_db_free(&db);

	/* a price row for a system that does not exist, a price without its kind or source, a bad price:
	 * each named at its cell, nothing loaded */
	expect_bad(t, "systems.csv", "id,price_usd,price_kind,price_date,price_source\ndgxz100,1000,quote,2026-01,me\n",
		   "systems.csv:2:1(id): unknown system 'dgxz100'; did you mean", "changes the price of a system that exists");
	expect_bad(t, "systems.csv", "id,price_usd,price_date,price_source\ndgxh100,1000,2026-01,me\n",
		   "systems.csv:2: empty; price_usd 1000 needs price_kind", NULL);
	expect_bad(t, "systems.csv", "id,price_usd,price_kind\ndgxh100,1000,quote\n",
		   "systems.csv:2: empty; price_usd 1000 needs price_source", NULL);
	expect_bad(t, "systems.csv", "id,price_usd,price_kind,price_source\ndgxh100,-3,quote,me\n",
		   "systems.csv:2:2(price_usd): -3 is negative", NULL);
	expect_bad(t, "systems.csv", "id,rent_usd_gpu_h,rent_source\ndgxh100,2,me\n",
		   "systems.csv:2: empty; a rental rate needs rent_date", NULL);
	/* a table with other columns is a full systems.csv: the missing ones are named as before */
	expect_bad(t, "systems.csv", "id,price_usd,gpu\ndgxh100,1000,H100\n", "systems.csv:1: missing column 'name'", NULL);
	/* an old-format table (no price_kind column) with a price: the kind is asked for, not guessed */
	snprintf(buf, sizeof buf, "%sold,,Old,T4,1,single,,,pcie3-x16,1,,1,,,,,20000,2024-06,,x\n", SYS_HDR);
	expect_bad(t, "systems.csv", buf, "systems.csv:2: empty; price_usd 20000 needs price_kind", NULL);
}

/* Every product carries a price with its kind and source, every cloud instance its provider
 * and a rate (or a source that says why there is none), and the 2025-26 systems the figures the model
 * reads. */
static void test_price_data(test_ctx *t)
{
	static const char *const clouds[] = {"aws-p4d", "aws-p5", "aws-p5e", "aws-p5en", "aws-p6-b200", "azure-nd-h100-v5",
					     "azure-nd-h200-v5", "gcp-a3-high", "gcp-a3-ultra", "gcp-a4", "coreweave-hgx-h100",
					     "coreweave-hgx-b200", "lambda-hgx-h100", "lambda-hgx-b200"};
	hw_db db;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "default db loads");
	int priced = 0, rented = 0;
	for (int i = 0; i < db.nsystems; i++) {
		const hw_system *s = &db.systems[i];
		bool testbed = strncmp(s->id, "testbed-", 8) == 0, cloud = *s->provider != '\0';
		TEST_CHECK(t, testbed || cloud || (hw_known(s->price_usd) && *s->price_kind && strlen(s->price_source) > 20 && *s->price_date),
			   "%s: a product has a price with kind, date and source", s->id);
		TEST_CHECK(t, !testbed || (!hw_known(s->price_usd) && !hw_known(s->rent_usd_gpu_h)), "%s: a test bed is unpriced", s->id);
		TEST_CHECK(t, !cloud || (!hw_known(s->price_usd) && strlen(s->rent_source) > 20), "%s: a cloud instance is rented, with a source",
			   s->id);
		TEST_CHECK(t, s->unit_nodes >= 1 && (s->domain_gpus == 0 || s->domain_gpus % s->gpus_per_node == 0),
			   "%s: unit and domain", s->id);
		priced += hw_known(s->price_usd);
		rented += hw_known(s->rent_usd_gpu_h);
	}
	TEST_CHECK(t, priced >= 24 && rented >= 12, "%d priced, %d rented", priced, rented);
	for (size_t i = 0; i < sizeof clouds / sizeof clouds[0]; i++) {
		const hw_system *s = hw_system_find(&db, clouds[i]);
		TEST_CHECK(t, s && *s->provider && s->fabric && s->stack && strcmp(s->stack->id, "ngc-mlperf") == 0,
			   "%s: provider, network and the DGX/HGX default stack", clouds[i]);
	}
	const hw_system *b = hw_system_find(&db, "dgxb200"), *g2 = hw_system_find(&db, "gb200-nvl72"),
			*g3 = hw_system_find(&db, "gb300-nvl72"), *b3 = hw_system_find(&db, "hgx-b300");
	TEST_CHECK(t, b && b->gpus_per_node == 8 && b->power_W == 14300 && b->nics_per_node == 8 && b->nic->bw_Bps == 50e9 &&
			      b->intra_bw_Bps == 900e9 && b->cpu && b->cpu->cores == 56 && b->unit_nodes == 1 && b->domain_gpus == 0,
		   "dgxb200: 8x B200, NVLink 5 switches, 8x 400G, 2x 56-core Xeon 8570, 14.3 kW");
	TEST_CHECK(t, b3 && b3->nic && b3->nic->bw_Bps == 100e9 && b3->gpu->mem_B == 288e9, "hgx-b300: 800G NICs, 288 GB");
	TEST_CHECK(t, g2 && g2->gpus_per_node == 4 && g2->domain_gpus == 72 && g2->unit_nodes == 18 && g2->cpu &&
			      g2->cpu->cores == 72 && g2->cpus_per_node == 2 && hw_known(g2->price_usd) && g2->power_W < 10e3,
		   "gb200-nvl72: trays of 4 GPUs and 2 Grace, 72-GPU domain, sold as 18 trays, power per tray");
	TEST_CHECK(t, g3 && g3->domain_gpus == 72 && g3->unit_nodes == 18 && g3->nic && g3->nic->bw_Bps == 100e9,
		   "gb300-nvl72: 72-GPU domain, 800G NICs");
	const hw_gpu *b200 = hw_gpu_find(&db, "B200"), *gb200 = hw_gpu_find(&db, "GB200"), *b300 = hw_gpu_find(&db, "B300");
	TEST_CHECK(t, b200 && strcmp(b200->id, "B200-SXM-180GB") == 0 && b200->bf16_flops == 2.25e15 && b200->mem_B == 180e9 &&
			      b200->tdp_W == 1000 && b200->nvlink_bw_Bps == 900e9,
		   "B200: dense BF16 2.25 PFLOP/s, 180 GB, 1000 W, NVLink 5 900 GB/s per direction");
	TEST_CHECK(t, gb200 && gb200->mem_B == 186e9 && gb200->tdp_W == 1200 && gb200->bf16_flops == 2.5e15, "GB200's B200: 186 GB, 1200 W");
	TEST_CHECK(t, b300 && b300->mem_B == 288e9, "B300: 288 GB");
	const hw_system *p5 = hw_system_find(&db, "aws-p5");
	TEST_CHECK(t, p5 && p5->rent_usd_gpu_h == 6.88 && p5->nics_per_node == 32 && p5->nic->bw_Bps == 12.5e9,
		   "aws-p5: 55.04 USD/h over 8 GPUs after the 2025 cut; 32x 100G EFA");
	hw_db_free(&db);
}

int main(void)
{
	test_ctx t = {0};
	test_default_db(&t);
	test_lookup(&t);
	test_errors(&t);
	test_overlay(&t);
	test_dir(&t);
	test_stacks_networks(&t);
	test_prices(&t);
	test_price_data(&t);
	return test_report(&t);
}
