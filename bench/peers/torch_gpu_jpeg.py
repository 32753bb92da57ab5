# The PyTorch peer of scaleplan-train --data-path jpeg-gpu: torchvision ResNet-50 trained
# from a JPEG folder (DIR/train/<class>/*.JPEG) with the decode on the GPU: DataLoader workers only read
# the files' bytes; torchvision.io.decode_jpeg(list, device="cuda") decodes the batch (nvJPEG), then per
# image RandomResizedCrop(224, antialias) + horizontal flip on the GPU, normalise, channels_last, bf16
# autocast, SGD momentum - the model set-up of torch_rn50_cl.py. Eager or torch.compile.
# usage: python3 torch_gpu_jpeg.py DIR [--bs 256] [--compile] [--steps 30] [--warm 10] [--workers 3]
#        [--synthetic]  (the same model on a random batch already on the GPU, for the ratio)
# Prints one line: TORCH_GPU_JPEG bs=.. compile=.. data=folder|synthetic img_s=.. peak_gib=..
# SPDX-License-Identifier: GPL-3.0-or-later
import os, random, sys, time
import torch, torchvision
from torchvision.io import ImageReadMode, decode_jpeg
import torchvision.transforms.v2.functional as TF

torch.backends.cudnn.benchmark = True
args = sys.argv[1:]
def opt(name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default
root = os.path.join(args[0], "train")
bs, steps, warm, workers = opt("--bs", 256), opt("--steps", 30), opt("--warm", 10), opt("--workers", 3)
compile_, synthetic = "--compile" in args, "--synthetic" in args

class FileBytes(torch.utils.data.Dataset):
    """ImageFolder's file list; an item is the file's bytes (decoded later, on the GPU) and its class."""
    def __init__(self, root):
        classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        self.items = [(os.path.join(root, c, f), i) for i, c in enumerate(classes)
                      for f in sorted(os.listdir(os.path.join(root, c))) if f.lower().endswith((".jpg", ".jpeg"))]
    def __len__(self):
        return len(self.items)
    def __getitem__(self, k):
        p, y = self.items[k]
        with open(p, "rb") as f:  # plain bytes through the worker pipe (tensors would share file descriptors)
            return f.read(), y

def collate(b):
    return [x for x, _ in b], torch.tensor([y for _, y in b])

def to_tensors(datas):
    return [torch.frombuffer(bytearray(x), dtype=torch.uint8) for x in datas]

mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1) * 255
std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1) * 255

def gpu_batch(datas):
    imgs = decode_jpeg(datas, mode=ImageReadMode.RGB, device="cuda")
    out = torch.empty(len(imgs), 3, 224, 224, device="cuda", dtype=torch.uint8)
    for i, im in enumerate(imgs):
        t, l, h, w = torchvision.transforms.RandomResizedCrop.get_params(im, (0.08, 1.0), (3 / 4, 4 / 3))
        c = TF.resized_crop(im, t, l, h, w, [224, 224], antialias=True)
        out[i] = c.flip(-1) if random.random() < 0.5 else c
    return ((out.float() - mean) / std).contiguous(memory_format=torch.channels_last)

m = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
sgd = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-5)
crit = torch.nn.CrossEntropyLoss()
sm = torch.compile(m) if compile_ else m

def step(x, y):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = crit(sm(x), y)
    sgd.zero_grad(set_to_none=True)
    loss.backward()
    sgd.step()

if synthetic:
    x = torch.randn(bs, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (bs,), device="cuda")
    batches = iter(lambda: (x, y), None)
else:
    ds = FileBytes(root)
    dl = torch.utils.data.DataLoader(ds, batch_size=bs, shuffle=True, num_workers=workers, collate_fn=collate,
                                     drop_last=True, persistent_workers=True, prefetch_factor=4)
    def folder_batches():
        while True:
            for datas, y in dl:
                yield gpu_batch(to_tensors(datas)), y.cuda(non_blocking=True)
    batches = folder_batches()
for _ in range(warm):
    step(*next(batches))
torch.cuda.synchronize()
t = time.time()
for _ in range(steps):
    step(*next(batches))
torch.cuda.synchronize()
dt = time.time() - t
print(f"TORCH_GPU_JPEG bs={bs} compile={int(compile_)} data={'synthetic' if synthetic else 'folder'} "
      f"workers={workers} img_s={bs * steps / dt:.0f} peak_gib={torch.cuda.max_memory_allocated() / 2**30:.2f}", flush=True)
