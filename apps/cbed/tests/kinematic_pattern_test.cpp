// Multislice tends to the kinematic pattern as the crystal thins: the weak-phase limit, which
// ties the multislice potential's absolute scale to the kinematic structure factor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "cbed/kinematic_pattern.h"
#include "cbed/orthogonal_cell.h"

namespace cbed {
namespace {

// The intensity in the disc of beam (h, k) (cell indices), summed over the disc's pixels.
double disc_intensity(const std::vector<double>& p, const MultisliceOptions& o, int h, int k,
                      int radius) {
  const int n = o.grid.nx;
  const int cx = n / 2 + h * o.grid.tiles_x, cy = n / 2 + k * o.grid.tiles_y;
  double sum = 0;
  for (int y = cy - radius; y <= cy + radius; ++y)
    for (int x = cx - radius; x <= cx + radius; ++x) sum += p[size_t(y) * n + x];
  return sum;
}

TEST(KinematicPattern, MultisliceTendsToItAsTheCrystalThins) {
  // Al [001], 6 x 6 cells on 64 x 64 pixels, 3 mrad (discs of 2.6 pixels, 12 pixels apart).
  const Crystal al = along_axis(make_fcc(13, 4.05), 2);
  MultisliceOptions o;
  o.grid.nx = o.grid.ny = 64;
  o.grid.tiles_x = o.grid.tiles_y = 6;
  o.grid.slices_per_cell = 2;
  o.aperture_mrad = 3;
  std::vector<double> deviation;
  std::printf("[cbed] Al [001] (200) disc, multislice / kinematic:");
  for (const int cells : {1, 2, 4, 8}) {
    o.cells = cells;
    const double kin = disc_intensity(kinematic_pattern(al, o), o, 2, 0, 4);
    const double dyn = disc_intensity(Multislice(al, o).pattern(), o, 2, 0, 4);
    std::printf(" %.4f (%d cells, %.3f nm)", dyn / kin, cells, cells * 0.405);
    deviation.push_back(std::abs(dyn / kin - 1));
  }
  std::printf("\n");
  // Dynamical scattering grows with thickness; at one cell the beam is weak (I = 1e-4) and the
  // neglected terms are of the order of the phase sigma v (a few hundredths).
  for (size_t i = 1; i < deviation.size(); ++i) EXPECT_GT(deviation[i], deviation[i - 1]);
  EXPECT_LT(deviation[0], 0.05);
}

TEST(KinematicPattern, TheCentralDiscKeepsTheRestAndTheSumIsOne) {
  const Crystal cu = along_axis(make_fcc(29, 3.615), 2);
  MultisliceOptions o;
  o.grid.tiles_x = o.grid.tiles_y = 6;
  o.cells = 3;
  o.aperture_mrad = 2;  // discs of 1.7 pixels, 6 pixels apart
  const std::vector<double> p = kinematic_pattern(cu, o);
  double sum = 0;
  for (const double v : p) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  // (100) is extinct in fcc: its disc is dark.
  EXPECT_LT(disc_intensity(p, o, 1, 0, 2), 1e-20);
  EXPECT_GT(disc_intensity(p, o, 2, 0, 2), 1e-4);
}

}  // namespace
}  // namespace cbed
