#!/usr/bin/env python3
"""PyTorch side and comparison of a wide-MLP equivalence check (configs/fashion_wide_mlp.yaml vs
compare_pytorch.py's wide_mlp): does exadnn train the 784-2048-2048-10 ReLU MLP with Adam (lr 1e-3)
exactly as PyTorch does, from the same initial weights and on the same batches?

  reference DIR STEPS [SEED]  PyTorch: compare_pytorch.py's wide_mlp (initial weights from
                              torch.manual_seed(SEED), default 0) trained STEPS Adam steps on
                              Fashion-MNIST training images in a random order, batch 256 except the
                              last step, which takes 96 images (the size of exadnn's partial last
                              batch of an epoch: 60 000 = 234 x 256 + 96); once in float64 and
                              once in float32, both from the same weights; writes the files below
  compare DIR                 compares DIR/exadnn_f64 and DIR/exadnn_f32 (wide_mlp_equivalence.cpp)
                              with DIR/torch_f64 and DIR/torch_f32; prints relative errors

A run (BIN: exadnn_wide_mlp_equivalence, built as its source's header says):
  python3 bench/wide_mlp_equivalence.py reference DIR 5 && BIN DIR configs/fashion_wide_mlp.yaml f64 &&
  BIN DIR configs/fashion_wide_mlp.yaml f32 && python3 bench/wide_mlp_equivalence.py compare DIR

What to expect. f64: round-off (~1e-15); a real difference in the model, loss, Adam or the
data path shows up at >= ~1e-6. f32: only for the first step or two. After a few Adam steps a
hidden unit's pre-activation can lie within f32 round-off of 0 for one example (measured, seed 0:
unit 409 of the second hidden layer, 7.5e-8 in f64 against a typical 0.14, in the 2nd batch);
one side's ReLU passes that example's gradient and the other's does not, a gradient element of
~1e-6 changes by ~1e-5, and Adam (which divides by sqrt(v)) turns that into a full lr-sized step
of the opposite sign: from then on the two f32 runs part (1e-5 in the 3rd loss, 1e-3 soon after),
whichever framework is on either side. PyTorch's own f32 run does the same against its f64 run
for other seeds and batches. So the f32 columns say something only while "torch_f32 vs torch_f64"
and "exadnn_f32 vs torch_f64" are both round-off; the exit status looks at f64 only.

Files (raw little-endian f64 / i64, row-major; NAME: a state-dict entry such as 1.weight):
  state.txt           one line per parameter: name, then its shape
  init/NAME.f64       the initial parameters (PyTorch's f32 init, exact in f64)
  x.f64 [R, 1, 28, 28], y.i64 [R]   the rows of all steps, in order; batches.txt: the batch sizes
  test_x.f64 [512, 1, 28, 28]       the first 512 test images
  T_DT/loss.f64 [STEPS]            the loss of each step (T = torch or exadnn, DT = f64 or f32)
  T_DT/grad_first/NAME.f64, T_DT/grad_last/NAME.f64  gradients of the first and the last step
  T_DT/final/NAME.f64, T_DT/exp_avg/NAME.f64, T_DT/exp_avg_sq/NAME.f64  after the last step
  T_DT/logits.f64 [512, 10]        logits of test_x after training
"""
import os
import sys

import numpy as np

TEST = 512
NAMES = ("loss", "grad_first", "grad_last", "final", "exp_avg", "exp_avg_sq", "logits")


def write(path, array, dtype=np.float64):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.ascontiguousarray(array, dtype=np.dtype(dtype).newbyteorder("<")).tofile(path)


def read(path):
    return np.fromfile(path, dtype="<f8")


def train(out, net, x, y, sizes, tx, dtype):
    import torch
    import torch.nn as nn
    net = net.to(dtype)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)  # compare_pytorch.py's wide_mlp
    loss_fn = nn.CrossEntropyLoss()
    x, tx = x.to(dtype), tx.to(dtype)
    losses, start = [], 0
    net.train()
    for s, b in enumerate(sizes):
        loss = loss_fn(net(x[start:start + b]), y[start:start + b])
        opt.zero_grad()
        loss.backward()
        for tag, when in (("grad_first", 0), ("grad_last", len(sizes) - 1)):
            if s == when:
                for name, p in net.named_parameters():
                    write(f"{out}/{tag}/{name}.f64", p.grad.double().numpy())
        opt.step()
        losses.append(loss.item())
        start += b
    write(f"{out}/loss.f64", np.array(losses))
    for name, p in net.named_parameters():
        st = opt.state[p]
        write(f"{out}/final/{name}.f64", p.detach().double().numpy())
        write(f"{out}/exp_avg/{name}.f64", st["exp_avg"].double().numpy())
        write(f"{out}/exp_avg_sq/{name}.f64", st["exp_avg_sq"].double().numpy())
        assert int(st["step"]) == len(sizes)
    with torch.no_grad():
        net.eval()
        write(f"{out}/logits.f64", net(tx).double().numpy())
    print(f"torch {str(dtype):14s} losses: " + " ".join(f"{v:.9f}" for v in losses))


