// The beam electron: relativistic wavelength and the interaction parameter that turns a projected
// potential into a phase (E. J. Kirkland, "Advanced Computing in Electron Microscopy", 2nd ed.,
// 2010, eqs. 2.5 and 5.6).
#pragma once

namespace cbed {

/// h c in eV Angstrom and the electron's rest energy m0 c^2 in eV (CODATA 2018).
inline constexpr double kPlanckTimesC = 12398.419843320026;
inline constexpr double kElectronRestEnergy = 510998.95000;

/// The relativistic wavelength in Angstrom of electrons accelerated through `kilovolts`:
/// lambda = h c / sqrt(eV (2 m0 c^2 + eV)); 0.02508 A at 200 kV.
double electron_wavelength(double kilovolts);

/// sigma in rad / (V Angstrom): the phase sigma * v_z of a projected potential v_z (V Angstrom),
/// sigma = 2 pi / (lambda V) (m0 c^2 + eV) / (2 m0 c^2 + eV).
double interaction_parameter(double kilovolts);

}  // namespace cbed
