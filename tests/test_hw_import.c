/* hw import tests: three real MLPerf Training v4.0 system descriptions (tests/data/mlperf_systems,
 * sources in its README) mapped field by field, the imported tables loaded back as an overlay, and
 * every class of bad input refused with the file and field named.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"
#include "hwdb/hw.h"
#include "hwdb/hw_internal.h" /* hwdb/'s parts under test */
#include "tests/test.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_ "tests/data/mlperf_systems/"

/* Imports FILE into imp; the notes printed go to *notes (malloc'd). */
static int add_file(hw_import *imp, const char *path, char **notes)
{
	char *buf;
	size_t len, nlen;
	if (file_read_all(path, &buf, &len))
		return ERR_ENV;
	FILE *f = open_memstream(notes, &nlen);
	int rc = hw_import_add(imp, path, buf, len, f);
	fclose(f);
	free(buf);
	return rc;
}

static int add_text(hw_import *imp, const char *text)
{
	return hw_import_add(imp, "bad.json", text, strlen(text), NULL);
}

/* Overlays the imported tables on a fresh default db. */
static int reload(const hw_import *imp, hw_db *db)
{
	int rc = hw_db_load_default(db, stderr);
	for (int k = 0; k < 2 && rc == 0; k++) {
		hw_kind kind = k == 0 ? HW_CPU : HW_SYSTEM;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		rc = hw_import_write_table(imp, kind, f);
		fclose(f);
		if (rc == 0)
			rc = hw_db_overlay_buf(db, kind == HW_CPU ? "cpus.csv" : "systems.csv", buf, len, stderr);
		free(buf);
	}
	return rc;
}

static void test_real_files(test_ctx *t)
{
	hw_db db;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "default db");
	hw_import *imp = hw_import_new(&db);
	char *n1 = NULL, *n2 = NULL, *n3 = NULL;
	TEST_CHECK(t, add_file(imp, DIR_ "eos_ngc24.04_mxnet.json", &n1) == 0, "eos: %s", err_msg());
	TEST_CHECK(t, add_file(imp, DIR_ "R760xax4L40S.json", &n2) == 0, "dell: %s", err_msg());
	TEST_CHECK(t, add_file(imp, DIR_ "ESC8000A-E12-8xH100-PCIE-80GB.json", &n3) == 0, "asus: %s", err_msg());
	TEST_CHECK(t, hw_import_count(imp, HW_SYSTEM) == 3, "%d systems", hw_import_count(imp, HW_SYSTEM));
	TEST_CHECK(t, hw_import_count(imp, HW_CPU) == 1, "one new CPU (EPYC 9374F): %d", hw_import_count(imp, HW_CPU));
	/* every field the tables cannot hold is named */
	TEST_CHECK(t, n1 && strstr(n1, "not mapped: operating_system"), "eos notes: %s", n1);
	TEST_CHECK(t, n2 && strstr(n2, "not mapped: host_memory_configuration '16x 32GB DDR5'"), "dell notes: %s", n2);
	TEST_CHECK(t, n3 && strstr(n3, "unknown CPU 'AMD EPYC 9374F 32-Core Processor': added to cpus.csv as "
				  "'EPYC 9374F' (32 cores); did you mean"), "asus notes: %s", n3);
	free(n1);
	free(n2);
	free(n3);

	hw_db back;
	TEST_CHECK(t, reload(imp, &back) == 0, "imported tables load back: %s", err_msg());
	const hw_system *eos = hw_system_find(&back, "nvidia-eos-ngc24.04-mxnet");
	TEST_CHECK(t, eos != NULL, "eos imported under its id");
	if (eos) {
		TEST_CHECK(t, strcmp(eos->gpu->id, "H100-SXM5-80GB") == 0, "gpu %s", eos->gpu->id);
		TEST_CHECK(t, eos->gpus_per_node == 8 && eos->intra == HW_TOPO_NVSWITCH, "8 GPUs on NVSwitch");
		TEST_CHECK(t, eos->intra_link && eos->intra_link->kind == HW_LINK_NVSWITCH && eos->intra_link->gen == 3,
			   "NVSwitch gen 3 for NVLink 4");
		TEST_CHECK(t, eos->cpu && strcmp(eos->cpu->id, "Xeon Platinum 8480C") == 0 && eos->cpus_per_node == 2,
			   "2x 8480C");
		TEST_NEAR(t, eos->mem_B, 2.0e12, 1e-12);
		/* "Storage: 2x ..., Compute: 8x ConnectX-7 IB NDR 400Gb/s, Management: ...": the compute NICs */
		TEST_CHECK(t, eos->nic && eos->nic->kind == HW_LINK_IB && eos->nics_per_node == 8, "8 compute NICs: %d",
			   eos->nics_per_node);
		TEST_NEAR(t, eos->nic->bw_Bps, 400e9 / 8, 1e-12);
		TEST_CHECK(t, strstr(eos->source, "eos_ngc24.04_mxnet.json") != NULL, "source names the file: %s", eos->source);
	}
	const hw_system *dell = hw_system_find(&back, "R760xax4L40S"); /* the published name is an alias */
	TEST_CHECK(t, dell != NULL, "dell found by its published name");
	if (dell) {
		TEST_CHECK(t, strcmp(dell->gpu->id, "L40S") == 0 && dell->gpus_per_node == 4, "4x L40S");
		TEST_CHECK(t, dell->intra == HW_TOPO_PCIE_HOST && dell->host_link->gen == 4 && dell->host_links == 4,
			   "PCIe 4 x16 per GPU");
		TEST_CHECK(t, dell->nics_per_node == 2 && dell->nic->kind == HW_LINK_IB, "2x NDR");
		TEST_NEAR(t, dell->mem_B, 512e9, 1e-12);
		TEST_CHECK(t, strstr(dell->source, "assumed: 4 PCIe GPUs each on its own CPU x16 link") != NULL,
			   "the assumption is in the source: %s", dell->source);
	}
	const hw_system *asus = hw_system_find(&back, "asustek-esc8000a-e12-8xh100-pcie-80gb");
	TEST_CHECK(t, asus != NULL, "asus imported");
	if (asus) {
		TEST_CHECK(t, strcmp(asus->gpu->id, "H100-PCIe-80GB") == 0 && asus->intra == HW_TOPO_PCIE_SWITCH,
			   "8x H100 PCIe behind switches");
		TEST_CHECK(t, asus->cpu && asus->cpu->cores == 32 && strcmp(asus->cpu->id, "EPYC 9374F") == 0,
			   "the new CPU with its 32 cores");
		TEST_CHECK(t, asus->nic == NULL, "no host networking given, none invented");
	}
	hw_db_free(&back);

	/* the same file twice */
	TEST_CHECK(t, add_file(imp, DIR_ "R760xax4L40S.json", &n1) == ERR_INPUT &&
		      strstr(err_msg(), "already imported from"), "duplicate: %s", err_msg());
	free(n1);
	hw_import_free(imp);
	hw_db_free(&db);
}

