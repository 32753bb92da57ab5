/* bench/bench_model.c: how fast is the analytic model? (a benchmark, not a test)
 *
 * 1. plan_resolve per system (the CLI's step: database to prepared scenario, one pass over the layer table);
 * 2. model_predict and the two ratio columns (model_ratio, ttt and tta over a pick) in a loop over nodes x batch
 *    per GPU (the sweep's inner loop), one core:
 *    goal >= 1,000,000 predictions per second;
 * 3. the same with each prediction priced (model_price_run: what sweep and compare do per configuration).
 * Systems come from the built-in hwdb. Run: make bench-model (also times a 1M-configuration sweep).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"
#include "plan/plan.h"

int main(int argc, char **argv)
{
	hw_db db;
	model_params p;
	model_scenario *sc;
	long n = argc > 1 ? atol(argv[1]) : 20000000L, done = 0, nfit = 0;
	double t0, t1, sum = 0;
	int nsys;

	if (hw_db_load_default(&db, stderr)) {
		fprintf(stderr, "bench_model: %s\n", err_msg());
		return 2;
	}
	model_params_default(&p);
	nsys = db.nsystems;
	sc = xcalloc((size_t)nsys, sizeof(*sc));
	t0 = time_now_s();
	for (int i = 0; i < nsys; i++) {
		plan_spec spec;
		plan_spec_init(&spec);
		if (plan_resolve(&db, &spec, &p, &db.systems[i], 0, 1, &sc[i])) {
			fprintf(stderr, "bench_model: %s: %s\n", db.systems[i].id, err_msg());
			return 1;
		}
	}
	t1 = time_now_s();
	printf("prepare: %d systems in %.3f ms (%.1f us each)\n", nsys, (t1 - t0) * 1e3, (t1 - t0) * 1e6 / nsys);

	model_result ref; /* the pick the ratio columns divide by: the first system on one node */
	model_predict(&sc[0], &p, &ref);
	for (int priced = 0; priced < 2; priced++) {
		done = nfit = 0;
		sum = 0;
		t0 = time_now_s();
		while (done < n) {
			for (int i = 0; i < nsys && done < n; i++)
				for (int nodes = 1; nodes <= 1000 && done < n; nodes++)
					for (int b = 8; b <= 256 && done < n; b += 8) {
						model_result r;
						model_cost c;
						sc[i].nodes = nodes;
						sc[i].batch_per_gpu = b;
						int rc = model_predict(&sc[i], &p, &r); /* refused: too many images a step */
						if (priced && rc == 0) {
							model_price_run(&sc[i], &p, &r, &c);
							sum += isfinite(c.tco_usd) ? c.tco_usd : 0.0;
						}
						if (r.fits) {
							/* the CSV's ratio columns: this row's times over a pick's (model_ratio) */
							double x, lo, hi;
							model_ratio(&sc[i], &r, &sc[0], &ref, MODEL_Q_TTA, &x, &lo, &hi);
							sum += r.tta_s + hi;
							model_ratio(&sc[i], &r, &sc[0], &ref, MODEL_Q_TTT, &x, &lo, &hi);
							sum += hi;
							nfit++;
						}
						done++;
					}
		}
		t1 = time_now_s();
		printf("%s: %ld predictions in %.3f s on one core = %.0f predictions/s (%.0f ns each; "
		       "%ld fit memory; checksum %.6g)\n", priced ? "model_predict + model_price_run" : "model_predict",
		       done, t1 - t0, done / (t1 - t0), (t1 - t0) * 1e9 / done, nfit, sum);
		if (!priced)
			printf("goal >= 1,000,000 predictions/s: %s\n", done / (t1 - t0) >= 1e6 ? "met" : "NOT met");
	}
	free(sc);
	hw_db_free(&db);
	return 0;
}
