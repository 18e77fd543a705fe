// The 230 space-group types through spglib (Debian libsymspg-dev): symmetry operations of a
// standard setting, crystal systems, and spglib's symmetry finder for the round trip.
#pragma once

#include <string>
#include <vector>

#include "cbed/crystal.h"

namespace cbed {

enum class CrystalSystem {
  triclinic,
  monoclinic,
  orthorhombic,
  tetragonal,
  trigonal,
  hexagonal,
  cubic
};

/// "triclinic", ..., "cubic".
const char* crystal_system_name(CrystalSystem system);
/// The crystal system of space group `number` (1..230); Error naming the number outside it.
CrystalSystem crystal_system(int number);

/// One operation x -> rotation x + translation on fractional coordinates.
struct SymmetryOp {
  std::array<std::array<int, 3>, 3> rotation{};
  Vec3 translation{};
  Vec3 apply(const Vec3& x) const;
};

/// A space-group type in the setting spglib lists first for its number (its smallest Hall number:
/// b-unique monoclinic cells, hexagonal axes for the rhombohedral groups, origin choice 1).
struct SpaceGroup {
  int number = 0;       // 1..230
  int hall_number = 0;  // 1..530, spglib's setting index
  std::string symbol;   // international short symbol, e.g. "Fd-3m"
  CrystalSystem system = CrystalSystem::triclinic;
  std::vector<SymmetryOp> operations;  // all operations of the conventional cell, centring included
};

/// The space group numbered 1..230; Error naming the number outside it.
SpaceGroup space_group(int number);

/// spglib's symmetry finder (spg_get_dataset) on a crystal: its space-group number, or 0 when
/// spglib finds none (e.g. atoms too close), at tolerance `symprec` in Angstrom.
int find_space_group(const Crystal& crystal, double symprec = 1e-3);

}  // namespace cbed
