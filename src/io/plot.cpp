// Charts drawn with PLplot (io/plot_page.h: the pngcairo device, one page at a time).
#include "exadnn/io/plot.h"

#include <plplot/plplot.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/io/plot_page.h"

namespace exadnn::io {

namespace {

struct Rgb {
  int r, g, b;
};

// PLplot's colour map 0 as the charts use it: fixed entries, then one per series.
constexpr PLINT kBackground = 0, kText = 1, kGrid = 2, kLegendBorder = 3, kReference = 4,
                kFirstSeries = 5;

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
  auto byte = [](double c) { return static_cast<int>(std::lround(255 * c)); };
  return Rgb{byte(r), byte(g), byte(b)};
}

// Marker shape k (of 8): filled square, circle, triangle, diamond, then the same four hollow
// (Unicode geometric shapes, drawn by pngcairo from the system's fonts).
const char* marker_glyph(size_t k) {
  static constexpr std::array<const char*, 8> kGlyphs{"\u25A0", "\u25CF", "\u25B2", "\u25C6",
                                                      "\u25A1", "\u25CB", "\u25B3", "\u25C7"};
  return kGlyphs[k % kGlyphs.size()];
}

// 1, 2 or 5 x 10^k, the nearest to x.
double nice_step(double x) {
  const double e = std::pow(10.0, std::floor(std::log10(x)));
  const double f = x / e;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * e;
}

// One axis in PLplot's world coordinates (log10 of the value on a log axis): the data range
// [a, b] plus 5% each side, and the step between labelled ticks on a linear axis.
struct Axis {
  double lo = 0, hi = 1, step = 0;
  bool log = false;
  double unit(double v) const { return log ? std::log10(v) : v; }
};

// `integers`: the data are whole numbers, so a linear axis's ticks are too; `ticks`: about how
// many labelled ticks the axis has room for.
Axis make_axis(double a, double b, bool log, bool integers, int ticks) {
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
    axis.step = nice_step((axis.hi - axis.lo) / std::max(2, ticks));
    if (integers) axis.step = std::max(axis.step, 1.0);
  }
  return axis;
}

// A log axis's labelled ticks (values): powers of ten (every few when there are many decades),
// with 2 and 5 x 10^k over a few decades and every m x 10^k within about one.
std::vector<double> log_ticks(const Axis& axis) {
  const double decades = axis.hi - axis.lo;
  const int every = std::max(1, static_cast<int>(std::ceil(decades / 8)));
  std::vector<double> mantissas{1};
  if (decades <= 1.2) mantissas = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  if (decades > 1.2 && decades <= 3) mantissas = {1, 2, 5};
  std::vector<double> ticks;
  for (int k = static_cast<int>(std::floor(axis.lo)); k <= static_cast<int>(std::ceil(axis.hi));
       ++k) {
    if (k % every != 0) continue;
    for (const double m : mantissas) {
      const double v = m * std::pow(10.0, k), u = std::log10(v);
      if (u >= axis.lo - 1e-9 && u <= axis.hi + 1e-9) ticks.push_back(v);
    }
  }
  return ticks;
}

std::string who(const std::vector<Series>& series, size_t k) {
  return series[k].name.empty() ? detail::cat("series #", k)
                                : detail::cat("series '", series[k].name, "'");
}

void check_size(const std::string& path, int width, int height) {
  if (!(width >= 200 && height >= 150 && width <= 10000 && height <= 10000))
    throw Error("plot", detail::cat(path, ": chart size ", width, "x", height,
                                    " is outside 200x150 .. 10000x10000"));
}

