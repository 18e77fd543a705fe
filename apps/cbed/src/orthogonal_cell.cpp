#include "cbed/orthogonal_cell.h"

#include <exadnn/core/error.h>

#include <cmath>

#include "cbed/crystal_generator.h"

namespace cbed {
namespace {
constexpr double kAngleTolerance = 1e-6;  // degrees
bool right_angle(double degrees) {
  return std::abs(degrees - 90) < kAngleTolerance;
}
}  // namespace

Crystal orthogonal_setting(const Crystal& crystal) {
  const CellParameters p = cell_parameters(crystal);
  if (right_angle(p.alpha) && right_angle(p.beta) && right_angle(p.gamma)) return crystal;
  const bool hexagonal = std::abs(p.a - p.b) < 1e-9 * p.a && right_angle(p.alpha) &&
                         right_angle(p.beta) && std::abs(p.gamma - 120) < kAngleTolerance;
  EXADNN_CHECK(hexagonal, "cbed::orthogonal_setting",
               "no orthogonal setting for the cell a = ", p.a, ", b = ", p.b, ", c = ", p.c,
               " A, angles ", p.alpha, ", ", p.beta, ", ", p.gamma,
               " degrees (only orthogonal and hexagonal-axes cells are handled)");
  // r = x a + y b + z c with b = (b' - a) / 2: r = (x - y/2) a + (y/2) b' + z c; the C-centring
  // (1/2, 1/2, 0) gives the second copy.
  Crystal out;
  const Mat3& l = crystal.lattice;
  out.lattice = {l[0], l[0] + 2.0 * l[1], l[2]};
  for (const Atom& atom : crystal.atoms) {
    const Vec3 x{atom.frac[0] - atom.frac[1] / 2, atom.frac[1] / 2, atom.frac[2]};
    out.atoms.push_back({atom.z, wrap_unit(x)});
    out.atoms.push_back({atom.z, wrap_unit(x + Vec3{0.5, 0.5, 0})});
  }
  return out;
}

Crystal along_axis(const Crystal& crystal, int axis) {
  EXADNN_CHECK(axis >= 0 && axis <= 2, "cbed::along_axis", "axis ", axis, " is not 0, 1 or 2");
  const CellParameters p = cell_parameters(crystal);
  EXADNN_CHECK(right_angle(p.alpha) && right_angle(p.beta) && right_angle(p.gamma),
               "cbed::along_axis", "multislice needs an orthogonal cell; this one has angles ",
               p.alpha, ", ", p.beta, ", ", p.gamma,
               " degrees (orthogonal_setting turns hexagonal axes into one)");
  // New axes (x, y, z) = old axes (axis + 1, axis + 2, axis), cyclically.
  const int ix = (axis + 1) % 3, iy = (axis + 2) % 3;
  const double edge[3] = {p.a, p.b, p.c};
  Crystal out;
  out.lattice = {Vec3{edge[ix], 0, 0}, Vec3{0, edge[iy], 0}, Vec3{0, 0, edge[axis]}};
  for (const Atom& a : crystal.atoms)
    out.atoms.push_back({a.z, {a.frac[ix], a.frac[iy], a.frac[axis]}});
  return out;
}

}  // namespace cbed
