/* web: what `scaleplan report` hands the readers who will not run a command line.
 * - whatif.html: one self-contained page that runs compare - the same C, compiled to WebAssembly by
 *   Emscripten (cli/wasm_main.c, web/module.mk) - on the inputs in its address's fragment, written from the
 *   project's template (web/whatif.html.in) with the build's script embedded in the binary;
 * - costs.xlsx (web/web_xlsx.c, libxlsxwriter): the money assumptions with their sources and, per option, its
 *   physics as values and its money as formulas over those assumptions.
 * Either is left out - with the reason, for the report to say - when the build had no Emscripten or no
 * libxlsxwriter. The module prints nothing.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_WEB_H
#define SCALEPLAN_WEB_H

#include <getopt.h>
#include <stddef.h>

#include "plan/plan.h"

enum { WEB_LEFT_OUT = 1 }; /* a writer's result: the file was not written, the reason in why */

/* The report's inputs as a page's fragment ("gpus=64&systems=dgxh100%2Cgb200-nvl72&budget=8000000"): every
 * option of argv (a command's, argv[0] its name) that opts knows, under its long name, values
 * percent-encoded; of --gpus's list the first count; --hwdb DIR as quote=DIR/systems.csv's text (the page
 * takes a quote of systems.csv only: DIR's other tables do not travel); --out, --help and --profile (a file
 * the page cannot read) left out. Returns a heap string the caller frees. */
char *web_fragment(int argc, char **argv, const struct option *opts);

/* Writes whatif.html to path: the template with command (said to be what wrote it), the defaults (a
 * fragment, web_fragment) and the WebAssembly script. 0; WEB_LEFT_OUT with why set when this build has no
 * script (no emcc when it was built); ERR_ENV (err_msg) when the file cannot be written. */
int web_whatif_write(const char *path, const char *command, const char *defaults, char *why, size_t why_len);

/* Writes costs.xlsx to path for the options o[n] (compare's rows, judged under q) of spec's run, prices
 * and their sources from db, the data set's size from p: an Assumptions sheet (spec->money and each system's prices, each with its
 * source) and an Options sheet (physics as values, money as formulas over Assumptions) with each option's
 * cash flow by year. 0; WEB_LEFT_OUT with why set when built without libxlsxwriter; ERR_ENV when the file
 * cannot be written. */
int web_costs_write(const char *path, const hw_db *db, const plan_spec *spec, const model_params *p,
		    const plan_question *q, const plan_option *o, int n, char *why, size_t why_len);

#endif