// Everything a chart refuses, before anything is drawn; `panel` names the chart in a page of
// several ("" for a chart alone).
void check(const std::string& path, const std::string& panel, const Chart& chart,
           const std::vector<Series>& series) {
  auto require = [&](bool ok, const auto&... message) {
    if (!ok) throw Error("plot", detail::cat(path, ": ", panel, message...));
  };
  require(!(chart.reference_line && (chart.log_x || chart.log_y)),
          "a y = x reference line needs linear axes (log_x or log_y is set)");
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
      require(!chart.log_y || s.y[i] > 0, name, ": y[", i, "] is ", s.y[i],
              ", but the log-scale y axis needs y > 0");
      if (s.y_error.empty()) continue;
      require(std::isfinite(s.y_error[i]), name, ": y_error[", i, "] is ", s.y_error[i]);
      require(s.y_error[i] >= 0, name, ": y_error[", i, "] is ", s.y_error[i],
              " (an error bar's half-height must be >= 0)");
      require(!chart.log_y || s.y[i] - s.y_error[i] > 0, name, ": y[", i, "] - y_error[", i,
              "] is ", s.y[i] - s.y_error[i], ", but the log-scale y axis needs the bar above 0");
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

// The labelled ticks of a log axis (values), linear ones placed on the log scale when the range
// holds fewer than two of its decade ticks.
std::vector<double> log_axis_ticks(const Axis& axis) {
  std::vector<double> ticks = log_ticks(axis);
  if (ticks.size() >= 2) return ticks;
  ticks.clear();
  const double lo = std::pow(10.0, axis.lo), hi = std::pow(10.0, axis.hi);
  const double step = nice_step((hi - lo) / 5);
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi * (1 + 1e-9); ++k)
    if (k > 0) ticks.push_back(k * step);
  return ticks;
}

// A log axis's tick label: plain between 0.01 and 10^4, else m x 10^k with the exponent raised
// (PLplot's "#u" / "#d"), so labels stay short enough to leave the axis title room.
std::string tick_label(double v) {
  char buf[48];
  if (v >= 0.01 && v < 1e4) {
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }
  const int k = static_cast<int>(std::floor(std::log10(v) + 1e-9));
  const double m = v / std::pow(10.0, k);
  if (std::fabs(m - 1) < 1e-6)
    std::snprintf(buf, sizeof buf, "10#u%d#d", k);
  else
    std::snprintf(buf, sizeof buf, "%g\u00D710#u%d#d", m, k);
  return buf;
}

// PLplot's arrays: x in axis units.
struct Points {
  std::vector<PLFLT> x, y;
};
Points points(const Series& s, const Axis& x_axis, const Axis& y_axis) {
  Points p;
  for (size_t i = 0; i < s.x.size(); ++i)
    p.x.push_back(x_axis.unit(s.x[i])), p.y.push_back(y_axis.unit(s.y[i]));
  return p;
}

// The legend's corner: the one of the plot's four (top right first) whose region holds the
// fewest samples of what is drawn (points, error bar ends, points along lines, the y = x line),
// the region being the legend's estimated size as fractions of the plot (rows x names' length).
PLINT legend_corner(const Chart& chart, const std::vector<Series>& series, const Axis& x,
                    const Axis& y, size_t rows, size_t name_length) {
  const double w = std::min(0.6, 0.12 + 0.012 * static_cast<double>(name_length));
  const double h = std::min(0.9, 0.04 + 0.07 * static_cast<double>(rows));
  std::vector<std::pair<double, double>> samples;  // fractions of the plot, y up
  auto add = [&](double u, double v) {             // axis units
    samples.emplace_back((u - x.lo) / (x.hi - x.lo), (v - y.lo) / (y.hi - y.lo));
  };
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      const double u = x.unit(s.x[i]), v = y.unit(s.y[i]);
      add(u, v);
      if (error_of(s, i) > 0) add(u, y.unit(s.y[i] - error_of(s, i)));
      if (error_of(s, i) > 0) add(u, y.unit(s.y[i] + error_of(s, i)));
      if (draws_line(s) && i + 1 < s.x.size())
        for (int t = 1; t < 4; ++t)
          add(u + (x.unit(s.x[i + 1]) - u) * t / 4, v + (y.unit(s.y[i + 1]) - v) * t / 4);
    }
  if (chart.reference_line)
    for (int t = 0; t <= 40; ++t) samples.emplace_back(t / 40.0, t / 40.0);
  const std::array<PLINT, 4> corners{
      PL_POSITION_TOP | PL_POSITION_RIGHT, PL_POSITION_TOP | PL_POSITION_LEFT,
      PL_POSITION_BOTTOM | PL_POSITION_RIGHT, PL_POSITION_BOTTOM | PL_POSITION_LEFT};
  PLINT best = corners[0];
  size_t fewest = samples.size() + 1;
  for (const PLINT corner : corners) {
    const bool right = corner & PL_POSITION_RIGHT, top = corner & PL_POSITION_TOP;
    size_t hidden = 0;
    for (const auto& [u, v] : samples)
      hidden += (right ? u >= 1 - w : u <= w) && (top ? v >= 1 - h : v <= h);
    if (hidden < fewest) fewest = hidden, best = corner;
  }
  return best;
}

