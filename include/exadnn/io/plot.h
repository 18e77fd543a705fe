// PNG charts drawn with PLplot (io/plot_page.h: its pngcairo device, antialiased, the system's
// fonts): named x-y series on one chart, drawn as lines, markers or both, with optional vertical
// error bars, axis labels, a log-scale x axis and a y = x reference line (parity plots); and the
// two-panel chart of a training run.
//
//   io::Series l8{"L = 8", temperatures, heat_capacity, heat_capacity_error,
//                 io::PlotStyle::lines_and_markers};
//   io::write_chart("cv.png", {"heat capacity", "T", "C"}, {l8, l16});
//   io::Chart parity{"energies", "reference E", "predicted E"};
//   parity.reference_line = true;
//   io::write_chart("parity.png", parity, {{"test", reference, predicted, {},
//                                           io::PlotStyle::markers}});
#pragma once

#include <string>
#include <vector>

namespace exadnn::io {

/// How a series is drawn. Points are joined in the order given (not sorted by x).
enum class PlotStyle {
  lines,              ///< a line through the points (a single point gets a marker)
  markers,            ///< a marker at each point, no line (scatter, parity plots)
  lines_and_markers,  ///< both
};

/// One named curve of a chart. Series k is drawn in colour k of a 10-colour palette (blue, orange,
/// green, red, purple, brown, pink, grey, olive, cyan; further series get further hues) with
/// marker shape k of 8 (filled square, circle, triangle, diamond, then hollow ones), so the
/// series stay distinct. The legend lists each named series with a sample of its style (line,
/// marker, error bar); a series with an empty name is drawn but left out of the legend.
struct Series {
  std::string name{};
  std::vector<double> x{}, y{};   ///< one x per y; finite
  std::vector<double> y_error{};  ///< empty, or one per y: the bar spans y - e .. y + e (e >= 0)
  PlotStyle style = PlotStyle::lines;
};

/// What a chart shows besides its series. The axis ranges cover every point and error bar (with
/// a 5% margin); ticks are 1, 2, 5 x 10^k (whole numbers when the data are), powers of ten on a
/// log axis (and 2 and 5 x 10^k over three decades or fewer). Text is UTF-8, drawn as written
/// (PLplot's escape character '#' included).
struct Chart {
  std::string title{};    ///< "" = none
  std::string x_label{};  ///< under the x axis; "" = none
  std::string y_label{};  ///< along the y axis, read bottom to top; "" = none
  bool log_x = false;     ///< log-scale x axis (every x must be > 0)
  bool log_y = false;     ///< log-scale y axis (every y, and every error bar's foot, must be > 0)
  /// The dashed grey line y = x (a parity plot: predicted against reference); both axes then
  /// cover the same range, the union of the x and y data, so the line runs corner to corner and
  /// the legend lists it as "y = x". Needs linear axes.
  bool reference_line = false;
  /// The legend right of the plot, outside it, the plot narrowed to make room (charts with many
  /// series, whose legend would hide data in every corner). The room is kept when the legend is
  /// not drawn (a Panel's legend = false), so the plots of panels in one column line up.
  bool legend_outside = false;
  int width = 900, height = 480;  ///< pixels; 200x150 to 10000x10000
};

/// Writes `path` (PNG, chart.width x chart.height, RGB). Checks everything before writing:
/// throws exadnn::Error naming the file and the series (its name, or its index when unnamed) for
/// no series, a series without points, x and y (or y_error and y) of different lengths, a NaN or
/// infinite value, a negative error, x <= 0 on a log axis, a size out of range; and naming the
/// file when it cannot be created or written.
void write_chart(const std::string& path, const Chart& chart, const std::vector<Series>& series);

/// One chart of a page of several (write_panels).
struct Panel {
  Chart chart{};  ///< its width and height are not used: the page's are
  std::vector<Series> series{};
  bool legend = true;       ///< the legend of its named series
  size_t first_colour = 0;  ///< series k gets colour and marker first_colour + k
};

/// Writes `path` (PNG, width x height, 200x150 to 10000x10000): the panels in `columns` columns,
/// left to right and top to bottom, each drawn as write_chart draws a chart. Refuses what
/// write_chart refuses, naming the panel's index; and no panel or fewer than 1 column.
void write_panels(const std::string& path, const std::vector<Panel>& panels, int columns, int width,
                  int height);

/// write_chart with a title and an x label, everything else as Chart's defaults (900x480).
void write_series_plot(const std::string& path, const std::string& title,
                       const std::string& x_label, const std::vector<Series>& series);

/// Writes `path` (PNG, 900x360): left panel the loss per epoch, right panel the accuracy (a
/// fraction, drawn in %) per epoch, lines with markers. Throws exadnn::Error naming the file when
/// the lengths differ, there is no epoch, a value is not finite, or the file cannot be written.
void write_training_plot(const std::string& path, const std::vector<double>& loss,
                         const std::vector<double>& accuracy);

}  // namespace exadnn::io
