#!/usr/bin/env bash
# Packs a CUDA build into one relocatable tarball for a GPU machine that lacks exadnn's Debian
# packages (another distribution, a container with only the NVIDIA stack): the GPU test and bench
# executables and the exadnn command, every shared library they need except glibc's, the
# compiler runtime's and CUDA's own (cudart, cuBLAS, cuDNN, NCCL come from the GPU machine), Open
# MPI's runtime (relocated there with OPAL_PREFIX) and the first TRAIN Fashion-MNIST training
# images with the whole test set. scripts/gpu-checks.sh runs it there.
#   scripts/gpu-bundle.sh [build-dir] [out.tar.xz]     (defaults: build-gpu, gpu-bundle.tar.xz;
#                                                       TRAIN=10000)
# The build dir must hold a -DEXADNN_CUDA=ON build of the targets scripts/gpu-check.sh builds.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build-gpu}"
OUT="${2:-gpu-bundle.tar.xz}"
TRAIN="${TRAIN:-10000}"
LIBDIR=/usr/lib/x86_64-linux-gnu
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,lib,data/fashion-mnist,ompi/bin,ompi/lib/x86_64-linux-gnu,ompi/share}

for exe in tests/exadnn_device_tests tests/exadnn_dist_cuda_tests tools/exadnn \
  bench/exadnn_cuda_bench; do
  [ -x "$BUILD/$exe" ] || { echo "gpu-bundle: $BUILD/$exe missing (build it first)"; exit 1; }
  cp "$BUILD/$exe" "$stage/bin/"
done
find "$BUILD/src" -name "libexadnn*.so*" -exec cp -P {} "$stage/lib/" \;
# What the executables and plugins load, less the system's base and CUDA's libraries.
for f in "$stage"/bin/* "$stage"/lib/*.so; do
  LD_LIBRARY_PATH="$stage/lib" ldd "$f" | awk '/=> \//{print $3}'
done | sort -u |
  grep -v -E "/(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so|cuda|cudnn|nccl|cublas|$stage" |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
# Open MPI 4 (Debian's layout) and its PMIx components.
cp -L /usr/bin/orterun /usr/bin/orted "$stage/ompi/bin/"
ln -sf orterun "$stage/ompi/bin/mpirun"
cp -a "$LIBDIR/openmpi" "$stage/ompi/lib/x86_64-linux-gnu/"
[ -d "$LIBDIR/pmix2" ] && cp -a "$LIBDIR/pmix2" "$stage/ompi/lib/x86_64-linux-gnu/"
cp -a /usr/share/openmpi "$stage/ompi/share/"
[ -d /usr/share/pmix ] && cp -a /usr/share/pmix "$stage/ompi/share/"
for lib in libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7 libhwloc.so.15 libpmix.so.2; do
  [ -e "$LIBDIR/$lib" ] && cp -L "$LIBDIR/$lib" "$stage/lib/"
done
# Fashion-MNIST: the first TRAIN training images (a valid IDX file) and the test set.
python3 - "$stage/data/fashion-mnist" "$TRAIN" <<'PY'
import gzip, struct, sys
src, dst, n = "/usr/share/datasets/fashion-mnist/", sys.argv[1] + "/", int(sys.argv[2])
images = gzip.open(src + "train-images-idx3-ubyte.gz").read()
labels = gzip.open(src + "train-labels-idx1-ubyte.gz").read()
with gzip.open(dst + "train-images-idx3-ubyte.gz", "wb") as f:
    f.write(struct.pack(">IIII", 2051, n, 28, 28) + images[16:16 + n * 784])
with gzip.open(dst + "train-labels-idx1-ubyte.gz", "wb") as f:
    f.write(struct.pack(">II", 2049, n) + labels[8:8 + n])
PY
cp /usr/share/datasets/fashion-mnist/t10k-* "$stage/data/fashion-mnist/"
strip --strip-unneeded "$stage"/bin/* "$stage"/lib/libexadnn*.so* 2>/dev/null || true
tar -C "$stage" -cf - . | xz -T0 -6 >"$OUT"
echo "gpu-bundle: $OUT ($(du -h "$OUT" | cut -f1); unpacked $(du -sh "$stage" | cut -f1))"
