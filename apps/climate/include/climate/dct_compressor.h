// Blockwise orthonormal DCT-II compression (dct.h) of a FaceField: each face cut into B × B blocks
// (B must divide the face size n; B = p + 1 or a multiple makes blocks whole elements), each
// block transformed, its lowest k × k coefficients (u, v < k) kept, the rest dropped.
//
// Quantisation (bits q):
//   q = 64: the kept coefficients stored as f64 (plain truncation; k = B is lossless to
//           round-off);
//   2 ≤ q ≤ 32: the DC coefficient X[0][0] stored as f64 (the block mean, so a field's mass is
//           kept to round-off), the k² − 1 others uniformly quantised against the block's scale
//           s = max |X| over them (stored as f32, rounded up): code = round(X / s · L) with
//           L = 2^(q−1) − 1, stored as the q-bit unsigned code + L; decoded X = code · s / L
//           (error ≤ s / (2L) per coefficient).
// Bits per block: 64 k² (q = 64); 64 (k = 1); 64 + 32 + (k² − 1) q otherwise.
//
// Or a uniform step Δ > 0 (adaptive: bits go where the field varies): the DC as f64, the
// k² − 1 others as codes c = round(X / Δ) (|X − c Δ| ≤ Δ / 2), sign-folded (0, −1, 1, −2 … →
// 0, 1, 2, 3 …) and stored with the width w (0–32, in 6 bits) the block's largest needs:
// 64 + 6 + (k² − 1) w bits per block, w = 0 where the block is flat to within Δ / 2.
//
// Payload: an 8-byte header (u32 n, u8 B, u8 k, u8 q, u8 mode: 0 q bits, 1 step), in mode 1
// followed by the f64 step; then the blocks' bits packed LSB-first over the whole field (faces,
// block rows, block columns in order), padded to a byte.
#pragma once

#include <cstddef>
#include <memory>

#include "climate/compressor.h"
#include "climate/dct.h"

namespace climate {

struct DctParams {
  int block = 8;    ///< B: the block side (2 ≤ B ≤ 64)
  int keep = 8;     ///< k: the lowest k × k coefficients kept (1 ≤ k ≤ B)
  int bits = 64;    ///< q: 64 (f64 coefficients) or 2–32 (quantised); unused with a step
  double step = 0;  ///< Δ > 0: uniform quantisation with this step instead of q bits
};

class DctCompressor : public Compressor {
 public:
  /// Parameters out of range (B, k > B, q) are an exadnn::Error naming the value.
  explicit DctCompressor(DctParams params = {});

  const DctParams& params() const { return params_; }
  CompressorKind kind() const override { return CompressorKind::dct; }
  std::string describe() const override;
  std::vector<std::uint8_t> parameters() const override;
  std::vector<std::uint8_t> compress(const FaceField& field) const override;
  using Compressor::decompress;
  FaceField decompress(const std::uint8_t* payload, std::size_t size) const override;

  /// The parameters a payload was made with, read from its header (and its face size into
  /// `face` when given); a malformed header is an exadnn::Error saying what is wrong.
  static DctParams payload_params(const std::uint8_t* payload, std::size_t size,
                                  int* face = nullptr);
  /// The payload bytes for face size n (header included); q-bit mode only (a step's payload
  /// size depends on the data: an exadnn::Error).
  static std::size_t payload_bytes(int n, const DctParams& params);
  /// The parameters with the smallest RMSE on `sample` among those whose payload is at least
  /// `ratio` : 1: every block size dividing n from 4 to 32 (or `block` alone when > 0), every k,
  /// the most bits that fit. None fitting is an exadnn::Error naming the ratio, the block
  /// sizes tried and the largest ratio they reach; so is a constant sample (every candidate
  /// represents it exactly: nothing to choose by).
  static DctParams pick(double ratio, const FaceField& sample, int block = 0);
  /// The same with a uniform step: for every block size and k ≥ 2, the smallest step (to 2 %,
  /// by bisection on its logarithm) whose payload for `sample` is at least `ratio` : 1; the
  /// choice with the smallest RMSE on `sample`. (Sizes then follow the data: another field may
  /// miss the ratio.)
  static DctParams pick_step(double ratio, const FaceField& sample, int block = 0);

  /// Throws unless params are valid (names the bad value); `n` > 0 also checks B divides n.
  static void validate(const DctParams& params, int n = 0);

 private:
  // The transform for block size B (replanned only when B changes).
  const BlockDct& transform(int block) const;

  DctParams params_;
  mutable std::unique_ptr<BlockDct> dct_;
};

}  // namespace climate
