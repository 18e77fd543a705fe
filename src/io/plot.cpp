#include "exadnn/io/plot.h"

#include <png.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "exadnn/core/error.h"
#include "plot_font.h"

namespace exadnn::io {

namespace {

using font::glyphs;
using font::kAdvance;
using font::kScale;
using font::kTextHeight;
using font::text_width;

struct Rgb {
  unsigned char r, g, b;
};
static_assert(sizeof(Rgb) == 3, "a row of Rgb is a PNG row of 8-bit RGB");

constexpr Rgb kWhite{255, 255, 255}, kText{60, 60, 60}, kGrid{228, 228, 228},
    kLegendBorder{190, 190, 190}, kReference{0, 0, 0};

// Series k's colour: the 10 of matplotlib's "tab10", then hues spaced by the golden angle.
Rgb series_colour(size_t k) {
  static constexpr std::array<Rgb, 10> kPalette{
      Rgb{31, 119, 180},  Rgb{255, 127, 14}, Rgb{44, 160, 44},   Rgb{214, 39, 40},
      Rgb{148, 103, 189}, Rgb{140, 86, 75},  Rgb{227, 119, 194}, Rgb{127, 127, 127},
      Rgb{188, 189, 34},  Rgb{23, 190, 207}};
  if (k < kPalette.size()) return kPalette[k];
  const double h = std::fmod(0.137 + 0.618033988749895 * static_cast<double>(k), 1.0) * 6;
  const double s = 0.7, v = 0.8, f = h - std::floor(h);
  const double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  double r = v, g = t, b = p;
  switch (static_cast<int>(h)) {
    case 1:
      r = q, g = v, b = p;
      break;
    case 2:
      r = p, g = v, b = t;
      break;
    case 3:
      r = p, g = q, b = v;
      break;
    case 4:
      r = t, g = p, b = v;
      break;
    case 5:
      r = v, g = p, b = q;
      break;
    default:
      break;
  }
  auto byte = [](double c) { return static_cast<unsigned char>(std::lround(255 * c)); };
  return Rgb{byte(r), byte(g), byte(b)};
}

// An RGB raster with the drawing primitives a chart needs; drawing outside the clip rectangle
// (the whole image unless set) is dropped.
class Canvas {
 public:
  Canvas(int w, int h)
      : w_(w), h_(h), px_(static_cast<size_t>(w) * static_cast<size_t>(h), kWhite) {
    unclip();
  }
  void clip(int left, int top, int right, int bottom) {
    clip_ = {std::max(left, 0), std::max(top, 0), std::min(right, w_ - 1),
             std::min(bottom, h_ - 1)};
  }
  void unclip() { clip_ = {0, 0, w_ - 1, h_ - 1}; }
  void set(int x, int y, Rgb c) {
    if (x >= clip_[0] && y >= clip_[1] && x <= clip_[2] && y <= clip_[3])
      px_[static_cast<size_t>(y) * static_cast<size_t>(w_) + static_cast<size_t>(x)] = c;
  }
  void fill(int x0, int y0, int x1, int y1, Rgb c) {  // inclusive corners
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) set(x, y, c);
  }
  void rect(int x0, int y0, int x1, int y1, Rgb c) {  // outline
    line(x0, y0, x1, y0, c), line(x1, y0, x1, y1, c);
    line(x1, y1, x0, y1, c), line(x0, y1, x0, y0, c);
  }
  // Bresenham with a square pen `thickness` pixels wide; `dash` > 0 draws dash pixels on, dash
  // pixels off.
  void line(int x0, int y0, int x1, int y1, Rgb c, int thickness = 1, int dash = 0) {
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    const int lo = -(thickness - 1) / 2, hi = thickness / 2;
    for (int err = dx + dy, step = 0;; ++step) {
      if (dash <= 0 || (step / dash) % 2 == 0) fill(x0 + lo, y0 + lo, x0 + hi, y0 + hi, c);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
  // Text from its top-left corner, left to right.
  void text(int x, int y, const std::string& s, Rgb c) {
    for (const auto* g : glyphs(s)) {
      for (int row = 0; row < 7; ++row)
        for (int col = 0; col < 5; ++col)
          if ((*g)[row] & (0x10 >> col))
            fill(x + col * kScale, y + row * kScale, x + col * kScale + kScale - 1,
                 y + row * kScale + kScale - 1, c);
      x += kAdvance;
    }
  }
  // Text turned a quarter turn anticlockwise, read bottom to top, from its bottom-left corner
  // (the tops of the letters face left).
  void text_up(int x, int y, const std::string& s, Rgb c) {
    for (const auto* g : glyphs(s)) {
      for (int row = 0; row < 7; ++row)
        for (int col = 0; col < 5; ++col)
          if ((*g)[row] & (0x10 >> col))
            fill(x + row * kScale, y - col * kScale - kScale + 1, x + row * kScale + kScale - 1,
                 y - col * kScale, c);
      y -= kAdvance;
    }
  }

  void save(const std::string& path) const {
    FILE* f = std::fopen(path.c_str(), "wb");
    EXADNN_CHECK(f != nullptr, "plot", "cannot create ", path, ": ", std::strerror(errno));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
      png_destroy_write_struct(&png, &info);
      std::fclose(f);
      std::remove(path.c_str());
      throw Error("plot", "libpng failed writing " + path);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, static_cast<png_uint_32>(w_), static_cast<png_uint_32>(h_), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h_; ++y)
      png_write_row(png, reinterpret_cast<png_const_bytep>(
                             &px_[static_cast<size_t>(y) * static_cast<size_t>(w_)]));
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    const bool written = std::ferror(f) == 0;
    if (std::fclose(f) != 0 || !written) {
      std::remove(path.c_str());
      throw Error("plot", "cannot finish writing " + path);
    }
  }

 private:
  int w_, h_;
  std::vector<Rgb> px_;
  std::array<int, 4> clip_{};  // left, top, right, bottom, inclusive
};

// Marker shape k (of 8) centred on (x, y), radius r: filled square, circle, triangle, diamond,
// then the same four hollow.
void marker(Canvas& c, int x, int y, size_t k, Rgb colour, int r = 4) {
  const int shape = static_cast<int>(k % 4);
  auto inside = [shape](int dx, int dy, int radius) {
    switch (shape) {
      case 0:
        return std::abs(dx) <= radius && std::abs(dy) <= radius;
      case 1:
        return dx * dx + dy * dy <= radius * radius + radius;
      case 2:
        return dy >= -radius && dy <= radius && 2 * std::abs(dx) <= dy + radius;
      default:
        return std::abs(dx) + std::abs(dy) <= radius;
    }
  };
  const bool hollow = k % 8 >= 4;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx)
      if (inside(dx, dy, r) && !(hollow && inside(dx, dy, r - 2))) c.set(x + dx, y + dy, colour);
}

void error_bar(Canvas& c, int x, int y_low, int y_high, Rgb colour) {
  c.line(x, y_low, x, y_high, colour);
  c.line(x - 4, y_low, x + 4, y_low, colour);
  c.line(x - 4, y_high, x + 4, y_high, colour);
}

// One axis: its range in axis units (log10 of the value on a log axis) and its ticks.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;  // values
  std::vector<std::string> labels;
  double unit(double v) const { return log ? std::log10(v) : v; }
};

