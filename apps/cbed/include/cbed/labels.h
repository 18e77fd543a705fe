// The labels that go with a material's patterns, as in the ORNL CBED data: space group, crystal
// system, lattice constants and composition.
#pragma once

#include <map>
#include <string>

#include "cbed/crystal_generator.h"

namespace cbed {

struct MaterialLabels {
  int space_group = 0;
  CrystalSystem system = CrystalSystem::triclinic;
  CellParameters cell{};     // Angstrom and degrees, of the conventional cell
  std::map<int, int> atoms;  // atomic number -> atoms in the conventional cell
  std::string formula;       // reduced, Hill order (C, H, then alphabetical): "O2Si"
};

/// The labels of a generated structure.
MaterialLabels labels_of(const GeneratedCrystal& generated);

/// The reduced formula in Hill order of atom counts per element ({8: 16, 14: 8} -> "O2Si").
std::string reduced_formula(const std::map<int, int>& atoms);

}  // namespace cbed
