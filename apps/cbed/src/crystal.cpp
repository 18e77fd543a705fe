#include "cbed/crystal.h"

#include <limits>

namespace cbed {

double Crystal::volume() const {
  return dot(lattice[0], cross(lattice[1], lattice[2]));
}

Mat3 Crystal::reciprocal() const {
  const double v = volume();
  return {(1 / v) * cross(lattice[1], lattice[2]), (1 / v) * cross(lattice[2], lattice[0]),
          (1 / v) * cross(lattice[0], lattice[1])};
}

double Crystal::min_distance(size_t from) const {
  // Images within one cell in each direction: enough for the cells the generator draws (angles
  // 60..125 degrees, atoms closer than the shortest cell vector).
  double best = std::numeric_limits<double>::infinity();
  for (size_t j = from; j < atoms.size(); ++j)
    for (size_t i = 0; i <= j; ++i) {
      const Vec3 d = wrap_half(atoms[j].frac - atoms[i].frac);
      for (int u = -1; u <= 1; ++u)
        for (int v = -1; v <= 1; ++v)
          for (int w = -1; w <= 1; ++w) {
            if (i == j && u == 0 && v == 0 && w == 0) continue;
            const Vec3 shifted = d + Vec3{double(u), double(v), double(w)};
            const double r = norm(cartesian(shifted));
            if (r < best) best = r;
          }
    }
  return best;
}

namespace {
Crystal cubic(int z, double a, std::initializer_list<Vec3> sites) {
  Crystal c;
  c.lattice = {Vec3{a, 0, 0}, Vec3{0, a, 0}, Vec3{0, 0, a}};
  for (const Vec3& s : sites) c.atoms.push_back({z, s});
  return c;
}
}  // namespace

Crystal make_bcc(int z, double a) {
  return cubic(z, a, {{0, 0, 0}, {0.5, 0.5, 0.5}});
}

Crystal make_fcc(int z, double a) {
  return cubic(z, a, {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}});
}

Crystal make_diamond(int z, double a) {
  Crystal c = make_fcc(z, a);
  const size_t n = c.atoms.size();
  for (size_t i = 0; i < n; ++i)
    c.atoms.push_back({z, wrap_unit(c.atoms[i].frac + Vec3{0.25, 0.25, 0.25})});
  return c;
}

}  // namespace cbed
