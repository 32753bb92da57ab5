# One training step of scaleplan-train against PyTorch's torchvision resnet50 on the same GPU:
# same weights and input (exported by `scaleplan-train --dump-step DIR`); logits, loss and every
# parameter gradient compared with a float64 PyTorch reference (relative L2 error per tensor).
# A random-init ResNet-50 amplifies rounding through 16 batch norms (the BN backward subtracts
# nearly equal terms), so the yardstick is PyTorch's own error at the same precision (fp32 without
# TF32 for fp32/tf32; autocast bf16/fp16 channels_last for bf16/fp16) against the same float64
# reference (tf32: PyTorch with TF32 on): the engine passes when its error is within 3x PyTorch's (or under an absolute floor).
# usage: python3 torch_step.py DIR   (exit 1 on a mismatch)
# SPDX-License-Identifier: GPL-3.0-or-later
import copy, sys, numpy as np, torch, torchvision
d = sys.argv[1]
meta = {}; params = []
for line in open(f"{d}/meta.txt"):
    f = line.split()
    if f[0] == "param": params.append((f[1], int(f[2]), int(f[3])))
    else: meta[f[0]] = f[1]
B, C, S = int(meta["batch"]), int(meta["classes"]), int(meta["image"])
prec = meta["precision"]; ls = float(meta["smoothing"]); scale = float(meta["loss_scale"])
floor = {"fp32": 1e-4, "tf32": 5e-3, "bf16": 3e-2, "fp16": 1e-2}[prec]
torch.backends.cuda.matmul.allow_tf32 = False; torch.backends.cudnn.allow_tf32 = False
w = np.fromfile(f"{d}/weights.f32", dtype=np.float32)
g = np.fromfile(f"{d}/grads.f32", dtype=np.float32) / scale
x = torch.from_numpy(np.fromfile(f"{d}/input.f32", dtype=np.float32).reshape(B, 3, S, S)).cuda()
y = torch.from_numpy(np.fromfile(f"{d}/labels.i32", dtype=np.int32).astype(np.int64)).cuda()
lg = np.fromfile(f"{d}/logits.f32", dtype=np.float32).reshape(B, C).astype(np.float64)
m = torchvision.models.resnet50(num_classes=C).cuda().train()
assert len(list(m.parameters())) == len(params)
with torch.no_grad():
    for (n, p), (en, off, cnt) in zip(m.named_parameters(), params):
        assert n == en and p.numel() == cnt, (n, en, p.numel(), cnt)
        p.copy_(torch.from_numpy(w[off:off + cnt]).view_as(p))
def run(model, xx, amp=None, cl=False):
    model = copy.deepcopy(model)
    if cl: model = model.to(memory_format=torch.channels_last); xx = xx.contiguous(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
        out = model(xx)
        loss = torch.nn.CrossEntropyLoss(label_smoothing=ls)(out.float(), y)
    loss.backward()
    return (out.detach().double().cpu().numpy(), loss.item(),
            [p.grad.detach().double().cpu().numpy().ravel() for p in model.parameters()])
ref = run(m.double(), x.double())
m = m.float()
if prec == "tf32":  # the peer uses TF32 too
    torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.cudnn.allow_tf32 = True
peer = run(m, x) if prec in ("fp32", "tf32") else run(m, x, torch.bfloat16 if prec == "bf16" else torch.float16, cl=True)
eng = (lg, float(meta["loss"]), [g[off:off + cnt].astype(np.float64) for _, off, cnt in params])
def rel(a, b): return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))
def errs(r):
    ge = np.array([rel(a, b) for a, b in zip(r[2], ref[2])])
    return rel(r[0], ref[0]), abs(r[1] - ref[1]) / abs(ref[1]), float(np.median(ge)), float(np.percentile(ge, 90)), ge
E, P = errs(eng), errs(peer)
names = [n for n, _, _ in params]
fails = 0
for i, what in enumerate(["logits", "loss", "grad median", "grad p90"]):
    lim = max(floor, 3 * P[i]); ok = E[i] <= lim; fails += not ok
    print(f"{prec} {what:12s}: engine {E[i]:.2e}  pytorch {P[i]:.2e}  limit {lim:.2e}  {'ok' if ok else 'FAIL'}")
worst = int(np.argmax(E[4] / np.maximum(P[4], floor / 3)))
print(f"{prec} worst tensor vs pytorch: {names[worst]} engine {E[4][worst]:.2e} pytorch {P[4][worst]:.2e}; "
      f"fc.weight {E[4][-2]:.1e}/{P[4][-2]:.1e}, conv1.weight {E[4][0]:.1e}/{P[4][0]:.1e}")
print("TORCH_STEP", prec, "OK" if fails == 0 else f"FAILED ({fails})")
sys.exit(1 if fails else 0)
