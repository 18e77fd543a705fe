#!/usr/bin/env bash
# `mpirun exadnn train` with `parallel: {spatial: S}` against the runs it must equal, on a small CNN
# (conv 3x3 → batchnorm → relu → conv 3x3 stride 2 → relu → maxpool 3x3 stride 1 (halos above and
# below) → conv 5x5 (halos of 2 rows) → relu → avgpool 2 → flatten → linear 16 → relu → linear 4,
# SGD momentum) learning 16×16 synthetic images, 3 epochs of 8 batches; "equal" is every epoch's
# train loss to 1e-5 relative and the same test accuracy:
#  2-way spatial on 2 ranks (every image split into two bands of 8 rows, halos exchanged, batch
#    norm over the whole image) = one process; 4-way spatial (bands of 4 rows, then 2) on 4 ranks
#    = one process; 2-way spatial × 2 data-parallel on 4 ranks = allreduce on 2 ranks;
#  the 2-way spatial checkpoint (one-process layout) resumed on one process and on 2 spatial ranks
#    = one process's own checkpoint resumed; 2-way spatial in bf16 = one process in bf16 to bf16's
#    unit roundoff (2^-8 relative: weight gradients rounded per band before their sum);
#  the same CNN with a global_avgpool head instead of avgpool 2 → flatten (each band's channel sums
#    allreduced over the ranks; the feature map is never gathered) on 2 and 4 ranks = one process.
#    (Global pooling cannot see the quadrant, so this model learns little: the check is equality.)
#   usage: cli_parallel_spatial.sh EXADNN_BINARY "MPIEXEC COMMAND"
source "$(dirname "$0")/cli_common.sh"

# 256 training and 64 test images (IDX, u8, 16×16); the class (0..3) is the quadrant that holds a
# bright 4×4 square, on noise.
python3 - "$work" <<'PY'
import random, struct, sys
rng = random.Random(5)
for name, n in (("train", 256), ("test", 64)):
    images, labels = bytearray(), bytearray()
    for _ in range(n):
        c = rng.randrange(4)
        img = [[rng.randrange(160) for _ in range(16)] for _ in range(16)]
        r0, c0 = 8 * (c // 2) + rng.randrange(5), 8 * (c % 2) + rng.randrange(5)
        for r in range(r0, r0 + 4):
            for q in range(c0, c0 + 4):
                img[r][q] = 110 + rng.randrange(100)
        images += bytes(v for row in img for v in row)
        labels.append(c)
    with open(f"{sys.argv[1]}/{name}-images.idx", "wb") as f:
        f.write(struct.pack(">IIII", 0x803, n, 16, 16) + images)
    with open(f"{sys.argv[1]}/{name}-labels.idx", "wb") as f:
        f.write(struct.pack(">II", 0x801, n) + labels)
PY
config="$work/cnn.yaml"
cat > "$config" <<YAML
data: {dataset: idx, train_images: $work/train-images.idx, train_labels: $work/train-labels.idx,
       test_images: $work/test-images.idx, test_labels: $work/test-labels.idx, batch_size: 32,
       shuffle: true}
model:
  - conv2d: {out: 8, kernel: 3, padding: 1}
  - batchnorm
  - relu
  - conv2d: {out: 8, kernel: 3, stride: 2, padding: 1}
  - relu
  - maxpool2d: {kernel: 3, stride: 1, padding: 1}
  - conv2d: {out: 8, kernel: 5, padding: 2}
  - relu
  - avgpool2d: {kernel: 2}
  - flatten
  - linear: {out: 16}
  - relu
  - linear: {out: 4}
optimizer: {name: sgd, lr: 0.02, momentum: 0.9}
epochs: 3
seed: 0
YAML

ar=distributed.mode=allreduce

one "$work/one.json" --checkpoint-dir "$work/one-ckpt"
run 2 "$work/spatial.json" $ar parallel.spatial=2 -- --checkpoint-dir "$work/spatial-ckpt"
grep '^distributed:' "$work/spatial.json.log"
same "$work/one.json" "$work/spatial.json" "one process / 2-way spatial"
run 4 "$work/spatial4.json" $ar parallel.spatial=4
grep '^distributed:' "$work/spatial4.json.log"
same "$work/one.json" "$work/spatial4.json" "one process / 4-way spatial"
run 2 "$work/allreduce.json" $ar
run 4 "$work/spatial-data.json" $ar parallel.spatial=2
grep '^distributed:' "$work/spatial-data.json.log"
same "$work/allreduce.json" "$work/spatial-data.json" "allreduce on 2 ranks / 2-way spatial x 2 data-parallel"
cp -r "$work/spatial-ckpt" "$work/spatial-ckpt-2"
for name in one spatial; do
  one "$work/$name-resumed.json" --set epochs=4 --checkpoint-dir "$work/$name-ckpt" --resume
done
same "$work/one-resumed.json" "$work/spatial-resumed.json" "one process resumed from one process / spatial" last
run 2 "$work/spatial-resumed-2.json" $ar parallel.spatial=2 epochs=4 -- \
  --checkpoint-dir "$work/spatial-ckpt-2" --resume
same "$work/one-resumed.json" "$work/spatial-resumed-2.json" "resumed: one process / 2 spatial ranks" last
# bf16: the convolutions run in bf16 on each band (halos in bf16), batch norm in f32; a weight
# gradient is rounded to bf16 per band before the sum over the ranks: bf16's unit roundoff.
one "$work/one-bf16.json" --set precision=bf16
run 2 "$work/spatial-bf16.json" $ar parallel.spatial=2 precision=bf16
close "$work/one-bf16.json" "$work/spatial-bf16.json" "one process / 2-way spatial in bf16" 0.00390625
config="$work/cnn-global.yaml"
grep -v 'avgpool2d' "$work/cnn.yaml" | sed 's/- flatten$/- global_avgpool/' > "$config"
grep -q global_avgpool "$config"
one "$work/global-one.json"
for s in 2 4; do
  run $s "$work/global-spatial$s.json" $ar parallel.spatial=$s
  grep '^distributed:' "$work/global-spatial$s.json.log"
  same "$work/global-one.json" "$work/global-spatial$s.json" "global_avgpool head: one process / $s-way spatial"
done
echo PASS
