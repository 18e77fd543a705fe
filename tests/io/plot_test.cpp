// PNG charts (io/plot.h): each chart is read back with libpng (size, and a few pixels of the
// colours drawn), and every input write_chart refuses is refused with the file and the series
// named.
#include "exadnn/io/plot.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "png_pixels.h"
#include "testing.h"

using namespace exadnn;
namespace fs = std::filesystem;

namespace {

using Colour = exadnn::testing::Rgb;
constexpr Colour kBlue{31, 119, 180}, kOrange{255, 127, 14}, kGreen{44, 160, 44}, kRed{214, 39, 40},
    kBlack{0, 0, 0};

fs::path scratch_dir() {
  return fs::temp_directory_path() / ("exadnn_plot_" + std::to_string(::getpid()));
}

fs::path scratch(const std::string& name) {
  fs::create_directories(scratch_dir());
  return scratch_dir() / name;
}

// Each test's charts go into a folder of its own, removed after it.
class Plot : public ::testing::Test {
 protected:
  void TearDown() override { fs::remove_all(scratch_dir()); }
};

using Image = exadnn::testing::RgbImage;
Image read_png(const fs::path& path) {
  return exadnn::testing::read_png_rgb(path.string());
}

TEST_F(Plot, SeriesPlotIsAReadablePngWithEachSeriesInItsColour) {
  const fs::path path = scratch("series.png");
  io::write_series_plot(path.string(), "loss vs seconds", "seconds",
                        {{"a", {0, 1, 2}, {1.0, 0.5, 0.4}}, {"b", {0.5, 1.5}, {0.9, 0.3}}});
  const Image image = read_png(path);
  EXPECT_EQ(image.width, 900);
  EXPECT_EQ(image.height, 480);
  EXPECT_EQ(image.at(0, 0), (Colour{255, 255, 255}));
  EXPECT_GT(image.count(kBlue), 200);
  EXPECT_GT(image.count(kOrange), 200);
  EXPECT_EQ(image.count(kGreen), 0);
}

TEST_F(Plot, TrainingPlotHasTwoPanels) {
  const fs::path path = scratch("training.png");
  io::write_training_plot(path.string(), {1.2, 0.7, 0.5}, {0.6, 0.75, 0.8});
  const Image image = read_png(path);
  EXPECT_EQ(image.width, 900);
  EXPECT_EQ(image.height, 360);
  int blue_left = 0, red_right = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      blue_left += x < 450 && image.at(x, y) == kBlue;
      red_right += x >= 450 && image.at(x, y) == kRed;
    }
  EXPECT_GT(blue_left, 100);  // the loss, left
  EXPECT_GT(red_right, 100);  // the accuracy, right
}

TEST_F(Plot, ErrorBarsMarkersAndLines) {
  // Order parameter against temperature, one curve per lattice size, as an application draws it.
  io::Chart chart;
  chart.title = "order parameter";
  chart.x_label = "T";
  chart.y_label = "|m| (\xC3\x85) #1";  // UTF-8, and PLplot's escape character drawn as written
  chart.width = 640, chart.height = 400;
  const std::vector<double> t{1.5, 2.0, 2.25, 2.5, 3.0};
  const std::vector<io::Series> series{
      {"L = 8",
       t,
       {0.98, 0.91, 0.7, 0.4, 0.2},
       {0.01, 0.02, 0.08, 0.1, 0.05},
       io::PlotStyle::lines_and_markers},
      {"L = 16",
       t,
       {0.99, 0.92, 0.65, 0.25, 0.1},
       {0.01, 0.02, 0.1, 0.08, 0.03},
       io::PlotStyle::markers},
      {"L = 32", t, {0.99, 0.93, 0.6, 0.15, 0.05}, {}, io::PlotStyle::lines}};
  const fs::path path = scratch("order.png");
  io::write_chart(path.string(), chart, series);
  const Image image = read_png(path);
  EXPECT_EQ(image.width, 640);
  EXPECT_EQ(image.height, 400);
  EXPECT_GT(image.count(kBlue), 100);
  EXPECT_GT(image.count(kOrange), 100);
  EXPECT_GT(image.count(kGreen), 100);

  // The axis range covers the error bars: the highest and lowest blue rows are the bars' caps
  // (several pixels wide), not a bar cut off by the frame (a pixel or two). Blue counts the
  // antialiased edges too (blue over white: blue well above red). No name, so no legend in the way.
  const fs::path bars = scratch("bars.png");
  io::write_chart(bars.string(), {},
                  {{"", {1, 2, 3}, {1, 2, 3}, {0.5, 3, 0.5}, io::PlotStyle::markers}});
  const Image b = read_png(bars);
  auto bluish_in_row = [&](int y) {
    int n = 0;
    for (int x = 0; x < b.width; ++x) n += b.at(x, y)[2] - b.at(x, y)[0] > 40;
    return n;
  };
  int top = -1, bottom = -1;
  for (int y = 0; y < b.height; ++y)
    if (bluish_in_row(y) > 0) bottom = y, top = top < 0 ? y : top;
  ASSERT_GE(top, 0);
  EXPECT_GE(bluish_in_row(top), 6);
  EXPECT_GE(bluish_in_row(bottom), 6);
  EXPECT_GT(bottom - top, b.height / 2);  // the 6-unit bar spans most of the 7-unit range

  // Markers alone draw less than the same points joined by lines.
  const std::vector<double> x{0, 1, 2, 3}, y{0, 3, 1, 2};
  io::write_chart(bars.string(), {}, {{"", x, y, {}, io::PlotStyle::markers}});
  const int markers = read_png(bars).count(kBlue);
  io::write_chart(bars.string(), {}, {{"", x, y, {}, io::PlotStyle::lines_and_markers}});
  EXPECT_GT(read_png(bars).count(kBlue), markers + 300);
}

