#include "cbed/fft2d.h"

#include <exadnn/core/error.h>
#include <fftw3.h>

#include <mutex>

namespace cbed {
namespace {
// FFTW's planner is not thread-safe; executing plans is.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

struct Fft2d::Plans {
  fftw_plan forward = nullptr;
  fftw_plan inverse = nullptr;
};

Fft2d::Fft2d(int ny, int nx, bool measure) : ny_(ny), nx_(nx), plans_(std::make_unique<Plans>()) {
  EXADNN_CHECK(ny > 0 && nx > 0, "cbed::Fft2d", "grid ", ny, " x ", nx, " is empty");
  const size_t n = size_t(ny) * nx;
  data_ = reinterpret_cast<std::complex<double>*>(fftw_malloc(n * sizeof(fftw_complex)));
  EXADNN_CHECK(data_ != nullptr, "cbed::Fft2d", "out of memory for a ", ny, " x ", nx, " grid");
  auto* buffer = reinterpret_cast<fftw_complex*>(data_);
  const unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    plans_->forward = fftw_plan_dft_2d(ny, nx, buffer, buffer, FFTW_FORWARD, flags);
    plans_->inverse = fftw_plan_dft_2d(ny, nx, buffer, buffer, FFTW_BACKWARD, flags);
  }
  for (size_t i = 0; i < n; ++i) data_[i] = 0;  // planning with MEASURE overwrites the buffer
}

Fft2d::~Fft2d() {
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftw_destroy_plan(plans_->forward);
    fftw_destroy_plan(plans_->inverse);
  }
  fftw_free(data_);
}

void Fft2d::forward() {
  fftw_execute(plans_->forward);
}
void Fft2d::inverse() {
  fftw_execute(plans_->inverse);
}

}  // namespace cbed
