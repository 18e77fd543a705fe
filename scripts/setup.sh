#!/usr/bin/env bash
# Installs every Debian package exadnn needs: build, tests, benchmarks, datasets.
# Run as root on Debian 12 (bookworm). Safe to run again: apt skips what is installed.
#   --bench   also PyTorch (python3-torch, ~1 GB) and h5py, used only by bench/compare_pytorch.sh
#   --fuzz    also clang and its libFuzzer runtime, used only by scripts/fuzz.sh
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential g++ cmake ninja-build pkg-config git clang-format
  # numerics
  libopenblas-dev liblapacke-dev libdnnl-dev
  # distributed training (the exadnn_dist library, mpirun in the tests)
  libopenmpi-dev openmpi-bin
  # tests and benchmarks
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  # data, configs, metrics, PNG files, command line
  zlib1g-dev libhdf5-dev libyaml-cpp-dev nlohmann-json3-dev libpng-dev libcli11-dev
  # plots (io/plot.h, and apps/climate's maps): PLplot and its cairo drivers (the pngcairo device)
  libplplot-dev plplot-driver-cairo
  # data
  dataset-fashion-mnist
  # applications: LAMMPS as a library and its potential files (apps/alloy's lammps_eam oracle);
  # lammps ships /usr/bin/lmp, which liblammps-dev's CMake package names (find_package fails without it)
  liblammps-dev lammps-data lammps
  # applications: GPAW (DFT, run as an external program by apps/alloy's gpaw oracle)
  gpaw gpaw-data python3-ase
  # applications: FFTW, ZFP and NetCDF (apps/climate: DCT and ZFP compression, CF output)
  libfftw3-dev libzfp-dev libnetcdf-dev
  # applications: spglib (apps/cbed: space-group operations and the symmetry finder)
  libsymspg-dev
  # applications: parallel HDF5 over Open MPI (apps/cbed: the generator's collective shard writes)
  libhdf5-openmpi-dev
)

for arg in "$@"; do
  case "$arg" in
    # PyTorch, and h5py for the 3x64x64 HDF5 set both frameworks read (bench/make_fashion64.py)
    --bench) PACKAGES+=(python3-torch python3-numpy python3-h5py) ;;
    # clang, its sanitizer and libFuzzer runtimes and OpenMP: scripts/fuzz.sh (docs/fuzzing.md)
    --fuzz) PACKAGES+=(clang libclang-rt-dev libomp-dev) ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "[setup] installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "[setup] all packages present"
fi
