#!/usr/bin/python3
"""Writes the reference values the optim tests compare against, computed by PyTorch.

Run once after changing a case (Debian's python3-torch, 1.13):
    /usr/bin/python3 tests/optim/make_fixtures.py
The C++ tests read the text files in tests/optim/fixtures/ and do not need Python.

Inputs come from fixed formulas (no RNG) and are written out too, as 17-digit decimals, so the
C++ side starts from bit-identical values. Each optimizer case runs 5 steps over two parameters;
parameter 1 has no gradient at step 3 (it must be skipped and its step count not advance).

File format (whitespace separated, '#' starts a comment line):
    param <i> shape <d...> : <values>          initial parameter values (float64)
    grad <step> <i> : <values> | none          gradient of parameter i at a step (1-based)
    case <name> <key>=<value>...                one configuration; keys as in the C++ options
    after <step> <i> : <values>                 parameter i after that step
    lrs : <values>                              scheduler: lr after construction, then each step
    norm : <value>                              clip: total norm returned
    clipped <i> : <values>                      clip: gradient i after clipping
"""
import math
import os
import warnings

import torch

warnings.filterwarnings("ignore")
torch.set_default_dtype(torch.float64)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")

SHAPES = [(2, 3), (3,)]
STEPS = 5
SKIP = {(3, 1)}  # (step, param) without a gradient
RECORD = (1, 5)  # steps after which parameters are written


def fmt(values):
    return " ".join(repr(float(v)) for v in values)


def initial_params():
    p0 = [0.5 * math.sin(0.7 * j + 0.3) + 0.1 * j for j in range(6)]
    p1 = [math.cos(1.1 * j + 0.2) - 0.25 for j in range(3)]
    return [p0, p1]


def gradient(step, i):
    if (step, i) in SKIP:
        return None
    n = math.prod(SHAPES[i])
    if i == 0:
        return [math.sin(0.9 * j + 1.7 * step) * (1 + 0.3 * step) for j in range(n)]
    return [0.7 * math.cos(0.5 * j - 0.8 * step) + 0.05 * step for j in range(n)]


def make_optimizer(kind, params, cfg):
    lr = cfg["lr"]
    if kind == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=cfg.get("momentum", 0),
                               dampening=cfg.get("dampening", 0),
                               weight_decay=cfg.get("weight_decay", 0),
                               nesterov=bool(cfg.get("nesterov", 0)),
                               maximize=bool(cfg.get("maximize", 0)))
    if kind in ("adam", "adamw"):
        cls = torch.optim.Adam if kind == "adam" else torch.optim.AdamW
        extra = {} if "weight_decay" not in cfg else {"weight_decay": cfg["weight_decay"]}
        return cls(params, lr=lr, betas=(cfg.get("beta1", 0.9), cfg.get("beta2", 0.999)),
                   eps=cfg.get("eps", 1e-8), amsgrad=bool(cfg.get("amsgrad", 0)),
                   maximize=bool(cfg.get("maximize", 0)), **extra)
    if kind == "adagrad":
        return torch.optim.Adagrad(params, lr=lr, lr_decay=cfg.get("lr_decay", 0),
                                   weight_decay=cfg.get("weight_decay", 0),
                                   initial_accumulator_value=cfg.get("initial_accumulator_value", 0),
                                   eps=cfg.get("eps", 1e-10),
                                   maximize=bool(cfg.get("maximize", 0)))
    if kind == "rmsprop":
        return torch.optim.RMSprop(params, lr=lr, alpha=cfg.get("alpha", 0.99),
                                   eps=cfg.get("eps", 1e-8),
                                   weight_decay=cfg.get("weight_decay", 0),
                                   momentum=cfg.get("momentum", 0),
                                   centered=bool(cfg.get("centered", 0)),
                                   maximize=bool(cfg.get("maximize", 0)))
    raise ValueError(kind)


OPTIMIZER_CASES = [
    # name, optimizer, dtype, options
    ("sgd_plain", "sgd", "f64", {"lr": 0.1}),
    ("sgd_weight_decay", "sgd", "f64", {"lr": 0.1, "weight_decay": 0.05}),
    ("sgd_momentum", "sgd", "f64", {"lr": 0.05, "momentum": 0.9}),
    ("sgd_momentum_dampening", "sgd", "f64", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3}),
    ("sgd_nesterov_weight_decay", "sgd", "f64",
     {"lr": 0.05, "momentum": 0.9, "nesterov": 1, "weight_decay": 1e-2}),
    ("sgd_maximize", "sgd", "f64", {"lr": 0.1, "momentum": 0.5, "maximize": 1}),
    ("adam_plain", "adam", "f64", {"lr": 0.01}),
    ("adam_weight_decay_betas", "adam", "f64",
     {"lr": 0.02, "beta1": 0.8, "beta2": 0.99, "eps": 1e-6, "weight_decay": 0.1}),
    ("adam_amsgrad", "adam", "f64", {"lr": 0.01, "amsgrad": 1}),
    ("adam_maximize", "adam", "f64", {"lr": 0.01, "maximize": 1}),
    ("adamw_default_decay", "adamw", "f64", {"lr": 0.01}),
    ("adamw_amsgrad_decay", "adamw", "f64", {"lr": 0.02, "weight_decay": 0.3, "amsgrad": 1}),
    ("adagrad_plain", "adagrad", "f64", {"lr": 0.1}),
    ("adagrad_decay_init", "adagrad", "f64",
     {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.02, "initial_accumulator_value": 0.1}),
    ("rmsprop_plain", "rmsprop", "f64", {"lr": 0.01}),
    ("rmsprop_momentum", "rmsprop", "f64", {"lr": 0.01, "momentum": 0.9, "alpha": 0.9}),
    ("rmsprop_centered", "rmsprop", "f64", {"lr": 0.01, "centered": 1}),
    ("rmsprop_centered_momentum_decay", "rmsprop", "f64",
     {"lr": 0.01, "centered": 1, "momentum": 0.5, "weight_decay": 0.1, "eps": 1e-4}),
    ("sgd_nesterov_f32", "sgd", "f32",
     {"lr": 0.05, "momentum": 0.9, "nesterov": 1, "weight_decay": 1e-2}),
    ("adam_f32", "adam", "f32", {"lr": 0.01, "weight_decay": 0.01}),
    ("adamw_f32", "adamw", "f32", {"lr": 0.01, "amsgrad": 1}),
    ("adagrad_f32", "adagrad", "f32", {"lr": 0.1, "lr_decay": 0.05}),
    ("rmsprop_f32", "rmsprop", "f32", {"lr": 0.01, "centered": 1, "momentum": 0.9}),
]


