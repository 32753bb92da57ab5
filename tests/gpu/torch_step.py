# One training step of scaleplan-train against PyTorch's torchvision resnet50 on the same GPU:
# same weights and input (exported by `scaleplan-train --dump-step DIR`), compare logits, loss and
# every parameter gradient (relative L2 error per tensor). Tolerances per precision below.
# usage: python3 torch_step.py DIR   (exit 1 on a mismatch)
# SPDX-License-Identifier: GPL-3.0-or-later
import sys, numpy as np, torch, torchvision
d = sys.argv[1]
meta = {}; params = []
for line in open(f"{d}/meta.txt"):
    f = line.split()
    if f[0] == "param": params.append((f[1], int(f[2]), int(f[3])))
    else: meta[f[0]] = f[1]
B, C, S = int(meta["batch"]), int(meta["classes"]), int(meta["image"])
prec = meta["precision"]; ls = float(meta["smoothing"]); scale = float(meta["loss_scale"])
# relative L2 tolerances: fp32 engine vs fp32 torch; bf16/fp16 engine vs fp32 torch (rounding of
# activations to 8/11-bit mantissas compounds through 53 layers)
tol = {"fp32": (2e-3, 1e-3, 2e-2), "tf32": (2e-2, 5e-3, 5e-2), "bf16": (8e-2, 2e-2, 0.25), "fp16": (3e-2, 1e-2, 0.15)}[prec]
torch.backends.cuda.matmul.allow_tf32 = False; torch.backends.cudnn.allow_tf32 = False
w = np.fromfile(f"{d}/weights.f32", dtype=np.float32)
g = np.fromfile(f"{d}/grads.f32", dtype=np.float32) / scale
x = torch.from_numpy(np.fromfile(f"{d}/input.f32", dtype=np.float32).reshape(B, 3, S, S)).cuda()
y = torch.from_numpy(np.fromfile(f"{d}/labels.i32", dtype=np.int32).astype(np.int64)).cuda()
lg = torch.from_numpy(np.fromfile(f"{d}/logits.f32", dtype=np.float32).reshape(B, C))
m = torchvision.models.resnet50(num_classes=C).cuda().train()
names = [n for n, _ in m.named_parameters()]
assert len(names) == len(params), (len(names), len(params))
with torch.no_grad():
    for (n, p), (en, off, cnt) in zip(m.named_parameters(), params):
        assert n == en, (n, en)
        assert p.numel() == cnt, (n, p.numel(), cnt)
        p.copy_(torch.from_numpy(w[off:off + cnt]).view_as(p))
out = m(x)
loss = torch.nn.CrossEntropyLoss(label_smoothing=ls)(out, y)
loss.backward()
def rel(a, b): return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))
fails = 0
e_logit = rel(lg.numpy(), out.detach().cpu().numpy())
e_loss = abs(float(meta["loss"]) - loss.item()) / abs(loss.item())
print(f"precision {prec}: logits rel L2 {e_logit:.2e} (tol {tol[0]}), loss {float(meta['loss']):.6f} vs torch {loss.item():.6f} rel {e_loss:.2e} (tol {tol[1]})")
fails += e_logit > tol[0]; fails += e_loss > tol[1]
worst = []
for (n, p), (en, off, cnt) in zip(m.named_parameters(), params):
    e = rel(g[off:off + cnt], p.grad.detach().cpu().numpy().ravel())
    worst.append((e, n))
worst.sort(reverse=True)
med = sorted(e for e, _ in worst)[len(worst) // 2]
print(f"gradients: median rel L2 {med:.2e}, worst {worst[0][1]} {worst[0][0]:.2e}, {worst[1][1]} {worst[1][0]:.2e} (tol {tol[2]})")
bad = [(e, n) for e, n in worst if e > tol[2]]
for e, n in bad[:10]: print(f"  FAIL grad {n}: rel L2 {e:.3e}")
fails += len(bad)
print("TORCH_STEP", prec, "OK" if fails == 0 else f"FAILED ({fails})")
sys.exit(1 if fails else 0)
