#include "alloy/linear_surrogate.h"

#include <lapacke.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "alloy/descriptors.h"

namespace alloy {

LinearFit fit_pair_model(const Lattice& lattice, int species,
                         const std::vector<Occupation>& configurations,
                         const std::vector<double>& energies) {
  const lapack_int rows = static_cast<lapack_int>(configurations.size());
  if (rows < 2 || configurations.size() != energies.size())
    throw std::invalid_argument(
        "alloy: a pair-model fit needs 2 or more configurations with one "
        "energy each (got " +
        std::to_string(configurations.size()) + " and " + std::to_string(energies.size()) + ")");
  const lapack_int features = static_cast<lapack_int>(feature_count(lattice, species));
  const lapack_int cols = features + 1;  // the constant e0 first
  // Features per site keep the columns' scale independent of the lattice size.
  const double per_site = 1.0 / static_cast<double>(lattice.sites());
  std::vector<double> a(static_cast<size_t>(rows) * cols);  // row-major [rows × cols]
  const lapack_int ldb_rows = std::max(rows, cols);
  std::vector<double> b(static_cast<size_t>(ldb_rows), 0.0);
  for (lapack_int r = 0; r < rows; ++r) {
    const std::vector<double> x = pair_counts(lattice, configurations[r], species);
    a[static_cast<size_t>(r) * cols] = 1.0;
    for (lapack_int f = 0; f < features; ++f)
      a[static_cast<size_t>(r) * cols + 1 + f] = x[f] * per_site;
    b[r] = energies[r] * per_site;
  }
  const std::vector<double> a_copy = a;
  std::vector<double> singular(static_cast<size_t>(std::min(rows, cols)));
  lapack_int rank = 0;
  const lapack_int info = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, rows, cols, 1, a.data(), cols, b.data(),
                                         1, singular.data(), 1e-10, &rank);
  if (info != 0)
    throw std::runtime_error("alloy: LAPACKE_dgelsd failed (info " + std::to_string(info) + ")");
  std::vector<double> weights(b.begin() + 1, b.begin() + cols);
  double sq = 0.0;
  for (lapack_int r = 0; r < rows; ++r) {
    double fit = b[0];
    for (lapack_int f = 0; f < features; ++f)
      fit += a_copy[static_cast<size_t>(r) * cols + 1 + f] * weights[f];
    sq += (fit - energies[r] * per_site) * (fit - energies[r] * per_site);
  }
  // Per-site weights are the per-bond V (the features were divided by the sites, the energies too).
  return {PairEnergy::from_feature_weights(weights, lattice.shells(), species,
                                           b[0] * static_cast<double>(lattice.sites())),
          static_cast<int>(rank), std::sqrt(sq / rows)};
}

}  // namespace alloy
