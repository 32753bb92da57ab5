/* The engine's tuning settings (exec/ex_settings.c): one struct, filled once from scaleplan-train's
 * --engine KEY=VALUE,... before any work, read everywhere else as ex_set. The defaults are what measured best
 * (bench/NOTES.md's log); the other values exist to measure against them. No CUDA here: the parser
 * is tested without a GPU (tests/test_ex_settings.c).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef EX_SETTINGS_H
#define EX_SETTINGS_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ex_settings {
	bool fold_pool;         /* the stem BN applied by the max pooling (fold_bns, ex_net.c) */
	bool fold_res;          /* the downsampling BN applied by the residual add's BN */
	bool fold_pool_bwd;     /* ... and their backward done by the reader */
	bool fold_res_bwd;
	bool arena_reuse;       /* activations share arena bytes where their lives do not overlap */
	bool wgrad_cast_at_end; /* all conv weight gradients cast to float in one launch at the end */
	bool graph_verbose;     /* print each convolution shape's graph plan and legacy times */
	int bn_unroll;          /* rows per loop trip of the BN reductions: 0 (4 statistics, 2 backward), 1, 2, 4 */
	int bn_blocks_per_sm;   /* BN reduction blocks per SM: 0 the occupancy calculator's figure, else 1..64 */
	int bn_min_rows;        /* rows a BN reduction thread takes at least: 0 (8), else 1..4096 */
	int jpeg_lanes;         /* threads calling the hardware JPEG decoder: 1 or 2 */
	int jpeg_cpu_pct;       /* share of each batch the reader threads decode: 0 off, 1..75, -1 follows who waits */
} ex_settings;

/* The settings in force (defaults until ex_settings_parse changes them). */
extern ex_settings ex_set;

/* The defaults. */
ex_settings ex_settings_default(void);

/* Applies "KEY=VALUE[,KEY=VALUE...]" to *s. Returns 0, or ERR_INPUT with err_msg() naming the key, the value
 * and what was expected (*s is then unchanged). */
int ex_settings_parse(ex_settings *s, const char *spec);

/* The keys, their values and defaults, for --help. */
void ex_settings_help(FILE *f);

#ifdef __cplusplus
}
#endif

#endif