def write_optimizers():
    init = initial_params()
    lines = ["# PyTorch %s reference values for the optimizers (make_fixtures.py)" % torch.__version__]
    for i, values in enumerate(init):
        lines.append("param %d shape %s : %s" % (i, " ".join(map(str, SHAPES[i])), fmt(values)))
    for step in range(1, STEPS + 1):
        for i in range(len(SHAPES)):
            g = gradient(step, i)
            lines.append("grad %d %d : %s" % (step, i, "none" if g is None else fmt(g)))
    for name, kind, dtype, cfg in OPTIMIZER_CASES:
        tdtype = torch.float64 if dtype == "f64" else torch.float32
        params = [torch.tensor(v, dtype=torch.float64).reshape(s).to(tdtype).requires_grad_()
                  for v, s in zip(init, SHAPES)]
        opt = make_optimizer(kind, params, cfg)
        keys = " ".join("%s=%r" % (k, v) for k, v in cfg.items())
        lines.append("case %s opt=%s dtype=%s %s" % (name, kind, dtype, keys))
        for step in range(1, STEPS + 1):
            for i, p in enumerate(params):
                g = gradient(step, i)
                p.grad = None if g is None else \
                    torch.tensor(g, dtype=torch.float64).reshape(SHAPES[i]).to(tdtype)
            opt.step()
            if step in RECORD:
                for i, p in enumerate(params):
                    lines.append("after %d %d : %s" % (step, i, fmt(p.detach().double().flatten())))
    with open(os.path.join(OUT, "optimizers.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def lr_sequence(make, steps, lr=0.1):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=lr)
    sched = make(opt)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    return lrs


def write_schedulers():
    S = torch.optim.lr_scheduler
    cases = [
        ("step_lr sched=step lr=0.1 step_size=3 gamma=0.5 steps=10",
         lambda o: S.StepLR(o, step_size=3, gamma=0.5), 10),
        ("cosine sched=cosine lr=0.1 t_max=5 eta_min=0.01 steps=13",
         lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.01), 13),
        ("cosine_zero_min sched=cosine lr=0.1 t_max=7 eta_min=0 steps=9",
         lambda o: S.CosineAnnealingLR(o, T_max=7), 9),
        ("warmup sched=warmup lr=0.1 warmup_steps=4 start_factor=0.25 steps=8",
         lambda o: S.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4), 8),
        ("warmup_cosine sched=warmup lr=0.1 warmup_steps=3 start_factor=0.1 then=cosine "
         "t_max=6 eta_min=0.001 steps=12",
         lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=3),
                                      S.CosineAnnealingLR(o, T_max=6, eta_min=0.001)],
                                  milestones=[3]), 12),
        ("warmup_step sched=warmup lr=0.2 warmup_steps=2 start_factor=0.5 then=step "
         "step_size=2 gamma=0.1 steps=8",
         lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.5, total_iters=2),
                                      S.StepLR(o, step_size=2, gamma=0.1)],
                                  milestones=[2]), 8),
    ]
    lines = ["# PyTorch %s learning-rate sequences (make_fixtures.py)" % torch.__version__]
    for header, make, steps in cases:
        lr = float(header.split("lr=")[1].split()[0])
        lines.append("case " + header)
        lines.append("lrs : " + fmt(lr_sequence(make, steps, lr)))
    with open(os.path.join(OUT, "schedulers.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_clip():
    init = initial_params()
    lines = ["# PyTorch %s clip_grad_norm_ (make_fixtures.py)" % torch.__version__]
    for i, values in enumerate(init):
        lines.append("param %d shape %s : %s" % (i, " ".join(map(str, SHAPES[i])), fmt(values)))
    for i in range(len(SHAPES)):
        lines.append("grad 1 %d : %s" % (i, fmt(gradient(1, i))))
    for dtype in ("f64", "f32"):
        tdtype = torch.float64 if dtype == "f64" else torch.float32
        for max_norm in (0.5, 100.0):
            params = [torch.tensor(v).reshape(s).to(tdtype).requires_grad_()
                      for v, s in zip(init, SHAPES)]
            for i, p in enumerate(params):
                p.grad = torch.tensor(gradient(1, i)).reshape(SHAPES[i]).to(tdtype)
            norm = torch.nn.utils.clip_grad_norm_(params, max_norm)
            lines.append("case clip_%s_%g dtype=%s max_norm=%r" % (dtype, max_norm, dtype, max_norm))
            lines.append("norm : %s" % fmt([norm.item()]))
            for i, p in enumerate(params):
                lines.append("clipped %d : %s" % (i, fmt(p.grad.double().flatten())))
    with open(os.path.join(OUT, "clip_grad.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    write_optimizers()
    write_schedulers()
    write_clip()
