#include "alloy/critical_temperature.h"

#include <cmath>
#include <stdexcept>

namespace alloy {

Estimate binder_crossing(const std::vector<ThermoPoint>& smaller,
                         const std::vector<ThermoPoint>& larger) {
  if (smaller.size() != larger.size())
    throw std::invalid_argument("alloy: Binder curves on different temperature grids");
  for (size_t t = 0; t + 1 < smaller.size(); ++t) {
    const double d0 = smaller[t].binder - larger[t].binder;
    const double d1 = smaller[t + 1].binder - larger[t + 1].binder;
    if (smaller[t].kt != larger[t].kt)
      throw std::invalid_argument("alloy: Binder curves on different temperature grids");
    if (d0 == 0.0) return {smaller[t].kt, 0.0, true};
    if ((d0 < 0) == (d1 < 0)) continue;
    const double t0 = smaller[t].kt, t1 = smaller[t + 1].kt;
    const double slope = (d1 - d0) / (t1 - t0);
    const double crossing = t0 - d0 / slope;
    // The difference's error at the crossing (interpolated variance of both curves).
    const double w = (crossing - t0) / (t1 - t0);
    auto var = [&](size_t k) {
      return smaller[k].binder_error * smaller[k].binder_error +
             larger[k].binder_error * larger[k].binder_error;
    };
    const double sigma = std::sqrt((1 - w) * (1 - w) * var(t) + w * w * var(t + 1));
    return {crossing, sigma / std::abs(slope), true};
  }
  return {};
}

Estimate heat_capacity_peak(const std::vector<ThermoPoint>& points) {
  if (points.empty()) return {};
  size_t k = 0;
  for (size_t t = 1; t < points.size(); ++t)
    if (points[t].heat_capacity > points[k].heat_capacity) k = t;
  if (k == 0 || k + 1 == points.size()) return {points[k].kt, 0.0, true};
  const double x0 = points[k - 1].kt, x1 = points[k].kt, x2 = points[k + 1].kt;
  const double y0 = points[k - 1].heat_capacity, y1 = points[k].heat_capacity,
               y2 = points[k + 1].heat_capacity;
  // Vertex of the parabola through the three points.
  const double num = (x1 - x0) * (x1 - x0) * (y1 - y2) - (x1 - x2) * (x1 - x2) * (y1 - y0);
  const double den = (x1 - x0) * (y1 - y2) - (x1 - x2) * (y1 - y0);
  const double vertex = den != 0.0 ? x1 - 0.5 * num / den : x1;
  return {vertex, 0.25 * (x2 - x0), true};
}

}  // namespace alloy