// 1, 2 or 5 x 10^k, the nearest to x.
double nice_step(double x) {
  const double e = std::pow(10.0, std::floor(std::log10(x)));
  const double f = x / e;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * e;
}

std::string format(const char* fmt, int precision, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, precision, v);
  return buf;
}

// Ticks at the multiples of a 1, 2, 5 x 10^k step between the values lo and hi (whole numbers
// only when `integers`), labelled with as many decimals as the step needs.
void linear_ticks(Axis& axis, double lo, double hi, bool integers) {
  double step = nice_step((hi - lo) / 5);
  if (integers) step = std::max(step, 1.0);
  double largest = 0;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; ++k) {
    const double v = std::fabs(k) < 0.5 ? 0.0 : k * step;  // no "-0"
    axis.ticks.push_back(v);
    largest = std::max(largest, std::fabs(v));
    if (axis.ticks.size() > 50) break;  // never more than a step in 1e12 of the values
  }
  const bool scientific = largest >= 1e6 || step < 1e-4;
  const int digits = static_cast<int>(std::floor(std::log10(std::max(largest, step)))) -
                     static_cast<int>(std::floor(std::log10(step) + 1e-9)) + 1;
  const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
  for (const double v : axis.ticks)
    axis.labels.push_back(scientific ? format("%.*g", std::max(1, digits), v)
                                     : format("%.*f", decimals, v));
}

