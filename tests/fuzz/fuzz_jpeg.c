/* libFuzzer target: JPEG decode + augmentation (train and eval paths, all three output types) on
 * arbitrary bytes. Anything but 0 or ERR_INPUT, a crash, a leak or UB is a bug.
 * Build and run: make fuzz-data (clang -fsanitize=fuzzer,address,undefined).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/common.h"
#include "exec/data/ex_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ex_jpeg_ctx *ctx;
	static void *out;
	if (!ctx) {
		ctx = ex_jpeg_ctx_new();
		out = xmalloc(64 * 64 * 3 * 4);
	}
	ex_jpeg_aug a;
	ex_jpeg_aug_init(&a, size & 1);
	a.out_hw = 64; /* small output keeps each run fast; the decode path is the same */
	a.resize_hw = 73;
	a.dtype = (ex_data_dtype)(size % 3);
	uint64_t rng = size;
	int rc = ex_jpeg_decode_aug(ctx, data, size, &a, &rng, out, NULL);
	if (rc != 0 && rc != ERR_INPUT)
		abort();
	if (rc < 0) { /* as the loader does: a fresh decoder after a failure */
		ex_jpeg_ctx_free(ctx);
		ctx = ex_jpeg_ctx_new();
	}
	return 0;
}