TEST_F(Plot, ParityChartDrawsTheDiagonal) {
  io::Chart chart;
  chart.title = "energy per atom";
  chart.x_label = "reference (eV)";
  chart.y_label = "predicted (eV)";
  chart.reference_line = true;
  std::vector<double> reference, predicted;
  for (int i = 0; i < 20; ++i) {  // off the diagonal, which stays visible
    reference.push_back(-4.0 + 0.05 * i);
    predicted.push_back(reference.back() + (i % 2 ? 0.15 : -0.15));
  }
  const fs::path path = scratch("parity.png");
  io::write_chart(path.string(), chart,
                  {{"train", reference, predicted, {}, io::PlotStyle::markers},
                   {"test", {-3.9, -3.5}, {-3.8, -3.55}, {}, io::PlotStyle::markers}});
  const Image image = read_png(path);
  EXPECT_GT(image.count(kBlue), 100);
  EXPECT_GT(image.count(kOrange), 20);
  // The dashed black line rises from the bottom left to the top right. The legend's sample of it
  // is black too (a few per cent of the black pixels): the line is fitted, the fifth of the pixels
  // farthest from it dropped, and the rest must lie on a falling line (image rows grow downwards).
  std::vector<std::pair<double, double>> black;
  int min_x = image.width, max_x = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      if (image.at(x, y) == kBlack) black.emplace_back(x, y);
  ASSERT_GT(black.size(), 100u);  // pixels the antialiased dashes cover fully
  auto fit = [](const std::vector<std::pair<double, double>>& p) {  // slope, intercept, correlation
    double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (const auto& [x, y] : p) n += 1, sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    return std::array<double, 3>{
        slope, (sy - slope * sx) / n,
        (n * sxy - sx * sy) / std::sqrt((n * sxx - sx * sx) * (n * syy - sy * sy))};
  };
  const auto first = fit(black);
  std::sort(black.begin(), black.end(), [&](const auto& a, const auto& b) {
    return std::abs(a.second - first[0] * a.first - first[1]) <
           std::abs(b.second - first[0] * b.first - first[1]);
  });
  black.resize(black.size() * 4 / 5);
  for (const auto& [x, y] : black)
    min_x = std::min(min_x, static_cast<int>(x)), max_x = std::max(max_x, static_cast<int>(x));
  EXPECT_LT(fit(black)[2], -0.95);
  EXPECT_LT(min_x, image.width / 4);
  EXPECT_GT(max_x, image.width * 3 / 4);
}