// The legend: one row per named series (a sample of its line and marker) and the y = x line.
void legend(const Chart& chart, const std::vector<Series>& series, const Axis& x, const Axis& y,
            size_t colour_offset) {
  std::vector<PLINT> options, text_colours, line_colours, line_styles, symbol_colours,
      symbol_numbers;
  std::vector<PLFLT> line_widths, symbol_scales;
  std::vector<std::string> texts, symbols;
  size_t name_length = 0;
  auto row = [&](const std::string& name, PLINT colour, bool line, bool marker, PLINT style,
                 const char* glyph) {
    options.push_back((line ? PL_LEGEND_LINE : 0) | (marker ? PL_LEGEND_SYMBOL : 0));
    text_colours.push_back(kText);
    texts.push_back(plplot_literal(name));
    line_colours.push_back(colour), line_styles.push_back(style), line_widths.push_back(2.0);
    symbol_colours.push_back(colour), symbol_scales.push_back(1.0), symbol_numbers.push_back(1);
    symbols.emplace_back(glyph);
    name_length = std::max(name_length, name.size());
  };
  for (size_t k = 0; k < series.size(); ++k)
    if (!series[k].name.empty())
      row(series[k].name, kFirstSeries + static_cast<PLINT>(k + colour_offset),
          draws_line(series[k]), draws_markers(series[k]), 1, marker_glyph(k + colour_offset));
  if (chart.reference_line) row("y = x", kReference, true, false, 2, "");
  if (texts.empty()) return;
  std::vector<const char*> text_pointers, symbol_pointers;
  for (size_t i = 0; i < texts.size(); ++i)
    text_pointers.push_back(texts[i].c_str()), symbol_pointers.push_back(symbols[i].c_str());
  const PLINT n = static_cast<PLINT>(texts.size());
  PLFLT width = 0, height = 0;
  const PLINT position =
      chart.legend_outside
          ? PL_POSITION_OUTSIDE | PL_POSITION_RIGHT
          : PL_POSITION_INSIDE | legend_corner(chart, series, x, y, texts.size(), name_length);
  pllegend(&width, &height, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, position,
           chart.legend_outside ? 0.03 : 0.02, chart.legend_outside ? 0.0 : 0.03, 0.06, kBackground,
           kLegendBorder, 1, 0, 0, n, options.data(), 0.6, 0.9, 2.0, 0.0, text_colours.data(),
           text_pointers.data(), nullptr, nullptr, nullptr, nullptr, line_colours.data(),
           line_styles.data(), line_widths.data(), symbol_colours.data(), symbol_scales.data(),
           symbol_numbers.data(), symbol_pointers.data());
}

