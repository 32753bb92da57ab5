# The peer baseline of bench/gpu.sh (peers): torchvision ResNet-50, synthetic 224x224, SGD momentum,
# bf16 autocast, channels_last, eager at batch 256/128/64 and torch.compile at 256 (the method of
# the PyTorch baseline script that measured refdata/testbed_pytorch.csv).
# usage: python3 torch_rn50_cl.py [--no-compile] [--batches 256,128,64]
# SPDX-License-Identifier: GPL-3.0-or-later
import sys, time, torch, torchvision
torch.backends.cudnn.benchmark = True
def bench(bs, compile_=False, steps=30, warm=10):
    m = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-5)
    x = torch.randn(bs, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (bs,), device="cuda")
    crit = torch.nn.CrossEntropyLoss()
    sm = torch.compile(m) if compile_ else m
    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = crit(sm(x), y)
        opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    for _ in range(warm): step()
    torch.cuda.synchronize(); t = time.time()
    for _ in range(steps): step()
    torch.cuda.synchronize(); dt = time.time() - t
    print(f"TORCH_RN50 bs={bs} compile={int(compile_)} img_s={bs*steps/dt:.0f} peak_gib={torch.cuda.max_memory_allocated()/2**30:.2f}", flush=True)
    del m, opt, sm
    torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
bss = [256, 128, 64]
for i, arg in enumerate(sys.argv):
    if arg == "--batches": bss = [int(v) for v in sys.argv[i + 1].split(",")]
if "--compile-only" not in sys.argv:
    for bs in bss: bench(bs)
if "--no-compile" not in sys.argv:
    # --compile-only runs torch.compile at each of --batches (default: 256 alone)
    try:
        for bs in (bss if "--compile-only" in sys.argv else [256]): bench(bs, compile_=True, steps=30, warm=15)
    except Exception as e: print("compile failed:", e)
