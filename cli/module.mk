# cli: the scaleplan command. SPDX-License-Identifier: GPL-3.0-or-later
# cli/wasm_main.c is whatif.html's front end (web/module.mk builds it with emcc), not the command's
CLI_SRCS += $(filter-out cli/wasm_main.c,$(wildcard cli/*.c))