TEST_F(Plot, LogScaleX) {
  io::Chart chart;
  chart.title = "RMSE vs oracle calls";
  chart.x_label = "oracle calls";
  chart.y_label = "RMSE";
  chart.log_x = true;
  const fs::path path = scratch("rmse.png");
  io::write_chart(path.string(), chart,
                  {{"active",
                    {10, 100, 1000, 10000},
                    {0.1, 0.03, 0.01, 0.004},
                    {},
                    io::PlotStyle::lines_and_markers},
                   {"random",
                    {10, 100, 1000, 10000},
                    {0.1, 0.05, 0.025, 0.012},
                    {},
                    io::PlotStyle::lines_and_markers}});
  const Image image = read_png(path);
  EXPECT_EQ(image.width, 900);
  EXPECT_GT(image.count(kBlue), 200);
  EXPECT_GT(image.count(kOrange), 200);
}

// Markers at y = 1, 10, 100, 1000 on a log y axis are evenly spaced down the image; on a linear
// one the first three crowd together at the bottom.
TEST_F(Plot, LogScaleYSpacesDecadesEvenly) {
  auto centres = [](const Image& image) {  // the blue markers' rows, bottom to top
    std::vector<double> rows;
    bool inside = false;
    double sum = 0, n = 0;
    for (int y = image.height - 1; y >= 0; --y) {
      const int c = image.count_in_row(y, kBlue);
      if (c > 0) sum += y * double(c), n += c;
      if (c == 0 && inside) rows.push_back(sum / n), sum = n = 0;
      inside = c > 0;
    }
    return rows;
  };
  io::Chart chart;
  chart.log_y = true;
  const fs::path path = scratch("log_y.png");
  const io::Series decades{"", {1, 2, 3, 4}, {1, 10, 100, 1000}, {}, io::PlotStyle::markers};
  io::write_chart(path.string(), chart, {decades});
  const std::vector<double> log_rows = centres(read_png(path));
  ASSERT_EQ(log_rows.size(), 4u);
  for (int k = 1; k < 3; ++k)
    EXPECT_NEAR(log_rows[k] - log_rows[k + 1], log_rows[0] - log_rows[1], 2.0) << k;
  chart.log_y = false;
  io::write_chart(path.string(), chart, {decades});
  const std::vector<double> linear_rows = centres(read_png(path));
  ASSERT_GE(linear_rows.size(), 2u);
  const double span = linear_rows.front() - linear_rows.back();
  for (size_t k = 1; k + 1 < linear_rows.size(); ++k)  // 10 and 100 merge with 1, or nearly
    EXPECT_LT(linear_rows.front() - linear_rows[k], 0.15 * span) << k;
}

// Three panels side by side, each series in its own colour (first_colour), each panel's colour
// in its own third of the page.
TEST_F(Plot, PanelsSideBySide) {
  const fs::path path = scratch("panels.png");
  std::vector<io::Panel> panels;
  for (size_t k = 0; k < 3; ++k) {
    io::Chart chart;
    chart.title = "panel " + std::to_string(k);
    panels.push_back(
        {chart, {{"s", {0, 1, 2}, {1, 0, 2}, {}, io::PlotStyle::lines_and_markers}}, false, k});
  }
  io::write_panels(path.string(), panels, 3, 1200, 400);
  const Image image = read_png(path);
  ASSERT_EQ(image.width, 1200);
  ASSERT_EQ(image.height, 400);
  const std::array<Colour, 3> colours{kBlue, kOrange, kGreen};
  for (int k = 0; k < 3; ++k)
    for (int third = 0; third < 3; ++third) {
      int n = 0;
      for (int y = 0; y < image.height; ++y)
        for (int x = third * 400; x < (third + 1) * 400; ++x) n += image.at(x, y) == colours[k];
      if (third == k) EXPECT_GT(n, 100) << "panel " << k;
      if (third != k) EXPECT_EQ(n, 0) << "panel " << k << " in third " << third;
    }
  EXPECT_EXADNN_ERROR(
      io::write_panels(path.string(), {panels[0], {{}, {{"bad", {1}, {}}}}}, 2, 800, 400),
      "panel 1: series 'bad' has 1 x values and 0 y values");
  EXPECT_EXADNN_ERROR(io::write_panels(path.string(), {}, 1, 800, 400), "no panels");
  EXPECT_EXADNN_ERROR(io::write_panels(path.string(), panels, 0, 800, 400), "0 columns");
}

