// Random crystal structures of a chosen space group: the orbits of random points under the group's
// operations (general positions, and special positions on a rotation axis, mirror plane, inversion
// centre or rotoinversion point), lattice parameters drawn within the crystal system's constraints
// (monoclinic and triclinic cells as orthogonal lattices sheared by simple fractions, so that an
// orthogonal supercell exists for multislice), and spglib's symmetry finder as the judge: a
// structure whose space group does not come back is rejected, and counted.
#pragma once

#include <cstdint>
#include <vector>

#include "cbed/crystal.h"
#include "cbed/rng.h"
#include "cbed/space_group.h"

namespace cbed {

struct GeneratorOptions {
  std::vector<int> species{14, 8};  // atomic numbers; each orbit draws one
  int min_orbits = 1;               // orbits (Wyckoff sites occupied) per structure
  int max_orbits = 3;
  double special_fraction = 0.5;  // chance that an orbit starts from a special position
  double volume_per_atom = 18.0;  // Angstrom^3; sets the cell's scale
  double min_distance = 1.5;      // Angstrom; closer atoms reject the structure
  double symprec = 1e-3;          // Angstrom, for spglib's finder
  int max_attempts = 200;         // per structure, before generate() gives up with an Error
};

/// Why attempts were rejected, over the generator's life.
struct GeneratorStats {
  long attempts = 0;
  long accepted = 0;
  long rejected_distance = 0;  // two atoms closer than min_distance
  long rejected_symmetry = 0;  // spglib found another space group (or none)
  double rejection_rate() const { return attempts ? 1.0 - double(accepted) / attempts : 0.0; }
};

/// A generated structure and what it was made as.
struct GeneratedCrystal {
  Crystal crystal;
  int space_group = 0;
  CrystalSystem system = CrystalSystem::triclinic;
  std::vector<int> orbit_sizes;  // atoms per occupied site, in the order of crystal.atoms
};

/// The cell parameters (Angstrom, degrees) as six numbers a, b, c, alpha, beta, gamma.
struct CellParameters {
  double a, b, c, alpha, beta, gamma;
};
CellParameters cell_parameters(const Crystal& crystal);
/// The lattice (rows a, b, c) of cell parameters: a along x, b in the xy plane.
Mat3 lattice_from_parameters(const CellParameters& p);

class CrystalGenerator {
 public:
  explicit CrystalGenerator(GeneratorOptions options = {}, uint64_t seed = 0);
  /// A structure of space group `number` that spglib confirms; Error naming the number outside
  /// 1..230, or after max_attempts rejected attempts.
  GeneratedCrystal generate(int number);
  const GeneratorStats& stats() const { return stats_; }

 private:
  CellParameters draw_cell(CrystalSystem system);

  GeneratorOptions options_;
  Rng rng_;
  GeneratorStats stats_;
};

/// A symmetry operation W that has fixed points, written with the lattice translation that makes
/// W^order the identity: a rotation axis, mirror plane, inversion centre or rotoinversion point.
struct PointOperation {
  SymmetryOp op;
  int order = 1;
  /// x moved onto W's element: the centroid of x's cyclic orbit under W.
  Vec3 project(const Vec3& x) const;
};
/// The group's operations with fixed points, each with every translation m in {-1, 0, 1}^3 that
/// gives one (W and W + m are the same operation modulo the lattice; the different m reach the
/// parallel elements, e.g. the 2-fold axes at x = 0 and x = 1/2). Screws, glides, centring
/// translations and the identity have none and are left out.
std::vector<PointOperation> point_operations(const SpaceGroup& group);

/// The orbit of x under the group's operations, wrapped into [0, 1)^3, images closer than `tol`
/// (fractional) merged.
std::vector<Vec3> orbit(const SpaceGroup& group, const Vec3& x, double tol = 1e-6);

}  // namespace cbed
