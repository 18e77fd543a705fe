#include "cbed/kinematic.h"

#include <cmath>

namespace cbed {

double reciprocal_length(const Crystal& crystal, const Hkl& hkl) {
  return norm(
      row_times(Vec3{double(hkl[0]), double(hkl[1]), double(hkl[2])}, crystal.reciprocal()));
}

std::complex<double> structure_factor(const Crystal& crystal, const Hkl& hkl, double debye_waller_b,
                                      ScatteringModel model) {
  const double g = reciprocal_length(crystal, hkl);
  const double thermal = std::exp(-debye_waller_b * g * g / 4);
  std::complex<double> f = 0;
  for (const Atom& atom : crystal.atoms) {
    const double phase =
        2 * M_PI * (hkl[0] * atom.frac[0] + hkl[1] * atom.frac[1] + hkl[2] * atom.frac[2]);
    f += electron_scattering_factor(atom.z, g, model) * std::polar(1.0, phase);
  }
  return thermal * f;
}

}  // namespace cbed
