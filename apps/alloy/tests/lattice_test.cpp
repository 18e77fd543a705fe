// Lattices: shells and coordinations from the geometry, symmetric neighbour lists, the sublattices,
// and a lattice too small for its shells refused with the size that fits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "alloy/lattice.h"

namespace alloy {
namespace {

TEST(Lattice, BccShellsAreTheKnownDistancesAndCoordinations) {
  const Lattice bcc(Structure::bcc, 5, 6);
  EXPECT_EQ(bcc.sites(), 250);
  const int z[] = {8, 6, 12, 24, 8, 6};
  const double d[] = {std::sqrt(3.0) / 2, 1.0, std::sqrt(2.0), std::sqrt(11.0) / 2,
                      std::sqrt(3.0),     2.0};
  for (int s = 0; s < 6; ++s) {
    EXPECT_EQ(bcc.shell(s).coordination, z[s]) << "shell " << s + 1;
    EXPECT_NEAR(bcc.shell(s).distance, d[s], 1e-12) << "shell " << s + 1;
  }
}

TEST(Lattice, FccShellsAreTheKnownDistancesAndCoordinations) {
  const Lattice fcc(Structure::fcc, 4, 6);
  EXPECT_EQ(fcc.sites(), 256);
  const int z[] = {12, 6, 24, 12, 24, 8};
  const double d[] = {std::sqrt(0.5), 1.0,           std::sqrt(1.5), std::sqrt(2.0),
                      std::sqrt(2.5), std::sqrt(3.0)};
  for (int s = 0; s < 6; ++s) {
    EXPECT_EQ(fcc.shell(s).coordination, z[s]) << "shell " << s + 1;
    EXPECT_NEAR(fcc.shell(s).distance, d[s], 1e-12) << "shell " << s + 1;
  }
}

TEST(Lattice, NeighbourListsAreSymmetricAndAtTheShellsDistance) {
  for (const Structure st : {Structure::bcc, Structure::fcc}) {
    const Lattice lattice(st, 5, 6);
    for (int s = 0; s < lattice.shells(); ++s)
      for (int64_t i = 0; i < lattice.sites(); ++i)
        for (const int32_t j : lattice.neighbours(s, i)) {
          const auto back = lattice.neighbours(s, j);
          ASSERT_NE(std::find(back.begin(), back.end(), i), back.end())
              << structure_name(st) << " shell " << s + 1 << " sites " << i << ", " << j;
          // Minimum-image distance equals the shell's.
          const auto p = lattice.position(i), q = lattice.position(j);
          double d2 = 0;
          for (int k = 0; k < 3; ++k) {
            double dx = std::fmod(std::abs(p[k] - q[k]), 5.0);
            dx = std::min(dx, 5.0 - dx);
            d2 += dx * dx;
          }
          ASSERT_NEAR(std::sqrt(d2), lattice.shell(s).distance, 1e-9);
        }
  }
}

TEST(Lattice, BccNearestNeighboursAreOnTheOtherSublattice) {
  const Lattice bcc(Structure::bcc, 3, 2);
  for (int64_t i = 0; i < bcc.sites(); ++i) {
    for (const int32_t j : bcc.neighbours(0, i)) EXPECT_NE(bcc.sublattice(i), bcc.sublattice(j));
    for (const int32_t j : bcc.neighbours(1, i)) EXPECT_EQ(bcc.sublattice(i), bcc.sublattice(j));
  }
}

TEST(Lattice, TooSmallForItsShellsIsRefusedWithTheSizeThatFits) {
  try {
    Lattice(Structure::bcc, 4, 6);  // the 6th shell (2a) meets its image across 4 cells
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("too small for 6 neighbour shells"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("at least 5 cells"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(Lattice(Structure::bcc, 2, 1));
  EXPECT_THROW(Lattice(Structure::bcc, 3, 7), std::invalid_argument);
  EXPECT_THROW(parse_structure("hcp"), std::invalid_argument);
}

}  // namespace
}  // namespace alloy
