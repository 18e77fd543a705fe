#include "cbed/space_group.h"

#include <exadnn/core/error.h>
#include <spglib.h>

#include <array>

namespace cbed {
namespace {

void check_number(int number, const char* where) {
  EXADNN_CHECK(number >= 1 && number <= 230, where, "space group ", number,
               " is not a space-group number (1..230)");
}

// first_hall[n]: spglib's smallest Hall number (1..530) whose space-group type is n.
const std::array<int, 231>& first_hall_numbers() {
  static const std::array<int, 231> table = [] {
    std::array<int, 231> t{};
    for (int hall = 1; hall <= 530; ++hall) {
      const SpglibSpacegroupType type = spg_get_spacegroup_type(hall);
      if (type.number >= 1 && type.number <= 230 && t[type.number] == 0) t[type.number] = hall;
    }
    return t;
  }();
  return table;
}

}  // namespace

const char* crystal_system_name(CrystalSystem system) {
  switch (system) {
    case CrystalSystem::triclinic:
      return "triclinic";
    case CrystalSystem::monoclinic:
      return "monoclinic";
    case CrystalSystem::orthorhombic:
      return "orthorhombic";
    case CrystalSystem::tetragonal:
      return "tetragonal";
    case CrystalSystem::trigonal:
      return "trigonal";
    case CrystalSystem::hexagonal:
      return "hexagonal";
    case CrystalSystem::cubic:
      return "cubic";
  }
  return "?";
}

CrystalSystem crystal_system(int number) {
  check_number(number, "cbed::crystal_system");
  if (number <= 2) return CrystalSystem::triclinic;
  if (number <= 15) return CrystalSystem::monoclinic;
  if (number <= 74) return CrystalSystem::orthorhombic;
  if (number <= 142) return CrystalSystem::tetragonal;
  if (number <= 167) return CrystalSystem::trigonal;
  if (number <= 194) return CrystalSystem::hexagonal;
  return CrystalSystem::cubic;
}

Vec3 SymmetryOp::apply(const Vec3& x) const {
  Vec3 y = translation;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) y[i] += rotation[i][j] * x[j];
  return y;
}

SpaceGroup space_group(int number) {
  check_number(number, "cbed::space_group");
  SpaceGroup group;
  group.number = number;
  group.hall_number = first_hall_numbers()[number];
  EXADNN_CHECK(group.hall_number > 0, "cbed::space_group", "spglib lists no setting of group ",
               number);
  const SpglibSpacegroupType type = spg_get_spacegroup_type(group.hall_number);
  group.symbol = type.international_short;
  group.system = crystal_system(number);
  int rotations[192][3][3];
  double translations[192][3];
  const int n = spg_get_symmetry_from_database(rotations, translations, group.hall_number);
  EXADNN_CHECK(n > 0, "cbed::space_group", "spglib has no operations for Hall number ",
               group.hall_number, " (space group ", number, ")");
  group.operations.resize(n);
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) group.operations[k].rotation[i][j] = rotations[k][i][j];
      group.operations[k].translation[i] = translations[k][i];
    }
  return group;
}

int find_space_group(const Crystal& crystal, double symprec) {
  const int n = static_cast<int>(crystal.atoms.size());
  if (n == 0) return 0;
  double lattice[3][3];  // spglib: the lattice vectors are the columns
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) lattice[i][j] = crystal.lattice[j][i];
  std::vector<double> positions(3 * n);
  std::vector<int> types(n);
  for (int a = 0; a < n; ++a) {
    for (int i = 0; i < 3; ++i) positions[3 * a + i] = crystal.atoms[a].frac[i];
    types[a] = crystal.atoms[a].z;
  }
  SpglibDataset* dataset = spg_get_dataset(
      lattice, reinterpret_cast<double(*)[3]>(positions.data()), types.data(), n, symprec);
  if (dataset == nullptr) return 0;
  const int number = dataset->spacegroup_number;
  spg_free_dataset(dataset);
  return number;
}

}  // namespace cbed
