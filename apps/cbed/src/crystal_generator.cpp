#include "cbed/crystal_generator.h"

#include <exadnn/core/error.h>

#include <cmath>

namespace cbed {
namespace {

constexpr double kDeg = 3.14159265358979323846 / 180;
constexpr int kRedraws = 20;  // new points for a site whose atoms clash, before the attempt fails

using IntMat = std::array<std::array<int, 3>, 3>;

IntMat multiply(const IntMat& a, const IntMat& b) {
  IntMat c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c[i][j] += a[i][k] * b[k][j];
  return c;
}

bool is_identity(const IntMat& m) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (m[i][j] != (i == j)) return false;
  return true;
}

}  // namespace

std::vector<Vec3> orbit(const SpaceGroup& group, const Vec3& x, double tol) {
  std::vector<Vec3> images;
  for (const SymmetryOp& op : group.operations) {
    const Vec3 y = wrap_unit(op.apply(x));
    bool seen = false;
    for (const Vec3& z : images)
      if (norm(wrap_half(y - z)) < tol) seen = true;
    if (!seen) images.push_back(y);
  }
  return images;
}

CellParameters cell_parameters(const Crystal& crystal) {
  const Mat3& l = crystal.lattice;
  const double a = norm(l[0]), b = norm(l[1]), c = norm(l[2]);
  return {a,
          b,
          c,
          std::acos(dot(l[1], l[2]) / (b * c)) / kDeg,
          std::acos(dot(l[0], l[2]) / (a * c)) / kDeg,
          std::acos(dot(l[0], l[1]) / (a * b)) / kDeg};
}

Mat3 lattice_from_parameters(const CellParameters& p) {
  const double ca = std::cos(p.alpha * kDeg), cb = std::cos(p.beta * kDeg);
  const double cg = std::cos(p.gamma * kDeg), sg = std::sin(p.gamma * kDeg);
  const double cx = p.c * cb;
  const double cy = p.c * (ca - cb * cg) / sg;
  const double cz = std::sqrt(p.c * p.c - cx * cx - cy * cy);
  return {Vec3{p.a, 0, 0}, Vec3{p.b * cg, p.b * sg, 0}, Vec3{cx, cy, cz}};
}

Vec3 PointOperation::project(const Vec3& x) const {
  Vec3 centroid{}, y = x;
  for (int p = 0; p < order; ++p) {
    centroid = centroid + y;
    y = op.apply(y);
  }
  return wrap_unit((1.0 / order) * centroid);
}

std::vector<PointOperation> point_operations(const SpaceGroup& group) {
  std::vector<PointOperation> out;
  for (const SymmetryOp& op : group.operations) {
    if (is_identity(op.rotation)) continue;  // the identity and centring translations
    int order = 1;
    IntMat power = op.rotation;
    IntMat sum{};  // I + R + ... + R^(order-1)
    for (int i = 0; i < 3; ++i) sum[i][i] = 1;
    while (!is_identity(power) && order < 6) {
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) sum[i][j] += power[i][j];
      power = multiply(power, op.rotation);
      ++order;
    }
    for (int m = 0; m < 27; ++m) {
      PointOperation w{op, order};
      w.op.translation =
          op.translation + Vec3{double(m % 3 - 1), double(m / 3 % 3 - 1), double(m / 9 - 1)};
      Vec3 drift{};  // the translation part of W^order: zero when W has fixed points
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) drift[i] += sum[i][j] * w.op.translation[j];
      if (norm(drift) < 1e-9) out.push_back(w);
    }
  }
  return out;
}

CrystalGenerator::CrystalGenerator(GeneratorOptions options, uint64_t seed)
    : options_(std::move(options)), rng_(seed) {
  EXADNN_CHECK(!options_.species.empty(), "cbed::CrystalGenerator", "no species given");
  EXADNN_CHECK(options_.min_orbits >= 1 && options_.max_orbits >= options_.min_orbits,
               "cbed::CrystalGenerator", "orbits per structure ", options_.min_orbits, "..",
               options_.max_orbits, " is not a range of at least one");
}

