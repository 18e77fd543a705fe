#!/usr/bin/env python3
"""Trains the Fashion-MNIST MLP or CNN of configs/ with PyTorch for one epoch and prints one JSON
line: samples/s (training only), test accuracy, peak RSS. The model, init scheme (PyTorch's
defaults, which exadnn's layers copy), optimizer, batch size and data match exadnn's configs.

usage: compare_pytorch.py {mlp|cnn} EPOCHS TORCH_THREADS
"""
import gzip, json, resource, sys, time

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
    return torch.from_numpy(images.astype(np.float32) / 255.0), torch.from_numpy(labels.astype(np.int64))


def model(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                             nn.Linear(256, 10))
    return nn.Sequential(nn.Conv2d(1, 32, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 5), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 4 * 4, 256), nn.ReLU(), nn.Linear(256, 10))


def main():
    kind, epochs, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    x, y = load("train")
    tx, ty = load("t10k")
    net = model(kind)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    rates = []
    for epoch in range(epochs):
        order = torch.randperm(len(x))
        start = time.perf_counter()
        for i in range(0, len(x) - 127, 128):
            idx_ = order[i:i + 128]
            loss = loss_fn(net(x[idx_]), y[idx_])
            opt.zero_grad()
            loss.backward()
            opt.step()
        rates.append((len(x) // 128) * 128 / (time.perf_counter() - start))
    with torch.no_grad():
        acc = (net(tx).argmax(1) == ty).float().mean().item()
    print(json.dumps({"samples_per_second": sorted(rates)[len(rates) // 2], "test_accuracy": acc,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
