// The reciprocal-space projected potential against Kirkland's closed form in real space, the
// Debye-Waller damping of its Fourier coefficients, and zone-axis turning.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <exadnn/core/error.h>

#include "cbed/orthogonal_cell.h"
#include "cbed/projected_potential.h"

namespace cbed {
namespace {

// One Si atom at the corner of a 12 A square cell, its potential on an n x n grid compared with
// the closed form summed over the atom's nearest images, at 0.5..4 A from the atom. Returns the
// largest difference relative to v(0.5 A).
double isolated_atom_error(int n) {
  Crystal cell;
  const double l = 12;
  cell.lattice = {Vec3{l, 0, 0}, Vec3{0, l, 0}, Vec3{0, 0, 3}};
  cell.atoms = {{14, {0, 0, 0}}};
  SliceGrid grid;
  grid.nx = grid.ny = n;
  grid.slices_per_cell = 1;
  Fft2d fft(n, n, false);
  const std::vector<double> v =
      projected_potentials(cell, grid, fft, 0, ScatteringModel::kirkland)[0];
  double worst = 0;
  for (int ix = 1; ix < n / 2; ++ix) {
    const double x = ix * l / n;
    if (x < 0.5 || x > 4) continue;
    double expected = 0;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 2; ++j)
        expected += kirkland_projected_potential(14, std::hypot(x - i * l, j * l));
    worst = std::max(worst, std::abs(v[ix] - expected));
  }
  return worst / kirkland_projected_potential(14, 0.5);
}

TEST(ProjectedPotential, MatchesKirklandsClosedFormAndConvergesWithTheGrid) {
  const double e64 = isolated_atom_error(64), e128 = isolated_atom_error(128);
  const double e256 = isolated_atom_error(256);
  std::printf(
      "[cbed] Si projected potential vs Kirkland's closed form (0.5..4 A): largest "
      "difference / v(0.5 A) = %.2e, %.2e, %.2e on 64, 128, 256 pixels per 12 A\n",
      e64, e128, e256);
  EXPECT_LT(e128, e64);
  EXPECT_LT(e256, e128);
  EXPECT_LT(e256, 1e-2);
}

// Thermal smearing: B damps every Fourier coefficient of the potential by exp(-B q^2 / 4).
TEST(ProjectedPotential, DebyeWallerDampsTheFourierCoefficients) {
  const Crystal cu = along_axis(make_fcc(29, 3.615), 2);
  SliceGrid grid;
  grid.nx = grid.ny = 32;
  grid.tiles_x = grid.tiles_y = 2;
  Fft2d fft(32, 32, false);
  auto spectrum = [&](double b) {
    const std::vector<double> v = projected_potentials(cu, grid, fft, b)[0];
    for (int i = 0; i < 32 * 32; ++i) fft.data()[i] = v[i];
    fft.forward();
    return std::vector<std::complex<double>>(fft.data(), fft.data() + 32 * 32);
  };
  const auto cold = spectrum(0), warm = spectrum(0.8);
  int checked = 0;
  for (int iy = 0; iy < 32; iy += 2)
    for (int ix = 0; ix < 32; ix += 2) {
      const size_t i = size_t(iy) * 32 + ix;
      if (std::abs(cold[i]) < 1e-6 * std::abs(cold[0])) continue;  // extinct in projection
      const double qx = frequency(ix, 32, 2 * 3.615), qy = frequency(iy, 32, 2 * 3.615);
      EXPECT_NEAR(std::abs(warm[i]) / std::abs(cold[i]), std::exp(-0.8 * (qx * qx + qy * qy) / 4),
                  1e-10);
      ++checked;
    }
  EXPECT_GT(checked, 10);
}

TEST(ProjectedPotential, AlongAxisTurnsTheCellCyclically) {
  Crystal c;
  c.lattice = {Vec3{3, 0, 0}, Vec3{0, 4, 0}, Vec3{0, 0, 5}};
  c.atoms = {{8, {0.1, 0.2, 0.3}}};
  const Crystal along_a = along_axis(c, 0);  // x = b, y = c, z = a
  EXPECT_EQ(along_a.lattice[0][0], 4);
  EXPECT_EQ(along_a.lattice[1][1], 5);
  EXPECT_EQ(along_a.lattice[2][2], 3);
  EXPECT_EQ(along_a.atoms[0].frac, (Vec3{0.2, 0.3, 0.1}));
  EXPECT_GT(along_a.volume(), 0);  // still right-handed
  EXPECT_EQ(along_axis(c, 1).atoms[0].frac, (Vec3{0.3, 0.1, 0.2}));
  EXPECT_THROW(along_axis(c, 3), exadnn::Error);
}

}  // namespace
}  // namespace cbed
