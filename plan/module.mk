# plan/: hardware database + a user's run description -> prepared model scenarios, placements, decisions.
# SPDX-License-Identifier: GPL-3.0-or-later
LIB_SRCS += $(wildcard plan/*.c)