static void test_bad_input(test_ctx *t)
{
	hw_db db;
	hw_db_load_default(&db, NULL);
	hw_import *imp = hw_import_new(&db);
	static const char ok_rest[] = "\"accelerators_per_node\":\"8\",\"host_processors_per_node\":\"2\"";
	char buf[1024];

	TEST_CHECK(t, add_text(imp, "{\"system_name\": \"x\",\n \"submitter\": }") == ERR_INPUT &&
		      strstr(err_msg(), "bad.json:2:") && strstr(err_msg(), "not valid JSON"), "syntax: %s", err_msg());
	TEST_CHECK(t, add_text(imp, "[1, 2]") == ERR_INPUT && strstr(err_msg(), "expected a JSON object"), "array: %s",
		   err_msg());
	TEST_CHECK(t, add_text(imp, "{\"system_name\":\"a\",\"system_name\":\"b\"}") == ERR_INPUT &&
		      strstr(err_msg(), "duplicate"), "duplicate key: %s", err_msg());
	snprintf(buf, sizeof buf, "{\"system_name\":\"x\",%s,\"accelerator_model_name\":[\"H100\"]}", ok_rest);
	TEST_CHECK(t, add_text(imp, buf) == ERR_INPUT &&
		      strstr(err_msg(), "field 'accelerator_model_name': expected a string or a number, found an array"),
		   "type: %s", err_msg());
	snprintf(buf, sizeof buf, "{\"system_name\":\"x\",%s,\"accelerator_model_name\":\"NVIDIA H1OO-SXM5-80GB\"}", ok_rest);
	TEST_CHECK(t, add_text(imp, buf) == ERR_INPUT && strstr(err_msg(), "unknown GPU 'NVIDIA H1OO-SXM5-80GB'") &&
		      strstr(err_msg(), "H100-SXM5-80GB"), "unknown GPU with the nearest id: %s", err_msg());
	snprintf(buf, sizeof buf, "{\"system_name\":\"x\",%s,\"accelerator_model_name\":\"AMD Radeon RX 7900 XTX\"}", ok_rest);
	TEST_CHECK(t, add_text(imp, buf) == ERR_INPUT && strstr(err_msg(), "nearest ids: "), "far GPU: %s", err_msg());
	TEST_CHECK(t, add_text(imp, "{\"system_name\":\"x\",\"accelerators_per_node\":\"eight\"}") == ERR_INPUT &&
		      strstr(err_msg(), "field 'accelerators_per_node': 'eight': expected a whole number 1-1024"),
		   "count: %s", err_msg());
	TEST_CHECK(t, add_text(imp, "{\"system_name\":\"x\",\"accelerators_per_node\":8,"
				    "\"accelerator_model_name\":\"NVIDIA L40S\"}") == ERR_INPUT &&
		      strstr(err_msg(), "field 'host_processors_per_node': missing"), "missing: %s", err_msg());
	TEST_CHECK(t, hw_import_count(imp, HW_SYSTEM) == 0, "nothing kept from bad files");
	/* numbers as JSON numbers are fine; a bad size is named, not fatal */
	TEST_CHECK(t, add_text(imp, "{\"system_name\":\"n\",\"accelerators_per_node\":4,\"host_processors_per_node\":1,"
				    "\"accelerator_model_name\":\"NVIDIA H100-SXM5-80GB\",\"host_memory_capacity\":\"lots\"}") == 0,
		   "numbers: %s", err_msg());
	hw_db back;
	TEST_CHECK(t, reload(imp, &back) == 0, "loads");
	const hw_system *s = hw_system_find(&back, "bad");
	TEST_CHECK(t, s && s->intra == HW_TOPO_NVLINK_MESH && !hw_known(s->mem_B), "4 SXM: nvlink-mesh; memory unknown");
	hw_db_free(&back);
	hw_import_free(imp);
	hw_db_free(&db);
}

