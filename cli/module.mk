# cli: the scaleplan command. SPDX-License-Identifier: GPL-3.0-or-later
CLI_SRCS += $(wildcard cli/*.c)
