#include "cbed/orthogonal_cell.h"

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "cbed/crystal_generator.h"

namespace cbed {
namespace {

constexpr double kAngleTolerance = 1e-6;  // degrees
bool right_angle(double degrees) {
  return std::abs(degrees - 90) < kAngleTolerance;
}

Vec3 as_vec(const LatticeVector& n) {
  return {double(n[0]), double(n[1]), double(n[2])};
}

int determinant(const std::array<LatticeVector, 3>& m) {
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

Mat3 inverse(const Mat3& m) {
  const Vec3 c0 = cross(m[1], m[2]), c1 = cross(m[2], m[0]), c2 = cross(m[0], m[1]);
  const double det = dot(m[0], c0);
  // (m^-1)[i][j] = cofactor[j][i] / det; the cofactor rows are c0, c1, c2.
  return {Vec3{c0[0] / det, c1[0] / det, c2[0] / det}, Vec3{c0[1] / det, c1[1] / det, c2[1] / det},
          Vec3{c0[2] / det, c1[2] / det, c2[2] / det}};
}

// The supercell whose rows are the lattice vectors m (|det m| >= 1): every atom of every cell
// inside it, in its fractional coordinates.
Crystal supercell(const Crystal& c, const std::array<LatticeVector, 3>& m) {
  const Mat3 mf = {as_vec(m[0]), as_vec(m[1]), as_vec(m[2])};
  Crystal out;
  for (int i = 0; i < 3; ++i) out.lattice[i] = row_times(mf[i], c.lattice);
  const Mat3 inv = inverse(mf);
  int lo[3], hi[3];  // the old cells the supercell's corners span
  for (int k = 0; k < 3; ++k) {
    lo[k] = hi[k] = 0;
    for (int corner = 1; corner < 8; ++corner) {
      int s = 0;
      for (int r = 0; r < 3; ++r)
        if (corner >> r & 1) s += m[r][k];
      lo[k] = std::min(lo[k], s), hi[k] = std::max(hi[k], s);
    }
  }
  for (int u = lo[0] - 1; u <= hi[0]; ++u)
    for (int v = lo[1] - 1; v <= hi[1]; ++v)
      for (int w = lo[2] - 1; w <= hi[2]; ++w)
        for (const Atom& a : c.atoms) {
          Vec3 f = row_times(a.frac + Vec3{double(u), double(v), double(w)}, inv);
          bool inside = true;
          for (double& x : f) {
            if (std::abs(x - std::round(x)) < 1e-9) x = std::round(x);  // on a face: one owner
            inside = inside && x >= 0 && x < 1;
          }
          if (inside) out.atoms.push_back({a.z, f});
        }
  const size_t expected = c.atoms.size() * std::abs(determinant(m));
  EXADNN_CHECK(out.atoms.size() == expected, "cbed::orthogonal_supercell", "the supercell holds ",
               out.atoms.size(), " atoms instead of ", expected);
  return out;
}

}  // namespace

std::string zone_axis_symbol(const LatticeVector& uvw) {
  std::string s = "[";
  for (const int n : uvw) s += std::to_string(n);
  return s + "]";
}

OrthogonalCell orthogonal_supercell(const Crystal& crystal, int max_index) {
  // Candidate vectors with their first non-zero index positive (one of +-n), shortest first.
  struct Candidate {
    LatticeVector n;
    Vec3 r;
    double length;
  };
  std::vector<Candidate> candidates;
  for (int u = -max_index; u <= max_index; ++u)
    for (int v = -max_index; v <= max_index; ++v)
      for (int w = -max_index; w <= max_index; ++w) {
        const LatticeVector n{u, v, w};
        const int first = u != 0 ? u : (v != 0 ? v : w);
        if (first <= 0 || std::gcd(std::gcd(std::abs(u), std::abs(v)), std::abs(w)) != 1) continue;
        const Vec3 r = row_times(as_vec(n), crystal.lattice);
        candidates.push_back({n, r, norm(r)});
      }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.length < b.length; });
  auto orthogonal = [](const Candidate& a, const Candidate& b) {
    return std::abs(dot(a.r, b.r)) < 1e-9 * a.length * b.length;
  };
  // The triple of smallest volume; among equal volumes, the one with the most zero indices (the
  // cell's own axes where they are orthogonal), then the shorter vectors (found first).
  auto zeros = [](const LatticeVector& n) { return int(std::count(n.begin(), n.end(), 0)); };
  std::array<LatticeVector, 3> best{};
  double best_volume = 1e300;
  int best_zeros = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (std::pow(candidates[i].length, 3) > best_volume) break;  // every later triple is larger
    std::vector<size_t> perpendicular;
    for (size_t j = i + 1; j < candidates.size(); ++j)
      if (orthogonal(candidates[i], candidates[j])) perpendicular.push_back(j);
    for (size_t a = 0; a < perpendicular.size(); ++a)
      for (size_t b = a + 1; b < perpendicular.size(); ++b) {
        const Candidate& y = candidates[perpendicular[a]];
        const Candidate& z = candidates[perpendicular[b]];
        if (!orthogonal(y, z)) continue;
        const double volume = candidates[i].length * y.length * z.length;
        const int z_count = zeros(candidates[i].n) + zeros(y.n) + zeros(z.n);
        const bool smaller = volume < best_volume * (1 - 1e-9);
        const bool tie = !smaller && volume < best_volume * (1 + 1e-9);
        if (smaller || (tie && z_count > best_zeros)) {
          best_volume = volume;
          best_zeros = z_count;
          best = {candidates[i].n, y.n, z.n};
        }
      }
  }
  if (best_volume == 1e300) {
    const CellParameters p = cell_parameters(crystal);
    throw exadnn::Error(
        "cbed::orthogonal_supercell",
        exadnn::detail::cat("no orthogonal supercell with indices up to ", max_index,
                            " for the cell a = ", p.a, ", b = ", p.b, ", c = ", p.c, " A, angles ",
                            p.alpha, ", ", p.beta, ", ", p.gamma, " degrees"));
  }
  // Order the vectors as a, b, c where they lie nearest (each to the axis of its largest index),
  // and make the cell right-handed.
  std::array<LatticeVector, 3> ordered = best;
  auto dominant = [](const LatticeVector& n) {
    return int(std::max_element(n.begin(), n.end(),
                                [](int x, int y) { return std::abs(x) < std::abs(y); }) -
               n.begin());
  };
  std::array<bool, 3> used{};
  std::array<bool, 3> placed{};
  for (int k = 0; k < 3; ++k) {
    const int axis = dominant(best[k]);
    if (!used[axis]) ordered[axis] = best[k], used[axis] = true, placed[k] = true;
  }
  for (int k = 0; k < 3; ++k)
    if (!placed[k])
      for (int axis = 0; axis < 3; ++axis)
        if (!used[axis]) {
          ordered[axis] = best[k], used[axis] = true;
          break;
        }
  if (determinant(ordered) < 0)
    for (int& x : ordered[2]) x = -x;
  return {supercell(crystal, ordered), ordered};
}

Crystal orthogonal_setting(const Crystal& crystal) {
  return orthogonal_supercell(crystal).crystal;
}

Crystal along_axis(const Crystal& crystal, int axis) {
  EXADNN_CHECK(axis >= 0 && axis <= 2, "cbed::along_axis", "axis ", axis, " is not 0, 1 or 2");
  const CellParameters p = cell_parameters(crystal);
  EXADNN_CHECK(right_angle(p.alpha) && right_angle(p.beta) && right_angle(p.gamma),
               "cbed::along_axis", "multislice needs an orthogonal cell; this one has angles ",
               p.alpha, ", ", p.beta, ", ", p.gamma, " degrees (see orthogonal_supercell)");
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
