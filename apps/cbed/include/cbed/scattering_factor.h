// Electron scattering factors of neutral atoms (first Born approximation) and the constants that
// turn them into potentials.
//
// Main parameterisation: I. Lobato and D. Van Dyck, Acta Cryst. A70 (2014) 636-649,
//   f(g) = sum_{i=1..5} a_i (2 + b_i g^2) / (1 + b_i g^2)^2.
// Independent check: E. J. Kirkland, "Advanced Computing in Electron Microscopy", 2nd ed.,
//   Springer (2010), Appendix C, f(q) = sum_{i=1..3} a_i / (q^2 + b_i) + c_i exp(-d_i q^2).
// g (= q) is the scattering vector's length in 1/Angstrom (g = 1/d = 2 sin(theta) / lambda, no
// 2 pi); f is in Angstrom. Both cover Z = 1..103.
#pragma once

namespace cbed {

/// The two published parameterisations.
enum class ScatteringModel { lobato, kirkland };

/// f_e(g) in Angstrom for atomic number z (1..103) at g in 1/Angstrom; Error naming z outside it.
double electron_scattering_factor(int z, double g, ScatteringModel model = ScatteringModel::lobato);

/// Kirkland's closed-form projected potential of one atom at distance r (Angstrom) from its
/// centre, in V Angstrom (Kirkland 2010, eq. C.20):
/// v(r) = 4 pi^2 a0 e sum_i a_i K0(2 pi r sqrt(b_i)) + 2 pi^2 a0 e sum_i c_i / d_i exp(-pi^2 r^2 /
/// d_i).
double kirkland_projected_potential(int z, double r);

/// The Bohr radius in Angstrom (CODATA 2018).
inline constexpr double kBohrRadius = 0.529177210903;
/// e^2 / (4 pi eps0) in V Angstrom (CODATA 2018): 14.3996 V A.
inline constexpr double kCoulombVA = 14.39964547842567;
/// V(r) = kPotentialPrefactor * integral f(q) exp(2 pi i q.r) d^3q, in V Angstrom^2 (= 2 pi a0 e,
/// Kirkland eq. 5.8): 47.88 V A^2.
inline constexpr double kPotentialPrefactor = 2 * 3.14159265358979323846 * kBohrRadius * kCoulombVA;

}  // namespace cbed