// The axis over the data range [a, b] plus 5% each side (in log10 units on a log axis);
// `integers`: the data are whole numbers, so linear ticks are too.
Axis make_axis(double a, double b, bool log, bool integers) {
  Axis axis;
  axis.log = log;
  if (log) {
    a = std::log10(a), b = std::log10(b);
    if (b - a < 1e-9) a -= 0.5, b += 0.5;
  } else if (!(b - a > 1e-12 * std::max({1.0, std::fabs(a), std::fabs(b)}))) {
    const double d = a == 0 ? 1 : 0.1 * std::fabs(a);
    a -= d, b += d;
  }
  const double pad = 0.05 * (b - a);
  axis.lo = a - pad, axis.hi = b + pad;
  if (!log) {
    linear_ticks(axis, axis.lo, axis.hi, integers);
    return axis;
  }
  // Powers of ten (every few when there are many decades), with 2 and 5 x 10^k over a few
  // decades and every m x 10^k within about one.
  const double decades = axis.hi - axis.lo;
  const int every = std::max(1, static_cast<int>(std::ceil(decades / 8)));
  std::vector<double> mantissas{1};
  if (decades <= 1.2) mantissas = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  if (decades > 1.2 && decades <= 3) mantissas = {1, 2, 5};
  for (int k = static_cast<int>(std::floor(axis.lo)); k <= static_cast<int>(std::ceil(axis.hi));
       ++k) {
    if (k % every != 0) continue;
    for (const double m : mantissas) {
      const double v = m * std::pow(10.0, k), u = std::log10(v);
      if (u < axis.lo - 1e-9 || u > axis.hi + 1e-9) continue;
      axis.ticks.push_back(v);
      axis.labels.push_back(format("%.*g", 6, v));
    }
  }
  if (axis.ticks.size() < 2) {  // a narrow range: linear ticks, placed on the log scale
    axis.ticks.clear(), axis.labels.clear();
    linear_ticks(axis, std::pow(10.0, axis.lo), std::pow(10.0, axis.hi), false);
  }
  return axis;
}

// The plotting area in pixels and the axes that map values onto it.
struct Frame {
  int left, top, right, bottom;
  Axis x, y;
  int px_unit(double u) const {
    return left + static_cast<int>(std::lround((right - left) * (u - x.lo) / (x.hi - x.lo)));
  }
  int py_unit(double u) const {
    return bottom - static_cast<int>(std::lround((bottom - top) * (u - y.lo) / (y.hi - y.lo)));
  }
  int px(double v) const { return px_unit(x.unit(v)); }
  int py(double v) const { return py_unit(y.unit(v)); }
};

std::string who(const std::vector<Series>& series, size_t k) {
  return series[k].name.empty() ? detail::cat("series #", k)
                                : detail::cat("series '", series[k].name, "'");
}

