// Three-axis stacks: the three cube axes of a cubic crystal give the same pattern, a tetragonal
// crystal's c differs from its a, hexagonal cells go through the orthohexagonal setting, the
// generator's oblique cells through their orthogonal supercells, and a metric without one is
// refused by name.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cbed/cbed_stack.h"
#include "cbed/crystal_generator.h"
#include "cbed/orthogonal_cell.h"
#include "cbed/space_group.h"

namespace cbed {
namespace {

StackOptions small() {
  StackOptions s;
  s.multislice.grid.nx = s.multislice.grid.ny = 64;
  s.multislice.aperture_mrad = 4;
  s.thickness = 30;
  return s;
}

// max |I_i - I_j| / max I_i between patterns i and j of a stack, pattern j transposed or not.
double difference(const PatternStack& s, int i, int j, bool transpose = false) {
  const int n = s.nx;  // square patterns
  const size_t size = size_t(n) * n;
  double worst = 0, peak = 0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const float a = s.data[i * size + size_t(y) * n + x];
      const float b = s.data[j * size + (transpose ? size_t(x) * n + y : size_t(y) * n + x)];
      worst = std::max(worst, double(std::abs(a - b)));
      peak = std::max(peak, double(a));
    }
  return worst / peak;
}

TEST(CbedStack, CubeAxesAreEquivalentAndATetragonalCIsNot) {
  const PatternStack cu = cbed_stack(make_fcc(29, 3.615), small());
  EXPECT_EQ(cu.data.size(), 3u * 64 * 64);
  EXPECT_EQ(cu.zone_axes[2], "[001]");
  EXPECT_LT(difference(cu, 0, 1), 1e-6);  // float32 patterns
  EXPECT_LT(difference(cu, 0, 2), 1e-6);
  Crystal stretched = make_fcc(29, 3.615);
  stretched.lattice[2][2] = 3.9;  // a tetragonal distortion along c
  const PatternStack t = cbed_stack(stretched, small());
  // [100] shows (b, c) along (x, y), [010] shows (c, a): the same pattern, transposed.
  EXPECT_LT(difference(t, 0, 1, true), 1e-6);
  EXPECT_GT(difference(t, 0, 2), 1e-2);
}

TEST(CbedStack, HexagonalCellsUseTheOrthohexagonalAxes) {
  Crystal mg;  // hcp Mg, a = 3.209, c = 5.211 A
  mg.lattice = {Vec3{3.209, 0, 0}, Vec3{-3.209 / 2, 3.209 * std::sqrt(3.0) / 2, 0},
                Vec3{0, 0, 5.211}};
  mg.atoms = {{12, {1 / 3., 2 / 3., 0.25}}, {12, {2 / 3., 1 / 3., 0.75}}};
  const PatternStack s = cbed_stack(mg, small());
  // c, and two orthogonal directions in the basal plane: a and a + 2b, or equivalently 2a + b
  // and b ([2-1-10] and [01-10] in four indices, or their equivalents).
  EXPECT_EQ(s.zone_axes[2], "[001]");
  const std::string basal = s.zone_axes[0] + s.zone_axes[1];
  EXPECT_TRUE(basal == "[100][120]" || basal == "[210][010]") << basal;
  double sum = 0;
  for (size_t k = 0; k < size_t(64 * 64); ++k) sum += s.data[2 * 64 * 64 + k];
  EXPECT_GT(sum, 0.5);  // a pattern, not an empty frame
  EXPECT_LE(sum, 1.0 + 1e-6);
}

// StackOptions::laue_zones reaches the kinematic patterns (the physics: laue_zone_test.cpp), and
// a multislice stack asking for it is refused (multislice has the zones its slices resolve).
TEST(CbedStack, LaueZonesAreDrawnInKinematicStacksOnly) {
  Crystal tall = make_fcc(29, 3.615);
  tall.lattice[2][2] = 40;  // the first Laue zone at sqrt(2 lambda / c) = 35 mrad along c
  StackOptions s = small();
  s.plane_size = 8;  // 3 cells: 2.3 mrad per pixel, 49 mrad kept
  s.kinematic = true;
  const PatternStack zero_layer = cbed_stack(tall, s);
  s.laue_zones = 1;
  const PatternStack with = cbed_stack(tall, s);
  double moved = 0;
  for (size_t k = 0; k < with.data.size(); ++k)
    moved += std::abs(double(with.data[k]) - double(zero_layer.data[k]));
  std::printf("[cbed] a 40 A c: intensity the first Laue zones move in the kinematic stack: %.2e\n",
              moved / 2);
  EXPECT_GT(moved / 2, 1e-6);
  s.kinematic = false;
  try {
    cbed_stack(tall, s);
    FAIL() << "a multislice stack with laue_zones";
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("kinematic stacks"), std::string::npos) << e.what();
  }
}

