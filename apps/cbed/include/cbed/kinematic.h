// Kinematic (single-scattering) diffraction: structure factors of a crystal's reflections.
#pragma once

#include <array>
#include <complex>

#include "cbed/crystal.h"
#include "cbed/scattering_factor.h"

namespace cbed {

/// Miller indices of a reflection of the crystal's cell.
using Hkl = std::array<int, 3>;

/// |g| in 1/Angstrom of reflection hkl (g = h a* + k b* + l c*, no 2 pi).
double reciprocal_length(const Crystal& crystal, const Hkl& hkl);

/// F(g) = sum_j f_j(|g|) exp(-B |g|^2 / 4) exp(2 pi i hkl . x_j) in Angstrom: the electron
/// structure factor of reflection hkl, with an isotropic Debye-Waller factor B (Angstrom^2,
/// B = 8 pi^2 <u^2>; 0 for a static lattice).
std::complex<double> structure_factor(const Crystal& crystal, const Hkl& hkl,
                                      double debye_waller_b = 0,
                                      ScatteringModel model = ScatteringModel::lobato);

}  // namespace cbed
