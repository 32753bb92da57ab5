/* libFuzzer target: IDX parser (raw and gzip) as images (3 dims) and labels (1 dim) on arbitrary bytes.
 * Build and run: make fuzz-data.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/common.h"
#include "exec/data/ex_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int nd = 1; nd <= 3; nd += 2) {
		int dims[3] = {0, 0, 0};
		unsigned char *out = NULL;
		int rc = ex_idx_parse(data, size, "fuzz", nd, dims, &out);
		if (rc == 0) {
			size_t n = 1;
			for (int d = 0; d < nd; d++) {
				if (dims[d] < 1)
					abort();
				n *= (size_t)dims[d];
			}
			volatile unsigned char last = out[n - 1]; /* ASan checks the whole size is there */
			(void)last;
		} else if (rc != ERR_INPUT || out != NULL) {
			abort();
		}
		free(out);
	}
	return 0;
}
