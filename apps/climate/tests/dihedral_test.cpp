// The eight orientations of a square image: all distinct, each undone by its inverse, a halo'd
// array and its interior kept aligned (what the augmented training relies on), and the named
// ones where they should be (a 90° rotation moves the top-left corner to the top-right).
#include <gtest/gtest.h>

#include <exadnn/core/error.h>

#include <set>
#include <vector>

#include "climate/dihedral.h"

namespace climate {
namespace {

// channels × size × size values, each different: c * 1000 + r * size + q.
std::vector<float> numbered(int channels, int size) {
  std::vector<float> v(static_cast<size_t>(channels * size * size));
  for (int c = 0; c < channels; ++c)
    for (int i = 0; i < size * size; ++i) v[c * size * size + i] = static_cast<float>(c * 1000 + i);
  return v;
}

std::vector<float> oriented(const std::vector<float>& in, int channels, int size, int s) {
  std::vector<float> out(in.size());
  dihedral_transform(in.data(), out.data(), channels, size, s);
  return out;
}

TEST(Dihedral, TheEightOrientationsAreDistinctAndEachIsUndone) {
  const int channels = 2, size = 5;
  const std::vector<float> image = numbered(channels, size);
  EXPECT_EQ(oriented(image, channels, size, 0), image);
  std::set<std::vector<float>> seen;
  for (int s = 0; s < kDihedralSymmetries; ++s) {
    const std::vector<float> turned = oriented(image, channels, size, s);
    seen.insert(turned);
    EXPECT_EQ(oriented(turned, channels, size, dihedral_inverse(s)), image) << "symmetry " << s;
    // Channels stay where they are: channel 1 holds only channel 1's values.
    for (int i = 0; i < size * size; ++i) EXPECT_GE(turned[size * size + i], 1000);
  }
  EXPECT_EQ(seen.size(), 8u);
}

TEST(Dihedral, ARotationMovesTheCornersAround) {
  // Symmetry 6 (transpose, then mirror the columns) is a quarter turn clockwise: the top-left
  // value goes to the top-right, the top-right to the bottom-right.
  const int size = 3;
  const std::vector<float> image = numbered(1, size);
  const std::vector<float> turned = oriented(image, 1, size, 6);
  EXPECT_EQ(turned[0 * size + 2], image[0 * size + 0]);
  EXPECT_EQ(turned[2 * size + 2], image[0 * size + 2]);
  EXPECT_EQ(turned[2 * size + 0], image[2 * size + 2]);
  EXPECT_EQ(turned[1 * size + 1], image[1 * size + 1]);  // the centre stays
}

TEST(Dihedral, AHaloedArrayAndItsInteriorStayAligned) {
  // A w × w array with a halo of H around an n × n interior, transformed whole, has as its
  // interior the interior transformed alone.
  const int n = 4, halo = 2, w = n + 2 * halo;
  const std::vector<float> wide = numbered(1, w);
  std::vector<float> interior(static_cast<size_t>(n * n));
  for (int r = 0; r < n; ++r)
    for (int q = 0; q < n; ++q) interior[r * n + q] = wide[(r + halo) * w + q + halo];
  for (int s = 0; s < kDihedralSymmetries; ++s) {
    const std::vector<float> wide_turned = oriented(wide, 1, w, s);
    const std::vector<float> interior_turned = oriented(interior, 1, n, s);
    for (int r = 0; r < n; ++r)
      for (int q = 0; q < n; ++q)
        ASSERT_EQ(wide_turned[(r + halo) * w + q + halo], interior_turned[r * n + q])
            << "symmetry " << s << " at (" << r << ", " << q << ")";
  }
}

TEST(Dihedral, RefusesASymmetryOutOfRange) {
  std::vector<float> a(4), b(4);
  EXPECT_THROW(dihedral_transform(a.data(), b.data(), 1, 2, 8), exadnn::Error);
  EXPECT_THROW(dihedral_transform(a.data(), b.data(), 1, 2, -1), exadnn::Error);
  EXPECT_THROW(dihedral_inverse(9), exadnn::Error);
}

}  // namespace
}  // namespace climate
