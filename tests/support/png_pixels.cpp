#include "png_pixels.h"

#include <gtest/gtest.h>
#include <png.h>

#include <cmath>
#include <cstring>

namespace exadnn::testing {

Rgb RgbImage::at(int x, int y) const {
  const size_t i = 3 * (static_cast<size_t>(y) * static_cast<size_t>(width) + x);
  return {rgb[i], rgb[i + 1], rgb[i + 2]};
}

int RgbImage::count(Rgb c) const {
  int n = 0;
  for (int y = 0; y < height; ++y) n += count_in_row(y, c);
  return n;
}

int RgbImage::count_in_row(int y, Rgb c) const {
  int n = 0;
  for (int x = 0; x < width; ++x) n += at(x, y) == c;
  return n;
}

int RgbImage::count_near(double r, double g, double b, double tolerance) const {
  int n = 0;
  for (size_t i = 0; i + 2 < rgb.size(); i += 3)
    n += std::abs(rgb[i] - r) <= tolerance && std::abs(rgb[i + 1] - g) <= tolerance &&
         std::abs(rgb[i + 2] - b) <= tolerance;
  return n;
}

RgbImage read_png_rgb(const std::string& path) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) {
    ADD_FAILURE() << path << ": " << png.message;
    return {};
  }
  png.format = PNG_FORMAT_RGB;
  RgbImage image{static_cast<int>(png.width), static_cast<int>(png.height),
                 std::vector<unsigned char>(PNG_IMAGE_SIZE(png))};
  if (!png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr)) {
    ADD_FAILURE() << path << ": " << png.message;
    return {};
  }
  return image;
}

}  // namespace exadnn::testing
