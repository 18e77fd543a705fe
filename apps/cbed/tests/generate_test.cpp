// A material's generated sample: kinematic stacks (the CI mode) have the crystal's symmetry, and
// a sample depends only on (seed, material id).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cbed/generate.h"

namespace cbed {
namespace {

TEST(Generate, KinematicStackOfACubicCrystalHasItsFourFoldAxes) {
  GenerateOptions o;
  o.groups = {221};  // Pm-3m: every cube axis is 4-fold
  o.stack.kinematic = true;
  o.stack.multislice.grid.nx = o.stack.multislice.grid.ny = 32;
  const GeneratedSample s = generate_material(3, o);
  ASSERT_EQ(s.patterns.size(), 3u * 32 * 32);
  EXPECT_EQ(s.labels.space_group, 221);
  EXPECT_EQ(s.labels.crystal_system, int(CrystalSystem::cubic));
  EXPECT_EQ(s.labels.material_id, 3);
  const float top = *std::max_element(s.patterns.begin(), s.patterns.end());
  for (int p = 0; p < 3; ++p) {
    const float* I = s.patterns.data() + p * 1024;
    double worst = 0;  // 90 degrees about zero frequency (16, 16): (y, x) -> (x, 32 - y)
    for (int y = 1; y < 32; ++y)
      for (int x = 1; x < 32; ++x)
        worst = std::max(worst, double(std::abs(I[y * 32 + x] - I[x * 32 + 32 - y])));
    EXPECT_LT(worst, 1e-5 * top) << "pattern " << p;
  }
  // The three cube axes give the same pattern.
  for (int i = 0; i < 1024; ++i) EXPECT_NEAR(s.patterns[i], s.patterns[2048 + i], 1e-5 * top);
}

TEST(Generate, ASampleDependsOnlyOnSeedAndMaterial) {
  GenerateOptions o;
  o.groups = {2, 14, 62};
  o.stack.kinematic = true;
  o.stack.multislice.grid.nx = o.stack.multislice.grid.ny = 16;
  const GeneratedSample a = generate_material(4, o), b = generate_material(4, o);
  EXPECT_EQ(a.patterns, b.patterns);
  EXPECT_EQ(a.labels.space_group, 14);  // groups[4 % 3]
  EXPECT_NE(generate_material(7, o).patterns, a.patterns);
  o.seed = 2;
  EXPECT_NE(generate_material(4, o).patterns, a.patterns);
}

TEST(Generate, DoseGivesWholeCounts) {
  GenerateOptions o;
  o.groups = {225};
  o.stack.kinematic = true;
  o.stack.multislice.grid.nx = o.stack.multislice.grid.ny = 16;
  const GeneratedSample clean = generate_material(0, o);
  o.dose = 1e4;
  const GeneratedSample s = generate_material(0, o);
  double counts = 0, expected = 0;
  for (size_t i = 0; i < s.patterns.size(); ++i) {
    EXPECT_EQ(s.patterns[i], std::round(s.patterns[i]));
    counts += s.patterns[i];
    expected += o.dose * clean.patterns[i];
  }
  EXPECT_NEAR(counts, expected, 5 * std::sqrt(expected));  // Poisson: 5 standard deviations
}

}  // namespace
}  // namespace cbed
