// Patterns along the 6-fold axis of P6/mmm AlB2 and the 3-fold axis of P-3m1 CdI2 (orthohexagonal
// cells on a rectangular grid), with plane-wave illumination so that every diffracted beam falls
// on a pixel: beams related by the axis have equal intensities, to within the sampling error of
// a rectangular grid, which shrinks as the grid is refined; a crystal with the axis broken is far
// from it. (CdI2 is not 6-fold in 3-D, but its thin-crystal zero-layer pattern nearly is: that
// figure is printed, not asserted.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cbed/multislice.h"
#include "cbed/orthogonal_cell.h"
#include "cbed/space_group.h"

namespace cbed {
namespace {

Crystal hexagonal(double a, double c, std::initializer_list<Atom> atoms) {
  Crystal x;
  x.lattice = {Vec3{a, 0, 0}, Vec3{-a / 2, a * std::sqrt(3.0) / 2, 0}, Vec3{0, 0, c}};
  x.atoms = atoms;
  return x;
}

// AlB2 (a = 3.009, c = 3.262 A): Al at the origin on the 6-fold axis, B in the graphite-like layer.
Crystal alb2() {
  return hexagonal(3.009, 3.262,
                   {{13, {0, 0, 0}}, {5, {1 / 3., 2 / 3., 0.5}}, {5, {2 / 3., 1 / 3., 0.5}}});
}
// CdI2 (a = 4.24, c = 6.84 A, I at z = +-1/4): Cd on a -3 axis.
Crystal cdi2() {
  return hexagonal(4.24, 6.84,
                   {{48, {0, 0, 0}}, {53, {1 / 3., 2 / 3., 0.25}}, {53, {2 / 3., 1 / 3., 0.75}}});
}

// The largest intensity difference between beams related by a rotation of `degrees` about the
// beam, relative to the strongest diffracted beam, for a plane wave through `cells` cells on an
// n x n grid of 7 x 4 orthohexagonal cells (about 21 x 21 A).
double beam_asymmetry(const Crystal& hex, int n, double degrees, int cells) {
  const Crystal c = along_axis(orthogonal_setting(hex), 2);
  MultisliceOptions o;
  o.grid.nx = o.grid.ny = n;
  o.grid.tiles_x = 7;
  o.grid.tiles_y = 4;
  o.grid.slices_per_cell = 4;
  o.cells = cells;
  o.aperture_mrad = 0.1;  // below one pixel: a plane wave
  Multislice ms(c, o);
  const std::vector<double> p = ms.pattern();
  const double ax = c.lattice[0][0], by = c.lattice[1][1];
  auto pixel = [&](int h, int k) { return size_t(n / 2 + k * 4) * n + (n / 2 + h * 7); };
  auto on_grid = [&](int h, int k) { return std::abs(h * 7) < n / 2 && std::abs(k * 4) < n / 2; };
  const double t = degrees * M_PI / 180;
  double worst = 0, strongest = 0;
  for (int h = -5; h <= 5; ++h)
    for (int k = -5; k <= 5; ++k) {
      if ((h + k) % 2 != 0 || (h == 0 && k == 0) || !on_grid(h, k)) continue;  // C-centring
      const double gx = h / ax, gy = k / by;
      const double rx = std::cos(t) * gx - std::sin(t) * gy,
                   ry = std::sin(t) * gx + std::cos(t) * gy;
      const int rh = int(std::lround(rx * ax)), rk = int(std::lround(ry * by));
      if (!on_grid(rh, rk)) continue;
      strongest = std::max(strongest, p[pixel(h, k)]);
      worst = std::max(worst, std::abs(p[pixel(h, k)] - p[pixel(rh, rk)]));
    }
  return worst / strongest;
}

TEST(HexagonalSymmetry, TheTestCrystalsHaveTheirSpaceGroups) {
  EXPECT_EQ(find_space_group(alb2()), 191);  // P6/mmm
  EXPECT_EQ(find_space_group(cdi2()), 164);  // P-3m1
  // The orthohexagonal cell describes the same crystal.
  EXPECT_EQ(find_space_group(orthogonal_setting(alb2())), 191);
  EXPECT_EQ(find_space_group(orthogonal_setting(cdi2())), 164);
}

TEST(HexagonalSymmetry, SixFoldAndThreeFoldAxesGiveTheirSymmetry) {
  const double six64 = beam_asymmetry(alb2(), 64, 60, 20);
  const double six128 = beam_asymmetry(alb2(), 128, 60, 20);
  const double three64 = beam_asymmetry(cdi2(), 64, 120, 10);
  const double three128 = beam_asymmetry(cdi2(), 128, 120, 10);
  const double cdi2_60 = beam_asymmetry(cdi2(), 128, 60, 10);
  // The control: one I moved off its 3-fold position breaks the axis.
  Crystal broken = cdi2();
  broken.atoms[1].frac[0] += 0.03;
  const double broken120 = beam_asymmetry(broken, 128, 120, 10);
  std::printf(
      "[cbed] beam asymmetry / strongest beam: AlB2 [001] 60 deg %.1e (64^2), %.1e "
      "(128^2); CdI2 [001] 120 deg %.1e (64^2), %.1e (128^2), 60 deg %.1e (128^2); one I "
      "moved: 120 deg %.1e (128^2)\n",
      six64, six128, three64, three128, cdi2_60, broken120);
  EXPECT_LT(six128, six64);
  EXPECT_LT(three128, three64);
  EXPECT_GT(broken120, 10 * three128);
}

}  // namespace
}  // namespace cbed
