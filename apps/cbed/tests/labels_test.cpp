// Material labels: reduced formulas in Hill order, and the labels of a generated structure.
#include <gtest/gtest.h>

#include "cbed/labels.h"

namespace cbed {
namespace {

TEST(Labels, ReducedFormulasAreInHillOrder) {
  EXPECT_EQ(reduced_formula({{8, 16}, {14, 8}}), "O2Si");
  EXPECT_EQ(reduced_formula({{1, 4}, {6, 2}, {8, 2}}), "CH2O");  // carbon first, then hydrogen
  EXPECT_EQ(reduced_formula({{1, 2}, {8, 1}}), "H2O");           // no carbon: alphabetical
  EXPECT_EQ(reduced_formula({{29, 4}}), "Cu");
}

TEST(Labels, AGeneratedStructuresLabelsAreItsOwn) {
  GeneratorOptions options;
  options.species = {8, 14};
  const GeneratedCrystal g = CrystalGenerator(options, 3).generate(136);  // P4_2/mnm
  const MaterialLabels labels = labels_of(g);
  EXPECT_EQ(labels.space_group, 136);
  EXPECT_EQ(labels.system, CrystalSystem::tetragonal);
  EXPECT_NEAR(labels.cell.a, labels.cell.b, 1e-9);
  int atoms = 0;
  for (const auto& [z, n] : labels.atoms) atoms += n;
  EXPECT_EQ(atoms, int(g.crystal.atoms.size()));
  EXPECT_FALSE(labels.formula.empty());
}

}  // namespace
}  // namespace cbed
