LIB_SRCS += $(wildcard common/*.c)
