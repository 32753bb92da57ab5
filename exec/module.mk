# exec/: scaleplan-train, real ResNet-50 training in C + CUDA (cuDNN, cuBLAS). Built only where nvcc,
# cuDNN and cuBLAS are found; `make test` never needs them. `make test-gpu` runs tests/gpu/ on a GPU.
# SPDX-License-Identifier: GPL-3.0-or-later
EX_NVCC    := $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
EX_CUDA    := $(patsubst %/bin/nvcc,%,$(EX_NVCC))
EX_CUDNN_H := $(firstword $(wildcard /usr/include/x86_64-linux-gnu/cudnn.h /usr/include/cudnn.h $(EX_CUDA)/include/cudnn.h))
EX_CUBLAS_H := $(firstword $(wildcard $(EX_CUDA)/include/cublas_v2.h /usr/include/cublas_v2.h))
HAVE_GPU_TOOLCHAIN := $(if $(and $(EX_NVCC),$(EX_CUDNN_H),$(EX_CUBLAS_H)),yes)

EX_SRCS     := exec/ex_net.c exec/ex_train.c exec/ex_input.c exec/ex_graph.c exec/ex_ckpt.c
EX_CU_SRCS  := exec/ex_tensor_kernels.cu exec/ex_bn_kernels.cu exec/ex_pool_kernels.cu exec/ex_step_kernels.cu \
               exec/ex_input_kernels.cu exec/ex_dist_kernels.cu