// A log axis's grid lines, ticks and labels at log_axis_ticks (PLplot labels only decades):
// `x` the bottom axis, else the left one; `other` the axis across it; `pixels` the axis's length.
// A label closer to the last one drawn than a label's room (70 pixels across, 22 up) is left out.
void draw_log_axis(const Axis& axis, const Axis& other, bool x, int colour, int pixels) {
  const std::vector<double> ticks = log_axis_ticks(axis);
  const double tick = 0.015 * (other.hi - other.lo);
  const double room = (x ? 70.0 : 22.0) / std::max(1, pixels);  // as a fraction of the axis
  double last_label = -1;
  for (const double v : ticks) {
    const double u = std::log10(v), at = (u - axis.lo) / (axis.hi - axis.lo);
    plcol0(kGrid);
    if (x) pljoin(u, other.lo, u, other.hi);
    if (!x) pljoin(other.lo, u, other.hi, u);
    plcol0(colour);
    if (x) pljoin(u, other.lo, u, other.lo + tick), pljoin(u, other.hi, u, other.hi - tick);
    if (!x) pljoin(other.lo, u, other.lo + tick, u), pljoin(other.hi, u, other.hi - tick, u);
    if (at - last_label < room) continue;
    last_label = at;
    if (x) plmtex("b", 1.5, at, 0.5, tick_label(v).c_str());
    if (!x) plmtex("lv", 0.6, at, 1.0, tick_label(v).c_str());
  }
}

// Draws a checked chart in the page's next subpage, of width x height pixels; series k gets
// colour and marker k + colour_offset.
void draw(const Chart& chart, const std::vector<Series>& series, size_t colour_offset,
          bool with_legend, int width, int height) {
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
  // A labelled tick every ~120 pixels across, every ~70 up.
  const Axis x = make_axis(xa, xb, chart.log_x, x_integers, width / 120);
  const Axis y = make_axis(ya, yb, chart.log_y, y_integers, height / 70);

  pladv(0);
  // Characters 13.5 pixels high whatever the page's size and panels (PLplot's default grows
  // with the page, and its sizes are in millimetres: the subpage's give the pixels per mm).
  PLFLT left = 0, right = 0, bottom = 0, top = 0;
  plgspa(&left, &right, &bottom, &top);
  plschr(13.5 * (right - left) / width, 1.0);
  plvsta();
  if (chart.legend_outside) {  // the plot narrowed by the legend's estimated width
    size_t longest = chart.reference_line ? 5 : 0;
    for (const Series& s : series) longest = std::max(longest, s.name.size());
    const double legend_pixels = 7.5 * static_cast<double>(longest) + 110;
    // plvsta's viewport comes back in the page's normalised coordinates; plvpor takes the
    // subpage's: through millimetres (the subpage's from plgspa, the page's from its pixels).
    PLFLT vx0 = 0, vx1 = 0, vy0 = 0, vy1 = 0, sx0 = 0, sx1 = 0, sy0 = 0, sy1 = 0;
    plgvpd(&vx0, &vx1, &vy0, &vy1);
    plgspa(&sx0, &sx1, &sy0, &sy1);
    PLFLT dpi_x = 0, dpi_y = 0;
    PLINT page_w = 0, page_h = 0, off_x = 0, off_y = 0;
    plgpage(&dpi_x, &dpi_y, &page_w, &page_h, &off_x, &off_y);
    const double mm_per_pixel = (sx1 - sx0) / width;
    const auto sub_x = [&](double v) { return (v * page_w * mm_per_pixel - sx0) / (sx1 - sx0); };
    const auto sub_y = [&](double v) { return (v * page_h * mm_per_pixel - sy0) / (sy1 - sy0); };
    const double left = sub_x(vx0), right = sub_x(vx1);
    plvpor(left, std::max(left + 0.25, right - legend_pixels / width), sub_y(vy0), sub_y(vy1));
  }
  plwind(x.lo, x.hi, y.lo, y.hi);
  // The grid, then the frame, ticks and labels over it (PLplot's own on a linear axis).
  plwidth(1.0);
  plcol0(kGrid);
  plbox(x.log ? "" : "g", x.step, 0, y.log ? "" : "g", y.step, 0);
  plcol0(kText);
  plbox(x.log ? "bc" : "bcnst", x.step, 0, y.log ? "bc" : "bcnstv", y.step, 0);
  // The plot takes about 0.7 of its panel each way (plvsta's margins).
  if (x.log) draw_log_axis(x, y, true, kText, static_cast<int>(0.7 * width));
  if (y.log) draw_log_axis(y, x, false, kText, static_cast<int>(0.7 * height));
  plcol0(kText);
  pllab(plplot_literal(chart.x_label).c_str(), plplot_literal(chart.y_label).c_str(),
        plplot_literal(chart.title).c_str());

  if (chart.reference_line) {
    const PLFLT ends_x[2] = {x.lo, x.hi}, ends_y[2] = {y.lo, y.hi};
    plcol0(kReference);
    plwidth(2.0);
    pllsty(2);
    plline(2, ends_x, ends_y);
    pllsty(1);
  }
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const Points p = points(s, x, y);
    const PLINT n = static_cast<PLINT>(p.x.size());
    plcol0(kFirstSeries + static_cast<PLINT>(k + colour_offset));
    if (!s.y_error.empty()) {
      std::vector<PLFLT> low(s.y.size()), high(s.y.size());
      for (size_t i = 0; i < s.y.size(); ++i)
        low[i] = y.unit(s.y[i] - s.y_error[i]), high[i] = y.unit(s.y[i] + s.y_error[i]);
      plwidth(1.5);
      plsmin(0, 2.5);  // the caps' length is the minor ticks'
      plerry(n, p.x.data(), low.data(), high.data());
      plsmin(0, 1.0);
    }
    if (draws_line(s)) {
      plwidth(2.0);
      plline(n, p.x.data(), p.y.data());
    }
    if (draws_markers(s)) plstring(n, p.x.data(), p.y.data(), marker_glyph(k + colour_offset));
  }
  plwidth(1.0);
  if (with_legend) legend(chart, series, x, y, colour_offset);
}