def reference(out, steps, seed):
    import copy
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compare_pytorch import load, model  # the wide_mlp of bench/compare_pytorch.sh

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    (x, y), (tx, _) = load("train"), load("t10k")
    net = model("wide_mlp")  # initialised in f32 as in compare_pytorch.py
    os.makedirs(out, exist_ok=True)
    with open(f"{out}/state.txt", "w") as f:
        for name, t in net.state_dict().items():
            f.write(" ".join([name] + [str(d) for d in t.shape]) + "\n")
            write(f"{out}/init/{name}.f64", t.double().numpy())
    sizes = [256] * (steps - 1) + [96]
    with open(f"{out}/batches.txt", "w") as f:
        f.write(" ".join(str(b) for b in sizes) + "\n")
    order = torch.randperm(len(x))[:sum(sizes)]
    x, y, tx = x[order], y[order], tx[:TEST]
    write(f"{out}/x.f64", x.double().numpy())
    write(f"{out}/y.i64", y.numpy(), np.int64)
    write(f"{out}/test_x.f64", tx.double().numpy())
    for dtype, tag in ((torch.float64, "f64"), (torch.float32, "f32")):
        train(f"{out}/torch_{tag}", copy.deepcopy(net), x, y, sizes, tx, dtype)


def relative(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), np.finfo(np.float64).tiny)


def table(d, pairs):
    """For each quantity, the worst (over parameters) norm-wise relative error of each pair."""
    print(f"{'quantity':<12}" + "".join(f"{a + ' vs ' + b:>28}" for a, b in pairs))
    worst = {}
    for q in NAMES:
        row = []
        for a, b in pairs:
            if q in ("loss", "logits"):
                if q == "loss":  # per step, the worst
                    ea, eb = read(f"{d}/{a}/loss.f64"), read(f"{d}/{b}/loss.f64")
                    e = max(abs(ea - eb) / abs(eb))
                else:
                    e = relative(read(f"{d}/{a}/{q}.f64"), read(f"{d}/{b}/{q}.f64"))
                where = ""
            else:
                names = sorted(os.listdir(f"{d}/{b}/{q}"))
                assert names == sorted(os.listdir(f"{d}/{a}/{q}")), (a, b, q)
                errs = [(relative(read(f"{d}/{a}/{q}/{n}"), read(f"{d}/{b}/{q}/{n}")), n[:-4]) for n in names]
                e, where = max(errs)
            row.append(f"{e:10.2e} {where:>16}")
            worst[(q, a, b)] = e
        print(f"{q:<12}" + "".join(f"{r:>28}" for r in row))
    return worst


def compare(d):
    for tag in ("torch_f64", "exadnn_f64", "torch_f32", "exadnn_f32"):
        print(f"{tag:<11} losses " + " ".join(f"{v:.9f}" for v in read(f"{d}/{tag}/loss.f64")))
    print()
    print("norm-wise relative error |a - b| / |b|; for tensors the worst parameter (named)")
    w = table(d, [("exadnn_f64", "torch_f64"), ("exadnn_f32", "torch_f64"), ("torch_f32", "torch_f64"),
                  ("exadnn_f32", "torch_f32")])
    f64_worst = max(v for (q, a, b), v in w.items() if a == "exadnn_f64")
    ratio = max(w[(q, "exadnn_f32", "torch_f64")] / max(w[(q, "torch_f32", "torch_f64")], 1e-300) for q in NAMES)
    print()
    print(f"f64: worst relative error of exadnn vs PyTorch {f64_worst:.2e}")
    print(f"f32: worst ratio of (exadnn f32 vs torch f64) to (torch f32 vs torch f64) errors {ratio:.2f}")
    return 0 if f64_worst < 1e-9 else 1


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "reference":
        reference(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) == 5 else 0)
    elif len(sys.argv) == 3 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2]))
    else:
        sys.exit(__doc__)
