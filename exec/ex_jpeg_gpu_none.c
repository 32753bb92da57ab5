/* exec/ex_jpeg_gpu_none.c: the GPU JPEG decoder's functions where the build found no nvjpeg.h (exec/module.mk
 * picks this file instead of ex_jpeg_gpu.c): ex_gjpeg_check says what is missing, so scaleplan-train refuses
 * --data-path jpeg-gpu and defaults to jpeg-cpu; ex_gjpeg_new fails the same way; the rest are never reached
 * with a decoder (there is none) and do nothing.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"
#include "exec/ex_jpeg_gpu.h"

int ex_gjpeg_check(void)
{
	err_set("--data-path jpeg-gpu: this scaleplan-train was built without nvJPEG (nvjpeg.h was not found at build "
		"time); use --data-path jpeg-cpu");
	return ERR_ENV; /* what the build lacks is the environment's (README "Exit status") */
}

int ex_gjpeg_new(ex_gjpeg **g, ex_data_loader *L, int batch, int hw, ex_dtype dt, ex_data_watch *w, int feeder,
		 const char *name)
{
	(void)L, (void)batch, (void)hw, (void)dt, (void)w, (void)feeder, (void)name;
	*g = NULL;
	return ex_gjpeg_check();
}

void ex_gjpeg_begin(ex_gjpeg *g, long batches) { (void)g, (void)batches; }
bool ex_gjpeg_prefetch(ex_gjpeg *g) { (void)g; return false; }
int ex_gjpeg_feed(ex_gjpeg *g, ex_net *net, cudaEvent_t after_wait) { (void)g, (void)net, (void)after_wait; return 0; }
const char *ex_gjpeg_backend(const ex_gjpeg *g) { (void)g; return "none"; }
void ex_gjpeg_stats_get(ex_gjpeg *g, ex_gjpeg_stats *s) { (void)g; *s = (ex_gjpeg_stats){0}; }
void ex_gjpeg_stop(ex_gjpeg *g) { (void)g; }
void ex_gjpeg_free(ex_gjpeg *g) { (void)g; }
