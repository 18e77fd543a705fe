#include "diffusion/heat2d.h"

#include <exadnn/core/error.h>

#include <cmath>

namespace exadnn::apps::diffusion {

Heat2d::Heat2d(const Heat2dOptions& options)
    : options_(options),
      u_(static_cast<size_t>(options.n) * static_cast<size_t>(options.n), 0.f),
      next_(u_.size(), 0.f),
      state_(options.seed * 6364136223846793005ull + 1) {
  EXADNN_CHECK(options.n >= 4 && options.n <= 1 << 15, "diffusion::Heat2d", "n = ", options.n,
               " must be in [4, 32768]");
  EXADNN_CHECK(options.r > 0 && options.r < 0.25, "diffusion::Heat2d",
               "r = a dt / dx^2 = ", options.r,
               " must be in (0, 0.25): the explicit scheme's stability limit is r < 1/4");
  EXADNN_CHECK(std::isfinite(options.forcing) && options.forcing >= 0, "diffusion::Heat2d",
               "forcing = ", options.forcing, " must be a finite number >= 0");
}

double Heat2d::uniform() {
  state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<double>(state_ >> 11) * 0x1.0p-53;
}

void Heat2d::random_start(uint64_t variant) {
  const int n = options_.n;
  state_ = options_.seed * 6364136223846793005ull + variant + 1;
  std::fill(u_.begin(), u_.end(), 0.f);
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) u_[i * n + j] = static_cast<float>(uniform());
  for (int spot = 0; spot < 4; ++spot) {
    const double cx = n * (0.2 + 0.6 * uniform()), cy = n * (0.2 + 0.6 * uniform()),
                 w = n * (0.04 + 0.06 * uniform());
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        u_[i * n + j] += static_cast<float>(
            std::exp(-((i - cx) * (i - cx) + (j - cy) * (j - cy)) / (2 * w * w)));
  }
}

void Heat2d::set_field(std::vector<float> u) {
  const int n = options_.n;
  EXADNN_CHECK(u.size() == u_.size(), "diffusion::Heat2d", "set_field got ", u.size(),
               " values for a ", n, " x ", n, " grid");
  u_ = std::move(u);
  for (int k = 0; k < n; ++k) u_[k] = u_[(n - 1) * n + k] = u_[k * n] = u_[k * n + n - 1] = 0.f;
}

void Heat2d::step() {
  const int n = options_.n;
  const double r = options_.r, forcing = options_.forcing;
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) {
      const int k = i * n + j;
      const double source = forcing > 0 ? forcing * (uniform() - 0.5) : 0.0;
      next_[k] = static_cast<float>(
          u_[k] + r * (u_[k - 1] + u_[k + 1] + u_[k - n] + u_[k + n] - 4 * u_[k]) + source);
    }
  u_.swap(next_);
}

std::vector<double> Heat2d::stencil() const {
  const double r = options_.r;
  return {0, r, 0, r, 1 - 4 * r, r, 0, r, 0};
}

}  // namespace exadnn::apps::diffusion
