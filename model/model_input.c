/* model_input.c - the input stage the ranks of one host share, as model_predict, the simulator (through
 * model_result.decode_s) and calibrate's fit describe it: one formula in one place (model.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "model/model_internal.h"

#include <math.h>

double model_input_cores_left(int host_cores, int socket_nodes, double socket_core_frac)
{
	if (socket_nodes <= 0 || !(socket_core_frac > 0))
		return host_cores;
	return host_cores * fmax(0.05, 1.0 - socket_core_frac); /* one share a host (model.h) */
}

double model_input_rank_img_s(double step_img_s, int ranks_host, double gpu_decode_img_s, double host_cores,
			      double host_input_img_s_core)
{
	/* the shared stage's capacity is the host's cores at what one core carries of it (reader threads,
	 * the hybrid decoder's host part, the copies through host memory and PCIe they drive); a host whose cores
	 * are unknown has no shared stage counted (as the CPU decode of model.c counts none without cores) */
	double host_img_s = host_cores > 0 && host_input_img_s_core > 0 ? host_cores * host_input_img_s_core : INFINITY;
	return model_gpu_decode_rank_img_s(step_img_s, ranks_host, gpu_decode_img_s, host_img_s);
}
