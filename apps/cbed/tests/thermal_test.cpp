// Thermal vibration: frozen phonons without displacements are the static lattice, conserve
// intensity, and put thermal diffuse scattering between the Bragg discs, growing with <u^2>,
// where the Debye-Waller-damped static lattice has none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "cbed/multislice.h"
#include "cbed/orthogonal_cell.h"

namespace cbed {
namespace {

// Cu [001], 8 x 8 cells on 128 x 128 pixels, 10 cells (3.6 nm), 4 mrad discs (4.6 pixels, 8
// apart). A cell spans a whole number of pixels (16): the sampled transmission function's
// harmonics beyond the grid then alias onto the crystal's own reflections; with 64 pixels over 6
// cells they land between them (a background of 1.4e-5 in all for the static lattice).
MultisliceOptions copper(double b, int configurations) {
  MultisliceOptions o;
  o.grid.nx = o.grid.ny = 128;
  o.grid.tiles_x = o.grid.tiles_y = 8;
  o.cells = 10;
  o.aperture_mrad = 4;
  o.debye_waller_b = b;
  o.frozen_phonons = configurations;
  return o;
}

const Crystal& cu() {
  static const Crystal c = along_axis(make_fcc(29, 3.615), 2);
  return c;
}

// The intensity outside every Bragg disc: a disc lies within its radius plus one pixel of a
// transverse position that the static crystal can scatter to. Along [001] fcc's translations in
// the plane, (1/2, 1/2, 0) and the cell's, allow (h, k) with h + k even (the (11) positions are
// reached through (111) and its higher-zone kin: they are not extinct in a thick crystal); h + k
// odd is exactly dark. Reflection (h, k) sits 8 (h, k) pixels from the centre.
double diffuse(const std::vector<double>& p, const Multislice& ms) {
  const double radius = 4e-3 / ms.pixel_mrad()[0] * 1e3 + 1;
  double sum = 0;
  for (int y = 0; y < 128; ++y)
    for (int x = 0; x < 128; ++x) {
      double d = 1e9;
      for (int h = -8; h <= 8; ++h)
        for (int k = -8; k <= 8; ++k)
          if ((h + k) % 2 == 0) d = std::min(d, std::hypot(x - 64 - 8 * h, y - 64 - 8 * k));
      if (d > radius) sum += p[size_t(y) * 128 + x];
    }
  return sum;
}

TEST(Thermal, FrozenPhononsWithoutDisplacementAreTheStaticLattice) {
  // The frozen-phonon path builds the whole tiled plane's potential atom by atom; the static path
  // only the cell's reciprocal lattice: two constructions of the same potential.
  const std::vector<double> a = Multislice(cu(), copper(0, 0)).pattern();
  const std::vector<double> b = Multislice(cu(), copper(0, 1)).pattern();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  EXPECT_LT(worst / *std::max_element(a.begin(), a.end()), 1e-10);
}

TEST(Thermal, FrozenPhononsConserveIntensityAndScatterBetweenTheDiscs) {
  MultisliceOptions o = copper(0.6, 4);
  o.bandwidth = 1;
  const std::vector<double> p = Multislice(cu(), o).pattern();
  EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-10);

  Multislice still(cu(), copper(0.6, 0));
  const double static_diffuse = diffuse(still.pattern(), still);
  std::printf(
      "[cbed] Cu [001] 3.6 nm, intensity between the discs: static lattice (B = 0.6) "
      "%.1e; frozen phonons (4 configurations):",
      static_diffuse);
  std::vector<double> fraction;
  for (const double b : {0.3, 0.6, 1.2}) {
    Multislice ms(cu(), copper(b, 4));
    fraction.push_back(diffuse(ms.pattern(), ms));
    std::printf(" %.2e (B = %.1f A^2)", fraction.back(), b);
  }
  std::printf("\n");
  EXPECT_LT(static_diffuse, 1e-20);
  EXPECT_GT(fraction[0], 1e-6);
  EXPECT_LT(fraction[0], fraction[1]);
  EXPECT_LT(fraction[1], fraction[2]);
}

}  // namespace
}  // namespace cbed
