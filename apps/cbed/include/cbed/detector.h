// What a counting detector records of a pattern: Poisson-distributed electron counts at a dose.
#pragma once

#include <vector>

#include "cbed/rng.h"

namespace cbed {

/// Counts per pixel for `electrons` incident electrons on a pattern of per-electron intensities
/// (a multislice pattern sums to at most 1): each pixel Poisson(electrons * I), drawn with
/// std::poisson_distribution on rng's engine. Error for a dose that is not positive or an
/// intensity that is negative (naming the pixel).
std::vector<double> poisson_counts(const std::vector<double>& pattern, double electrons, Rng& rng);

}  // namespace cbed
