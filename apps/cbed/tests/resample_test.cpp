// Resampling onto one angular grid conserves intensity, keeps a probe disc's size in mrad, and is
// the identity at the native pixel size.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>

#include <cmath>
#include <cstdio>
#include <numeric>

#include "cbed/multislice.h"
#include "cbed/orthogonal_cell.h"
#include "cbed/resample.h"

namespace cbed {
namespace {

// The root-mean-square angle (mrad) of a pattern about its centre.
double rms_angle(const std::vector<double>& p, int n, double px, double py) {
  double sum = 0, second = 0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double v = p[size_t(y) * n + x];
      sum += v;
      second += v * (std::pow((x - n / 2) * px, 2) + std::pow((y - n / 2) * py, 2));
    }
  return std::sqrt(second / sum);
}

TEST(Resample, ConservesIntensityAndTheDiscsSize) {
  // A 6 mrad probe's disc on Cu [001] 6 x 6 cells (1.16 mrad pixels), onto 0.5 and 2 mrad pixels.
  MultisliceOptions o;
  o.grid.nx = o.grid.ny = 64;
  o.grid.tiles_x = o.grid.tiles_y = 6;
  o.aperture_mrad = 6;
  Multislice ms(along_axis(make_fcc(29, 3.615), 2), o);
  const std::vector<double> disc = ms.vacuum_pattern();
  const auto px = ms.pixel_mrad();
  // A uniform disc of radius alpha has rms angle alpha / sqrt(2).
  const double native = rms_angle(disc, 64, px[0], px[1]);
  std::printf("[cbed] 6 mrad disc, rms angle (exact 4.243 mrad): native %.3f", native);
  for (const double to : {0.5, 2.0}) {
    const int n = int(std::ceil(64 * px[0] / to)) + 2;  // the window covers the input
    const std::vector<double> r = resample(disc, 64, 64, px, to, n);
    EXPECT_NEAR(std::accumulate(r.begin(), r.end(), 0.0), 1.0, 1e-12);
    const double rms = rms_angle(r, n, to, to);
    std::printf(", %.1f mrad pixels %.3f", to, rms);
    // Rebinning spreads each pixel over at most one output pixel more: within a pixel's width.
    EXPECT_NEAR(rms, native, std::max(to, px[0]));
  }
  std::printf("\n");
  const std::vector<double> same = resample(disc, 64, 64, {px[0], px[0]}, px[0], 64);
  for (size_t i = 0; i < same.size(); ++i) EXPECT_NEAR(same[i], disc[i], 1e-15);
  EXPECT_THROW(resample(disc, 64, 63, px, 1.0, 32), exadnn::Error);
}

}  // namespace
}  // namespace cbed