// legend_outside narrows the plot to leave the legend room right of it, also when no legend is
// drawn (panels in one column line up): a horizontal line across the data's range is shorter.
TEST_F(Plot, LegendOutsideNarrowsThePlot) {
  auto line_extent = [](const Image& image) {
    int lo = image.width, hi = -1;
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x)
        if (image.at(x, y) == kBlue) lo = std::min(lo, x), hi = std::max(hi, x);
    return hi - lo;
  };
  const fs::path path = scratch("outside.png");
  const io::Series flat{"", {0, 10}, {1, 1}, {}, io::PlotStyle::lines};
  io::Chart chart;
  io::write_chart(path.string(), chart, {flat});
  const int inside = line_extent(read_png(path));
  chart.legend_outside = true;
  io::write_chart(path.string(), chart, {flat});
  const int outside = line_extent(read_png(path));
  EXPECT_GT(inside, 500);
  EXPECT_GT(inside - outside, 80);
}

TEST_F(Plot, RefusesBadInputNamingTheFileAndTheSeries) {
  const fs::path path = scratch("refused.png");
  const std::string p = path.string();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EXADNN_ERROR(io::write_series_plot(p, "t", "x", {{"a", {0, 1}, {1.0}}}), p,
                      "series 'a' has 2 x values and 1 y values");
  EXPECT_EXADNN_ERROR(io::write_chart(p, {}, {{"b", {0, 1}, {1, 2}, {0.1}}}), p,
                      "series 'b' has 2 y values and 1 y_error values");
  EXPECT_EXADNN_ERROR(io::write_chart(p, {}, {{"ok", {0}, {1}}, {"c", {}, {}}}), p,
                      "series 'c' has no points");
  EXPECT_EXADNN_ERROR(io::write_chart(p, {}, {}), p, "no series to draw");
  EXPECT_EXADNN_ERROR(io::write_chart(p, {}, {{"d", {0, 1}, {1, nan}}}), p,
                      "series 'd': y[1] is nan");
  EXPECT_EXADNN_ERROR(io::write_chart(p, {}, {{"ok", {0}, {1}}, {"", {nan}, {1}}}), p,
                      "series #1: x[0] is nan");
  EXPECT_EXADNN_ERROR(io::write_chart(p, {}, {{"e", {0}, {1}, {inf}}}), p,
                      "series 'e': y_error[0] is inf");
  EXPECT_EXADNN_ERROR(io::write_chart(p, {}, {{"f", {0}, {1}, {-1}}}), p,
                      "series 'f': y_error[0] is -1", ">= 0");
  io::Chart log;
  log.log_x = true;
  EXPECT_EXADNN_ERROR(io::write_chart(p, log, {{"g", {0, 1}, {1, 2}}}), p,
                      "series 'g': x[0] is 0, but the log-scale x axis needs x > 0");
  io::Chart log_y;
  log_y.log_y = true;
  EXPECT_EXADNN_ERROR(io::write_chart(p, log_y, {{"k", {1, 2}, {1, -2}}}), p,
                      "series 'k': y[1] is -2, but the log-scale y axis needs y > 0");
  EXPECT_EXADNN_ERROR(io::write_chart(p, log_y, {{"l", {1}, {1}, {1}}}), p,
                      "series 'l': y[0] - y_error[0] is 0");
  log.reference_line = true;
  EXPECT_EXADNN_ERROR(io::write_chart(p, log, {{"h", {1}, {1}}}), p,
                      "reference line needs linear axes");
  io::Chart tiny;
  tiny.width = 10;
  EXPECT_EXADNN_ERROR(io::write_chart(p, tiny, {{"i", {1}, {1}}}), p, "chart size 10x480");
  EXPECT_EXADNN_ERROR(io::write_training_plot(p, {1.0, 0.5}, {0.5}), p,
                      "one loss and one accuracy per epoch");
  EXPECT_EXADNN_ERROR(io::write_training_plot(p, {1.0, nan}, {0.5, 0.6}), p,
                      "series 'train loss': y[1] is nan");
  EXPECT_FALSE(fs::exists(path));  // refused before anything is written

  const std::string unwritable = "/nonexistent-exadnn-folder/chart.png";
  EXPECT_EXADNN_ERROR(io::write_chart(unwritable, {}, {{"j", {1}, {1}}}),
                      "cannot create " + unwritable);
  EXPECT_EXADNN_ERROR(io::write_training_plot(unwritable, {1.0}, {0.5}),
                      "cannot create " + unwritable);
}

}  // namespace