// The generator's monoclinic and triclinic cells have orthogonal supercells; their stacks exist.
TEST(CbedStack, GeneratedObliqueCellsGetStacks) {
  GeneratorOptions g;
  g.species = {8, 14};
  CrystalGenerator generator(g, 4);
  for (const int number : {1, 2, 14, 15}) {
    const Crystal c = generator.generate(number).crystal;
    const OrthogonalCell o = orthogonal_supercell(c);
    EXPECT_EQ(find_space_group(o.crystal), number) << "the supercell is the same crystal";
    const PatternStack s = cbed_stack(c, small());
    std::printf("[cbed] space group %d: zone axes %s %s %s, supercell %zu atoms\n", number,
                s.zone_axes[0].c_str(), s.zone_axes[1].c_str(), s.zone_axes[2].c_str(),
                o.crystal.atoms.size());
    if (number >= 3) {
      EXPECT_EQ(s.zone_axes[1], "[010]");  // b is unique and orthogonal
    }
  }
}

// A stack for a generated structure of every space group: three patterns, each holding the probe's
// intensity less what left the bandwidth.
TEST(CbedStack, EverySpaceGroupGetsAStack) {
  GeneratorOptions g;
  g.species = {8, 14, 26};
  CrystalGenerator generator(g, 5);
  StackOptions options = small();
  options.multislice.measure_fft = false;
  size_t largest = 0;
  for (int number = 1; number <= 230; ++number) {
    const Crystal c = generator.generate(number).crystal;
    largest = std::max(largest, orthogonal_supercell(c).crystal.atoms.size());
    const PatternStack s = cbed_stack(c, options);
    for (int axis = 0; axis < 3; ++axis) {
      double sum = 0;
      for (size_t k = 0; k < size_t(64 * 64); ++k) sum += s.data[axis * 64 * 64 + k];
      EXPECT_GT(sum, 0.5) << number << " " << s.zone_axes[axis];
      EXPECT_LE(sum, 1 + 1e-5) << number << " " << s.zone_axes[axis];
    }
  }
  std::printf("[cbed] stacks for all 230 space groups; largest orthogonal supercell %zu atoms\n",
              largest);
}

// With a detector pixel set, every axis of every material is on that angular grid.
TEST(CbedStack, ADetectorPixelPutsEveryAxisOnOneGrid) {
  StackOptions options = small();
  options.detector_mrad = 1.0;
  Crystal stretched = make_fcc(29, 3.615);
  stretched.lattice[2][2] = 3.9;
  const PatternStack s = cbed_stack(stretched, options);
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_EQ(s.pixel_mrad[axis][0], 1.0);
    EXPECT_EQ(s.pixel_mrad[axis][1], 1.0);
    double sum = 0;
    for (size_t k = 0; k < size_t(64 * 64); ++k) sum += s.data[axis * 64 * 64 + k];
    EXPECT_GT(sum, 0.5);  // a 64 mrad window holds the bright discs
    EXPECT_LE(sum, 1 + 1e-5);
  }
}

TEST(CbedStack, AMetricWithNoOrthogonalSupercellIsRefusedByName) {
  Crystal oblique;
  oblique.lattice = {Vec3{4, 0, 0}, Vec3{0, 5, 0}, Vec3{4 * (std::sqrt(2.0) - 1), 0, 6}};
  oblique.atoms = {{14, {0, 0, 0}}, {8, {0.3, 0.4, 0.5}}};
  try {
    cbed_stack(oblique, small());
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no orthogonal supercell"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cbed
