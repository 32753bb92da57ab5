/* common/common_internal.h: what only common/'s own files (and its tests) call; other folders use common.h.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_COMMON_INTERNAL_H
#define SCALEPLAN_COMMON_INTERNAL_H

#include "common/common.h"

/* A JSON object member whose value is already JSON text (true, false, a whole number): "name": v, then ", "
 * where more members follow; compact drops the spaces. The writer of common/cols.c's boolean and count cells. */
void json_member_raw(FILE *f, const char *name, const char *v, bool more, bool compact);

#endif