// Everything write_chart refuses, before anything is drawn.
void check(const std::string& path, const Chart& chart, const std::vector<Series>& series) {
  auto require = [&path](bool ok, const auto&... message) {
    if (!ok) throw Error("plot", detail::cat(path, ": ", message...));
  };
  require(
      chart.width >= 200 && chart.height >= 150 && chart.width <= 10000 && chart.height <= 10000,
      "chart size ", chart.width, "x", chart.height, " is outside 200x150 .. 10000x10000");
  require(!(chart.reference_line && chart.log_x),
          "a y = x reference line needs a linear x axis (log_x is set)");
  require(!series.empty(), "no series to draw");
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const std::string name = who(series, k);
    require(s.x.size() == s.y.size(), name, " has ", s.x.size(), " x values and ", s.y.size(),
            " y values");
    require(!s.x.empty(), name, " has no points");
    require(s.y_error.empty() || s.y_error.size() == s.y.size(), name, " has ", s.y.size(),
            " y values and ", s.y_error.size(), " y_error values (give none or one per y value)");
    for (size_t i = 0; i < s.x.size(); ++i) {
      require(std::isfinite(s.x[i]), name, ": x[", i, "] is ", s.x[i]);
      require(std::isfinite(s.y[i]), name, ": y[", i, "] is ", s.y[i]);
      require(!chart.log_x || s.x[i] > 0, name, ": x[", i, "] is ", s.x[i],
              ", but the log-scale x axis needs x > 0");
      if (s.y_error.empty()) continue;
      require(std::isfinite(s.y_error[i]), name, ": y_error[", i, "] is ", s.y_error[i]);
      require(s.y_error[i] >= 0, name, ": y_error[", i, "] is ", s.y_error[i],
              " (an error bar's half-height must be >= 0)");
    }
  }
}

double error_of(const Series& s, size_t i) {
  return s.y_error.empty() ? 0.0 : s.y_error[i];
}

bool draws_line(const Series& s) {
  return s.style != PlotStyle::markers && s.x.size() > 1;
}
bool draws_markers(const Series& s) {
  return s.style != PlotStyle::lines || s.x.size() == 1;
}

// The legend: one row per named series (and the reference line), in the corner of the frame
// that hides the fewest data points.
void legend(Canvas& c, const Frame& f, const Chart& chart, const std::vector<Series>& series,
            size_t colour_offset) {
  std::vector<size_t> named;
  int name_width = chart.reference_line ? text_width("y = x") : 0;
  for (size_t k = 0; k < series.size(); ++k)
    if (!series[k].name.empty()) {
      named.push_back(k);
      name_width = std::max(name_width, text_width(series[k].name));
    }
  const int rows = static_cast<int>(named.size()) + (chart.reference_line ? 1 : 0);
  if (rows == 0) return;
  const int w = 8 + 36 + 8 + name_width + 8, h = 6 + 20 * rows + 2;
  // What the data cover, sampled: the points, error bar ends, points along lines.
  std::vector<std::pair<int, int>> samples;
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      samples.emplace_back(f.px(s.x[i]), f.py(s.y[i]));
      if (error_of(s, i) > 0) {
        samples.emplace_back(f.px(s.x[i]), f.py(s.y[i] - error_of(s, i)));
        samples.emplace_back(f.px(s.x[i]), f.py(s.y[i] + error_of(s, i)));
      }
      if (draws_line(s) && i + 1 < s.x.size())
        for (int t = 1; t < 4; ++t) {
          const int x0 = f.px(s.x[i]), y0 = f.py(s.y[i]);
          const int x1 = f.px(s.x[i + 1]), y1 = f.py(s.y[i + 1]);
          samples.emplace_back(x0 + (x1 - x0) * t / 4, y0 + (y1 - y0) * t / 4);
        }
    }
  if (chart.reference_line)
    for (int t = 0; t <= 40; ++t)
      samples.emplace_back(f.left + (f.right - f.left) * t / 40,
                           f.bottom - (f.bottom - f.top) * t / 40);
  const std::array<std::pair<int, int>, 4> corners{
      std::pair{f.right - 8 - w, f.top + 8}, std::pair{f.left + 8, f.top + 8},
      std::pair{f.right - 8 - w, f.bottom - 8 - h}, std::pair{f.left + 8, f.bottom - 8 - h}};
  int bx = corners[0].first, by = corners[0].second;
  size_t fewest = samples.size() + 1;
  for (const auto& corner : corners) {
    const int x = corner.first, y = corner.second;
    size_t hidden = 0;
    for (const auto& [sx, sy] : samples)
      hidden += sx >= x - 4 && sx <= x + w + 4 && sy >= y - 4 && sy <= y + h + 4;
    if (hidden < fewest) fewest = hidden, bx = x, by = y;
  }
  c.fill(bx, by, bx + w, by + h, kWhite);
  c.rect(bx, by, bx + w, by + h, kLegendBorder);
  int row = 0;
  for (const size_t k : named) {
    const Series& s = series[k];
    const Rgb colour = series_colour(k + colour_offset);
    const int cy = by + 6 + 20 * row++ + kTextHeight / 2, cx = bx + 8 + 18;
    if (!s.y_error.empty()) error_bar(c, cx, cy + 7, cy - 7, colour);
    if (draws_line(s)) c.line(bx + 8, cy, bx + 8 + 36, cy, colour, 2);
    if (draws_markers(s)) marker(c, cx, cy, k + colour_offset, colour);
    c.text(bx + 8 + 36 + 8, cy - kTextHeight / 2, s.name, kText);
  }
  if (chart.reference_line) {
    const int cy = by + 6 + 20 * row + kTextHeight / 2;
    c.line(bx + 8, cy, bx + 8 + 36, cy, kReference, 2, 6);
    c.text(bx + 8 + 36 + 8, cy - kTextHeight / 2, "y = x", kText);
  }
}

