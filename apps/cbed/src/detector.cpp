#include "cbed/detector.h"

#include <exadnn/core/error.h>

#include <random>

namespace cbed {

std::vector<double> poisson_counts(const std::vector<double>& pattern, double electrons, Rng& rng) {
  const char* where = "cbed::poisson_counts";
  EXADNN_CHECK(electrons > 0, where, "dose of ", electrons, " electrons is not positive");
  std::vector<double> counts(pattern.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    EXADNN_CHECK(pattern[i] >= 0, where, "pixel ", i, " has negative intensity ", pattern[i]);
    const double mean = electrons * pattern[i];
    counts[i] = mean > 0 ? double(std::poisson_distribution<long>(mean)(rng.engine())) : 0.0;
  }
  return counts;
}

}  // namespace cbed
