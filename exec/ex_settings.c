/* The engine's tuning settings: defaults, the --engine parser, the help text (ex_settings.h).
 * Why one struct: the engine's A/B switches were 13 environment variables read in three files, easy to leave
 * set by accident and invisible in a run's command line. Now a run's settings are in its command.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/ex_settings.h"

#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* what measured best (bench/NOTES.md's log) */
#define EX_SETTINGS_DEFAULTS                                                                                   \
	{                                                                                                      \
		.fold_pool = true, .fold_res = true, .fold_pool_bwd = true, .fold_res_bwd = true,              \
		.arena_reuse = true, .wgrad_cast_at_end = true, .jpeg_lanes = 1,                               \
	}

ex_settings ex_set = EX_SETTINGS_DEFAULTS;

ex_settings ex_settings_default(void)
{
	ex_settings s = EX_SETTINGS_DEFAULTS;
	return s;
}

typedef struct key_def {
	const char *name;
	char kind;              /* 'b' on/off, 'i' integer */
	size_t off;             /* offset in ex_settings */
	int lo, hi;             /* integers: the range (0 allowed where lo <= 0) */
	const char *help;
} key_def;

#define KB(f, h) {#f, 'b', offsetof(ex_settings, f), 0, 1, h}
#define KI(f, lo, hi, h) {#f, 'i', offsetof(ex_settings, f), lo, hi, h}
static const key_def keys[] = {
	KB(fold_pool, "the stem BN applied by the max pooling, its output never stored (on)"),
	KB(fold_res, "the downsampling BN applied by the residual BN that adds it (on)"),
	KB(fold_pool_bwd, "the pooling's backward does the stem BN's too, its gradient never stored (on)"),
	KB(fold_res_bwd, "the residual BN's backward does the folded BN's too (on)"),
	KB(arena_reuse, "activations share arena bytes where their lives do not overlap (on)"),
	KB(wgrad_cast_at_end, "conv weight gradients cast to float in one launch at the end of backward (on)"),
	KB(graph_verbose, "print each convolution shape's graph-API plan and legacy times (off)"),
	KI(bn_unroll, 0, 4, "rows per loop trip of the BN reductions: 1, 2 or 4 (0: 4 statistics, 2 backward)"),
	KI(bn_blocks_per_sm, 0, 64, "BN reduction blocks per SM (0: what the GPU holds at once)"),
	KI(bn_min_rows, 0, 4096, "rows each BN reduction thread takes at least (0: 8)"),
	KI(jpeg_lanes, 1, 2, "jpeg-gpu: threads calling the hardware JPEG decoder (1)"),
	KI(jpeg_cpu_pct, -1, 75, "jpeg-gpu: % of each batch the reader threads decode (0 off; -1 follows who waits)"),
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static int set_one(ex_settings *s, const char *item)
{
	const char *eq = strchr(item, '=');
	size_t len = eq ? (size_t)(eq - item) : strlen(item);
	for (size_t k = 0; k < NKEYS; k++) {
		if (strlen(keys[k].name) != len || strncmp(keys[k].name, item, len))
			continue;
		const char *v = eq ? eq + 1 : "";
		char *end;
		long n;
		if (keys[k].kind == 'b') {
			if (!strcmp(v, "on") || !strcmp(v, "1"))
				n = 1;
			else if (!strcmp(v, "off") || !strcmp(v, "0"))
				n = 0;
			else
				return err_set("--engine: key '%s', value '%s': expected on or off", keys[k].name, v), ERR_INPUT;
			*(bool *)((char *)s + keys[k].off) = n != 0;
			return 0;
		}
		n = strtol(v, &end, 10);
		if (!*v || *end || n < keys[k].lo || n > keys[k].hi || (!strcmp(keys[k].name, "bn_unroll") && n == 3))
			return err_set("--engine: key '%s', value '%s': expected an integer %d..%d%s", keys[k].name, v,
				       keys[k].lo, keys[k].hi, !strcmp(keys[k].name, "bn_unroll") ? " (not 3)" : ""),
			       ERR_INPUT;
		*(int *)((char *)s + keys[k].off) = (int)n;
		return 0;
	}
	return err_set("--engine: unknown key '%.*s' (scaleplan-train --help lists them)", (int)len, item), ERR_INPUT;
}

int ex_settings_parse(ex_settings *s, const char *spec)
{
	ex_settings t = *s;
	char *buf = xstrdup(spec), *save = NULL;
	int rc = 0;
	if (!*spec) {
		err_set("--engine: empty (expected KEY=VALUE[,KEY=VALUE...])");
		rc = ERR_INPUT;
	}
	for (char *it = strtok_r(buf, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save))
		rc = set_one(&t, it);
	free(buf);
	if (rc == 0)
		*s = t;
	return rc;
}

void ex_settings_help(FILE *f)
{
	for (size_t k = 0; k < NKEYS; k++)
		fprintf(f, "    %-18s %s\n", keys[k].name, keys[k].help);
}
