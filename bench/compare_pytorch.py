#!/usr/bin/env python3
"""Trains one model of configs/ with PyTorch and prints one JSON line: each epoch's samples/s
(training only), the first epoch's and the median of the steady epochs (2..E; the first when
E = 1), test accuracy, peak RSS, the parameter count and the training FLOPs per sample (3 x the
forward's 2 x multiply-adds: forward, backward data, backward weights). The model, init scheme
(PyTorch's defaults, which exadnn's layers copy; He-normal over fan-out for the ResNet's convs,
as exadnn's), optimizer, batch size and data match exadnn's configs; the test set is scored in
batches of the training batch size, as exadnn does.

  mlp       configs/fashion_mnist_mlp.yaml  784-512-256-10, SGD momentum, batch 128
  cnn       configs/fashion_mnist_cnn.yaml  conv5x5 32, conv5x5 64, 256, 10; SGD, batch 128
  wide_mlp  configs/fashion_wide_mlp.yaml   784-2048-2048-10, Adam, batch 256
  resnet18  configs/resnet18_64.yaml        ResNet-18 (7x7/2 stem), 3x64x64, SGD, batch 128;
            reads the HDF5 file of bench/make_fashion64.py (--data)
  cbed_resnet18  apps/cbed/configs/cbed_resnet18_128.yaml  ResNet-18 (7x7/2 stem), 39 classes,
            3x128x128 CBED stacks, SGD, batch 64; reads the HDF5 file of
            exadnn_cbed_classify_train --export (--data)

usage: compare_pytorch.py MODEL EPOCHS TORCH_THREADS [--channels-last] [--steps N] [--data F.h5]
                          [--device cuda]
  --channels-last  NHWC activations and weights (PyTorch's faster layout for some CPU convs)
  --steps N        train only the first N batches of each epoch (to probe configurations fast)
  --device cuda    train on the GPU: the whole data set is moved there once (PyTorch's fastest
                   feed for sets this small) and each epoch's time ends with a synchronize
"""
import argparse, gzip, json, resource, statistics, time

import numpy as np
import torch
import torch.nn as nn

DATA = "/usr/share/datasets/fashion-mnist"
BATCH = {"mlp": 128, "cnn": 128, "wide_mlp": 256, "resnet18": 128, "cbed_resnet18": 64}


def idx(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def load(split):
    images = idx(f"{DATA}/{split}-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    labels = idx(f"{DATA}/{split}-labels-idx1-ubyte.gz", 8)
    pixels = images.astype(np.float32)
    pixels /= 255.0  # in place: one f32 copy of the images, not two
    return torch.from_numpy(pixels), torch.from_numpy(labels.astype(np.int64))


def load_h5(path, group):
    import h5py
    with h5py.File(path, "r") as f:
        return torch.from_numpy(f[f"{group}/x"][...]), torch.from_numpy(f[f"{group}/y"][...].astype(np.int64))


class BasicBlock(nn.Module):
    """relu(conv3x3(stride)-bn-relu-conv3x3-bn(x) + shortcut(x)); shortcut conv1x1(stride)-bn
    where the shape changes (exadnn's ResidualBlock, Kind::basic)."""

    def __init__(self, cin, planes, stride):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, planes, 3, stride, 1, bias=False), nn.BatchNorm2d(planes),
                                  nn.ReLU(inplace=True), nn.Conv2d(planes, planes, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(planes))
        self.shortcut = nn.Identity()
        if stride != 1 or cin != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        return torch.relu(self.body(x) + self.shortcut(x))


def resnet18(in_channels, classes, width=64):
    """He et al.'s ResNet-18: conv7x7/2-bn-relu-maxpool3x3/2, stages of [2, 2, 2, 2] basic
    blocks with width, 2, 4, 8 x width planes (strides 1, 2, 2, 2), global average pool, linear."""
    layers = [nn.Conv2d(in_channels, width, 7, 2, 3, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = width
    for stage, stride in enumerate((1, 2, 2, 2)):
        planes = width << stage
        layers += [BasicBlock(cin, planes, stride), BasicBlock(planes, planes, 1)]
        cin = planes
    net = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes))
    for m in net.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    return net


def model(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                             nn.Linear(256, 10))
    if kind == "wide_mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                             nn.Linear(2048, 10))
    if kind == "resnet18":
        return resnet18(3, 10)
    if kind == "cbed_resnet18":
        return resnet18(3, 39)
    return nn.Sequential(nn.Conv2d(1, 32, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 5), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 4 * 4, 256), nn.ReLU(), nn.Linear(256, 10))


def train_flops_per_sample(net, sample):
    """3 x 2 x the multiply-adds of one example's forward pass through the convs and linears."""
    macs = []

    def hook(layer, _, out):
        if isinstance(layer, nn.Conv2d):
            k = layer.in_channels // layer.groups * layer.kernel_size[0] * layer.kernel_size[1]
            macs.append(out[0].numel() * k)
        elif isinstance(layer, nn.Linear):
            macs.append(layer.in_features * layer.out_features)

    handles = [m.register_forward_hook(hook) for m in net.modules()]
    was_training = net.training
    net.eval()  # batch norm on one example: running statistics, and they stay as they were
    with torch.no_grad():
        net(sample[:1])
    net.train(was_training)
    for h in handles:
        h.remove()
    return 3 * 2 * sum(macs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=sorted(BATCH))
    ap.add_argument("epochs", type=int)
    ap.add_argument("threads", type=int)
    ap.add_argument("--channels-last", action="store_true")
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--data", default="")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--seed", type=int, default=0, help="initial weights and shuffling")
    args = ap.parse_args()
    if args.kind == "resnet18" and not args.data:
        ap.error("resnet18 needs --data FILE.h5 (bench/make_fashion64.py)")
    if args.kind == "cbed_resnet18" and not args.data:
        ap.error("cbed_resnet18 needs --data FILE.h5 (exadnn_cbed_classify_train --export)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    if args.data:
        (x, y), (tx, ty) = load_h5(args.data, "train"), load_h5(args.data, "test")
    else:
        (x, y), (tx, ty) = load("train"), load("t10k")
    device = torch.device(args.device)
    x, y, tx, ty = (t.to(device) for t in (x, y, tx, ty))
    net = model(args.kind).to(device, memory_format=fmt)
    flops = train_flops_per_sample(net, x)
    params = sum(p.numel() for p in net.parameters())
    if args.kind == "wide_mlp":
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    else:
        opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    bs = BATCH[args.kind]
    batches = len(x) // bs if args.steps <= 0 else min(args.steps, len(x) // bs)
    rates = []
    for epoch in range(args.epochs):
        net.train()
        order = torch.randperm(len(x), device=device)
        start = time.perf_counter()
        for i in range(0, batches * bs, bs):
            idx_ = order[i:i + bs]
            loss = loss_fn(net(x[idx_].contiguous(memory_format=fmt)), y[idx_])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        rates.append(batches * bs / (time.perf_counter() - start))
    correct = 0
    net.eval()
    with torch.no_grad():
        for i in range(0, len(tx), bs):
            correct += (net(tx[i:i + bs].contiguous(memory_format=fmt)).argmax(1) == ty[i:i + bs]).sum().item()
    steady = rates[1:] or rates
    print(json.dumps({"samples_per_second": statistics.median(steady), "first_epoch": rates[0],
                      "epochs": rates, "test_accuracy": correct / len(tx),
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "parameters": params, "train_flops_per_sample": flops}))


if __name__ == "__main__":
    main()
