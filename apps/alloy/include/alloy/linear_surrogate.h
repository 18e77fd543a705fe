// The baseline surrogate: effective pair interactions fitted by linear least squares (LAPACK's
// SVD-based dgelsd) to oracle energies on the pair-count features. At a fixed composition the
// counts of a shell are linearly dependent (they sum to the shell's bonds, and each species' bonds
// to its sites × coordination), so the fit is rank-deficient by design: dgelsd returns the
// minimum-norm weights, whose energies are the same for every configuration of that composition.
#pragma once

#include <vector>

#include "alloy/configuration.h"
#include "alloy/lattice.h"
#include "alloy/pair_energy.h"

namespace alloy {

struct LinearFit {
  PairEnergy model;
  int rank = 0;           ///< the numerical rank of the features (with the constant column)
  double train_rmse = 0;  ///< eV per site, on the training configurations
};

/// Fits E ≈ e0 + Σ w · pair_counts(c) to total energies of `configurations` (at least 2).
LinearFit fit_pair_model(const Lattice& lattice, int species,
                         const std::vector<Occupation>& configurations,
                         const std::vector<double>& energies);

}  // namespace alloy
