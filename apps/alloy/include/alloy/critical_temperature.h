// The critical temperature from Monte Carlo curves: where the Binder cumulants of two lattice sizes
// cross (size-independent at Tc up to corrections), and where the heat capacity peaks.
#pragma once

#include <vector>

#include "alloy/observables.h"

namespace alloy {

struct Estimate {
  double value = 0;
  double error = 0;  ///< one standard error
  bool found = false;
};

/// The crossing of U₄ of a smaller and a larger lattice on the same temperatures: the first
/// interval where U_small − U_large changes sign, linearly interpolated; the error propagates
/// the two curves' error bars through the slope of their difference. Not found: no sign change.
Estimate binder_crossing(const std::vector<ThermoPoint>& smaller,
                         const std::vector<ThermoPoint>& larger);

/// The temperature of the heat capacity's maximum: the vertex of the parabola through the largest
/// point and its two neighbours (the largest point itself at either end); the error is half the
/// temperature step there.
Estimate heat_capacity_peak(const std::vector<ThermoPoint>& points);

}  // namespace alloy