static void test_write_dir(test_ctx *t)
{
	hw_db db;
	hw_db_load_default(&db, NULL);
	hw_import *imp = hw_import_new(&db);
	char *notes = NULL;
	add_file(imp, DIR_ "R760xax4L40S.json", &notes);
	free(notes);
	char tmpl[] = "/tmp/test_hw_import.XXXXXX";
	TEST_CHECK(t, mkdtemp(tmpl) != NULL, "mkdtemp");
	char *out = xasprintf("%s/db", tmpl);
	TEST_CHECK(t, hw_import_write_dir(imp, out, stderr) == 0, "write: %s", err_msg());
	char *sys = xasprintf("%s/systems.csv", out), *cpus = xasprintf("%s/cpus.csv", out);
	struct stat st;
	TEST_CHECK(t, stat(sys, &st) == 0 && stat(cpus, &st) != 0, "systems.csv, no cpus.csv when no CPU is new");
	TEST_CHECK(t, hw_db_check_dir(out, stderr) == 0, "the directory is a valid overlay");
	/* a second import into the same, now non-empty, directory is refused and leaves it alone */
	TEST_CHECK(t, hw_import_write_dir(imp, out, NULL) == ERR_INPUT && strstr(err_msg(), "not empty"), "%s", err_msg());
	TEST_CHECK(t, stat(sys, &st) == 0, "kept");
	unlink(sys);
	rmdir(out);
	/* a signal during the write (recorded by intr_install): nothing in place, no temporary left */
	TEST_CHECK(t, intr_install() == 0 && raise(SIGINT) == 0 && intr_pending(), "SIGINT recorded");
	TEST_CHECK(t, hw_import_write_dir(imp, out, NULL) == ERR_INTR && strstr(err_msg(), "interrupted (SIGINT)"),
		   "interrupted: %s", err_msg());
	TEST_CHECK(t, intr_exit_code() == 130, "exit code %d", intr_exit_code());
	TEST_CHECK(t, rmdir(tmpl) == 0, "%s empty: no %s and no temporary directory", tmpl, out);
	free(sys);
	free(cpus);
	free(out);
	hw_import_free(imp);
	hw_db_free(&db);
}

int main(void)
{
	test_ctx t = {0};
	test_real_files(&t);
	test_bad_input(&t);
	test_write_dir(&t);
	return test_report(&t);
}
