#!/usr/bin/env python3
"""Prints the medians of Google Benchmark JSON output side by side, with the ratios the goals in
bench/README.md are stated in.

    compare.py matmul FILE.json [TAG=FILE.json ...]
    compare.py elementwise FILE.json
    compare.py training [--table] DIR GEMM_GFLOPS MODEL...

training: the runs of bench/compare_pytorch.sh in DIR (ex.MODEL.RUN.json, exadnn's --metrics-out;
pt.MODEL.RUN.json, compare_pytorch.py's line; ex.MODEL.params, exadnn's parameter count;
pt.MODEL.cfg, PyTorch's configuration) per MODEL: each run's first-epoch and steady (median of
epochs 2..E) samples/s, peak RSS and test accuracy, then the medians over the runs and their ratios
(accuracy: the mean and standard deviation over the runs, which train from seeds 0..RUNS-1),
and each framework's training GFLOP/s as a fraction of GEMM_GFLOPS (0: not measured). --table
prints only the markdown table of all MODELs.

A TAG= prefix marks every run of that file, e.g. SkylakeX=matmul_skylakex.json turns
matmul/cblas_sgemm into matmul/cblas_sgemm[SkylakeX]. Tagged runs come from another process (so
possibly another machine load): the matmul table gives exadnn's ratio to the best baseline of its
own process and to the best of all. Runs need --benchmark_repetitions > 1 (the
median aggregate) or are taken as they are.
"""
import glob
import json
import os
import statistics
import sys


def load(arg):
    tag, path = (arg.split("=", 1) if "=" in arg else (None, arg))
    with open(path) as f:
        data = json.load(f)
    medians, cvs, labels = {}, {}, {}
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        if name.endswith("/real_time"):
            name = name[: -len("/real_time")]
        if tag:
            parts = name.split("/")
            parts[1] += f"[{tag}]"
            name = "/".join(parts)
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b
            elif b.get("aggregate_name") == "cv":
                cvs[name] = b
        elif name not in medians:
            medians[name] = b
        if b.get("label"):
            labels[name] = b["label"]
    return medians, cvs, labels


def merge(args):
    medians, cvs, labels = {}, {}, {}
    for a in args:
        m, c, l = load(a)
        medians.update(m)
        cvs.update(c)
        labels.update(l)
    return medians, cvs, labels


