# report/: the procurement report's documents and charts (`scaleplan report` parses and calls it).
# SPDX-License-Identifier: GPL-3.0-or-later
LIB_SRCS += $(wildcard report/*.c)
