#include "climate/dct.h"

#include <fftw3.h>

#include <cmath>
#include <cstring>
#include <mutex>

#include "exadnn/core/error.h"

namespace climate {

namespace {
// FFTW's planner is not thread-safe; every plan of this application is made under this lock.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

BlockDct::BlockDct(int block) : block_(block) {
  if (block < 2 || block > 256)
    throw exadnn::Error("BlockDct",
                        exadnn::detail::cat("block size ", block, " out of range (2 to 256)"));
  const std::size_t n = static_cast<std::size_t>(block) * block;
  work_ = static_cast<double*>(fftw_malloc(n * sizeof(double)));
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    // FFTW_MEASURE overwrites work_ while planning: it is scratch. The plans run in place.
    plan_forward_ =
        fftw_plan_r2r_2d(block, block, work_, work_, FFTW_REDFT10, FFTW_REDFT10, FFTW_MEASURE);
    plan_inverse_ =
        fftw_plan_r2r_2d(block, block, work_, work_, FFTW_REDFT01, FFTW_REDFT01, FFTW_MEASURE);
  }
  if (!plan_forward_ || !plan_inverse_)
    throw exadnn::Error("BlockDct",
                        exadnn::detail::cat("FFTW could not plan a ", block, "x", block, " DCT"));
  // REDFT10 gives 2 Σ x cos(...) per direction: the orthonormal factor is s_k / 2.
  // REDFT01 computes Z_0 + 2 Σ_{k≥1} Z_k cos(...): Z_k = X_k s_k / (k ? 2 : 1).
  scale_.resize(block);
  for (int k = 0; k < block; ++k) scale_[k] = std::sqrt((k == 0 ? 1.0 : 2.0) / block);
}

BlockDct::~BlockDct() {
  std::lock_guard<std::mutex> lock(planner_mutex());
  if (plan_forward_) fftw_destroy_plan(static_cast<fftw_plan>(plan_forward_));
  if (plan_inverse_) fftw_destroy_plan(static_cast<fftw_plan>(plan_inverse_));
  fftw_free(work_);
}

void BlockDct::forward(const double* in, double* out) const {
  const int b = block_;
  std::memcpy(work_, in, sizeof(double) * b * b);
  fftw_execute(static_cast<fftw_plan>(plan_forward_));
  for (int u = 0; u < b; ++u)
    for (int v = 0; v < b; ++v) out[u * b + v] = work_[u * b + v] * 0.25 * scale_[u] * scale_[v];
}

void BlockDct::inverse(const double* in, double* out) const {
  const int b = block_;
  for (int u = 0; u < b; ++u)
    for (int v = 0; v < b; ++v)
      work_[u * b + v] = in[u * b + v] * scale_[u] * scale_[v] * (u ? 0.5 : 1.0) * (v ? 0.5 : 1.0);
  fftw_execute(static_cast<fftw_plan>(plan_inverse_));
  std::memcpy(out, work_, sizeof(double) * b * b);
}

void BlockDct::raw_forward(const double* in) const {
  std::memcpy(work_, in, sizeof(double) * block_ * block_);
  fftw_execute(static_cast<fftw_plan>(plan_forward_));
}

}  // namespace climate
