#!/usr/bin/env python3
"""Writes the 3x64x64 image set of configs/resnet18_64.yaml: the first TRAIN training and first
TEST test images of Fashion-MNIST (Debian's dataset-fashion-mnist), pixel / 255, upsampled
28x28 -> 64x64 bilinearly (half-pixel centres, no antialiasing) and replicated to 3 channels.
The output is deterministic (no randomness) and both frameworks of bench/compare_pytorch.sh read
the same file.

HDF5 layout (exadnn's `hdf5` dataset kind): train/x f32 [TRAIN, 3, 64, 64], train/y i64 [TRAIN],
test/x f32 [TEST, 3, 64, 64], test/y i64 [TEST].

usage: make_fashion64.py OUT.h5 [--train 2048] [--test 512]
"""
import argparse

import h5py
import numpy as np
import torch
import torch.nn.functional as F

from compare_pytorch import DATA, idx  # the IDX reader of the PyTorch side (same folder)


def split(name, count):
    """(images f32 [count, 3, 64, 64], labels i64 [count]) of one Fashion-MNIST split."""
    images = idx(f"{DATA}/{name}-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    labels = idx(f"{DATA}/{name}-labels-idx1-ubyte.gz", 8)
    if count > len(images):
        raise SystemExit(f"{name}: asked for {count} images, the split holds {len(images)}")
    pixels = torch.from_numpy(images[:count].astype(np.float32) / 255.0)
    big = F.interpolate(pixels, size=(64, 64), mode="bilinear", align_corners=False)
    return big.expand(-1, 3, -1, -1).contiguous().numpy(), labels[:count].astype(np.int64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--train", type=int, default=2048)
    ap.add_argument("--test", type=int, default=512)
    args = ap.parse_args()
    if args.train < 1 or args.test < 1:
        raise SystemExit("--train and --test need at least 1 image each")
    with h5py.File(args.out, "w") as f:
        for group, name, count in (("train", "train", args.train), ("test", "t10k", args.test)):
            x, y = split(name, count)
            f[f"{group}/x"] = x
            f[f"{group}/y"] = y


if __name__ == "__main__":
    main()
