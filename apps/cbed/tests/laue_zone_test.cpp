// Higher-order Laue zones in multislice. Along [001] the first-order Laue zone (FOLZ) of fcc Cu is
// the ring of (h, k, 1) reflections, h and k odd, where the Ewald sphere of radius 1/lambda cuts
// the reciprocal-lattice layer at height 1/c: in-plane radius G = sqrt(2 / (lambda c) - 1 / c^2),
// scattering angle theta = lambda G, about sqrt(2 lambda / c) = 117.8 mrad for c = 3.615 A at
// 200 kV (D. B. Williams and C. B. Carter, "Transmission Electron Microscopy", 2nd ed., 2009,
// ch. 21: HOLZ rings; J. M. Zuo and J. C. H. Spence, "Advanced Transmission Electron
// Microscopy", 2017, ch. 15). In projection along [001] the (odd, odd) components of Cu's
// potential cancel, so the zero-order zone puts no intensity at those positions: what multislice
// puts there comes from the crystal's structure along the beam, which it can resolve only with
// more than one slice per cell. The check: with 2 slices per cell the (odd, odd) discs are lit on
// a ring at the predicted angle; with 1 slice per cell they stay dark.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>
#include <exadnn/io/plot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cbed/crystal.h"
#include "cbed/electron_optics.h"
#include "cbed/kinematic_pattern.h"
#include "cbed/multislice.h"
#include "cbed/orthogonal_cell.h"

