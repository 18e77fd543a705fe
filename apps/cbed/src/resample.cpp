#include "cbed/resample.h"

#include <exadnn/core/error.h>

#include <algorithm>

namespace cbed {
namespace {

// Overlap weights along one axis: w[j * n_in + i] = the fraction of input pixel i (width `from`,
// centred at (i - n_in / 2) from) that lies in output pixel j (width `to`, centred at
// (j - n_out / 2) to). Pixels are intervals [centre - width / 2, centre + width / 2).
std::vector<double> overlaps(int n_in, double from, int n_out, double to) {
  std::vector<double> w(size_t(n_out) * n_in, 0.0);
  for (int j = 0; j < n_out; ++j) {
    const double lo = (j - n_out / 2 - 0.5) * to, hi = lo + to;
    for (int i = 0; i < n_in; ++i) {
      const double a = (i - n_in / 2 - 0.5) * from, b = a + from;
      const double overlap = std::min(hi, b) - std::max(lo, a);
      if (overlap > 0) w[size_t(j) * n_in + i] = overlap / from;
    }
  }
  return w;
}

}  // namespace

std::vector<double> resample(const std::vector<double>& pattern, int ny, int nx,
                             const std::array<double, 2>& from_mrad, double to_mrad, int n_out) {
  EXADNN_CHECK(pattern.size() == size_t(ny) * nx, "cbed::resample", "the pattern has ",
               pattern.size(), " values, not ", ny, " x ", nx);
  EXADNN_CHECK(from_mrad[0] > 0 && from_mrad[1] > 0 && to_mrad > 0 && n_out > 0, "cbed::resample",
               "pixels of ", from_mrad[0], " x ", from_mrad[1], " mrad to ", to_mrad, " mrad, ",
               n_out, " wide");
  const std::vector<double> wx = overlaps(nx, from_mrad[0], n_out, to_mrad);
  const std::vector<double> wy = overlaps(ny, from_mrad[1], n_out, to_mrad);
  // Separable: first along x ([ny, n_out]), then along y ([n_out, n_out]).
  std::vector<double> rows(size_t(ny) * n_out, 0.0), out(size_t(n_out) * n_out, 0.0);
  for (int y = 0; y < ny; ++y)
    for (int j = 0; j < n_out; ++j) {
      double sum = 0;
      for (int x = 0; x < nx; ++x) sum += wx[size_t(j) * nx + x] * pattern[size_t(y) * nx + x];
      rows[size_t(y) * n_out + j] = sum;
    }
  for (int k = 0; k < n_out; ++k)
    for (int y = 0; y < ny; ++y) {
      const double w = wy[size_t(k) * ny + y];
      if (w == 0) continue;
      for (int j = 0; j < n_out; ++j) out[size_t(k) * n_out + j] += w * rows[size_t(y) * n_out + j];
    }
  return out;
}

}  // namespace cbed
