# model/: analytic model (ResNet-50 layer table, compute, communication, data, convergence, TTA).
# SPDX-License-Identifier: GPL-3.0-or-later
LIB_SRCS += $(wildcard model/*.c)
