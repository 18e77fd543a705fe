// Random crystals for space groups of all 7 crystal systems: every structure the generator returns
// has the space group it was made for by spglib's own finder, orbit sizes that divide the group's
// order, and a lattice that obeys its crystal system; the rejection rate is printed.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "cbed/crystal_generator.h"

namespace cbed {
namespace {

// A sample of space groups: every crystal system, P/I/F/C/A/R centrings, screws and glides,
// both enantiomorphs of a pair (P4_1 / P4_3), and the groups with two origin choices (227).
const int kSample[] = {1,   2,   3,   4,   5,   9,   14,  15,  16,  19,  29,  33,  43,  62,
                       63,  70,  74,  75,  76,  78,  88,  122, 139, 141, 142, 143, 144, 146,
                       148, 155, 160, 161, 166, 167, 168, 169, 173, 176, 186, 191, 194, 195,
                       198, 204, 206, 212, 216, 220, 221, 225, 227, 229, 230};

// The lattice obeys the system's constraints in the setting used (b-unique monoclinic,
// hexagonal axes for trigonal): equal edges and fixed angles to 1e-9.
void expect_metric(const GeneratedCrystal& g) {
  const CellParameters p = cell_parameters(g.crystal);
  const double tol = 1e-9;
  switch (g.system) {
    case CrystalSystem::triclinic:
      break;
    case CrystalSystem::monoclinic:
      EXPECT_NEAR(p.alpha, 90, tol);
      EXPECT_NEAR(p.gamma, 90, tol);
      break;
    case CrystalSystem::cubic:
      EXPECT_NEAR(p.a, p.c, tol);
      [[fallthrough]];
    case CrystalSystem::tetragonal:
      EXPECT_NEAR(p.a, p.b, tol);
      [[fallthrough]];
    case CrystalSystem::orthorhombic:
      EXPECT_NEAR(p.alpha, 90, tol);
      EXPECT_NEAR(p.beta, 90, tol);
      EXPECT_NEAR(p.gamma, 90, tol);
      break;
    case CrystalSystem::trigonal:
    case CrystalSystem::hexagonal:
      EXPECT_NEAR(p.a, p.b, tol);
      EXPECT_NEAR(p.alpha, 90, tol);
      EXPECT_NEAR(p.gamma, 120, tol);
      break;
  }
}

TEST(CrystalGenerator, StructuresOfAllSevenSystemsRoundTripThroughSpglib) {
  GeneratorOptions options;
  options.species = {8, 14, 26};
  CrystalGenerator generator(options, 2026);
  std::map<CrystalSystem, int> per_system;
  int special = 0, total_orbits = 0;
  for (const int number : kSample) {
    const SpaceGroup group = space_group(number);
    for (int i = 0; i < 4; ++i) {
      const GeneratedCrystal g = generator.generate(number);
      ASSERT_EQ(g.space_group, number);
      // The library's own check, repeated here through the public finder.
      EXPECT_EQ(find_space_group(g.crystal), number) << group.symbol;
      EXPECT_EQ(g.system, crystal_system(number));
      EXPECT_GE(g.crystal.min_distance(), options.min_distance);
      size_t atoms = 0;
      for (const int size : g.orbit_sizes) {
        EXPECT_EQ(group.operations.size() % size, 0u) << group.symbol << " orbit of " << size;
        special += size < int(group.operations.size());
        ++total_orbits;
        atoms += size;
      }
      EXPECT_EQ(atoms, g.crystal.atoms.size());
      expect_metric(g);
      ++per_system[g.system];
    }
  }
  EXPECT_EQ(per_system.size(), 7u);
  const GeneratorStats& s = generator.stats();
  std::printf(
      "[cbed] %zu space groups x 4 structures: %ld attempts, %ld accepted, rejected %ld for "
      "distance and %ld for symmetry (rejection rate %.1f %%); %d of %d orbits on special "
      "positions\n",
      std::size(kSample), s.attempts, s.accepted, s.rejected_distance, s.rejected_symmetry,
      100 * s.rejection_rate(), special, total_orbits);
  EXPECT_GT(special, 0);
}

// Every one of the 230 space groups gives a structure that spglib confirms, within the attempts.
TEST(CrystalGenerator, EverySpaceGroupGivesAStructure) {
  GeneratorOptions options;
  options.species = {8, 14, 26};
  CrystalGenerator generator(options, 1);
  size_t largest = 0;
  for (int number = 1; number <= 230; ++number) {
    const GeneratedCrystal g = generator.generate(number);
    EXPECT_EQ(find_space_group(g.crystal), number);
    largest = std::max(largest, g.crystal.atoms.size());
  }
  const GeneratorStats& s = generator.stats();
  std::printf(
      "[cbed] all 230 space groups, one structure each: %ld attempts, rejected %ld for "
      "distance and %ld for symmetry (rejection rate %.1f %%); largest cell %zu atoms\n",
      s.attempts, s.rejected_distance, s.rejected_symmetry, 100 * s.rejection_rate(), largest);
}

TEST(CrystalGenerator, SpecialPositionsHaveSmallerOrbits) {
  // Fm-3m (225) has 192 operations; a special point's orbit is a proper divisor of it.
  GeneratorOptions options;
  options.special_fraction = 1.0;
  options.min_orbits = options.max_orbits = 1;
  CrystalGenerator generator(options, 7);
  for (int i = 0; i < 10; ++i) {
    const GeneratedCrystal g = generator.generate(225);
    EXPECT_LT(g.orbit_sizes[0], 192);
  }
}

TEST(CrystalGenerator, UnknownSpaceGroupNumbersAreNamed) {
  CrystalGenerator generator;
  for (const int bad : {0, 231, -5}) {
    try {
      generator.generate(bad);
      FAIL() << "space group " << bad << " was accepted";
    } catch (const exadnn::Error& e) {
      EXPECT_NE(std::string(e.what()).find("space group " + std::to_string(bad) + " is not"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(space_group(231), exadnn::Error);
  EXPECT_THROW(crystal_system(0), exadnn::Error);
}

TEST(SpaceGroup, OperationCountsAndSymbolsMatchTheTables) {
  // The order of the group of the conventional cell (International Tables).
  const std::map<int, std::pair<int, const char*>> known = {
      {1, {1, "P1"}},        {2, {2, "P-1"}},     {14, {4, "P2_1/c"}},     {62, {8, "Pnma"}},
      {139, {32, "I4/mmm"}}, {166, {36, "R-3m"}}, {194, {24, "P6_3/mmc"}}, {225, {192, "Fm-3m"}},
      {227, {192, "Fd-3m"}}, {230, {96, "Ia-3d"}}};
  for (const auto& [number, expected] : known) {
    const SpaceGroup g = space_group(number);
    EXPECT_EQ(int(g.operations.size()), expected.first) << number;
    EXPECT_EQ(g.symbol, expected.second) << number;
  }
}

TEST(SpaceGroup, TheFinderNamesTheTextbookStructures) {
  EXPECT_EQ(find_space_group(make_bcc(26, 2.87)), 229);       // Im-3m
  EXPECT_EQ(find_space_group(make_fcc(29, 3.61)), 225);       // Fm-3m
  EXPECT_EQ(find_space_group(make_diamond(14, 5.431)), 227);  // Fd-3m
}

}  // namespace
}  // namespace cbed
