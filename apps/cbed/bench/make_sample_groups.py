#!/usr/bin/env python3
"""Writes files in the ORNL CBED dataset's layout with h5py, as that dataset's generator does, to
time how long the loader takes to read their labels (one HDF5 group per sample; the real set has
~600 000). The patterns are small and random: the label scan opens every group and reads its
attributes, and does not depend on the stack's size.

    make_sample_groups.py OUT_DIR GROUPS_PER_FILE [FILES] [SIZE]
    exadnn_cbed_shards check OUT_DIR --format sample_groups      # prints the time per split

Each split gets FILES files batch_{train,dev,test}_R.h5 of GROUPS_PER_FILE groups
sample_<material>_<energy index> (10 energies per material, materials disjoint between splits),
each with a float32 `cbed_stack` [3, SIZE, SIZE] and the attributes the real files carry
(`space_group` and `material` as numpy fixed-length strings, energy, cell). Needs python3-h5py.
"""
import os
import sys

import h5py
import numpy as np


def write(path, first_material, groups, size, rng):
    with h5py.File(path, "w") as f:
        for g in range(groups):
            material, energy = first_material + g // 10, g % 10
            sample = f.create_group(f"sample_{material}_{energy}")
            sample.create_dataset("cbed_stack", data=rng.random((3, size, size), dtype=np.float32))
            sample.attrs["space_group"] = np.string_(str(1 + material % 230))
            sample.attrs["material"] = np.string_(f"mp-{material}")
            sample.attrs["formula"] = np.string_("Cu")
            sample.attrs["energy_keV"] = 100.0 + 10.0 * energy
            sample.attrs["abc_angstrom"] = np.array([3.6, 3.6, 3.6])
            sample.attrs["angles_degree"] = np.array([90.0, 90.0, 90.0])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, per_file = sys.argv[1], int(sys.argv[2])
    files = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    size = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    material = 0
    for split in ("train", "dev", "test"):
        for r in range(files):
            write(os.path.join(out, f"batch_{split}_{r}.h5"), material, per_file, size, rng)
            material += (per_file + 9) // 10
    print(f"{out}: 3 splits x {files} files x {per_file} groups of [3, {size}, {size}]")


if __name__ == "__main__":
    main()
