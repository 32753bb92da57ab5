/* cli/wasm_main.c: the entry point of whatif.html's WebAssembly, a second front end beside main.c (built by
 * emcc only, web/module.mk; the native build leaves it out, cli/module.mk): the page hands compare its
 * options and compare runs as on the command line - the same option parsing (cli/scenario.c), placements
 * and decision, table and answer (plan/, printed by cli/cmd_compare.c) - so the page follows every change to
 * them. Its stdout and stderr reach the page line by line (Module.print/printErr); the rows come back as
 * compare's CSV through --out in the in-memory file system.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

enum { WEB_MAX_ARGS = 256 };

/* Runs `scaleplan compare` with the options in args, one argument a line ("--gpus\n16\n--utilisation\n0.3").
 * Returns compare's exit code (0, 1 bad input with its message on stderr, 2 environment); 1 when there are
 * more than WEB_MAX_ARGS arguments. Called from the page's script (exported by name). */
int web_compare(const char *args)
{
	char *buf = xstrdup(args), *save = NULL, *argv[WEB_MAX_ARGS + 1];
	int argc = 0, rc;
	argv[argc++] = "compare";
	for (char *tok = strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		if (argc == WEB_MAX_ARGS) {
			fprintf(stderr, "scaleplan compare: more than %d arguments\n", WEB_MAX_ARGS);
			free(buf);
			return EXIT_INPUT;
		}
		argv[argc++] = tok;
	}
	argv[argc] = NULL;
	rc = cmd_compare(argc, argv);
	fflush(stdout);
	fflush(stderr);
	free(buf);
	return rc;
}
