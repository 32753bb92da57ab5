# PyTorch peer of `scaleplan-train --data fashion-mnist`: the same recipe (torchvision resnet50 from
# scratch, 10 classes, 28x28 upscaled bilinearly to SIZE, 3 channels, random crop with padding 4 +
# horizontal flip, normalise 0.2860/0.3530; SGD momentum 0.9, weight decay on all parameters, label
# smoothing 0.1, linear warm-up 1 epoch then cosine per step; bf16 autocast, channels_last; data on the
# GPU like the engine). Prints test top-1 per epoch and the time to the target.
# usage: python3 torch_fmnist.py [--size 96] [--batch 256] [--lr 0.2] [--wd 5e-4] [--epochs 10] [--target 0.92]
# SPDX-License-Identifier: GPL-3.0-or-later
import argparse, gzip, math, os, time, numpy as np, torch, torch.nn.functional as F, torchvision
p = argparse.ArgumentParser()
p.add_argument("--dir", default=os.environ.get("FMNIST_DIR", "/usr/share/datasets/fashion-mnist"))
p.add_argument("--size", type=int, default=96); p.add_argument("--batch", type=int, default=256)
p.add_argument("--lr", type=float, default=0.2); p.add_argument("--wd", type=float, default=5e-4)
p.add_argument("--epochs", type=int, default=10); p.add_argument("--target", type=float, default=0.92)
p.add_argument("--compile", action="store_true")
a = p.parse_args()
torch.backends.cudnn.benchmark = True
def idx(name, off):
    return np.frombuffer(gzip.open(os.path.join(a.dir, name)).read(), dtype=np.uint8, offset=off)
xtr = torch.from_numpy(idx("train-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28).copy()).cuda()
ytr = torch.from_numpy(idx("train-labels-idx1-ubyte.gz", 8).astype(np.int64)).cuda()
xte = torch.from_numpy(idx("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28).copy()).cuda()
yte = torch.from_numpy(idx("t10k-labels-idx1-ubyte.gz", 8).astype(np.int64)).cuda()
def prep(x, train):
    x = x.float() / 255.0
    B = x.shape[0]
    if train:
        xp = F.pad(x, (4, 4, 4, 4))
        oy = torch.randint(0, 9, (B,), device="cuda"); ox = torch.randint(0, 9, (B,), device="cuda")
        ar = torch.arange(28, device="cuda")
        iy = (oy[:, None] + ar[None, :]); ix = (ox[:, None] + ar[None, :])
        x = xp[torch.arange(B, device="cuda")[:, None, None], iy[:, :, None], ix[:, None, :]]
        flip = torch.rand(B, device="cuda") < 0.5
        x = torch.where(flip[:, None, None], x.flip(-1), x)
    x = F.interpolate(x[:, None], size=(a.size, a.size), mode="bilinear", align_corners=False)
    x = ((x - 0.2860) / 0.3530).expand(-1, 3, -1, -1)
    return x.contiguous(memory_format=torch.channels_last)
m = torchvision.models.resnet50(num_classes=10).cuda().to(memory_format=torch.channels_last)
opt = torch.optim.SGD(m.parameters(), lr=a.lr, momentum=0.9, weight_decay=a.wd)
steps = xtr.shape[0] // a.batch; total = steps * a.epochs; warm = steps
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * min(s - warm, total - warm) / max(total - warm, 1))))
crit = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
fm = torch.compile(m) if a.compile else m
t0 = time.time(); tta = None
for e in range(1, a.epochs + 1):
    m.train(); perm = torch.randperm(xtr.shape[0], device="cuda"); te = time.time()
    for i in range(steps):
        b = perm[i * a.batch:(i + 1) * a.batch]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = crit(fm(prep(xtr[b], True)), ytr[b])
        opt.zero_grad(set_to_none=True); loss.backward(); opt.step(); sched.step()
    torch.cuda.synchronize(); ttrain = time.time() - te
    m.eval(); correct = 0
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        for i in range(0, xte.shape[0], a.batch):
            correct += (fm(prep(xte[i:i + a.batch], False)).argmax(1) == yte[i:i + a.batch]).sum().item()
    top1 = correct / xte.shape[0]
    print(f"epoch {e}: loss {loss.item():.4f} test top-1 {top1:.4f} train {steps * a.batch / ttrain:.0f} img/s, run {time.time() - t0:.1f} s", flush=True)
    if top1 >= a.target:
        tta = time.time() - t0; break
print(f"TORCH_FMNIST size={a.size} batch={a.batch} top1={top1:.4f} tta_s={tta if tta else -1:.1f} run_s={time.time() - t0:.1f}", flush=True)