EX_HOST_DEPS := $(wildcard model/*.c) $(wildcard common/*.c) exec/data/idx.c exec/data/jpeg.c exec/data/loader.c exec/data/mkimagenet.c \
                exec/data/watch.c \
                exec/ex_mllog.c exec/ex_settings.c
# the MLLOG writer and the --engine settings are host C: in the library too, so tests/test_mllog.c and
# tests/test_ex_settings.c check them without a GPU
LIB_SRCS    += exec/ex_mllog.c exec/ex_settings.c
EX_INC      := -isystem $(EX_CUDA)/include $(if $(EX_CUDNN_H),-isystem $(dir $(EX_CUDNN_H)))
EX_LIBDIRS  := -L$(EX_CUDA)/lib64 -L$(EX_CUDA)/lib -Wl,-rpath,$(EX_CUDA)/lib64 -Wl,-rpath,$(EX_CUDA)/lib
EX_GIT_SHA  := $(shell sh tools/git_sha.sh)
EX_NVFLAGS  := -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_80,code=sm_80 \
               -Xcompiler -Wall -I.
EX_LDLIBS   := -lcudnn -lcublas -lcudart -lstdc++ -lturbojpeg -ljpeg -lcsv -lz -lm -lpthread

ifeq ($(HAVE_GPU_TOOLCHAIN),yes)
all: $(BUILD)/scaleplan-train
endif

$(BUILD)/exec/ex_%.o: exec/ex_%.c exec/ex_internal.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EX_INC) -DEX_GIT_SHA='"$(EX_GIT_SHA)"' -MMD -MP -c $< -o $@

$(BUILD)/exec/%_kernels.o: exec/%_kernels.cu exec/ex_internal.h exec/ex_kernels.cuh
	@mkdir -p $(dir $@)
	$(EX_NVCC) $(EX_NVFLAGS) -c $< -o $@

# What a build found picks a file, never an #ifdef inside one (as web/web_xlsx_none.c):
# ---- data-parallel layer: exec/ex_dist.c and ex_dist_bench.c where MPI (mpicc) and NCCL (nccl.h) are found,
# else exec/ex_dist_none.c (one process on GPU 0); tests/gpu/test_dist below. Checkpoints (ex_ckpt.c) and the
# gradient conversion kernels (ex_dist_kernels.cu) need neither: in every build.
# NCCL_INC / NCCL_LIB (nccl.h, libnccl.so folders) and MPI_CFLAGS / MPI_LIBS (instead of mpicc) may
# be given on the command line or in the environment (bench/gpu.sh).
EX_COMMA   := ,
EX_NCCL_H  := $(firstword $(wildcard $(if $(NCCL_INC),$(NCCL_INC)/nccl.h) /usr/include/nccl.h $(EX_CUDA)/include/nccl.h))
EX_DIST    := $(if $(and $(or $(MPI_LIBS),$(shell command -v mpicc 2>/dev/null)),$(EX_NCCL_H)),yes)
ifeq ($(EX_DIST),yes)
EX_SRCS    += exec/ex_dist.c exec/ex_dist_bench.c
EX_INC     += $(if $(NCCL_INC),-isystem $(NCCL_INC)) $(or $(MPI_CFLAGS),$(shell mpicc --showme:compile))
EX_LIBDIRS += $(if $(NCCL_LIB),-L$(NCCL_LIB) -Wl$(EX_COMMA)-rpath$(EX_COMMA)$(NCCL_LIB))
EX_LDLIBS  += -lnccl $(or $(MPI_LIBS),$(shell mpicc --showme:link))
else
EX_SRCS    += exec/ex_dist_none.c
endif
# ---- end of the data-parallel lines

# ---- GPU JPEG decode: exec/ex_jpeg_gpu.c where nvjpeg.h is found (NVJPEG_INC may name its
# folder); without it exec/ex_jpeg_gpu_none.c: scaleplan-train has only --data-path jpeg-cpu and says so in
# --help and on request.
EX_NVJPEG_H := $(firstword $(wildcard $(if $(NVJPEG_INC),$(NVJPEG_INC)/nvjpeg.h) $(EX_CUDA)/include/nvjpeg.h /usr/include/nvjpeg.h))
ifneq ($(EX_NVJPEG_H),)
EX_SRCS    += exec/ex_jpeg_gpu.c
EX_INC     += -isystem $(dir $(EX_NVJPEG_H))
EX_LDLIBS  += -lnvjpeg
else
EX_SRCS    += exec/ex_jpeg_gpu_none.c
endif

EX_OBJS := $(EX_SRCS:%.c=$(BUILD)/%.o) $(EX_CU_SRCS:%.cu=$(BUILD)/%.o) $(EX_HOST_DEPS:%.c=$(BUILD)/%.o)

$(BUILD)/scaleplan-train: $(EX_OBJS)
	$(CC) $(LDFLAGS) -o $@ $(EX_OBJS) $(EX_LIBDIRS) $(EX_LDLIBS)

# The test build of scaleplan-train (make test-gpu only): ex_jpeg_gpu.c with its test hooks (EX_TEST_HOOKS:
# EX_JPEG_TEST_STALL, a decode thread that stops on purpose so the stall watch can be checked); the product
# build has none. tests/gpu/*.sh get it as TRAIN_HOOKS.
ifneq ($(EX_NVJPEG_H),)
EX_HOOKS_BIN := $(BUILD)/tests/gpu/scaleplan-train-hooks
$(BUILD)/tests/gpu/ex_jpeg_gpu_hooks.o: exec/ex_jpeg_gpu.c exec/ex_internal.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EX_INC) -DEX_TEST_HOOKS -c $< -o $@
$(EX_HOOKS_BIN): $(patsubst $(BUILD)/exec/ex_jpeg_gpu.o,$(BUILD)/tests/gpu/ex_jpeg_gpu_hooks.o,$(EX_OBJS))
	$(CC) $(LDFLAGS) -o $@ $^ $(EX_LIBDIRS) $(EX_LDLIBS)
endif

# scaleplan-fuseprobe: which cuDNN graph-API fusions this GPU supports, per ResNet-50 convolution, and their speed
$(BUILD)/scaleplan-fuseprobe: bench/fuse_probe.c $(filter-out $(BUILD)/exec/ex_train.o,$(EX_OBJS))
	$(CC) $(CFLAGS) $(EX_INC) -o $@ $< $(filter-out $(BUILD)/exec/ex_train.o,$(EX_OBJS)) $(EX_LIBDIRS) $(EX_LDLIBS)

# GPU tests: layer checks against a CPU double-precision reference, then scripts under tests/gpu.
EX_GPU_TESTS := $(patsubst tests/gpu/%.c,$(BUILD)/tests/gpu/%,$(wildcard tests/gpu/test_ex_*.c))
$(BUILD)/tests/gpu/test_ex_%: tests/gpu/test_ex_%.c $(filter-out $(BUILD)/exec/ex_train.o,$(EX_OBJS)) tests/test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EX_INC) -o $@ $< $(filter-out $(BUILD)/exec/ex_train.o,$(EX_OBJS)) $(EX_LIBDIRS) $(EX_LDLIBS)

.PHONY: test-gpu
test-gpu:
ifeq ($(HAVE_GPU_TOOLCHAIN),yes)
	@if nvidia-smi -L >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory $(BUILD)/scaleplan-train $(EX_GPU_TESTS) $(EX_HOOKS_BIN) && \
		for t in $(EX_GPU_TESTS); do echo "== $$t"; $$t || exit 1; done && \
		for s in tests/gpu/*.sh; do [ -f "$$s" ] || continue; echo "== $$s"; \
			TRAIN=$(PWD)/$(BUILD)/scaleplan-train $(if $(EX_HOOKS_BIN),TRAIN_HOOKS=$(PWD)/$(EX_HOOKS_BIN)) \
			sh $$s || exit 1; done; \
	else echo "test-gpu: skipped: no NVIDIA GPU on this machine (nvidia-smi -L failed)"; fi
else
	@echo "test-gpu: skipped: no GPU toolchain (nvcc + cuDNN + cuBLAS) found"
endif

# ---- data-parallel test driver: no arguments = single-process checks;
# multi-rank runs: bench/gpu.sh (steps multi, hang, faults)
ifeq ($(EX_DIST),yes)
EX_GPU_TESTS += $(BUILD)/tests/gpu/test_dist
$(BUILD)/tests/gpu/test_dist: tests/gpu/test_dist.c $(filter-out $(BUILD)/exec/ex_train.o,$(EX_OBJS)) tests/test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EX_INC) -o $@ $< $(filter-out $(BUILD)/exec/ex_train.o,$(EX_OBJS)) $(EX_LIBDIRS) $(EX_LDLIBS)
endif

# Host-only check of the engine's plan (which batch norms are folded, arena liveness derived independently):
# linked with the engine, run by `make test` wherever the GPU toolchain is found; it needs no GPU. Not in the
# sanitizer build (the CUDA libraries it links are not instrumented).
ifeq ($(HAVE_GPU_TOOLCHAIN)$(SAN),yes)
$(BUILD)/tests/test_ex_plan: tests/host_ex_plan.c $(filter-out $(BUILD)/exec/ex_train.o,$(EX_OBJS)) tests/test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EX_INC) -o $@ $< $(filter-out $(BUILD)/exec/ex_train.o,$(EX_OBJS)) $(EX_LIBDIRS) $(EX_LDLIBS)
test-unit: $(BUILD)/tests/test_ex_plan
endif
