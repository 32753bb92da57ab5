# PyTorch input-pipeline peer on an existing ImageNet-layout folder (a copy of
# bench/peers/torch_data.py adapted: reads DIR/train instead of building its own photo set, sweeps
# DataLoader workers up to the cores, adds a torchvision.io.decode_jpeg dataset, writes a CSV).
# Pipelines: (1) ImageFolder + PIL decode + RandomResizedCrop(224) + flip + PILToTensor (uint8, as the
# reference script); (2) file bytes + torchvision.io.decode_jpeg (libjpeg-turbo) + RRC(antialias) + flip
# (uint8). Neither normalises nor converts to bf16 - scaleplan's loader does both, so this favours PyTorch.
# usage: python3 torch_data_folder.py DIR [OUT.csv] [MACHINE]     env: IMAGES (default 3000 per point)
# SPDX-License-Identifier: GPL-3.0-or-later
import csv, os, platform, sys, time
import torch, torchvision
from torchvision import transforms as T

root = os.path.join(sys.argv[1], "train")
out_csv = sys.argv[2] if len(sys.argv) > 2 else "torch_data_folder.csv"
machine = sys.argv[3] if len(sys.argv) > 3 else platform.node()
N = int(os.environ.get("IMAGES", "3000"))
cores = os.cpu_count() or 1
cpu = "unknown CPU"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip() + f" ({cores} cores online)"
            break
except OSError:
    pass
files = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.lower().endswith((".jpg", ".jpeg"))]
mean_B = sum(os.path.getsize(f) for f in files[:5000]) / max(1, min(len(files), 5000))
print(f"dataset: {len(files)} JPEGs in {root}, mean {mean_B/1024:.1f} KiB; torch {torch.__version__}, "
      f"torchvision {torchvision.__version__}", flush=True)
rows = []

class IoFolder(torch.utils.data.Dataset):
    """ImageFolder's file list, decoded by torchvision.io (libjpeg-turbo)."""
    def __init__(self, base):
        self.samples = base.samples
        self.tf = T.Compose([T.RandomResizedCrop(224, antialias=True), T.RandomHorizontalFlip()])
    def __len__(self):
        return len(self.samples)
    def __getitem__(self, i):
        p, y = self.samples[i]
        img = torchvision.io.decode_jpeg(torchvision.io.read_file(p), mode=torchvision.io.ImageReadMode.RGB)
        return self.tf(img), y

def worker_init(_):
    torch.set_num_threads(1)

pil_ds = torchvision.datasets.ImageFolder(root, transform=T.Compose(
    [T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.PILToTensor()]))
io_ds = IoFolder(pil_ds)
workers = [w for w in (1, 2, 4, 8, 16, 32, 64, 128) if w < cores] + [cores]
for name, ds in (("PyTorch DataLoader + ImageFolder (PIL decode) + RandomResizedCrop(224) + flip, uint8", pil_ds),
                 ("PyTorch DataLoader + torchvision.io.decode_jpeg (libjpeg-turbo) + RandomResizedCrop(224, antialias) + flip, uint8", io_ds)):
    for w in workers:
        dl = torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True, num_workers=w, worker_init_fn=worker_init,
                                         persistent_workers=False, prefetch_factor=4)
        it = iter(dl)
        next(it)
        t = time.time(); n = 0
        for b, _ in it:
            n += b.shape[0]
            if n >= N:
                break
        dt = time.time() - t
        print(f"{name[:40]} workers={w}: {n/dt:.0f} img/s, {n/dt/w:.0f} img/s per worker", flush=True)
        rows.append(["pytorch", machine, cpu, name, w, f"{n/dt:.6g}", f"{n/dt/w:.6g}", f"{mean_B:.6g}",
                     f"{n} images, batch 64, torch {torch.__version__}, torchvision {torchvision.__version__}"])
# single process, in memory (the reference's last line)
raw = [torchvision.io.read_file(f) for f in files[:1000]]
crop = T.Compose([T.RandomResizedCrop(224, antialias=True), T.RandomHorizontalFlip()])
torch.set_num_threads(1)
t = time.time()
for r in raw:
    crop(torchvision.io.decode_jpeg(r))
dt = time.time() - t
print(f"torchvision.io.decode_jpeg + RRC, 1 thread, in memory: {len(raw)/dt:.0f} img/s", flush=True)
rows.append(["pytorch", machine, cpu, "torchvision.io.decode_jpeg + RandomResizedCrop + flip from memory, one thread",
             1, f"{len(raw)/dt:.6g}", f"{len(raw)/dt:.6g}", f"{mean_B:.6g}", "single thread, no DataLoader"])
with open(out_csv, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["source", "machine", "cpu", "pipeline", "threads", "img_s", "img_s_per_thread", "image_bytes_mean", "note"])
    w.writerows(rows)
print(f"wrote {out_csv}")
