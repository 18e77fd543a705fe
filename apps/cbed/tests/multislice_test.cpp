// Multislice CBED: intensity is conserved, a pattern along a 4-fold axis has that symmetry (and a
// crystal with only a 2-fold does not), and the pattern converges as the slice thickness halves.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "cbed/crystal_generator.h"
#include "cbed/multislice.h"
#include "cbed/orthogonal_cell.h"

namespace cbed {
namespace {

// Cu along [001]: 6 x 6 cells (21.7 A) on 64 x 64 pixels, 20 cells (7.2 nm) thick, 200 kV, a
// 5 mrad probe (discs of 4.3 pixels, apart by 12 pixels at (200)).
MultisliceOptions copper_options() {
  MultisliceOptions o;
  o.grid.nx = o.grid.ny = 64;
  o.grid.tiles_x = o.grid.tiles_y = 6;
  o.grid.slices_per_cell = 2;
  o.cells = 20;
  o.aperture_mrad = 5;
  return o;
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

// max |I - I rotated| / max I, the pattern rotated about its zero-frequency pixel (n/2, n/2) by
// quarter turns (1: 90 degrees, 2: 180 degrees).
double rotation_asymmetry(const std::vector<double>& p, int n, int quarter_turns) {
  double worst = 0;
  const double peak = *std::max_element(p.begin(), p.end());
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      int u = x - n / 2, v = y - n / 2;
      for (int q = 0; q < quarter_turns; ++q) std::swap(u, v), u = -u;  // (u, v) -> (-v, u)
      const int rx = ((u + n / 2) % n + n) % n, ry = ((v + n / 2) % n + n) % n;
      worst = std::max(worst, std::abs(p[size_t(y) * n + x] - p[size_t(ry) * n + rx]));
    }
  return worst / peak;
}

TEST(Multislice, IntensityIsConservedWithoutTheBandwidthLimit) {
  const Crystal cu = along_axis(make_fcc(29, 3.615), 2);
  MultisliceOptions o = copper_options();
  o.bandwidth = 1;
  Multislice ms(cu, o);
  const double vacuum = sum(ms.vacuum_pattern());
  const double crystal = sum(ms.pattern());
  o.bandwidth = 2.0 / 3;
  const double limited = sum(Multislice(cu, o).pattern());
  std::printf(
      "[cbed] Cu [001] 7.2 nm, 64x64: pattern sums: vacuum 1 %+.2e, crystal 1 %+.2e; "
      "with the 2/3 bandwidth limit %.6f\n",
      vacuum - 1, crystal - 1, limited);
  EXPECT_NEAR(vacuum, 1.0, 1e-10);
  EXPECT_NEAR(crystal, 1.0, 1e-10);
}

TEST(Multislice, AFourFoldAxisGivesAFourFoldPattern) {
  // Cu [001]: the 4-fold rotation axis through an atom column at the probe position.
  MultisliceOptions o = copper_options();
  const std::vector<double> cu = Multislice(along_axis(make_fcc(29, 3.615), 2), o).pattern();
  const double cu90 = rotation_asymmetry(cu, 64, 1);
  // The control: one face-centring Cu replaced by Au leaves a 2-fold axis along [001] only.
  Crystal broken = make_fcc(29, 3.615);
  broken.atoms[2].z = 79;  // the atom at (1/2, 0, 1/2)
  const std::vector<double> au = Multislice(along_axis(broken, 2), o).pattern();
  const double au90 = rotation_asymmetry(au, 64, 1), au180 = rotation_asymmetry(au, 64, 2);
  std::printf(
      "[cbed] 90-degree asymmetry (max |I - R I| / max I): Cu [001] %.1e; with one Au: "
      "%.1e (180 degrees: %.1e)\n",
      cu90, au90, au180);
  EXPECT_LT(cu90, 1e-9);
  EXPECT_LT(au180, 1e-9);
  EXPECT_GT(au90, 1e-3);
}

TEST(Multislice, ConvergesAsTheSliceThicknessHalves) {
  // A generated orthorhombic structure (Pnma, general positions: atoms at many heights) along c;
  // the pattern for 1, 2, 4, ... 32 slices per cell, compared with the next finer one by the
  // intensity that moved (half the L1 distance of the patterns).
  GeneratorOptions g;
  g.species = {8, 14, 29};
  g.special_fraction = 0;
  g.min_orbits = g.max_orbits = 2;
  const Crystal c = along_axis(CrystalGenerator(g, 3).generate(62).crystal, 2);
  MultisliceOptions o;
  o.grid.nx = o.grid.ny = 64;
  o.grid.tiles_x = std::max(1, int(std::lround(20 / c.lattice[0][0])));
  o.grid.tiles_y = std::max(1, int(std::lround(20 / c.lattice[1][1])));
  o.cells = std::max(1, int(std::lround(60 / c.lattice[2][2])));
  o.aperture_mrad = 4;
  std::vector<double> previous, moved;
  for (int slices = 1; slices <= 32; slices *= 2) {
    o.grid.slices_per_cell = slices;
    const std::vector<double> p = Multislice(c, o).pattern();
    if (!previous.empty()) {
      double l1 = 0;
      for (size_t i = 0; i < p.size(); ++i) l1 += std::abs(p[i] - previous[i]);
      moved.push_back(l1 / 2);
    }
    previous = p;
  }
  std::printf(
      "[cbed] Pnma %.2f x %.2f x %.2f A, %d atoms, %d cells thick: intensity moved by "
      "halving the slices from 1, 2, 4, 8, 16 per cell:",
      c.lattice[0][0], c.lattice[1][1], c.lattice[2][2], int(c.atoms.size()), o.cells);
  for (const double m : moved) std::printf(" %.2e", m);
  std::printf("\n");
  for (size_t i = 1; i < moved.size(); ++i) EXPECT_LT(moved[i], moved[i - 1]) << i;
}

TEST(Multislice, BadInputIsRefusedByName) {
  Crystal oblique;
  // b leans by an irrational fraction of a: no orthogonal supercell exists.
  oblique.lattice = {Vec3{4, 0, 0}, Vec3{4 * (std::sqrt(2.0) - 1), 4, 0}, Vec3{0, 0, 4}};
  oblique.atoms = {{14, {0, 0, 0}}};
  try {
    along_axis(oblique, 2);
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("orthogonal"), std::string::npos) << e.what();
  }
  try {
    orthogonal_setting(oblique);
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no orthogonal supercell"), std::string::npos) << e.what();
  }
  MultisliceOptions o = copper_options();
  o.bandwidth = 1.5;
  EXPECT_THROW(Multislice(along_axis(make_fcc(29, 3.615), 2), o), exadnn::Error);
  o = copper_options();
  o.aperture_mrad = 0.1;  // below one detector pixel (1.2 mrad): only the central beam passes
  EXPECT_NO_THROW(Multislice(along_axis(make_fcc(29, 3.615), 2), o));
}

}  // namespace
}  // namespace cbed
