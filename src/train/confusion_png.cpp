// The confusion matrix as a PNG heat map, drawn with PLplot on an io::PlotPage.
#include <plplot/plplot.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/io/plot_page.h"
#include "exadnn/train/class_metrics.h"

namespace exadnn::train {
namespace {

// The page: the matrix's square, and fixed margins around it in pixels (class labels and the axis
// titles left and below, the title above, the colour bar right).
constexpr int kLeft = 100, kRight = 150, kBottom = 80, kTop = 70;

}  // namespace

int confusion_png_side(int64_t classes) {
  return static_cast<int>(std::clamp<int64_t>(48 * classes, 360, 900));
}

void write_confusion_png(const std::string& path, const ClassMetrics& m) {
  const int64_t c = m.classes();
  const int side = confusion_png_side(c);
  const int width = side + kLeft + kRight, height = side + kBottom + kTop;
  // The fraction of each true class's examples in each predicted class: f[t][p], 0 for a class
  // without examples.
  std::vector<std::vector<double>> f(static_cast<size_t>(c), std::vector<double>(c, 0.0));
  for (int64_t t = 0; t < c; ++t) {
    const int64_t total = m.support(t);
    for (int64_t p = 0; p < c && total > 0; ++p)
      f[t][p] = static_cast<double>(m.confusion(t, p)) / static_cast<double>(total);
  }

  io::PlotPage page(path, width, height, "confusion_png");
  pladv(0);
  plvpor(static_cast<double>(kLeft) / width, 1.0 - static_cast<double>(kRight) / width,
         static_cast<double>(kBottom) / height, 1.0 - static_cast<double>(kTop) / height);
  const double n = static_cast<double>(c);
  plwind(-0.5, n - 0.5, n - 0.5, -0.5);  // class 0 at the top left
  // Colour map 1: white (0) to dark blue (1), linear in each channel.
  const PLFLT position[2] = {0, 1}, red[2] = {1, 8 / 255.0}, green[2] = {1, 48 / 255.0},
              blue[2] = {1, 107 / 255.0};
  plscmap1l(1, 2, position, red, green, blue, nullptr);
  plscol0(1, 40, 40, 40);     // text and frame
  plscol0(2, 160, 160, 160);  // the cells' grid
  // The cells, each filled in its colour; the white page is the zeros.
  for (int64_t t = 0; t < c; ++t)
    for (int64_t p = 0; p < c; ++p) {
      if (f[t][p] <= 0) continue;
      const PLFLT x[4] = {p - 0.5, p + 0.5, p + 0.5, p - 0.5},
                  y[4] = {t - 0.5, t - 0.5, t + 0.5, t + 0.5};
      plcol1(f[t][p]);
      plfill(4, x, y);
    }
  const double cell = static_cast<double>(side) / n;  // pixels
  if (cell >= 6) {                                    // the grid between the cells
    plcol0(2);
    for (int64_t k = 1; k < c; ++k) {
      pljoin(k - 0.5, -0.5, k - 0.5, n - 0.5);
      pljoin(-0.5, k - 0.5, n - 0.5, k - 0.5);
    }
  }
  if (cell >= 36) {  // each cell's fraction, white on the dark ones
    plschr(0, std::min(1.0, cell / 70));
    for (int64_t t = 0; t < c; ++t)
      for (int64_t p = 0; p < c; ++p) {
        char text[16];
        std::snprintf(text, sizeof text, "%.2f", f[t][p]);
        const int grey = f[t][p] > 0.5 ? 255 : 40;
        plscol0(3, grey, grey, grey);
        plcol0(3);
        plptex(static_cast<double>(p), static_cast<double>(t) + 0.1, 1, 0, 0.5, text);
      }
    plschr(0, 1.0);
  }
  plcol0(1);
  const double step = c <= 20 ? 1.0 : 0.0;  // every class labelled, or PLplot's own steps
  plbox("bcnt", step, 0, "bcntv", step, 0);
  char title[96];
  std::snprintf(title, sizeof title, "confusion matrix: %lld test examples, top-1 %.2f %%",
                static_cast<long long>(m.total()), 100.0 * m.top1());
  pllab("predicted class", "true class", title);
  // The colour bar: the fraction of the row.
  PLFLT bar_width = 0, bar_height = 0;
  const PLINT label_options[1] = {PL_COLORBAR_LABEL_RIGHT};
  const char* labels[1] = {"fraction of the true class"};
  const char* axis_options[1] = {"bcvtm"};
  const PLFLT ticks[1] = {0.0};
  const PLINT sub_ticks[1] = {0};
  // Shades of 0.05 (PL_COLORBAR_GRADIENT would draw a cairo gradient, which PLplot's cairo
  // driver never frees: LeakSanitizer reports it).
  std::vector<PLFLT> edges(21);
  for (int k = 0; k <= 20; ++k) edges[k] = k / 20.0;
  const PLINT n_values[1] = {21};
  const PLFLT* values[1] = {edges.data()};
  plcolorbar(&bar_width, &bar_height, PL_COLORBAR_SHADE,
             PL_POSITION_RIGHT | PL_POSITION_OUTSIDE | PL_POSITION_VIEWPORT, 0.03, 0.0, 0.04, 1.0,
             0, 1, 1, 0.0, 0.0, 0, 0.0, 1, label_options, labels, 1, axis_options, ticks, sub_ticks,
             n_values, values);
  page.finish();
}

}  // namespace exadnn::train