def matmul(args):
    medians, cvs, labels = merge(args)
    impls, keys = [], []
    for name in medians:
        _, impl, *rest = name.split("/")
        key = "/".join(rest)
        if impl not in impls:
            impls.append(impl)
        if key not in keys:
            keys.append(key)
    impls.sort(key=lambda i: (i != "exadnn", i))

    def order(key):
        f = dict(kv.split(":") for kv in key.split("/"))
        return int(f["threads"]), int(f["M"]) * int(f["K"]) * int(f["N"])

    keys.sort(key=order)
    head = ["shape M/K/N, threads"] + [f"{i} GFLOP/s" for i in impls] + [
        "exadnn / best of same process", "exadnn / best of all"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key in keys:
        f = dict(kv.split(":") for kv in key.split("/"))
        row = [f"{f['M']}x{f['K']}x{f['N']}, {f['threads']}"]
        vals = {}
        for i in impls:
            b = medians.get(f"matmul/{i}/{key}")
            if b is None:
                row.append("-")
                continue
            vals[i] = b["GFLOP/s"]
            cv = cvs.get(f"matmul/{i}/{key}")
            noise = f" (cv {100 * cv['real_time']:.0f}%)" if cv else ""
            row.append(f"{vals[i]:.1f}{noise}")
        for same_process in (True, False):
            base = {i: v for i, v in vals.items()
                    if i != "exadnn" and (not same_process or "[" not in i)}
            if base and "exadnn" in vals:
                best = max(base, key=base.get)
                row.append(f"{vals['exadnn'] / base[best]:.2f} ({best})")
            else:
                row.append("-")
        print("| " + " | ".join(row) + " |")
    if labels:
        print("\nOpenBLAS cores: " + ", ".join(sorted({f"{n.split('/')[1]}: {l}" for n, l in labels.items()})))


def elementwise(args):
    medians, cvs, _ = merge(args)
    print("| benchmark | median time (ms) | GB/s (bytes moved / time) | cv |")
    print("|---|---|---|---|")
    bw = {}

    def order(name):
        parts = name.split("/")
        return parts[-1], parts[1]

    for name, b in sorted(medians.items(), key=lambda nb: order(nb[0])):
        unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        bw[name] = b.get("GB/s", 0.0)
        cv = cvs.get(name)
        print(f"| {name} | {b['real_time'] * unit:.2f} | {bw[name]:.1f} | "
              + (f"{100 * cv['real_time']:.0f}% |" if cv else "- |"))
    copies = {n: v for n, v in bw.items() if n.split("/")[1] == "memcpy"}
    print()
    for n, v in sorted(bw.items(), key=lambda nv: order(nv[0])):
        op, rest = n.split("/")[1], "/".join(n.split("/")[2:])
        same = f"elementwise/memcpy/{rest}"
        if op.startswith("add") and same in copies:
            print(f"{n} / {same}: {v / copies[same]:.2f} (goal >= 0.7)")


def epoch_rates(run):
    """(first epoch, median of epochs 2..E or the first when E = 1) samples/s of one run's JSON:
    exadnn's metrics ("epochs": [{"samples_per_second": ...}]) or compare_pytorch.py's
    ("epochs": [rate, ...])."""
    rates = [e["samples_per_second"] if isinstance(e, dict) else e for e in run["epochs"]]
    if not rates:
        raise SystemExit("a run without epochs")
    return rates[0], statistics.median(rates[1:] or rates)


def training_model(folder, model):
    """Each framework's runs of `model` in `folder`, summarised: {fw: {field: median}} and the
    per-run figures."""
    out = {}
    for fw in ("ex", "pt"):
        runs = []
        paths = glob.glob(os.path.join(folder, f"{fw}.{model}.*.json"))
        for path in sorted(paths, key=lambda p: int(p.rsplit(".", 2)[-2])):  # run r: seed r - 1
            with open(path) as f:
                j = json.load(f)
            first, steady = epoch_rates(j)
            runs.append({"first": first, "steady": steady, "rss": j["peak_rss_mb"],
                         "accuracy": j["test_accuracy"], "flops": j.get("train_flops_per_sample")})
        if not runs:
            raise SystemExit(f"no {fw}.{model}.*.json in {folder}")
        for i, r in enumerate(runs, 1):  # the GEMM measured just before run i's round, if it was
            path = os.path.join(folder, f"gemm.{model}.{i}")
            r["gemm"] = float(open(path).read()) if os.path.exists(path) else 0.0
        med = {k: statistics.median(r[k] for r in runs) for k in ("first", "steady", "rss")}
        acc = [r["accuracy"] for r in runs]  # one seed per run: the mean and spread, not a median
        out[fw] = {"runs": runs, **med, "accuracy": statistics.mean(acc),
                   "accuracy_sd": statistics.stdev(acc) if len(acc) > 1 else 0.0}
    with open(os.path.join(folder, f"ex.{model}.params")) as f:
        out["ex"]["params"] = int(f.read().split()[0])
    with open(os.path.join(folder, f"pt.{model}.cfg")) as f:
        out["pt"]["cfg"] = f.read().strip()
    out["pt"]["params"] = json.load(open(glob.glob(os.path.join(folder, f"pt.{model}.*.json"))[0]))["parameters"]
    out["flops"] = out["pt"]["runs"][0]["flops"]
    return out


def training(args):
    table = args[:1] == ["--table"]
    if table:
        args = args[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    folder, gemm, models = args[0], float(args[1]), args[2:]
    rows = []
    for model in models:
        m = training_model(folder, model)
        ex, pt, flops = m["ex"], m["pt"], m["flops"]
        gx, gp = flops * ex["steady"] / 1e9, flops * pt["steady"] / 1e9
        frac = (lambda g: f"{100 * g / gemm:.0f} %") if gemm > 0 else (lambda g: "-")

        def beside(fw):  # median over the runs of each run's fraction of the GEMM measured beside it
            fr = [flops * r["steady"] / 1e9 / r["gemm"] for r in m[fw]["runs"] if r["gemm"] > 0]
            return f"{100 * statistics.median(fr):.0f} %" if fr else "-"
        rows.append([model, f"{ex['steady']:.0f}", f"{pt['steady']:.0f}", f"{ex['steady'] / pt['steady']:.2f}x",
                     f"{ex['first']:.0f} / {pt['first']:.0f}", f"{gx:.1f} ({frac(gx)})", f"{gp:.1f} ({frac(gp)})",
                     f"{beside('ex')} / {beside('pt')}",
                     f"{ex['rss']:.0f} / {pt['rss']:.0f} MB = {ex['rss'] / pt['rss']:.2f}"])
        if table:
            continue
        for fw, name in (("ex", "exadnn"), ("pt", "PyTorch")):
            for i, r in enumerate(m[fw]["runs"], 1):
                now = (f", {100 * flops * r['steady'] / 1e9 / r['gemm']:.0f} % of the GEMM measured before its "
                       f"round ({r['gemm']:.1f} GFLOP/s)") if r["gemm"] > 0 else ""
                print(f"  {model} {name} run {i} (seed {i - 1}): first epoch {r['first']:.0f} samples/s, steady {r['steady']:.0f}, "
                      f"peak RSS {r['rss']:.0f} MB, accuracy {r['accuracy']:.4f}{now}")
        print(f"{model}: steady samples/s (medians over {len(ex['runs'])} runs) exadnn {ex['steady']:.0f}, "
              f"PyTorch {pt['steady']:.0f} ({pt['cfg']}) -> {ex['steady'] / pt['steady']:.2f}x; first epoch "
              f"{ex['first']:.0f} vs {pt['first']:.0f}")
        print(f"{model}: peak RSS {ex['rss']:.0f} vs {pt['rss']:.0f} MB = {ex['rss'] / pt['rss']:.2f} (goal <= 0.33); "
              f"test accuracy (mean ± sd over the runs, seeds 0..{len(ex['runs']) - 1}) "
              f"{100 * ex['accuracy']:.1f} ± {100 * ex['accuracy_sd']:.1f} % vs "
              f"{100 * pt['accuracy']:.1f} ± {100 * pt['accuracy_sd']:.1f} %; parameters exadnn {ex['params']}, "
              f"PyTorch {pt['params']}" + ("" if ex["params"] == pt["params"] else " (DIFFER)"))
        print(f"{model}: {flops / 1e6:.1f} MFLOP/sample; training GFLOP/s exadnn {gx:.1f} ({frac(gx)} of the best "
              f"GEMM), PyTorch {gp:.1f} ({frac(gp)}); of the GEMM measured before each round (median over the "
              f"runs) exadnn {beside('ex')}, PyTorch {beside('pt')}")
    if table:
        head = ["model", "exadnn samples/s (steady)", "PyTorch best", "ratio", "first epoch exadnn / PyTorch",
                "exadnn GFLOP/s (of best GEMM)", "PyTorch's", "of the GEMM beside each run, exadnn / PyTorch",
                "peak RSS exadnn / PyTorch"]
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    commands = {"matmul": matmul, "elementwise": elementwise, "training": training}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](sys.argv[2:])
