// The orthonormal 2-D DCT-II of B × B blocks, with FFTW (the one place this application calls it):
// FFTW's REDFT10 (forward) and REDFT01 (inverse) along both directions, planned once per block
// size and reused for every block, scaled so that the transform is orthonormal:
//
//   X[u][v] = s_u s_v Σ_{j,i} x[j][i] cos(π (j + ½) u / B) cos(π (i + ½) v / B),
//   s_0 = √(1/B), s_k = √(2/B) (k > 0),
//
// so Σ x² = Σ X² (Parseval) and X[0][0] = B · mean(x). Blocks are row-major B × B arrays
// ([row][column], u the row frequency, v the column frequency).
#pragma once

#include <vector>

namespace climate {

class BlockDct {
 public:
  /// Plans the B × B transforms (2 ≤ B ≤ 256; anything else is an exadnn::Error naming B).
  /// Planning is serialised across threads (FFTW's planner is not thread-safe); executing is not
  /// re-entrant (one BlockDct per thread: it keeps its own aligned scratch block).
  explicit BlockDct(int block);
  ~BlockDct();
  BlockDct(const BlockDct&) = delete;
  BlockDct& operator=(const BlockDct&) = delete;

  int block() const { return block_; }
  /// out = DCT-II(in), both B² doubles (they may alias).
  void forward(const double* in, double* out) const;
  /// out = DCT-III(in) = the inverse of forward (they may alias).
  void inverse(const double* in, double* out) const;
  /// FFTW's unscaled REDFT10 × REDFT10 of `in` (B² doubles) into the scratch block, the result
  /// dropped: the raw transform speed the benchmark compares with (one copy into the aligned
  /// scratch and FFTW's execution; no scaling, no output).
  void raw_forward(const double* in) const;

 private:
  int block_;
  double* work_ = nullptr;        // [B][B], fftw_malloc'd (SIMD-aligned, as the plans expect)
  void* plan_forward_ = nullptr;  // fftw_plan, REDFT10 × REDFT10, in place on work_
  void* plan_inverse_ = nullptr;  // fftw_plan, REDFT01 × REDFT01, in place on work_
  std::vector<double> scale_;     // [B] s_k: the orthonormal factors of one direction
};

}  // namespace climate
