/* libFuzzer target for the hwdb CSV loader: the first byte picks the table (gpus, cpus, links,
 * fabrics, storage, systems, stacks, archs), the rest is that table's CSV text, overlaid on the default db.
 * Any outcome but a crash, a leak or a sanitizer report is fine; a successful overlay must leave a db
 * whose references all resolve and whose prices carry their kind and source (price tables included).  Build and run: make fuzz-hwdb.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"
#include "hwdb/hw.h"
#include "hwdb/hw_internal.h" /* hwdb/'s parts under test */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"gpus.csv", "cpus.csv", "links.csv", "fabrics.csv",
					    "storage.csv", "systems.csv", "stacks.csv", "archs.csv"};
	if (size < 1)
		return 0;
	hw_db db;
	if (hw_db_load_default(&db, NULL) < 0)
		abort(); /* the shipped tables must always load */
	const char *name = names[data[0] % (sizeof names / sizeof names[0])];
	if (hw_db_overlay_buf(&db, name, (const char *)data + 1, size - 1, NULL) == 0) {
		for (int i = 0; i < db.ngpus; i++)
			if (db.gpus[i].arch_info != hw_arch_find(&db, db.gpus[i].arch))
				abort();
		for (int i = 0; i < db.nsystems; i++)
			if (!db.systems[i].gpu || !db.systems[i].host_link || (*db.systems[i].cpu_id && !db.systems[i].cpu) ||
			    (*db.systems[i].fabric_id && !db.systems[i].fabric) || (*db.systems[i].stack_id && !db.systems[i].stack) ||
			    (*db.systems[i].storage_id && !db.systems[i].storage))
				abort();
		/* what the loader promises about prices: a price has its kind and source, a rate its
		 * date and source, a unit at least one node, an NVLink domain whole nodes */
		for (int i = 0; i < db.nsystems; i++) {
			const hw_system *s = &db.systems[i];
			bool rate = hw_known(s->rent_usd_gpu_h) || hw_known(s->rent_1y_usd_gpu_h) || hw_known(s->rent_3y_usd_gpu_h);
			if ((hw_known(s->price_usd) && (!*s->price_kind || !*s->price_source)) || (rate && (!*s->rent_date || !*s->rent_source)) ||
			    s->unit_nodes < 1 || (s->domain_gpus && s->domain_gpus % s->gpus_per_node))
				abort();
			/* a price's range holds the price; a spot rate cites its source too */
			if ((hw_known(s->price_lo_usd) && !(s->price_lo_usd <= s->price_usd)) ||
			    (hw_known(s->price_hi_usd) && !(s->price_hi_usd >= s->price_usd)) ||
			    (hw_known(s->rent_spot_usd_gpu_h) && !*s->rent_source))
				abort();
		}
		for (int i = 0; i < db.nfabrics; i++) {
			const hw_fabric *f = &db.fabrics[i];
			if (hw_known(f->switch_usd) && (f->switch_ports < 2 || !*f->price_kind || !*f->price_source))
				abort();
		}
		for (int i = 0; i < db.nstorage; i++)
			if (hw_known(db.storage[i].price_usd) && (!hw_known(db.storage[i].unit_B) || !*db.storage[i].price_kind))
				abort();
		char buf[256];
		hw_suggest(&db, HW_NKINDS, "v100", buf, sizeof buf);
		FILE *devnull = fopen("/dev/null", "w");
		if (devnull) {
			for (int i = 0; i < db.nsystems; i++)
				hw_db_show(&db, db.systems[i].id, devnull);
			for (int k = 0; k < HW_NKINDS; k++)
				hw_db_list(&db, (hw_kind)k, devnull);
			fclose(devnull);
		}
	}
	hw_db_free(&db);
	return 0;
}
