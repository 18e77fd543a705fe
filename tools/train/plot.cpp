#include "plot.h"

#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

#include "exadnn/core/error.h"

namespace exadnn::cli {

namespace {

struct Rgb {
  unsigned char r, g, b;
};

// An RGB raster with the few drawing primitives a line chart needs.
class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(static_cast<size_t>(w * h), Rgb{255, 255, 255}) {}
  void set(int x, int y, Rgb c) {
    if (x >= 0 && y >= 0 && x < w_ && y < h_) px_[static_cast<size_t>(y * w_ + x)] = c;
  }
  void line(int x0, int y0, int x1, int y1, Rgb c, int thickness = 1) {  // Bresenham
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    for (int err = dx + dy;;) {
      for (int t = 0; t < thickness; ++t) set(x0 + t / 2, y0 + t - thickness / 2, c);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
  void box(int x, int y, int size, Rgb c) {
    for (int i = -size; i <= size; ++i)
      for (int j = -size; j <= size; ++j) set(x + i, y + j, c);
  }
  // 5x7 bitmap text, scaled by `scale`.
  void text(int x, int y, const std::string& s, Rgb c, int scale = 2) {
    for (char ch : s) {
      const auto it = font().find(ch);
      if (it != font().end())
        for (int row = 0; row < 7; ++row)
          for (int col = 0; col < 5; ++col)
            if (it->second[row] & (0x10 >> col))
              for (int a = 0; a < scale; ++a)
                for (int b = 0; b < scale; ++b) set(x + col * scale + a, y + row * scale + b, c);
      x += 6 * scale;
    }
  }
  static int text_width(const std::string& s, int scale = 2) {
    return static_cast<int>(s.size()) * 6 * scale;
  }

  void save(const std::string& path) const {
    FILE* f = std::fopen(path.c_str(), "wb");
    EXADNN_CHECK(f != nullptr, "plot", "cannot create ", path);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
      png_destroy_write_struct(&png, &info);
      std::fclose(f);
      throw Error("plot", "libpng failed writing " + path);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, static_cast<png_uint_32>(w_), static_cast<png_uint_32>(h_), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h_; ++y)
      png_write_row(png, reinterpret_cast<png_const_bytep>(&px_[static_cast<size_t>(y * w_)]));
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    EXADNN_CHECK(std::fclose(f) == 0, "plot", "cannot finish writing ", path);
  }

 private:
  static const std::map<char, std::array<unsigned char, 7>>& font() {
    static const std::map<char, std::array<unsigned char, 7>> glyphs = {
        {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
        {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
        {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
        {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
        {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
        {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
        {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
        {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
        {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}},
        {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
        {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}},
        {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}},
        {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
        {' ', {0, 0, 0, 0, 0, 0, 0}},
        {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}},
        {'c', {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E}},
        {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
        {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}},
        {'i', {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}},
        {'l', {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}},
        {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
        {'o', {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E}},
        {'p', {0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10}},
        {'r', {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}},
        {'s', {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E}},
        {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}},
        {'u', {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D}},
        {'y', {0x00, 0x00, 0x11, 0x11, 0x0F, 0x01, 0x0E}},
        {'b', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E}},
        {'d', {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}},
        {'g', {0x00, 0x00, 0x0F, 0x11, 0x0F, 0x01, 0x0E}},
        {'k', {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12}},
        {'m', {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11}},
        {'v', {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04}},
        {'w', {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A}},
        {'x', {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11}},
        {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}},
        {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}},
        {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
        {'f', {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}},
    };
    return glyphs;
  }
  int w_, h_;
  std::vector<Rgb> px_;
};

std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 10 ? "%.1f" : "%.3f", v);
  return buf;
}

// The plotting area of a panel: pixel bounds and the value range of the y axis.
struct Frame {
  int left, right, top, bottom;
  double lo, hi;
  int y(double v) const { return bottom - static_cast<int>((bottom - top) * (v - lo) / (hi - lo)); }
};

// Axes, 5 horizontal grid lines with values over [lo, hi] (padded by 8%), a title.
Frame axes(Canvas& c, int x0, int y0, int w, int h, double lo, double hi,
           const std::string& title) {
  const Rgb axis{60, 60, 60}, grid{225, 225, 225};
  if (hi - lo < 1e-12) lo -= 0.5, hi += 0.5;
  const double pad = 0.08 * (hi - lo);
  const Frame f{x0 + 90, x0 + w - 15, y0 + 40, y0 + h - 45, lo - pad, hi + pad};
  c.text(x0 + (w - Canvas::text_width(title)) / 2, y0 + 10, title, axis);
  for (int i = 0; i <= 4; ++i) {
    const int y = f.bottom - (f.bottom - f.top) * i / 4;
    c.line(f.left, y, f.right, y, grid);
    const std::string v = label(f.lo + (f.hi - f.lo) * i / 4);
    c.text(f.left - 8 - Canvas::text_width(v), y - 7, v, axis);
  }
  c.line(f.left, f.top, f.left, f.bottom, axis);
  c.line(f.left, f.bottom, f.right, f.bottom, axis);
  return f;
}

// One panel: the series per epoch with markers.
void panel(Canvas& c, int x0, int y0, int w, int h, const std::vector<double>& ys,
           const std::string& title, Rgb color) {
  const Rgb axis{60, 60, 60};
  const Frame f = axes(c, x0, y0, w, h, *std::min_element(ys.begin(), ys.end()),
                       *std::max_element(ys.begin(), ys.end()), title);
  const int left = f.left, right = f.right, bottom = f.bottom;
  const size_t n = ys.size();
  auto px = [&](size_t i) {
    return n == 1 ? (left + right) / 2 : left + static_cast<int>((right - left) * i / (n - 1));
  };
  for (size_t i = 0; i < n; ++i) {
    if (i + 1 < n) c.line(px(i), f.y(ys[i]), px(i + 1), f.y(ys[i + 1]), color, 3);
    c.box(px(i), f.y(ys[i]), 3, color);
    const std::string e = std::to_string(i + 1);
    if (n <= 20 || i % (n / 10 + 1) == 0)
      c.text(px(i) - Canvas::text_width(e) / 2, bottom + 8, e, axis);
  }
  c.text(left + (right - left - Canvas::text_width("epoch")) / 2, bottom + 26, "epoch", axis);
}

}  // namespace

void write_training_plot(const std::string& path, const std::vector<double>& loss,
                         const std::vector<double>& accuracy) {
  EXADNN_CHECK(!loss.empty() && loss.size() == accuracy.size(), "plot",
               "needs one loss and one accuracy per epoch");
  std::vector<double> percent;
  for (double a : accuracy) percent.push_back(100.0 * a);
  Canvas c(900, 360);
  panel(c, 0, 0, 450, 360, loss, "train loss", Rgb{31, 119, 180});
  panel(c, 450, 0, 450, 360, percent, "test accuracy %", Rgb{214, 39, 40});
  c.save(path);
}

void write_series_plot(const std::string& path, const std::string& title,
                       const std::string& x_label, const std::vector<Series>& series) {
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  bool any = false;
  for (const Series& s : series) {
    EXADNN_CHECK(s.x.size() == s.y.size(), "plot", "series '", s.name, "' has ", s.x.size(),
                 " x values and ", s.y.size(), " y values");
    for (size_t i = 0; i < s.x.size(); ++i) {
      x_lo = any ? std::min(x_lo, s.x[i]) : s.x[i], x_hi = any ? std::max(x_hi, s.x[i]) : s.x[i];
      y_lo = any ? std::min(y_lo, s.y[i]) : s.y[i], y_hi = any ? std::max(y_hi, s.y[i]) : s.y[i];
      any = true;
    }
  }
  EXADNN_CHECK(any, "plot", "no points to draw in ", path);
  if (x_hi - x_lo < 1e-12) x_hi = x_lo + 1;
  const Rgb axis{60, 60, 60};
  const std::array<Rgb, 6> palette{Rgb{31, 119, 180}, Rgb{214, 39, 40},   Rgb{44, 160, 44},
                                   Rgb{255, 127, 14}, Rgb{148, 103, 189}, Rgb{140, 86, 75}};
  Canvas c(900, 480);
  const Frame f = axes(c, 0, 0, 900, 480, y_lo, y_hi, title);
  auto px = [&](double x) {
    return f.left + static_cast<int>((f.right - f.left) * (x - x_lo) / (x_hi - x_lo));
  };
  for (int i = 0; i <= 4; ++i) {
    const double x = x_lo + (x_hi - x_lo) * i / 4;
    const std::string v = label(x);
    c.text(px(x) - Canvas::text_width(v) / 2, f.bottom + 8, v, axis);
  }
  c.text(f.left + (f.right - f.left - Canvas::text_width(x_label)) / 2, f.bottom + 26, x_label,
         axis);
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const Rgb color = palette[k % palette.size()];
    for (size_t i = 0; i + 1 < s.x.size(); ++i)
      c.line(px(s.x[i]), f.y(s.y[i]), px(s.x[i + 1]), f.y(s.y[i + 1]), color, 2);
    const int ly = f.top + 8 + 20 * static_cast<int>(k);  // legend, top right
    const int lx = f.right - 10 - Canvas::text_width(s.name) - 30;
    c.line(lx, ly + 7, lx + 22, ly + 7, color, 3);
    c.text(lx + 28, ly, s.name, axis);
  }
  c.save(path);
}

}  // namespace exadnn::cli
