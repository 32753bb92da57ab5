/* libFuzzer target for `hw import` (hwdb/hw_import.c): the input is one MLPerf system description
 * (JSON). Any outcome but a crash, a leak or a sanitizer report is fine, with one property checked:
 * whatever the importer accepts must load back as an overlay (cpus.csv, then systems.csv) on the
 * default db, every system reference resolved. Build and run: make fuzz-import.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"
#include "hwdb/hw.h"
#include "hwdb/hw_internal.h" /* hwdb/'s parts under test */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes one imported table to memory and overlays it on db; false when it does not load. */
static bool reload(const hw_import *imp, hw_kind kind, hw_db *db)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	if (hw_import_write_table(imp, kind, f))
		abort();
	fclose(f);
	const char *name = kind == HW_CPU ? "cpus.csv" : "systems.csv";
	bool ok = hw_db_overlay_buf(db, name, buf, len, stderr) == 0;
	free(buf);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hw_db db;
	if (hw_db_load_default(&db, NULL) < 0)
		abort();
	hw_import *imp = hw_import_new(&db);
	if (hw_import_add(imp, "fuzz.json", (const char *)data, size, NULL) == 0) {
		hw_db back;
		if (hw_db_load_default(&back, NULL) < 0)
			abort();
		if ((hw_import_count(imp, HW_CPU) && !reload(imp, HW_CPU, &back)) || !reload(imp, HW_SYSTEM, &back))
			abort(); /* the importer wrote a row the loader refuses */
		for (int i = 0; i < back.nsystems; i++)
			if (!back.systems[i].gpu || !back.systems[i].host_link)
				abort();
		hw_db_free(&back);
	}
	hw_import_free(imp);
	hw_db_free(&db);
	return 0;
}