// The page's colour map 0: the fixed entries, then `series` series colours.
void set_colours(size_t series) {
  plscmap0n(static_cast<PLINT>(kFirstSeries + series));
  plscol0(kBackground, 255, 255, 255);
  plscol0(kText, 40, 40, 40);
  plscol0(kGrid, 228, 228, 228);
  plscol0(kLegendBorder, 190, 190, 190);
  plscol0(kReference, 0, 0, 0);
  for (size_t k = 0; k < series; ++k) {
    const Rgb c = series_colour(k);
    plscol0(kFirstSeries + static_cast<PLINT>(k), c.r, c.g, c.b);
  }
}

}  // namespace

void write_chart(const std::string& path, const Chart& chart, const std::vector<Series>& series) {
  check_size(path, chart.width, chart.height);
  write_panels(path, {{chart, series}}, 1, chart.width, chart.height);
}

void write_panels(const std::string& path, const std::vector<Panel>& panels, int columns, int width,
                  int height) {
  check_size(path, width, height);
  EXADNN_CHECK(!panels.empty(), "plot", path, ": no panels to draw");
  EXADNN_CHECK(columns >= 1, "plot", path, ": ", columns, " columns (at least 1)");
  size_t colours = 0;
  for (size_t k = 0; k < panels.size(); ++k) {
    check(path, panels.size() > 1 ? detail::cat("panel ", k, ": ") : std::string(), panels[k].chart,
          panels[k].series);
    colours = std::max(colours, panels[k].first_colour + panels[k].series.size());
  }
  const int rows = static_cast<int>((panels.size() + columns - 1) / columns);
  PlotPage page(path, width, height, "plot");
  plssub(std::min<PLINT>(columns, static_cast<PLINT>(panels.size())), rows);
  set_colours(colours);
  const int columns_used = std::min<int>(columns, static_cast<int>(panels.size()));
  for (const Panel& panel : panels)
    draw(panel.chart, panel.series, panel.first_colour, panel.legend, width / columns_used,
         height / rows);
  page.finish();
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
  // Blue loss, red accuracy (colour 3), no legends: the titles say what each is.
  write_panels(path, {{left, {losses}, false, 0}, {right, {percent}, false, 3}}, 2, 900, 360);
}

}  // namespace exadnn::io
