// The confusion matrix as a PNG heat map (libpng).
#include <png.h>

#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/train/class_metrics.h"

namespace exadnn::train {
namespace {

// White (0) to dark blue (1), linear in each channel.
void shade(double f, unsigned char* rgb) {
  const double lo[3] = {255, 255, 255}, hi[3] = {8, 48, 107};
  for (int i = 0; i < 3; ++i)
    rgb[i] = static_cast<unsigned char>(lo[i] + f * (hi[i] - lo[i]) + 0.5);
}

}  // namespace

void write_confusion_png(const std::string& path, const ClassMetrics& m) {
  const int64_t c = m.classes();
  const int64_t cell = std::max<int64_t>(2, std::min<int64_t>(32, 768 / c));
  const bool grid = cell >= 6;
  const int64_t size = c * cell + (grid ? 1 : 0);
  std::vector<unsigned char> image(static_cast<size_t>(size * size * 3), 255);
  for (int64_t t = 0; t < c; ++t) {
    const int64_t row_total = m.support(t);
    for (int64_t p = 0; p < c; ++p) {
      unsigned char rgb[3];
      shade(row_total > 0 ? static_cast<double>(m.confusion(t, p)) / row_total : 0.0, rgb);
      for (int64_t y = t * cell; y < (t + 1) * cell; ++y)
        for (int64_t x = p * cell; x < (p + 1) * cell; ++x) {
          const bool line = grid && (y == t * cell || x == p * cell);
          unsigned char* px = &image[static_cast<size_t>((y * size + x) * 3)];
          for (int i = 0; i < 3; ++i) px[i] = line ? 160 : rgb[i];
        }
    }
  }
  if (grid)  // the closing lines at the right and the bottom
    for (int64_t i = 0; i < size; ++i)
      for (int k = 0; k < 3; ++k) {
        image[static_cast<size_t>(((size - 1) * size + i) * 3 + k)] = 160;
        image[static_cast<size_t>((i * size + size - 1) * 3 + k)] = 160;
      }
  // libpng's simplified API: one call writes the whole 8-bit RGB image.
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(size);
  png.height = static_cast<png_uint_32>(size);
  png.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&png, path.c_str(), 0, image.data(), 0, nullptr))
    throw Error("confusion_png", "cannot write " + path + ": " + png.message);
}

}  // namespace exadnn::train
