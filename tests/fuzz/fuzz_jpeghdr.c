/* libFuzzer target: the JPEG header parser of the GPU data path (ex_jpeg_header) on arbitrary bytes.
 * Anything but 0 or ERR_INPUT, a read outside the buffer (ASan), UB, or a result that breaks the
 * parser's promises (a size over the pixel limit, a scan offset past the end) is a bug.
 * Build and run: make fuzz-data (clang -fsanitize=fuzzer,address,undefined).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "exec/data/ex_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly `size` bytes: ASan sees any read past the end */
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	ex_jpeg_hdr h;
	int rc = ex_jpeg_header(buf, size, &h);
	if (rc != 0 && rc != ERR_INPUT)
		abort();
	if (rc == 0 && (h.width < 1 || h.height < 1 || (long)h.width * h.height > EX_JPEG_MAX_PIXELS ||
			h.scan_B >= size || h.components < 1 || h.components > 4))
		abort();
	free(buf);
	return 0;
}
