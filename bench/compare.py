#!/usr/bin/env python3
"""Prints the medians of Google Benchmark JSON output side by side, with the ratios the goals in
bench/README.md are stated in.

    compare.py matmul FILE.json [TAG=FILE.json ...]
    compare.py elementwise FILE.json

A TAG= prefix marks every run of that file, e.g. SkylakeX=matmul_skylakex.json turns
matmul/cblas_sgemm into matmul/cblas_sgemm[SkylakeX]. Tagged runs come from another process (so
possibly another machine load): the matmul table gives exadnn's ratio to the best baseline of its
own process and to the best of all. Runs need --benchmark_repetitions > 1 (the
median aggregate) or are taken as they are.
"""
import json
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


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("matmul", "elementwise"):
        sys.exit(__doc__)
    {"matmul": matmul, "elementwise": elementwise}[sys.argv[1]](sys.argv[2:])
