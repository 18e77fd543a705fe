#!/usr/bin/env python3
"""Trains the Fashion-MNIST MLP or CNN of configs/ with PyTorch and prints one JSON line:
samples/s (training only, median over epochs), test accuracy, peak RSS, and the training FLOPs per
sample (3 x the forward's 2 x multiply-adds: forward, backward data, backward weights). The model,
init scheme (PyTorch's defaults, which exadnn's layers copy), optimizer, batch size and data match
exadnn's configs; the test set is scored in batches of 128, the training batch size, as exadnn
does.

usage: compare_pytorch.py {mlp|cnn} EPOCHS TORCH_THREADS [--channels-last] [--steps N]
  --channels-last  NHWC activations and weights (PyTorch's faster layout for some CPU convs)
  --steps N        train only the first N batches of each epoch (to probe configurations fast)
"""
import argparse, gzip, json, resource, time

import numpy as np
import torch
import torch.nn as nn

DATA = "/usr/share/datasets/fashion-mnist"


def idx(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def load(split):
    images = idx(f"{DATA}/{split}-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    labels = idx(f"{DATA}/{split}-labels-idx1-ubyte.gz", 8)
    pixels = images.astype(np.float32)
    pixels /= 255.0  # in place: one f32 copy of the images, not two
    return torch.from_numpy(pixels), torch.from_numpy(labels.astype(np.int64))


def model(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                             nn.Linear(256, 10))
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
    with torch.no_grad():
        net(sample[:1])
    for h in handles:
        h.remove()
    return 3 * 2 * sum(macs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["mlp", "cnn"])
    ap.add_argument("epochs", type=int)
    ap.add_argument("threads", type=int)
    ap.add_argument("--channels-last", action="store_true")
    ap.add_argument("--steps", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    x, y = load("train")
    tx, ty = load("t10k")
    net = model(args.kind).to(memory_format=fmt)
    flops = train_flops_per_sample(net, x)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    batches = len(x) // 128 if args.steps <= 0 else min(args.steps, len(x) // 128)
    rates = []
    for epoch in range(args.epochs):
        order = torch.randperm(len(x))
        start = time.perf_counter()
        for i in range(0, batches * 128, 128):
            idx_ = order[i:i + 128]
            loss = loss_fn(net(x[idx_].contiguous(memory_format=fmt)), y[idx_])
            opt.zero_grad()
            loss.backward()
            opt.step()
        rates.append(batches * 128 / (time.perf_counter() - start))
    correct = 0
    with torch.no_grad():
        for i in range(0, len(tx), 128):
            correct += (net(tx[i:i + 128].contiguous(memory_format=fmt)).argmax(1) == ty[i:i + 128]).sum().item()
    print(json.dumps({"samples_per_second": sorted(rates)[len(rates) // 2], "test_accuracy": correct / len(tx),
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "train_flops_per_sample": flops}))


if __name__ == "__main__":
    main()
