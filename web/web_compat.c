/* web/web_compat.c: qsort_r for the WebAssembly build (web/web_compat.h says why). A stable insertion
 * sort: glibc's qsort_r merges (stable) where it can, so equal options keep the order the native build
 * gives them; compare sorts tens to hundreds of options, where n^2 costs nothing.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "web/web_compat.h"

#include <stdlib.h>
#include <string.h>

void qsort_r(void *base, size_t n, size_t size_B, int (*cmp)(const void *, const void *, void *), void *arg)
{
	char *a = base, *tmp = malloc(size_B ? size_B : 1);
	if (!tmp)
		abort(); /* as xmalloc: out of memory is not a state a page can go on from */
	for (size_t i = 1; i < n; i++) {
		size_t j = i;
		while (j > 0 && cmp(a + (j - 1) * size_B, a + i * size_B, arg) > 0)
			j--;
		if (j == i)
			continue;
		memcpy(tmp, a + i * size_B, size_B);
		memmove(a + (j + 1) * size_B, a + j * size_B, (i - j) * size_B);
		memcpy(a + j * size_B, tmp, size_B);
	}
	free(tmp);
}
