/* web/web_compat.h: what the WebAssembly build of the planner needs from a C library that Debian's
 * Emscripten 3.1.6 (musl 1.2.2) lacks: qsort_r with glibc's argument order (musl has it from 1.2.3).
 * Force-included (-include) by web/module.mk's emcc command only; the native build never sees it.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_WEB_COMPAT_H
#define SCALEPLAN_WEB_COMPAT_H

#include <stddef.h>

void qsort_r(void *base, size_t n, size_t size_B, int (*cmp)(const void *, const void *, void *), void *arg);

#endif
