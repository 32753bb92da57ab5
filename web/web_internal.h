/* web/web_internal.h: the files the build embeds in the binary for web_whatif_write (build/gen/web_data.c,
 * written by tools/embed.sh from web/module.mk): whatif.html.in, whatif.js (empty when the build had no
 * Emscripten) and whatif.why (why it is empty).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_WEB_INTERNAL_H
#define SCALEPLAN_WEB_INTERNAL_H

#include <stddef.h>

typedef struct web_file {
	const char *name;
	const unsigned char *bytes; /* NUL-terminated */
	size_t len_B;
} web_file;

extern const web_file web_embedded[];
extern const int web_embedded_n;

#endif