// Draws a checked chart into the region (x0, y0, w, h) of `c`; series k gets colour and marker
// k + colour_offset.
void draw(Canvas& c, int x0, int y0, int w, int h, const Chart& chart,
          const std::vector<Series>& series, size_t colour_offset, bool with_legend) {
  // The data ranges, error bars included.
  double xa = INFINITY, xb = -INFINITY, ya = INFINITY, yb = -INFINITY;
  bool x_integers = true, y_integers = true;
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      const double e = error_of(s, i);
      xa = std::min(xa, s.x[i]), xb = std::max(xb, s.x[i]);
      ya = std::min(ya, s.y[i] - e), yb = std::max(yb, s.y[i] + e);
      x_integers = x_integers && s.x[i] == std::round(s.x[i]);
      y_integers = y_integers && s.y[i] == std::round(s.y[i]) && e == std::round(e);
    }
  if (chart.reference_line) {  // one range for both axes: y = x runs corner to corner
    xa = ya = std::min(xa, ya), xb = yb = std::max(xb, yb);
    x_integers = y_integers = x_integers && y_integers;
  }
  Frame f{
      0, 0, 0, 0, make_axis(xa, xb, chart.log_x, x_integers), make_axis(ya, yb, false, y_integers)};
  int y_tick_width = 0;
  for (const std::string& label : f.y.labels)
    y_tick_width = std::max(y_tick_width, text_width(label));
  f.left = x0 + 10 + (chart.y_label.empty() ? 0 : kTextHeight + 10) + y_tick_width + 8;
  f.right = x0 + w - 20;
  f.top = y0 + (chart.title.empty() ? 14 : 40);
  f.bottom = y0 + h - (chart.x_label.empty() ? 30 : 48);

  if (!chart.title.empty())
    c.text(x0 + (w - text_width(chart.title)) / 2, y0 + 12, chart.title, kText);
  int last_label = f.bottom + kTextHeight;  // y ticks: grid line and value, labels never overlap
  for (size_t i = 0; i < f.y.ticks.size(); ++i) {
    const int y = f.py(f.y.ticks[i]);
    c.line(f.left, y, f.right, y, kGrid);
    if (y + kTextHeight / 2 + 2 > last_label) continue;
    c.text(f.left - 8 - text_width(f.y.labels[i]), y - kTextHeight / 2, f.y.labels[i], kText);
    last_label = y - kTextHeight / 2;
  }
  last_label = x0 - 1000;  // x ticks
  for (size_t i = 0; i < f.x.ticks.size(); ++i) {
    const int x = f.px(f.x.ticks[i]), tw = text_width(f.x.labels[i]);
    c.line(x, f.top, x, f.bottom, kGrid);
    const int lx = std::clamp(x - tw / 2, x0 + 2, x0 + w - 2 - tw);
    if (lx < last_label + 8) continue;
    c.text(lx, f.bottom + 8, f.x.labels[i], kText);
    last_label = lx + tw;
  }
  c.line(f.left, f.top, f.left, f.bottom, kText);
  c.line(f.left, f.bottom, f.right, f.bottom, kText);
  if (!chart.x_label.empty())
    c.text(f.left + (f.right - f.left - text_width(chart.x_label)) / 2, f.bottom + 28,
           chart.x_label, kText);
  if (!chart.y_label.empty())
    c.text_up(x0 + 10, (f.top + f.bottom) / 2 + text_width(chart.y_label) / 2, chart.y_label,
              kText);

  c.clip(f.left + 1, f.top, f.right, f.bottom - 1);  // the data stay off the axes
  if (chart.reference_line)
    c.line(f.px_unit(f.x.lo), f.py_unit(f.y.lo), f.px_unit(f.x.hi), f.py_unit(f.y.hi), kReference,
           2, 8);
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const Rgb colour = series_colour(k + colour_offset);
    for (size_t i = 0; i < s.x.size(); ++i)
      if (error_of(s, i) > 0)
        error_bar(c, f.px(s.x[i]), f.py(s.y[i] - error_of(s, i)), f.py(s.y[i] + error_of(s, i)),
                  colour);
    if (draws_line(s))
      for (size_t i = 0; i + 1 < s.x.size(); ++i)
        c.line(f.px(s.x[i]), f.py(s.y[i]), f.px(s.x[i + 1]), f.py(s.y[i + 1]), colour, 2);
    if (draws_markers(s))
      for (size_t i = 0; i < s.x.size(); ++i)
        marker(c, f.px(s.x[i]), f.py(s.y[i]), k + colour_offset, colour);
  }
  c.unclip();
  if (with_legend) legend(c, f, chart, series, colour_offset);
}

}  // namespace