// Edge ratios within 1:1.6 and angles away from 90 degrees by at least 5, so no accidental
// metric symmetry; the scale is set later from the atom count. Monoclinic and triclinic cells are
// orthogonal lattices sheared by simple fractions of their edges (c = C + r a, ...), so that
// they have an orthogonal supercell, which multislice needs (orthogonal_cell.h).
CellParameters CrystalGenerator::draw_cell(CrystalSystem system) {
  auto edge = [&] { return rng_.uniform(1.0, 1.6); };
  auto fraction = [&] {
    static const double kShears[] = {1 / 2., 1 / 3., 2 / 3., 1 / 4., 3 / 4.};
    return kShears[rng_.below(5)];
  };
  auto sign = [&] { return rng_.uniform() < 0.5 ? -1.0 : 1.0; };
  switch (system) {
    case CrystalSystem::triclinic:
      for (;;) {  // a, b = B + r1 a, c = C + r2 a + r3 B with A, B, C orthogonal
        const double a = edge(), b = edge(), c = edge();
        // Halves only: the orthogonal supercell (a, 2b - 2 r1 a, 4c - ...) keeps indices within 4
        // and 8 cells (thirds would nest to 18).
        const double r1 = sign() / 2, r2 = sign() / 2, r3 = sign() / 2;
        Crystal sheared;
        sheared.lattice = {Vec3{a, 0, 0}, Vec3{r1 * a, b, 0}, Vec3{r2 * a, r3 * b, c}};
        const CellParameters p = cell_parameters(sheared);
        bool ok = true;
        for (const double angle : {p.alpha, p.beta, p.gamma})
          ok = ok && angle >= 60 && angle <= 120 && std::abs(angle - 90) >= 5;
        if (ok) return p;
      }
    case CrystalSystem::monoclinic:
      for (;;) {  // b unique: c = C - r a, beta = acos(-r a / |c|) in 95..125 degrees
        const double a = edge(), b = edge(), c_height = edge(), r = fraction();
        const double c = std::hypot(r * a, c_height);
        const double beta = std::acos(-r * a / c) / kDeg;
        if (beta >= 95 && beta <= 125) return {a, b, c, 90, beta, 90};
      }
    case CrystalSystem::orthorhombic:
      return {edge(), edge(), edge(), 90, 90, 90};
    case CrystalSystem::tetragonal: {
      const double a = edge();
      return {a, a, edge(), 90, 90, 90};
    }
    case CrystalSystem::trigonal:  // hexagonal axes (the rhombohedral groups' H setting too)
    case CrystalSystem::hexagonal: {
      const double a = edge();
      return {a, a, edge(), 90, 90, 120};
    }
    case CrystalSystem::cubic:
      return {1, 1, 1, 90, 90, 90};
  }
  return {1, 1, 1, 90, 90, 90};
}

GeneratedCrystal CrystalGenerator::generate(int number) {
  const SpaceGroup group = space_group(number);  // Error for a number outside 1..230
  const std::vector<PointOperation> elements = point_operations(group);
  // One occupied site: where its point is drawn (a general position, or on elements[element]).
  struct Site {
    int element = -1;
    int z = 0;
  };
  auto draw = [&](const Site& site) {
    const Vec3 x{rng_.uniform(), rng_.uniform(), rng_.uniform()};
    return site.element < 0 ? x : elements[site.element].project(x);
  };
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    ++stats_.attempts;
    GeneratedCrystal out;
    out.space_group = number;
    out.system = group.system;
    // The sites and their orbits, then the cell scaled to volume_per_atom per atom.
    const int n_sites =
        options_.min_orbits + rng_.below(options_.max_orbits - options_.min_orbits + 1);
    std::vector<Site> sites(n_sites);
    std::vector<std::vector<Vec3>> orbits(n_sites);
    size_t n_atoms = 0;
    for (int s = 0; s < n_sites; ++s) {
      if (!elements.empty() && rng_.uniform() < options_.special_fraction)
        sites[s].element = rng_.below(int(elements.size()));
      sites[s].z = options_.species[rng_.below(int(options_.species.size()))];
      orbits[s] = orbit(group, draw(sites[s]));
      n_atoms += orbits[s].size();
    }
    CellParameters p = draw_cell(group.system);
    Crystal unit;
    unit.lattice = lattice_from_parameters(p);
    const double scale = std::cbrt(options_.volume_per_atom * n_atoms / unit.volume());
    p.a *= scale, p.b *= scale, p.c *= scale;
    out.crystal.lattice = lattice_from_parameters(p);
    // Sites in order; one whose atoms come closer than min_distance to themselves or to the sites
    // before is drawn again on the same element with an orbit of the same size (so the scale
    // stays right), a few times, before the attempt is rejected.
    bool clash = false;
    for (int s = 0; s < n_sites && !clash; ++s) {
      const size_t first = out.crystal.atoms.size();
      for (int redraw = 0;; ++redraw) {
        out.crystal.atoms.resize(first);
        for (const Vec3& x : orbits[s]) out.crystal.atoms.push_back({sites[s].z, x});
        if (out.crystal.min_distance(first) >= options_.min_distance) break;
        if (redraw == kRedraws) {
          clash = true;
          break;
        }
        std::vector<Vec3> again = orbit(group, draw(sites[s]));
        if (again.size() == orbits[s].size()) orbits[s] = std::move(again);
      }
      out.orbit_sizes.push_back(int(orbits[s].size()));
    }
    if (clash) {
      ++stats_.rejected_distance;
      continue;
    }
    if (find_space_group(out.crystal, options_.symprec) != number) {
      ++stats_.rejected_symmetry;
      continue;
    }
    ++stats_.accepted;
    return out;
  }
  throw exadnn::Error("cbed::CrystalGenerator",
                      exadnn::detail::cat("no structure of space group ", number, " (",
                                          group.symbol, ") round-tripped through spglib in ",
                                          options_.max_attempts, " attempts"));
}

}  // namespace cbed
