// A PNG read back as 8-bit RGB pixels (libpng's simplified API), for the tests of what exadnn
// draws: charts, pages, the confusion matrix.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace exadnn::testing {

using Rgb = std::array<unsigned char, 3>;

struct RgbImage {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  ///< [height][width][3]

  Rgb at(int x, int y) const;
  /// Pixels of exactly colour c (in row y).
  int count(Rgb c) const;
  int count_in_row(int y, Rgb c) const;
  /// Pixels within `tolerance` of (r, g, b) in every channel.
  int count_near(double r, double g, double b, double tolerance) const;
};

/// The PNG at `path`; an empty image (0 x 0) with a test failure naming the file and libpng's
/// message when it cannot be read.
RgbImage read_png_rgb(const std::string& path);

}  // namespace exadnn::testing
