/* scaleplan-train --engine KEY=VALUE,...: the engine's tuning settings (exec/ex_settings.c). Defaults are the
 * measured best; every key sets its field; a bad key or value is refused with the key and value named and leaves
 * the settings as they were (no half-applied list).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "common/common.h"
#include "exec/ex_settings.h"
#include "tests/test.h"

static void test_defaults(test_ctx *t)
{
	ex_settings d = ex_settings_default();
	TEST_CHECK(t, d.fold_pool && d.fold_res && d.fold_pool_bwd && d.fold_res_bwd, "folds on by default");
	TEST_CHECK(t, d.arena_reuse && d.wgrad_cast_at_end && !d.graph_verbose, "arena reuse, cast at end, quiet plans");
	TEST_CHECK(t, d.bn_unroll == 0 && d.bn_blocks_per_sm == 0 && d.bn_min_rows == 0, "BN tuning automatic");
	TEST_CHECK(t, d.jpeg_lanes == 1 && d.jpeg_cpu_pct == 0, "one hardware lane, CPU share off");
	TEST_CHECK(t, !memcmp(&d, &ex_set, sizeof(d)), "ex_set starts at the defaults");
}

static void test_parse(test_ctx *t)
{
	ex_settings s = ex_settings_default();
	TEST_CHECK(t, ex_settings_parse(&s, "fold_pool=off,fold_res_bwd=0,graph_verbose=on,bn_unroll=2") == 0, "%s",
		   err_msg());
	TEST_CHECK(t, !s.fold_pool && s.fold_res && !s.fold_res_bwd && s.graph_verbose && s.bn_unroll == 2,
		   "fields set: %d %d %d %d %d", s.fold_pool, s.fold_res, s.fold_res_bwd, s.graph_verbose, s.bn_unroll);
	TEST_CHECK(t, ex_settings_parse(&s, "jpeg_cpu_pct=-1,jpeg_lanes=2,bn_blocks_per_sm=4,bn_min_rows=16") == 0, "%s",
		   err_msg());
	TEST_CHECK(t, s.jpeg_cpu_pct == -1 && s.jpeg_lanes == 2 && s.bn_blocks_per_sm == 4 && s.bn_min_rows == 16,
		   "integers set");
	TEST_CHECK(t, ex_settings_parse(&s, "arena_reuse=1,wgrad_cast_at_end=off") == 0 && s.arena_reuse &&
			      !s.wgrad_cast_at_end, "1 and off");
}

static void test_bad(test_ctx *t)
{
	static const struct { const char *spec, *want; } bad[] = {
		{"fold_pool=maybe", "key 'fold_pool', value 'maybe': expected on or off"},
		{"bn_unroll=3", "key 'bn_unroll', value '3'"},
		{"bn_unroll=8", "expected an integer 0..4"},
		{"jpeg_lanes=0", "key 'jpeg_lanes', value '0'"},
		{"jpeg_cpu_pct=76", "expected an integer -1..75"},
		{"bn_min_rows=x", "key 'bn_min_rows', value 'x'"},
		{"bn_min_rows=", "key 'bn_min_rows', value ''"},
		{"fold_pools=on", "unknown key 'fold_pools'"},
		{"", "empty"},
		{"fold_pool=off,nonsense=1", "unknown key 'nonsense'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ex_settings s = ex_settings_default(), d = ex_settings_default();
		int rc = ex_settings_parse(&s, bad[i].spec);
		TEST_CHECK(t, rc == ERR_INPUT, "'%s' accepted", bad[i].spec);
		TEST_CHECK(t, strstr(err_msg(), bad[i].want) != NULL, "'%s': message '%s' lacks '%s'", bad[i].spec, err_msg(),
			   bad[i].want);
		TEST_CHECK(t, !memcmp(&s, &d, sizeof(s)), "'%s': settings changed by a refused list", bad[i].spec);
	}
}

int main(void)
{
	test_ctx t = {0};
	test_defaults(&t);
	test_parse(&t);
	test_bad(&t);
	return test_report(&t);
}