namespace cbed {
namespace {

constexpr double kCopperA = 3.615;  // Angstrom
// 8 cells per side (28.9 A) on 512 pixels: the reciprocal lattice's (even, even) sublattice
// repeats every 16 pixels, which divides 512, so the harmonics of the transmission function that
// wrap around the grid land on the sublattice again; the 2/3 bandwidth keeps 148 mrad.
constexpr int kTiles = 8;
constexpr int kPixels = 512;
constexpr double kApertureMrad = 3;

// What falls in the discs of the (odd, odd) positions: intensity per 2-mrad bin of scattering
// angle (mean over the bin's pixels), and the discs' total intensity.
struct OddOddDiscs {
  std::vector<double> mean_per_bin;
  double total = 0;
};

constexpr double kBinMrad = 2;

OddOddDiscs odd_odd_discs(const std::vector<double>& pattern, double pixel_mrad) {
  const int c = kPixels / 2;
  const double radius_px = kApertureMrad / pixel_mrad;
  std::vector<double> sum(200, 0.0), count(200, 0.0);
  OddOddDiscs out;
  for (int y = 0; y < kPixels; ++y)
    for (int x = 0; x < kPixels; ++x) {
      // The reflection (h, k) sits kTiles * (h, k) pixels from the centre; the nearest one.
      const int h = int(std::lround(double(x - c) / kTiles)),
                k = int(std::lround(double(y - c) / kTiles));
      if (h % 2 == 0 || k % 2 == 0) continue;
      const double dx = x - c - kTiles * h, dy = y - c - kTiles * k;
      if (dx * dx + dy * dy > radius_px * radius_px) continue;
      const double value = pattern[size_t(y) * kPixels + x];
      const double theta = pixel_mrad * std::hypot(double(x - c), double(y - c));
      const size_t bin = size_t(theta / kBinMrad);
      if (bin < sum.size()) sum[bin] += value, count[bin] += 1;
      out.total += value;
    }
  for (size_t b = 0; b < sum.size(); ++b)
    out.mean_per_bin.push_back(count[b] > 0 ? sum[b] / count[b] : 0.0);
  return out;
}

MultisliceOptions copper_options() {
  MultisliceOptions o;
  o.grid.nx = o.grid.ny = kPixels;
  o.grid.tiles_x = o.grid.tiles_y = kTiles;
  o.cells = 20;  // 7.2 nm
  o.aperture_mrad = kApertureMrad;
  o.measure_fft = false;
  return o;
}

// The angle in mrad where the Ewald sphere cuts the layer l = 1 of a cell c long along the beam.
double folz_mrad(double kilovolts, double c) {
  const double lambda = electron_wavelength(kilovolts);
  return 1e3 * lambda * std::sqrt(2 / (lambda * c) - 1 / (c * c));
}

// The centre of the brightest bin from 4 mrad out (the first (odd, odd) disc is at 9.8 mrad).
double brightest_mrad(const OddOddDiscs& d) {
  size_t best = 2;
  for (size_t b = best; b < d.mean_per_bin.size(); ++b)
    if (d.mean_per_bin[b] > d.mean_per_bin[best]) best = b;
  return (double(best) + 0.5) * kBinMrad;
}

TEST(LaueZones, FirstOrderRingOfCopperAlong001LiesOnTheEwaldSphere) {
  const Crystal cu = along_axis(make_fcc(29, kCopperA), 2);
  MultisliceOptions o = copper_options();
  o.grid.slices_per_cell = 2;  // the atoms at z = 0 and at z = c / 2 in separate slices
  Multislice two_slices(cu, o);
  const double pixel = two_slices.pixel_mrad()[0];
  const OddOddDiscs lit = odd_odd_discs(two_slices.pattern(), pixel);
  o.grid.slices_per_cell = 1;  // every atom in one slice: the projection approximation
  const OddOddDiscs dark = odd_odd_discs(Multislice(cu, o).pattern(), pixel);

  const double predicted = folz_mrad(o.kilovolts, kCopperA);
  // The ring stands ~2 decades above the (odd, odd) discs elsewhere, which the FOLZ lights only
  // weakly, through the dynamical coupling of the zones.
  const double found = brightest_mrad(lit);
  const size_t best = size_t(found / kBinMrad);
  std::printf(
      "[cbed] Cu [001], 200 kV, 7.2 nm, %d x %d px (%.3f mrad/px): FOLZ ring predicted at %.1f "
      "mrad, brightest (odd, odd) bin at %.1f mrad (%.2e per px, next bins %.2e / %.2e); "
      "(odd, odd) discs' intensity with 2 slices per cell %.3e, with 1 slice %.3e\n",
      kPixels, kPixels, pixel, predicted, found, lit.mean_per_bin[best], lit.mean_per_bin[best - 2],
      lit.mean_per_bin[std::min(best + 2, lit.mean_per_bin.size() - 1)], lit.total, dark.total);
  // The picture (docs: apps/cbed/README.md, "Higher-order Laue zones"), where asked for.
  if (const char* dir = std::getenv("EXADNN_CBED_FIGURES")) {
    exadnn::io::Series ring{"(odd, odd) discs, 2 slices per cell", {}, {}};
    double low = 0, high = -40;
    for (size_t b = 0; b < lit.mean_per_bin.size(); ++b) {
      if (lit.mean_per_bin[b] <= 0) continue;
      ring.x.push_back((double(b) + 0.5) * kBinMrad);
      ring.y.push_back(std::log10(lit.mean_per_bin[b]));
      low = std::min(low, ring.y.back()), high = std::max(high, ring.y.back());
    }
    const exadnn::io::Series mark{
        "sqrt(2 lambda / c): predicted FOLZ", {predicted, predicted}, {low, high}};
    exadnn::io::write_chart(std::string(dir) + "/holz_cu001_ring.png",
                            {"Cu [001], 200 kV, 7.2 nm multislice: the first-order Laue zone",
                             "scattering angle (mrad)", "log10 mean intensity per pixel"},
                            {ring, mark});
  }
  // Within a bin and a half of the Ewald-sphere radius; the ring's width is about 1 / (t G) =
  // 3 mrad at this thickness, the discs' 3 mrad on top.
  EXPECT_NEAR(found, predicted, 1.5 * kBinMrad);
  // One slice per cell has no (odd, odd) potential: those discs stay dark to round-off.
  EXPECT_LT(dark.total, 1e-9 * lit.total + 1e-20);
}

// The kinematic pattern with the first Laue zones (kinematic_pattern's laue_zones = 1): its
// ring is where the Ewald sphere says, and where multislice's is; without them the (odd, odd)
// discs are empty (F(h, k, 0) = 0 there for fcc).
TEST(LaueZones, KinematicFirstOrderRingIsWhereMultisliceFindsIt) {
  const Crystal cu = along_axis(make_fcc(29, kCopperA), 2);
  MultisliceOptions o = copper_options();
  const std::vector<double> with = kinematic_pattern(cu, o, 1);
  const double pixel = 1e3 * electron_wavelength(o.kilovolts) / (kTiles * kCopperA);
  const OddOddDiscs lit = odd_odd_discs(with, pixel);
  const std::vector<double> without = kinematic_pattern(cu, o);
  const OddOddDiscs zero_layer = odd_odd_discs(without, pixel);
  o.grid.slices_per_cell = 2;
  const double multislice = brightest_mrad(odd_odd_discs(Multislice(cu, o).pattern(), pixel));
  const double predicted = folz_mrad(o.kilovolts, kCopperA), found = brightest_mrad(lit);
  double sum = 0, sum_without = 0;
  for (const double v : with) sum += v;
  for (const double v : without) sum_without += v;
  std::printf(
      "[cbed] kinematic Cu [001] with the first Laue zones: ring at %.1f mrad (predicted %.1f, "
      "multislice %.1f); (odd, odd) discs' intensity %.3e (zero layer only: %.1e); pattern sum "
      "%.12f (zero layer only: %.12f)\n",
      found, predicted, multislice, lit.total, zero_layer.total, sum, sum_without);
  EXPECT_NEAR(found, predicted, 1.5 * kBinMrad);
  EXPECT_NEAR(found, multislice, 1.5 * kBinMrad);
  EXPECT_GT(lit.total, 0.0);
  EXPECT_LT(zero_layer.total, 1e-20 * lit.total);  // F(odd, odd, 0) = 0 to round-off
  // The central disc gives what the zones take (the sums fall short of 1 alike: the parts of
  // discs beyond the bandwidth limit are not drawn).
  EXPECT_NEAR(sum, sum_without, 1e-12);
  EXPECT_THROW(kinematic_pattern(cu, o, -1), exadnn::Error);
}

}  // namespace
}  // namespace cbed