void write_chart(const std::string& path, const Chart& chart, const std::vector<Series>& series) {
  check(path, chart, series);
  Canvas c(chart.width, chart.height);
  draw(c, 0, 0, chart.width, chart.height, chart, series, 0, true);
  c.save(path);
}

void write_series_plot(const std::string& path, const std::string& title,
                       const std::string& x_label, const std::vector<Series>& series) {
  Chart chart;
  chart.title = title;
  chart.x_label = x_label;
  write_chart(path, chart, series);
}

void write_training_plot(const std::string& path, const std::vector<double>& loss,
                         const std::vector<double>& accuracy) {
  EXADNN_CHECK(!loss.empty() && loss.size() == accuracy.size(), "plot", path,
               ": needs one loss and one accuracy per epoch, got ", loss.size(), " and ",
               accuracy.size());
  Series losses{"train loss", {}, loss, {}, PlotStyle::lines_and_markers};
  Series percent{"test accuracy", {}, {}, {}, PlotStyle::lines_and_markers};
  for (size_t i = 0; i < loss.size(); ++i) {
    losses.x.push_back(static_cast<double>(i + 1));
    percent.y.push_back(100.0 * accuracy[i]);
  }
  percent.x = losses.x;
  Chart left, right;
  left.title = "train loss", right.title = "test accuracy %";
  left.x_label = right.x_label = "epoch";
  left.width = right.width = 450, left.height = right.height = 360;
  check(path, left, {losses});
  check(path, right, {percent});
  Canvas c(900, 360);
  draw(c, 0, 0, 450, 360, left, {losses}, 0, false);
  draw(c, 450, 0, 450, 360, right, {percent}, 3, false);  // blue loss, red accuracy
  c.save(path);
}

}  // namespace exadnn::io
