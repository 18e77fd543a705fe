// Kinematic structure factors obey the extinction rules of the textbook structures and of the
// centred and diamond-glide space groups for any generated structure, and Friedel's law.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "cbed/crystal_generator.h"
#include "cbed/kinematic.h"

namespace cbed {
namespace {

// Every reflection with indices in [-n, n]^3 except 000.
void for_each_hkl(int n, const std::function<void(const Hkl&)>& f) {
  for (int h = -n; h <= n; ++h)
    for (int k = -n; k <= n; ++k)
      for (int l = -n; l <= n; ++l)
        if (h || k || l) f({h, k, l});
}

// Reflections the rule calls extinct have |F| below 1e-12 of the atoms' summed scattering; the
// others have at least a tenth of it (they are sums of equal phases).
void expect_rule(const Crystal& c, const std::function<bool(const Hkl&)>& extinct, int n) {
  int absent = 0, present = 0;
  for_each_hkl(n, [&](const Hkl& hkl) {
    const double scale =
        c.atoms.size() * electron_scattering_factor(c.atoms[0].z, reciprocal_length(c, hkl));
    const double f = std::abs(structure_factor(c, hkl));
    if (extinct(hkl)) {
      EXPECT_LT(f, 1e-12 * scale) << hkl[0] << hkl[1] << hkl[2];
      ++absent;
    } else {
      EXPECT_GT(f, 0.1 * scale) << hkl[0] << hkl[1] << hkl[2];
      ++present;
    }
  });
  EXPECT_GT(absent, 0);
  EXPECT_GT(present, 0);
}

bool odd(int v) {
  return v % 2 != 0;
}

TEST(Kinematic, BccExtinguishesOddIndexSums) {
  expect_rule(
      make_bcc(26, 2.87), [](const Hkl& g) { return odd(g[0] + g[1] + g[2]); }, 5);
}

TEST(Kinematic, FccExtinguishesMixedParity) {
  expect_rule(
      make_fcc(29, 3.61), [](const Hkl& g) { return odd(g[0] + g[1]) || odd(g[1] + g[2]); }, 5);
}

TEST(Kinematic, DiamondAlsoExtinguishesIndexSumsOfTwoModFour) {
  expect_rule(
      make_diamond(14, 5.431),
      [](const Hkl& g) {
        const bool mixed = odd(g[0] + g[1]) || odd(g[1] + g[2]);
        const bool all_even = !odd(g[0]) && !odd(g[1]) && !odd(g[2]);
        return mixed || (all_even && ((g[0] + g[1] + g[2]) % 4 + 4) % 4 == 2);
      },
      6);
}

// For any structure of a centred group the centring's condition holds (I: h+k+l even), and for
// Fd-3m's general position the d-glide's 0kl: k+l = 4n and the 4_1 screw's h00: h = 4n — for
// random structures, so the generator's operations and the structure factor are checked together.
TEST(Kinematic, GeneratedStructuresObeyTheirGroupsReflectionConditions) {
  GeneratorOptions options;
  options.species = {14, 29};
  options.special_fraction = 0;
  CrystalGenerator generator(options, 11);
  for (int i = 0; i < 3; ++i) {
    const Crystal body = generator.generate(229).crystal;  // Im-3m
    for_each_hkl(4, [&](const Hkl& g) {
      if (odd(g[0] + g[1] + g[2])) {
        EXPECT_LT(std::abs(structure_factor(body, g)), 1e-9);
      }
    });
    const Crystal d = generator.generate(227).crystal;  // Fd-3m
    for_each_hkl(8, [&](const Hkl& g) {
      const double f = std::abs(structure_factor(d, g));
      const bool centring = odd(g[0] + g[1]) || odd(g[1] + g[2]);
      const bool glide = g[0] == 0 && ((g[1] + g[2]) % 4 + 4) % 4 != 0;
      const bool screw = g[1] == 0 && g[2] == 0 && g[0] % 4 != 0;
      if (centring || glide || screw) {
        EXPECT_LT(f, 1e-9) << g[0] << g[1] << g[2];
      }
    });
    // Not every reflection: (4 0 0) and (2 2 0) are allowed and present.
    EXPECT_GT(std::abs(structure_factor(d, {4, 0, 0})) + std::abs(structure_factor(d, {2, 2, 0})),
              1e-3);
  }
}

// Friedel: |F(g)| = |F(-g)| (F(-g) = F(g)* for real scattering factors), also without a centre of
// symmetry (P1) and with thermal damping.
TEST(Kinematic, FriedelsLawHoldsForANoncentrosymmetricCrystal) {
  GeneratorOptions options;
  options.species = {8, 14, 79};
  options.min_orbits = 3;
  CrystalGenerator generator(options, 5);
  const Crystal c = generator.generate(1).crystal;
  int asymmetric = 0;
  for_each_hkl(4, [&](const Hkl& g) {
    const auto f = structure_factor(c, g, 0.5);
    const auto fbar = structure_factor(c, {-g[0], -g[1], -g[2]}, 0.5);
    EXPECT_NEAR(std::abs(f), std::abs(fbar), 1e-12 * (1 + std::abs(f)));
    // No centre of symmetry: the phases are not all 0 or pi.
    asymmetric += std::abs(std::sin(std::arg(f))) > 1e-3;
  });
  EXPECT_GT(asymmetric, 0);
}

// The Debye-Waller factor damps F(g) by exp(-B g^2 / 4).
TEST(Kinematic, DebyeWallerDampsByItsFactor) {
  const Crystal c = make_fcc(29, 3.61);
  const Hkl g{2, 2, 0};
  const double s = reciprocal_length(c, g);
  EXPECT_NEAR(std::abs(structure_factor(c, g, 0.6)) / std::abs(structure_factor(c, g)),
              std::exp(-0.6 * s * s / 4), 1e-14);
}

}  // namespace
}  // namespace cbed
