#include "cbed/shard_picture.h"

#include <exadnn/core/error.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace cbed::shard {

void write_stack_png(const std::string& path, const float* stack, int h, int w, int scale) {
  EXADNN_CHECK(h > 0 && w > 0 && scale >= 1, "cbed::write_stack_png", path, ": size ", h, " x ", w,
               " scale ", scale);
  const int gap = 4, ph = h * scale, pw = w * scale, width = 3 * pw + 2 * gap;
  std::vector<unsigned char> image(size_t(width) * ph, 255);
  for (int p = 0; p < 3; ++p) {
    const float* pattern = stack + size_t(p) * h * w;
    const float top = *std::max_element(pattern, pattern + size_t(h) * w);
    const double floor = 1e-6 * std::max(top, 1e-30f);
    const double lo = std::log10(floor), hi = std::log10(top + floor);
    for (int y = 0; y < ph; ++y)
      for (int x = 0; x < pw; ++x) {
        const double v =
            std::log10(std::max(0.0f, pattern[size_t(y / scale) * w + x / scale]) + floor);
        image[size_t(y) * width + p * (pw + gap) + x] =
            (unsigned char)std::lround(255 * std::clamp((v - lo) / (hi - lo), 0.0, 1.0));
      }
  }
  FILE* file = std::fopen(path.c_str(), "wb");
  EXADNN_CHECK(file, "cbed::write_stack_png", "cannot write ", path);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    throw exadnn::Error("cbed::write_stack_png", "libpng failed writing " + path);
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, width, ph, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < ph; ++y) png_write_row(png, &image[size_t(y) * width]);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  EXADNN_CHECK(std::fclose(file) == 0, "cbed::write_stack_png", "closing ", path, " failed");
}

}  // namespace cbed::shard
